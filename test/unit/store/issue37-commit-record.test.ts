/**
 * commit-record.ts as plain functions: when files.json is in doubt, and which version of each file a
 * rebuild keeps (issue 37 item 2).
 */
import { describe, expect, it } from 'vitest';
import type { FileRecord } from '../../../native/contract/document.js';
import { filesJsonDoubt, rebuildRecords, tallyRows, type CommitRecord, type FilesJsonRead } from '../../../native/store/commit-record.js';

const rec = (file: string, generation: number, chunks = 1, codes = 0): FileRecord => ({
  file,
  source: `/src/${file}`,
  sha256: 'abc',
  size: 10,
  mtimeMs: 1,
  format: 'markdown',
  meta: { title: file, equipment: [], revision: null, language: null, publisher: null },
  manualKey: `file:${file}`,
  chunks,
  codes,
  pagesWithoutText: [],
  generation,
  ingestedAt: '2026-01-01T00:00:00.000Z',
});
const witness = (commit: number, files: Record<string, number>): CommitRecord => ({ formatVersion: 1, commit, files });
const rows = (...pairs: [string, number][]) => pairs.map(([file, generation]) => ({ file, generation, lang: 'en', manual: `Manual ${file}` }));
const read = (files: FileRecord[], commit: number, state: FilesJsonRead['state'] = 'ok'): FilesJsonRead => ({ files, commit, state });

describe('filesJsonDoubt', () => {
  it('trusts files.json at or one commit ahead of commit.json (killed between the two writes)', () => {
    expect(filesJsonDoubt(read([rec('a', 1)], 4), witness(4, { a: 1 }), true)).toBeNull();
    expect(filesJsonDoubt(read([rec('a', 2)], 5), witness(4, { a: 1 }), true)).toBeNull();
  });
  it('doubts one that is missing, damaged, empty or behind', () => {
    expect(filesJsonDoubt(read([], 0, 'missing'), witness(4, { a: 1 }), true)).toBe('is missing');
    expect(filesJsonDoubt(read([], 0, 'damaged'), witness(4, { a: 1 }), true)).toBe('is damaged');
    expect(filesJsonDoubt(read([], 0), witness(4, { a: 1 }), true)).toBe('is empty');
    expect(filesJsonDoubt(read([rec('a', 1)], 3), witness(4, { a: 1 }), true)).toMatch(/older/);
  });
  it('a new library (commit 0) whose first ingest was killed: its rows are leftovers', () => {
    expect(filesJsonDoubt(read([], 0, 'missing'), witness(0, {}), true)).toBeNull();
  });
  it('without commit.json: only a library whose rows have no records at all', () => {
    expect(filesJsonDoubt(read([rec('a', 1)], 0), null, true)).toBeNull();
    expect(filesJsonDoubt(read([], 0, 'missing'), null, false)).toBeNull();
    expect(filesJsonDoubt(read([], 0, 'missing'), null, true)).toBe('is missing');
  });
});

describe('rebuildRecords', () => {
  it("keeps commit.json's generation of each file and leaves a killed run's newer rows uncommitted", () => {
    const tally = tallyRows(rows(['a', 2], ['a', 2], ['a', 3], ['b', 1], ['c', 1]), [{ file: 'a', generation: 2 }]);
    const out = rebuildRecords(read([], 0, 'missing'), witness(7, { a: 2, b: 1 }), tally, false, 'now');
    expect(out.map((r) => [r.file, r.generation, r.chunks, r.codes])).toEqual([
      ['a', 2, 2, 1],
      ['b', 1, 1, 0],
    ]);
    // Rebuilt from rows: read again by the next ingest of its folder (blank hash).
    expect(out[0]).toMatchObject({ sha256: '', langs: ['en'], meta: { title: 'Manual a' } });
  });
  it('keeps an older files.json record that is still current, and rebuilds the others', () => {
    const older = [rec('a', 1), rec('b', 1)];
    const tally = tallyRows(rows(['a', 1], ['b', 2], ['c', 1]), []);
    const out = rebuildRecords(read(older, 3), witness(5, { a: 1, b: 2, c: 1 }), tally, true, 'now');
    expect(out.find((r) => r.file === 'a')).toEqual(older[0]);
    expect(out.find((r) => r.file === 'b')).toMatchObject({ generation: 2, sha256: '', source: '/src/b', vectorsPending: true });
    expect(out.find((r) => r.file === 'c')).toMatchObject({ generation: 1, source: '', vectorsPending: true });
  });
  it('a files.json newer than commit.json by an older ManualDesk (no commit number) wins where its rows exist', () => {
    const tally = tallyRows(rows(['a', 4], ['d', 1]), []);
    const out = rebuildRecords(read([rec('a', 4), rec('d', 1)], 0), witness(5, { a: 2, b: 1 }), tally, false, 'now');
    expect(out.map((r) => [r.file, r.generation])).toEqual([
      ['a', 4],
      ['d', 1],
    ]);
  });
  it('without commit.json: each file at the newest generation its rows hold', () => {
    const out = rebuildRecords(read([], 0, 'missing'), null, tallyRows(rows(['a', 1], ['a', 2]), [{ file: 'k', generation: 3 }]), false, 'now');
    expect(out.map((r) => [r.file, r.generation, r.chunks, r.codes])).toEqual([
      ['a', 2, 1, 0],
      ['k', 3, 0, 1],
    ]);
  });
});
