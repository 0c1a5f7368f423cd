/**
 * A manual's identity in the library: its key (FileRecord.file, the name every row, code and citation
 * carries) and the folder it was added from.
 *
 * A key is the file's path below the folder it was added from, as in every library so far; when that
 * path is taken by a manual from another folder, the new file's key starts with its folder's name
 * (`vendorB/README.md`, then `vendorB-2/README.md`…), so two manuals never share a key and no file
 * replaces another. Keys never change once given: re-adding a folder finds each file by where it is
 * read from, and a moved folder finds each file by its path below the folder and its content.
 */
import path from 'node:path';
import type { FileRecord } from '../contract/document.js';
import { EngineError } from '../contract/errors.js';

type Located = Pick<FileRecord, 'file' | 'source' | 'root'>;

/**
 * The folder a file was added from: recorded since keys carry their folder's name; for an older
 * record, its source less its key (the key was the path below the folder). Null where the source
 * is not an absolute path (a pack's documents).
 */
export function ingestRoot(rec: Located): string | null {
  if (rec.root) return rec.root;
  const source = rec.source;
  if (!source || !isAbsoluteAnywhere(source)) return null;
  const joiner = source.includes('\\') && !source.includes('/') ? '\\' : '/';
  const parts = source.split(/[\\/]/);
  const keyParts = rec.file.split('/');
  const tail = parts.slice(parts.length - keyParts.length);
  const below = keyParts.length < parts.length && tail.every((p, i) => p === keyParts[i]);
  const head = parts.slice(0, parts.length - (below ? keyParts.length : 1));
  return head.join(joiner) || joiner;
}

/** The file's path below the folder it was added from, forward slashes (its key in older libraries). */
export function relativePath(rec: Located): string {
  const root = ingestRoot(rec);
  if (!rec.root || !root || !rec.source) return rec.file;
  return path.relative(root, rec.source).split(path.sep).join('/');
}

/**
 * The key of a file new to the library: its path below its folder, or, when a manual from
 * elsewhere has that key, the path prefixed with the folder's name (numbered when that is taken too).
 */
export function newKey(rel: string, root: string, taken: (key: string) => boolean): string {
  if (!taken(rel)) return rel;
  const label = path.basename(root).replace(/[/\\]/g, '') || 'folder';
  for (let n = 1; ; n++) {
    const key = `${n === 1 ? label : `${label}-${n}`}/${rel}`;
    if (!taken(key)) return key;
  }
}

/** What a command line names a manual by: what "list" shows of it. */
export interface NamedManual {
  file: string;
  source?: string;
  folder?: string | null;
}

/**
 * The keys of the manuals a technician named: by key, by full path, or by its path below its folder.
 * A name that fits more than one manual (two folders' README.md) is refused with the list of them,
 * never guessed; a name that fits none is refused too.
 */
export function resolveManualNames(names: string[], manuals: readonly NamedManual[]): string[] {
  const unknown: string[] = [];
  const keys: string[] = [];
  for (const name of names) {
    const abs = isAbsoluteAnywhere(name) ? path.resolve(name) : null;
    const fits = manuals.filter(
      (m) =>
        m.file === name ||
        (abs !== null && m.source !== undefined && path.resolve(m.source) === abs) ||
        relativePath({ file: m.file, source: m.source ?? '', root: m.folder ?? undefined }) === name,
    );
    if (fits.length === 0) unknown.push(name);
    else if (fits.length === 1) keys.push((fits[0] as NamedManual).file);
    else {
      const listed = fits.map((m) => `${m.file} (${m.source ?? 'no recorded location'})`).join('; ');
      throw new EngineError(
        'INVALID_INPUT',
        `"${name}" names ${fits.length} manuals: ${listed}. Nothing was removed. Name the one you mean by its full path, for example: manualdesk remove "${fits[0]?.source ?? fits[0]?.file}".`,
      );
    }
  }
  if (unknown.length > 0) {
    throw new EngineError('NOT_FOUND', `Not in the library: ${unknown.join(', ')}. Use "manualdesk list" to see the files as the library names them.`);
  }
  return [...new Set(keys)];
}

function isAbsoluteAnywhere(p: string): boolean {
  return path.isAbsolute(p) || /^[A-Za-z]:[\\/]/.test(p) || p.startsWith('\\\\');
}
