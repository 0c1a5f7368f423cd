/**
 * Files committed before their vectors (FileRecord.vectorsPending): searchable by keyword and code,
 * never returned by a vector search (their rows hold placeholders), never indexed by HNSW, and given
 * their vectors by attachVectors without a new generation.
 */
import { describe, expect, it } from 'vitest';
import { keywordSearch } from '../../../native/search/keyword.js';
import { chunk, code, fakeEmbedder, record, storePerTest } from './fixtures.js';

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

