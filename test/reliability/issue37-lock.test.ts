/**
 * Issue 37 item 4: one writer per library, always.
 *  - N writers (child processes) started at the same moment, round after round, with no lock, a stale
 *    lock (dead owner) or a half-written lock present: exactly one holds the lock at any time, and one
 *    of them gets it each round. CI runs 30 rounds each; MANUALDESK_RELIABILITY_FULL=1 runs 200.
 *  - A live owner's lock is not judged stale by its time stamp: a clock stepped forward (the lock's time
 *    before boot time) with a matching boot id and start time is refused, not taken over.
 *  - Without /proc (Windows, macOS): a live pid is refused, a dead one is taken over.
 */
import { fork, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EngineError } from '../../native/contract/errors.js';
import { LOCK_FILE, LibraryLock, lockProbe } from '../../native/store/lock.js';
import { cleanupTemp, tempDir } from '../integration/helpers.js';

const WRITERS = 8;
const ROUNDS = process.env.MANUALDESK_RELIABILITY_FULL === '1' ? 200 : 30;
const bootId = (() => {
  try {
    return fs.readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim();
  } catch {
    return '';
  }
})();
const onLinux = bootId !== '';

function startTicks(pid: number): number {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19]);
}

async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ['-e', '0'], { stdio: 'ignore' });
  await new Promise((r) => child.once('exit', r));
  return child.pid as number;
}

function sleeper(): ChildProcess {
  return spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)'], { stdio: 'ignore' });
}

function lockWith(dir: string, data: Record<string, unknown>): void {
  fs.writeFileSync(path.join(dir, LOCK_FILE), JSON.stringify({ host: os.hostname(), at: new Date().toISOString(), ...data }));
}

function expectLocked(dir: string): void {
  let err: unknown = null;
  try {
    LibraryLock.acquire(dir).release();
  } catch (e) {
    err = e;
  }
  expect(err).toBeInstanceOf(EngineError);
  expect((err as EngineError).code).toBe('LIBRARY_LOCKED');
}

afterAll(cleanupTemp);

describe('N writers started together: exactly one holds the lock', () => {
  const children: ChildProcess[] = [];
  const pending = new Map<ChildProcess, (m: Record<string, unknown>) => void>();

  beforeAll(async () => {
    const child = path.join(import.meta.dirname, 'issue37-lock-child.ts');
    await Promise.all(
      Array.from({ length: WRITERS }, async () => {
        const c = fork(child, [], { execArgv: ['--import', 'tsx'], stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
        children.push(c);
        await new Promise((r) => c.once('message', r));
        c.on('message', (m) => pending.get(c)?.(m as Record<string, unknown>));
      }),
    );
  }, 60_000);

  afterAll(() => {
    for (const c of children) c.kill('SIGKILL');
  });

  async function round(dir: string, n: number): Promise<Record<string, unknown>[]> {
    const at = Date.now() + 30;
    return Promise.all(
      children.map(
        (c) =>
          new Promise<Record<string, unknown>>((resolve) => {
            pending.set(c, resolve);
            c.send({ round: n, dir, at, holdMs: 20 });
          }),
      ),
    );
  }

  async function rounds(prepare: (dir: string) => Promise<void> | void): Promise<void> {
    const base = tempDir('lock-race');
    let overlaps = 0;
    for (let n = 0; n < ROUNDS; n++) {
      const dir = path.join(base, String(n));
      fs.mkdirSync(dir);
      await prepare(dir);
      const results = await round(dir, n);
      overlaps += results.filter((r) => r.overlap).length;
      // Whoever did not get it was told the library is in use; someone got it.
      expect(results.filter((r) => !r.won).map((r) => r.code)).toEqual(results.filter((r) => !r.won).map(() => 'LIBRARY_LOCKED'));
      expect(results.some((r) => r.won)).toBe(true);
      expect(fs.readdirSync(dir)).toEqual([]); // released, nothing left behind
    }
    expect(overlaps).toBe(0);
  }

  it('with no lock present', async () => {
    await rounds(() => {});
  }, 120_000);

  it('with a stale lock present (its owner is gone)', async () => {
    const dead = await deadPid();
    await rounds((dir) => lockWith(dir, onLinux ? { pid: dead, bootId, startTicks: 1 } : { pid: dead }));
  }, 120_000);

  it('with a half-written lock present (a writer killed while taking it)', async () => {
    await rounds((dir) => fs.writeFileSync(path.join(dir, LOCK_FILE), '{"pid":'));
  }, 120_000);
});

describe('staleness is decided by the owner, never by the clock', () => {
  it.runIf(onLinux)('a live owner whose lock is dated before boot (clock stepped), same boot id and start time: refused', async () => {
    const dir = tempDir('clock-stepped');
    const child = sleeper();
    try {
      await new Promise((r) => setTimeout(r, 100));
      const pid = child.pid as number;
      lockWith(dir, { pid, bootId, startTicks: startTicks(pid), at: '2001-01-01T00:00:00.000Z' });
      expectLocked(dir);
      // Its lock is left as it was.
      expect(JSON.parse(fs.readFileSync(path.join(dir, LOCK_FILE), 'utf8')).pid).toBe(pid);
    } finally {
      child.kill('SIGKILL');
    }
  });

  it.runIf(onLinux)('a live owner whose lock is dated in the future (clock stepped back): refused', async () => {
    const dir = tempDir('clock-back');
    const child = sleeper();
    try {
      await new Promise((r) => setTimeout(r, 100));
      const pid = child.pid as number;
      lockWith(dir, { pid, bootId, startTicks: startTicks(pid), at: '2099-01-01T00:00:00.000Z' });
      expectLocked(dir);
    } finally {
      child.kill('SIGKILL');
    }
  });

  describe('without /proc (Windows, macOS)', () => {
    const real = lockProbe.procDir;
    beforeAll(() => {
      lockProbe.procDir = path.join(os.tmpdir(), 'no-such-proc-dir');
    });
    afterAll(() => {
      lockProbe.procDir = real;
    });

    it('a live pid is refused', async () => {
      const dir = tempDir('noproc-live');
      const child = sleeper();
      try {
        await new Promise((r) => setTimeout(r, 100));
        lockWith(dir, { pid: child.pid, at: '2001-01-01T00:00:00.000Z' });
        expectLocked(dir);
      } finally {
        child.kill('SIGKILL');
      }
    });

    it('a dead pid is taken over, and the lock is ours until released', async () => {
      const dir = tempDir('noproc-dead');
      lockWith(dir, { pid: await deadPid() });
      const lock = LibraryLock.acquire(dir);
      expect(JSON.parse(fs.readFileSync(path.join(dir, LOCK_FILE), 'utf8')).pid).toBe(process.pid);
      lock.release();
      expect(fs.existsSync(path.join(dir, LOCK_FILE))).toBe(false);
    });
  });
});
