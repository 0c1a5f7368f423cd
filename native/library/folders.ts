/**
 * Library folders as the app chooses them: whether a folder may hold a new library (or opens an
 * existing one), and whether a library is the bundled fictional sample library. Messages for the
 * technician: the cause first, then what to do.
 */
import fs from 'node:fs/promises';
import { existsSync, mkdirSync, readFileSync, rmdirSync } from 'node:fs';
import path from 'node:path';
import { EngineError } from '../contract/errors.js';
import type { FileRecord } from '../contract/document.js';
import { LIBRARY_FILE, SAMPLE_MARKER_FILE } from './layout.js';

/** A manual read from a samples/library folder (the bundled fictional manuals). */
const SAMPLE_SOURCE = /[\\/]samples[\\/]library[\\/]/;

/** What the sample marker records (bin/start.js). */
interface SampleMarker {
  /** The folder of sample manuals the library was built from. */
  samples?: string;
}

function readMarker(dir: string): SampleMarker | null {
  const file = path.join(dir, SAMPLE_MARKER_FILE);
  if (!existsSync(file)) return null;
  try {
    const parsed: unknown = JSON.parse(readFileSync(file, 'utf8'));
    return typeof parsed === 'object' && parsed !== null ? (parsed as SampleMarker) : {};
  } catch {
    return {};
  }
}

/**
 * The bundled sample library: `npm start` marked it when it built it from samples/library, or every
 * manual in it was read from a samples/library folder.
 */
export function isSampleLibrary(dir: string, files: readonly Pick<FileRecord, 'source'>[]): boolean {
  if (readMarker(dir)) return true;
  return files.length > 0 && files.every((f) => SAMPLE_SOURCE.test(f.source ?? ''));
}

/** The folder and its parents, nearest first. */
function selfAndParents(dir: string): string[] {
  const out: string[] = [];
  for (let d = path.resolve(dir); ; d = path.dirname(d)) {
    out.push(d);
    if (path.dirname(d) === d) return out;
  }
}

function isInside(child: string, parent: string): boolean {
  const rel = path.relative(parent, child);
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
}

/** Files a system leaves in any folder; they do not make a folder "hold files". */
const SYSTEM_FILES = new Set(['.DS_Store', 'Thumbs.db', 'desktop.ini']);

export type NewLibraryFolder =
  /** The folder holds a library already (it is opened as it is). */
  | { kind: 'existing' }
  /** The folder is ready for a new library; `made` is the first folder this call created (removed if the open fails). */
  | { kind: 'new'; made: string | null };

/**
 * Checks a folder for a new library and makes it when missing: refused when it is or lies inside
 * the sample library or its sample manuals, lies inside another library, holds other files, or
 * cannot be written. `samples`: the sample manuals folder the open library was built from, if known.
 */
export async function prepareNewLibraryFolder(dir: string, samples: string | null): Promise<NewLibraryFolder> {
  const target = path.resolve(dir);
  const st = await fs.stat(target).catch(() => null);
  if (st && !st.isDirectory()) {
    throw new EngineError('INVALID_INPUT', `${target} is a file, not a folder. Choose a folder for the new library (an empty or new one).`);
  }
  for (const d of selfAndParents(target)) {
    const marker = readMarker(d);
    if (marker) {
      throw new EngineError(
        'INVALID_INPUT',
        `${target} ${d === target ? 'is' : 'is inside'} the fictional sample library (${d}). Choose a folder outside it for your own library, for example ${path.join(path.dirname(d), 'library')}.`,
      );
    }
    if (d !== target && existsSync(path.join(d, LIBRARY_FILE))) {
      throw new EngineError(
        'INVALID_INPUT',
        `${target} is inside the library ${d}; a library cannot hold another one. Choose a folder outside it, for example ${path.join(path.dirname(d), `${path.basename(target)}`)}.`,
      );
    }
  }
  if (samples && isInside(target, path.resolve(samples))) {
    throw new EngineError('INVALID_INPUT', `${target} is inside the folder of the fictional sample manuals (${samples}). Choose a folder outside it for your own library.`);
  }
  if (st) {
    if (existsSync(path.join(target, LIBRARY_FILE))) return { kind: 'existing' };
    const names = (await fs.readdir(target).catch((err: unknown) => unwritable(target, err))).filter((n) => !SYSTEM_FILES.has(n));
    if (names.length > 0) {
      const shown = names.slice(0, 3).join(', ') + (names.length > 3 ? `, … (${names.length} in all)` : '');
      throw new EngineError(
        'INVALID_INPUT',
        `${target} already holds files that are not a ManualDesk library (${shown}). Choose an empty folder or a new folder name for the library; your manuals stay where they are and are read from there.`,
      );
    }
  }
  let made: string | null = null;
  try {
    made = mkdirSync(target, { recursive: true }) ?? null;
    const probe = path.join(target, `.manualdesk-write-test-${process.pid}`);
    await fs.writeFile(probe, '');
    await fs.rm(probe, { force: true });
  } catch (err) {
    if (made) await fs.rm(made, { recursive: true, force: true }).catch(() => {});
    unwritable(target, (err as NodeJS.ErrnoException).code === 'ENOENT' ? (parentCause(target) ?? err) : err);
  }
  return { kind: 'new', made };
}

/**
 * Why a folder could not be made under its nearest existing parent: a recursive mkdir reports a
 * read-only disk as ENOENT (Node 20); one plain mkdir there says EROFS or EACCES. Null: it can.
 */
function parentCause(dir: string): unknown {
  let parent = path.dirname(dir);
  while (!existsSync(parent) && path.dirname(parent) !== parent) parent = path.dirname(parent);
  const probe = path.join(parent, `.manualdesk-write-test-${process.pid}`);
  try {
    mkdirSync(probe);
    rmdirSync(probe);
    return null;
  } catch (err) {
    return err;
  }
}

function unwritable(dir: string, err: unknown): never {
  const code = (err as NodeJS.ErrnoException | undefined)?.code ?? '';
  const why = code === 'EROFS' ? 'the disk is read-only' : code === 'EACCES' || code === 'EPERM' ? 'permission denied' : code === 'ENOSPC' ? 'the disk is full' : String(err);
  throw new EngineError(
    code === 'ENOSPC' ? 'DISK_FULL' : 'LIBRARY_READ_ONLY',
    `ManualDesk cannot write to ${dir} (${why}). Choose a folder you can write to for the library, for example in your home or Documents folder.`,
    { cause: err },
  );
}

/** Refuses to open a folder that holds no library, saying what to do instead. */
export function assertLibraryFolder(dir: string): void {
  const target = path.resolve(dir);
  if (!existsSync(target)) {
    throw new EngineError('LIBRARY_NOT_FOUND', `There is no folder ${target}. Check the path (and that the drive is connected), or create a new library there instead.`);
  }
  if (!existsSync(path.join(target, LIBRARY_FILE))) {
    throw new EngineError(
      'LIBRARY_NOT_FOUND',
      `${target} is not a ManualDesk library (it has no ${LIBRARY_FILE}). Choose the folder of an existing library, or create a new library there instead.`,
    );
  }
}

/** The sample manuals folder a library was built from (its marker), else null. */
export function sampleSourcesOf(dir: string): string | null {
  return readMarker(dir)?.samples ?? null;
}
