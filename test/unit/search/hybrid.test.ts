import { describe, expect, it } from 'vitest';
import type { SearchFilters } from '../../../native/contract/api.js';
import { hybridSearch, type SearchableStore } from '../../../native/search/channels/hybrid.js';
import { LibraryStore } from '../../../native/store/library-store.js';
import { chunk, DIMS, fakeEmbedder, record, storePerTest } from '../store/fixtures.js';

const stores = storePerTest();

const TEXTS = [
  'Spindle overheating: check the coolant pump and clean the cooling fins.',
  'Homing fails when the limit switch wiring is broken.',
  'Widget alignment: loosen the four screws and square the frame.',
  'Lubricate the ball screws every month.',
];

// "gizmo" means "widget" to the fake model only: a match keyword search cannot make.
const emb = fakeEmbedder({ gizmo: 'widget' });

/** The store as search sees it, with some of its calls replaced (to record them). */
function spyOn(s: LibraryStore, over: Partial<SearchableStore>): SearchableStore {
  return {
    get hasVectors() {
      return s.hasVectors;
    },
    get filesRevision() {
      return s.filesRevision;
    },
    hasPassagesIn: s.hasPassagesIn.bind(s),
    getFiles: s.getFiles.bind(s),
    indexedTerms: s.indexedTerms.bind(s),
    fullTextSearch: s.fullTextSearch.bind(s),
    vectorSearch: s.vectorSearch.bind(s),
    ...over,
  };
}

async function build(withVectors: boolean): Promise<LibraryStore> {
  const store = await stores.open({ embedder: withVectors ? { id: emb.id, dims: emb.dims } : null, create: true });
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

  it('searches vectors once, in every language the filters allow (no second search per passage language)', async () => {
    const store = await stores.open({ embedder: { id: emb.id, dims: emb.dims }, create: true });
    const zhText = '编码器 断线：检查 encoder 电缆';
    const chunks = [...TEXTS.map((t, i) => chunk('guide.pdf', i, t)), chunk('zh.md', 0, zhText, { lang: 'zh' })];
    await store.replaceFile(record('guide.pdf', { langs: ['en'] }), chunks.slice(0, 4), await emb.embedDocuments(TEXTS), []);
    await store.replaceFile(record('zh.md', { lang: 'zh', langs: ['zh'] }), chunks.slice(4), await emb.embedDocuments([zhText]), []);
    const s = store;
    const calls: (string[] | undefined)[] = [];
    const spy = spyOn(s, { vectorSearch: (v: Float32Array, n: number, f?: SearchFilters) => (calls.push(f?.lang), s.vectorSearch(v, n, f)) });
    const res = await hybridSearch(spy, emb, { query: 'encoder cable', k: 5 });
    expect(calls).toEqual([undefined]);
    expect(res.hits.map((h) => h.file)).toContain('zh.md');
    calls.length = 0;
    await hybridSearch(spy, emb, { query: '编码器', k: 5 });
    expect(calls).toEqual([undefined]);
    // A search the technician limited to one language searches only that one.
    calls.length = 0;
    await hybridSearch(spy, emb, { query: 'encoder cable', k: 5, filters: { lang: ['en'] } });
    expect(calls).toEqual([['en']]);
  });
});

describe('rows of one table in a hybrid search', () => {
  it('are ordered among themselves by keyword search: the model cannot tell rows of one template apart', async () => {
    const rows = ['P0171=System Too Lean Bank 1', 'P0172=System Too Rich Bank 1', 'P0174=System Too Lean Bank 2', 'P0175=System Too Rich Bank 2'];
    const guide = 'Engine running lean on one bank: a lean mixture on bank 1 or bank 2 points to a vacuum leak on that side.';
    // The model's view: every row of the template nearly the same, Bank 1 rows a hair closer to the question.
    const unit = (i: number, eps = 0) => Float32Array.from({ length: DIMS }, (_, j) => (j === 0 ? 1 : j === i ? eps : 0));
    const vectors = [unit(1, 0.05), unit(2, 0.06), unit(3, 0.2), unit(4, 0.21), unit(5, 0.3)];
    const store = await stores.open({ embedder: { id: 'fake:axes', dims: DIMS }, create: true });
    const chunks = [...rows.map((t, i) => chunk('codes.properties', i, t, { kind: 'table-row', manual: 'Codes' })), chunk('fuel.md', 0, guide, { manual: 'Fuel trim' })];
    await store.replaceFile(record('codes.properties', { title: 'Codes' }), chunks.slice(0, 4), vectors.slice(0, 4), []);
    await store.replaceFile(record('fuel.md', { title: 'Fuel trim' }), chunks.slice(4), vectors.slice(4), []);
    await store.compact();
    const model = { embedQuery: async () => unit(1, 0.04) };
    const q = 'engine running lean on bank 2';
    const kw = await hybridSearch(store, model, { query: q, k: 5, mode: 'keyword' });
    expect(kw.hits.filter((h) => h.kind === 'table-row')[0]?.text).toBe(rows[2]);
    const vec = await hybridSearch(store, model, { query: q, k: 5, mode: 'vector' });
    expect(vec.hits.findIndex((h) => h.text === rows[2])).toBeGreaterThan(0);
    const hyb = await hybridSearch(store, model, { query: q, k: 5 });
    const tableRows = hyb.hits.filter((h) => h.kind === 'table-row').map((h) => h.text);
    expect(tableRows[0]).toBe(rows[2]);
  });
});

describe('a manual the library has only in the other language', () => {
  // Six English passages that share the question's words, and a Chinese protocol manual that answers
  // it in its own words: the English question matches it only through translated words.
  const english = [
    'Robot status page: the status of each robot port is shown in the feedback panel.',
    'The robot sends its status over the serial port when asked; status requests are answered at once.',
    'Port settings: a robot status port can be changed in the network feedback menu.',
    'Feedback from the robot: status lines list port errors and robot state.',
    'A robot that stops sending status: check the port cable and the feedback wiring.',
    'Status feedback port numbers for each robot model are listed in the appendix.',
    'Robot feedback: how often the status port is read depends on the robot controller.',
    'The status port of a robot sends feedback when the robot state changes.',
    'Realtime status: the robot port feedback is refreshed when the robot moves.',
  ];
  const zhText = '实时反馈端口每 8 毫秒推送一次机器人状态数据包。';
  const question = 'how often does the realtime feedback port send robot status';

  async function library(twin: boolean): Promise<LibraryStore> {
    const store = await stores.open({ embedder: null, create: true });
    await store.replaceFile(record('guide/robots.md', { langs: ['en'] }), english.map((t, i) => chunk('guide/robots.md', i, t)), null, []);
    await store.replaceFile(record('proto/zh/tcp-protocol.md', { lang: 'zh', langs: ['zh'] }), [chunk('proto/zh/tcp-protocol.md', 0, zhText, { lang: 'zh' })], null, []);
    if (twin) {
      const en = 'The realtime feedback port pushes a robot status packet every 8 ms.';
      await store.replaceFile(record('proto/en/tcp-protocol_EN.md', { langs: ['en'] }), [chunk('proto/en/tcp-protocol_EN.md', 0, en)], null, []);
    }
    await store.compact();
    return store;
  }

  it('gets a place in the first five for a question in the other language', async () => {
    const s = await library(false);
    const top5 = (await hybridSearch(s, null, { query: question, k: 10 })).hits.slice(0, 5).map((h) => h.file);
    expect(top5).toContain('proto/zh/tcp-protocol.md');
    // A search the technician limited to English stays English.
    const en = await hybridSearch(s, null, { query: question, k: 10, filters: { lang: ['en'] } });
    expect(en.hits.map((h) => h.file)).not.toContain('proto/zh/tcp-protocol.md');
  });

  it('costs no second search when the question shares no word with the manual', async () => {
    const s = await library(false);
    const langs: (string[] | undefined)[] = [];
    const spy = spyOn(s, { fullTextSearch: (p: Parameters<LibraryStore['fullTextSearch']>[0], n: number, f?: SearchFilters) => (langs.push(f?.lang), s.fullTextSearch(p, n, f)) });
    await hybridSearch(spy, null, { query: 'check the cable wiring', k: 10 });
    expect(langs).toEqual([undefined]);
    langs.length = 0;
    const hits = (await hybridSearch(spy, null, { query: question, k: 10 })).hits;
    expect(langs).toEqual([undefined, ['zh']]);
    expect(hits.slice(0, 5).map((h) => h.file)).toContain('proto/zh/tcp-protocol.md');
    // A new version of the manual is read anew: it no longer shares a word with the question.
    await s.replaceFile(record('proto/zh/tcp-protocol.md', { lang: 'zh', langs: ['zh'], generation: 2 }), [chunk('proto/zh/tcp-protocol.md', 0, '急停按钮松开后清除报警。', { lang: 'zh' })], null, []);
    langs.length = 0;
    await hybridSearch(spy, null, { query: question, k: 10 });
    expect(langs).toEqual([undefined]);
  });

  it('gets none when the library has the manual in the question\'s language too', async () => {
    const s = await library(true);
    const hits = (await hybridSearch(s, null, { query: question, k: 10 })).hits;
    expect(hits.slice(0, 5).map((h) => h.file)).not.toContain('proto/zh/tcp-protocol.md');
    expect(hits.map((h) => h.file)).toContain('proto/en/tcp-protocol_EN.md');
  });
});
