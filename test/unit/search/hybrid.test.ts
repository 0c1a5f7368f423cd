import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { hybridSearch } from '../../../native/search/hybrid.js';
import { LibraryStore } from '../../../native/store/library-store.js';
import { chunk, fakeEmbedder, record, tempDir } from '../store/fixtures.js';

let dir: string;
let cleanup: () => void;
let store: LibraryStore | null = null;

beforeEach(() => ({ dir, cleanup } = tempDir()));
afterEach(async () => {
  await store?.close();
  store = null;
  cleanup();
});

const TEXTS = [
  'Spindle overheating: check the coolant pump and clean the cooling fins.',
  'Homing fails when the limit switch wiring is broken.',
  'Widget alignment: loosen the four screws and square the frame.',
  'Lubricate the ball screws every month.',
];

// "gizmo" means "widget" to the fake model only: a match keyword search cannot make.
const emb = fakeEmbedder({ gizmo: 'widget' });

async function build(withVectors: boolean): Promise<LibraryStore> {
  store = await LibraryStore.open(dir, { embedder: withVectors ? { id: emb.id, dims: emb.dims } : null, create: true });
  const chunks = TEXTS.map((t, i) => chunk('guide.pdf', i, t, { page: i + 1, headingPath: ['Service', `Part ${i}`], manual: 'Guide' }));
  await store.replaceFile(record('guide.pdf', { title: 'Guide' }), chunks, withVectors ? await emb.embedDocuments(TEXTS) : null, []);
  await store.compact();
  return store;
}

describe('hybridSearch', () => {
  it('runs keyword only without an embedder, and maps hits', async () => {
    const s = await build(false);
    const res = await hybridSearch(s, null, { query: 'limit switch wiring', k: 3 });
    expect(res.mode).toBe('keyword');
    expect(res.ms).toBeGreaterThanOrEqual(0);
    expect(res.hits[0]).toEqual({
      file: 'guide.pdf',
      page: 2,
      section: 'Service > Part 1',
      text: TEXTS[1],
      score: expect.any(Number),
      kind: 'passage',
      manual: 'Guide',
      lang: 'en',
      chunkId: chunk('guide.pdf', 1, TEXTS[1]!).id,
    });
    // Asking for hybrid without a model falls back and says so.
    expect((await hybridSearch(s, null, { query: 'gizmo', mode: 'hybrid' })).mode).toBe('keyword');
    expect((await hybridSearch(s, null, { query: 'gizmo' })).hits).toEqual([]);
  });

  it('fuses keyword and vector lists with RRF', async () => {
    const s = await build(true);
    const res = await hybridSearch(s, emb, { query: 'gizmo alignment screws', k: 2 });
    expect(res.mode).toBe('hybrid');
    expect(res.hits[0]?.text).toBe(TEXTS[2]);
    expect(res.hits.length).toBe(2);
    // RRF scores: at most 2/(60+1).
    expect(res.hits[0]!.score).toBeLessThanOrEqual(2 / 61 + 1e-12);
    // Only the vector retriever can connect "gizmo" to "widget".
    const kw = await hybridSearch(s, emb, { query: 'gizmo', mode: 'keyword' });
    expect(kw.hits).toEqual([]);
    const vec = await hybridSearch(s, emb, { query: 'gizmo', mode: 'vector', k: 1 });
    expect(vec.mode).toBe('vector');
    expect(vec.hits[0]?.text).toBe(TEXTS[2]);
    const hyb = await hybridSearch(s, emb, { query: 'gizmo', k: 1 });
    expect(hyb.hits[0]?.text).toBe(TEXTS[2]);
  });

  it('applies filters to both retrievers', async () => {
    const s = await build(true);
    const res = await hybridSearch(s, emb, { query: 'spindle', filters: { pathPrefix: 'other/' } });
    expect(res.hits).toEqual([]);
  });
});
