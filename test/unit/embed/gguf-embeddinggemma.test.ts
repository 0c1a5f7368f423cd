/**
 * Fidelity of the EmbeddingGemma GGUF that `npm run models:fetch -- --with embeddinggemma
 * --accept-gemma-terms` builds (scripts/models_fetch/gemma_gguf.py), through the product's gguf
 * backend, against two references:
 *
 * 1. The model card's example (google/embeddinggemma-300m, "Usage"): its four similarities. Tolerance
 *    2e-3: the installed file stores its layer matrices as Q8_0 and measures 1.17e-3 at most on an AVX2
 *    machine and 1.61e-3 on an AVX-512 VNNI one (llama.cpp's int8 dot kernels differ by CPU; same file,
 *    one thread); an F16 conversion of the same weights: 3.8e-4, as close as the numpy reference pass
 *    itself, 3.0e-4. A lost prompt moves them by 0.05 to 0.13 (below); the reference pass (2.) is the
 *    finer check (a wrong sliding window gives cosine 0.99883 there). Without
 *    the prompts the same model gives 0.4264, 0.7131, 0.5465, 0.5789: the test sees a lost prompt.
 * 2. reference-embeddings.json beside the GGUF: vectors of a numpy forward pass of the fp32 weights
 *    (scripts/models_fetch/gemma_reference.py, written at install time) for queries and documents in
 *    English, Chinese, German, Japanese and Spanish, one past the sliding layers' 256-token reach. Each
 *    must come within cosine 0.999 (the issue asks 0.99; measured Q8_0 0.99976 at worst, F16 0.99999).
 *
 * Skipped, with the reason, where the model (or its reference vectors) is not installed (CI, a fresh clone).
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEmbedder, getModelEntry } from '../../../native/embed/models.js';
import type { Embedder } from '../../../native/embed/types.js';

const ROOT = resolve(import.meta.dirname, '../../..');
const FILE = process.env.MANUALDESK_EMBEDDINGGEMMA ?? join(ROOT, 'models', 'local', 'embeddinggemma-300m', 'embeddinggemma-300m-q8_0.gguf');
const REFERENCE = join(dirname(FILE), 'reference-embeddings.json');
const FETCH = 'npm run models:fetch -- --with embeddinggemma --accept-gemma-terms';
const installed = existsSync(FILE);
const referenced = installed && existsSync(REFERENCE);
if (!installed) {
  console.warn(`EmbeddingGemma fidelity test skipped: ${FILE} is not installed. Run \`${FETCH}\` (Gemma Terms of Use) to install it.`);
} else if (!referenced) {
  console.warn(`EmbeddingGemma reference check skipped: ${REFERENCE} is missing (installed before the fetch wrote it). Run \`${FETCH} --force\` to write it.`);
}

const QUERY = 'Which planet is known as the Red Planet?';
const DOCUMENTS = [
  "Venus is often called Earth's twin because of its similar size and proximity.",
  'Mars, known for its reddish appearance, is often referred to as the Red Planet.',
  'Jupiter, the largest planet in our solar system, has a prominent red spot.',
  'Saturn, famous for its rings, is sometimes mistaken for the Red Planet.',
];
const CARD = [0.3011, 0.6359, 0.493, 0.4889];
const CARD_TOLERANCE = 2e-3;
const MIN_COSINE = 0.999;

interface ReferenceText {
  kind: 'query' | 'document';
  lang: string;
  text: string;
  prompt: string;
  tokens: number;
  vector: number[];
}

const dot = (a: ArrayLike<number>, b: ArrayLike<number>) => {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += (a[i] as number) * (b[i] as number);
  return s;
};

let embedder: Embedder | null = null;

beforeAll(async () => {
  if (installed) embedder = await createEmbedder({ kind: 'gguf', file: FILE, threads: 1 });
}, 120_000);

afterAll(async () => {
  await embedder?.dispose();
});

describe.skipIf(!installed)('EmbeddingGemma-300M GGUF (installed model)', () => {
  it("takes the manifest's prompts, 768 dimensions and the weights' sha256 in its id", () => {
    expect(embedder!.dims).toBe(768);
    expect(embedder!.id).toMatch(/^gguf:embeddinggemma-300m@6aa65eeb$/);
  });

  it("reproduces the model card's example similarities", async () => {
    const q = await embedder!.embedQuery(QUERY);
    const docs = await embedder!.embedDocuments(DOCUMENTS);
    const sims = docs.map((d) => dot(d, q));
    const worst = Math.max(...sims.map((s, i) => Math.abs(s - (CARD[i] as number))));
    console.log(`EmbeddingGemma card example: ${sims.map((s) => s.toFixed(4)).join(', ')} (card ${CARD.join(', ')}; max error ${worst.toExponential(2)})`);
    sims.forEach((s, i) => expect(Math.abs(s - (CARD[i] as number))).toBeLessThan(CARD_TOLERANCE));
  });

  it.skipIf(!referenced)('comes within cosine 0.999 of a numpy reference pass on queries and documents in five languages', async () => {
    const texts = (JSON.parse(readFileSync(REFERENCE, 'utf8')) as { texts: ReferenceText[] }).texts;
    expect(new Set(texts.map((t) => t.lang))).toEqual(new Set(['en', 'zh', 'de', 'ja', 'es']));
    expect(Math.max(...texts.map((t) => t.tokens))).toBeGreaterThan(257); // past the sliding layers' reach
    // The reference embedded prompt + text with the prompts the product uses.
    const entry = getModelEntry('google/embeddinggemma-300m (GGUF)')!;
    const cosines: string[] = [];
    for (const t of texts) {
      expect(t.prompt).toBe(t.kind === 'query' ? entry.queryPrefix : entry.passagePrefix);
      const v = t.kind === 'query' ? await embedder!.embedQuery(t.text) : (await embedder!.embedDocuments([t.text]))[0]!;
      const cosine = dot(v, t.vector) / Math.sqrt(dot(t.vector, t.vector));
      cosines.push(`${t.lang} ${t.kind} ${cosine.toFixed(5)}`);
      expect(cosine, `${t.lang} ${t.kind}: ${t.text.slice(0, 40)}`).toBeGreaterThanOrEqual(MIN_COSINE);
    }
    console.log(`EmbeddingGemma cosine to the reference pass: ${cosines.join('; ')}`);
  }, 60_000);
});
