/**
 * Errors cross every boundary (CLI, IPC, HTTP) as plain data. The message is written for the
 * technician: what went wrong and what to do next.
 */
export const ERROR_CODES = [
  /** The request itself is wrong (empty query, bad k, unknown name): fix the request. */
  'INVALID_INPUT',
  'LIBRARY_NOT_FOUND',
  /** The library (or pack) can be searched but not changed: opened read-only, an unwritable folder, an installed pack. */
  'LIBRARY_READ_ONLY',
  /** The engine or library was closed (app closing, library switched) before or while the call ran. */
  'CLOSED',
  'LIBRARY_LOCKED',
  /** This engine is writing to the library (ingest, remove, a pack operation): wait or cancel, then try again. */
  'LIBRARY_BUSY',
  'LIBRARY_FORMAT_MISMATCH',
  /** The library's files cannot be read (truncated, changed outside ManualDesk): restore a backup or re-index. */
  'LIBRARY_DAMAGED',
  'EMBEDDER_MISMATCH',
  'MODEL_MISSING',
  'FILE_UNREADABLE',
  'UNSUPPORTED_FORMAT',
  'NOT_FOUND',
  'CANCELLED',
  /** A pack is malformed or hostile (paths, links, duplicates, sizes, truncation). */
  'PACK_INVALID',
  /** A file in a pack does not match the checksum its manifest lists (changed or damaged). */
  'PACK_CHECKSUM',
  /** A pack's signature does not match its manifest. */
  'PACK_SIGNATURE',
  /** A pack is unsigned or signed by a key the library does not trust. */
  'PACK_UNTRUSTED',
  /** A pack (or the library inside it) uses a format this version cannot read. */
  'PACK_FORMAT',
  /** Not enough free disk space for the operation (checked before copying). */
  'DISK_FULL',
  'INTERNAL',
] as const;

export type ErrorCode = (typeof ERROR_CODES)[number];

export interface EngineErrorData {
  code: ErrorCode;
  message: string;
}

export type Result<T> = { ok: true; value: T } | { ok: false; error: EngineErrorData };

/** Thrown inside the engine; converted to {@link EngineErrorData} at the boundary. */
export class EngineError extends Error {
  readonly code: ErrorCode;
  constructor(code: ErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'EngineError';
    this.code = code;
  }
  toData(): EngineErrorData {
    return { code: this.code, message: this.message };
  }
}

export function ok<T>(value: T): Result<T> {
  return { ok: true, value };
}

export function fail<T = never>(code: ErrorCode, message: string): Result<T> {
  return { ok: false, error: { code, message } };
}

/** Turns anything thrown into error data; unknown errors become INTERNAL with their message. */
export function toErrorData(err: unknown): EngineErrorData {
  if (err instanceof EngineError) return err.toData();
  if (err instanceof Error && err.name === 'AbortError') {
    return { code: 'CANCELLED', message: 'The operation was cancelled.' };
  }
  // Native errors (LanceDB) append the Rust source locations they passed through: not for the technician.
  const message = (err instanceof Error ? err.message : String(err)).replace(/,\s*\/[^,]*\.rs:\d+:\d+/g, '');
  return {
    code: 'INTERNAL',
    message: `Unexpected error: ${message}. The library was not changed by the failed step; try again, and report it if it repeats.`,
  };
}
