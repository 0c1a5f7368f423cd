/**
 * Finds the manual files under the paths given to ingest, with their path relative to the ingested root.
 * What is not read gets a report line, never silence: named pipes, sockets and devices (named or inside a
 * folder), symbolic links inside a folder (not followed: they may lead outside it or loop), and ManualDesk
 * library folders (a library never indexes itself or another library kept among the manuals).
 */
import { readFileSync, type Dirent, type Stats } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import type { ErrorCode } from '../contract/errors.js';

export interface ScannedFile {
  /** Absolute path. */
  abs: string;
  /** Path relative to the ingested root, forward slashes. */
  rel: string;
  /** The ingested root this file was found under (absolute). */
  root: string;
  size: number;
  mtimeMs: number;
}

export interface ScanResult {
  files: ScannedFile[];
  /** Paths that could not be read at all, with the reason. */
  missing: Missing[];
  /** The roots that were scanned as folders (files under them that vanished are removed from the library). */
  roots: string[];
}

export interface Missing {
  file: string;
  reason: string;
  code: ErrorCode;
}

const SKIP_DIRS = new Set(['node_modules', '.git', '.svn', '.hg', '__MACOSX']);

/**
 * A folder argument is its own root (files keep their path below it); a file argument's root is its
 * folder. Hidden files and folders are skipped. `accept` decides which files are manuals.
 */
export async function scanPaths(paths: string[], accept: (file: string) => boolean): Promise<ScanResult> {
  const files: ScannedFile[] = [];
  const missing: Missing[] = [];
  const roots: string[] = [];
  for (const p of paths) {
    const abs = path.resolve(p);
    let st;
    try {
      st = await fs.stat(abs);
    } catch (err) {
      missing.push({ file: p, reason: describeFsError(err, p), code: 'FILE_UNREADABLE' });
      continue;
    }
    if (st.isDirectory()) {
      roots.push(abs);
      if (isLibraryFolder(abs)) missing.push(libraryFolderSkipped(p));
      else await walk(abs, abs, files, missing, accept);
    } else if (!st.isFile()) {
      missing.push(notAFile(p, st));
    } else {
      const library = libraryAbove(abs);
      if (library) {
        missing.push(libraryFolderSkipped(library));
        continue;
      }
      if (!accept(abs)) {
        missing.push({
          file: p,
          reason: 'This file type is not supported. Supported: PDF, Markdown, AsciiDoc, reStructuredText, HTML, text, DOCX, CSV, YAML, JSON, .properties, XLSX. Convert it to one of them and add it again.',
          code: 'UNSUPPORTED_FORMAT',
        });
        continue;
      }
      files.push({ abs, rel: path.basename(abs), root: path.dirname(abs), size: st.size, mtimeMs: st.mtimeMs });
    }
  }
  files.sort((a, b) => (a.rel < b.rel ? -1 : a.rel > b.rel ? 1 : 0));
  return { files, missing, roots };
}

async function walk(
  root: string,
  dir: string,
  out: ScannedFile[],
  missing: Missing[],
  accept: (file: string) => boolean,
): Promise<void> {
  let entries;
  try {
    entries = await fs.readdir(dir, { withFileTypes: true });
  } catch (err) {
    missing.push({ file: dir, reason: describeFsError(err, dir), code: 'FILE_UNREADABLE' });
    return;
  }
  for (const e of entries) {
    if (e.name.startsWith('.')) continue;
    const abs = path.join(dir, e.name);
    if (e.isDirectory()) {
      if (SKIP_DIRS.has(e.name)) continue;
      if (isLibraryFolder(abs)) missing.push(libraryFolderSkipped(abs));
      else await walk(root, abs, out, missing, accept);
    } else if (e.isSymbolicLink()) {
      missing.push({
        file: abs,
        reason: `${abs} is a symbolic link; links inside a folder are not followed (they may lead outside the folder or loop). Add the file it points to by name, or copy it into the folder.`,
        code: 'FILE_UNREADABLE',
      });
    } else if (!e.isFile()) {
      missing.push(notAFile(abs, e));
    } else if (accept(abs)) {
      try {
        const st = await fs.stat(abs);
        out.push({ abs, rel: path.relative(root, abs).split(path.sep).join('/'), root, size: st.size, mtimeMs: st.mtimeMs });
      } catch (err) {
        missing.push({ file: abs, reason: describeFsError(err, abs), code: 'FILE_UNREADABLE' });
      }
    }
  }
}

/** The file ManualDesk writes at the top of every library folder (store/library-store.ts LIBRARY_FILE). */
const LIBRARY_MARKER = 'library.json';

/**
 * A ManualDesk library: its library.json records a numeric format and chunker version and an embedder
 * entry. A manual that happens to be called library.json does not have that shape.
 */
export function isLibraryFolder(dir: string): boolean {
  let raw: string;
  try {
    raw = readFileSync(path.join(dir, LIBRARY_MARKER), 'utf8');
  } catch {
    return false;
  }
  try {
    const meta = JSON.parse(raw) as Record<string, unknown> | null;
    return !!meta && typeof meta === 'object' && typeof meta.formatVersion === 'number' && typeof meta.chunkerVersion === 'number' && 'embedder' in meta;
  } catch {
    return false;
  }
}

/** The library folder a file named on its own lies in (at any depth), if any. */
function libraryAbove(file: string): string | null {
  for (let dir = path.dirname(file); ; dir = path.dirname(dir)) {
    if (isLibraryFolder(dir)) return dir;
    if (path.dirname(dir) === dir) return null;
  }
}

function libraryFolderSkipped(dir: string): Missing {
  return {
    file: dir,
    reason: `${dir} is a ManualDesk library folder: its files are the library's own records, not manuals, so it was not read. Keep manuals in a folder of their own, outside any library folder, and add that folder.`,
    code: 'INVALID_INPUT',
  };
}

function notAFile(file: string, st: Stats | Dirent): Missing {
  const kind = st.isFIFO() ? 'a named pipe (FIFO)' : st.isSocket() ? 'a socket' : st.isCharacterDevice() || st.isBlockDevice() ? 'a device' : 'not a regular file';
  return {
    file,
    reason: `${file} is ${kind}, not a manual file, so it was not read. Copy the manual into an ordinary file and add that.`,
    code: 'FILE_UNREADABLE',
  };
}

export function describeFsError(err: unknown, file: string): string {
  const code = (err as NodeJS.ErrnoException)?.code;
  if (code === 'ENOENT') return `Not found: ${file}. Check the path and that the drive is connected.`;
  if (code === 'EACCES' || code === 'EPERM') return `Permission denied reading ${file}. Ask for read access or copy the file somewhere readable.`;
  return `Cannot read ${file}: ${(err as Error)?.message ?? String(err)}. Check that the drive is connected and the file opens, then add it again.`;
}
