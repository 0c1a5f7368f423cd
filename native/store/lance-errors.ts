/**
 * LanceDB failures told apart: a reader's version cleaned up by a writer (the data is there, in a newer
 * version: read it again), and a table that cannot be read at all (damaged on disk: say how to repair
 * it). LanceDB reports both from Rust as text, with the Rust source locations of the error appended.
 */
import { EngineError } from '../contract/errors.js';
import { libraryDiskError } from './disk-errors.js';

/** Text only LanceDB's own errors carry (its error types, its files, a Rust panic). */
const LANCE_TEXT = /lance error|LanceError|\.lance\b|_versions|_indices|lance-[a-z]+-\d|panicked|Rust panic/i;
/**
 * LanceDB failing to read its files: gone (a pruned version: "Not found"), short (truncated: "failed to
 * fill whole buffer"), or garbled (changed bytes: "failed to decode"), all reported as LanceError(IO),
 * or a panic. Not its other errors (a bad query is ours, and stays INTERNAL).
 */
const READ_FAILURE_TEXT = /LanceError\(IO\)|not found|No such file|failed to fill|unexpected (?:eof|end)|decode|corrupt|checksum|panicked|Rust panic/i;

/** A failure of LanceDB reading its own files (not the disk being full or read-only, not our own errors). */
export function isLanceReadError(err: unknown, libraryDir: string): boolean {
  if (err instanceof EngineError || !(err instanceof Error)) return false;
  if (err.name === 'AbortError' || libraryDiskError(err, libraryDir) !== null) return false;
  return LANCE_TEXT.test(err.message) && READ_FAILURE_TEXT.test(err.message);
}

/** The library's tables cannot be read: its files were truncated, changed or deleted outside ManualDesk. */
export class LibraryDamagedError extends EngineError {
  constructor(libraryDir: string, cause: unknown) {
    super(
      'LIBRARY_DAMAGED',
      `The library at ${libraryDir} is damaged: part of its search index (the lance folder) cannot be read, so nothing more is written to it. ` +
        `Restore the library folder from a backup (or import its pack again), or re-index your manuals into a new library folder: ` +
        `manualdesk ingest <your manual folders> --library <new folder>.`,
      { cause },
    );
    this.name = 'LibraryDamagedError';
  }
}
