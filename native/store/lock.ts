/**
 * One writer per library: a lock file holding the owner's pid. A lock left by a process that no longer
 * runs (crash, kill) is taken over.
 */
import { readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import path from 'node:path';
import { EngineError } from '../contract/errors.js';
import { libraryDiskError } from './disk-errors.js';

export const LOCK_FILE = 'library.lock';

/** Libraries locked by this process (a pid check cannot tell two opens in one process apart). */
const heldHere = new Set<string>();

interface LockData {
  pid: number;
  host: string;
  at: string;
}

export class LibraryLock {
  private released = false;
  private constructor(
    private readonly file: string,
    private readonly key: string,
  ) {}

  static acquire(dir: string): LibraryLock {
    const file = path.join(dir, LOCK_FILE);
    const key = path.resolve(dir);
    if (heldHere.has(key)) throw locked(dir, process.pid);
    const data: LockData = { pid: process.pid, host: hostname(), at: new Date().toISOString() };
    for (let attempt = 0; attempt < 2; attempt++) {
      try {
        writeFileSync(file, JSON.stringify(data), { flag: 'wx' });
        heldHere.add(key);
        return new LibraryLock(file, key);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw libraryDiskError(err, dir, { permission: true }) ?? err;
      }
      const owner = readOwner(file);
      if (owner && ownerAlive(owner)) throw locked(dir, owner.pid);
      try {
        unlinkSync(file); // stale: its process is gone
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
      }
    }
    throw locked(dir, null);
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

function readOwner(file: string): LockData | null {
  try {
    const data = JSON.parse(readFileSync(file, 'utf8')) as Partial<LockData>;
    if (typeof data.pid !== 'number') return null;
    return { pid: data.pid, host: data.host ?? '', at: data.at ?? '' };
  } catch {
    return null; // unreadable or half-written: treat as stale
  }
}

function ownerAlive(owner: LockData): boolean {
  if (owner.host && owner.host !== hostname()) return true; // cannot check another machine: assume alive
  if (owner.pid === process.pid) return false; // ours from an earlier run of this pid? not held here (checked above)
  try {
    process.kill(owner.pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function locked(dir: string, pid: number | null): EngineError {
  const who = pid === null ? 'another program' : pid === process.pid ? 'this program' : `another program (pid ${pid})`;
  return new EngineError(
    'LIBRARY_LOCKED',
    `The library at ${dir} is in use by ${who}. Close the other ManualDesk window or command and try again.`,
  );
}
