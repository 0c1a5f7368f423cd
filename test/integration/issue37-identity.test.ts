/**
 * Issue 37 item 1: a file's identity includes where it came from. Two folders that each hold a
 * README.md are two manuals (neither replaces the other); re-adding a folder updates it in place; a
 * moved folder is recognised by its files' paths and content (no duplicate, nothing parsed again); a
 * library written before keys knew their folder opens and keeps its keys; `remove` never guesses
 * between two manuals of one name.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createEngine, type Engine } from '../../native/engine.js';
import { buildPack } from '../../native/packs/build.js';
import { EmbeddingCache } from '../../native/embed/cache.js';
import { ingest } from '../../native/pipelines/ingest.js';
import { LibraryStore } from '../../native/store/library-store.js';
import { fakeEmbedder } from '../unit/store/fixtures.js';
import { runCliCaptured } from '../unit/cli/run-cli.js';
import { cleanupTemp, rewrite, tempDir, value } from './helpers.js';

afterAll(cleanupTemp);

/** Two vendors' folders, each with its own README.md (and vendor A one more manual). */
function vendors(): { a: string; b: string } {
  const base = tempDir('vendors');
  const a = path.join(base, 'vendorA');
  const b = path.join(base, 'vendorB');
  fs.mkdirSync(path.join(a, 'guides'), { recursive: true });
  fs.mkdirSync(b, { recursive: true });
  fs.writeFileSync(path.join(a, 'README.md'), '# Acme chiller\n\nFlush the glycol loop of the chiller every spring.\n');
  fs.writeFileSync(path.join(a, 'guides', 'pump.md'), '# Acme pump\n\nPrime the impeller housing before the first start.\n');
  fs.writeFileSync(path.join(b, 'README.md'), '# Borealis kiln\n\nCalibrate the thermocouple of the kiln every month.\n');
  return { a, b };
}

async function open(lib: string, create = false): Promise<Engine> {
  return createEngine({ libraryDir: lib, create });
}

async function hitFiles(engine: Engine, query: string): Promise<string[]> {
  return value(await engine.search({ query, k: 5 })).hits.map((h) => h.file);
}

describe('two folders with a same-named file', () => {
  it('keeps both manuals: both listed with their folder, both searchable, nothing removed', async () => {
    const { a, b } = vendors();
    const engine = await open(tempDir('lib'), true);
    try {
      const first = value(await engine.ingest({ paths: [a] }));
      expect(first).toMatchObject({ files: 2, removed: 0, skipped: [] });
      const second = value(await engine.ingest({ paths: [b] }));
      expect(second).toMatchObject({ files: 1, unchanged: 0, removed: 0, skipped: [] });

      const listed = value(await engine.listManuals());
      expect(listed).toHaveLength(3);
      const readmes = listed.filter((m) => path.basename(m.source ?? '') === 'README.md');
      expect(readmes.map((m) => m.source).sort()).toEqual([path.join(a, 'README.md'), path.join(b, 'README.md')]);
      expect(new Set(readmes.map((m) => m.file)).size).toBe(2);
      expect(readmes.map((m) => m.folder).sort()).toEqual([a, b]);
      // The first keeps the name it had; the second is named with its folder's name.
      expect(readmes.find((m) => m.source === path.join(a, 'README.md'))?.file).toBe('README.md');
      expect(readmes.find((m) => m.source === path.join(b, 'README.md'))?.file).toBe('vendorB/README.md');
      // Both are current manuals of their own (not revisions of one another).
      expect(readmes.every((m) => m.current)).toBe(true);

      expect(await hitFiles(engine, 'glycol loop chiller')).toContain('README.md');
      expect(await hitFiles(engine, 'thermocouple kiln')).toContain('vendorB/README.md');
      const viewed = value(await engine.openSource({ file: 'vendorB/README.md' }));
      expect(viewed.changed).toBe(false);
      expect(viewed.manual).toBe('Borealis kiln');
    } finally {
      await engine.close();
    }
  });

  it('two folders added in one run are two manuals too', async () => {
    const { a, b } = vendors();
    const engine = await open(tempDir('lib'), true);
    try {
      expect(value(await engine.ingest({ paths: [a, b] }))).toMatchObject({ files: 3, removed: 0, skipped: [] });
      const files = value(await engine.listManuals()).map((m) => m.file).sort();
      expect(files).toEqual(['README.md', 'guides/pump.md', 'vendorB/README.md']);
    } finally {
      await engine.close();
    }
  });
});

describe('re-adding and moving a folder', () => {
  it('re-adding the same folder updates in place: unchanged files skipped, a changed one keeps its name, a deleted one removed', async () => {
    const { a, b } = vendors();
    const engine = await open(tempDir('lib'), true);
    try {
      value(await engine.ingest({ paths: [a] }));
      value(await engine.ingest({ paths: [b] }));
      expect(value(await engine.ingest({ paths: [b] }))).toMatchObject({ files: 0, unchanged: 1, removed: 0 });
      expect(value(await engine.ingest({ paths: [a] }))).toMatchObject({ files: 0, unchanged: 2, removed: 0 });

      rewrite(path.join(b, 'README.md'), '# Borealis kiln\n\nReplace the door seal of the kiln every year.\n');
      expect(value(await engine.ingest({ paths: [b] }))).toMatchObject({ files: 1, unchanged: 0, removed: 0 });
      expect(await hitFiles(engine, 'door seal kiln')).toContain('vendorB/README.md');
      expect(await hitFiles(engine, 'glycol loop chiller')).toContain('README.md');

      fs.rmSync(path.join(a, 'guides', 'pump.md'));
      expect(value(await engine.ingest({ paths: [a] }))).toMatchObject({ files: 0, unchanged: 1, removed: 1 });
      expect(value(await engine.listManuals()).map((m) => m.file).sort()).toEqual(['README.md', 'vendorB/README.md']);

      // Re-indexing one manual reads its own file: its name stays.
      expect(value(await engine.ingest({ paths: [path.join(b, 'README.md')], force: true }))).toMatchObject({ files: 1, removed: 0 });
      expect(value(await engine.listManuals()).map((m) => m.file).sort()).toEqual(['README.md', 'vendorB/README.md']);
    } finally {
      await engine.close();
    }
  });

  it('a moved folder is recognised by its files: records follow it, no duplicate, nothing parsed again', async () => {
    const { a, b } = vendors();
    const engine = await open(tempDir('lib'), true);
    try {
      value(await engine.ingest({ paths: [a] }));
      value(await engine.ingest({ paths: [b] }));
      const moved = path.join(tempDir('moved'), 'kiln-docs');
      fs.renameSync(b, moved);

      const report = value(await engine.ingest({ paths: [moved] }));
      expect(report).toMatchObject({ files: 0, chunks: 0, unchanged: 1, removed: 0, skipped: [] });
      const listed = value(await engine.listManuals());
      expect(listed).toHaveLength(3);
      const kiln = listed.find((m) => m.file === 'vendorB/README.md');
      expect(kiln).toMatchObject({ source: path.join(moved, 'README.md'), folder: moved });
      expect(value(await engine.openSource({ file: 'vendorB/README.md' })).changed).toBe(false);
      expect(await hitFiles(engine, 'thermocouple kiln')).toContain('vendorB/README.md');
      // Its new place is where it is now found: adding it again changes nothing.
      expect(value(await engine.ingest({ paths: [moved] }))).toMatchObject({ files: 0, unchanged: 1, removed: 0 });
    } finally {
      await engine.close();
    }
  });

  it('a copy whose original is still in place is a manual of its own, and a same-named file from a disconnected folder is not taken over', async () => {
    const { a } = vendors();
    const engine = await open(tempDir('lib'), true);
    try {
      value(await engine.ingest({ paths: [a] }));
      const copy = path.join(tempDir('copy'), 'vendorA');
      fs.cpSync(a, copy, { recursive: true });
      expect(value(await engine.ingest({ paths: [copy] }))).toMatchObject({ files: 2, removed: 0 });
      expect(value(await engine.listManuals())).toHaveLength(4);

      // The original folder is gone (a drive unplugged); another folder's README.md with other text
      // is a new manual, never the old one's record.
      fs.rmSync(a, { recursive: true });
      const other = path.join(tempDir('other'), 'vendorA');
      fs.mkdirSync(other);
      fs.writeFileSync(path.join(other, 'README.md'), '# Cobalt mixer\n\nGrease the mixer gearbox weekly.\n');
      expect(value(await engine.ingest({ paths: [other] }))).toMatchObject({ files: 1, removed: 0 });
      const sources = value(await engine.listManuals()).map((m) => m.source);
      expect(sources).toContain(path.join(a, 'README.md'));
      expect(sources).toContain(path.join(other, 'README.md'));
      expect(sources).toHaveLength(5);
    } finally {
      await engine.close();
    }
  });
});

describe('with an embedding model', () => {
  it('a moved folder keeps its vectors: nothing embedded again, its passages found by meaning at once', async () => {
    const { a, b } = vendors();
    const base = fakeEmbedder();
    let embedded = 0;
    const embedder = { ...base, embedDocuments: async (texts: string[]) => ((embedded += texts.length), base.embedDocuments(texts)) };
    const store = await LibraryStore.open(tempDir('lib'), { embedder: { id: base.id, dims: base.dims }, create: true });
    const cache = EmbeddingCache.open(store.dir, base.id, base.dims);
    const deps = { store, vectors: { embedder, cache }, libraryVersions: { chunkerVersion: 99, analyzerVersion: 99 }, ocr: false as const };
    try {
      await ingest(deps, { paths: [a] });
      await ingest(deps, { paths: [b] });
      expect(embedded).toBeGreaterThan(0);
      expect(store.pendingVectorFiles()).toEqual([]);
      const moved = path.join(tempDir('moved'), 'kiln');
      fs.renameSync(b, moved);
      embedded = 0;
      const report = await ingest(deps, { paths: [moved] });
      expect(report).toMatchObject({ files: 0, unchanged: 1, removed: 0 });
      expect(report.embedded).toBeUndefined();
      expect(embedded).toBe(0);
      expect(store.getFiles()).toHaveLength(3);
      expect(store.getFile('vendorB/README.md')).toMatchObject({ source: path.join(moved, 'README.md'), root: moved });
      const hits = await store.vectorSearch(await base.embedQuery('calibrate the kiln thermocouple'), 3);
      expect(hits[0]?.chunk.file).toBe('vendorB/README.md');

      // Copied elsewhere with a metadata sidecar stamped anew (read again, same name), then the
      // original deleted: the passages are the same, so their vectors come from the cache.
      fs.writeFileSync(path.join(a, 'README.md.meta.yaml'), 'title: Acme chiller\n');
      await ingest(deps, { paths: [a] });
      embedded = 0;
      const copy = path.join(tempDir('copied'), 'acme');
      fs.cpSync(a, copy, { recursive: true });
      fs.rmSync(a, { recursive: true });
      const again = await ingest(deps, { paths: [copy] });
      expect(again).toMatchObject({ removed: 0, skipped: [] });
      expect(embedded).toBe(0);
      expect(store.getFiles().map((f) => f.file).sort()).toEqual(['README.md', 'guides/pump.md', 'vendorB/README.md']);
      expect(store.getFile('README.md')?.source).toBe(path.join(copy, 'README.md'));
      expect(store.pendingVectorFiles()).toEqual([]);
    } finally {
      await store.close();
    }
  });
});

describe('a library written before keys knew their folder', () => {
  /** Strips what this version adds to the records, as an older ManualDesk wrote them (and, `placeless`, their sources too). */
  function makeOld(lib: string, placeless = false): void {
    const file = path.join(lib, 'files.json');
    const data = JSON.parse(fs.readFileSync(file, 'utf8')) as { files: Record<string, unknown>[] };
    for (const rec of data.files) {
      delete rec.root;
      if (placeless) rec.source = '';
    }
    fs.writeFileSync(file, JSON.stringify(data));
  }

  it('opens with its keys, shows each folder, and re-adding its folder adds no duplicate', async () => {
    const { a, b } = vendors();
    const lib = tempDir('lib');
    let engine = await open(lib, true);
    value(await engine.ingest({ paths: [a] }));
    await engine.close();
    makeOld(lib);

    engine = await open(lib);
    try {
      const listed = value(await engine.listManuals());
      expect(listed.map((m) => m.file).sort()).toEqual(['README.md', 'guides/pump.md']);
      expect(listed.map((m) => m.folder)).toEqual([a, a]);
      expect(value(await engine.ingest({ paths: [a] }))).toMatchObject({ files: 0, unchanged: 2, removed: 0 });
      expect(value(await engine.ingest({ paths: [b] }))).toMatchObject({ files: 1, removed: 0 });
      expect(value(await engine.listManuals()).map((m) => m.file).sort()).toEqual(['README.md', 'guides/pump.md', 'vendorB/README.md']);
      expect(await hitFiles(engine, 'prime impeller housing')).toContain('guides/pump.md');
    } finally {
      await engine.close();
    }
  });

  it('records that lost their sources (rebuilt from the tables) are found again by content, prefixed keys too', async () => {
    const { a, b } = vendors();
    const lib = tempDir('lib');
    let engine = await open(lib, true);
    value(await engine.ingest({ paths: [a] }));
    value(await engine.ingest({ paths: [b] }));
    await engine.close();
    makeOld(lib, true);

    engine = await open(lib);
    try {
      expect(value(await engine.ingest({ paths: [b] }))).toMatchObject({ files: 0, unchanged: 1, removed: 0 });
      expect(value(await engine.ingest({ paths: [a] }))).toMatchObject({ files: 0, unchanged: 2, removed: 0 });
      const listed = value(await engine.listManuals());
      expect(listed.map((m) => [m.file, m.source]).sort()).toEqual([
        ['README.md', path.join(a, 'README.md')],
        ['guides/pump.md', path.join(a, 'guides', 'pump.md')],
        ['vendorB/README.md', path.join(b, 'README.md')],
      ]);
    } finally {
      await engine.close();
    }
  });

  it('a moved folder of an old library is recognised too', async () => {
    const { a } = vendors();
    const lib = tempDir('lib');
    let engine = await open(lib, true);
    value(await engine.ingest({ paths: [a] }));
    await engine.close();
    makeOld(lib);
    const moved = path.join(tempDir('moved'), 'acme');
    fs.renameSync(a, moved);

    engine = await open(lib);
    try {
      expect(value(await engine.ingest({ paths: [moved] }))).toMatchObject({ files: 0, unchanged: 2, removed: 0 });
      const listed = value(await engine.listManuals());
      expect(listed.map((m) => [m.file, m.source]).sort()).toEqual([
        ['README.md', path.join(moved, 'README.md')],
        ['guides/pump.md', path.join(moved, 'guides', 'pump.md')],
      ]);
    } finally {
      await engine.close();
    }
  });
});

describe('the command line', () => {
  it('list shows each folder; remove refuses a name two manuals answer to and takes the key or the full path', async () => {
    const { a, b } = vendors();
    const lib = tempDir('lib');
    expect((await runCliCaptured(['ingest', a, '--library', lib])).code).toBe(0);
    const second = await runCliCaptured(['ingest', b, '--library', lib, '--json']);
    expect(JSON.parse(second.out)).toMatchObject({ files: 1, removed: 0 });

    const list = await runCliCaptured(['list', '--library', lib]);
    expect(list.out).toContain(`README.md  "Acme chiller"  1 passages  from ${a}`);
    expect(list.out).toContain(`vendorB/README.md  "Borealis kiln"  1 passages  from ${b}`);

    const ambiguous = await runCliCaptured(['remove', 'README.md', '--library', lib]);
    expect(ambiguous.code).toBe(1);
    expect(ambiguous.err).toContain('"README.md" names 2 manuals');
    expect(ambiguous.err).toContain(path.join(a, 'README.md'));
    expect(ambiguous.err).toContain(path.join(b, 'README.md'));
    expect(ambiguous.err).toContain('(INVALID_INPUT)');
    expect(JSON.parse((await runCliCaptured(['list', '--library', lib, '--json'])).out)).toHaveLength(3);

    expect(await runCliCaptured(['remove', 'vendorB/README.md', '--library', lib])).toMatchObject({ code: 0, out: 'Removed 1 file(s).\n' });
    expect(await runCliCaptured(['remove', path.join(a, 'README.md'), '--library', lib])).toMatchObject({ code: 0, out: 'Removed 1 file(s).\n' });
    const left = JSON.parse((await runCliCaptured(['list', '--library', lib, '--json'])).out) as { file: string }[];
    expect(left.map((m) => m.file)).toEqual(['guides/pump.md']);
  });
});

describe('packs', () => {
  it('a pack names its documents by their place in the pack, never by the publisher\'s folders', async () => {
    const { a } = vendors();
    const publisher = path.dirname(a);
    const out = path.join(tempDir('pack'), 'vendors.mdpack');
    await buildPack({ id: 'vendors', embedder: { kind: 'none' }, source: publisher, out, version: '1' });
    const lib = tempDir('site');
    const engine = await createEngine({ libraryDir: lib, embedder: { kind: 'none' }, create: true });
    try {
      value(await engine.importPack({ file: out, allowUnsigned: true }));
      const filesJson = fs.readFileSync(path.join(lib, 'packs', 'vendors', '1', 'library', 'files.json'), 'utf8');
      expect(filesJson).not.toContain(publisher);
      const records = (JSON.parse(filesJson) as { files: { file: string; source: string; root?: string }[] }).files;
      expect(records.map((r) => [r.file, r.source]).sort()).toEqual([
        ['vendorA/README.md', 'documents/vendorA/README.md'],
        ['vendorA/guides/pump.md', 'documents/vendorA/guides/pump.md'],
        ['vendorB/README.md', 'documents/vendorB/README.md'],
      ]);
      expect(records.every((r) => r.root === undefined)).toBe(true);
      const doc = value(await engine.openSource({ file: 'vendorB/README.md', pack: 'vendors' }));
      expect(doc).toMatchObject({ file: 'vendorB/README.md', manual: 'Borealis kiln', changed: false });
    } finally {
      await engine.close();
    }
  });
});

describe('a file list rebuilt from the tables (files.json lost)', () => {
  it('gives a lost record back to its own folder, never to another vendor\'s file of the same name', async () => {
    const { a, b } = vendors();
    const lib = tempDir('lib-rebuilt');
    const first = await open(lib, true);
    value(await first.ingest({ paths: [a] }));
    await first.close();
    fs.rmSync(path.join(lib, 'files.json'));

    const engine = await open(lib);
    try {
      // Vendor B's README has the lost record's key: another manual, so a key of its own.
      expect(value(await engine.ingest({ paths: [b] }))).toMatchObject({ files: 1, removed: 0 });
      expect(await hitFiles(engine, 'glycol loop chiller')).toContain('README.md');
      const kiln = value(await engine.listManuals()).find((m) => m.source === path.join(b, 'README.md'));
      expect(kiln?.file).not.toBe('README.md');
      // Vendor A's folder added again takes its records back in place: no duplicate.
      expect(value(await engine.ingest({ paths: [a] }))).toMatchObject({ removed: 0 });
      const listed = value(await engine.listManuals());
      expect(listed).toHaveLength(3);
      expect(listed.find((m) => m.file === 'README.md')?.source).toBe(path.join(a, 'README.md'));
    } finally {
      await engine.close();
    }
  });
});
