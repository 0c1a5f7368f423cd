/**
 * Vector search end to end with a generated tiny ONNX model (scripts/make-tiny-onnx.ts): hybrid mode,
 * and the refusal to mix vectors of two models in one library (EMBEDDER_MISMATCH).
 */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EmbedderSpec } from '../../native/embed/models.js';
import { createEngine, type Engine } from '../../native/engine.js';
import { writeTinyBertModel } from '../../scripts/make-tiny-onnx.js';
import { cleanupTemp, copyFixtures, failure, tempDir, value } from './helpers.js';

afterAll(cleanupTemp);

/** Two models in folders of the same name: only the weights (seed) differ, so only the sha in the id. */
function tinyModel(root: string, seed: number): EmbedderSpec {
  const dir = path.join(root, `seed-${seed}`, 'test', 'tiny-bert');
  writeTinyBertModel(dir, { dims: 32, seed });
  return { kind: 'onnx', dir, cacheDir: path.join(root, 'hf-cache') };
}

describe('a library indexed with a tiny ONNX embedder', () => {
  let lib: string;
  let corpus: string;
  let modelA: EmbedderSpec;
  let modelB: EmbedderSpec;
  let engine: Engine;

  beforeAll(async () => {
    const root = tempDir('models');
    modelA = tinyModel(root, 11);
    modelB = tinyModel(root, 12);
    lib = path.join(tempDir('vec-lib'), 'lib');
    corpus = copyFixtures('vec-corpus');
    engine = await createEngine({ libraryDir: lib, embedder: modelA, create: true });
    value(await engine.ingest({ paths: [corpus] }));
  });
  afterAll(async () => {
    await engine?.close();
  });

  it('records the model id and answers in hybrid mode, codes still first', async () => {
    const info = value(await engine.info());
    expect(info.embedder?.id).toMatch(/^onnx:test\/tiny-bert@[0-9a-f]{8}$/);
    expect(info.embedder?.dims).toBe(32);
    expect(engine.embedderId).toBe(info.embedder?.id);

    const res = value(await engine.search({ query: 'ram creeps down when the pump is stopped', k: 5 }));
    expect(res.mode).toBe('hybrid');
    expect(res.hits.length).toBeGreaterThan(0);
    // Random weights: the vectors mean nothing, but fusion must keep the clear keyword answer near the top.
    expect(res.hits.slice(0, 3).map((h) => h.file)).toContain('press-brake/hpb-200-rev-b.md');
    expect(res.hits.every((h) => h.file !== 'press-brake/hpb-200-rev-a.md')).toBe(true);

    const code = value(await engine.search({ query: 'F0042', k: 5 }));
    expect(code.hits[0]).toMatchObject({ kind: 'code', file: 'servo/sd40-servo-drive.adoc' });
  });

  it('answers in vector-only mode with k hits and keyword-only mode on request', async () => {
    const vec = value(await engine.search({ query: 'hydraulic oil', k: 4, mode: 'vector' }));
    expect(vec.mode).toBe('vector');
    expect(vec.hits).toHaveLength(4);
    const kw = value(await engine.search({ query: 'hydraulic oil', k: 4, mode: 'keyword' }));
    expect(kw.mode).toBe('keyword');
    expect(kw.hits[0]?.text.toLowerCase()).toContain('hydraulic oil');
  });

  it('refuses another model on the same library with EMBEDDER_MISMATCH and says how to build a new library', async () => {
    await engine.close();
    try {
      const other = await createEngine({ libraryDir: lib, embedder: modelB });
      const err = failure(await other.search({ query: 'hydraulic oil' }));
      expect(err.code).toBe('EMBEDDER_MISMATCH');
      expect(err.message).toContain('--library <new folder> --embedder');
      expect(err.message).toContain('tiny-bert@');
      const ing = failure(await other.ingest({ paths: [corpus] }));
      expect(ing.code).toBe('EMBEDDER_MISMATCH');
      await other.close();

      // Read-only opens are refused the same way.
      const reader = await createEngine({ libraryDir: lib, embedder: modelB, readOnly: true });
      expect(failure(await reader.search({ query: 'hydraulic oil' })).code).toBe('EMBEDDER_MISMATCH');
      await reader.close();

      // The library is untouched: the right model still opens it and nothing is re-indexed.
      const same = await createEngine({ libraryDir: lib, embedder: modelA });
      const r = value(await same.ingest({ paths: [corpus] }));
      expect(r.files).toBe(0);
      expect(value(await same.search({ query: 'hydraulic oil', k: 3 })).mode).toBe('hybrid');
      await same.close();
    } finally {
      engine = await createEngine({ libraryDir: lib, embedder: modelA });
    }
  });

  it('refuses to add keyword-only content to a library that stores vectors', async () => {
    await engine.close();
    const none = await createEngine({ libraryDir: lib, embedder: { kind: 'none' } });
    try {
      // Keyword search of a vector library is fine without the model…
      const kw = value(await none.search({ query: 'coolant pump priming', k: 3 }));
      expect(kw.mode).toBe('keyword');
      expect(kw.hits[0]?.file).toBe('help/coolant-pump.html');
      // …but adding files without vectors must not succeed silently.
      const err = failure(await none.ingest({ paths: [corpus], force: true }));
      expect(err.code).toBe('EMBEDDER_MISMATCH');
      expect(err.message).toContain('only be added with that model');
    } finally {
      await none.close();
      engine = await createEngine({ libraryDir: lib, embedder: modelA });
    }
    // Nothing was lost by the refused run.
    expect(value(await engine.info()).files).toBe(11);
  });
});
