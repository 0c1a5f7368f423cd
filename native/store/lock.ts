/**
 * One writer per library: a lock file naming its owner (pid, host, boot id, process start time).
 * A lock proven stale is taken over: its process is gone, the computer was restarted since it was
 * written (another boot id, or written before this boot), or its pid now belongs to a process that
 * started later (pid reused). A lock that cannot be proven stale (a live owner, or another computer
 * for a library on a shared drive) is refused with a message naming the lock file and what is safe to do.
 * The writer that takes the lock also removes the temp files a killed or failed writer left.
 */
import { readdirSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import path from 'node:path';
import { EngineError } from '../contract/errors.js';
import { libraryDiskError } from './disk-errors.js';

export const LOCK_FILE = 'library.lock';

/** Libraries locked by this process (a pid check cannot tell two opens in one process apart). */
const heldHere = new Set<string>();

export interface LockData {
  pid: number;
  host: string;
  /** ISO time the lock was taken. */
  at: string;
  /** /proc/sys/kernel/random/boot_id of the owner's boot (Linux); absent elsewhere and in old locks. */
  bootId?: string;
  /** The owner's start time in clock ticks after boot (/proc/<pid>/stat field 22; Linux). */
  startTicks?: number;
}

/** Where this machine's facts are read (tests point it at a fake /proc). */
export const lockProbe = {
  procDir: '/proc',
  hostname: (): string => hostname(),
};

export class LibraryLock {
  private released = false;
  private constructor(
    private readonly file: string,
    private readonly key: string,
  ) {}

  static acquire(dir: string): LibraryLock {
    const file = path.join(dir, LOCK_FILE);
    const key = path.resolve(dir);
    if (heldHere.has(key)) throw lockedHere(dir);
    const data = ownLockData();
    for (let attempt = 0; attempt < 2; attempt++) {
      try {
        writeFileSync(file, JSON.stringify(data), { flag: 'wx' });
        heldHere.add(key);
        removeLeftovers(dir);
        return new LibraryLock(file, key);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw libraryDiskError(err, dir, { permission: true }) ?? err;
      }
      const owner = readOwner(file);
      const verdict = owner ? judge(owner) : 'stale';
      if (verdict !== 'stale') throw locked(dir, file, owner as LockData, verdict);
      try {
        unlinkSync(file); // proven stale
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw libraryDiskError(err, dir, { permission: true }) ?? err;
      }
    }
    throw locked(dir, file, null, 'alive');
  }

  release(): void {
    if (this.released) return;
    this.released = true;
    heldHere.delete(this.key);
    try {
      const owner = readOwner(this.file);
      if (owner?.pid === process.pid) unlinkSync(this.file);
    } catch {
      // already gone
    }
  }
}

/** The facts this process writes into its lock. */
function ownLockData(): LockData {
  const data: LockData = { pid: process.pid, host: lockProbe.hostname(), at: new Date().toISOString() };
  const bootId = readBootId();
  const startTicks = processStartTicks(process.pid);
  if (bootId) data.bootId = bootId;
  if (startTicks !== null) data.startTicks = startTicks;
  return data;
}

function readOwner(file: string): LockData | null {
  try {
    const data = JSON.parse(readFileSync(file, 'utf8')) as Partial<LockData>;
    if (typeof data.pid !== 'number' || !Number.isInteger(data.pid) || data.pid <= 0) return null;
    const owner: LockData = { pid: data.pid, host: typeof data.host === 'string' ? data.host : '', at: typeof data.at === 'string' ? data.at : '' };
    if (typeof data.bootId === 'string' && data.bootId) owner.bootId = data.bootId;
    if (typeof data.startTicks === 'number') owner.startTicks = data.startTicks;
    return owner;
  } catch {
    return null; // unreadable or half-written: a writer crashed while taking it
  }
}

type Verdict = 'stale' | 'alive' | 'other-host';

/** Whether the lock's owner may still run; 'stale' only when that is proven impossible. */
export function judge(owner: LockData): Verdict {
  if (owner.host && owner.host !== lockProbe.hostname()) return 'other-host';
  if (owner.pid === process.pid) return 'stale'; // ours from an earlier open of this pid, not held now (checked above)
  const bootId = readBootId();
  if (bootId && owner.bootId && owner.bootId !== bootId) return 'stale'; // written before a restart
  const bootedAt = bootTimeMs();
  const at = Date.parse(owner.at);
  // Written before this boot (a lock of an older version, without boot id): from before a restart.
  if (bootedAt !== null && Number.isFinite(at) && at < bootedAt - 60_000) return 'stale';
  if (!pidRuns(owner.pid)) return 'stale';
  if (owner.startTicks !== undefined) {
    const now = processStartTicks(owner.pid);
    if (now !== null && now !== owner.startTicks) return 'stale'; // the pid was reused by a later process
  }
  return 'alive';
}

function pidRuns(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function readBootId(): string | null {
  try {
    return readFileSync(path.join(lockProbe.procDir, 'sys/kernel/random/boot_id'), 'utf8').trim() || null;
  } catch {
    return null;
  }
}

/** Field 22 of /proc/<pid>/stat (after the parenthesised name, which may hold spaces). */
function processStartTicks(pid: number): number | null {
  try {
    const stat = readFileSync(path.join(lockProbe.procDir, String(pid), 'stat'), 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const ticks = Number(fields[19]);
    return Number.isFinite(ticks) ? ticks : null;
  } catch {
    return null;
  }
}

/** This boot's time (btime in /proc/stat), in ms. */
function bootTimeMs(): number | null {
  try {
    const m = /^btime (\d+)$/m.exec(readFileSync(path.join(lockProbe.procDir, 'stat'), 'utf8'));
    return m ? Number(m[1]) * 1000 : null;
  } catch {
    return null;
  }
}

/** Temp files of the library's atomic JSON commits (`files.json.<pid>.tmp`), left by a writer killed or failed mid-commit. */
const LEFTOVER_RE = /^[\w.-]+\.json\.(\d+)\.tmp$/;

function removeLeftovers(dir: string): void {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return;
  }
  for (const name of names) {
    const pid = Number(LEFTOVER_RE.exec(name)?.[1] ?? NaN);
    // A live other process may be mid-commit of a file written without the lock (trusted keys): leave its own.
    if (!Number.isInteger(pid) || (pid !== process.pid && pidRuns(pid))) continue;
    try {
      unlinkSync(path.join(dir, name));
    } catch {
      // gone already, or not ours to remove: harmless
    }
  }
}

function lockedHere(dir: string): EngineError {
  return new EngineError(
    'LIBRARY_LOCKED',
    `The library at ${dir} is already in use for writing by this program. Wait for the running ingest or removal to finish, or close the other window of this program, and try again.`,
  );
}

function locked(dir: string, file: string, owner: LockData | null, verdict: Verdict): EngineError {
  if (owner && verdict === 'other-host') {
    return new EngineError(
      'LIBRARY_LOCKED',
      `The library at ${dir} is in use by ManualDesk on another computer (${owner.host}, pid ${owner.pid}${owner.at ? `, since ${owner.at}` : ''}); its lock file is ${file}. ` +
        `Close ManualDesk on ${owner.host} and try again. If that computer is switched off or no longer uses this library, it is safe to delete ${file} and try again.`,
    );
  }
  const who = owner ? `another program (pid ${owner.pid}${owner.at ? `, since ${owner.at}` : ''})` : 'another program';
  return new EngineError(
    'LIBRARY_LOCKED',
    `The library at ${dir} is in use by ${who}; its lock file is ${file}. Close the other ManualDesk window or command (or wait for its ingest to finish) and try again. ` +
      `If no ManualDesk is running on this computer, it is safe to delete ${file} and try again.`,
  );
}
