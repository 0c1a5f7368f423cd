/**
 * A model under terms (models/manifest.json `terms`) is never packed without its terms file: a model
 * pack of its folder carries the file beside the weights (where the real model is installed), and
 * refuses, saying what to do, when the file is missing or the weights lie loose without their folder.
 * Found by the manifest's `terms`, never by a model's name.
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadManifest, modelFolderName, type ModelEntry } from '../../../native/embed/models.js';
import { buildPack } from '../../../native/packs/build.js';
import { checkAgainstCatalog, looseWeightsUnderTerms } from '../../../native/packs/catalog.js';
import type { EngineError } from '../../../native/contract/errors.js';

const manifest = loadManifest();
const entry = manifest.models.find((m) => m.terms && !m.bundled) as ModelEntry & { terms: NonNullable<ModelEntry['terms']> };
const weights = entry.files.find((f) => f.name.endsWith('.gguf') || f.name.endsWith('.onnx'))?.name as string;
let tmp: string;

const refused = (p: Promise<unknown>) => p.then(() => { throw new Error('built'); }, (e: unknown) => e as EngineError);

beforeAll(() => {
  tmp = mkdtempSync(join(tmpdir(), 'md-terms-pack-'));
});
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe('checkAgainstCatalog', () => {
  const files = entry.files.map((f) => ({ name: f.name, sha256: f.sha256 ?? 'a'.repeat(64), size: f.size ?? 1 }));
  it('accepts the model with its terms file; without it says which terms, where they are, and what to do', () => {
    expect(() => checkAgainstCatalog(entry, files, 'M', 'N.', 'INVALID_INPUT')).not.toThrow();
    const check = () => checkAgainstCatalog(entry, files.filter((f) => f.name !== entry.terms.file), 'The model X', 'Nothing was written.', 'PACK_CHECKSUM');
    expect(check).toThrow(expect.objectContaining({ code: 'PACK_CHECKSUM' }));
    expect(check).toThrow(`The model X has no ${entry.terms.file}: ${entry.id} is under the ${entry.terms.name} (${entry.terms.url})`);
    expect(check).toThrow(/Put .* back beside the weights \(npm run models:fetch lays it out with the model\), or leave the model out\. Nothing was written\.$/);
  });
});

describe('pack build --models', () => {
  it('refuses a model folder under terms without its terms file, before writing anything', async () => {
    const src = join(tmp, 'no-terms');
    const dir = join(src, modelFolderName(entry));
    mkdirSync(dir, { recursive: true });
    for (const f of entry.files) if (!f.optional && f.name !== entry.terms.file) writeFileSync(join(dir, f.name), 'x');
    const out = join(tmp, 'a.mdpack');
    const err = await refused(buildPack({ id: 'x', version: '1', kind: 'models', source: src, out }));
    expect(err).toMatchObject({ code: 'INVALID_INPUT' });
    expect(err.message).toContain(`has no ${entry.terms.file}: ${entry.id} is under the ${entry.terms.name}`);
    expect(existsSync(out)).toBe(false);
  });

  it('refuses its weights lying loose, without the folder that holds the terms', async () => {
    expect(looseWeightsUnderTerms(weights, manifest)?.id).toBe(entry.id);
    const src = join(tmp, 'loose');
    mkdirSync(src, { recursive: true });
    writeFileSync(join(src, weights), 'x');
    const out = join(tmp, 'b.mdpack');
    const err = await refused(buildPack({ id: 'x', version: '1', kind: 'models', source: src, out }));
    expect(err).toMatchObject({ code: 'INVALID_INPUT' });
    expect(err.message).toContain(`it is the weights of ${entry.id}, under the ${entry.terms.name}`);
    expect(err.message).toContain(`Put it in its folder ${modelFolderName(entry)}/ beside ${entry.terms.file}`);
    expect(existsSync(out)).toBe(false);
  });

  const installed = join('models', 'local', modelFolderName(entry));
  it.skipIf(!existsSync(join(installed, entry.terms.file)))('carries the terms file beside the weights (the installed model)', async () => {
    // Hard links of the installed files (the pack follows no folder link); same disk as the temp folder here.
    const dir = join(tmp, 'real', modelFolderName(entry));
    mkdirSync(dir, { recursive: true });
    const { linkSync, readdirSync, realpathSync } = await import('node:fs');
    for (const name of readdirSync(installed)) linkSync(join(realpathSync(installed), name), join(dir, name));
    const src = join(tmp, 'real');
    const res = await buildPack({ id: 'x', version: '1', kind: 'models', source: src, out: join(tmp, 'c.mdpack') });
    const model = res.manifest.models.find((m) => m.catalog?.id === entry.id);
    expect(model?.files.map((f) => f.path)).toEqual(expect.arrayContaining([`models/${modelFolderName(entry)}/${weights}`, `models/${modelFolderName(entry)}/${entry.terms.file}`]));
  }, 120_000);
});
