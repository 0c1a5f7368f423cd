/**
 * Issue 37 items 7 and 8: a damaged, deleted or replaced embedding model is missing for vectors only
 * (keyword search and fault codes keep working, info says why, with no raw parser text), and a model's
 * identity is its content (weights, tokenizer, config, settings), not its folder's name.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LibraryInfo } from '../../native/contract/api.js';
import { createEmbedder, type EmbedderSpec } from '../../native/embed/models.js';
import { createEngine, type Engine } from '../../native/engine.js';
import { writeTinyBertModel } from '../../scripts/make-tiny-onnx.js';
import { cleanupTemp, copyFixtures, failure, tempDir, value } from './helpers.js';

const saved = { models: process.env.MANUALDESK_MODELS, only: process.env.MANUALDESK_MODELS_ONLY };
beforeAll(() => {
  // Only this file's models: none from the checkout or the developer's home.
  process.env.MANUALDESK_MODELS = tempDir('issue37-models-home');
  process.env.MANUALDESK_MODELS_ONLY = '1';
});
afterAll(() => {
  for (const [k, v] of [['MANUALDESK_MODELS', saved.models], ['MANUALDESK_MODELS_ONLY', saved.only]] as const) {
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  }
  cleanupTemp();
});

/** A tiny model in its own folder (remembered by the library built with it). */
function tinyModel(name: string, seed: number, folder = 'tiny-bert'): EmbedderSpec & { kind: 'onnx' } {
  const dir = path.join(tempDir(name), 'test', folder);
  writeTinyBertModel(dir, { dims: 32, seed });
  return { kind: 'onnx', dir };
}

async function builtLibrary(name: string, embedder: EmbedderSpec): Promise<{ lib: string; corpus: string; built: LibraryInfo }> {
  const lib = path.join(tempDir(`${name}-lib`), 'lib');
  const corpus = copyFixtures(`${name}-corpus`);
  const build = await createEngine({ libraryDir: lib, create: true, embedder });
  try {
    value(await build.ingest({ paths: [corpus] }));
    return { lib, corpus, built: value(await build.info()) };
  } finally {
    await build.close();
  }
}

/** Keyword search, fault codes and ask work; info says the model is missing and why. */
async function worksByKeyword(eng: Engine, built: LibraryInfo): Promise<string> {
  const info = value(await eng.info());
  expect(info.modelMissing?.id).toBe(built.embedder?.id);
  expect(info).toMatchObject({ files: built.files, chunks: built.chunks });
  const res = value(await eng.search({ query: 'coolant pump priming', k: 3 }));
  expect(res.mode).toBe('keyword');
  expect(res.hits[0]?.file).toBe('help/coolant-pump.html');
  expect(value(await eng.search({ query: 'F0042', k: 3 })).hits[0]).toMatchObject({ kind: 'code', file: 'servo/sd40-servo-drive.adoc' });
  expect(value(await eng.lookupCode({ text: 'F0042' })).matches.length).toBeGreaterThan(0);
  expect(value(await eng.ask({ question: 'what does F0042 mean', prefer: 'extractive' })).refused).toBe(false);
  return info.modelMissing?.message ?? '';
}

function newManual(name: string): string {
  const extra = tempDir(name);
  fs.writeFileSync(path.join(extra, 'pump.md'), '# Pump\n\nPrime the pump before the first start.\n');
  return extra;
}

describe('a damaged embedding model (issue 37 item 7)', () => {
  it('a truncated tokenizer.json: search, codes, ask and info work by keyword, and the notice names the file and the fix', async () => {
    const model = tinyModel('trunc-model', 71);
    const { lib, built } = await builtLibrary('trunc', model);
    const tok = path.join(model.dir, 'tokenizer.json');
    fs.writeFileSync(tok, fs.readFileSync(tok).subarray(0, 300));
    const eng = await createEngine({ libraryDir: lib });
    try {
      const message = await worksByKeyword(eng, built);
      expect(message).toContain('tokenizer.json');
      expect(message).toContain('npm run models:fetch');
      expect(message).toContain('manualdesk models add');
      expect(failure(await eng.ingest({ paths: [newManual('trunc-extra')] })).code).toBe('MODEL_MISSING');
    } finally {
      await eng.close();
    }
  });

  it('an empty config.json: works by keyword, and the notice is the same on every run (no bytes of memory)', async () => {
    const model = tinyModel('empty-config-model', 72);
    const { lib, built } = await builtLibrary('empty-config', model);
    fs.writeFileSync(path.join(model.dir, 'config.json'), '');
    const messages: string[] = [];
    for (let run = 0; run < 2; run++) {
      const eng = await createEngine({ libraryDir: lib });
      try {
        messages.push(await worksByKeyword(eng, built));
      } finally {
        await eng.close();
      }
    }
    expect(messages[0]).toContain('config.json');
    expect(messages[0]).toContain('npm run models:fetch');
    expect(messages[1]).toBe(messages[0]);
    // Printable text only: no control characters or replacement characters from raw memory.
    expect(messages[0]).toMatch(/^[\x20-\x7e→]+$/);
  });

  it('a model folder deleted while the engine is open: the next search is by keyword and info reports it missing', async () => {
    const model = tinyModel('deleted-model', 73);
    const { lib, built } = await builtLibrary('deleted', model);
    const eng = await createEngine({ libraryDir: lib });
    try {
      expect(value(await eng.search({ query: 'coolant pump priming', k: 3 })).mode).toBe('hybrid');
      // An ingest frees the model's memory when it is done (loaded again by the next call).
      expect(value(await eng.ingest({ paths: [newManual('deleted-extra')] })).files).toBe(1);
      const after = value(await eng.info());
      fs.rmSync(path.dirname(path.dirname(model.dir)), { recursive: true });
      const message = await worksByKeyword(eng, after);
      expect(message).toContain('npm run models:fetch');
      // Still so on the following calls, not only the first.
      expect(value(await eng.search({ query: 'prime the pump before the first start', k: 3 })).mode).toBe('keyword');
    } finally {
      await eng.close();
    }
    expect(built.embedder).not.toBeNull();
  });
});

describe('a model is its content, not its folder (issue 37 item 8)', () => {
  it('an edited tokenizer.json is another model: the library is not searched or extended with it', async () => {
    const model = tinyModel('edited-model', 81);
    const { lib, built } = await builtLibrary('edited', model);
    const tok = path.join(model.dir, 'tokenizer.json');
    const json = JSON.parse(fs.readFileSync(tok, 'utf8')) as { model: { vocab: Record<string, number> } };
    // Two words swap their ids: the same weights, other vectors.
    const vocab = json.model.vocab;
    const [a, b] = ['pump', 'valve'];
    if (vocab[a] === undefined || vocab[b] === undefined) throw new Error('tiny vocabulary changed');
    [vocab[a], vocab[b]] = [vocab[b], vocab[a]];
    fs.writeFileSync(tok, JSON.stringify(json));

    const eng = await createEngine({ libraryDir: lib });
    try {
      const message = await worksByKeyword(eng, built);
      expect(message).toContain('another tokenizer or configuration');
      expect(failure(await eng.ingest({ paths: [newManual('edited-extra')] })).code).toBe('MODEL_MISSING');
      expect(value(await eng.info())).toMatchObject({ chunks: built.chunks, embedder: built.embedder });
    } finally {
      await eng.close();
    }
    // Named explicitly, it is another model's id (a switch, never a mix).
    const explicit = await createEngine({ libraryDir: lib, embedder: model, readOnly: true });
    expect(failure(await explicit.search({ query: 'coolant pump' })).code).toBe('EMBEDDER_MISMATCH');
    await explicit.close();
  });

  it('weights replaced while the engine is open are found before they embed again: no vector is stored under the old id', async () => {
    const model = tinyModel('replaced-model', 82);
    const { lib, built } = await builtLibrary('replaced', model);
    const eng = await createEngine({ libraryDir: lib });
    try {
      expect(value(await eng.search({ query: 'coolant pump priming', k: 3 })).mode).toBe('hybrid');
      // Other weights of the same size, with the old modification time put back.
      const weights = path.join(model.dir, 'onnx', 'model.onnx');
      const st = fs.statSync(weights);
      writeTinyBertModel(model.dir, { dims: 32, seed: 83 });
      fs.utimesSync(weights, st.atime, st.mtime);
      expect(failure(await eng.ingest({ paths: [newManual('replaced-extra')] })).code).toBe('MODEL_MISSING');
      const message = await worksByKeyword(eng, built);
      expect(message).toMatch(/other weights|changed since it was loaded/);
    } finally {
      await eng.close();
    }
  });

  it('the embedder checks its files when it loads them again after release()', async () => {
    const model = tinyModel('reload-model', 84);
    const emb = await createEmbedder(model);
    try {
      await emb?.embedQuery('pump');
      await emb?.release?.();
      writeTinyBertModel(model.dir, { dims: 32, seed: 85 });
      await expect(emb?.embedDocuments(['coolant pump'])).rejects.toMatchObject({ code: 'MODEL_MISSING' });
      // And stays refused (never embeds with the other weights under its id).
      await expect(emb?.embedQuery('other text')).rejects.toMatchObject({ code: 'MODEL_MISSING' });
    } finally {
      await emb?.dispose();
    }
  });

  it('a library recorded with an old id (weights sha only) keeps its id and vectors with the same model: no re-embed', async () => {
    const model = tinyModel('legacy-model', 87);
    const { lib, corpus, built } = await builtLibrary('legacy', model);
    const full = built.embedder?.id ?? '';
    expect(full).toMatch(/^onnx:test\/tiny-bert@[0-9a-f]{8}-[0-9a-f]{8}$/);
    // As written before the content was part of the id.
    const legacy = full.replace(/-[0-9a-f]{8}$/, '');
    for (const name of ['library.json', 'model-folder.json']) {
      const file = path.join(lib, name);
      fs.writeFileSync(file, fs.readFileSync(file, 'utf8').split(full).join(legacy));
    }
    const eng = await createEngine({ libraryDir: lib });
    try {
      expect(value(await eng.info())).toMatchObject({ embedder: { id: legacy, dims: 32 }, modelMissing: null });
      expect(value(await eng.search({ query: 'coolant pump priming', k: 3 })).mode).toBe('hybrid');
      const report = value(await eng.ingest({ paths: [corpus] }));
      expect(report.files).toBe(0);
      expect(report.embedded ?? 0).toBe(0);
      expect(value(await eng.info())).toMatchObject({ embedder: { id: legacy }, switching: null, vectorsPending: 0 });
    } finally {
      await eng.close();
    }
    // Other weights under the same folder are still another model for it.
    writeTinyBertModel(model.dir, { dims: 32, seed: 88 });
    const other = await createEngine({ libraryDir: lib });
    try {
      expect(value(await other.info()).modelMissing?.id).toBe(legacy);
    } finally {
      await other.close();
    }
  });

  it('a byte-identical copy under another folder name is the same model: no re-embed, prefixes kept', async () => {
    const root = tempDir('copy-model');
    const original = path.join(root, 'models', 'multilingual-e5-small');
    writeTinyBertModel(original, { dims: 32, seed: 86 });
    // The model states its e5 prefixes itself (config.json), so any folder name keeps them.
    const cfgFile = path.join(original, 'config.json');
    const cfg = JSON.parse(fs.readFileSync(cfgFile, 'utf8')) as Record<string, unknown>;
    fs.writeFileSync(cfgFile, JSON.stringify({ ...cfg, manualdesk: { queryPrefix: 'query: ', passagePrefix: 'passage: ', pooling: 'mean', maxTokens: 128 } }, null, 2));
    const { lib, corpus, built } = await builtLibrary('copy', { kind: 'onnx', dir: original });

    const copy = path.join(root, 'elsewhere', 'e5-site-copy');
    fs.cpSync(original, copy, { recursive: true });
    // The same vectors from the copy, prefixes included.
    const a = await createEmbedder({ kind: 'onnx', dir: original });
    const b = await createEmbedder({ kind: 'onnx', dir: copy });
    try {
      const [qa, qb] = [await a?.embedQuery('coolant pump'), await b?.embedQuery('coolant pump')];
      expect(Array.from(qb ?? [])).toEqual(Array.from(qa ?? []));
      const [da] = (await a?.embedDocuments(['coolant pump'])) ?? [];
      expect(Array.from(da ?? [])).not.toEqual(Array.from(qa ?? []));
    } finally {
      await a?.dispose();
      await b?.dispose();
    }

    fs.rmSync(original, { recursive: true });
    const eng = await createEngine({ libraryDir: lib, embedder: { kind: 'onnx', dir: copy } });
    try {
      const report = value(await eng.ingest({ paths: [corpus] }));
      expect(report.files).toBe(0);
      expect(report.embedded ?? 0).toBe(0);
      const info = value(await eng.info());
      expect(info).toMatchObject({ embedder: built.embedder, switching: null, modelMissing: null, vectorsPending: 0 });
      expect(value(await eng.search({ query: 'coolant pump priming', k: 3 })).mode).toBe('hybrid');
    } finally {
      await eng.close();
    }
  });
});
