/**
 * One writer per library: a lock file naming its owner (pid, host, boot id, process start time, nonce).
 *
 * Taking the lock is atomic: the owner's facts are written to a temp file first, which is then hard-linked
 * to the lock's name (link fails with EEXIST when a lock is there), so a lock is never seen half-written
 * and two processes can never both create it. Where the disk has no hard links (FAT), the lock is created
 * with O_EXCL and written at once.
 *
 * A lock proven stale is taken over: its process is gone, the computer was restarted since it was written
 * (another boot id), or its pid now belongs to a process that started later (pid reused). Staleness is
 * decided by the owner's identity, never by the clock (clocks step on PCs without time sync); only a
 * lock of an older version without a boot id is also judged by whether it was written before this boot.
 * A lock that cannot be proven stale (a live owner, or another computer for a library on a shared drive)
 * is refused with a message naming the lock file and what is safe to do.
 *
 * Removing a stale lock is itself guarded by a lock on the lock (`library.lock.break`, taken the same
 * way): only its holder may remove the lock, and only if it is still the very lock judged stale (same
 * file and content), so two writers that both saw it stale cannot remove each other's new lock.
 * The writer that takes the lock also removes the temp files a killed or failed writer left.
 */
import { randomBytes } from 'node:crypto';
import { closeSync, fstatSync, linkSync, openSync, readdirSync, readFileSync, readSync, unlinkSync, writeFileSync, writeSync } from 'node:fs';
import { hostname } from 'node:os';
import path from 'node:path';
import { EngineError } from '../contract/errors.js';
import { libraryDiskError } from './disk-errors.js';

export const LOCK_FILE = 'library.lock';
/** The lock on the lock: held for the moment a stale lock is removed. */
const BREAK_SUFFIX = '.break';
/** How long a writer waits for another one that is removing a stale lock (ms) before it gives up. */
const BREAK_WAIT_MS = 3000;
/** How long an unreadable lock is given to be completed by its writer before it is judged half-written. */
const HALF_WRITTEN_WAIT_MS = 100;

/** Libraries locked by this process (a pid check cannot tell two opens in one process apart). */
const heldHere = new Set<string>();

export interface LockData {
  pid: number;
  host: string;
  /** ISO time the lock was taken (shown to people; never used to judge the lock). */
  at: string;
  /** /proc/sys/kernel/random/boot_id of the owner's boot (Linux); absent elsewhere and in old locks. */
  bootId?: string;
  /** The owner's start time in clock ticks after boot (/proc/<pid>/stat field 22; Linux). */
  startTicks?: number;
  /** Random; makes each lock file's content unique (absent in old locks). */
  nonce?: string;
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
    private readonly nonce: string,
  ) {}

  static acquire(dir: string): LibraryLock {
    const file = path.join(dir, LOCK_FILE);
    const key = path.resolve(dir);
    if (heldHere.has(key)) throw lockedHere(dir);
    const data = ownLockData();
    const content = JSON.stringify(data);
    const giveUpAt = performance.now() + BREAK_WAIT_MS;
    let last: LockData | null = null;
    for (let attempt = 0; ; attempt++) {
      // Another writer is removing a stale lock (or took the lock meanwhile): look again shortly.
      if (attempt > 0 && performance.now() > giveUpAt) throw locked(dir, file, last, 'alive');
      if (attempt > 2) pause(5 + Math.random() * 20);
      if (createExclusive(file, content, dir)) {
        heldHere.add(key);
        removeLeftovers(dir);
        return new LibraryLock(file, key, data.nonce as string);
      }
      const seen = readLock(file);
      if (!seen) continue; // removed in between: try again
      last = seen.owner;
      const verdict = judgeSeen(file, seen);
      if (verdict === 'gone') continue;
      if (verdict !== 'stale') throw locked(dir, file, seen.owner, verdict);
      if (!removeIfStill(file, seen.identity, content, dir, 0)) pause(5 + Math.random() * 20);
    }
  }

  release(): void {
    if (this.released) return;
    this.released = true;
    heldHere.delete(this.key);
    try {
      const seen = readLock(this.file);
      // Only our own lock (its nonce): never one another writer took after ours was judged stale.
      if (seen?.owner?.pid === process.pid && seen.owner.nonce === this.nonce) unlinkSync(this.file);
    } catch {
      // already gone
    }
  }
}

/** A lock file as read at one moment: its owner (null when unreadable) and what tells this file apart. */
interface SeenLock {
  owner: LockData | null;
  /** Device, inode, change time and content: another file (or another write) gives another identity. */
  identity: string;
}

/**
 * Creates `file` holding `content` unless it exists; true when this call created it. The content is
 * complete before the name appears (temp file + link), so no reader sees it half-written.
 */
function createExclusive(file: string, content: string, dir: string): boolean {
  const tmp = `${file}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
  try {
    writeFileSync(tmp, content, { flag: 'wx' });
  } catch (err) {
    throw libraryDiskError(err, dir, { permission: true }) ?? err;
  }
  try {
    linkSync(tmp, file);
    return true;
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'EEXIST') return false;
    if (code !== 'EPERM' && code !== 'ENOTSUP' && code !== 'ENOSYS' && code !== 'EOPNOTSUPP') throw libraryDiskError(err, dir, { permission: true }) ?? err;
  } finally {
    try {
      unlinkSync(tmp);
    } catch {
      // gone already
    }
  }
  // No hard links on this disk (FAT, some network shares): create-exclusive, written at once.
  let fd: number;
  try {
    fd = openSync(file, 'wx');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw libraryDiskError(err, dir, { permission: true }) ?? err;
  }
  try {
    writeSync(fd, content);
  } finally {
    closeSync(fd);
  }
  return true;
}

/** The lock file's owner and identity, read through one descriptor; null when there is no file. */
function readLock(file: string): SeenLock | null {
  let fd: number;
  try {
    fd = openSync(file, 'r');
  } catch {
    return null;
  }
  try {
    const st = fstatSync(fd, { bigint: true });
    const buf = Buffer.alloc(Math.min(Number(st.size), 64 * 1024));
    const n = buf.length ? readSync(fd, buf, 0, buf.length, 0) : 0;
    const text = buf.subarray(0, n).toString('utf8');
    return { owner: parseOwner(text), identity: `${st.dev}:${st.ino}:${st.ctimeNs}:${st.size}:${text}` };
  } catch {
    return null;
  } finally {
    closeSync(fd);
  }
}

function parseOwner(text: string): LockData | null {
  try {
    const data = JSON.parse(text) as Partial<LockData>;
    if (typeof data.pid !== 'number' || !Number.isInteger(data.pid) || data.pid <= 0) return null;
    const owner: LockData = { pid: data.pid, host: typeof data.host === 'string' ? data.host : '', at: typeof data.at === 'string' ? data.at : '' };
    if (typeof data.bootId === 'string' && data.bootId) owner.bootId = data.bootId;
    if (typeof data.startTicks === 'number') owner.startTicks = data.startTicks;
    if (typeof data.nonce === 'string') owner.nonce = data.nonce;
    return owner;
  } catch {
    return null; // unreadable or half-written
  }
}

/**
 * The verdict on a lock as seen. An unreadable one may be in the making on a disk without hard links:
 * it is judged stale (a writer crashed while taking it) only when it is still unchanged a moment later.
 */
function judgeSeen(file: string, seen: SeenLock): Verdict | 'gone' {
  if (seen.owner) return judge(seen.owner);
  pause(HALF_WRITTEN_WAIT_MS);
  const again = readLock(file);
  if (!again) return 'gone';
  if (again.identity !== seen.identity) return 'gone'; // changed: look at it afresh
  return 'stale';
}

/**
 * Removes `file` if it is still the lock seen as `identity`, holding the lock on the lock while it does.
 * True when the caller may try to take the lock again at once; false when another writer holds the
 * lock on the lock (it is removing the same stale lock, or has just done so).
 */
function removeIfStill(file: string, identity: string, content: string, dir: string, depth: number): boolean {
  const guard = file + BREAK_SUFFIX;
  if (!createExclusive(guard, content, dir)) {
    const seen = readLock(guard);
    if (!seen) return true;
    if (depth >= 3) return false;
    const verdict = judgeSeen(guard, seen);
    if (verdict === 'gone') return true;
    // A writer that died while removing a stale lock left its guard: remove that the same way.
    if (verdict === 'stale') removeIfStill(guard, seen.identity, content, dir, depth + 1);
    return false;
  }
  try {
    // Only the guard's holder removes the lock, and the lock's owner is gone: what is there now is
    // either the same stale lock or a new one that must stay.
    if (readLock(file)?.identity === identity) {
      try {
        unlinkSync(file);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw libraryDiskError(err, dir, { permission: true }) ?? err;
      }
    }
  } finally {
    try {
      unlinkSync(guard); // ours: no one removes a live holder's guard
    } catch {
      // gone already
    }
  }
  return true;
}

/** Waits `ms` without yielding (acquire is synchronous and short). */
function pause(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

/** The facts this process writes into its lock. */
function ownLockData(): LockData {
  const data: LockData = { pid: process.pid, host: lockProbe.hostname(), at: new Date().toISOString(), nonce: randomBytes(8).toString('hex') };
  const bootId = readBootId();
  const startTicks = processStartTicks(process.pid);
  if (bootId) data.bootId = bootId;
  if (startTicks !== null) data.startTicks = startTicks;
  return data;
}

type Verdict = 'stale' | 'alive' | 'other-host';

/** Whether the lock's owner may still run; 'stale' only when that is proven impossible. */
export function judge(owner: LockData): Verdict {
  if (owner.host && owner.host !== lockProbe.hostname()) return 'other-host';
  if (owner.pid === process.pid) return 'stale'; // ours from an earlier open of this pid, not held now (checked above)
  const bootId = readBootId();
  if (bootId && owner.bootId && owner.bootId !== bootId) return 'stale'; // written before a restart
  if (!owner.bootId && owner.startTicks === undefined) {
    // A lock of an older version, without boot id: the one case the clock is asked, whether it was
    // written before this boot. A lock with a boot id is never judged by its time (clocks step).
    const bootedAt = bootTimeMs();
    const at = Date.parse(owner.at);
    if (bootedAt !== null && Number.isFinite(at) && at < bootedAt - 60_000) return 'stale';
  }
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

/**
 * Temp files of the library's atomic JSON commits (`files.json.<pid>.tmp`) and of taking the lock
 * (`library.lock.<pid>.<random>.tmp`), left by a writer killed or failed midway.
 */
const LEFTOVER_RES = [/^[\w.-]+\.json\.(\d+)\.tmp$/, /^library\.lock(?:\.break)*\.(\d+)\.[0-9a-f]+\.tmp$/];

function removeLeftovers(dir: string): void {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return;
  }
  for (const name of names) {
    const pid = Number(LEFTOVER_RES.map((re) => re.exec(name)?.[1]).find((m) => m !== undefined) ?? NaN);
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
