/**
 * Files committed before their vectors (FileRecord.vectorsPending): searchable by keyword and code,
 * never returned by a vector search (their rows hold placeholders), never indexed by HNSW, and given
 * their vectors by attachVectors without a new generation.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { keywordSearch } from '../../../native/search/channels/keyword.js';
import { failpoints } from '../../../native/store/failpoints.js';
import { LibraryStore } from '../../../native/store/library-store.js';
import { chunk, code, fakeEmbedder, record, storePerTest, tempDir } from './fixtures.js';

const stores = storePerTest();
const emb = fakeEmbedder();

const ready = [chunk('ready.md', 0, 'Bleed the hydraulic pump before the first start.'), chunk('ready.md', 1, 'Check the pump coupling for wear.')];
const waiting = [chunk('wait.md', 0, 'Bleed the hydraulic pump slowly and check the pump seal.'), chunk('wait.md', 1, 'Replace the pump seal kit.')];

async function library(opts: { vectorIndexThreshold?: number; inMemoryLanguageRows?: number } = {}) {
  const s = await stores.open({ embedder: { id: emb.id, dims: emb.dims }, create: true, ...opts });
  await s.replaceFiles([
    { record: record('ready.md'), chunks: ready, vectors: await emb.embedDocuments(ready.map((c) => c.text)), codes: [] },
    { record: record('wait.md', { vectorsPending: true }), chunks: waiting, vectors: null, codes: [code('wait.md', 'E-77', 'Pump seal leak')] },
  ]);
  return s;
}

describe('files whose vectors are pending', () => {
  for (const held of [false, true]) {
    it(`are found by keyword and code but not by a vector search${held ? ' (one language held in memory)' : ''}, until attachVectors`, async () => {
      const s = await library({ inMemoryLanguageRows: held ? 100 : 0 });
      const filters = held ? { lang: ['en' as const] } : undefined;
      const q = await emb.embedQuery('hydraulic pump seal');
      expect((await keywordSearch(s, 'pump seal kit', 3))[0]?.chunk.file).toBe('wait.md');
      expect((await s.allCodes()).map((c) => c.code)).toEqual(['E-77']);
      expect((await s.vectorSearch(q, 10, filters)).map((h) => h.chunk.file)).toEqual(['ready.md', 'ready.md']);
      expect((await s.stats()).vectorsPending).toBe(2);

      const generation = s.getFile('wait.md')?.generation;
      await s.attachVectors([{ file: 'wait.md', vectors: await emb.embedDocuments(waiting.map((c) => c.text)) }]);
      expect(s.getFile('wait.md')?.vectorsPending).toBeUndefined();
      expect(s.getFile('wait.md')?.generation).toBe(generation);
      expect((await s.stats()).vectorsPending).toBe(0);
      expect((await s.stats()).chunks).toBe(4);
      const hits = await s.vectorSearch(q, 10, filters);
      expect(hits.map((h) => h.chunk.file).sort()).toEqual(['ready.md', 'ready.md', 'wait.md', 'wait.md']);
      expect(hits[0]?.chunk.file).toBe('wait.md');
      // The rows keep their analyzed text: keyword search and the passage as read are unchanged.
      expect((await keywordSearch(s, 'pump seal kit', 3))[0]?.chunk).toEqual(waiting[1]);
      expect((await s.fileChunks(['wait.md'])).get('wait.md')).toEqual(waiting);
    });
  }

  it('keep the vector index from being built until every file has its vectors', async () => {
    const s = await library({ vectorIndexThreshold: 1 });
    await s.compact();
    expect(s.vectorIndexBuilt).toBe(false);
    expect((await s.vectorSearch(await emb.embedQuery('pump seal'), 10)).every((h) => h.chunk.file === 'ready.md')).toBe(true);
    await s.attachVectors([{ file: 'wait.md', vectors: await emb.embedDocuments(waiting.map((c) => c.text)) }]);
    await s.compact();
    expect(s.vectorIndexBuilt).toBe(true);
    expect((await s.vectorSearch(await emb.embedQuery('pump seal kit'), 1))[0]?.chunk.file).toBe('wait.md');
  });

  it('refuses vectors for a file that is not waiting, or of the wrong count or size, and changes nothing', async () => {
    const s = await library();
    const two = await emb.embedDocuments(waiting.map((c) => c.text));
    await expect(s.attachVectors([{ file: 'ready.md', vectors: two }])).rejects.toThrow(/no passages waiting for vectors/);
    await expect(s.attachVectors([{ file: 'wait.md', vectors: two.slice(1) }])).rejects.toThrow(/2 passages but 1 vectors/);
    await expect(s.attachVectors([{ file: 'wait.md', vectors: [new Float32Array(3), new Float32Array(3)] }])).rejects.toThrow(/3 dimensions/);
    expect(s.getFile('wait.md')?.vectorsPending).toBe(true);
    expect((await s.vectorSearch(await emb.embedQuery('pump seal'), 10)).every((h) => h.chunk.file === 'ready.md')).toBe(true);
  });
});

describe('a keyword-only library that takes a model', () => {
  let cleanup = () => {};
  afterEach(() => {
    failpoints.afterAdd = false;
    cleanup();
  });

  async function keywordLibrary(): Promise<{ dir: string; s: LibraryStore }> {
    const t = tempDir();
    cleanup = t.cleanup;
    const s = await LibraryStore.open(t.dir, { embedder: null, create: true });
    await s.replaceFiles([
      { record: record('ready.md'), chunks: ready, vectors: null, codes: [] },
      { record: record('wait.md'), chunks: waiting, vectors: null, codes: [code('wait.md', 'E-77', 'Pump seal leak')] },
      { record: record('empty.md'), chunks: [], vectors: null, codes: [] },
    ]);
    await s.compact();
    return { dir: t.dir, s };
  }

  it('is refused a model unless the open may adopt one; adopting marks every passage as waiting, searchable by keyword', async () => {
    const { dir, s } = await keywordLibrary();
    await s.close();
    const identity = { id: emb.id, dims: emb.dims };
    await expect(LibraryStore.open(dir, { embedder: identity })).rejects.toThrow(/has no embedding model yet.*Search it without --embedder, or give it that model first: manualdesk ingest/);
    const a = await LibraryStore.open(dir, { embedder: identity, mayAdopt: true });
    try {
      expect(a.info.embedder).toBeNull();
      await a.adoptEmbedder(identity);
      expect(a.info.embedder).toEqual(identity);
      expect(a.pendingVectorFiles().map((f) => f.file).sort()).toEqual(['ready.md', 'wait.md']);
      expect((await a.stats()).vectorsPending).toBe(4);
      expect((await keywordSearch(a, 'pump seal kit', 3))[0]?.chunk.file).toBe('wait.md');
      expect(await a.vectorSearch(await emb.embedQuery('pump seal'), 10)).toEqual([]);
      for (const file of ['ready.md', 'wait.md']) {
        const chunks = (await a.fileChunks([file])).get(file) ?? [];
        await a.attachVectors([{ file, vectors: await emb.embedDocuments(chunks.map((c) => c.text)) }]);
      }
      expect((await a.vectorSearch(await emb.embedQuery('pump seal kit'), 1))[0]?.chunk.file).toBe('wait.md');
      // New files now come with vectors, as in any library with a model.
      const more = [chunk('more.md', 0, 'Grease the spindle bearing weekly.')];
      await a.replaceFiles([{ record: record('more.md'), chunks: more, vectors: await emb.embedDocuments(more.map((c) => c.text)), codes: [] }]);
      expect((await a.vectorSearch(await emb.embedQuery('grease spindle bearing'), 1))[0]?.chunk.file).toBe('more.md');
    } finally {
      await a.close();
    }
    // Reopened: the model is the library's now.
    const b = await LibraryStore.open(dir, { embedder: identity });
    expect(b.info.embedder).toEqual(identity);
    await b.close();
  });

  it('a crash halfway through adopting leaves a keyword-only library that the next writer tidies', async () => {
    const { dir, s } = await keywordLibrary();
    await s.close();
    const identity = { id: emb.id, dims: emb.dims };
    const a = await LibraryStore.open(dir, { embedder: identity, mayAdopt: true });
    failpoints.afterAdd = true;
    await expect(a.adoptEmbedder(identity)).rejects.toThrow(/failpoint/);
    failpoints.afterAdd = false;
    await a.close();

    const k = await LibraryStore.open(dir, { embedder: null });
    try {
      expect(k.info.embedder).toBeNull();
      expect(k.getFiles().some((f) => f.vectorsPending)).toBe(false);
      expect((await k.stats()).vectorsPending).toBe(0);
      // Keyword rows (no vector) can be added again: the placeholder column is gone.
      await k.replaceFiles([{ record: record('more.md'), chunks: [chunk('more.md', 0, 'Grease the spindle bearing weekly.')], vectors: null, codes: [] }]);
      expect((await keywordSearch(k, 'grease spindle bearing', 1))[0]?.chunk.file).toBe('more.md');
    } finally {
      await k.close();
    }
    // And the model can still be adopted.
    const again = await LibraryStore.open(dir, { embedder: identity, mayAdopt: true });
    await again.adoptEmbedder(identity);
    expect(again.pendingVectorFiles().map((f) => f.file).sort()).toEqual(['more.md', 'ready.md', 'wait.md']);
    await again.close();
  });
});

describe('a crash while vectors are attached', () => {
  afterEach(() => {
    failpoints.afterAdd = false;
  });

  it('after the merge but before files.json: the file still waits, is never a vector hit, and attaching again gives the same library', async () => {
    const s = await library();
    const vectors = await emb.embedDocuments(waiting.map((c) => c.text));
    failpoints.afterAdd = true;
    await expect(s.attachVectors([{ file: 'wait.md', vectors }])).rejects.toThrow(/failpoint/);
    failpoints.afterAdd = false;
    await s.close();

    const again = await stores.open({ embedder: { id: emb.id, dims: emb.dims } });
    expect(again.getFile('wait.md')?.vectorsPending).toBe(true);
    expect((await again.stats()).chunks).toBe(4);
    expect((await again.vectorSearch(await emb.embedQuery('pump seal kit'), 10)).every((h) => h.chunk.file === 'ready.md')).toBe(true);
    await again.attachVectors([{ file: 'wait.md', vectors }]);
    expect((await again.stats()).chunks).toBe(4);
    expect((await again.vectorSearch(await emb.embedQuery('pump seal kit'), 1))[0]?.chunk).toEqual(waiting[1]);
  });
});
