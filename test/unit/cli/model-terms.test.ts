/**
 * A model under terms (models/manifest.json `terms`: a licence that must travel with the weights) is
 * the stronger default where installed, and is named with its terms: `installedEmbedder` takes the
 * first installed embedding model of the manifest (listed strongest first), a folder of such a model
 * counts as installed only with its terms file, and `info` names the library's model, its terms and
 * where to read them. Generic: the entries are found by their `terms` and `backend`, never by name.
 * The GGUF is the random-weight fixture (scripts/make-gguf-fixture.ts) under the entry's file name.
 */
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { runCliCaptured as cli } from './run-cli.js';
import { embedderModelOf, installedEmbedder } from '../../../native/model-discovery.js';
import { loadManifest, modelFolderName, type ModelEntry } from '../../../native/embed/models.js';
import { writeTinyBertModel } from '../../../scripts/make-tiny-onnx.js';
import { makeEmbeddingFixture } from '../../../scripts/make-gguf-fixture.js';

const manifest = loadManifest();
const embedders = manifest.models.filter((m) => m.role === 'embed' && !m.bundled);
const withTerms = embedders.find((m) => m.terms && m.backend === 'gguf') as ModelEntry & { terms: NonNullable<ModelEntry['terms']> };
const onnx = embedders.find((m) => m.backend === 'onnx' && !m.terms && m.files.some((f) => f.sha256)) as ModelEntry;
const weightsName = withTerms.files.find((f) => f.name.endsWith('.gguf'))?.name as string;

let tmp: string;
let models: string;
let termsDir: string;
let manuals: string;
const savedEnv = process.env.MANUALDESK_MODELS;

/** The model folder of the entry with terms, with every required file (weights = the fixture GGUF). */
function layTermsModel(dir: string, fixture: string, terms = true): void {
  mkdirSync(dir, { recursive: true });
  for (const f of withTerms.files) {
    if (f.optional) continue;
    if (f.name === weightsName) copyFileSync(fixture, join(dir, f.name));
    else if (f.name !== withTerms.terms.file || terms) writeFileSync(join(dir, f.name), `${f.name} (test copy)\n`);
  }
}

beforeAll(async () => {
  tmp = mkdtempSync(join(tmpdir(), 'md-model-terms-'));
  const fixture = await makeEmbeddingFixture(join(tmp, 'fixture.gguf'));
  models = join(tmp, 'models');
  writeTinyBertModel(join(models, modelFolderName(onnx)), { withQuantized: true });
  termsDir = join(models, modelFolderName(withTerms));
  layTermsModel(termsDir, fixture);
  layTermsModel(join(tmp, 'no-terms', modelFolderName(withTerms)), fixture, false);
  writeTinyBertModel(join(tmp, 'no-terms', modelFolderName(onnx)), { withQuantized: true });
  manuals = join(tmp, 'manuals');
  mkdirSync(manuals);
  writeFileSync(join(manuals, 'pump.md'), '# Pump\n\n## Priming\n\nOpen the bleed valve and run the pump until water flows without air.\n');
}, 120_000);
afterAll(() => rmSync(tmp, { recursive: true, force: true }));
afterEach(() => {
  if (savedEnv === undefined) delete process.env.MANUALDESK_MODELS;
  else process.env.MANUALDESK_MODELS = savedEnv;
});

describe('the manifest', () => {
  it('lists an embedding model with terms, and its terms file is a required file of its folder', () => {
    expect(withTerms).toBeDefined();
    expect(withTerms.files.find((f) => f.name === withTerms.terms.file)?.optional).not.toBe(true);
  });
});

describe('installedEmbedder', () => {
  it('takes the stronger model where both are installed: the one with terms, listed first', () => {
    expect(embedders.indexOf(withTerms)).toBeLessThan(embedders.indexOf(onnx));
    expect(installedEmbedder([models])).toEqual({ kind: 'gguf', file: join(termsDir, weightsName), modelId: withTerms.id });
    // Without its terms file it does not count as installed: the next one.
    expect(installedEmbedder([join(tmp, 'no-terms')])).toMatchObject({ kind: 'onnx', modelId: onnx.id });
  });

  it('takes an installed GGUF embedding model, as its file', () => {
    expect(installedEmbedder([models], { ...manifest, models: [withTerms, onnx] })).toEqual({ kind: 'gguf', file: join(termsDir, weightsName), modelId: withTerms.id });
    expect(installedEmbedder([models], { ...manifest, models: [onnx, withTerms] })).toEqual({ kind: 'onnx', dir: join(models, modelFolderName(onnx)), modelId: onnx.id });
  });

  it('does not count a model under terms as installed without its terms file', () => {
    expect(installedEmbedder([join(tmp, 'no-terms')], { ...manifest, models: [withTerms] })).toBeNull();
  });
});

describe('embedderModelOf', () => {
  it('names a model, its licence and, under terms, the terms and the file beside the weights', () => {
    const id = `gguf:${modelFolderName(withTerms)}@0123abcd`;
    expect(embedderModelOf(id, [models])).toEqual({
      name: withTerms.id,
      license: withTerms.license,
      terms: { name: withTerms.terms.name, url: withTerms.terms.url, file: join(termsDir, withTerms.terms.file) },
    });
    // Not on this computer: the terms' name and address still, no file.
    expect(embedderModelOf(id, [join(tmp, 'none')])?.terms).toEqual({ name: withTerms.terms.name, url: withTerms.terms.url, file: null });
    expect(embedderModelOf(`onnx:${onnx.id}@ddc7b9f6-1a2b3c4d`, [models])).toEqual({ name: onnx.id, license: onnx.license, terms: null });
    expect(embedderModelOf('use-lite:x', [models])).toBeNull();
  });
});

describe('manualdesk info', () => {
  it('names the library model, its terms and where to read them', async () => {
    process.env.MANUALDESK_MODELS = models;
    const lib = join(tmp, 'lib');
    const made = await cli(['ingest', manuals, '--library', lib, '--embedder', `gguf:${join(termsDir, weightsName)}`, '--json']);
    expect(made.code, made.err).toBe(0);
    const json = JSON.parse((await cli(['info', '--library', lib, '--json'])).out) as { embedderModel: unknown };
    expect(json.embedderModel).toEqual({
      name: withTerms.id,
      license: withTerms.license,
      terms: { name: withTerms.terms.name, url: withTerms.terms.url, file: join(termsDir, withTerms.terms.file) },
    });
    const text = (await cli(['info', '--library', lib])).out;
    expect(text).toContain(`Model: ${withTerms.id}, under the ${withTerms.terms.name}`);
    expect(text).toContain(join(termsDir, withTerms.terms.file));
    expect(text).toContain(withTerms.terms.url);
  }, 120_000);

  it('tells a keyword-only library how to take the installed model, whichever backend it has', async () => {
    process.env.MANUALDESK_MODELS = models;
    const lib = join(tmp, 'lib-kw');
    expect((await cli(['ingest', manuals, '--library', lib, '--embedder', 'none', '--json'])).code).toBe(0);
    const text = (await cli(['info', '--library', lib])).out;
    expect(text).toContain(`The embedding model ${withTerms.id} is installed; to add semantic search run: manualdesk ingest <your manual folders> --embedder gguf:${join(termsDir, weightsName)}`);
  }, 60_000);
});
