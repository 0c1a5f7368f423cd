/**
 * Issue 37 item 2: files.json is never the only proof that rows exist. A missing, emptied, damaged or
 * older files.json is rebuilt from the tables (commit.json says which versions were committed), never
 * taken for "every row is a killed run's leftover"; a reader searches the rebuilt list and says why;
 * a real crash's leftovers are still removed. Item 12 (part): a library.json that does not describe a
 * library is reported as damaged, not as written by a newer ManualDesk.
 */
import fs from 'node:fs';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { runCli } from '../../native/cli/main.js';
import { createEngine, type Engine } from '../../native/engine.js';
import { failpoints } from '../../native/store/failpoints.js';
import { cleanupTemp, failure, FIXTURE_MANUALS, rewrite, tempDir, value } from '../integration/helpers.js';

afterAll(cleanupTemp);
afterEach(() => {
  failpoints.afterAdd = false;
  failpoints.afterCommit = false;
});

const ALPHA = (word: string) => `# Alpha pump\n\n## Priming\n\nOpen the ${word} valve before priming the alpha pump.\n\n## Seals\n\nReplace the shaft seal every 2000 hours.\n`;
const BRAVO = '# Bravo compressor\n\n## Belts\n\nTension the bravo drive belt with the quartzite gauge.\n';

interface Lib {
  lib: string;
  docs: string;
}

/** A library of two manuals and a fault-code table, ingested by a writer that is then closed. */
async function buildLibrary(prefix: string, files: Record<string, string> = { 'alpha.md': ALPHA('vermilion'), 'bravo.md': BRAVO }): Promise<Lib> {
  const root = tempDir(prefix);
  const docs = path.join(root, 'docs');
  fs.mkdirSync(docs, { recursive: true });
  for (const [name, text] of Object.entries(files)) fs.writeFileSync(path.join(docs, name), text);
  fs.copyFileSync(path.join(FIXTURE_MANUALS, 'codes', 'inverter-fault-codes.properties'), path.join(docs, 'inverter-fault-codes.properties'));
  const lib = path.join(root, 'lib');
  await withEngine(lib, false, async (e) => value(await e.ingest({ paths: [docs] })), true);
  return { lib, docs };
}

async function withEngine<T>(lib: string, readOnly: boolean, fn: (e: Engine) => Promise<T>, create = false): Promise<T> {
  const engine = await createEngine({ libraryDir: lib, readOnly, create });
  try {
    return await fn(engine);
  } finally {
    await engine.close();
  }
}

async function snapshot(e: Engine) {
  const info = value(await e.info());
  const files = value(await e.listManuals())
    .map((m) => m.file)
    .sort();
  return { files, chunks: info.chunks, codes: info.codes };
}

async function hits(e: Engine, query: string): Promise<number> {
  return value(await e.search({ query, k: 5 })).hits.filter((h) => h.kind !== 'code').length;
}

const FILES_JSON = (lib: string) => path.join(lib, 'files.json');

describe('a lost or emptied files.json', () => {
  const damage: [string, (lib: string) => void][] = [
    ['deleted', (lib) => fs.rmSync(FILES_JSON(lib))],
    ['emptied to {"files":[]}', (lib) => fs.writeFileSync(FILES_JSON(lib), '{"files":[]}')],
    ['truncated to 0 bytes', (lib) => fs.writeFileSync(FILES_JSON(lib), '')],
    ['cut off mid-record (not JSON)', (lib) => fs.writeFileSync(FILES_JSON(lib), '{"formatVersion":1,"files":[{"file":"x.md",')],
    ['deleted with commit.json (a library from before it)', (lib) => (fs.rmSync(FILES_JSON(lib)), fs.rmSync(path.join(lib, 'commit.json')))],
  ];

  it.each(damage)('%s: the writer rebuilds it from the tables and deletes nothing', async (name, harm) => {
    const { lib, docs } = await buildLibrary('fj-lost');
    const before = await withEngine(lib, true, snapshot);
    expect(before.files).toHaveLength(3);
    expect(before.codes).toBeGreaterThan(0);
    harm(lib);

    // Opened for writing, as the app does: its clean-up must not take every row for garbage.
    await withEngine(lib, false, async (e) => {
      expect(await snapshot(e)).toEqual(before);
      expect(value(await e.info()).filesRebuilt).toMatch(/files\.json.*rebuilt from the stored passages.*nothing was deleted/s);
      expect(await hits(e, 'vermilion valve')).toBeGreaterThan(0);
    });
    if (name.startsWith('cut off')) expect(fs.readFileSync(`${FILES_JSON(lib)}.damaged`, 'utf8')).toMatch(/^\{"formatVersion"/);
    // Written back: the next open finds a whole file list, and an ingest of the same folder updates in place.
    await withEngine(lib, false, async (e) => {
      expect(value(await e.info()).filesRebuilt ?? null).toBeNull();
      expect(await snapshot(e)).toEqual(before);
      const report = value(await e.ingest({ paths: [docs] }));
      expect(report.removed).toBe(0);
      expect(await snapshot(e)).toEqual(before);
      expect(value(await e.listManuals()).every((m) => m.source !== undefined && m.source !== '')).toBe(true);
    });
  });
});

describe('an older files.json (restored from a backup)', () => {
  it('hides no file: a file added and a file changed since are kept at their latest version', async () => {
    const { lib, docs } = await buildLibrary('fj-old', { 'alpha.md': ALPHA('vermilion') });
    const backup = fs.readFileSync(FILES_JSON(lib));
    rewrite(path.join(docs, 'alpha.md'), ALPHA('turquoise'));
    fs.writeFileSync(path.join(docs, 'bravo.md'), BRAVO);
    await withEngine(lib, false, async (e) => value(await e.ingest({ paths: [docs] })));
    const before = await withEngine(lib, true, snapshot);
    fs.writeFileSync(FILES_JSON(lib), backup);

    await withEngine(lib, false, async (e) => {
      expect(await snapshot(e)).toEqual(before);
      expect(value(await e.info()).filesRebuilt).toMatch(/older/);
      expect(await hits(e, 'quartzite belt')).toBeGreaterThan(0);
      expect(await hits(e, 'turquoise valve')).toBeGreaterThan(0);
      expect(await hits(e, 'vermilion')).toBe(0);
    });
  });
});

describe("a killed writer's leftovers", () => {
  it('are still removed by the next writer, with files.json intact', async () => {
    const { lib, docs } = await buildLibrary('fj-crash');
    const before = await withEngine(lib, true, snapshot);
    rewrite(path.join(docs, 'alpha.md'), ALPHA('turquoise'));
    fs.writeFileSync(path.join(docs, 'charlie.md'), '# Charlie\n\nThe obsidian filter is changed monthly.\n');
    failpoints.afterAdd = true; // rows added, files.json never committed: what a SIGKILL leaves
    await withEngine(lib, false, async (e) => e.ingest({ paths: [docs] }));
    failpoints.afterAdd = false;
    // The uncommitted rows are there (a reader counts every row; it deletes nothing).
    expect((await withEngine(lib, true, snapshot)).chunks).toBeGreaterThan(before.chunks);

    await withEngine(lib, false, async (e) => {
      expect(await snapshot(e)).toEqual(before);
      expect(value(await e.info()).filesRebuilt ?? null).toBeNull();
      expect(await hits(e, 'turquoise')).toBe(0);
      expect(await hits(e, 'obsidian')).toBe(0);
      expect(await hits(e, 'vermilion valve')).toBeGreaterThan(0);
    });
  });

  it('are told apart from committed rows when files.json is lost as well', async () => {
    const { lib, docs } = await buildLibrary('fj-crash-lost');
    const before = await withEngine(lib, true, snapshot);
    rewrite(path.join(docs, 'alpha.md'), ALPHA('turquoise'));
    fs.writeFileSync(path.join(docs, 'charlie.md'), '# Charlie\n\nThe obsidian filter is changed monthly.\n');
    failpoints.afterAdd = true;
    await withEngine(lib, false, async (e) => e.ingest({ paths: [docs] }));
    failpoints.afterAdd = false;
    // The uncommitted rows are there (a reader counts every row; it deletes nothing).
    expect((await withEngine(lib, true, snapshot)).chunks).toBeGreaterThan(before.chunks);
    fs.rmSync(FILES_JSON(lib));

    await withEngine(lib, false, async (e) => {
      expect(await snapshot(e)).toEqual(before);
      expect(await hits(e, 'vermilion valve')).toBeGreaterThan(0);
      expect(await hits(e, 'turquoise')).toBe(0);
      expect(await hits(e, 'obsidian')).toBe(0);
    });
  });
});

describe('a reader of a library whose files.json is lost', () => {
  it('searches the rebuilt list, says why, and changes nothing', async () => {
    const { lib } = await buildLibrary('fj-reader');
    const before = await withEngine(lib, true, snapshot);
    fs.rmSync(FILES_JSON(lib));
    await withEngine(lib, true, async (e) => {
      expect(await snapshot(e)).toEqual(before);
      expect(await hits(e, 'vermilion valve')).toBeGreaterThan(0);
      expect(value(await e.info()).filesRebuilt).toMatch(/files\.json.*is missing.*manualdesk repair --library/s);
    });
    expect(fs.existsSync(FILES_JSON(lib))).toBe(false);

    // The CLI says so on stderr before its results, and `repair` writes the list back.
    const search = await cli(['search', 'vermilion valve', '--library', lib]);
    expect(search.code).toBe(0);
    expect(search.stderr).toMatch(/files\.json.*is missing/s);
    expect(search.stdout).toMatch(/alpha\.md/);
    const repair = await cli(['repair', '--library', lib]);
    expect(repair.code).toBe(0);
    expect(repair.stdout).toMatch(/rebuilt/);
    expect(fs.existsSync(FILES_JSON(lib))).toBe(true);
    expect((await cli(['repair', '--library', lib])).stdout).toMatch(/nothing to repair/);
  });
});

describe('a library.json that does not describe a library (item 12)', () => {
  const nonsense = ['null', '[1,2,3]', '"hello"', '42', '{}', '{"formatVersion":"abc"}', '{"formatVersion":1e15,"chunkerVersion":1}', '{"formatVersion":1,"chunkerVersion":-3}', '{"formatVersion":1,"embedder":{"id":5}}'];

  it.each(nonsense)('%s is reported as damaged, with what to do, not as newer', async (text) => {
    const { lib } = await buildLibrary('fj-meta', { 'alpha.md': ALPHA('vermilion') });
    fs.writeFileSync(path.join(lib, 'library.json'), text);
    for (const readOnly of [true, false]) {
      const err = await withEngine(lib, readOnly, async (e) => failure(await e.info()));
      expect(err.code).toBe('LIBRARY_FORMAT_MISMATCH');
      expect(err.message).toMatch(/damaged library\.json/);
      expect(err.message).toMatch(/backup|new library folder/);
      expect(err.message).not.toMatch(/newer/);
    }
    expect(fs.readFileSync(path.join(lib, 'library.json'), 'utf8')).toBe(text);
  });

  it('a real newer format is still reported as newer', async () => {
    const { lib } = await buildLibrary('fj-newer', { 'alpha.md': ALPHA('vermilion') });
    const meta = JSON.parse(fs.readFileSync(path.join(lib, 'library.json'), 'utf8')) as Record<string, unknown>;
    fs.writeFileSync(path.join(lib, 'library.json'), JSON.stringify({ ...meta, formatVersion: 3 }));
    const err = await withEngine(lib, true, async (e) => failure(await e.info()));
    expect(err.message).toMatch(/newer ManualDesk/);
  });
});

async function cli(argv: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const out = new PassThrough();
  const err = new PassThrough();
  let stdout = '';
  let stderr = '';
  out.on('data', (d: Buffer) => (stdout += d.toString()));
  err.on('data', (d: Buffer) => (stderr += d.toString()));
  const code = await runCli(argv, { stdout: out, stderr: err, stdin: new PassThrough() });
  return { code, stdout, stderr };
}
