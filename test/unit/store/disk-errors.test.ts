/** The library's disk told apart from a manual's failures; damaged library JSON named as such. */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { EngineError } from '../../../native/contract/errors.js';
import { readJson } from '../../../native/store/atomic-json.js';
import { LibraryReadOnlyError, libraryDiskError } from '../../../native/store/disk-errors.js';
import { LibraryLock } from '../../../native/store/lock.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'md-disk-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

const errno = (code: string, message = code) => Object.assign(new Error(message), { code });

describe('libraryDiskError', () => {
  it('maps a full disk (Node errno or LanceDB text) to DISK_FULL with a next step', () => {
    for (const err of [errno('ENOSPC'), errno('EDQUOT'), new Error('lance error: IO: No space left on device (os error 28)')]) {
      const e = libraryDiskError(err, '/lib');
      expect(e?.code).toBe('DISK_FULL');
      expect(e?.message).toMatch(/\/lib.*Free some space/);
    }
  });

  it('maps a read-only disk to LibraryReadOnlyError; permission only where asked', () => {
    expect(libraryDiskError(errno('EROFS'), '/lib')).toBeInstanceOf(LibraryReadOnlyError);
    expect(libraryDiskError(new Error('Read-only file system (os error 30)'), '/lib')?.code).toBe('LIBRARY_READ_ONLY');
    expect(libraryDiskError(errno('EACCES'), '/lib')).toBeNull();
    expect(libraryDiskError(errno('EACCES'), '/lib', { permission: true })).toBeInstanceOf(LibraryReadOnlyError);
  });

  it('leaves everything else alone', () => {
    expect(libraryDiskError(errno('ENOENT'), '/lib')).toBeNull();
    expect(libraryDiskError(new EngineError('DISK_FULL', 'checked before copying'), '/lib')).toBeNull();
    expect(libraryDiskError('boom', '/lib')).toBeNull();
  });
});

describe('readJson', () => {
  it('reads JSON, undefined when absent, LIBRARY_FORMAT_MISMATCH naming a damaged file', async () => {
    const good = path.join(dir, 'good.json');
    fs.writeFileSync(good, '{"a":1}');
    expect(await readJson(good)).toEqual({ a: 1 });
    expect(await readJson(path.join(dir, 'absent.json'))).toBeUndefined();
    for (const text of ['{"formatVersion": 1, "files": [', '', '\u0000\u0000']) {
      const bad = path.join(dir, 'files.json');
      fs.writeFileSync(bad, text);
      const err = await readJson(bad).then(
        () => expect.fail('expected a rejection'),
        (e: unknown) => e as EngineError,
      );
      expect(err.code).toBe('LIBRARY_FORMAT_MISMATCH');
      expect(err.message).toContain(bad);
      expect(err.message).toMatch(/Restore .* or re-index/);
    }
  });
});

describe('LibraryLock on a folder that cannot be written', () => {
  // Root ignores permission bits: this check needs an ordinary user (the bad-input suite covers root with a read-only mount).
  it.runIf(process.platform !== 'win32' && process.getuid?.() !== 0)('throws LibraryReadOnlyError instead of a bare EACCES', () => {
    const ro = path.join(dir, 'ro');
    fs.mkdirSync(ro);
    fs.chmodSync(ro, 0o555);
    try {
      expect(() => LibraryLock.acquire(ro)).toThrow(LibraryReadOnlyError);
    } finally {
      fs.chmodSync(ro, 0o755);
    }
  });
});
