/**
 * A question that names a product documented only in another language: the library-wide vector list
 * ranks any passage in the question's language above the product's own (as a multilingual model
 * does), so the product's folder is also searched on its own and its passages lead.
 */
import { describe, expect, it } from 'vitest';
import { retrieve, type RetrievalSource } from '../../../native/search/retriever.js';
import { buildNameIndex } from '../../../native/search/plan/name-index.js';
import { chunk, fakeEmbedder, record, storePerTest } from '../store/fixtures.js';

const stores = storePerTest();

// To the fake model, the Chinese words mean the English ones (a multilingual model, coarsely).
const emb = fakeEmbedder({ 插紧: 'reseat', 排线: 'ribbon' });
const ZH = '重新插紧排线：断电后把排线压到底，听到咔哒声。';

async function build(): Promise<RetrievalSource> {
  const store = await stores.open({ embedder: { id: emb.id, dims: emb.dims }, create: true });
  // Another product's English pages that say the question's words (more candidates than fusion takes).
  const texts = Array.from({ length: 120 }, (_, i) => `Reseat the ribbon of panel ${i}.`);
  const other = texts.map((t, i) => chunk('orvik/panels.md', i, t, { headingPath: ['Panels', `Panel ${i}`], manual: 'Orvik panels' }));
  await store.replaceFile(record('orvik/panels.md', { title: 'Orvik panels', langs: ['en'] }), other, await emb.embedDocuments(texts), []);
  // The product's own Chinese manual: forty pages that all say its name, one about the ribbon cable.
  const topics = ['热床温度', '喷嘴清洁', '皮带张紧', '风扇转速', '挤出机齿轮', '固件版本', '电源电压', '散热片'];
  const pages = Array.from({ length: 40 }, (_, i) => `Qilin 打印机：每周检查${topics[i % topics.length]}（第 ${i} 项）。`);
  const zh = [ZH, ...pages].map((t, i) => chunk('qilin/checks.md', i, t, { lang: 'zh', headingPath: ['Qilin 配置检查'], manual: 'Qilin 配置检查' }));
  await store.replaceFile(record('qilin/checks.md', { title: 'Qilin 配置检查', lang: 'zh', langs: ['zh'] }), zh, await emb.embedDocuments(zh.map((c) => c.text)), []);
  await store.compact();
  const files = store.getFiles().map((f) => ({ file: f.file, title: f.meta.title }));
  return { pack: null, store, codes: null, embedder: emb, names: async () => buildNameIndex(files) };
}

describe('a named product documented in another language', () => {
  it("searches the product's folder on its own, so its passage leads", async () => {
    const src = await build();
    const r = await retrieve([src], { query: 'how do I reseat the ribbon on the Qilin', k: 5 });
    expect(r.scope).toEqual(['qilin']);
    expect(r.hits.slice(0, 3).map((h) => h.text)).toContain(ZH);
  });

  it('leaves a product documented in the question’s language to the usual re-rank', async () => {
    const src = await build();
    const r = await retrieve([src], { query: 'how do I reseat the ribbon on the Orvik', k: 5 });
    expect(r.scope).toEqual(['orvik']);
    expect(r.hits.every((h) => h.file === 'orvik/panels.md')).toBe(true);
  });
});
