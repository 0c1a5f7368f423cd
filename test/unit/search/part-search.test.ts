/**
 * A two-part question's parts are searched by their words only: the whole question carries the
 * vectors (one query embedding per question, however many parts), and each part's passage still
 * reaches the top five.
 */
import { describe, expect, it } from 'vitest';
import { retrieve } from '../../../native/search/retriever.js';
import { chunk, fakeEmbedder, record, storePerTest } from '../store/fixtures.js';

const stores = storePerTest();

const TEXTS = [
  'To prime the coolant pump, open the bleed screw and run the pump until bubble-free coolant flows.',
  'The spindle belt tension is correct when the belt deflects 6 mm under thumb pressure at mid-span.',
  'Lubricate the ball screws every month with the grease named on the label.',
  'Clean the cooling fins of the cabinet with dry air once a week.',
];

describe('two-part question, hybrid library', () => {
  it('embeds the whole question once and finds both parts by their words', async () => {
    const emb = fakeEmbedder({});
    const store = await stores.open({ embedder: { id: emb.id, dims: emb.dims }, create: true });
    const chunks = TEXTS.map((t, i) => chunk('service.md', i, t, { headingPath: ['Service', `Task ${i}`], manual: 'Service' }));
    await store.replaceFile(record('service.md', { title: 'Service' }), chunks, await emb.embedDocuments(TEXTS), []);
    await store.compact();
    const embedded: string[] = [];
    const counting = { embedQuery: (text: string) => (embedded.push(text), emb.embedQuery(text)) };
    const q = 'how do I prime the coolant pump with the bleed screw, and what belt deflection is the right spindle belt tension?';
    const r = await retrieve([{ pack: null, store, codes: null, embedder: counting }], { query: q, k: 10 });
    expect(r.mode).toBe('hybrid');
    expect(r.parts?.length).toBe(2);
    expect(embedded).toEqual([q]);
    const top = r.hits.slice(0, 5).map((h) => h.text);
    expect(top).toContain(TEXTS[0]);
    expect(top).toContain(TEXTS[1]);
  });
});
