/**
 * Readers that survive a writer (issue 37, item 6): a library searched while a writer removes files,
 * adds them back and compacts (which prunes the tables' old versions) answers every search, and each
 * answer matches the library as last committed.
 *   - another process writes (a child, test/reliability/issue37-writer-child.ts) while this process
 *     searches with a read-only engine, as `manualdesk search --batch` does beside an ingest;
 *   - the same engine writes and searches (browser mode: removeFiles during a burst of searches).
 * And a library whose table is damaged on disk (item 12): see the last describe.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import readline from 'node:readline';
import { afterAll, describe, expect, it } from 'vitest';
import { createEngine, type Engine } from '../../native/engine.js';
import { Library } from '../../native/library/library.js';
import { NOTES, code, marker, noteFile, writeRound } from '../integration/crash-corpus.js';
import { REPO_ROOT, cleanupTemp, tempDir } from '../integration/helpers.js';
import { expectClear, failure, value, write } from './helpers.js';

afterAll(cleanupTemp);

const WRITER_CHILD = path.join(REPO_ROOT, 'test', 'reliability', 'issue37-writer-child.ts');
const NOTE_FILES = Array.from({ length: NOTES }, (_, i) => noteFile(i));
const KEEP = 'keep/spindle.md';

/** A corpus of the round-0 notes and one manual that is never removed; ingested into a new library. */
async function library(): Promise<{ lib: string; corpus: string }> {
  const corpus = tempDir('corpus');
  writeRound(corpus, 0);
  // Some bulk, so that a search is still reading when a compaction prunes the version it started on.
  const sections = Array.from({ length: 150 }, (_, i) => `## Check ${i}\n\nSpindle drive check ${i}: measure the belt tension and the encoder signal, then the brake gap.\n`);
  write(corpus, KEEP, `# Spindle\n\nThe zzkeepzz spindle drive holds its speed.\n\n${sections.join('\n')}`);
  const lib = tempDir('lib');
  const engine = await createEngine({ libraryDir: lib, create: true });
  value(await engine.ingest({ paths: [corpus] }));
  await engine.close();
  return { lib, corpus };
}

/** Whether a search finds one note (by its marker) and the kept manual, and the note's fault code is known. */
async function found(engine: Engine, note: number): Promise<{ note: boolean; code: boolean; keep: boolean }> {
  const notes = value(await engine.search({ query: marker(0, note), k: 5 })).hits.map((h) => h.file);
  const keep = value(await engine.search({ query: 'zzkeepzz', k: 5 })).hits.map((h) => h.file);
  const codes = value(await engine.lookupCode({ text: code(0, note) })).matches;
  return { note: notes.includes(noteFile(note)), code: codes.length > 0, keep: keep.includes(KEEP) };
}

/** Searches in a loop until stopped; every failed search is recorded. */
function searchLoop(engine: Engine): { stop: () => Promise<{ searches: number; errors: string[] }> } {
  let running = true;
  const errors: string[] = [];
  let searches = 0;
  const loop = (async () => {
    for (let i = 0; running; i++) {
      const r = await engine.search({ query: `${marker(0, i % NOTES)} spindle`, k: 5 });
      searches++;
      if (!r.ok) errors.push(`${r.error.code}: ${r.error.message}`);
    }
  })();
  return {
    stop: async () => {
      running = false;
      await loop;
      return { searches, errors };
    },
  };
}

describe('readers beside a writer', () => {
  it('a read-only engine searching while another process removes, re-adds and compacts: no errors, committed results', async () => {
    const { lib, corpus } = await library();
    const reader = await createEngine({ libraryDir: lib, readOnly: true });
    expect(await found(reader, 0)).toEqual({ note: true, code: true, keep: true });
    const loop = searchLoop(reader);
    const child = spawn(process.execPath, ['--import', 'tsx', WRITER_CHILD, lib, corpus, '3', ...NOTE_FILES], {
      cwd: REPO_ROOT,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
    const seen: { step: number; present: boolean; got: Awaited<ReturnType<typeof found>> }[] = [];
    for await (const line of readline.createInterface({ input: child.stdout })) {
      const msg = JSON.parse(line) as { step?: number; present?: boolean; done?: boolean };
      if (msg.done) break;
      // The writer waits while the reader checks what it sees of the change just committed.
      seen.push({ step: msg.step as number, present: msg.present as boolean, got: await found(reader, msg.step as number % NOTES) });
      child.stdin.write('\n');
    }
    child.stdin.end();
    expect(await exited, stderr).toBe(0);
    const { searches, errors } = await loop.stop();
    await reader.close();
    expect(errors).toEqual([]);
    expect(searches).toBeGreaterThan(0);
    expect(seen).toHaveLength(6);
    for (const s of seen) expect(s.got, `step ${s.step}`).toEqual({ note: s.present, code: s.present, keep: true });
  }, 120_000);

  it('a read that finds the store already moved on by another read still takes up the new code index', async () => {
    // The race behind a CI failure: a search in flight when the writer commits moves the store to the
    // new records inside its own read; the next code lookup must still read the code index again.
    const { lib } = await library();
    const reader = await Library.open(lib, { readOnly: true, resolveRecorded: () => ({ kind: 'none' }) });
    const writer = await createEngine({ libraryDir: lib });
    try {
      expect(reader.codes.lookup(code(0, 0)).matches.length).toBeGreaterThan(0);
      expect(value(await writer.removeFiles([noteFile(0)])).removed).toBe(1);
      await reader.store.followWriter();
      await reader.followWriter();
      expect(reader.codes.lookup(code(0, 0)).matches).toEqual([]);
    } finally {
      await writer.close();
      await reader.close();
    }
  });

  it('searches while the same engine removes and re-adds files (browser mode): none fails', async () => {
    const { lib, corpus } = await library();
    const engine = await createEngine({ libraryDir: lib });
    const loops = Array.from({ length: 6 }, () => searchLoop(engine));
    for (let round = 0; round < 10; round++) {
      expect(value(await engine.removeFiles(NOTE_FILES)).removed).toBe(NOTES);
      value(await engine.ingest({ paths: [corpus] }));
    }
    const runs = await Promise.all(loops.map((l) => l.stop()));
    expect(runs.flatMap((r) => r.errors)).toEqual([]);
    expect(await found(engine, 1)).toEqual({ note: true, code: true, keep: true });
    await engine.close();
  }, 120_000);
});

/**
 * A LanceDB table damaged on disk (issue 37, item 12): a data file truncated or with flipped bits. A
 * search says the library is damaged and how to repair it (LIBRARY_DAMAGED, no Rust text), and a
 * writer refuses to change it: files.json stays as it was, the run stops instead of skipping each file.
 */
describe('a damaged table', () => {
  const damage = {
    truncated: (file: string) => fs.truncateSync(file, Math.floor(fs.statSync(file).size / 2)),
    'bit-flipped': (file: string) => {
      const bytes = fs.readFileSync(file);
      for (let i = 64; i < bytes.length - 64; i += 29) bytes[i] = (bytes[i] as number) ^ 0xff;
      fs.writeFileSync(file, bytes);
    },
  };
  it.each(Object.keys(damage) as (keyof typeof damage)[])('%s data file: LIBRARY_DAMAGED with the repair, and no write', async (kind) => {
    const { lib, corpus } = await library();
    const data = path.join(lib, 'lance', 'chunks.lance', 'data');
    for (const f of fs.readdirSync(data)) damage[kind](path.join(data, f));
    const clean = (err: { code: string; message: string }) => {
      expectClear(err, 'LIBRARY_DAMAGED');
      expect(err.message).toMatch(/backup|re-index/);
      expect(err.message).not.toMatch(/\.rs:\d|panick|backtrace|LanceError|lance error/i);
    };

    const reader = await createEngine({ libraryDir: lib, readOnly: true });
    clean(failure(await reader.search({ query: 'zzkeepzz spindle', k: 5 })));
    await reader.close();

    const filesJson = fs.readFileSync(path.join(lib, 'files.json'), 'utf8');
    writeRound(corpus, 1);
    const writer = await createEngine({ libraryDir: lib });
    clean(failure(await writer.ingest({ paths: [corpus] })));
    clean(failure(await writer.removeFiles([noteFile(0)])));
    await writer.close();
    expect(fs.readFileSync(path.join(lib, 'files.json'), 'utf8')).toBe(filesJson);
  }, 60_000);
});
