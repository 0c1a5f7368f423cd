/**
 * The sample library `npm start` opens: built keyword-only where no search model is installed, and
 * given the model at the next start once one is (as after `npm run models:fetch`).
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { ensureSampleLibrary } from '../../bin/sample-library.js';
import { createEngine } from '../../native/engine.js';
import { writeTinyBertModel } from '../../scripts/make-tiny-onnx.js';
import { cleanupTemp, tempDir, value } from './helpers.js';

afterAll(cleanupTemp);

const SAMPLES = path.resolve(import.meta.dirname, '../../samples/library');
const saved = { models: process.env.MANUALDESK_MODELS, only: process.env.MANUALDESK_MODELS_ONLY };
afterEach(() => {
  for (const [k, v] of [['MANUALDESK_MODELS', saved.models], ['MANUALDESK_MODELS_ONLY', saved.only]] as const) {
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  }
});

describe('the sample library', () => {
  it('takes a search model installed after it was built, at the next start', async () => {
    const models = tempDir('sample-models');
    process.env.MANUALDESK_MODELS = models;
    process.env.MANUALDESK_MODELS_ONLY = '1';
    const dir = path.join(tempDir('sample-lib'), 'lib');
    const open = (opts: { libraryDir: string; create: boolean }) => createEngine({ ...opts, newLibraryEmbedder: 'installed' });

    await ensureSampleLibrary(open, dir, SAMPLES);
    const before = await createEngine({ libraryDir: dir, readOnly: true });
    const keywordOnly = value(await before.info());
    await before.close();
    expect(keywordOnly.embedder).toBeNull();
    expect(keywordOnly.chunks).toBeGreaterThan(0);

    writeTinyBertModel(path.join(models, 'all-MiniLM-L6-v2'), { dims: 32, seed: 5 });
    await ensureSampleLibrary(open, dir, SAMPLES);
    const after = await createEngine({ libraryDir: dir, readOnly: true });
    try {
      const info = value(await after.info());
      expect(info.embedder?.id).toMatch(/all-MiniLM-L6-v2/);
      expect(info).toMatchObject({ files: keywordOnly.files, chunks: keywordOnly.chunks, vectorsPending: 0, modelToAdd: null });
    } finally {
      await after.close();
    }
  });

  it('keeps one copy of each sample when the project moves, and the manuals a person added', async () => {
    process.env.MANUALDESK_MODELS = tempDir('sample-no-models');
    process.env.MANUALDESK_MODELS_ONLY = '1';
    const dir = path.join(tempDir('sample-moved'), 'lib');
    const open = (opts: { libraryDir: string; create: boolean }) => createEngine(opts);
    const oldCheckout = path.join(tempDir('old-checkout'), 'samples', 'library');
    fs.cpSync(SAMPLES, oldCheckout, { recursive: true });
    await ensureSampleLibrary(open, dir, oldCheckout);
    const own = tempDir('own-manual');
    fs.writeFileSync(path.join(own, 'pump-notes.md'), '# Pump notes\n\nBleed the pump before the first start.\n');
    const adding = await createEngine({ libraryDir: dir });
    value(await adding.ingest({ paths: [own] }));
    await adding.close();

    await ensureSampleLibrary(open, dir, SAMPLES);
    const engine = await createEngine({ libraryDir: dir, readOnly: true });
    try {
      const manuals = value(await engine.listManuals());
      const samples = fs.readdirSync(SAMPLES).filter((f) => !f.endsWith('.meta.yaml'));
      expect(manuals.filter((m) => m.folder === SAMPLES)).toHaveLength(samples.length);
      expect(manuals.filter((m) => m.folder === oldCheckout)).toHaveLength(0);
      expect(manuals.map((m) => m.folder)).toContain(own);
      expect(manuals).toHaveLength(samples.length + 1);
    } finally {
      await engine.close();
    }
  });
});
