/**
 * Hardening cases of issue 15, second part (each fails on the code before it):
 *   4  `pack verify` of a pack signed by an untrusted key: PACK_UNTRUSTED with the `keys trust` hint (as
 *      import says); import of a lower version than installed never says "pack update", and its advice works
 *   5  a library of a newer chunker version: search and ingest refuse with LIBRARY_FORMAT_MISMATCH and the
 *      library stays byte-identical; `keys trust` refuses it too; while a live writer (the app)
 *      holds the library, `keys trust` still works: one atomic, idempotent file
 *   7  ingest commits files.json once per batch, not once per file
 *   8b `remove` on a full disk (a real tmpfs filled to 0 bytes by a file outside the library): succeeds by
 *      freeing what the library can rebuild (the embedding cache), and the library answers without it
 */
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { type Result } from '../../native/contract/errors.js';
import { createEngine, type Engine } from '../../native/engine.js';
import { CHUNKER_VERSION } from '../../native/chunk/index.js';
import { buildPack } from '../../native/packs/build.js';
import { generateKeys, trustedFingerprints, trustKey } from '../../native/packs/keys.js';
import { INGEST_BATCH } from '../../native/pipelines/ingest.js';
import { LOCK_FILE } from '../../native/store/lock.js';
import { snapshotDiff, snapshotDir } from './bad-input-cases.js';
import { tempDirs, value, failure } from './helpers.js';
import { writeTinyBertModel } from '../../scripts/make-tiny-onnx.js';

/** Renames onto a files.json, counted (each is one commit of the file records). */
const renames = vi.hoisted(() => ({ filesJson: 0 }));
vi.mock('node:fs/promises', async (importOriginal) => {
  const real = await importOriginal<typeof import('node:fs/promises')>();
  const rename = (async (from: Parameters<typeof real.rename>[0], to: Parameters<typeof real.rename>[1]) => {
    if (path.basename(String(to)) === 'files.json') renames.filesJson++;
    return real.rename(from, to);
  }) as typeof real.rename;
  return { ...real, rename, default: { ...real, rename } };
});

const tempDir = tempDirs('hard2');


function open(lib: string): Promise<Engine> {
  return createEngine({ libraryDir: lib, embedder: { kind: 'none' }, create: true });
}

function writeManual(dir: string, name: string, text: string): string {
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, name), text);
  return dir;
}

async function seeded(): Promise<string> {
  const lib = path.join(tempDir('lib'), 'library');
  const e = await open(lib);
  try {
    value(await e.ingest({ paths: [writeManual(tempDir('src'), 'pump.md', '# Pump\n\n## Priming\n\nOpen the quorvalve before starting.\n')] }));
  } finally {
    await e.close();
  }
  return lib;
}

// ---- 4: pack verify and downgrade advice --------------------------------------------------------

describe('pack trust and versions', () => {
  let root: string;
  let keys: { privateKey: string; publicKey: string; fingerprint: string };
  let v1: string;
  let v2: string;
  beforeAll(async () => {
    root = tempDir('packs');
    keys = await generateKeys(path.join(root, 'keys'));
    const src1 = writeManual(path.join(root, 'src1'), 'lift.md', '# Lift manual\n\n## Brake\n\nCheck the brake shoe gap every month.\n');
    const src2 = writeManual(path.join(root, 'src2'), 'lift.md', '# Lift manual\n\n## Brake\n\nCheck the brake shoe gap every week.\n');
    const common = { id: 'lift-manuals', name: 'Lifts', publisher: 'Fictional Works', embedder: { kind: 'none' as const }, keyFile: keys.privateKey };
    v1 = path.join(root, 'lift-1.mdpack');
    v2 = path.join(root, 'lift-2.mdpack');
    await buildPack({ ...common, source: src1, out: v1, version: '1.0' });
    await buildPack({ ...common, source: src2, out: v2, version: '2.0' });
  });

  it('verify of a pack signed by an untrusted key: PACK_UNTRUSTED with the keys trust hint, as import', async () => {
    const lib = await seeded();
    const e = await open(lib);
    try {
      const report = value(await e.verifyPack({ file: v1 }));
      expect(report.ok).toBe(false);
      expect(report.error?.code).toBe('PACK_UNTRUSTED');
      expect(report.error?.message).toMatch(/keys trust/);
      expect(report.error?.message).toContain(keys.fingerprint);
      const imp = failure(await e.importPack({ file: v1 }));
      expect(imp.code).toBe('PACK_UNTRUSTED');
      expect(imp.message).toBe(report.error?.message);
    } finally {
      await e.close();
    }
  });

  it('import of a lower version than installed never says "pack update"; its advice works', async () => {
    const lib = await seeded();
    await trustKey(keys.publicKey, lib);
    const e = await open(lib);
    try {
      // Only 2.0 installed: remove, then import.
      value(await e.importPack({ file: v2 }));
      let err = failure(await e.importPack({ file: v1 }));
      expect(err.message).not.toMatch(/pack update/);
      expect(err.message).toMatch(/pack remove lift-manuals/);
      value(await e.removePack({ id: 'lift-manuals' }));
      expect(value(await e.importPack({ file: v1 })).active).toBe('1.0');
      // 1.0 then 2.0 installed: rollback.
      value(await e.updatePack({ file: v2 }));
      err = failure(await e.importPack({ file: v1 }));
      expect(err.message).not.toMatch(/pack update/);
      expect(err.message).toMatch(/pack rollback lift-manuals/);
      expect(value(await e.rollbackPack({ id: 'lift-manuals' })).active).toBe('1.0');
      // A higher version still points to update, which takes it.
      err = failure(await e.importPack({ file: v2 }));
      expect(err.message).toMatch(/pack update/);
      expect(value(await e.updatePack({ file: v2 })).active).toBe('2.0');
    } finally {
      await e.close();
    }
  });
});

// ---- 5: newer format versions -----------------------------------------------------------------------

describe('a library of a newer chunker or analyzer version', () => {
  for (const field of ['chunkerVersion', 'analyzerVersion'] as const) {
    it(`${field} + 1: search, ingest and keys trust refuse with LIBRARY_FORMAT_MISMATCH; the library is byte-identical`, async () => {
      const lib = await seeded();
      const metaFile = path.join(lib, 'library.json');
      const meta = JSON.parse(fs.readFileSync(metaFile, 'utf8')) as Record<string, number>;
      fs.writeFileSync(metaFile, JSON.stringify({ ...meta, [field]: (meta[field] ?? CHUNKER_VERSION) + 1 }));
      const before = snapshotDir(lib);
      for (const readOnly of [true, false]) {
        const made = await createEngine({ libraryDir: lib, embedder: { kind: 'none' }, readOnly }).then(
          async (e) => {
            try {
              return readOnly ? await e.search({ query: 'quorvalve', k: 5 }) : await e.ingest({ paths: [tempDir('more')] });
            } finally {
              await e.close();
            }
          },
          (err: { code: string; message: string }) => ({ ok: false as const, error: { code: err.code, message: err.message } }),
        );
        const err = failure(made as Result<unknown>);
        expect(err.code).toBe('LIBRARY_FORMAT_MISMATCH');
        expect(err.message).toMatch(/newer ManualDesk/);
        expect(err.message).toMatch(/update ManualDesk|new library folder/);
      }
      const keysDir = tempDir('k');
      const k = await generateKeys(keysDir);
      await expect(trustKey(k.publicKey, lib)).rejects.toMatchObject({ code: 'LIBRARY_FORMAT_MISMATCH' });
      expect(snapshotDiff(before, snapshotDir(lib))).toEqual([]);
    });
  }

  it('keys trust while a live writer holds the lock: the key is trusted (one new file), nothing else changes', async () => {
    const lib = await seeded();
    const child = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 30000)'], { stdio: 'ignore' });
    try {
      await new Promise((r) => child.once('spawn', r));
      fs.writeFileSync(path.join(lib, LOCK_FILE), JSON.stringify({ pid: child.pid, host: os.hostname(), at: new Date().toISOString() }));
      const before = snapshotDir(lib);
      const k = await generateKeys(tempDir('k2'));
      const { fingerprint, file } = await trustKey(k.publicKey, lib);
      expect(trustedFingerprints(lib).has(fingerprint)).toBe(true);
      expect(snapshotDiff(before, snapshotDir(lib)).filter((d) => !d.endsWith('/'))).toEqual([`added ${path.relative(lib, file).split(path.sep).join('/')}`]);
    } finally {
      child.kill();
    }
  });
});

// ---- 7: one commit of files.json per batch -------------------------------------------------------------

describe('ingest commits in batches', () => {
  it('500 one-line files: files.json is renamed at most 500/64 + 2 times; every file searchable; re-run changes nothing', async () => {
    const src = tempDir('many');
    for (let i = 0; i < 500; i++) fs.writeFileSync(path.join(src, `note-${i}.md`), `Valve zq${i}x needs a quarter turn.\n`);
    const lib = path.join(tempDir('lib'), 'library');
    const e = await open(lib);
    try {
      renames.filesJson = 0;
      const report = value(await e.ingest({ paths: [src] }));
      expect(report.files).toBe(500);
      expect(renames.filesJson).toBeLessThanOrEqual(Math.ceil(500 / INGEST_BATCH.files) + 2);
      for (const i of [0, 63, 64, 257, 499]) {
        expect(value(await e.search({ query: `zq${i}x`, k: 3 })).hits.map((h) => h.file)).toContain(`note-${i}.md`);
      }
      // Vanished files go in one commit too.
      for (let i = 0; i < 200; i++) fs.unlinkSync(path.join(src, `note-${i}.md`));
      renames.filesJson = 0;
      const again = value(await e.ingest({ paths: [src] }));
      expect(again.removed).toBe(200);
      expect(again.unchanged).toBe(300);
      expect(renames.filesJson).toBeLessThanOrEqual(1);
      expect(value(await e.search({ query: 'zq5x', k: 3 })).hits).toEqual([]);
    } finally {
      await e.close();
    }
  }, 240_000);
});

// ---- 8b: remove on a full disk ---------------------------------------------------------------------------

/** Mounts a tmpfs (root only); false when this machine does not allow it. */
function mountTmpfs(dir: string, opts: string): boolean {
  if (process.platform !== 'linux' || process.getuid?.() !== 0) return false;
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', opts, 'tmpfs', dir], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

describe('remove on a full disk', () => {
  const disk = fs.mkdtempSync(path.join(os.tmpdir(), 'md-hard2-disk-'));
  const mounted = mountTmpfs(disk, 'size=24m');
  afterAll(() => {
    if (mounted) execFileSync('umount', ['-l', disk], { stdio: 'ignore' });
    fs.rmSync(disk, { recursive: true, force: true });
  });

  it.runIf(mounted)('a tmpfs filled to 0 bytes outside the library: remove of one manual succeeds; the library answers without it', async () => {
    const root = tempDir('model');
    const modelDir = path.join(root, 'test', 'tiny-bert');
    writeTinyBertModel(modelDir, { dims: 32, seed: 7 });
    const embedder = { kind: 'onnx' as const, dir: modelDir, cacheDir: path.join(root, 'hf-cache') };
    const src = tempDir('full-src');
    writeManual(src, 'keep.md', '# Keep\n\n## Valve\n\nTurn the quorvalve a quarter turn.\n');
    // Enough text that its embedding cache is worth freeing.
    const gone = Array.from({ length: 400 }, (_, i) => `## Step ${i}\n\nTighten bolt zb${i}q to 12 Nm and check the tensirod gap.\n`).join('\n');
    writeManual(src, 'gone.md', `# Gone\n\n${gone}`);
    const lib = path.join(disk, 'library');
    // The app holds the library open (its lock taken) while the disk fills up.
    const e = await createEngine({ libraryDir: lib, embedder, create: true });
    value(await e.ingest({ paths: [src] }));
    // Fill the disk to its last byte from outside the library.
    const filler = path.join(disk, 'filler.bin');
    const fd = fs.openSync(filler, 'w');
    const block = Buffer.alloc(64 * 1024, 1);
    try {
      for (;;) fs.writeSync(fd, block);
    } catch {
      for (;;) {
        try {
          fs.writeSync(fd, block, 0, 1);
        } catch {
          break;
        }
      }
    }
    fs.closeSync(fd);
    expect(fs.statfsSync(disk).bavail).toBe(0);
    try {
      const rm = await e.removeFiles(['gone.md']);
      expect(value(rm).removed).toBe(1);
      expect(value(await e.search({ query: 'zb5q', k: 5, mode: 'keyword' })).hits.map((h) => h.file)).not.toContain('gone.md');
      expect(value(await e.search({ query: 'quorvalve', k: 5, mode: 'keyword' })).hits.map((h) => h.file)).toContain('keep.md');
    } finally {
      await e.close();
    }
    const reader = await createEngine({ libraryDir: lib, embedder, readOnly: true });
    try {
      expect(value(await reader.listManuals()).map((m) => m.file)).toEqual(['keep.md']);
    } finally {
      await reader.close();
    }
  }, 120_000);
});
