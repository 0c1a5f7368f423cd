/**
 * Fidelity of the EmbeddingGemma GGUF that `npm run models:fetch -- --with embeddinggemma
 * --accept-gemma-terms` builds (scripts/models_fetch/gemma_gguf.py), through the product's gguf
 * backend: the model card's example (google/embeddinggemma-300m, "Usage") must come out as the card says.
 *
 * Tolerance 2e-3: the installed file stores its matrices as Q8_0; measured 1.2e-3 at most (F32 and F16
 * conversions of the same weights: 3e-4, as a plain numpy forward pass does). Without the prompts the
 * same model gives 0.4264, 0.7131, 0.5465, 0.5789: the test sees a lost prompt, and more so a lost layer.
 *
 * Skipped, with the reason, where the model is not installed (CI, a fresh clone).
 */
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEmbedder } from '../../../native/embed/models.js';
import type { Embedder } from '../../../native/embed/types.js';

const ROOT = resolve(import.meta.dirname, '../../..');
const FILE = process.env.MANUALDESK_EMBEDDINGGEMMA ?? join(ROOT, 'models', 'local', 'embeddinggemma-300m', 'embeddinggemma-300m-q8_0.gguf');
const installed = existsSync(FILE);
if (!installed) {
  console.warn(`EmbeddingGemma fidelity test skipped: ${FILE} is not installed. Run \`npm run models:fetch -- --with embeddinggemma --accept-gemma-terms\` (Gemma Terms of Use) to install it.`);
}

const QUERY = 'Which planet is known as the Red Planet?';
const DOCUMENTS = [
  "Venus is often called Earth's twin because of its similar size and proximity.",
  'Mars, known for its reddish appearance, is often referred to as the Red Planet.',
  'Jupiter, the largest planet in our solar system, has a prominent red spot.',
  'Saturn, famous for its rings, is sometimes mistaken for the Red Planet.',
];
const CARD = [0.3011, 0.6359, 0.493, 0.4889];
const TOLERANCE = 2e-3;

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
    const sims = docs.map((d) => d.reduce((s, x, i) => s + x * (q[i] as number), 0));
    console.log(`EmbeddingGemma card example: ${sims.map((s) => s.toFixed(4)).join(', ')} (card ${CARD.join(', ')})`);
    sims.forEach((s, i) => expect(Math.abs(s - (CARD[i] as number))).toBeLessThan(TOLERANCE));
  });
});
