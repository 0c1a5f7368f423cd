/**
 * Failures of the library's own disk (full, read-only, no permission), told apart from failures of a
 * manual file: they stop the whole operation with a code of their own instead of being blamed on the
 * file being read. LanceDB reports them from Rust as text ("No space left on device (os error 28)").
 */
import { EngineError } from '../contract/errors.js';

const FULL_CODES = new Set(['ENOSPC', 'EDQUOT']);
const PERMISSION_CODES = new Set(['EACCES', 'EPERM']);
const FULL_TEXT = /No space left on device|Disk quota exceeded|os error (?:28|122)\b|ENOSPC|EDQUOT/i;
const READ_ONLY_TEXT = /Read-only file system|os error 30\b|EROFS/i;

/**
 * The library's disk as the cause of `err`, as an EngineError; null when `err` is something else.
 * `permission`: also read "permission denied" as the library's (only where the failed call wrote
 * inside the library folder; elsewhere it may be a manual or pack file that cannot be read).
 */
export function libraryDiskError(err: unknown, libraryDir: string, opts: { permission?: boolean } = {}): EngineError | null {
  if (err instanceof EngineError) return null;
  const code = (err as NodeJS.ErrnoException | undefined)?.code ?? '';
  const text = err instanceof Error ? err.message : String(err);
  if (FULL_CODES.has(code) || FULL_TEXT.test(text)) {
    return new EngineError(
      'DISK_FULL',
      `The disk holding the library (${libraryDir}) is full. Free some space there (or move the library to a bigger disk) and try again; what was already in the library is kept.`,
      { cause: err },
    );
  }
  if (code === 'EROFS' || READ_ONLY_TEXT.test(text) || (opts.permission === true && PERMISSION_CODES.has(code))) {
    return new LibraryReadOnlyError(libraryDir, err);
  }
  return null;
}

/** The library folder cannot be written (read-only disk, no permission): it can still be searched. */
export class LibraryReadOnlyError extends EngineError {
  constructor(libraryDir: string, cause: unknown) {
    super(
      'LIBRARY_READ_ONLY',
      `The library folder ${libraryDir} cannot be written (read-only disk or no permission). It can still be searched; to add or remove manuals, choose a library folder you can write to (or ask for write access) and try again.`,
      { cause },
    );
    this.name = 'LibraryReadOnlyError';
  }
}
