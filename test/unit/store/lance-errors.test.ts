/**
 * Which LanceDB failures are a table that cannot be read (read again, then LIBRARY_DAMAGED) and which
 * are not (the disk's own errors, our own errors, a bad query), and that no Rust source location
 * reaches a technician through an INTERNAL error. The texts are LanceDB 0.31's, as met in issue 37.
 */
import { describe, expect, it } from 'vitest';
import { EngineError, toErrorData } from '../../../native/contract/errors.js';
import { isLanceReadError, LibraryDamagedError } from '../../../native/store/lance-errors.js';

const AT = ', /usr/local/cargo/registry/src/index.crates.io-1949cf8c6b5b557f/lance-io-8.0.0/src/local.rs:133:40';
const PRUNED = `Failed to get next batch from stream: lance error: Not found: tmp/lib/lance/chunks.lance/data/0001.lance${AT}`;
const TRUNCATED = `Failed to get next batch from stream: lance error: LanceError(IO): Generic LocalFileSystem error: failed to fill whole buffer${AT}`;
const GARBLED = `Failed to get next batch from stream: lance error: LanceError(IO): failed to decode Protobuf message: Schema.fields: invalid key value: 1125899906842623${AT}`;

describe('LanceDB read failures', () => {
  it('a pruned, truncated or garbled file is a read failure', () => {
    for (const text of [PRUNED, TRUNCATED, GARBLED]) expect(isLanceReadError(new Error(text), '/lib'), text).toBe(true);
  });

  it('the disk, our own errors and a bad query are not', () => {
    expect(isLanceReadError(new Error(`lance error: LanceError(IO): No space left on device (os error 28)${AT}`), '/lib')).toBe(false);
    expect(isLanceReadError(new EngineError('CLOSED', 'closed'), '/lib')).toBe(false);
    expect(isLanceReadError(new Error('lance error: Invalid user input: column fts2 does not exist'), '/lib')).toBe(false);
    expect(isLanceReadError('Not found', '/lib')).toBe(false);
  });

  it('LIBRARY_DAMAGED names the repair and no Rust text', () => {
    const err = new LibraryDamagedError('/lib', new Error(TRUNCATED));
    expect(err.code).toBe('LIBRARY_DAMAGED');
    expect(err.message).toMatch(/backup/);
    expect(err.message).toMatch(/manualdesk ingest .* --library/);
    expect(err.message).not.toMatch(/\.rs:|LanceError/);
  });

  it('an INTERNAL error drops the Rust source locations', () => {
    const data = toErrorData(new Error(`lance error: something new${AT}, /rustc/5980/library/core/src/ops/function.rs:250:5`));
    expect(data.code).toBe('INTERNAL');
    expect(data.message).toContain('lance error: something new');
    expect(data.message).not.toMatch(/\.rs:\d/);
  });
});
