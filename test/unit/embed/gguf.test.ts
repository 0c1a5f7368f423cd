/**
 * The gguf embedding backend's wiring on a generated model: a 2-layer `gemma-embedding` GGUF (the
 * architecture EmbeddingGemma is converted to) with random weights and a real SentencePiece vocabulary
 * (scripts/make-gguf-fixture.ts), loaded with node-llama-cpp through createEmbedder.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeEmbeddingFixture } from '../../../scripts/make-gguf-fixture.js';
import { GgufEmbedder, normalise } from '../../../native/embed/gguf.js';
import { createEmbedder, type ModelManifest } from '../../../native/embed/models.js';
import type { Embedder } from '../../../native/embed/types.js';

let dir: string;
let file: string;
let withPrompts: Embedder;
let plain: GgufEmbedder;

const manifest = (name: string): ModelManifest => ({
  formatVersion: 1,
  models: [
    {
      id: 'test/tiny-embedding (GGUF)', folder: 'tiny-embedding', role: 'embed', backend: 'gguf', dims: 64, pooling: 'mean', maxTokens: 32,
      queryPrefix: 'Q: ', passagePrefix: 'P: ', license: 'MIT', languages: ['en'], recommendedFor: '', source: '',
      files: [{ name, sha256: null, size: null }],
    },
  ],
});

const cos = (a: Float32Array, b: Float32Array) => a.reduce((s, x, i) => s + x * (b[i] as number), 0);

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'md-gguf-embed-'));
  file = await makeEmbeddingFixture(path.join(dir, 'tiny-embedding.gguf'));
  const e = await createEmbedder({ kind: 'gguf', file, threads: 1 }, manifest('tiny-embedding.gguf'));
  if (!e) throw new Error('no embedder');
  withPrompts = e;
  plain = await GgufEmbedder.load({ file, threads: 1, maxTokens: 32 });
}, 120_000);

afterAll(async () => {
  await withPrompts?.dispose();
  await plain?.dispose();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('gguf embedder', () => {
  it('is named by the manifest folder and the weights sha256, with the model size', () => {
    expect(withPrompts.id).toMatch(/^gguf:tiny-embedding@[0-9a-f]{8}$/);
    expect(plain.id).toMatch(/^gguf:tiny-embedding@[0-9a-f]{8}$/);
    expect(withPrompts.dims).toBe(64);
  });

  it('returns unit vectors of the model size, in input order', async () => {
    const texts = ['spindle overheats', 'replace the filter', 'spindle overheats'];
    const vs = await withPrompts.embedDocuments(texts);
    expect(vs.map((v) => v.length)).toEqual([64, 64, 64]);
    for (const v of vs) expect(cos(v, v)).toBeCloseTo(1, 5);
    expect(cos(vs[0]!, vs[2]!)).toBeCloseTo(1, 5);
    expect(cos(vs[0]!, vs[1]!)).toBeLessThan(0.999);
  });

  it("puts the manifest's query and passage prompts before the text", async () => {
    const [asPassage] = await withPrompts.embedDocuments(['oil pressure low']);
    const query = await withPrompts.embedQuery('oil pressure low');
    const [p, q, bare] = await plain.embedDocuments(['P: oil pressure low', 'Q: oil pressure low', 'oil pressure low']);
    expect(cos(asPassage!, p!)).toBeCloseTo(1, 5);
    expect(cos(query, q!)).toBeCloseTo(1, 5);
    expect(cos(query, bare!)).toBeLessThan(0.999);
  });

  it('cuts text past maxTokens instead of failing', async () => {
    const long = Array.from({ length: 400 }, (_, i) => `word${i}`).join(' ');
    const [v] = await withPrompts.embedDocuments([long]);
    expect(v!.length).toBe(64);
    expect(cos(v!, v!)).toBeCloseTo(1, 5);
  });

  it('truncates to fewer dimensions (Matryoshka) and renormalises, under an id of its own', async () => {
    const small = await createEmbedder({ kind: 'gguf', file, dims: 16, threads: 1 }, manifest('tiny-embedding.gguf'));
    try {
      expect(small!.dims).toBe(16);
      expect(small!.id).toMatch(/^gguf:tiny-embedding-16d@[0-9a-f]{8}$/);
      const v = await small!.embedQuery('oil pressure low');
      expect(v.length).toBe(16);
      expect(cos(v, v)).toBeCloseTo(1, 5);
      const full = await withPrompts.embedQuery('oil pressure low');
      expect(cos(v, normalise(full, 16))).toBeCloseTo(1, 5);
    } finally {
      await small?.dispose();
      await small?.dispose();
    }
  });

  it('embeds documents with one thread fewer than queries (llama.cpp threads spin-wait beside the ingest)', async () => {
    const two = await GgufEmbedder.load({ file, threads: 2, maxTokens: 32 });
    try {
      expect(two.threadsInUse).toBe(2);
      const during: number[] = [];
      await two.embedDocuments(['oil pressure low', 'replace the filter'], undefined, () => during.push(two.threadsInUse));
      expect(during).toEqual([1, 1]);
      expect(two.threadsInUse).toBe(2);
      await expect(two.embedDocuments(['x'], AbortSignal.abort())).rejects.toThrow();
      expect(two.threadsInUse).toBe(2);
    } finally {
      await two.dispose();
    }
    const one = await GgufEmbedder.load({ file, threads: 1, documentThreads: 4, maxTokens: 32 });
    try {
      const during: number[] = [];
      await one.embedDocuments(['oil pressure low'], undefined, () => during.push(one.threadsInUse));
      expect(during).toEqual([1]);
    } finally {
      await one.dispose();
    }
  }, 60_000);

  it('stops at an aborted signal and names a missing file as MODEL_MISSING', async () => {
    const ac = new AbortController();
    ac.abort();
    await expect(withPrompts.embedDocuments(['x'], ac.signal)).rejects.toThrow();
    await expect(GgufEmbedder.load({ file: path.join(dir, 'absent.gguf') })).rejects.toMatchObject({ code: 'MODEL_MISSING' });
  });
});
