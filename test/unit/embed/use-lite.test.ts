import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { USE_LITE_ID, UseLiteEmbedder } from '../../../native/embed/use-lite.js';

const dot = (a: Float32Array, b: Float32Array) => a.reduce((s, x, i) => s + x * (b[i] ?? 0), 0);

let e: UseLiteEmbedder;
beforeAll(async () => {
  e = await UseLiteEmbedder.load();
});
afterAll(async () => {
  await e.dispose();
  await e.dispose();
});

describe('UseLiteEmbedder (Universal Sentence Encoder lite, bundled weights)', () => {
  it('produces 512-d unit vectors', async () => {
    expect(e.id).toBe(USE_LITE_ID);
    const v = await e.embedQuery('The printer stops heating the bed.');
    expect(v).toHaveLength(512);
    expect(Math.sqrt(dot(v, v))).toBeCloseTo(1, 4);
  });

  it('scores a related pair above an unrelated pair', async () => {
    const [motor, motor2, cake] = await e.embedDocuments([
      'The stepper motor skips steps and the print shifts.',
      'Layer shift: the axis motor loses position while printing.',
      'Mix the flour and sugar, then bake the cake for forty minutes.',
    ]);
    expect(dot(motor!, motor2!)).toBeGreaterThan(dot(motor!, cake!) + 0.1);
  });

  it('batches give the same vectors as single calls', async () => {
    const texts = ['oil pressure low', 'replace the air filter', 'fan error on start-up'];
    const batch = await e.embedDocuments(texts);
    const single = await e.embedQuery(texts[1]!);
    for (let d = 0; d < 512; d++) expect(batch[1]![d]).toBeCloseTo(single[d]!, 4);
  });
});
