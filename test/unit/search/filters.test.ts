import { describe, expect, it } from 'vitest';
import type { FileRecord } from '../../../native/contract/document.js';
import { allowedFiles, newestRevisions, sqlString, whereClause } from '../../../native/store/filters.js';
import { record } from '../store/fixtures.js';

const map = (recs: FileRecord[]) => new Map(recs.map((r) => [r.file, r]));

describe('search filters', () => {
  it('escapes SQL string literals', () => {
    expect(sqlString("o'brien")).toBe("'o''brien'");
  });

  it('picks the newest revision by natural order, then ingest time', () => {
    const files = [
      record('a1', { title: 'A', revision: 'v2', ingestedAt: '2024-05-01' }),
      record('a2', { title: 'A', revision: 'v10', ingestedAt: '2024-01-01' }),
      record('a3', { title: 'A', revision: null, ingestedAt: '2025-01-01' }),
      record('b1', { title: 'B', revision: null, ingestedAt: '2024-01-01' }),
      record('b2', { title: 'B', revision: null, ingestedAt: '2024-02-01' }),
    ];
    expect([...newestRevisions(files)].sort()).toEqual(['a2', 'b2']);
  });

  it('returns null when nothing is filtered and a where clause otherwise', () => {
    const files = map([record('x/a.md', { title: 'A' }), record('y/b.md', { title: 'B', equipment: ['MK4'] })]);
    expect(allowedFiles(files, {})).toBeNull();
    expect(whereClause(files, {})).toBe('');
    expect(whereClause(files, { equipment: ['mk4'] })).toBe("file IN ('y/b.md')");
    // A folder and nothing else: one prefix test (quotes escaped), not the list of its files.
    expect(whereClause(files, { lang: ['zh'], pathPrefix: 'x/' })).toBe("starts_with(file, 'x/') AND lang IN ('zh')");
    expect(whereClause(map([record("o'k/a.md")]), { pathPrefix: "o'k/" })).toBe("starts_with(file, 'o''k/')");
    expect(whereClause(files, { manuals: ['nope'] })).toBeNull();
  });

  it('lists the files when something else narrows the folder (an older revision, a manual)', () => {
    const files = map([
      record('x/a.md', { title: 'A', revision: '1' }),
      record('x/a2.md', { title: 'A', revision: '2' }),
      record('x/c.md', { title: 'C' }),
    ]);
    expect(whereClause(files, { pathPrefix: 'x/' })).toBe("file IN ('x/a2.md', 'x/c.md')");
    expect(whereClause(files, { pathPrefix: 'x/', manuals: ['C'] })).toBe("file IN ('x/c.md')");
  });
});
