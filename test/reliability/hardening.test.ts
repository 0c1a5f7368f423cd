/**
 * Hardening cases of issue 15 (found by an outside probe), each against a real keyword-only engine with
 * the library hashed before and after where nothing should change. Every refusal: a code, a message that
 * says what to do next, the library byte-identical.
 *
 * Cases
 *   1  the library never ingests itself: its own folder named, a library inside the manuals folder
 *      (settles on the second run), a file inside a library named on its own; a manual called
 *      library.json is still a manual
 *   2  locks that prove themselves stale: another boot id, a reused pid (other start time), an old lock
 *      written before this boot; a lock from another computer and a live one: LIBRARY_LOCKED naming
 *      the lock file and what is safe to do; the lock records boot id, start time and host
 *   3  a FIFO named directly, FIFOs and symlinks inside a folder: a report line each, never a hang
 *   6  resource caps: a DOCX zip bomb (ratio), a DOCX lying about its sizes, a PDF listing one page
 *      200,000 times, a table over the rows cap, a file over the wall-time cap: skipped and reported,
 *      the rest goes on
 *   8  files.json.<pid>.tmp left by a killed writer is removed by the next writer; a commit failing on
 *      a full disk leaves no temp file
 *   9  browser mode under 2,000 slow connections and `ulimit -n 1024`: real requests are still served,
 *      the slow ones are closed by the header timeout
 *   10 file names with control characters are printed escaped by list, search and ingest; a legal
 *      Linux name like `x\..\evil.md` opens through browser mode
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import type { IngestReport } from '../../native/contract/api.js';
import type { Result } from '../../native/contract/errors.js';
import { createEngine, type Engine } from '../../native/engine.js';
import { runCli } from '../../native/cli/main.js';
import { startServer } from '../../native/server/http.js';
import { LOCK_FILE } from '../../native/store/lock.js';
import { makeDocx, makePdf, makeRepeatedPagePdf, snapshotDiff, snapshotDir } from './bad-input-cases.js';
import { tempDirs, value, failure, expectClear, write, NEXT_STEP } from './helpers.js';

/**
 * A full disk: while `diskFull.under` is set, a file opened for writing under it opens (as on a real
 * full disk) but every write to it fails with ENOSPC.
 */
const diskFull = vi.hoisted(() => ({ under: '' }));
vi.mock('node:fs/promises', async (importOriginal) => {
  const real = await importOriginal<typeof import('node:fs/promises')>();
  const enospc = (file: unknown) => Object.assign(new Error(`ENOSPC: no space left on device, write '${String(file)}'`), { code: 'ENOSPC', errno: -28 });
  const open = (async (file: Parameters<typeof real.open>[0], flags?: string | number, ...rest: unknown[]) => {
    const fh = await (real.open as (...a: unknown[]) => ReturnType<typeof real.open>)(file, flags, ...rest);
    if (!diskFull.under || !String(file).startsWith(diskFull.under) || flags === undefined || flags === 'r') return fh;
    return {
      writeFile: () => Promise.reject(enospc(file)),
      write: () => Promise.reject(enospc(file)),
      sync: () => fh.sync(),
      close: () => fh.close(),
    };
  }) as typeof real.open;
  return { ...real, open, default: { ...real, open } };
});

const REPO_ROOT = path.resolve(import.meta.dirname, '../..');

const tempDir = tempDirs('hard');





const GOOD: Record<string, { text: string; word: string }> = {
  'good/pump.md': { word: 'quorvalve', text: '# Pump manual\n\n## Priming\n\nOpen the quorvalve and fill the casing before starting the pump.\n' },
  'good/belt.txt': { word: 'tensirod', text: 'Belt conveyor notes\n\nAdjust the tensirod a quarter turn when the belt slips.\n' },
};

function writeGood(dir: string): string {
  for (const [rel, g] of Object.entries(GOOD)) write(dir, rel, g.text);
  return dir;
}

async function open(lib: string): Promise<Engine> {
  return createEngine({ libraryDir: lib, embedder: { kind: 'none' }, create: true });
}

async function hitsFor(engine: Engine, query: string): Promise<string[]> {
  return value(await engine.search({ query, k: 10 })).hits.map((h) => h.file);
}

async function expectGoodSearchable(engine: Engine): Promise<void> {
  for (const [rel, g] of Object.entries(GOOD)) expect(await hitsFor(engine, g.word)).toContain(rel);
}

/** A library holding the good manuals, closed. */
async function seededLibrary(lib: string): Promise<void> {
  const e = await open(lib);
  try {
    value(await e.ingest({ paths: [writeGood(tempDir('seed'))] }));
  } finally {
    await e.close();
  }
}

async function ingestOnce(lib: string, paths: string[]): Promise<IngestReport> {
  const e = await open(lib);
  try {
    return value(await e.ingest({ paths }));
  } finally {
    await e.close();
  }
}

function skippedFor(report: IngestReport, fragment: string) {
  return report.skipped.find((s) => s.file.includes(fragment));
}

function deadPid(): Promise<number> {
  const dead = spawn(process.execPath, ['-e', '0'], { stdio: 'ignore' });
  return new Promise((resolve) => dead.on('exit', () => resolve(dead.pid as number)));
}

// ---- 1: the library never ingests itself ------------------------------------------------------------

describe('the library never ingests itself', () => {
  it('its own folder named as the manuals folder: one report line, nothing indexed, the library unchanged', async () => {
    const lib = path.join(tempDir('self'), 'lib');
    await seededLibrary(lib);
    const before = snapshotDir(lib);
    const report = await ingestOnce(lib, [lib]);
    expect(report.files).toBe(0);
    const line = skippedFor(report, 'lib');
    expect(line, JSON.stringify(report.skipped)).toBeDefined();
    expectClear({ code: line?.code ?? '', message: line?.reason ?? '' }, 'INVALID_INPUT');
    expect(snapshotDiff(before, snapshotDir(lib))).toEqual([]);
    const e = await open(lib);
    try {
      expect(value(await e.listManuals()).map((m) => m.file).sort()).toEqual(Object.keys(GOOD).sort());
      expect(await hitsFor(e, 'formatVersion chunkerVersion')).toEqual([]);
    } finally {
      await e.close();
    }
  });

  it('a library inside the manuals folder is left out, and a second run changes nothing', async () => {
    const manuals = writeGood(tempDir('nested'));
    const lib = path.join(manuals, 'library');
    const first = await ingestOnce(lib, [manuals]);
    expect(first.files).toBe(Object.keys(GOOD).length);
    const e = await open(lib);
    try {
      expect(value(await e.listManuals()).map((m) => m.file).sort()).toEqual(Object.keys(GOOD).sort());
    } finally {
      await e.close();
    }
    const before = snapshotDir(lib);
    const second = await ingestOnce(lib, [manuals]);
    expect(second.files).toBe(0);
    expect(second.unchanged).toBe(Object.keys(GOOD).length);
    expect(second.skipped.map((s) => s.code)).toEqual(['INVALID_INPUT']);
    expect(snapshotDiff(before, snapshotDir(lib))).toEqual([]);
  });

  it("a library's own file named on its own is refused; a manual called library.json is still read", async () => {
    const lib = path.join(tempDir('selffile'), 'lib');
    await seededLibrary(lib);
    const before = snapshotDir(lib);
    const report = await ingestOnce(lib, [path.join(lib, 'files.json')]);
    expect(report.files).toBe(0);
    expect(report.skipped[0]?.code).toBe('INVALID_INPUT');
    expect(snapshotDiff(before, snapshotDir(lib))).toEqual([]);

    const manuals = tempDir('libjson');
    write(manuals, 'library.json', JSON.stringify({ title: 'Library shelving', shelves: [{ name: 'Shelf', note: 'The shelfbrackword bracket' }] }));
    const r = await ingestOnce(lib, [manuals]);
    expect(r.files).toBe(1);
    expect(r.skipped).toEqual([]);
  });
});

// ---- 2: stale locks ----------------------------------------------------------------------------------

describe('locks that prove themselves stale', () => {
  const bootId = (() => {
    try {
      return fs.readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim();
    } catch {
      return '';
    }
  })();
  const onLinux = bootId !== '';

  function lockWith(lib: string, data: Record<string, unknown>): void {
    fs.writeFileSync(path.join(lib, LOCK_FILE), JSON.stringify({ host: os.hostname(), at: new Date().toISOString(), ...data }));
  }

  async function expectTakenOver(lib: string): Promise<void> {
    const src = write(tempDir('stale-src'), 'stale.md', '# Stale\n\nThe staleword manual.\n');
    const e = await open(lib);
    try {
      value(await e.ingest({ paths: [src] }));
      expect(await hitsFor(e, 'staleword')).toContain('stale.md');
    } finally {
      await e.close();
    }
    expect(fs.existsSync(path.join(lib, LOCK_FILE))).toBe(false);
  }

  it.runIf(onLinux)('a lock from before a restart (another boot id) is taken over, though its pid runs again', async () => {
    const lib = path.join(tempDir('boot'), 'lib');
    await seededLibrary(lib);
    lockWith(lib, { pid: process.ppid, bootId: '00000000-0000-4000-8000-000000000000' });
    await expectTakenOver(lib);
  });

  it.runIf(onLinux)('a lock whose pid now belongs to a later process (another start time) is taken over', async () => {
    const lib = path.join(tempDir('reuse'), 'lib');
    await seededLibrary(lib);
    const child: ChildProcess = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)'], { stdio: 'ignore' });
    try {
      await new Promise((r) => setTimeout(r, 100));
      lockWith(lib, { pid: child.pid, bootId, startTicks: 1 });
      await expectTakenOver(lib);
    } finally {
      child.kill('SIGKILL');
    }
  });

  it.runIf(onLinux)('a lock of an older version written before this boot is taken over', async () => {
    const lib = path.join(tempDir('oldlock'), 'lib');
    await seededLibrary(lib);
    lockWith(lib, { pid: process.ppid, at: '2001-01-01T00:00:00.000Z' });
    await expectTakenOver(lib);
  });

  it('a lock from another computer (shared drive): LIBRARY_LOCKED naming the lock file and when deleting it is safe', async () => {
    const lib = path.join(tempDir('host'), 'lib');
    await seededLibrary(lib);
    lockWith(lib, { pid: 4242, host: 'workshop-pc-7', bootId: 'x' });
    const before = snapshotDir(lib);
    const e = await open(lib);
    try {
      const err = failure(await e.ingest({ paths: [writeGood(tempDir('host-src'))] }));
      expectClear(err, 'LIBRARY_LOCKED');
      expect(err.message).toContain(path.join(lib, LOCK_FILE));
      expect(err.message).toContain('workshop-pc-7');
      expect(err.message).toMatch(/safe to delete/);
    } finally {
      await e.close();
    }
    expect(snapshotDiff(before, snapshotDir(lib))).toEqual([]);
  });

  it('a live lock: LIBRARY_LOCKED names the lock file and what is safe to do; the lock records boot id, start time and host', async () => {
    const lib = path.join(tempDir('live'), 'lib');
    await seededLibrary(lib);
    const holder = await open(lib);
    try {
      value(await holder.ingest({ paths: [writeGood(tempDir('live-src'))] }));
      const lock = JSON.parse(fs.readFileSync(path.join(lib, LOCK_FILE), 'utf8')) as Record<string, unknown>;
      expect(lock.pid).toBe(process.pid);
      expect(lock.host).toBe(os.hostname());
      if (onLinux) {
        expect(lock.bootId).toBe(bootId);
        expect(typeof lock.startTicks).toBe('number');
      }
      const other = await open(lib);
      try {
        const err = failure(await other.ingest({ paths: [writeGood(tempDir('live-src2'))] }));
        expectClear(err, 'LIBRARY_LOCKED');
        expect(err.message).toMatch(/(wait|close)/i);
      } finally {
        await other.close();
      }
    } finally {
      await holder.close();
    }
    // Another live process (not this one): the message names its lock file.
    const child: ChildProcess = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)'], { stdio: 'ignore' });
    try {
      await new Promise((r) => setTimeout(r, 100));
      lockWith(lib, { pid: child.pid });
      const e = await open(lib);
      try {
        const err = failure(await e.ingest({ paths: [writeGood(tempDir('live-src3'))] }));
        expectClear(err, 'LIBRARY_LOCKED');
        expect(err.message).toContain(path.join(lib, LOCK_FILE));
        expect(err.message).toContain(`pid ${child.pid}`);
        expect(err.message).toMatch(/safe to delete/);
      } finally {
        await e.close();
      }
    } finally {
      child.kill('SIGKILL');
    }
  });
});

// ---- 3: FIFOs and symlinks ---------------------------------------------------------------------------

describe('files that are not regular files get a report line', () => {
  const canFifo = process.platform !== 'win32';

  it.runIf(canFifo)('a FIFO named directly, FIFOs and symlinks inside a folder: reported, never read, the rest goes on', async () => {
    const src = writeGood(tempDir('fifo'));
    const direct = path.join(tempDir('fifo-direct'), 'pipe.md');
    execFileSync('mkfifo', [direct]);
    execFileSync('mkfifo', [path.join(src, 'good', 'inner-pipe.md')]);
    const outside = write(tempDir('outside'), 'secret.md', '# Secret\n\nThe outsideword text.\n');
    fs.symlinkSync(outside, path.join(src, 'good', 'link.md'));
    fs.symlinkSync(path.dirname(outside), path.join(src, 'good', 'linked-folder'));
    const lib = path.join(tempDir('fifo-lib'), 'lib');

    const alone = await ingestOnce(lib, [direct]);
    expect(alone.files).toBe(0);
    expect(alone.skipped).toHaveLength(1);
    expect(alone.skipped[0]?.code).toBe('FILE_UNREADABLE');
    expect(alone.skipped[0]?.reason).toMatch(/named pipe/);
    expect(alone.skipped[0]?.reason).toMatch(NEXT_STEP);

    const report = await ingestOnce(lib, [src]);
    expect(report.files).toBe(Object.keys(GOOD).length);
    for (const name of ['inner-pipe.md', 'link.md', 'linked-folder']) {
      const line = skippedFor(report, name);
      expect(line, `${name}: ${JSON.stringify(report.skipped)}`).toBeDefined();
      expect(line?.reason).toMatch(NEXT_STEP);
    }
    const e = await open(lib);
    try {
      await expectGoodSearchable(e);
      expect(await hitsFor(e, 'outsideword')).toEqual([]);
    } finally {
      await e.close();
    }
  });
});

// ---- 6: resource caps --------------------------------------------------------------------------------

describe('resource caps', () => {
  /** Runs `fn` with the given settings in the environment. */
  async function withEnv<T>(env: Record<string, string>, fn: () => Promise<T>): Promise<T> {
    const old = Object.fromEntries(Object.keys(env).map((k) => [k, process.env[k]]));
    Object.assign(process.env, env);
    try {
      return await fn();
    } finally {
      for (const [k, v] of Object.entries(old)) {
        if (v === undefined) delete process.env[k];
        else process.env[k] = v;
      }
    }
  }

  /** One hostile file in a run with good files: skipped with the cap's message; alone, the library is unchanged. */
  async function expectCapped(rel: string, data: Buffer | string, setting: RegExp, env: Record<string, string> = {}): Promise<void> {
    const lib = path.join(tempDir('cap'), 'lib');
    const src = writeGood(tempDir('cap-src'));
    write(src, rel, data);
    const t0 = Date.now();
    const report = await withEnv(env, () => ingestOnce(lib, [src]));
    expect(Date.now() - t0).toBeLessThan(30_000);
    const line = report.skipped.find((s) => s.file === rel);
    expect(line, JSON.stringify(report.skipped)).toBeDefined();
    expect(line?.code).toBe('FILE_UNREADABLE');
    expect(line?.reason).toMatch(setting);
    expect(line?.reason).toMatch(NEXT_STEP);
    expect(report.files).toBe(Object.keys(GOOD).length);
    const e = await open(lib);
    try {
      await expectGoodSearchable(e);
    } finally {
      await e.close();
    }
    const before = snapshotDir(lib);
    const alone = await withEnv(env, () => ingestOnce(lib, [path.join(src, ...rel.split('/'))]));
    expect(alone.files).toBe(0);
    expect(alone.skipped[0]?.code).toBe('FILE_UNREADABLE');
    expect(snapshotDiff(before, snapshotDir(lib))).toEqual([]);
  }

  it('a DOCX that expands a thousandfold (zip bomb) is refused by the ratio cap before it is inflated in memory', async () => {
    await expectCapped('bomb/expands.docx', makeDocx(['The bombword paragraph.'], 64 * 1024 * 1024), /MANUALDESK_MAX_ZIP_RATIO/);
  }, 120_000);

  it('a DOCX lying about its sizes is refused by the size cap, not by a reader error', async () => {
    await expectCapped('bomb/lies.docx', makeDocx(['The liarword paragraph.'], 24 * 1024 * 1024, { lieAboutSize: true }), /MANUALDESK_MAX_UNZIPPED_MB/, {
      MANUALDESK_MAX_UNZIPPED_MB: '16',
    });
  }, 120_000);

  it('an ordinary DOCX is read as before', async () => {
    const lib = path.join(tempDir('docx-ok'), 'lib');
    const src = tempDir('docx-ok-src');
    write(src, 'ok.docx', makeDocx(['Check the docxokword valve.'], 256 * 1024));
    const report = await ingestOnce(lib, [src]);
    expect(report.skipped).toEqual([]);
    const e = await open(lib);
    try {
      expect(await hitsFor(e, 'docxokword')).toContain('ok.docx');
    } finally {
      await e.close();
    }
  }, 120_000);

  it('a 1.2 MB PDF listing one page 200,000 times is refused by the page cap at once', async () => {
    await expectCapped('bomb/pages.pdf', makeRepeatedPagePdf(200_000), /MANUALDESK_MAX_PDF_PAGES/);
  }, 60_000);

  it('a table over the rows cap (lowered by its setting) is refused', async () => {
    const rows = ['code,meaning', ...Array.from({ length: 1500 }, (_, i) => `E-${i},Meaning ${i}`)].join('\n');
    await expectCapped('big/codes.csv', rows, /MANUALDESK_MAX_TABLE_ROWS/, { MANUALDESK_MAX_TABLE_ROWS: '1000' });
  }, 120_000);

  it('a file over the wall-time cap is given up and reported; the lock is released', async () => {
    const lib = path.join(tempDir('slow'), 'lib');
    await seededLibrary(lib);
    const src = tempDir('slow-src');
    write(src, 'slow.pdf', makePdf(Array.from({ length: 1500 }, (_, i) => `Slowword page ${i + 1} of the long manual.`)));
    const before = snapshotDir(lib);
    const report = await withEnv({ MANUALDESK_MAX_PARSE_SECONDS: '0.3' }, () => ingestOnce(lib, [src]));
    expect(report.files).toBe(0);
    expect(report.skipped[0]?.code).toBe('FILE_UNREADABLE');
    expect(report.skipped[0]?.reason).toMatch(/MANUALDESK_MAX_PARSE_SECONDS/);
    expect(snapshotDiff(before, snapshotDir(lib))).toEqual([]);
    expect(fs.existsSync(path.join(lib, LOCK_FILE))).toBe(false);
  }, 120_000);
});

// ---- 8: leftovers and a full disk --------------------------------------------------------------------

describe('temp files of the library', () => {
  it('files.json.<pid>.tmp left by a killed writer is removed by the next writer', async () => {
    const lib = path.join(tempDir('leftover'), 'lib');
    await seededLibrary(lib);
    const pid = await deadPid();
    const leftover = path.join(lib, `files.json.${pid}.tmp`);
    fs.writeFileSync(leftover, '{"half": ');
    const report = await ingestOnce(lib, [writeGood(tempDir('leftover-src'))]);
    expect(report.files + report.unchanged).toBe(Object.keys(GOOD).length);
    expect(fs.existsSync(leftover)).toBe(false);
  });

  it('a commit that fails on a full disk leaves no temp file; the library is as before', async () => {
    const lib = path.join(tempDir('full'), 'lib');
    await seededLibrary(lib);
    const e = await open(lib);
    try {
      expect(value(await e.info()).files).toBe(Object.keys(GOOD).length);
      const src = write(tempDir('full-src'), 'more.md', '# More\n\nThe fullword manual.\n');
      diskFull.under = lib;
      let err;
      try {
        err = failure(await e.ingest({ paths: [src] }));
      } finally {
        diskFull.under = '';
      }
      expectClear(err, 'DISK_FULL');
      expect(fs.readdirSync(lib).filter((n) => n.endsWith('.tmp'))).toEqual([]);
    } finally {
      await e.close();
    }
  });
});

// ---- 9: slow connections in browser mode -------------------------------------------------------------

describe('browser mode under slow connections', () => {
  it.runIf(process.platform === 'linux')('2,000 slow connections under ulimit -n 1024: real requests still answered, slow ones closed', async () => {
    const lib = path.join(tempDir('slowconn'), 'lib');
    const child = spawn('bash', ['-c', 'ulimit -n 1024 && exec "$0" --import tsx test/reliability/slow-clients-server.ts "$1"', process.execPath, lib], {
      cwd: REPO_ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const sockets: net.Socket[] = [];
    try {
      const printed = await new Promise<string>((resolve, reject) => {
        let out = '';
        child.stdout.on('data', (d: Buffer) => {
          out += d.toString();
          const line = out.split('\n').find((l) => l.startsWith('http://'));
          if (line) resolve(line.trim());
        });
        child.on('exit', (code) => reject(new Error(`server exited ${code}`)));
        setTimeout(() => reject(new Error('server did not start')), 50_000);
      });
      const url = new URL(printed).origin;
      const auth = { Authorization: `Bearer ${new URL(printed).searchParams.get('token')}` };
      const port = Number(new URL(url).port);
      /** When each socket connected (the kernel may hold some back in its SYN queue for a while). */
      const connectedAt = new Map<net.Socket, number>();
      const closed = new Set<net.Socket>();
      for (let i = 0; i < 2000; i++) {
        const s = net.connect(port, '127.0.0.1');
        s.on('error', () => undefined);
        s.on('close', () => closed.add(s));
        s.resume(); // read what the server sends (its 408), so its close is seen here
        s.on('connect', () => {
          connectedAt.set(s, Date.now());
          s.write(`GET /api/methods HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n`);
        });
        sockets.push(s);
        if (i % 200 === 199) await new Promise((r) => setTimeout(r, 20));
      }
      await new Promise((r) => setTimeout(r, 500));
      for (let i = 0; i < 5; i++) {
        const res = await fetch(`${url}/api/info`, { method: 'POST', headers: { 'Content-Type': 'application/json', ...auth }, body: '', signal: AbortSignal.timeout(5000) });
        expect(res.status).toBe(200);
        expect(((await res.json()) as { ok: boolean }).ok).toBe(true);
      }
      // The header timeout (10 s) closes every connection that never finished its headers.
      expect(connectedAt.size).toBeGreaterThan(1000);
      await new Promise((r) => setTimeout(r, 13_000));
      const due = [...connectedAt].filter(([, at]) => at < Date.now() - 12_000).map(([s]) => s);
      expect(due.length).toBeGreaterThan(1000);
      expect(due.filter((s) => !closed.has(s))).toHaveLength(0);
    } finally {
      for (const s of sockets) s.destroy();
      child.kill('SIGTERM');
      await new Promise((r) => child.once('exit', r));
    }
  }, 90_000);
});

// ---- 10: file names with control characters ----------------------------------------------------------

describe('file names with control characters', () => {
  const posix = process.platform !== 'win32';

  async function cli(args: string[]): Promise<{ code: number; out: string; err: string }> {
    let out = '';
    let err = '';
    const code = await runCli(args, {
      stdout: { write: (s: string) => ((out += s), true) } as unknown as NodeJS.WritableStream,
      stderr: { write: (s: string) => ((err += s), true) } as unknown as NodeJS.WritableStream,
      stdin: process.stdin,
    } as never);
    return { code, out, err };
  }

  it.runIf(posix)('list, search and ingest print them escaped; JSON output is unchanged', async () => {
    const src = tempDir('ctl');
    const evil = '\u001b]0;pwned\u0007\u001b[2Jevil\rname.md';
    write(src, evil, '# Control\n\nThe ctlword manual.\n');
    const lib = path.join(tempDir('ctl-lib'), 'lib');
    const ingest = await cli(['ingest', src, '--library', lib]);
    expect(ingest.code).toBe(0);
    const list = await cli(['list', '--library', lib]);
    const search = await cli(['search', 'ctlword', '--library', lib]);
    for (const text of [list.out, search.out]) {
      // eslint-disable-next-line no-control-regex
      expect(text).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/);
      expect(text).toContain('\\x1b]0;pwned\\x07\\x1b[2Jevil\\rname.md');
    }
    const json = await cli(['list', '--library', lib, '--json']);
    expect((JSON.parse(json.out) as { file: string }[]).map((m) => m.file)).toEqual([evil]);
  });

  it.runIf(posix)('a legal Linux name like x\\..\\evil.md is listed and opens in browser mode', async () => {
    const src = tempDir('bs');
    const name = 'x\\..\\evil.md';
    write(src, name, '# Backslash\n\nThe bslashword manual.\n');
    const lib = path.join(tempDir('bs-lib'), 'lib');
    const e = await open(lib);
    const server = await startServer(e, { port: 0 });
    try {
      value(await e.ingest({ paths: [src] }));
      expect(value(await e.listManuals()).map((m) => m.file)).toEqual([name]);
      const res = await fetch(`${server.url}/api/openSource`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${server.token}` },
        body: JSON.stringify({ file: name }),
      });
      const body = (await res.json()) as Result<{ file: string; kind: string }>;
      expect(res.status, JSON.stringify(body)).toBe(200);
      expect(value(body).file).toBe(name);
    } finally {
      await server.close();
      await e.close();
    }
  });
});
