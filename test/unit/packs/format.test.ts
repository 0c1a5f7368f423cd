import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { canonicalJson, checkManifest, collisionKey, compareVersions, unsafePathReason } from '../../../native/packs/format.js';
import { partName, readParts, resolveParts, SplitWriter } from '../../../native/packs/parts.js';

const sha = 'a'.repeat(64);
function manifest(over: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    format: 'manualdesk-pack',
    formatVersion: 1,
    id: 'demo',
    name: 'Demo',
    version: '1.0',
    publisher: 'P',
    created: '2024-01-01T00:00:00.000Z',
    kind: 'manuals',
    library: { formatVersion: 1, chunkerVersion: 1, analyzerVersion: 2, embedder: null },
    manuals: [{ title: 'T', revision: null, language: 'en', equipment: [], files: [{ path: 'documents/a.md', size: 3, sha256: sha }] }],
    models: [],
    files: [
      { path: 'documents/a.md', size: 3, sha256: sha },
      { path: 'library/library.json', size: 10, sha256: sha },
    ],
    ...over,
  };
}

describe('canonicalJson', () => {
  it('sorts keys at every level, keeps array order, no whitespace', () => {
    expect(canonicalJson({ b: 1, a: { d: [3, { z: 1, y: 2 }], c: 'x' } })).toBe('{"a":{"c":"x","d":[3,{"y":2,"z":1}]},"b":1}');
    expect(canonicalJson(JSON.parse(' { "x" : [ 1 , 2 ] } '))).toBe('{"x":[1,2]}');
  });
});

describe('unsafePathReason', () => {
  it.each(['../x', 'a/../b', '/abs', 'a\\b', 'C:/x', 'c:x', 'a//b', './a', 'a/./b', 'a:b', 'con.', 'a\u0000b', ''])('refuses %j', (p) => {
    expect(unsafePathReason(p)).not.toBeNull();
  });
  it.each(['documents/a.md', 'library/lance/chunks.lance/data/x.lance', 'documents/中文/手册.pdf'])('accepts %j', (p) => {
    expect(unsafePathReason(p)).toBeNull();
  });
  it('collides names that differ only in case', () => {
    expect(collisionKey('documents/A.md')).toBe(collisionKey('documents/a.md'));
  });
});

describe('checkManifest: model packs', () => {
  const gguf = { path: 'models/tiny.gguf', size: 5, sha256: sha };
  const cfg = { path: 'models/tiny-embed/config.json', size: 2, sha256: sha };
  const models = (mods: unknown[], files: unknown[]) => manifest({ kind: 'models', library: null, manuals: [], models: mods, files });
  it('accepts a folder model and a single-file model lying straight under models/, with provenance', () => {
    const m = checkManifest(
      models(
        [
          { id: 'tiny.gguf', role: 'llm', files: [gguf], catalog: { id: 'Org/Tiny (Q4)', license: 'MIT', source: 'a wheel', upstream: 'Org/Tiny', upstreamLicense: 'MIT' } },
          { id: 'tiny-embed', role: 'embed', files: [cfg] },
        ],
        [gguf, cfg],
      ),
    );
    expect(m.models.map((x) => x.id)).toEqual(['tiny.gguf', 'tiny-embed']);
  });
  it.each([
    ['a single file that is not the model id itself', [{ id: 'other.gguf', role: 'llm', files: [gguf] }], [gguf]],
    ['two files for a single-file id', [{ id: 'tiny.gguf', role: 'llm', files: [gguf, cfg] }], [gguf, cfg]],
    ['a folder model listing a file outside its folder', [{ id: 'tiny-embed', role: 'embed', files: [cfg, gguf] }], [gguf, cfg]],
    ['an unknown field in the provenance', [{ id: 'tiny.gguf', role: 'llm', files: [gguf], catalog: { id: 'x', license: 'MIT', source: 's', extra: 1 } }], [gguf]],
  ])('refuses %s', (_what, mods, files) => {
    expect(() => checkManifest(models(mods, files))).toThrow(expect.objectContaining({ code: 'PACK_INVALID' }));
  });
});

describe('checkManifest', () => {
  it('accepts a well-formed manifest', () => {
    expect(checkManifest(manifest()).id).toBe('demo');
  });
  it('refuses a future format with PACK_FORMAT', () => {
    expect(() => checkManifest(manifest({ formatVersion: 9 }))).toThrow(expect.objectContaining({ code: 'PACK_FORMAT' }));
  });
  it.each([
    ['a duplicate file', { files: [{ path: 'documents/a.md', size: 3, sha256: sha }, { path: 'documents/A.md', size: 3, sha256: sha }, { path: 'library/library.json', size: 1, sha256: sha }] }],
    ['a file outside documents/ and library/', { files: [{ path: 'other/x', size: 1, sha256: sha }] }],
    ['a manual file missing from the list', { files: [{ path: 'library/library.json', size: 1, sha256: sha }] }],
    ['the reserved id local', { id: 'local' }],
    ['an unsafe version', { version: '../1' }],
    ['a file inside another file', { files: [{ path: 'documents/a.md', size: 3, sha256: sha }, { path: 'documents/a.md/b', size: 1, sha256: sha }, { path: 'library/library.json', size: 1, sha256: sha }] }],
    ['no library', { library: null }],
    ['an unknown field', { extra: 1 }],
  ])('refuses %s with PACK_INVALID', (_what, over) => {
    expect(() => checkManifest(manifest(over))).toThrow(expect.objectContaining({ code: 'PACK_INVALID' }));
  });
  it('orders versions naturally', () => {
    expect(compareVersions('1.10', '1.9')).toBeGreaterThan(0);
    expect(compareVersions('2024.1', '2024.1')).toBe(0);
  });
});

describe('split parts', () => {
  it('splits a stream into parts of at most the split size and reads them back in order', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'md-parts-'));
    try {
      const base = path.join(dir, 'x.mdpack');
      const data = Buffer.from(Array.from({ length: 5000 }, (_, i) => i % 251));
      const w = new SplitWriter(base, 1024);
      await new Promise<void>((resolve, reject) => {
        w.on('finish', resolve);
        w.on('error', reject);
        w.write(data.subarray(0, 3000));
        w.end(data.subarray(3000));
      });
      expect(w.parts).toEqual([0, 1, 2, 3, 4].map((i) => partName(base, i)));
      expect(w.parts.map((p) => fs.statSync(p).size)).toEqual([1024, 1024, 1024, 1024, 904]);
      expect(resolveParts(base).parts).toEqual(w.parts);
      expect(resolveParts(partName(base, 0)).bytes).toBe(5000);
      const chunks: Buffer[] = [];
      for await (const c of readParts(resolveParts(base).parts, 700)) chunks.push(c as Buffer);
      expect(Buffer.concat(chunks).equals(data)).toBe(true);
      expect(() => resolveParts(path.join(dir, 'none.mdpack'))).toThrow(expect.objectContaining({ code: 'NOT_FOUND' }));
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
