/**
 * A question that quotes a display or log message: the passage that shows the message as written is
 * found even when BM25 over its common words ranks other passages first (LibraryStore.findText via a
 * 'message' part of the query plan), and a message no manual shows is refused (the evidence gate's
 * unknown-message rule). Real engine on files written here.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { engineOverDocs } from './engine-fixture.js';
import { value } from './helpers.js';

const engine = engineOverDocs('quoted', (docs) => {
  fs.mkdirSync(path.join(docs, 'press'), { recursive: true });
  // Many short passages use the message's words (ram, move, range); the message itself sits in a long change log,
  // so BM25 over its words alone ranks it below them.
  const moves = Array.from({ length: 12 }, (_, i) => `## Ram move ${i + 1}\n\nThe ram moves within its range; a move of the ram out of the upper range is stopped by the range switch (move ${i + 1}).\n`).join('\n');
  fs.writeFileSync(path.join(docs, 'press', 'ram.md'), `# Press ram\n\n${moves}`);
  const log = Array.from({ length: 8 }, (_, i) => `Version 1.${i}: the controller firmware was updated and the tool table was reorganised for the new tooling (${i}).`).join(' ');
  // A troubleshooting page that shows the console's message in a block, among passages that share the question's other words.
  const tools = Array.from({ length: 10 }, (_, i) => `## Running the press tool ${i + 1}\n\nRun the press tool with --teach to teach stroke ${i + 1}; the tool reports the stroke when it is done.\n`).join('\n');
  fs.writeFileSync(path.join(docs, 'press', 'tool.md'), `# Press tool\n\n${tools}`);
  fs.writeFileSync(
    path.join(docs, 'press', 'teach-troubleshooting.md'),
    '# Teach problems\n\nMost failed teach runs end with the same message:\n\n```\nTEACH stroke lost\n```\n\nCheck the stroke sensor cable first, then the sensor magnet.\n',
  );
  fs.writeFileSync(
    path.join(docs, 'press', 'changes.md'),
    `# Changes\n\n## Release notes\n\n${log} Version 2.0: after a ram reference run the display may show "Ram move out of range!" until the next cycle; run the reference again. ${log}\n`,
  );
});

describe('quoted messages', () => {
  it('finds the passage that shows the message, punctuation and case aside', async () => {
    const r = value(await engine().retrieve({ query: "the press shows 'ram move, out of range' after a reference run", k: 10 }));
    expect(r.parts?.some((p) => p.reason === 'message')).toBe(true);
    expect(r.hits.slice(0, 5).some((h) => h.file === 'press/changes.md')).toBe(true);
    const a = value(await engine().ask({ question: "the press shows 'ram move, out of range' after a reference run", prefer: 'extractive' }));
    expect(a.refused).toBe(false);
    expect(a.citations.some((c) => c.file === 'press/changes.md')).toBe(true);
  });

  it('refuses a message no manual shows, naming it', async () => {
    const a = value(await engine().ask({ question: "the press shows 'hydraulic accumulator precharge lost' on start", prefer: 'extractive' }));
    expect(a.refused).toBe(true);
    expect(a.answer).toContain('No installed manual shows the message "hydraulic accumulator precharge lost"');
  });

  it('finds the passage that shows a message the question types without quotes, first', async () => {
    const r = value(await engine().retrieve({ query: 'teach stroke lost when running the press tool with --teach', k: 10 }));
    expect(r.parts?.find((p) => p.reason === 'message')?.query).toBe('TEACH stroke lost');
    expect(r.hits[0]?.file).toBe('press/teach-troubleshooting.md');
    // Words of the message in another order are no message.
    const other = value(await engine().retrieve({ query: 'the stroke was lost while teaching', k: 10 }));
    expect(other.parts?.some((p) => p.reason === 'message') ?? false).toBe(false);
  });

  it('apostrophes are not quotes', async () => {
    const r = value(await engine().retrieve({ query: "the ram won't move and it's out of range", k: 5 }));
    expect(r.parts?.some((p) => p.reason === 'message') ?? false).toBe(false);
  });
});
