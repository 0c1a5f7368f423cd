/**
 * Shared by the crash tests (test/integration/interrupted-ingest, test/reliability/crash): generated
 * service notes whose every version carries its own marker word and fault code, so a search tells
 * which version of a note the library holds.
 */
import fs from 'node:fs';
import path from 'node:path';

export const NOTES = 8;
const LETTERS = 'abcdefghij';
/** One word per (round, note): the analyzer keeps it whole. */
export const marker = (round: number, note: number) => `zz${LETTERS[round]}${LETTERS[note]}zz`;
export const code = (round: number, note: number) => `E-${900 + round * 10 + note}`;
export const noteFile = (note: number) => `extra/note-${note}.md`;

/** Writes note `i` of round `round` (or deletes it for null), its mtime moved forward by the round. */
export function writeNote(corpus: string, i: number, round: number | null): void {
  const file = path.join(corpus, ...noteFile(i).split('/'));
  if (round === null) {
    fs.rmSync(file, { force: true });
    return;
  }
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(
    file,
    `# Service note ${i}\n\nRound marker ${marker(round, i)} for this note.\n\n` +
      `## Fault list\n\n| Error | Message |\n|---|---|\n| ${code(round, i)} | Marker fault ${marker(round, i)} |\n`,
  );
  const t = new Date(Date.now() + round * 10_000);
  fs.utimesSync(file, t, t);
}

/** The note's version in round r: every note carries round r's marker and code; note 7 exists in even rounds only. */
export function roundState(round: number, note: number): number | null {
  return note === NOTES - 1 && round % 2 === 1 ? null : round;
}

/** Round r of the corpus (see {@link roundState}). */
export function writeRound(corpus: string, round: number): void {
  for (let i = 0; i < NOTES; i++) writeNote(corpus, i, roundState(round, i));
}
