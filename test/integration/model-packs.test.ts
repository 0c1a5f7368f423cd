/**
 * Model packs of a models folder laid out like `npm run models:fetch` lays out models/local: a
 * transformers.js model folder and a loose GGUF at the top. Build → verify → import into another
 * library → the models are found (embedder for new ingest and search, GGUF for answers) with no
 * --embedder and nothing but the pack; known models are checked against models/manifest.json; a
 * damaged byte is refused with the technician's message and changes nothing.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createEngine, type Engine } from '../../native/engine.js';
import { findLlm } from '../../native/llm/models.js';
import { installedEmbedder, modelSearchDirs } from '../../native/model-discovery.js';
import { buildPack } from '../../native/packs/build.js';
import { verifyPack } from '../../native/packs/install.js';
import { generateKeys, trustKey } from '../../native/packs/keys.js';
import { makeGgufFixture } from '../../scripts/make-gguf-fixture.js';
import { writeTinyBertModel } from '../../scripts/make-tiny-onnx.js';
import { failure, value } from './helpers.js';
import { cleanupTemp, newKey, remake, sha256, tempDir, treeHash, writeManuals } from './packs-helpers.js';

/** Manifest models without checksums (so tiny stand-ins pass), in the layout models:fetch writes. */
const EMBED_ID = 'Xenova/all-MiniLM-L6-v2';
const EMBED_FOLDER = 'all-MiniLM-L6-v2';
const LLM_ID = 'Qwen/Qwen2.5-0.5B-Instruct-GGUF';
const GGUF = 'qwen2.5-0.5b-instruct-q4_k_m.gguf';

let root: string;
let keys: { privateKey: string; publicKey: string; fingerprint: string };
let source: string;
let pack: string;
const open: Engine[] = [];
const saved = { models: process.env.MANUALDESK_MODELS, llm: process.env.MANUALDESK_LLM };
/**
 * Models installed outside the test's own folder (this checkout's models/local, the user's
 * ~/.manualdesk/models) come first in manifest order for a new library and for answers; the tests
 * that need "no other model" skip where a developer has real ones.
 */
const defaultDirs = modelSearchDirs({ HOME: process.env.HOME, USERPROFILE: process.env.USERPROFILE });
const otherEmbedder = installedEmbedder(defaultDirs) !== null;
const otherLlm = findLlm(defaultDirs, undefined, {}) !== null;

/** An engine over `libraryDir` whose user models folder is `modelsDir` (no --embedder, as the CLI opens it). */
async function engineAt(libraryDir: string, modelsDir: string): Promise<Engine> {
  process.env.MANUALDESK_MODELS = modelsDir;
  const e = await createEngine({ libraryDir, create: true, newLibraryEmbedder: 'installed' });
  open.push(e);
  return e;
}

/** An empty keyword-only library (as `--embedder none`, or a new library where no model was installed yet). */
async function emptyKeywordLibrary(libraryDir: string): Promise<void> {
  const e = await createEngine({ libraryDir, create: true, embedder: { kind: 'none' } });
  value(await e.info());
  await e.close();
}

beforeAll(async () => {
  delete process.env.MANUALDESK_LLM;
  root = tempDir('mpk');
  keys = await generateKeys(path.join(root, 'keys'));
  source = path.join(root, 'local');
  writeTinyBertModel(path.join(source, EMBED_FOLDER), { dims: 32, seed: 11 });
  await makeGgufFixture({ outFile: path.join(source, GGUF) });
  // What a models folder may also hold: an interrupted import's staging folder (hidden: left out).
  fs.mkdirSync(path.join(source, '.staging', 'x'), { recursive: true });
  fs.writeFileSync(path.join(source, '.staging', 'x', 'junk.bin'), 'partial');
  pack = path.join(root, 'site-models.mdpack');
  await buildPack({ id: 'site-models', version: '2026.1', kind: 'models', source, out: pack, keyFile: keys.privateKey });
}, 120_000);

afterEach(async () => {
  for (const e of open.splice(0)) await e.close();
});

afterAll(() => {
  for (const [k, v] of [['MANUALDESK_MODELS', saved.models], ['MANUALDESK_LLM', saved.llm]] as const) {
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  }
  cleanupTemp();
});

describe('a model pack of a models folder with a loose GGUF and a transformers.js folder', () => {
  it('records each model with its manifest id, role and provenance; the loose GGUF is a model of its own', async () => {
    const report = await verifyPack(pack, null);
    expect(report.ok).toBe(true);
    expect(report.checksums).toEqual({ checked: 5, failed: [] });
    const { readPack } = await import('../../native/packs/reader.js');
    const m = (await readPack(pack, { dest: null })).manifest;
    expect(m.files.map((f) => f.path)).toEqual([
      `models/${EMBED_FOLDER}/config.json`,
      `models/${EMBED_FOLDER}/onnx/model.onnx`,
      `models/${EMBED_FOLDER}/tokenizer.json`,
      `models/${EMBED_FOLDER}/tokenizer_config.json`,
      `models/${GGUF}`,
    ]);
    const byId = new Map(m.models.map((x) => [x.id, x]));
    expect(byId.get(GGUF)).toMatchObject({ role: 'llm', catalog: { id: LLM_ID, license: 'Apache-2.0' }, files: [{ path: `models/${GGUF}` }] });
    expect(byId.get(EMBED_FOLDER)).toMatchObject({ role: 'embed', catalog: { id: EMBED_ID } });
    expect(byId.get(GGUF)?.files[0]?.sha256).toBe(sha256(fs.readFileSync(path.join(source, GGUF))));
  });

  it('imports into another library: the library takes the embedder, new ingest and search use it, answers use the GGUF', async () => {
    const modelsDir = tempDir('home-models');
    const lib = path.join(tempDir('site'), 'library');
    fs.mkdirSync(lib);
    await emptyKeywordLibrary(lib);
    await trustKey(keys.publicKey, lib);
    let eng = await engineAt(lib, modelsDir);
    const info = value(await eng.importPack({ file: pack }));
    expect(info).toMatchObject({ id: 'site-models', kind: 'models', unverified: false });
    // Installed exactly as the source folder lays them out, byte for byte.
    expect(sha256(fs.readFileSync(path.join(modelsDir, GGUF)))).toBe(sha256(fs.readFileSync(path.join(source, GGUF))));
    expect(treeHash(path.join(modelsDir, EMBED_FOLDER))).toBe(treeHash(path.join(source, EMBED_FOLDER)));
    expect(fs.existsSync(path.join(modelsDir, '.staging'))).toBe(false);

    // The empty keyword-only library adopted the pack's embedding model.
    expect(value(await eng.info()).embedder?.id).toMatch(/^onnx:Xenova\/all-MiniLM-L6-v2@[0-9a-f]{8}-[0-9a-f]{8}$/);
    const models = value(await eng.listModels());
    expect(models.find((x) => x.id === EMBED_ID)).toMatchObject({ installed: true, path: path.join(modelsDir, EMBED_FOLDER) });
    expect(models.find((x) => x.id === LLM_ID)).toMatchObject({ installed: true, path: path.join(modelsDir, GGUF) });
    value(await eng.ingest({ paths: [writeManuals(tempDir('manuals'))] }));
    await eng.close();

    // Reopened with nothing but the models folder (no --embedder): hybrid search and the GGUF for answers.
    eng = await engineAt(lib, modelsDir);
    const hits = value(await eng.search({ query: 'hydraulic oil change', k: 5 }));
    expect(hits.mode).toBe('hybrid');
    expect(hits.hits.length).toBeGreaterThan(0);
    const answer = value(await eng.ask({ question: 'How often is the hydraulic oil changed?', prefer: 'generative' }));
    expect(answer.fallbackReason ?? '').not.toMatch(/No language model|could not be used/);
    expect(answer.refused).toBe(false);
  }, 120_000);

  it.skipIf(otherEmbedder)('a brand-new library ingests with the pack-installed embedder, found in the models folder', async () => {
    const modelsDir = tempDir('home-models2');
    const lib = path.join(tempDir('site2'), 'library');
    fs.mkdirSync(lib);
    await trustKey(keys.publicKey, lib);
    value(await (await engineAt(lib, modelsDir)).importPack({ file: pack }));
    const other = path.join(tempDir('other'), 'library');
    const eng = await engineAt(other, modelsDir);
    value(await eng.ingest({ paths: [writeManuals(tempDir('manuals2'))] }));
    expect(value(await eng.info()).embedder?.id).toMatch(/^onnx:Xenova\/all-MiniLM-L6-v2@/);
  }, 60_000);

  it.skipIf(otherLlm)('a running engine that answered without a language model uses the GGUF once a model pack brings one', async () => {
    const modelsDir = tempDir('home-live');
    const lib = path.join(tempDir('site-live'), 'library');
    fs.mkdirSync(lib);
    await trustKey(keys.publicKey, lib);
    const eng = await engineAt(lib, modelsDir);
    value(await eng.ingest({ paths: [writeManuals(tempDir('manuals-live'))] }, {}));
    const question = { question: 'How often is the hydraulic oil changed?', prefer: 'generative' as const };
    expect(value(await eng.ask(question)).fallbackReason).toMatch(/No language model is installed/);
    value(await eng.importPack({ file: pack }));
    expect(value(await eng.ask(question)).fallbackReason ?? '').not.toMatch(/No language model|could not be used/);
  }, 120_000);

  it('a library indexed with a model this computer lacks is searched by keyword, takes the model pack that carries it, then searches hybrid', async () => {
    // Built elsewhere with the same model files; carried here without them (no remembered folder).
    const lib = path.join(tempDir('site-moved'), 'library');
    const build = await createEngine({ libraryDir: lib, create: true, embedder: { kind: 'onnx', dir: path.join(source, EMBED_FOLDER) } });
    value(await build.ingest({ paths: [writeManuals(tempDir('manuals-moved'))] }));
    await build.close();
    fs.rmSync(path.join(lib, 'model-folder.json'));
    await trustKey(keys.publicKey, lib);
    const modelsDir = tempDir('home-moved');
    let eng = await engineAt(lib, modelsDir);
    // Searched by keyword meanwhile; info says which model is missing and how to install it.
    expect(value(await eng.search({ query: 'hydraulic oil change', k: 5 })).mode).toBe('keyword');
    const missing = value(await eng.info()).modelMissing;
    expect(missing?.message).toMatch(/^This library was indexed with the model Xenova\/all-MiniLM-L6-v2, which is not installed on this computer\. Import a model pack/);
    value(await eng.importPack({ file: pack }));
    expect(value(await eng.search({ query: 'hydraulic oil change', k: 5 })).mode).toBe('hybrid');
    await eng.close();
    eng = await engineAt(lib, modelsDir);
    expect(value(await eng.search({ query: 'hydraulic oil change', k: 5 })).mode).toBe('hybrid');
  }, 60_000);

  it('refuses a pack with one damaged byte in a model file, with the cause first and what to do, changing nothing', async () => {
    const modelsDir = tempDir('home-bad');
    const lib = path.join(tempDir('site-bad'), 'library');
    fs.mkdirSync(lib);
    await trustKey(keys.publicKey, lib);
    const bad = path.join(root, 'bad.mdpack');
    const buf = fs.readFileSync(pack);
    // A byte inside the GGUF's tensor data (well past every tar header).
    const at = buf.indexOf(Buffer.from('GGUF')) + 1_000_000;
    buf[at] = (buf[at] as number) ^ 0x01;
    fs.writeFileSync(bad, buf);

    const report = await verifyPack(bad, null);
    expect(report.ok).toBe(false);
    expect(report.checksums.failed).toEqual([`models/${GGUF}`]);
    expect(report.error?.message).toMatch(/^1 file\(s\) in this pack do not match the sha256 .*copy the pack again from the original/);

    const eng = await engineAt(lib, modelsDir);
    const before = treeHash(modelsDir);
    const err = failure(await eng.importPack({ file: bad }));
    expect(err.code).toBe('PACK_CHECKSUM');
    expect(err.message).toMatch(new RegExp(`^"models/${GGUF.replace(/\./g, '\\.')}" in this pack does not match the sha256 in its signed manifest: .*damaged.*Nothing was installed or changed; copy the pack again`));
    expect(treeHash(modelsDir)).toBe(before);
    expect(value(await eng.listPacks())).toEqual([]);
  });

  it('refuses at import a known model whose bytes differ from models/manifest.json, even in a re-signed pack', async () => {
    // The e5 entry lists sha256 and sizes: a pack that calls other bytes "multilingual-e5-small" is refused.
    const forged = path.join(root, 'forged.mdpack');
    const key = newKey();
    await remake(
      pack,
      forged,
      (m, entries) => {
        const models = m.models as { id: string; files: { path: string }[] }[];
        const files = m.files as { path: string }[];
        const rename = (p: string) => p.replace(`models/${EMBED_FOLDER}/`, 'models/multilingual-e5-small/');
        for (const mod of models) {
          if (mod.id !== EMBED_FOLDER) continue;
          mod.id = 'multilingual-e5-small';
          delete (mod as { catalog?: unknown }).catalog;
          for (const f of mod.files) f.path = rename(f.path);
        }
        for (const f of files) f.path = rename(f.path);
        files.sort((a, b) => (a.path < b.path ? -1 : 1));
        for (const e of entries) e.path = rename(e.path);
        entries.sort((a, b) => (a.path < b.path ? -1 : 1));
      },
      key,
    );
    const lib = path.join(tempDir('site-forged'), 'library');
    fs.mkdirSync(lib);
    const pub = path.join(root, 'forger.pem');
    fs.writeFileSync(pub, key.publicPem);
    await trustKey(pub, lib);
    const modelsDir = tempDir('home-forged');
    const eng = await engineAt(lib, modelsDir);
    const err = failure(await eng.importPack({ file: forged }));
    expect(err.code).toBe('PACK_CHECKSUM');
    expect(err.message).toMatch(/^The model multilingual-e5-small in pack "site-models" is incomplete|^The model multilingual-e5-small in pack "site-models": .* is not the file ManualDesk knows/);
    expect(err.message).toMatch(/Nothing was changed/);
    expect(fs.readdirSync(modelsDir)).toEqual([]);
  });
});

describe('building a model pack refuses what would not install as a model', () => {
  it('a local copy of a known model with other bytes than models/manifest.json (e.g. a damaged download)', async () => {
    const src = tempDir('src-e5');
    writeTinyBertModel(path.join(src, 'multilingual-e5-small'), { dims: 32, seed: 5 });
    const out = path.join(tempDir('out'), 'x.mdpack');
    const err = await buildPack({ id: 'x', version: '1', kind: 'models', source: src, out }).then(
      () => expect.fail('expected a refusal'),
      (e: Error & { code?: string }) => e,
    );
    expect(err.code).toBe('INVALID_INPUT');
    expect(err.message).toMatch(/^The model multilingual-e5-small in .*(is incomplete|is not the file ManualDesk knows).*Fetch the model again/);
    expect(fs.existsSync(out)).toBe(false);
  });

  it('a loose file at the top that is not a model', async () => {
    const src = tempDir('src-loose');
    writeTinyBertModel(path.join(src, EMBED_FOLDER), { dims: 32, seed: 5 });
    fs.writeFileSync(path.join(src, 'README.txt'), 'notes');
    const err = await buildPack({ id: 'x', version: '1', kind: 'models', source: src, out: path.join(tempDir('out2'), 'x.mdpack') }).then(
      () => expect.fail('expected a refusal'),
      (e: Error & { code?: string }) => e,
    );
    expect(err.code).toBe('INVALID_INPUT');
    expect(err.message).toMatch(/^README\.txt lies loose in .* is not a model file .*move README\.txt out, then build again\./);
  });
});
