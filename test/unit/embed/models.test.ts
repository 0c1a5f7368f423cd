import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEmbedder, findModel, loadManifest, type ModelManifest } from '../../../native/embed/models.js';
import { writeTinyBertModel } from '../../../scripts/make-tiny-onnx.js';

let root: string;
beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'md-embed-models-'));
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('models manifest', () => {
  it('lists the known embedding models with dims, licence and prefixes', () => {
    const m = loadManifest();
    const byId = new Map(m.models.map((e) => [e.id, e]));
    const e5 = byId.get('Xenova/multilingual-e5-small');
    expect(e5).toMatchObject({ role: 'embed', dims: 384, license: 'MIT', queryPrefix: 'query: ', passagePrefix: 'passage: ' });
    expect(e5?.languages).toContain('zh');
    expect(byId.get('Xenova/bge-m3')).toMatchObject({ dims: 1024, pooling: 'cls', license: 'MIT' });
    expect(byId.get('Xenova/all-MiniLM-L6-v2')?.languages).toEqual(['en']);
    expect(byId.get('use-lite-en')).toMatchObject({ dims: 512, backend: 'use-lite', bundled: true });
    // No invented checksums: every hash is either null or a real sha256 digest.
    for (const e of m.models) for (const f of e.files) expect(f.sha256 === null || /^[0-9a-f]{64}$/.test(f.sha256)).toBe(true);
  });
});

describe('findModel', () => {
  const manifest = (): ModelManifest => loadManifest();

  it('returns the first search dir holding the model files (user folder before app resources)', () => {
    const user = join(root, 'user-models');
    const app = join(root, 'app-models');
    const inApp = join(app, 'Xenova', 'all-MiniLM-L6-v2');
    writeTinyBertModel(inApp);
    expect(findModel('Xenova/all-MiniLM-L6-v2', [user, app], manifest())).toBe(inApp);
    const inUser = join(user, 'all-MiniLM-L6-v2'); // flat layout is accepted too
    writeTinyBertModel(inUser);
    expect(findModel('Xenova/all-MiniLM-L6-v2', [user, app], manifest())).toBe(inUser);
  });

  it('ignores incomplete folders, unknown ids and bundled models', () => {
    const dir = join(root, 'partial', 'Xenova', 'multilingual-e5-small');
    mkdirSync(dir, { recursive: true });
    expect(findModel('Xenova/multilingual-e5-small', [join(root, 'partial')], manifest())).toBeUndefined();
    expect(findModel('nobody/unknown', [root], manifest())).toBeUndefined();
    expect(findModel('use-lite-en', [root], manifest())).toBeUndefined();
  });
});

describe('createEmbedder', () => {
  it('returns null for none', async () => {
    expect(await createEmbedder({ kind: 'none' })).toBeNull();
  });

  it('applies the manifest entry (id, e5 prefixes) to a model found in a folder', async () => {
    const dir = join(root, 'e5', 'Xenova', 'multilingual-e5-small');
    writeTinyBertModel(dir, { dims: 16 });
    const found = findModel('Xenova/multilingual-e5-small', [join(root, 'e5')]);
    expect(found).toBe(dir);
    const e = await createEmbedder({ kind: 'onnx', dir: found!, cacheDir: join(root, 'cache') });
    const plain = await createEmbedder({ kind: 'onnx', dir: found!, modelId: 'custom/plain', cacheDir: join(root, 'cache') });
    try {
      expect(e?.id).toMatch(/^onnx:Xenova\/multilingual-e5-small@[0-9a-f]{8}$/);
      expect(e?.dims).toBe(16);
      expect(plain?.id).toMatch(/^onnx:custom\/plain@/);
      const q = await e!.embedQuery('pump');
      const [viaPrefix] = await plain!.embedDocuments(['query: pump']);
      expect(Array.from(q)).toEqual(Array.from(viaPrefix!));
    } finally {
      await e?.dispose();
      await plain?.dispose();
    }
  });

  it('reports MODEL_MISSING for an onnx spec whose folder is empty', async () => {
    const empty = join(root, 'empty-model');
    mkdirSync(empty);
    await expect(createEmbedder({ kind: 'onnx', dir: empty })).rejects.toMatchObject({ code: 'MODEL_MISSING' });
  });
});
