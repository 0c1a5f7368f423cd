/**
 * openLibrary: a new library from the app (the sample library's "A new library of my own"), opening
 * an existing one, the refusals (files that are not a library, the sample library and its manuals,
 * another library's folder, no library, an unwritable folder, a write running), and the switch's
 * safety: the library in use stays open and unchanged until the other one opened, then its lock is
 * released. LibraryInfo.sample is the engine's.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createEngine, type Engine } from '../../native/engine.js';
import { startServer } from '../../native/server/http.js';
import { createHttpClient } from '../../renderer/src/engine/http-client.js';
import { connectWorker } from '../../native/worker/client.js';
import { serveEngine } from '../../native/worker/host.js';
import type { FromHost, ToHost } from '../../native/worker/protocol.js';
import { localCaller } from '../../native/worker/streaming.js';
import { SAMPLE_MARKER_FILE } from '../../native/library/layout.js';
import { LOCK_FILE } from '../../native/store/lock.js';
import { cleanupTemp, failure, tempDir, value } from './helpers.js';
import { keyedFetch } from '../unit/server/keyed-fetch.js';

const NOTES = '# Site notes\n\n## Compressor\n\nDrain the compressor tank condensate every Friday.\n';
const PUMP = '# Pump manual\n\n## Seals\n\nReplace the pump shaft seal every 2000 hours.\n';

function manuals(name: string, files: Record<string, string>): string {
  const dir = path.join(tempDir(name), 'manuals');
  for (const [file, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
    fs.writeFileSync(path.join(dir, file), text);
  }
  return dir;
}

let root: string;
let libA: string;
let engine: Engine;

beforeEach(async () => {
  root = tempDir('openlib');
  libA = path.join(root, 'a');
  engine = await createEngine({ libraryDir: libA, embedder: { kind: 'none' }, create: true });
  value(await engine.ingest({ paths: [manuals('a-src', { 'notes.md': NOTES })] }));
});

afterEach(async () => {
  await engine.close();
});

afterAll(() => cleanupTemp());

async function searchFiles(e: Engine, query: string): Promise<string[]> {
  return value(await e.search({ query })).hits.map((h) => h.file);
}

describe('openLibrary create: true', () => {
  it('makes a new empty library, releases the old one, and later writes land in the new one', async () => {
    const libB = path.join(root, 'nested', 'my library');
    const opened = value(await engine.openLibrary({ dir: libB, create: true }));
    expect(opened.created).toBe(true);
    expect(opened.info).toMatchObject({ dir: libB, files: 0, chunks: 0, sample: false });
    expect(value(await engine.info()).dir).toBe(libB);
    expect(fs.existsSync(path.join(libB, 'library.json'))).toBe(true);
    expect(fs.existsSync(path.join(libB, LOCK_FILE))).toBe(true);
    // The old library's lock is released: another engine can write to it.
    expect(fs.existsSync(path.join(libA, LOCK_FILE))).toBe(false);
    const other = await createEngine({ libraryDir: libA, embedder: { kind: 'none' } });
    try {
      value(await other.ingest({ paths: [manuals('a-more', { 'more.md': '# More\n\nCheck the belt tension weekly.\n' })] }));
    } finally {
      await other.close();
    }

    value(await engine.ingest({ paths: [manuals('b-src', { 'pump.md': PUMP })] }));
    expect(value(await engine.listManuals()).map((m) => m.file)).toEqual(['pump.md']);
    expect(await searchFiles(engine, 'compressor condensate')).toEqual([]);
    expect(await searchFiles(engine, 'pump shaft seal')).toEqual(['pump.md']);

    // The old library kept its manuals (and what the other engine added).
    const back = value(await engine.openLibrary({ dir: libA, create: false }));
    expect(back.created).toBe(false);
    expect(back.info.files).toBe(2);
    expect(await searchFiles(engine, 'compressor condensate')).toEqual(['notes.md']);
    expect(fs.existsSync(path.join(libB, LOCK_FILE))).toBe(false);
  });

  it('an empty existing folder is used; a folder that holds a library already is opened as it is', async () => {
    const empty = path.join(root, 'empty');
    fs.mkdirSync(empty);
    fs.writeFileSync(path.join(empty, '.DS_Store'), '');
    expect(value(await engine.openLibrary({ dir: empty, create: true })).created).toBe(true);
    const again = value(await engine.openLibrary({ dir: libA, create: true }));
    expect(again).toMatchObject({ created: false, info: { dir: libA, files: 1 } });
  });

  it('refuses a folder holding other files, naming them, and the library in use stays open and unchanged', async () => {
    const busy = path.join(root, 'docs');
    fs.mkdirSync(busy);
    fs.writeFileSync(path.join(busy, 'invoice.pdf'), 'x');
    const before = fs.readdirSync(busy);
    const err = failure(await engine.openLibrary({ dir: busy, create: true }));
    expect(err.code).toBe('INVALID_INPUT');
    expect(err.message).toMatch(/already holds files that are not a ManualDesk library \(invoice\.pdf\)/);
    expect(err.message).toMatch(/Choose an empty folder or a new folder name/);
    expect(fs.readdirSync(busy)).toEqual(before);
    expect(value(await engine.info())).toMatchObject({ dir: libA, files: 1 });
    expect(await searchFiles(engine, 'compressor condensate')).toEqual(['notes.md']);
    expect(fs.existsSync(path.join(libA, LOCK_FILE))).toBe(true);
    value(await engine.ingest({ paths: [manuals('a-after', { 'pump.md': PUMP })] }));
    expect(value(await engine.info()).files).toBe(2);
  });

  it('refuses the sample library, a folder inside it or inside its sample manuals, and a folder inside another library', async () => {
    const samples = manuals('samples', { 'library/acme.md': '# Acme (fictional)\n\nOil the way daily.\n' });
    const sampleLib = path.join(root, 'sample-library');
    const s = await createEngine({ libraryDir: sampleLib, embedder: { kind: 'none' }, create: true });
    try {
      value(await s.ingest({ paths: [samples] }));
    } finally {
      await s.close();
    }
    fs.writeFileSync(path.join(sampleLib, SAMPLE_MARKER_FILE), JSON.stringify({ createdBy: 'npm start', samples }));
    value(await engine.openLibrary({ dir: sampleLib, create: false }));
    expect(value(await engine.info()).sample).toBe(true);

    for (const dir of [sampleLib, path.join(sampleLib, 'mine')]) {
      const err = failure(await engine.openLibrary({ dir, create: true }));
      expect(err.code).toBe('INVALID_INPUT');
      expect(err.message).toMatch(/fictional sample library/);
      expect(err.message).toContain(path.join(root, 'library'));
    }
    const inSamples = failure(await engine.openLibrary({ dir: path.join(samples, 'mine'), create: true }));
    expect(inSamples.message).toMatch(/inside the folder of the fictional sample manuals/);
    expect(fs.existsSync(path.join(samples, 'mine'))).toBe(false);
    const inA = failure(await engine.openLibrary({ dir: path.join(libA, 'inner'), create: true }));
    expect(inA.message).toMatch(/is inside the library .*a library cannot hold another one/);
    expect(fs.existsSync(path.join(libA, 'inner'))).toBe(false);
    // Still the sample library, unchanged.
    expect(value(await engine.info())).toMatchObject({ dir: sampleLib, sample: true, files: 1 });
  });

  it('refuses a folder that cannot be written, cause first, and leaves nothing behind', async () => {
    const ro = path.join(root, 'ro');
    fs.mkdirSync(ro);
    let mounted = false;
    if (process.platform === 'linux' && process.getuid?.() === 0) {
      try {
        execFileSync('mount', ['-t', 'tmpfs', '-o', 'ro,size=1m', 'tmpfs', ro], { stdio: 'ignore' });
        mounted = true;
      } catch {
        // no mount here: the permission bits below do not stop root, so the check is skipped
      }
    } else {
      fs.chmodSync(ro, 0o555);
    }
    try {
      if (!mounted && process.getuid?.() === 0) return;
      const err = failure(await engine.openLibrary({ dir: path.join(ro, 'lib'), create: true }));
      expect(err.code).toBe('LIBRARY_READ_ONLY');
      expect(err.message).toMatch(/^ManualDesk cannot write to .*\((the disk is read-only|permission denied)\)\. Choose a folder you can write to/);
      expect(fs.readdirSync(ro)).toEqual([]);
      expect(value(await engine.info()).dir).toBe(libA);
    } finally {
      if (mounted) execFileSync('umount', [ro], { stdio: 'ignore' });
      else fs.chmodSync(ro, 0o755);
    }
  });
});

describe('openLibrary create: false', () => {
  it('says plainly when there is no library (or no folder) there; the library in use stays', async () => {
    const plain = path.join(root, 'plain');
    fs.mkdirSync(plain);
    const none = failure(await engine.openLibrary({ dir: plain, create: false }));
    expect(none.code).toBe('LIBRARY_NOT_FOUND');
    expect(none.message).toMatch(/is not a ManualDesk library \(it has no library\.json\)\. Choose the folder of an existing library, or create a new library there/);
    const missing = failure(await engine.openLibrary({ dir: path.join(root, 'nowhere'), create: false }));
    expect(missing.message).toMatch(/^There is no folder .*nowhere/);
    expect(fs.existsSync(path.join(root, 'nowhere'))).toBe(false);
    expect(fs.readdirSync(plain)).toEqual([]);
    expect(await searchFiles(engine, 'compressor condensate')).toEqual(['notes.md']);
  });

  it('a library another process holds: LIBRARY_LOCKED, and the library in use keeps its lock and answers', async () => {
    const libC = path.join(root, 'c');
    const holder = await createEngine({ libraryDir: libC, embedder: { kind: 'none' }, create: true });
    try {
      value(await holder.ingest({ paths: [manuals('c-src', { 'pump.md': PUMP })] }));
      const err = failure(await engine.openLibrary({ dir: libC, create: false }));
      expect(err.code).toBe('LIBRARY_LOCKED');
      expect(value(await engine.info()).dir).toBe(libA);
      expect(fs.existsSync(path.join(libA, LOCK_FILE))).toBe(true);
      expect(await searchFiles(engine, 'compressor condensate')).toEqual(['notes.md']);
    } finally {
      await holder.close();
    }
  });

  it('the library in use: answered as it is, nothing reopened', async () => {
    expect(value(await engine.openLibrary({ dir: libA, create: false }))).toMatchObject({ created: false, info: { dir: libA, files: 1 } });
  });
});

describe('switching while the library is in use', () => {
  it('refused with LIBRARY_BUSY while an ingest runs; the ingest lands in the old library', async () => {
    const libB = path.join(root, 'b');
    const ingest = engine.ingest({ paths: [manuals('a-busy', { 'pump.md': PUMP })] });
    const err = failure(await engine.openLibrary({ dir: libB, create: true }));
    expect(err.code).toBe('LIBRARY_BUSY');
    expect(err.message).toMatch(/is being changed .*Wait until it has finished, or cancel it, then open the other library/);
    value(await ingest);
    expect(fs.existsSync(libB)).toBe(false);
    expect(value(await engine.info())).toMatchObject({ dir: libA, files: 2 });
  });

  it('searches running during the switch finish on the old library; later ones use the new one', async () => {
    const libB = path.join(root, 'b');
    const running = Array.from({ length: 8 }, () => engine.search({ query: 'compressor condensate' }));
    const switching = engine.openLibrary({ dir: libB, create: true });
    const results = await Promise.all(running);
    for (const r of results) expect(value(r).hits.map((h) => h.file)).toEqual(['notes.md']);
    value(await switching);
    expect(await searchFiles(engine, 'compressor condensate')).toEqual([]);
  });
});

describe('LibraryInfo.sample', () => {
  it('false for a library of ones own manuals; true when every manual comes from a samples/library folder', async () => {
    expect(value(await engine.info()).sample).toBe(false);
    const samples = path.join(manuals('repo', { 'samples/library/acme.md': '# Acme (fictional)\n\nOil the way daily.\n' }), 'samples', 'library');
    const lib = path.join(root, 'copy');
    value(await engine.openLibrary({ dir: lib, create: true }));
    value(await engine.ingest({ paths: [samples] }));
    expect(value(await engine.info()).sample).toBe(true);
    value(await engine.ingest({ paths: [manuals('own', { 'pump.md': PUMP })] }));
    expect(value(await engine.info()).sample).toBe(false);
  });
});

describe('over HTTP (browser mode), as the UI calls it', () => {
  it('creates the library, then the UI adds manuals to it; a bad request is refused before the engine', async () => {
    const staticDir = tempDir('static');
    fs.writeFileSync(path.join(staticDir, 'index.html'), '<!doctype html><title>ManualDesk</title>');
    const server = await startServer(engine, { port: 0, staticDir });
    try {
      const ui = createHttpClient(server.url, keyedFetch(server));
      const libB = path.join(root, 'library');
      expect(value(await ui.openLibrary({ dir: libB, create: true }))).toMatchObject({ created: true, info: { dir: libB, sample: false, files: 0 } });
      value(await ui.ingest({ paths: [manuals('ui-src', { 'pump.md': PUMP })] }));
      expect(value(await ui.info())).toMatchObject({ dir: libB, files: 1 });
      const bad = failure(await ui.openLibrary({ dir: '', create: true }));
      expect(bad.code).toBe('INVALID_INPUT');
      expect(bad.message).toMatch(/Invalid openLibrary request: field "dir"/);
    } finally {
      await server.close();
    }
  });
});

describe('over the engine host protocol (the desktop app: IPC → utility process)', () => {
  it('carries openLibrary to the engine and its result back', async () => {
    let toHost: (m: unknown) => void = () => {};
    let toClient: (m: unknown) => void = () => {};
    serveEngine(localCaller(engine), { post: (m: FromHost) => queueMicrotask(() => toClient(structuredClone(m))), onMessage: (fn) => (toHost = fn) }, { close: async () => {} });
    const client = connectWorker({ post: (m: ToHost) => queueMicrotask(() => toHost(structuredClone(m))), onMessage: (fn) => (toClient = fn) });
    const libB = path.join(root, 'desk');
    expect(value((await client.call('openLibrary', { dir: libB, create: true })) as Awaited<ReturnType<Engine['openLibrary']>>)).toMatchObject({ created: true, info: { dir: libB } });
    expect(value(await engine.info()).dir).toBe(libB);
  });
});

describe('a library that failed to open at start', () => {
  it('is left for a new one without anything to close', async () => {
    const e = await createEngine({ libraryDir: path.join(root, 'missing'), embedder: { kind: 'none' } });
    try {
      expect(failure(await e.info()).code).toBe('LIBRARY_NOT_FOUND');
      const libB = path.join(root, 'fresh');
      expect(value(await e.openLibrary({ dir: libB, create: true })).created).toBe(true);
      value(await e.ingest({ paths: [manuals('fresh-src', { 'pump.md': PUMP })] }));
      expect(value(await e.info())).toMatchObject({ dir: libB, files: 1 });
      expect(fs.existsSync(path.join(root, 'missing'))).toBe(false);
    } finally {
      await e.close();
    }
  });

  it('the folder it was started with, still without a library: created there when asked', async () => {
    const dir = path.join(root, 'later');
    const e = await createEngine({ libraryDir: dir, embedder: { kind: 'none' } });
    try {
      expect(failure(await e.info()).code).toBe('LIBRARY_NOT_FOUND');
      expect(failure(await e.openLibrary({ dir, create: false })).code).toBe('LIBRARY_NOT_FOUND');
      expect(value(await e.openLibrary({ dir, create: true }))).toMatchObject({ created: true, info: { dir, files: 0 } });
      expect(fs.existsSync(path.join(dir, 'library.json'))).toBe(true);
    } finally {
      await e.close();
    }
    // Started on it again, before any other call: the library is there already, nothing is created.
    const again = await createEngine({ libraryDir: dir, embedder: { kind: 'none' } });
    try {
      expect(value(await again.openLibrary({ dir, create: true }))).toMatchObject({ created: false, info: { dir } });
    } finally {
      await again.close();
    }
  });
});
