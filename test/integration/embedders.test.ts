/**
 * Vector search end to end with a generated tiny ONNX model (scripts/make-tiny-onnx.ts): hybrid mode,
 * and the refusal to mix vectors of two models in one library (EMBEDDER_MISMATCH).
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EmbedderSpec } from '../../native/embed/models.js';
import type { IngestProgress, LibraryInfo } from '../../native/contract/api.js';
import { createEngine, type Engine } from '../../native/engine.js';
import { INGEST_BATCH } from '../../native/pipelines/ingest.js';
import { writeTinyBertModel } from '../../scripts/make-tiny-onnx.js';
import { cleanupTemp, copyFixtures, failure, tempDir, value } from './helpers.js';

afterAll(cleanupTemp);

/** Two models in folders of the same name: only the weights (seed) differ, so only the sha in the id. */
function tinyModel(root: string, seed: number): EmbedderSpec {
  const dir = path.join(root, `seed-${seed}`, 'test', 'tiny-bert');
  writeTinyBertModel(dir, { dims: 32, seed });
  return { kind: 'onnx', dir, cacheDir: path.join(root, 'hf-cache') };
}

/** A new library of a copy of the fixture manuals, built with `embedder` (absent: the installed model) and closed; its info as built. */
async function builtLibrary(name: string, embedder?: EmbedderSpec): Promise<{ lib: string; corpus: string; built: LibraryInfo }> {
  const lib = path.join(tempDir(`${name}-lib`), 'lib');
  const corpus = copyFixtures(`${name}-corpus`);
  const build = await createEngine({ libraryDir: lib, create: true, ...(embedder ? { embedder } : { newLibraryEmbedder: 'installed' as const }) });
  try {
    value(await build.ingest({ paths: [corpus] }));
    return { lib, corpus, built: value(await build.info()) };
  } finally {
    await build.close();
  }
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
    expect(info.embedder?.id).toMatch(/^onnx:test\/tiny-bert@[0-9a-f]{8}-[0-9a-f]{8}$/);
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

  it('refuses to search with another model (EMBEDDER_MISMATCH) and says how to switch or build a new library', async () => {
    await engine.close();
    try {
      const other = await createEngine({ libraryDir: lib, embedder: modelB });
      const err = failure(await other.search({ query: 'hydraulic oil' }));
      expect(err.code).toBe('EMBEDDER_MISMATCH');
      expect(err.message).toContain(`switch this library to that model: manualdesk ingest <your manual folders> --library ${lib} --embedder`);
      expect(err.message).toContain('tiny-bert@');
      await other.close();

      // Read-only opens are refused the same way.
      const reader = await createEngine({ libraryDir: lib, embedder: modelB, readOnly: true });
      const ro = failure(await reader.search({ query: 'hydraulic oil' }));
      expect(ro.code).toBe('EMBEDDER_MISMATCH');
      expect(ro.message).toContain('--library <new folder> --embedder');
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

describe('a library switched to another embedding model by an ingest that names it', () => {
  it('keeps searching with its own model until the new one has every passage, resumes after a cancel, then searches with the new one', async () => {
    const root = tempDir('switch-models');
    const modelA = tinyModel(root, 21);
    const modelB = tinyModel(root, 22);
    const { lib, corpus, built: before } = await builtLibrary('switch', modelA);
    const idA = before.embedder?.id;

    // Cancelled halfway through embedding with model B: the library is still model A's.
    const b = await createEngine({ libraryDir: lib, embedder: modelB });
    const ac = new AbortController();
    const group = INGEST_BATCH.embedTexts;
    INGEST_BATCH.embedTexts = 8;
    try {
      // Small groups, each committed: cancelled once a few are.
      const onProgress = (p: IngestProgress) => void (p.phase === 'embed' && p.done >= 20 && ac.abort());
      expect(failure(await b.ingest({ paths: [corpus] }, { signal: ac.signal, onProgress })).code).toBe('CANCELLED');
    } finally {
      INGEST_BATCH.embedTexts = group;
    }
    await b.close();
    const mid = await createEngine({ libraryDir: lib, embedder: modelA });
    const info = value(await mid.info());
    expect(info.embedder?.id).toBe(idA);
    expect(info.switching?.pending).toBeGreaterThan(0);
    expect(info.switching?.pending).toBeLessThan(info.chunks);
    const hybrid = value(await mid.search({ query: 'coolant pump priming', k: 3 }));
    expect(hybrid.mode).toBe('hybrid');
    expect(hybrid.hits[0]?.file).toBe('help/coolant-pump.html');
    await mid.close();

    // The same ingest again finishes the switch; nothing is parsed again.
    const b2 = await createEngine({ libraryDir: lib, embedder: modelB });
    const report = value(await b2.ingest({ paths: [corpus] }));
    expect(report.files).toBe(0);
    const after = value(await b2.info());
    expect(after.embedder?.id).not.toBe(idA);
    expect(after.embedder?.id).toBe(b2.embedderId);
    expect(after).toMatchObject({ files: before.files, chunks: before.chunks, codes: before.codes, vectorsPending: 0, switching: null });
    await b2.close();

    // The library remembers model B's folder: no flag needed; model A is now the other one.
    const plain = await createEngine({ libraryDir: lib });
    expect(value(await plain.search({ query: 'coolant pump priming', k: 3 })).mode).toBe('hybrid');
    expect(value(await plain.search({ query: 'F0042', k: 3 })).hits[0]).toMatchObject({ kind: 'code', file: 'servo/sd40-servo-drive.adoc' });
    await plain.close();
    const old = await createEngine({ libraryDir: lib, embedder: modelA, readOnly: true });
    expect(failure(await old.search({ query: 'coolant pump' })).code).toBe('EMBEDDER_MISMATCH');
    await old.close();
  });
});

describe('a library whose embedding model is not installed on this computer', () => {
  const saved = { models: process.env.MANUALDESK_MODELS, only: process.env.MANUALDESK_MODELS_ONLY };
  afterAll(() => {
    for (const [k, v] of [['MANUALDESK_MODELS', saved.models], ['MANUALDESK_MODELS_ONLY', saved.only]] as const) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  });

  it('is searched by keyword and fault code, refuses new manuals with what to install, and switches to the model installed here', async () => {
    const root = tempDir('missing-model');
    // Model A: a folder of its own, remembered by the library, then gone (a library carried to another PC).
    const modelA = tinyModel(root, 31);
    const { lib, built } = await builtLibrary('missing', modelA);
    fs.rmSync(path.dirname(path.dirname((modelA as { dir: string }).dir)), { recursive: true });
    // This computer's models folder holds another model only (B, a manifest-known folder name).
    const modelsDir = tempDir('missing-home');
    writeTinyBertModel(path.join(modelsDir, 'all-MiniLM-L6-v2'), { dims: 32, seed: 32 });
    process.env.MANUALDESK_MODELS = modelsDir;
    process.env.MANUALDESK_MODELS_ONLY = '1';

    // Opened from another library (the app's "Open library"), as at start.
    const elsewhere = await createEngine({ libraryDir: path.join(tempDir('missing-other'), 'lib'), create: true });
    value(await elsewhere.info());
    expect(value(await elsewhere.openLibrary({ dir: lib, create: false })).info.modelMissing?.id).toBe(built.embedder?.id);
    expect(value(await elsewhere.search({ query: 'F0042', k: 3 })).hits[0]).toMatchObject({ kind: 'code', file: 'servo/sd40-servo-drive.adoc' });
    await elsewhere.close();

    const eng = await createEngine({ libraryDir: lib });
    try {
      const info = value(await eng.info());
      expect(info.modelMissing?.id).toBe(built.embedder?.id);
      expect(info.modelMissing?.message).toMatch(/^This library was indexed with the model test\/tiny-bert, which is not installed on this computer\. Import a model pack/);
      expect(info.modelToAdd).toBe('Xenova/all-MiniLM-L6-v2');
      // Nothing found before is lost: fault codes and keyword search as without a model.
      const code = value(await eng.search({ query: 'F0042', k: 3 }));
      expect(code.mode).toBe('keyword');
      expect(code.hits[0]).toMatchObject({ kind: 'code', file: 'servo/sd40-servo-drive.adoc' });
      expect(value(await eng.search({ query: 'coolant pump priming', k: 3 })).hits[0]?.file).toBe('help/coolant-pump.html');
      expect(value(await eng.ask({ question: 'what does F0042 mean', prefer: 'extractive' })).refused).toBe(false);
      // New manuals would get no vectors: refused with what to install, the library unchanged.
      const extra = tempDir('missing-extra');
      fs.writeFileSync(path.join(extra, 'pump.md'), '# Pump\n\nPrime the pump before the first start.\n');
      expect(failure(await eng.ingest({ paths: [extra] })).code).toBe('MODEL_MISSING');
      expect(value(await eng.info())).toMatchObject({ files: built.files, chunks: built.chunks });

      // "Switch to B": every passage re-embedded with B from its stored text, nothing parsed again.
      const report = value(await eng.ingest({ paths: [], completeVectors: true }));
      expect(report).toMatchObject({ files: 0, embedded: built.chunks });
      const after = value(await eng.info());
      expect(after).toMatchObject({ files: built.files, chunks: built.chunks, codes: built.codes, vectorsPending: 0, modelMissing: null, modelToAdd: null });
      expect(after.embedder?.id).not.toBe(built.embedder?.id);
      expect(after.embedder?.id).toBe(eng.embedderId);
      expect(value(await eng.search({ query: 'coolant pump priming', k: 3 })).mode).toBe('hybrid');
      value(await eng.ingest({ paths: [extra] }));
    } finally {
      await eng.close();
    }
    // A later start finds B by the folder the library now remembers.
    const again = await createEngine({ libraryDir: lib });
    expect(value(await again.search({ query: 'coolant pump priming', k: 3 })).mode).toBe('hybrid');
    await again.close();
  });

  it('takes new manuals again once its own model is back, without a restart', async () => {
    const root = tempDir('model-back');
    const modelA = tinyModel(root, 51);
    const { lib } = await builtLibrary('model-back', modelA);
    const modelRoot = path.dirname(path.dirname((modelA as { dir: string }).dir));
    fs.rmSync(modelRoot, { recursive: true });
    process.env.MANUALDESK_MODELS = tempDir('model-back-home');
    process.env.MANUALDESK_MODELS_ONLY = '1';
    const eng = await createEngine({ libraryDir: lib });
    try {
      expect(value(await eng.info()).modelMissing).not.toBeNull();
      const extra = tempDir('model-back-extra');
      fs.writeFileSync(path.join(extra, 'pump.md'), '# Pump\n\nPrime the pump before the first start.\n');
      expect(failure(await eng.ingest({ paths: [extra] })).code).toBe('MODEL_MISSING');
      // The same model files copied back where the library remembers them.
      tinyModel(root, 51);
      expect(value(await eng.ingest({ paths: [extra] })).files).toBe(1);
      expect(value(await eng.info())).toMatchObject({ modelMissing: null, vectorsPending: 0 });
      expect(value(await eng.search({ query: 'prime the pump before the first start', k: 3 })).mode).toBe('hybrid');
    } finally {
      await eng.close();
    }
  });

  it('treats a model installed under its name with other weights as missing: keyword search, then a switch on request', async () => {
    const modelsDir = tempDir('other-weights-home');
    const folder = path.join(modelsDir, 'all-MiniLM-L6-v2');
    writeTinyBertModel(folder, { dims: 32, seed: 41 });
    process.env.MANUALDESK_MODELS = modelsDir;
    process.env.MANUALDESK_MODELS_ONLY = '1';
    const { lib, built } = await builtLibrary('other-weights');
    // The same model name, rebuilt with other weights (another quantisation, a newer pack).
    fs.rmSync(folder, { recursive: true });
    writeTinyBertModel(folder, { dims: 32, seed: 42 });

    const eng = await createEngine({ libraryDir: lib });
    try {
      const info = value(await eng.info());
      expect(info.modelMissing?.id).toBe(built.embedder?.id);
      expect(info.modelMissing?.message).toMatch(/the model installed under that name on this computer has other weights/);
      expect(info.modelToAdd).toBe('Xenova/all-MiniLM-L6-v2');
      const res = value(await eng.search({ query: 'coolant pump priming', k: 3 }));
      expect(res).toMatchObject({ mode: 'keyword' });
      expect(res.hits[0]?.file).toBe('help/coolant-pump.html');
      value(await eng.ingest({ paths: [], completeVectors: true }));
      const after = value(await eng.info());
      expect(after).toMatchObject({ modelMissing: null, chunks: built.chunks });
      expect(after.embedder?.id).not.toBe(built.embedder?.id);
      expect(value(await eng.search({ query: 'coolant pump priming', k: 3 })).mode).toBe('hybrid');
    } finally {
      await eng.close();
    }
  });
});
