/**
 * Crash safety: an ingest killed (SIGKILL) at any moment leaves a library that opens, answers, and
 * holds each file either in its old version, its new version or (a new file) not at all: never both,
 * never twice, and its fault codes always from the same version as its passages.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import readline from 'node:readline';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEngine } from '../../native/engine.js';
import { NOTES, code, marker, writeRound } from './crash-corpus.js';
import { BIN, REPO_ROOT, cleanupTemp, copyFixtures, tempDir, value } from './helpers.js';

afterAll(cleanupTemp);

/**
 * Where to kill: on the nth progress event of a phase (child driver; `finalStore` = the store event of
 * the final compaction), or, for the real CLI (which prints no progress off a terminal), when it
 * commits files.json for the nth time.
 */
type Kill =
  | { how: 'progress'; phase: 'store' | 'parse'; nth: number; delayMs: number; finalStore?: boolean }
  | { how: 'cli'; commits: number; delayMs: number };

/** Runs an ingest in a child process and SIGKILLs it at the chosen point. Returns whether it finished first. */
function killedIngest(lib: string, corpus: string, kill: Kill): Promise<{ finished: boolean; sawProgress: number }> {
  return new Promise((resolve, reject) => {
    const args =
      kill.how === 'cli'
        ? [BIN, 'ingest', corpus, '--library', lib, '--json']
        : ['--import', 'tsx', path.join(REPO_ROOT, 'test', 'integration', 'ingest-child.ts'), lib, corpus];
    // The real command is two processes on Linux (bin/manualdesk.js starts the CLI again with
    // MALLOC_ARENA_MAX set): its process group is killed, as closing its terminal does.
    const group = kill.how === 'cli';
    const child = spawn(process.execPath, args, { cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'pipe'], detached: group });
    let finished = false;
    let seen = 0;
    let armed = false;
    const fire = (delay: number) => {
      if (armed) return;
      armed = true;
      setTimeout(() => (group && child.pid ? process.kill(-child.pid, 'SIGKILL') : child.kill('SIGKILL')), delay);
    };
    let watcher: fs.FSWatcher | null = null;
    if (kill.how === 'cli') {
      let commits = 0;
      watcher = fs.watch(lib, (_event, name) => {
        if (name === 'files.json' && ++commits >= kill.commits) fire(kill.delayMs);
      });
    }
    const rl = readline.createInterface({ input: child.stdout });
    rl.on('line', (line) => {
      if (line.startsWith('{"done"') || line.startsWith('{"files"')) finished = true;
      if (kill.how !== 'progress') return;
      const p = JSON.parse(line) as { phase?: string; file?: string };
      if (p.phase !== kill.phase) return;
      if (kill.finalStore ? p.file === undefined : p.file !== undefined) {
        seen++;
        if (seen >= kill.nth) fire(kill.delayMs);
      }
    });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('exit', (codeNum, signal) => {
      watcher?.close();
      if (signal !== 'SIGKILL' && codeNum !== 0) reject(new Error(`child failed (${codeNum}): ${stderr}`));
      else if (group && child.pid) void groupGone(child.pid).then(() => resolve({ finished, sawProgress: seen }), reject);
      else resolve({ finished, sawProgress: seen });
    });
  });
}

/** Resolves once no process of the group is left (its last one may outlive the first by a moment). */
async function groupGone(pgid: number): Promise<void> {
  for (let i = 0; i < 500; i++) {
    try {
      process.kill(-pgid, 0);
    } catch {
      return;
    }
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error(`processes of group ${pgid} still running 5 s after the kill`);
}

/** Asserts the library is consistent and every note is in round `old` or `next` (or absent), never both. */
async function checkConsistent(lib: string, old: number, next: number): Promise<Record<number, 'old' | 'new' | 'absent'>> {
  const states: Record<number, 'old' | 'new' | 'absent'> = {};
  // A reader first: it sees the library exactly as the killed writer left it (no clean-up yet).
  for (const readOnly of [true, false]) {
    const engine = await createEngine({ libraryDir: lib, readOnly });
    try {
      const info = value(await engine.info());
      const manuals = value(await engine.listManuals());
      expect(value(await engine.search({ query: 'hydraulic oil', k: 3 })).hits.length).toBeGreaterThan(0);
      if (!readOnly) {
        // The writer's open removed uncommitted rows: the tables hold exactly the committed records.
        expect(info.chunks).toBe(manuals.reduce((s, m) => s + m.chunks, 0));
      }
      for (let i = 0; i < NOTES; i++) {
        const file = `extra/note-${i}.md`;
        const listed = manuals.some((m) => m.file === file);
        const count = async (round: number) => {
          const hits = value(await engine.search({ query: marker(round, i), k: 20, filters: { pathPrefix: file } })).hits;
          const passages = hits.filter((h) => h.kind !== 'code' && h.text.includes(marker(round, i))).length;
          const codes = value(await engine.lookupCode({ text: code(round, i) })).matches.filter((m) => m.file === file).length;
          return { passages, codes };
        };
        const o = await count(old);
        const n = await count(next);
        const state = o.passages > 0 ? 'old' : n.passages > 0 ? 'new' : 'absent';
        const ctx = `${readOnly ? 'reader' : 'writer'} ${file} rounds ${old}->${next}: old ${JSON.stringify(o)} new ${JSON.stringify(n)}`;
        // Never both versions; never a passage twice (the marker is in exactly two chunks of a note: the
        // paragraph and the table row); codes always from the version the passages come from.
        expect(o.passages > 0 && n.passages > 0, ctx).toBe(false);
        const mine = state === 'old' ? o : state === 'new' ? n : { passages: 0, codes: 0 };
        const other = state === 'old' ? n : o;
        expect(mine.passages, ctx).toBe(state === 'absent' ? 0 : 2);
        expect(other, ctx).toEqual({ passages: 0, codes: 0 });
        expect(mine.codes, ctx).toBe(state === 'absent' ? 0 : 1);
        expect(listed, ctx).toBe(state !== 'absent');
        if (readOnly) states[i] = state;
        else expect(state, ctx).toBe(states[i]); // clean-up on open never changes what answers
      }
    } finally {
      await engine.close();
    }
  }
  return states;
}

describe('an ingest killed part-way', () => {
  let lib: string;
  let corpus: string;

  beforeAll(async () => {
    lib = path.join(tempDir('crash'), 'lib');
    corpus = copyFixtures('crash-corpus');
  });

  // Kill points: part-way through the per-file store phase, during the final compaction, and the real
  // CLI just after its second commit. (Each round costs a child start-up, ~2.5 s on 2 cores.)
  const kills: Kill[] = [
    { how: 'progress', phase: 'store', nth: 4, delayMs: 3 },
    { how: 'progress', phase: 'store', nth: 1, delayMs: 5, finalStore: true },
    { how: 'cli', commits: 2, delayMs: 0 },
  ];

  it('leaves every file old, new or absent, never mixed, whatever the kill point', async () => {
    const seenStates = new Set<string>();
    for (const [r, kill] of kills.entries()) {
      // Start each round from a fully ingested round r.
      writeRound(corpus, r);
      const engine = await createEngine({ libraryDir: lib, create: true });
      value(await engine.ingest({ paths: [corpus] }));
      await engine.close();

      writeRound(corpus, r + 1);
      const outcome = await killedIngest(lib, corpus, kill);
      expect(outcome.finished, `round ${r} finished before the kill`).toBe(false);
      const states = await checkConsistent(lib, r, r + 1);
      for (const s of Object.values(states)) seenStates.add(s);
    }
    // The kill points did interrupt mid-way: some notes were still old after some kill.
    expect(seenStates.has('old')).toBe(true);

    // A complete ingest afterwards brings everything to the newest round.
    const last = kills.length + 1; // round `kills.length` was the last one killed
    writeRound(corpus, last);
    const engine = await createEngine({ libraryDir: lib });
    const r = value(await engine.ingest({ paths: [corpus] }));
    expect(r.skipped).toEqual([]);
    await engine.close();
    const states = await checkConsistent(lib, last - 1, last);
    expect(Object.values(states).filter((s) => s === 'new')).toHaveLength(last % 2 === 1 ? NOTES - 1 : NOTES);
  });
});
