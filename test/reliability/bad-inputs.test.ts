/**
 * Bad-input suite (issue #8): hostile files, libraries, packs and queries against a real engine
 * (keyword-only, `embedder: { kind: 'none' }`). Every hostile input is generated here, in a temp folder.
 *
 * Each case asserts a clear error code and a message that says what to do next, that the rest of
 * the work goes on (good files of the same ingest run are indexed and searchable), and, where nothing
 * should change, that the library folder is byte-for-byte unchanged ({@link snapshotDir}).
 *
 * Cases
 *   Manual files (each in one mixed run with good files, and alone against an existing library):
 *     corrupt PDF · truncated PDF · encrypted PDF (hand-made /Encrypt trailer) · zero-byte PDF, MD, CSV ·
 *     binary data named .pdf, .md, .csv, .docx, .xlsx, .txt · a ZIP named .docx that is no document ·
 *     deeply nested HTML (100k levels) · CSV with a million columns · YAML "billion laughs" ·
 *     invalid JSON · old Office (OLE) file named .docx · a folder named like a manual (.md) ·
 *     unsupported extension named on the command line
 *   Manual files that are hostile but readable (indexed, nothing hostile kept):
 *     huge PDF (1,500 pages) · invalid UTF-8 · mixed encodings (GB18030 + UTF-8 in one file) ·
 *     hostile HTML (script, javascript: URLs, event handlers, a 5 MB attribute) · CSV with ragged rows ·
 *     JSON nested 100k levels · an enormous single line without newline (size in BIG_LINE_MB)
 *   During ingest: a file vanishing · a file changing · a folder that does not exist · an ingested
 *     folder that disappears (drive unplugged: nothing is removed)
 *   The library: read-only library folder · full disk (tmpfs when it can be mounted) · a library
 *     locked by a second writer (same process, another live process) · a stale lock of a dead process ·
 *     a library folder that is a file · corrupt library.json · library.json from
 *     a newer version (a corrupt files.json is rebuilt: issue37-files-json.test.ts)
 *   Packs: path traversal · bad signature · truncated · manifest that is not JSON · manifest of a
 *     future format · random bytes · zero-byte pack · a pack file that does not exist
 *   Queries through search, lookupCode and ask: empty · whitespace only · 100 kB · NUL and control
 *     characters · regex/SQL/FTS syntax · lone surrogates · 10k tokens · RTL and zero-width
 *     characters · not text at all · a k out of range
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { IngestReport } from '../../native/contract/api.js';
import type { ErrorCode, Result } from '../../native/contract/errors.js';
import { createEngine, type Engine } from '../../native/engine.js';
import { buildPack } from '../../native/packs/build.js';
import { generateKeys, trustKey } from '../../native/packs/keys.js';
import { LOCK_FILE } from '../../native/store/lock.js';
import { flipByteOf, readEntries, remake, writeEntries, type RawEntry } from '../integration/packs-helpers.js';
import { makeEncryptedPdf, makePdf, makeZip, noise, snapshotDiff, snapshotDir, yamlBomb } from './bad-input-cases.js';
import { tempDirs, value, failure, expectClear, write } from './helpers.js';

/**
 * A full disk without mount rights: while `diskFull.under` is set, opening a file for writing under
 * it fails with ENOSPC, as it does on a full disk (the library's JSON commits go through here; LanceDB's
 * own writes do not, so the tmpfs case below checks those where it can mount one).
 */
const diskFull = vi.hoisted(() => ({ under: '' }));
vi.mock('node:fs/promises', async (importOriginal) => {
  const real = await importOriginal<typeof import('node:fs/promises')>();
  const open = ((file: Parameters<typeof real.open>[0], flags?: string | number, ...rest: unknown[]) => {
    if (diskFull.under && String(file).startsWith(diskFull.under) && flags !== undefined && flags !== 'r') {
      return Promise.reject(Object.assign(new Error(`ENOSPC: no space left on device, open '${String(file)}'`), { code: 'ENOSPC', errno: -28 }));
    }
    return (real.open as (...a: unknown[]) => ReturnType<typeof real.open>)(file, flags, ...rest);
  }) as typeof real.open;
  return { ...real, open, default: { ...real, open } };
});

/** Size of the enormous single-line file (MB); 50 MB with MANUALDESK_RELIABILITY_FULL=1. */
const BIG_LINE_MB = Number(process.env.MANUALDESK_BAD_INPUT_LINE_MB ?? (process.env.MANUALDESK_RELIABILITY_FULL === '1' ? 50 : 8));
const HUGE_PDF_PAGES = 1500;

/** A message that tells the technician what to do next. */

const tempDir = tempDirs('bad');





/** Good manuals: each has one made-up word that only it contains. */
const GOOD: Record<string, { text: string; word: string }> = {
  'good/pump.md': { word: 'quorvalve', text: '# Pump manual\n\n## Priming\n\nOpen the quorvalve and fill the casing before starting the pump.\n' },
  'good/belt.txt': { word: 'tensirod', text: 'Belt conveyor notes\n\nAdjust the tensirod a quarter turn when the belt slips.\n' },
  'good/codes.csv': { word: 'gaskrift', text: 'code,meaning,remedy\nE-401,Seal leak,Replace the gaskrift seal\nE-402,Motor hot,Clean the fan cover\n' },
};

function writeGood(dir: string): string {
  for (const [rel, g] of Object.entries(GOOD)) write(dir, rel, g.text);
  return dir;
}

async function hitsFor(engine: Engine, query: string): Promise<string[]> {
  return value(await engine.search({ query, k: 10 })).hits.map((h) => h.file);
}

/** Every good manual of the run is indexed and found by its own word. */
async function expectGoodSearchable(engine: Engine, prefix = ''): Promise<void> {
  for (const [rel, g] of Object.entries(GOOD)) expect(await hitsFor(engine, g.word)).toContain(prefix + rel);
}

function skippedEntry(report: IngestReport, file: string) {
  return report.skipped.find((s) => s.file === file);
}

// ---- hostile manual files ------------------------------------------------------------------------

interface Rejected {
  name: string;
  file: string;
  make: () => string | Buffer;
  code: ErrorCode;
  message: RegExp;
}

interface Accepted {
  name: string;
  file: string;
  make: () => string | Buffer;
  /** Words the index must find in this file. */
  find: string[];
  /** Words that must not be indexed (hostile content). */
  absent?: string[];
}

const goodPdf = makePdf(['Hydraulic wearplate inspection', 'Check the seals of the wearplate']);

const REJECTED: Rejected[] = [
  { name: 'corrupt PDF', file: 'corrupt.pdf', make: () => Buffer.concat([Buffer.from('%PDF-1.4\n'), noise(600, 3)]), code: 'FILE_UNREADABLE', message: /damaged|could not be opened/ },
  { name: 'truncated PDF', file: 'truncated.pdf', make: () => goodPdf.subarray(0, Math.floor(goodPdf.length / 2)), code: 'FILE_UNREADABLE', message: /damaged|incomplete/ },
  { name: 'encrypted PDF', file: 'encrypted.pdf', make: () => makeEncryptedPdf('Secret torque values'), code: 'FILE_UNREADABLE', message: /password/ },
  { name: 'zero-byte PDF', file: 'empty.pdf', make: () => '', code: 'FILE_UNREADABLE', message: /empty/ },
  { name: 'zero-byte Markdown', file: 'empty.md', make: () => '', code: 'FILE_UNREADABLE', message: /empty/ },
  { name: 'zero-byte CSV', file: 'empty.csv', make: () => '', code: 'FILE_UNREADABLE', message: /empty/ },
  { name: 'binary data named .pdf', file: 'binary.pdf', make: () => noise(4096, 21), code: 'FILE_UNREADABLE', message: /not a valid PDF/ },
  { name: 'binary data named .md', file: 'binary.md', make: () => noise(4096, 22), code: 'FILE_UNREADABLE', message: /binary/ },
  { name: 'binary data named .csv', file: 'binary.csv', make: () => noise(4096, 23), code: 'FILE_UNREADABLE', message: /binary/ },
  { name: 'binary data named .docx', file: 'binary.docx', make: () => noise(4096, 24), code: 'FILE_UNREADABLE', message: /not a valid DOCX/ },
  { name: 'binary data named .xlsx', file: 'binary.xlsx', make: () => noise(4096, 25), code: 'FILE_UNREADABLE', message: /not a valid XLSX/ },
  { name: 'binary data named .txt', file: 'binary.txt', make: () => noise(4096, 26), code: 'FILE_UNREADABLE', message: /binary/ },
  { name: 'a ZIP named .docx that holds no document', file: 'archive.docx', make: () => makeZip({ 'readme.txt': Buffer.from('hello') }), code: 'FILE_UNREADABLE', message: /DOCX/ },
  { name: 'an old Office (OLE) file named .docx', file: 'old-office.docx', make: () => Buffer.concat([Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]), noise(2048, 5)]), code: 'UNSUPPORTED_FORMAT', message: /old-style Office|password/ },
  {
    name: 'deeply nested HTML (100k levels)',
    file: 'nested.html',
    make: () => `<html><body>${'<div>'.repeat(100_000)}deepword${'</div>'.repeat(100_000)}</body></html>`,
    code: 'FILE_UNREADABLE',
    message: /nested|levels/,
  },
  {
    name: 'CSV with a million columns',
    file: 'wide.csv',
    make: () => {
      const cols = 1_000_000;
      const head: string[] = new Array(cols);
      const row: string[] = new Array(cols);
      for (let i = 0; i < cols; i++) {
        head[i] = `c${i}`;
        row[i] = `v${i}`;
      }
      return `${head.join(',')}\n${row.join(',')}\n`;
    },
    code: 'FILE_UNREADABLE',
    message: /columns/,
  },
  { name: 'YAML bomb (billion laughs)', file: 'bomb.yaml', make: yamlBomb, code: 'FILE_UNREADABLE', message: /alias|resource/i },
  { name: 'invalid JSON', file: 'broken.json', make: () => '{"title": "Press", "steps": [1, 2,', code: 'FILE_UNREADABLE', message: /not valid JSON/ },
];

/** The huge PDF: every page names its number; the last one a word of its own. */
function hugePdf(): Buffer {
  const pages = Array.from({ length: HUGE_PDF_PAGES }, (_, i) => `Service page ${i + 1} lubrication schedule`);
  pages[pages.length - 1] = 'Final page: torque the flywheelbolt to 80 Nm';
  return makePdf(pages);
}

const ACCEPTED: Accepted[] = [
  { name: `huge PDF (${HUGE_PDF_PAGES} pages)`, file: 'huge.pdf', make: hugePdf, find: ['flywheelbolt'] },
  {
    name: 'invalid UTF-8',
    file: 'invalid-utf8.md',
    make: () => Buffer.concat([Buffer.from('# Valve manual\n\nThe reliefvalve opens at 200 bar. '), Buffer.from([0xff, 0xfe, 0xc3, 0x28, 0xa0]), Buffer.from(' Then check the gauge.\n')]),
    find: ['reliefvalve'],
  },
  {
    name: 'mixed encodings (GB18030 + UTF-8 in one file)',
    file: 'mixed-encoding.md',
    make: () =>
      Buffer.concat([
        Buffer.from('# 液压泵手册 Pump manual\n\n检查液压泵的压力 before the mixcheck run.\n\n'),
        // "更换密封圈" (replace the seal ring) in GB18030
        Buffer.from([0xb8, 0xfc, 0xbb, 0xbb, 0xc3, 0xdc, 0xb7, 0xe2, 0xc8, 0xa6]),
        Buffer.from(' after 500 hours.\n'),
      ]),
    find: ['mixcheck', '液压泵', '密封圈'],
  },
  {
    name: 'hostile HTML (script, javascript: URLs, event handlers, 5 MB attribute)',
    file: 'hostile.html',
    make: () =>
      [
        '<html><head><title>Coolant</title><script>document.write("scriptpayload")</script><style>.x{content:"stylepayload"}</style></head><body>',
        '<h1>Coolant pump</h1><p onclick="handlerpayload()">Flush the coolantline weekly. <a href="javascript:alert(\'hrefpayload\')">details</a></p>',
        `<img src="x" onerror="alert(1)" alt="${'A'.repeat(5_000_000)}">`,
        '<iframe src="javascript:alert(1)">framepayload</iframe><noscript>noscriptpayload</noscript>',
        '</body></html>',
      ].join(''),
    find: ['coolantline'],
    absent: ['scriptpayload', 'stylepayload', 'handlerpayload', 'hrefpayload', 'framepayload'],
  },
  { name: 'CSV with ragged rows', file: 'ragged.csv', make: () => 'code,text,remedy\nR-1,Pump raggedlow\nR-2,Belt slip,Tension belt,extra,cells\n\nR-3\n"R-4","unterminated quote\n', find: ['raggedlow'] },
  {
    name: 'JSON nested 100k levels',
    file: 'deep.json',
    make: () => `{"title": "Deepjson manual", "note": "jsonshallow text", "x": ${'['.repeat(100_000)}${']'.repeat(100_000)}}`,
    find: ['jsonshallow'],
  },
  {
    name: `an enormous single line (${BIG_LINE_MB} MB, no newline)`,
    file: 'one-line.txt',
    make: () => {
      const unit = 'check the bearing grease level and the drive belt tension ';
      return unit.repeat(Math.ceil((BIG_LINE_MB * 1024 * 1024) / unit.length)) + 'longlineend';
    },
    find: ['longlineend'],
  },
];

let root: string;
let baseLib: string;
let base: Engine;
let baseSnap: Map<string, string>;

beforeAll(async () => {
  root = tempDir('root');
  baseLib = path.join(root, 'base-lib');
  base = await createEngine({ libraryDir: baseLib, embedder: { kind: 'none' }, create: true });
  value(await base.ingest({ paths: [writeGood(path.join(root, 'base-src'))] }));
  baseSnap = snapshotDir(baseLib);
}, 60_000);

afterAll(async () => {
  await base?.close(); // before tempDirs' removal of the folders: after-hooks run last-registered first
});

/** Ingests `paths` into the base library, asserting that nothing in it changed. */
async function ingestAloneUnchanged(paths: string[]): Promise<IngestReport> {
  const before = snapshotDir(baseLib);
  const report = value(await base.ingest({ paths }));
  expect(report.files).toBe(0);
  expect(snapshotDiff(before, snapshotDir(baseLib))).toEqual([]);
  return report;
}

describe('hostile manual files', () => {
  let mixedLib: string;
  let mixed: Engine;
  let report: IngestReport;
  let src: string;

  beforeAll(async () => {
    src = path.join(tempDir('mixed'), 'manuals');
    writeGood(src);
    for (const c of [...REJECTED, ...ACCEPTED]) write(src, `bad/${c.file}`, c.make());
    fs.mkdirSync(path.join(src, 'bad', 'folder-named.md')); // a folder named like a manual
    mixedLib = path.join(tempDir('mixed-lib'), 'library');
    mixed = await createEngine({ libraryDir: mixedLib, embedder: { kind: 'none' }, create: true });
    report = value(await mixed.ingest({ paths: [src] }));
  }, 300_000); // ~10 s in CI; the 50 MB line of the full run adds ~30-60 s on 2 busy cores

  afterAll(async () => {
    await mixed?.close();
  });

  it('the good files of the run are indexed and searchable, every hostile one is accounted for', async () => {
    const listed = value(await mixed.listManuals()).map((m) => m.file);
    for (const rel of Object.keys(GOOD)) expect(listed).toContain(rel);
    await expectGoodSearchable(mixed);
    expect(report.skipped.map((s) => s.file).sort()).toEqual(REJECTED.map((c) => `bad/${c.file}`).sort());
    expect(report.files).toBe(Object.keys(GOOD).length + ACCEPTED.length);
  });

  describe.each(REJECTED)('$name', (c) => {
    it('is skipped with a clear code and message; the rest goes on; alone it changes nothing', async () => {
      const s = skippedEntry(report, `bad/${c.file}`);
      expect(s, `${c.file} should be skipped`).toBeDefined();
      expectClear({ code: s?.code ?? 'INTERNAL', message: s?.reason ?? '' }, c.code);
      expect(s?.reason).toMatch(c.message);
      expect(value(await mixed.listManuals()).map((m) => m.file)).not.toContain(`bad/${c.file}`);
      await expectGoodSearchable(mixed);
      // Alone, against a library that already has manuals: the library is byte-for-byte unchanged.
      const alone = await ingestAloneUnchanged([path.join(src, 'bad', c.file)]);
      expect(alone.skipped.map((x) => x.code)).toEqual([c.code]);
    });
  });

  describe.each(ACCEPTED)('$name', (c) => {
    it('is indexed without harm: its words are found, hostile content is not; the rest goes on', async () => {
      expect(skippedEntry(report, `bad/${c.file}`)).toBeUndefined();
      for (const w of c.find) expect(await hitsFor(mixed, w), `${w} in ${c.file}`).toContain(`bad/${c.file}`);
      for (const w of c.absent ?? []) expect(await hitsFor(mixed, w), `${w} must not be indexed`).toEqual([]);
      await expectGoodSearchable(mixed);
    });
  });

  it('a folder named like a manual (.md) is walked as a folder, not read as a file', async () => {
    expect(skippedEntry(report, 'bad/folder-named.md')).toBeUndefined();
    const alone = await ingestAloneUnchanged([path.join(src, 'bad', 'folder-named.md')]);
    expect(alone.skipped).toEqual([]);
  });

  it('an unsupported file named on its own is refused with UNSUPPORTED_FORMAT and changes nothing', async () => {
    const file = write(tempDir('unsup'), 'slides.pptx', noise(512, 9));
    const r = await ingestAloneUnchanged([file]);
    expect(r.skipped).toHaveLength(1);
    expectClear({ code: r.skipped[0]?.code ?? 'INTERNAL', message: r.skipped[0]?.reason ?? '' }, 'UNSUPPORTED_FORMAT');
  });
});

// ---- during ingest --------------------------------------------------------------------------------

describe('during ingest', () => {
  it('a file vanishing during the run is skipped as unreadable; the others are indexed', async () => {
    const src = writeGood(path.join(tempDir('vanish'), 'm'));
    const victim = write(src, 'zz/vanishing.md', '# Vanishing\n\nThe vanishword manual.\n');
    const lib = path.join(tempDir('vanish-lib'), 'library');
    const e = await createEngine({ libraryDir: lib, embedder: { kind: 'none' }, create: true });
    try {
      const r = value(
        await e.ingest({ paths: [src] }, { onProgress: (p) => p.phase === 'parse' && p.file === 'good/belt.txt' && fs.rmSync(victim, { force: true }) }),
      );
      const s = skippedEntry(r, 'zz/vanishing.md');
      expectClear({ code: s?.code ?? 'INTERNAL', message: s?.reason ?? '' }, 'FILE_UNREADABLE');
      expect(s?.reason).toMatch(/not exist|moved|deleted|Not found/);
      await expectGoodSearchable(e);
      expect(await hitsFor(e, 'vanishword')).toEqual([]);
    } finally {
      await e.close();
    }
  });

  it('a file changing during the run is indexed as read, and the next run picks up its final content', async () => {
    const src = writeGood(path.join(tempDir('change'), 'm'));
    const victim = write(src, 'zz/changing.md', '# Changing\n\nThe oldcontent manual.\n');
    const lib = path.join(tempDir('change-lib'), 'library');
    const e = await createEngine({ libraryDir: lib, embedder: { kind: 'none' }, create: true });
    try {
      let changed = false;
      const r = value(
        await e.ingest({ paths: [src] }, {
          onProgress: (p) => {
            if (!changed && p.phase === 'parse' && p.file === 'good/pump.md') {
              changed = true;
              fs.writeFileSync(victim, '# Changing\n\nThe newcontent manual, now a good deal longer than before.\n');
            }
          },
        }),
      );
      expect(changed).toBe(true);
      await expectGoodSearchable(e);
      // Read after the change: the new text is indexed, and the record describes the bytes indexed.
      expect(skippedEntry(r, 'zz/changing.md')).toBeUndefined();
      expect(await hitsFor(e, 'newcontent')).toContain('zz/changing.md');
      expect(await hitsFor(e, 'oldcontent')).toEqual([]);
      expect(value(await e.openSource({ file: 'zz/changing.md' })).changed).toBe(false);
      // The next run has nothing to do and writes nothing.
      const before = snapshotDir(lib);
      const again = value(await e.ingest({ paths: [src] }));
      expect(again.files).toBe(0);
      expect(again.unchanged).toBe(Object.keys(GOOD).length + 1);
      expect(snapshotDiff(before, snapshotDir(lib))).toEqual([]);
    } finally {
      await e.close();
    }
  });

  it('a folder that does not exist is reported as not found and changes nothing', async () => {
    const missing = path.join(root, 'no-such-folder');
    const r = await ingestAloneUnchanged([missing]);
    expect(r.skipped).toHaveLength(1);
    expectClear({ code: r.skipped[0]?.code ?? 'INTERNAL', message: r.skipped[0]?.reason ?? '' }, 'FILE_UNREADABLE');
    expect(r.skipped[0]?.reason).toContain('no-such-folder');
  });

  it('an ingested folder that disappeared (drive unplugged) removes nothing', async () => {
    const dir = path.join(tempDir('unplug'), 'usb');
    write(dir, 'unplug.md', '# USB manual\n\nThe unplugword manual.\n');
    value(await base.ingest({ paths: [dir] }));
    expect(await hitsFor(base, 'unplugword')).toContain('unplug.md');
    fs.rmSync(dir, { recursive: true });
    const r = await ingestAloneUnchanged([dir]);
    expect(r.removed).toBe(0);
    expect(r.skipped[0]?.code).toBe('FILE_UNREADABLE');
    expect(await hitsFor(base, 'unplugword')).toContain('unplug.md');
    value(await base.removeFiles(['unplug.md']));
    baseSnap = snapshotDir(baseLib);
  });
});

// ---- the library ---------------------------------------------------------------------------------

/** Mounts a tmpfs (root only); null when this machine does not allow it. */
function mountTmpfs(dir: string, opts: string): boolean {
  if (process.platform !== 'linux' || process.getuid?.() !== 0) return false;
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', opts, 'tmpfs', dir], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

function umount(dir: string): void {
  try {
    execFileSync('umount', [dir], { stdio: 'ignore' });
  } catch {
    // not mounted
  }
}

async function seededLibrary(lib: string): Promise<void> {
  const e = await createEngine({ libraryDir: lib, embedder: { kind: 'none' }, create: true });
  try {
    value(await e.ingest({ paths: [writeGood(tempDir('seed'))] }));
  } finally {
    await e.close();
  }
}

describe('the library', () => {
  it('a read-only library folder: writes fail clearly, searching still works, nothing changes', async () => {
    const holder = tempDir('ro');
    const lib = path.join(holder, 'lib');
    fs.mkdirSync(lib);
    const mounted = mountTmpfs(lib, 'size=64m');
    try {
      await seededLibrary(lib);
      const before = snapshotDir(lib);
      // Read-only for everyone: a read-only remount as root, the permission bits otherwise.
      if (mounted) execFileSync('mount', ['-o', 'remount,ro', lib]);
      else fs.chmodSync(lib, 0o555);
      const e = await createEngine({ libraryDir: lib, embedder: { kind: 'none' } });
      try {
        const err = failure(await e.ingest({ paths: [writeGood(tempDir('ro-src'))] }));
        expectClear(err, 'LIBRARY_READ_ONLY');
        expect(err.message).toMatch(/read-only|cannot be written|permission/i);
        await expectGoodSearchable(e, '');
        // Opened for searching first, the engine still refuses writes with the same clear error.
        expectClear(failure(await e.removeFiles(['good/pump.md'])), 'LIBRARY_READ_ONLY');
      } finally {
        await e.close();
      }
      expect(snapshotDiff(before, snapshotDir(lib))).toEqual([]);
    } finally {
      if (mounted) umount(lib);
      else fs.chmodSync(lib, 0o755);
    }
  });

  const canMount = (() => {
    const probe = tempDir('probe');
    const ok = mountTmpfs(probe, 'size=1m');
    if (ok) umount(probe);
    return ok;
  })();

  it.runIf(canMount)('a full disk (tmpfs): ingest fails with DISK_FULL, the library still answers as before', async () => {
    const lib = tempDir('full');
    expect(mountTmpfs(lib, 'size=6m')).toBe(true);
    try {
      await seededLibrary(lib);
      const filesBefore = fs.readFileSync(path.join(lib, 'files.json'));
      // Fill the disk, leaving a few KB.
      const free = fs.statfsSync(lib).bavail * fs.statfsSync(lib).bsize;
      fs.writeFileSync(path.join(lib, 'filler.bin'), Buffer.alloc(Math.max(0, free - 8 * 1024)));
      const src = tempDir('full-src');
      for (let i = 0; i < 20; i++) write(src, `more/m${i}.md`, `# Extra ${i}\n\n${'diskfill words for the index '.repeat(400)}\n`);
      const e = await createEngine({ libraryDir: lib, embedder: { kind: 'none' } });
      try {
        const res = await e.ingest({ paths: [src] });
        const err = failure(res);
        expectClear(err, 'DISK_FULL');
      } finally {
        await e.close();
      }
      fs.rmSync(path.join(lib, 'filler.bin'));
      expect(fs.readFileSync(path.join(lib, 'files.json'))).toEqual(filesBefore);
      const again = await createEngine({ libraryDir: lib, embedder: { kind: 'none' } });
      try {
        await expectGoodSearchable(again);
        expect(value(await again.info()).files).toBe(Object.keys(GOOD).length);
      } finally {
        await again.close();
      }
    } finally {
      umount(lib);
    }
  });

  it('a full disk (injected ENOSPC on every file opened for writing in the library): DISK_FULL, the library answers as before', async () => {
    const lib = path.join(tempDir('enospc'), 'lib');
    await seededLibrary(lib);
    const before = snapshotDir(lib);
    const e = await createEngine({ libraryDir: lib, embedder: { kind: 'none' } });
    try {
      expect(value(await e.info()).files).toBe(Object.keys(GOOD).length); // open (and lock) first
      const src = tempDir('enospc-src');
      for (let i = 0; i < 3; i++) write(src, `more/m${i}.md`, `# Extra ${i}\n\nThe enospcword manual ${i}.\n`);
      diskFull.under = lib;
      let err: { code: ErrorCode; message: string };
      try {
        err = failure(await e.ingest({ paths: [src] }));
      } finally {
        diskFull.under = '';
      }
      expectClear(err, 'DISK_FULL');
      await expectGoodSearchable(e);
      expect(await hitsFor(e, 'enospcword')).toEqual([]);
    } finally {
      await e.close();
    }
    // Rows written before the failed commit are garbage the next writer removes; the commit point is unchanged.
    const after = snapshotDir(lib);
    for (const f of ['library.json', 'files.json', 'code-schemes.json']) expect(after.get(f)).toBe(before.get(f));
    const again = await createEngine({ libraryDir: lib, embedder: { kind: 'none' } });
    try {
      await expectGoodSearchable(again);
      expect(value(await again.info()).files).toBe(Object.keys(GOOD).length);
      expect(await hitsFor(again, 'enospcword')).toEqual([]);
    } finally {
      await again.close();
    }
  });

  it('a second writer in the same process gets LIBRARY_LOCKED; nothing changes', async () => {
    const before = snapshotDir(baseLib);
    const second = await createEngine({ libraryDir: baseLib, embedder: { kind: 'none' } });
    try {
      const err = failure(await second.ingest({ paths: [writeGood(tempDir('lock-src'))] }));
      expectClear(err, 'LIBRARY_LOCKED');
    } finally {
      await second.close();
    }
    expect(snapshotDiff(before, snapshotDir(baseLib))).toEqual([]);
    await expectGoodSearchable(base);
  });

  it('a library locked by another live process gets LIBRARY_LOCKED; a read-only engine still searches', async () => {
    const lib = path.join(tempDir('lock2'), 'lib');
    await seededLibrary(lib);
    const child: ChildProcess = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)'], { stdio: 'ignore' });
    try {
      fs.writeFileSync(path.join(lib, LOCK_FILE), JSON.stringify({ pid: child.pid, host: os.hostname(), at: new Date().toISOString() }));
      const before = snapshotDir(lib);
      const e = await createEngine({ libraryDir: lib, embedder: { kind: 'none' } });
      try {
        const err = failure(await e.ingest({ paths: [writeGood(tempDir('lock2-src'))] }));
        expectClear(err, 'LIBRARY_LOCKED');
        expect(err.message).toContain(String(child.pid));
      } finally {
        await e.close();
      }
      const reader = await createEngine({ libraryDir: lib, embedder: { kind: 'none' }, readOnly: true });
      try {
        await expectGoodSearchable(reader);
      } finally {
        await reader.close();
      }
      expect(snapshotDiff(before, snapshotDir(lib))).toEqual([]);
    } finally {
      child.kill('SIGKILL');
    }
  });

  it('a stale lock of a dead process is taken over; the library opens and ingests', async () => {
    const lib = path.join(tempDir('stale'), 'lib');
    await seededLibrary(lib);
    const dead = spawn(process.execPath, ['-e', '0'], { stdio: 'ignore' });
    await new Promise((r) => dead.on('exit', r));
    fs.writeFileSync(path.join(lib, LOCK_FILE), JSON.stringify({ pid: dead.pid, host: os.hostname(), at: new Date().toISOString() }));
    const e = await createEngine({ libraryDir: lib, embedder: { kind: 'none' } });
    try {
      const src = write(tempDir('stale-src'), 'stale.md', '# Stale\n\nThe staleword manual.\n');
      value(await e.ingest({ paths: [src] }));
      expect(await hitsFor(e, 'staleword')).toContain('stale.md');
    } finally {
      await e.close();
    }
    expect(fs.existsSync(path.join(lib, LOCK_FILE))).toBe(false);
  });

  it('a library "folder" that is a file: clear error, the file is untouched', async () => {
    const holder = tempDir('isfile');
    const lib = write(holder, 'library', 'I am a file, not a library folder.\n');
    const before = snapshotDir(holder);
    const e = await createEngine({ libraryDir: lib, embedder: { kind: 'none' } });
    try {
      const err = failure(await e.ingest({ paths: [writeGood(tempDir('isfile-src'))] }));
      expectClear(err);
      expect(err.message).toMatch(/not a folder|is a file/);
      expectClear(failure(await e.search({ query: 'pump' })));
    } finally {
      await e.close();
    }
    expect(snapshotDiff(before, snapshotDir(holder))).toEqual([]);
  });

  it.each([
    ['library.json', '{"formatVersion": 1, "chunkerVer'],
    ['library.json', '\u0000\u0000\u0000\u0000'],
  ])('a corrupt %s (%#): clear error on open, nothing changes', async (name, content) => {
    const lib = path.join(tempDir('corrupt'), 'lib');
    await seededLibrary(lib);
    fs.writeFileSync(path.join(lib, name), content);
    const before = snapshotDir(lib);
    const e = await createEngine({ libraryDir: lib, embedder: { kind: 'none' } });
    try {
      const err = failure(await e.search({ query: 'pump' }));
      expectClear(err, 'LIBRARY_FORMAT_MISMATCH');
      expect(err.message).toContain(name);
      expectClear(failure(await e.ingest({ paths: [writeGood(tempDir('corrupt-src'))] })), 'LIBRARY_FORMAT_MISMATCH');
    } finally {
      await e.close();
    }
    expect(snapshotDiff(before, snapshotDir(lib))).toEqual([]);
  });

  it('library.json written by a newer version: LIBRARY_FORMAT_MISMATCH, nothing changes', async () => {
    const lib = path.join(tempDir('future'), 'lib');
    await seededLibrary(lib);
    const meta = JSON.parse(fs.readFileSync(path.join(lib, 'library.json'), 'utf8')) as Record<string, unknown>;
    fs.writeFileSync(path.join(lib, 'library.json'), JSON.stringify({ ...meta, formatVersion: 99 }));
    const before = snapshotDir(lib);
    const e = await createEngine({ libraryDir: lib, embedder: { kind: 'none' } });
    try {
      const err = failure(await e.search({ query: 'pump' }));
      expectClear(err, 'LIBRARY_FORMAT_MISMATCH');
    } finally {
      await e.close();
    }
    expect(snapshotDiff(before, snapshotDir(lib))).toEqual([]);
  });
});

// ---- packs ---------------------------------------------------------------------------------------

describe('hostile packs', () => {
  let packLib: string;
  let good: string;
  let keyDir: string;
  let keys: { privateKey: string; publicKey: string };

  beforeAll(async () => {
    const dir = tempDir('packs');
    keyDir = path.join(dir, 'keys');
    keys = await generateKeys(keyDir);
    good = path.join(dir, 'good.mdpack');
    await buildPack({
      id: 'shop-manuals',
      name: 'Shop manuals',
      publisher: 'Fictional Works',
      version: '1.0',
      embedder: { kind: 'none' },
      source: writeGood(path.join(dir, 'src')),
      out: good,
      keyFile: keys.privateKey,
    });
    packLib = path.join(dir, 'library');
    await seededLibrary(packLib);
    await trustKey(keys.publicKey, packLib);
  }, 60_000);

  const refused = async (file: string, codes: ErrorCode[]): Promise<{ code: ErrorCode; message: string }> => {
    const before = snapshotDir(packLib);
    const e = await createEngine({ libraryDir: packLib, embedder: { kind: 'none' } });
    try {
      const err = failure(await e.importPack({ file }));
      expectClear(err, codes);
      expect(value(await e.listPacks())).toEqual([]);
      await expectGoodSearchable(e);
      return err;
    } finally {
      await e.close();
      expect(snapshotDiff(before, snapshotDir(packLib))).toEqual([]);
    }
  };

  it('path traversal in an entry', async () => {
    const out = path.join(tempDir('pk'), 'p.mdpack');
    await remake(good, out, (_m, entries) => [...entries, { path: '../../evil.txt', data: Buffer.from('x') }], null);
    expect((await refused(out, ['PACK_INVALID'])).message).toMatch(/path|segment/);
  });

  it('a bad signature (one byte of the manifest changed)', async () => {
    const out = path.join(tempDir('pk'), 'p.mdpack');
    fs.copyFileSync(good, out);
    flipByteOf(out, '"publisher":"Fictional Works"', 14);
    await refused(out, ['PACK_SIGNATURE']);
  });

  it('a truncated pack', async () => {
    const out = path.join(tempDir('pk'), 'p.mdpack');
    const buf = fs.readFileSync(good);
    fs.writeFileSync(out, buf.subarray(0, Math.floor(buf.length * 0.5)));
    await refused(out, ['PACK_INVALID', 'PACK_CHECKSUM']);
  });

  it('a manifest that is not JSON', async () => {
    const out = path.join(tempDir('pk'), 'p.mdpack');
    const entries = await readEntries(good);
    const i = entries.findIndex((e) => e.path === 'manifest.json');
    entries[i] = { ...(entries[i] as RawEntry), data: Buffer.from('{"format": 1, "id": ') };
    writeEntries(out, entries);
    await refused(out, ['PACK_INVALID', 'PACK_SIGNATURE', 'PACK_FORMAT']);
  });

  it('a manifest of a future format (re-signed with the trusted key)', async () => {
    const out = path.join(tempDir('pk'), 'p.mdpack');
    const priv = (await import('node:crypto')).createPrivateKey(fs.readFileSync(keys.privateKey));
    await remake(good, out, (m) => void Object.assign(m, { formatVersion: 999, format: 999 }), { privateKey: priv, publicPem: fs.readFileSync(keys.publicKey, 'utf8') });
    await refused(out, ['PACK_FORMAT', 'PACK_INVALID']);
  });

  it('random bytes named .mdpack', async () => {
    const out = write(tempDir('pk'), 'noise.mdpack', noise(64 * 1024, 77));
    await refused(out, ['PACK_INVALID']);
  });

  it('a zero-byte pack', async () => {
    const out = write(tempDir('pk'), 'empty.mdpack', '');
    await refused(out, ['PACK_INVALID']);
  });

  it('a pack file that does not exist', async () => {
    await refused(path.join(root, 'missing.mdpack'), ['NOT_FOUND', 'FILE_UNREADABLE', 'PACK_INVALID']);
  });
});

// ---- queries -------------------------------------------------------------------------------------

const QUERY_TIMEOUT_MS = 10_000;

function withinTime<T>(p: Promise<T>, what: string): Promise<T> {
  return Promise.race([p, new Promise<T>((_, reject) => setTimeout(() => reject(new Error(`${what} hung for ${QUERY_TIMEOUT_MS} ms`)), QUERY_TIMEOUT_MS).unref())]);
}

const HOSTILE_QUERIES: [string, unknown][] = [
  ['empty', ''],
  ['whitespace only', ' \t\n\u00a0\u3000  '],
  ['100 kB', 'pump '.repeat(20_480)],
  ['NUL and control characters', 'pump\u0000seal\u0001\u0007\u001b[31m\u007f E-401'],
  ['regex/SQL/FTS syntax', `"*?()[]{}:^~!' OR 1=1; -- AND NOT pump* file:'x' \\ ||`],
  ['lone surrogates', 'pump \ud800 seal \udfff E-401 \udc00\ud83d'],
  ['10k tokens', Array.from({ length: 10_000 }, (_, i) => `t${i}`).join(' ').slice(0, 1999)],
  ['10k tokens, over the length limit', Array.from({ length: 10_000 }, (_, i) => `w${i}`).join(' ')],
  ['RTL and zero-width characters', '\u202epump\u200b\u200c\u200d\ufeff seal \u2066E-401\u2069 مضخة \u200f'],
  ['not text at all', { $ne: null }],
];

describe.each(HOSTILE_QUERIES)('hostile query: %s', (_name, q) => {
  it('search, lookupCode and ask return results or a clear error, never throw or hang, change nothing', async () => {
    const before = snapshotDir(baseLib);
    const calls: [string, () => Promise<Result<unknown>>][] = [
      ['search', () => base.search({ query: q as string, k: 5 })],
      ['search (keyword mode)', () => base.search({ query: q as string, mode: 'keyword' })],
      ['lookupCode', () => base.lookupCode({ text: q as string })],
      ['ask', () => base.ask({ question: q as string, prefer: 'extractive' })],
    ];
    for (const [what, call] of calls) {
      let res: Result<unknown>;
      try {
        res = await withinTime(call(), what);
      } catch (err) {
        expect.fail(`${what} threw: ${String(err)}`);
      }
      if (!res.ok) {
        expectClear(res.error, ['INVALID_INPUT']);
      } else {
        expect(res.value).toBeTypeOf('object');
      }
    }
    expect(snapshotDiff(before, snapshotDir(baseLib))).toEqual([]);
  });
});

describe('query limits', () => {
  it('a k out of range is INVALID_INPUT, a query with real words next to hostile ones still finds them', async () => {
    for (const k of [0, -1, 1e9, 1.5, Number.NaN]) expectClear(failure(await base.search({ query: 'pump', k })), 'INVALID_INPUT');
    const askErr = failure(await base.ask({ question: 'pump', k: 0 }));
    expectClear(askErr, 'INVALID_INPUT');
    expect(askErr.message).toMatch(/\bk\b/);
    expect(await hitsFor(base, `quorvalve \u0000 "*?()[]{}:^~! OR 1=1; -- \ud800 \u200b`)).toContain('good/pump.md');
    const codes = value(await base.lookupCode({ text: '\u200bE-401\u0000' }));
    expect(codes.matches.map((m) => m.file)).toContain('good/codes.csv');
    expect(snapshotDiff(baseSnap, snapshotDir(baseLib))).toEqual([]);
  });
});
