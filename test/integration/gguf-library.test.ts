/**
 * A library built with a GGUF embedding model (EmbeddingGemma's backend) opens again with no flag:
 * it remembers the model file, finds it in the model folders when that file moved, and says what to
 * install when it is gone. Runs on a generated 2-layer gemma-embedding fixture (scripts/make-gguf-fixture.ts)
 * laid out under the manifest's folder and file name.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { createEngine } from '../../native/engine.js';
import { loadManifest, modelFolderName } from '../../native/embed/models.js';
import { makeEmbeddingFixture } from '../../scripts/make-gguf-fixture.js';
import { cleanupTemp, tempDir, value } from './helpers.js';

afterAll(cleanupTemp);
const saved = { models: process.env.MANUALDESK_MODELS, only: process.env.MANUALDESK_MODELS_ONLY };
afterEach(() => {
  for (const [k, v] of [['MANUALDESK_MODELS', saved.models], ['MANUALDESK_MODELS_ONLY', saved.only]] as const) {
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  }
});

const entry = loadManifest().models.find((m) => m.role === 'embed' && m.backend === 'gguf');

/** The fixture installed as the manifest's gguf embedding model in a models folder of its own. */
async function installFixture(models: string): Promise<string> {
  if (!entry) throw new Error('the manifest has no gguf embedding model');
  const dir = path.join(models, modelFolderName(entry));
  fs.mkdirSync(dir, { recursive: true });
  for (const f of entry.files) if (!f.name.endsWith('.gguf')) fs.writeFileSync(path.join(dir, f.name), 'fixture\n');
  const weights = entry.files.find((f) => f.name.endsWith('.gguf'))?.name as string;
  return makeEmbeddingFixture(path.join(dir, weights));
}

async function buildLibrary(file: string): Promise<string> {
  const docs = tempDir('gguf-docs');
  fs.writeFileSync(path.join(docs, 'pump.md'), '# Coolant pump\n\nBleed the coolant pump before the first start.\n\n## Filter\n\nReplace the bag filter every 500 hours.\n');
  const lib = path.join(tempDir('gguf-lib'), 'lib');
  const engine = await createEngine({ libraryDir: lib, create: true, embedder: { kind: 'gguf', file, threads: 1 } });
  try {
    value(await engine.ingest({ paths: [docs] }));
  } finally {
    await engine.close();
  }
  return lib;
}

async function reopened(lib: string) {
  const engine = await createEngine({ libraryDir: lib, readOnly: true });
  try {
    return { info: await engine.info(), search: await engine.search({ query: 'replace the filter', mode: 'hybrid' }) };
  } finally {
    await engine.close();
  }
}

describe('a library indexed with a GGUF embedding model', () => {
  it('opens again with no flag and searches by meaning, from the file it remembers and, once that moved, from the model folders', async () => {
    process.env.MANUALDESK_MODELS_ONLY = '1';
    const first = tempDir('gguf-models-a');
    process.env.MANUALDESK_MODELS = first;
    const file = await installFixture(first);
    const lib = await buildLibrary(file);

    const again = await reopened(lib);
    expect(value(again.info).embedder?.id).toMatch(/^gguf:embeddinggemma-300m@[0-9a-f]{8}$/);
    expect(value(again.search).mode).toBe('hybrid');

    // The models folder moved: the remembered file is gone, the installed model is found by its name and weights.
    const second = tempDir('gguf-models-b');
    fs.renameSync(path.join(first, modelFolderName(entry!)), path.join(second, modelFolderName(entry!)));
    process.env.MANUALDESK_MODELS = second;
    const moved = await reopened(lib);
    expect(value(moved.search).mode).toBe('hybrid');
    expect(value(moved.search).hits[0]?.section).toContain('Filter');
  }, 180_000);

  it('says which model to install when it is not on this computer', async () => {
    process.env.MANUALDESK_MODELS_ONLY = '1';
    const models = tempDir('gguf-models-gone');
    process.env.MANUALDESK_MODELS = models;
    const lib = await buildLibrary(await installFixture(models));
    fs.rmSync(path.join(models, modelFolderName(entry!)), { recursive: true });
    const gone = await reopened(lib);
    const message = JSON.stringify(gone);
    expect(message).toContain('embeddinggemma-300m');
    expect(message).toMatch(/not installed on this computer/);
  }, 180_000);
});
