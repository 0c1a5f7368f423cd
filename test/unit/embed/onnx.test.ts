import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AutoModel, AutoTokenizer } from '@huggingface/transformers';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { EngineError } from '../../../native/contract/errors.js';
import { configureOfflineEnv, OnnxEmbedder, sha256File } from '../../../native/embed/onnx.js';
import { writeTinyBertModel } from '../../../scripts/make-tiny-onnx.js';

const norm = (v: Float32Array) => Math.sqrt(v.reduce((s, x) => s + x * x, 0));
const dot = (a: Float32Array, b: Float32Array) => a.reduce((s, x, i) => s + x * (b[i] ?? 0), 0);

let root: string;
let modelDir: string;
let embedder: OnnxEmbedder;

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'md-embed-onnx-'));
  modelDir = join(root, 'models', 'test', 'tiny-bert');
  writeTinyBertModel(modelDir, { dims: 32, seed: 7 });
  embedder = await OnnxEmbedder.load({ dir: modelDir, cacheDir: join(root, 'cache'), batchSize: 3 });
});

afterAll(async () => {
  await embedder?.dispose();
  rmSync(root, { recursive: true, force: true });
});

async function expectModelMissing(p: Promise<unknown>): Promise<EngineError> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(EngineError);
  expect((err as EngineError).code).toBe('MODEL_MISSING');
  return err as EngineError;
}

describe('OnnxEmbedder.release: the model out of memory until a call needs it', () => {
  it('frees the session, loads it again for the next call with the same vectors, and lets a running call finish first', async () => {
    const e = await OnnxEmbedder.load({ dir: modelDir, cacheDir: join(root, 'cache') });
    try {
      const texts = ['Lock out the press before the die change.', 'Bleed the hydraulic pump.'];
      const before = await e.embedDocuments(texts);
      expect(e.loaded).toBe(true);
      await e.release();
      expect(e.loaded).toBe(false);
      const again = await e.embedDocuments(texts);
      expect(e.loaded).toBe(true);
      again.forEach((v, i) => expect(Array.from(v)).toEqual(Array.from(before[i] as Float32Array)));
      // Released while a call runs: the call finishes with its session, then the session goes.
      const running = e.embedDocuments(Array.from({ length: 40 }, (_, i) => `Passage ${i} about the coolant pump.`));
      await e.release();
      expect((await running).length).toBe(40);
      expect(e.loaded).toBe(false);
      expect((await e.embedQuery('coolant pump')).length).toBe(e.dims);
    } finally {
      await e.dispose();
    }
  });
});

describe('OnnxEmbedder on a generated tiny BERT model', () => {
  it('reads dims from the model output and derives the id from the weights hash', async () => {
    expect(embedder.dims).toBe(32);
    const sha = await sha256File(join(modelDir, 'onnx', 'model.onnx'));
    expect(embedder.id).toMatch(new RegExp(`^onnx:test/tiny-bert@${sha.slice(0, 8)}-[0-9a-f]{8}$`));
    expect(embedder.dtype).toBe('fp32');
    expect(embedder.pooling).toBe('mean');
  });

  it('returns L2-normalised vectors, deterministically', async () => {
    const a = await embedder.embedQuery('the stepper motor skips steps');
    const b = await embedder.embedQuery('the stepper motor skips steps');
    expect(a).toHaveLength(32);
    expect(norm(a)).toBeCloseTo(1, 5);
    expect(Array.from(b)).toEqual(Array.from(a));
  });

  it('gives the same vectors in a batch as one at a time, in input order', async () => {
    const texts = [
      'replace the filter',
      'error code 42: pump pressure too low, check the hose for a leak',
      'fan',
      'press and hold the reset switch until the display shows the home position',
      'oil level low',
    ];
    const batch = await embedder.embedDocuments(texts);
    expect(batch).toHaveLength(texts.length);
    for (const [i, text] of texts.entries()) {
      const single = (await embedder.embedDocuments([text]))[0]!;
      const v = batch[i]!;
      expect(norm(v)).toBeCloseTo(1, 5);
      for (let d = 0; d < v.length; d++) expect(v[d]).toBeCloseTo(single[d]!, 5);
    }
  });

  it('gives different texts different vectors', async () => {
    const [a, b] = await embedder.embedDocuments(['motor overheat alarm', 'cake recipe with flour']);
    expect(dot(a!, b!)).toBeLessThan(0.999);
  });

  it('adds the configured query and passage prefixes', async () => {
    const prefixed = await OnnxEmbedder.load({
      dir: modelDir,
      cacheDir: join(root, 'cache'),
      queryPrefix: 'query: ',
      passagePrefix: 'passage: ',
    });
    try {
      const q = await prefixed.embedQuery('pump');
      const [p] = await prefixed.embedDocuments(['pump']);
      const [plainQ, plainP] = await embedder.embedDocuments(['query: pump', 'passage: pump']);
      expect(Array.from(q)).toEqual(Array.from(plainQ!));
      expect(Array.from(p!)).toEqual(Array.from(plainP!));
      expect(Array.from(q)).not.toEqual(Array.from(p!));
    } finally {
      await prefixed.dispose();
    }
  });

  it('embeds a repeated query once; a cancelled query is not remembered', async () => {
    const e = await OnnxEmbedder.load({ dir: modelDir, cacheDir: join(root, 'cache') });
    try {
      const runs = vi.spyOn(e as unknown as { embedBatched: (t: string[]) => Promise<Float32Array[]> }, 'embedBatched');
      const a = await e.embedQuery('spindle alarm after warm-up');
      const b = await e.embedQuery('spindle alarm after warm-up');
      const c = await e.embedQuery('spindle alarm after warm-up');
      expect(runs).toHaveBeenCalledTimes(1);
      expect(Array.from(b)).toEqual(Array.from(a));
      expect(Array.from(c)).toEqual(Array.from(a));
      await e.embedQuery('coolant pump');
      expect(runs).toHaveBeenCalledTimes(2);
      const ctl = new AbortController();
      ctl.abort();
      await expect(e.embedQuery('door interlock', ctl.signal)).rejects.toMatchObject({ name: 'AbortError' });
      expect((await e.embedQuery('door interlock')).length).toBe(e.dims);
    } finally {
      await e.dispose();
    }
  });

  it('stops between batches when aborted', async () => {
    const ctl = new AbortController();
    ctl.abort();
    await expect(embedder.embedDocuments(['a', 'b'], ctl.signal)).rejects.toMatchObject({ name: 'AbortError' });
  });

  it('prefers the quantized weights when present and records them in the id', async () => {
    const dir = join(root, 'models', 'test', 'tiny-q');
    writeTinyBertModel(dir, { dims: 32, seed: 7, withQuantized: true });
    const q8 = await OnnxEmbedder.load({ dir, cacheDir: join(root, 'cache') });
    const fp32 = await OnnxEmbedder.load({ dir, cacheDir: join(root, 'cache'), dtype: 'fp32' });
    try {
      expect(q8.dtype).toBe('q8');
      const sha = await sha256File(join(dir, 'onnx', 'model_quantized.onnx'));
      expect(q8.id).toMatch(new RegExp(`^onnx:test/tiny-q@${sha.slice(0, 8)}-[0-9a-f]{8}$`));
      expect(fp32.id).not.toBe(q8.id);
    } finally {
      await q8.dispose();
      await fp32.dispose();
    }
  });

  it('dispose() is safe twice and later calls fail clearly', async () => {
    const e = await OnnxEmbedder.load({ dir: modelDir, cacheDir: join(root, 'cache') });
    await e.dispose();
    await e.dispose();
    await expect(e.embedQuery('x')).rejects.toThrow(/closed/);
  });
});

describe('OnnxEmbedder failures', () => {
  it('throws MODEL_MISSING for an empty folder, naming where the files go', async () => {
    const empty = join(root, 'empty');
    mkdirSync(empty, { recursive: true });
    const err = await expectModelMissing(OnnxEmbedder.load({ dir: empty }));
    expect(err.message).toContain(empty);
    expect(err.message).toMatch(/model pack/);
    expect(err.message).toContain('tokenizer.json');
  });

  it('throws MODEL_MISSING for a folder that does not exist', async () => {
    await expectModelMissing(OnnxEmbedder.load({ dir: join(root, 'nope', 'Xenova', 'multilingual-e5-small') }));
  });

  it('throws MODEL_MISSING when the weights are missing or the wrong dtype is asked for', async () => {
    const dir = join(root, 'no-weights');
    writeTinyBertModel(dir);
    rmSync(join(dir, 'onnx'), { recursive: true });
    await expectModelMissing(OnnxEmbedder.load({ dir }));
    await expectModelMissing(OnnxEmbedder.load({ dir: modelDir, dtype: 'q8' }));
  });

  it('throws MODEL_MISSING (not INTERNAL) for damaged weights', async () => {
    const dir = join(root, 'damaged');
    writeTinyBertModel(dir);
    writeFileSync(join(dir, 'onnx', 'model.onnx'), 'not an onnx file');
    await expectModelMissing(OnnxEmbedder.load({ dir }));
  });

  it('never goes to the network: a hub model id that is not on disk fails without a fetch', async () => {
    const fetchSpy = vi.spyOn(globalThis, 'fetch');
    try {
      configureOfflineEnv(join(root, 'cache'));
      await expect(AutoModel.from_pretrained('Xenova/multilingual-e5-small')).rejects.toThrow(
        /allowRemoteModels=false/,
      );
      await expect(AutoTokenizer.from_pretrained('Xenova/multilingual-e5-small')).rejects.toThrow();
      await expectModelMissing(OnnxEmbedder.load({ dir: 'Xenova/multilingual-e5-small' }));
      expect(fetchSpy).not.toHaveBeenCalled();
    } finally {
      fetchSpy.mockRestore();
    }
  });
});
