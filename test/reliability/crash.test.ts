/**
 * Crash safety (issue #8): a child process runs one write on a library and is SIGKILLed at a random
 * moment of it; the library is then reopened here (reader first, exactly as the killed writer left
 * it, then a writer, whose open cleans up) and must
 *   - open and answer (a search of the fixture manuals, and every note's marker and fault code),
 *   - hold every file in its BEFORE or its AFTER version: passages and fault codes of one version
 *     only, never both, never twice (per file: files.json's record, the passages and the codes agree),
 *   - for packs, show exactly the previous or the new active version (a pack install is all or nothing),
 *   - and let the same operation, run again, finish and reach the AFTER state.
 *
 * Operations: ingest of new files; re-index (changed files / forced --reindex / stale library whose
 * chunker version is older); delete (engine.removeFiles); pack import and pack update.
 * Kill moments: the child prints a "ready" line before it opens the library, and the kill comes a
 * delay after it, drawn uniformly over the uninterrupted operation's length (every fifth trial a tiny
 * 0–4 ms delay instead, to hit the start), from a seeded PRNG. That length is measured first: with
 * MANUALDESK_RELIABILITY_FULL=1 (or MANUALDESK_CRASH_CHILD_CALIBRATION=1) by an uninterrupted child,
 * from its ready line to its result; in CI, to save a child start-up per variant, by running the
 * operation in this process (open to close), which is faster than a fresh child, so CI's kills lean
 * towards the early part of the operation.
 *
 * Trials per operation: MANUALDESK_CRASH_TRIALS (default 4; 25 with MANUALDESK_RELIABILITY_FULL=1);
 * seed: MANUALDESK_CRASH_SEED. One JSON line per operation is printed with the outcome counts.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CHUNKER_VERSION, createEngine } from '../../native/engine.js';
import { buildPack } from '../../native/packs/build.js';
import { trustKey } from '../../native/packs/keys.js';
import { prng } from '../../scripts/prng.js';
import { NOTES, code, marker, noteFile, roundState, writeNote, writeRound } from '../integration/crash-corpus.js';
import { REPO_ROOT, cleanupTemp, copyFixtures, tempDir, value } from '../integration/helpers.js';
import { newKey, remake, sha256 } from '../integration/packs-helpers.js';

afterAll(cleanupTemp);

const FULL = process.env.MANUALDESK_RELIABILITY_FULL === '1';
const TRIALS = Number(process.env.MANUALDESK_CRASH_TRIALS ?? (FULL ? 25 : 4));
const SEED = Number(process.env.MANUALDESK_CRASH_SEED ?? 20268);
/** Time the uninterrupted run in a child (exact span; one more child start-up per variant) or here (CI). */
const CHILD_CALIBRATION = FULL || process.env.MANUALDESK_CRASH_CHILD_CALIBRATION === '1';
const rand = prng(SEED);
const PACK = 'plant';

const INGEST_CHILD = path.join(REPO_ROOT, 'test', 'integration', 'ingest-child.ts');
const PACKS_CHILD = path.join(REPO_ROOT, 'test', 'integration', 'packs-child.ts');

// ---- child runs ---------------------------------------------------------------------------------

interface ChildRun {
  /** The child was killed before it printed its result. */
  killed: boolean;
  /** ms from spawn to the ready line, to the result line (-1: none), and to exit. */
  readyMs: number;
  doneMs: number;
  exitMs: number;
  /** Progress lines seen before the kill (0: killed before the operation showed any progress). */
  progress: number;
}

/** Runs a child and, when killAfterMs is set, SIGKILLs it that long after its ready line. */
function runChild(args: string[], readyTag: string, killAfterMs: number | null): Promise<ChildRun> {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const child = spawn(process.execPath, ['--import', 'tsx', ...args], { cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let readyMs = -1;
    let doneMs = -1;
    let done = false;
    let progress = 0;
    let buf = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => {
      buf += c.toString();
      let i: number;
      while ((i = buf.indexOf('\n')) >= 0) {
        const line = buf.slice(0, i);
        buf = buf.slice(i + 1);
        if (line.includes(readyTag) && readyMs < 0) {
          readyMs = performance.now() - t0;
          if (killAfterMs !== null) setTimeout(() => child.kill('SIGKILL'), killAfterMs);
        } else if (line.startsWith('{"done"')) {
          done = true;
          doneMs = performance.now() - t0;
          if (!line.includes('"ok":true')) stderr += `\nresult: ${line}`;
        } else progress++;
      }
    });
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('exit', (codeNum, signal) => {
      const exitMs = performance.now() - t0;
      // A kill that lands after the result line (during close) counts as a finished run.
      if (signal === 'SIGKILL' && !done) resolve({ killed: true, readyMs, doneMs, exitMs, progress });
      else if ((codeNum === 0 || signal === 'SIGKILL') && done && !stderr.includes('result:')) resolve({ killed: false, readyMs, doneMs, exitMs, progress });
      else reject(new Error(`child ${args.join(' ')} failed (${codeNum ?? signal}): ${stderr.slice(-2000)}`));
    });
  });
}

// ---- what is on disk ----------------------------------------------------------------------------

/** The committed state as files: per file its generation, the library's chunker version, the packs' active versions. */
interface Fingerprint {
  files: Record<string, number>;
  chunkerVersion: number | null;
  packs: Record<string, string>;
}

function readJsonFile<T>(file: string): T | null {
  return fs.existsSync(file) ? (JSON.parse(fs.readFileSync(file, 'utf8')) as T) : null;
}

function fingerprint(lib: string): Fingerprint {
  const files = readJsonFile<{ files: { file: string; generation: number }[] }>(path.join(lib, 'files.json'))?.files ?? [];
  const seen: Record<string, number> = {};
  for (const f of files) {
    expect(seen[f.file], `${f.file} recorded twice in files.json`).toBeUndefined();
    seen[f.file] = f.generation;
  }
  const meta = readJsonFile<{ chunkerVersion: number }>(path.join(lib, 'library.json'));
  const reg = readJsonFile<{ packs: { id: string; active: string }[] }>(path.join(lib, 'packs.json'))?.packs ?? [];
  return { files: seen, chunkerVersion: meta?.chunkerVersion ?? null, packs: Object.fromEntries(reg.map((p) => [p.id, p.active])) };
}

/** Per note: the round of the version the library answers with, or null (absent). */
type NoteStates = (number | null)[];

/**
 * Opens the library read-only (as the killed writer left it) and then writable (after its clean-up),
 * checks that it answers and that every note is whole in one version, and returns the notes' states.
 * `source`: null for the site's own library, else the pack the notes live in.
 */
async function observe(lib: string, rounds: number[], source: string | null, opts: { reader: boolean }): Promise<NoteStates> {
  let first: NoteStates | null = null;
  for (const readOnly of opts.reader ? [true, false] : [false]) {
    const engine = await createEngine({ libraryDir: lib, readOnly });
    const states: NoteStates = [];
    try {
      const who = readOnly ? 'reader' : 'writer';
      const info = value(await engine.info());
      const manuals = value(await engine.listManuals());
      expect(new Set(manuals.map((m) => m.file)).size, `${who}: a manual listed twice`).toBe(manuals.length);
      // The fixture manuals are in every state of every operation here.
      const fixture = value(await engine.search({ query: 'hydraulic oil', k: 3, filters: { packs: ['local'] } })).hits;
      expect(fixture.length, `${who}: the fixture manuals do not answer`).toBeGreaterThan(0);
      if (!readOnly) expect(info.chunks, 'writer: rows left that no committed file owns').toBe(manuals.reduce((s, m) => s + m.chunks, 0));
      for (let i = 0; i < NOTES; i++) {
        const file = noteFile(i);
        // One search for the markers of every version probed (at most 2 passages each, k is ample).
        const query = rounds.map((r) => marker(r, i)).join(' ');
        const hits = value(await engine.search({ query, k: 20, filters: { pathPrefix: file } })).hits;
        const counts = await Promise.all(
          rounds.map(async (r) => {
            const mine = hits.filter((h) => h.kind !== 'code' && h.text.includes(marker(r, i)));
            const codes = value(await engine.lookupCode({ text: code(r, i) })).matches.filter((m) => m.file === file);
            const fromElsewhere = [...mine, ...codes].filter((h) => (h.pack ?? null) !== source).length;
            return { round: r, passages: mine.length, codes: codes.length, fromElsewhere };
          }),
        );
        const ctx = `${who} ${file}: ${JSON.stringify(counts)}`;
        const present = counts.filter((c) => c.passages > 0 || c.codes > 0);
        // One version at most; whole (the marker is in two chunks: the paragraph and the table row; one code).
        expect(present.length, `${ctx}: two versions at once`).toBeLessThanOrEqual(1);
        for (const c of present) {
          expect({ passages: c.passages, codes: c.codes, fromElsewhere: c.fromElsewhere }, ctx).toEqual({ passages: 2, codes: 1, fromElsewhere: 0 });
        }
        const state = present[0]?.round ?? null;
        if (source === null) expect(manuals.some((m) => m.file === file), `${ctx}: listed`).toBe(state !== null);
        states.push(state);
      }
    } finally {
      await engine.close();
    }
    if (first) expect(states, 'the writer’s clean-up changed what the library answers').toEqual(first);
    first = states;
  }
  // After the writer's open: no pack leftovers, every version folder registered.
  const staging = path.join(lib, 'packs', '.staging');
  expect(fs.existsSync(staging), 'pack staging left after a writable open').toBe(false);
  const reg = readJsonFile<{ packs: { id: string; versions: { version: string }[] }[] }>(path.join(lib, 'packs.json'))?.packs ?? [];
  for (const p of reg) {
    expect(fs.readdirSync(path.join(lib, 'packs', p.id)).sort(), 'unregistered pack version folders').toEqual(p.versions.map((v) => v.version).sort());
  }
  return first as NoteStates;
}

// ---- operations ---------------------------------------------------------------------------------

interface Variant {
  name: string;
  /** The BEFORE library (closed), ready to be copied for each trial. */
  snapshot: string;
  before: NoteStates;
  after: NoteStates;
  /** Rounds whose markers are probed. */
  rounds: number[];
  /** Where the notes live: null (local) or a pack id. */
  source: string | null;
  /** Child arguments for a library folder. */
  args: (lib: string) => string[];
  readyTag: string;
  /** Runs the operation again in this process (after a kill) so it completes. */
  finish: (lib: string) => Promise<void>;
  /** Filled by calibration. */
  durationMs?: number;
  afterPrint?: Fingerprint;
  beforePrint?: Fingerprint;
}

async function ingestLib(lib: string, corpus: string, opts: { force?: boolean } = {}): Promise<void> {
  const e = await createEngine({ libraryDir: lib, create: true });
  try {
    const r = value(await e.ingest({ paths: [corpus], force: opts.force }));
    expect(r.skipped).toEqual([]);
  } finally {
    await e.close();
  }
}

function allNotes(f: (i: number) => number | null): NoteStates {
  return Array.from({ length: NOTES }, (_, i) => f(i));
}

/** A library of the fixture manuals plus notes in the given states, at `dir/before`, and its corpus. */
async function localBefore(name: string, states: NoteStates): Promise<{ snapshot: string; corpus: string }> {
  const corpus = copyFixtures(`crash-${name}`);
  // Some of the fixture manuals (two revisions of one, a PDF, a CSV, .properties): the forced
  // re-index of all of them takes seconds on a busy 2-core machine already.
  for (const dir of ['conveyor', 'help', 'notes', 'servo', 'zh']) fs.rmSync(path.join(corpus, dir), { recursive: true });
  states.forEach((s, i) => writeNote(corpus, i, s));
  const snapshot = path.join(tempDir(`crash-${name}-snap`), 'library');
  await ingestLib(snapshot, corpus);
  return { snapshot, corpus };
}

async function ingestVariants(): Promise<Variant[]> {
  const before = allNotes((i) => (i < NOTES / 2 ? 0 : null));
  const after = allNotes(() => 0);
  const { snapshot, corpus } = await localBefore('new', before);
  after.forEach((s, i) => writeNote(corpus, i, s));
  return [
    {
      name: 'new files',
      snapshot,
      before,
      after,
      rounds: [0],
      source: null,
      args: (lib) => [INGEST_CHILD, lib, corpus, 'ingest'],
      readyTag: '"ready"',
      finish: (lib) => ingestLib(lib, corpus),
    },
  ];
}

async function reindexVariants(): Promise<Variant[]> {
  const r0 = allNotes((i) => roundState(0, i));
  const r1 = allNotes((i) => roundState(1, i));
  const changed = await localBefore('changed', r0);
  writeRound(changed.corpus, 1);
  const forced = await localBefore('forced', r0);
  const stale = await localBefore('stale', r0);
  // A library indexed by an older chunker: the next ingest re-chunks every file, then records the version.
  const metaFile = path.join(stale.snapshot, 'library.json');
  const meta = JSON.parse(fs.readFileSync(metaFile, 'utf8')) as { chunkerVersion: number };
  fs.writeFileSync(metaFile, JSON.stringify({ ...meta, chunkerVersion: CHUNKER_VERSION - 1 }));
  const base = { rounds: [0, 1], source: null, readyTag: '"ready"' };
  return [
    { ...base, name: 'changed files', snapshot: changed.snapshot, before: r0, after: r1, args: (lib) => [INGEST_CHILD, lib, changed.corpus, 'ingest'], finish: (lib) => ingestLib(lib, changed.corpus) },
    // Re-run with force too: a killed forced re-index leaves some files re-indexed, and the rest must still be.
    { ...base, name: 'forced re-index', snapshot: forced.snapshot, before: r0, after: r0, args: (lib) => [INGEST_CHILD, lib, forced.corpus, 'reindex'], finish: (lib) => ingestLib(lib, forced.corpus, { force: true }) },
    { ...base, name: 'stale chunker version', snapshot: stale.snapshot, before: r0, after: r0, args: (lib) => [INGEST_CHILD, lib, stale.corpus, 'ingest'], finish: (lib) => ingestLib(lib, stale.corpus) },
  ];
}

async function deleteVariants(): Promise<Variant[]> {
  const before = allNotes(() => 0);
  const after = allNotes((i) => (i < 6 ? null : 0));
  const gone = [...Array(6).keys()].map(noteFile);
  const { snapshot, corpus } = await localBefore('delete', before);
  return [
    {
      name: 'remove files',
      snapshot,
      before,
      after,
      rounds: [0],
      source: null,
      args: (lib) => [INGEST_CHILD, lib, corpus, 'remove', ...gone],
      readyTag: '"ready"',
      finish: async (lib) => {
        const e = await createEngine({ libraryDir: lib });
        try {
          const left = new Set(value(await e.listManuals()).map((m) => m.file));
          const todo = gone.filter((f) => left.has(f));
          if (todo.length > 0) value(await e.removeFiles(todo));
        } finally {
          await e.close();
        }
      },
    },
  ];
}

async function packVariants(): Promise<Variant[]> {
  const root = tempDir('crash-packs');
  const key = newKey();
  const pub = path.join(root, 'public.pem');
  fs.writeFileSync(pub, key.publicPem);
  const keyFile = path.join(root, 'private.pem');
  fs.writeFileSync(keyFile, key.privateKey.export({ type: 'pkcs8', format: 'pem' }));
  const packs: string[] = [];
  for (const round of [0, 1]) {
    const src = path.join(root, `src-${round}`);
    writeRound(src, round);
    const small = path.join(root, `v${round}-small.mdpack`);
    await buildPack({ id: PACK, version: `1.${round}`, source: src, out: small, keyFile });
    // Bulk documents (scanned drawings, say) give the install a copy-and-hash phase worth killing in.
    const out = path.join(root, `v${round}.mdpack`);
    await remake(
      small,
      out,
      (m, entries) => {
        const extra = Array.from({ length: 12 }, (_, i) => ({ path: `documents/drawings/sheet-${i}.bin`, data: Buffer.alloc(4 * 1024 * 1024, i + 1) }));
        for (const e of extra) (m.files as unknown[]).push({ path: e.path, size: e.data.length, sha256: sha256(e.data) });
        return [...entries, ...extra];
      },
      key,
    );
    packs.push(out);
  }
  const [v0, v1] = packs as [string, string];
  // The site: its own library (the fixture manuals) trusting the publisher's key.
  const importSnap = path.join(root, 'import-before');
  await ingestLib(importSnap, copyFixtures('crash-packs-local'));
  await trustKey(pub, importSnap);
  const updateSnap = path.join(root, 'update-before');
  fs.cpSync(importSnap, updateSnap, { recursive: true });
  const e = await createEngine({ libraryDir: updateSnap });
  value(await e.importPack({ file: v0 }));
  await e.close();

  const install = (file: string, mode: 'import' | 'update', version: string) => async (lib: string) => {
    const eng = await createEngine({ libraryDir: lib });
    try {
      const active = value(await eng.listPacks()).find((p) => p.id === PACK)?.active;
      if (active !== version) value(mode === 'import' ? await eng.importPack({ file }) : await eng.updatePack({ file }));
    } finally {
      await eng.close();
    }
  };
  const base = { rounds: [0, 1], source: PACK, readyTag: '"started"' };
  return [
    { ...base, name: 'pack import', snapshot: importSnap, before: allNotes(() => null), after: allNotes((i) => roundState(0, i)), args: (lib) => [PACKS_CHILD, lib, v0, 'import'], finish: install(v0, 'import', '1.0') },
    { ...base, name: 'pack update', snapshot: updateSnap, before: allNotes((i) => roundState(0, i)), after: allNotes((i) => roundState(1, i)), args: (lib) => [PACKS_CHILD, lib, v1, 'update'], finish: install(v1, 'update', '1.1') },
  ];
}

// ---- the harness --------------------------------------------------------------------------------

interface Tally {
  op: string;
  seed: number;
  trials: number;
  /** Killed after the operation's first progress line and before its result. */
  killedMidway: number;
  /** Killed before the operation's first progress line (opening the library, reading the pack's head). */
  killedBeforeProgress: number;
  /** Finished before the kill landed. */
  finished: number;
  /** Whole library in the BEFORE / AFTER state, or some files in each (allowed per file for local writes). */
  before: number;
  after: number;
  mixed: number;
  /** Uninterrupted run of each variant, ms from ready to its result (the span kill times are drawn from). */
  durationsMs: Record<string, number>;
  seconds: number;
}

function sameFingerprint(a: Fingerprint, b: Fingerprint): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

async function runOp(op: string, variants: Variant[]): Promise<Tally> {
  const t0 = performance.now();
  const tally: Tally = { op, seed: SEED, trials: 0, killedMidway: 0, killedBeforeProgress: 0, finished: 0, before: 0, after: 0, mixed: 0, durationsMs: {}, seconds: 0 };
  const work = tempDir(`crash-${op}-trials`);
  let n = 0;
  const fresh = (v: Variant) => {
    const lib = path.join(work, `lib-${n++}`);
    fs.cpSync(v.snapshot, lib, { recursive: true });
    return lib;
  };
  // Calibrate: the uninterrupted operation's length, and the AFTER state as files.
  for (const v of variants) {
    const lib = fresh(v);
    v.beforePrint = fingerprint(lib);
    expect(await observe(lib, v.rounds, v.source, { reader: false }), `${v.name}: BEFORE state`).toEqual(v.before);
    if (CHILD_CALIBRATION) {
      const run = await runChild(v.args(lib), v.readyTag, null);
      v.durationMs = Math.round(run.doneMs - run.readyMs);
    } else {
      const c0 = performance.now();
      await v.finish(lib);
      v.durationMs = Math.round(performance.now() - c0);
    }
    tally.durationsMs[v.name] = v.durationMs;
    v.afterPrint = fingerprint(lib);
    expect(await observe(lib, v.rounds, v.source, { reader: false }), `${v.name}: AFTER state`).toEqual(v.after);
    expect(sameFingerprint(v.beforePrint, v.afterPrint), `${v.name}: the operation changed nothing`).toBe(false);
    fs.rmSync(lib, { recursive: true, force: true });
  }
  for (let t = 0; t < TRIALS; t++) {
    const v = variants[t % variants.length] as Variant;
    const lib = fresh(v);
    const delay = t % 5 === 1 ? Math.floor(rand() * 5) : Math.floor(rand() * (v.durationMs ?? 1000));
    const ctx = `${op} trial ${t} (${v.name}, kill ${delay} ms after ready, seed ${SEED})`;
    const run = await runChild(v.args(lib), v.readyTag, delay);
    tally.trials++;
    if (!run.killed) tally.finished++;
    else if (run.progress === 0) tally.killedBeforeProgress++;
    else tally.killedMidway++;

    if (process.env.MANUALDESK_CRASH_VERBOSE) console.log(JSON.stringify({ op, variant: v.name, delay, ...run, print: fingerprint(lib) }));
    // Per file: its record is the BEFORE or the AFTER one, and the library answers with that version.
    const print = fingerprint(lib);
    const beforeP = v.beforePrint as Fingerprint;
    const afterP = v.afterPrint as Fingerprint;
    expect([beforeP.chunkerVersion, afterP.chunkerVersion], ctx).toContain(print.chunkerVersion);
    expect([JSON.stringify(beforeP.packs), JSON.stringify(afterP.packs)], `${ctx}: packs`).toContain(JSON.stringify(print.packs));
    const names = new Set([...Object.keys(beforeP.files), ...Object.keys(afterP.files), ...Object.keys(print.files)]);
    const atAfter = new Set<string>();
    for (const f of names) {
      const g = print.files[f] ?? null;
      const b = beforeP.files[f] ?? null;
      const a = afterP.files[f] ?? null;
      expect([b, a], `${ctx}: ${f} generation`).toContain(g);
      if (g !== b) atAfter.add(f);
    }
    const states = await observe(lib, v.rounds, v.source, { reader: true });
    for (let i = 0; i < NOTES; i++) {
      let want: number | null;
      if (v.source === null) want = atAfter.has(noteFile(i)) ? (v.after[i] ?? null) : (v.before[i] ?? null);
      else want = print.packs[PACK] === afterP.packs[PACK] ? (v.after[i] ?? null) : (v.before[i] ?? null);
      expect(states[i], `${ctx}: ${noteFile(i)} answers with another version than its record`).toBe(want);
    }
    if (sameFingerprint(print, beforeP)) tally.before++;
    else if (sameFingerprint(print, afterP)) tally.after++;
    else tally.mixed++;
    if (v.source !== null) expect(sameFingerprint(print, beforeP) || sameFingerprint(print, afterP), `${ctx}: a pack half installed`).toBe(true);

    // The same operation, run again, completes.
    await v.finish(lib);
    expect(await observe(lib, v.rounds, v.source, { reader: false }), `${ctx}: after finishing`).toEqual(v.after);
    const done = fingerprint(lib);
    expect(done.chunkerVersion, ctx).toBe(afterP.chunkerVersion);
    expect(done.packs, ctx).toEqual(afterP.packs);
    expect(Object.keys(done.files).sort(), ctx).toEqual(Object.keys(afterP.files).sort());
    fs.rmSync(lib, { recursive: true, force: true });
  }
  tally.seconds = Math.round((performance.now() - t0) / 100) / 10;
  console.log(JSON.stringify(tally));
  return tally;
}

describe(`SIGKILL at a random moment (${TRIALS} trials per operation, seed ${SEED})`, () => {
  const timeout = 60_000 + TRIALS * 15_000;
  const ops: [string, () => Promise<Variant[]>][] = [
    ['ingest', ingestVariants],
    ['reindex', reindexVariants],
    ['delete', deleteVariants],
    ['pack', packVariants],
  ];
  for (const [op, make] of ops) {
    it(`${op}: the library opens, answers, and holds each file before or after`, async () => {
      const tally = await runOp(op, await make());
      expect(tally.trials).toBe(TRIALS);
      // Most kills land while the operation runs (kill times span its measured length).
      if (TRIALS >= 10) expect(tally.killedMidway).toBeGreaterThan(0);
    }, timeout);
  }
});
