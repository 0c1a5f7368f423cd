/**
 * A two-part question's parts are searched by their words only: the whole question carries the
 * vectors (one query embedding per question, however many parts), and each part's passage still
 * reaches the top five.
 */
import { describe, expect, it } from 'vitest';
import { retrieve } from '../../../native/search/retriever.js';
import { chunk, DIMS, fakeEmbedder, record, storePerTest } from '../store/fixtures.js';

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

describe('two-part question, hybrid library, keyword search of the whole question', () => {
  it("keeps on the first page what keyword search alone shows there, when the model ranks it below other passages", async () => {
    // The model's view: the question sits next to the spare-parts passages, far from the rest. The
    // passage that speaks to both parts is keyword's second for the whole question, neither part's first.
    const axis = (text: string) => (/spare/i.test(text) ? 0 : /isolate/i.test(text) ? 1 : 2);
    const unit = (i: number) => Float32Array.from({ length: DIMS }, (_, j) => (j === i ? 1 : 0));
    const model = { embedQuery: async () => unit(0) };
    const texts = [
      'Before servicing the purge valve or cleaning the intake filter, isolate the air supply, vent the tank and wait until the pressure gauge reads zero.',
      'The purge valve vents condensate from the tank at the end of each cycle.',
      'Clean the intake filter every 200 hours of running.',
      'The purge valve housing is cast aluminium.',
      'The intake filter housing is moulded plastic.',
      'Spare purge valve and intake filter part numbers are listed in the appendix.',
      'The purge valve spare kit and the intake filter spare element ship in one box.',
      'The purge valve opens for two seconds at the end of each cycle.',
      'The intake filter is cleaned with low-pressure air from the inside out.',
      'How often the intake filter is cleaned depends on the dust in the room.',
    ];
    const store = await stores.open({ embedder: { id: 'fake:axes', dims: DIMS }, create: true });
    const chunks = texts.map((t, i) => chunk('compressor.md', i, t, { headingPath: ['Compressor', `Item ${i}`], manual: 'Compressor' }));
    await store.replaceFile(record('compressor.md', { title: 'Compressor' }), chunks, texts.map((t) => unit(axis(t))), []);
    await store.compact();
    const q = 'what does the purge valve do, and how often is the intake filter cleaned?';
    const keyword = await retrieve([{ pack: null, store, codes: null, embedder: null }], { query: q, k: 10 });
    expect(keyword.parts?.length).toBe(2);
    expect(keyword.hits.slice(0, 5).map((h) => h.text)).toContain(texts[0]);
    const hybrid = await retrieve([{ pack: null, store, codes: null, embedder: model }], { query: q, k: 10 });
    expect(hybrid.mode).toBe('hybrid');
    expect(hybrid.hits.slice(0, 5).map((h) => h.text)).toContain(texts[0]);
  });
});
