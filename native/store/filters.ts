/**
 * Search filters resolved against the committed file records: which files may answer, and the SQL
 * `where` clause that restricts a LanceDB query to them. Pure.
 */
import type { SearchFilters } from '../contract/api.js';
import type { FileRecord } from '../contract/document.js';

/** SQL string literal with quotes escaped. */
export function sqlString(value: string): string {
  return `'${value.replace(/'/g, "''")}'`;
}

export function sqlIn(column: string, values: Iterable<string>): string {
  return `${column} IN (${[...values].map(sqlString).join(', ')})`;
}

const collator = new Intl.Collator('en', { numeric: true, sensitivity: 'base' });

/** Orders revisions oldest first: natural order of revision strings (none is oldest), then ingest time. */
export function compareRevisions(a: FileRecord, b: FileRecord): number {
  const ra = a.meta.revision;
  const rb = b.meta.revision;
  if (ra !== rb) {
    if (ra === null || ra === '') return -1;
    if (rb === null || rb === '') return 1;
    const c = collator.compare(ra, rb);
    if (c !== 0) return c;
  }
  return a.ingestedAt < b.ingestedAt ? -1 : a.ingestedAt > b.ingestedAt ? 1 : 0;
}

/** For each manualKey, the newest file. */
export function newestRevisions(files: Iterable<FileRecord>): Set<string> {
  const best = new Map<string, FileRecord>();
  for (const f of files) {
    const cur = best.get(f.manualKey);
    if (!cur || compareRevisions(cur, f) < 0) best.set(f.manualKey, f);
  }
  return new Set([...best.values()].map((f) => f.file));
}

const lower = (s: string): string => s.trim().toLowerCase();

/**
 * Files allowed by the filters, or null when every committed file is allowed.
 * By default only the newest revision of each manual answers.
 */
export function allowedFiles(files: ReadonlyMap<string, FileRecord>, filters: SearchFilters = {}): Set<string> | null {
  const newestOnly = !filters.allRevisions && !filters.revision;
  const newest = newestOnly ? newestRevisions(files.values()) : null;
  const manuals = filters.manuals?.length ? new Set(filters.manuals.map(lower)) : null;
  const equipment = filters.equipment?.length ? new Set(filters.equipment.map(lower)) : null;
  const prefix = normalPrefix(filters.pathPrefix);
  const revision = filters.revision ? lower(filters.revision) : null;
  if (!manuals && !equipment && !prefix && !revision && (!newest || newest.size === files.size)) return null;
  const out = new Set<string>();
  for (const f of files.values()) {
    if (newest && !newest.has(f.file)) continue;
    if (manuals && !manuals.has(lower(f.meta.title)) && !manuals.has(lower(f.manualKey))) continue;
    if (equipment && !f.meta.equipment.some((e) => equipment.has(lower(e)))) continue;
    if (prefix && !f.file.startsWith(prefix)) continue;
    if (revision && lower(f.meta.revision ?? '') !== revision) continue;
    out.add(f.file);
  }
  return out;
}

function normalPrefix(p: string | undefined): string | null {
  return p ? p.replace(/\\/g, '/').replace(/^\.\//, '') : null;
}

/**
 * The where clause for the filters; '' when nothing needs filtering; null when nothing can match.
 */
export function whereClause(files: ReadonlyMap<string, FileRecord>, filters: SearchFilters = {}): string | null {
  const parts: string[] = [];
  const allowed = allowedFiles(files, filters);
  if (allowed) {
    if (allowed.size === 0) return null;
    // A folder and nothing else narrowed it: one prefix test, not a list of every file in the folder
    // (a list of hundreds made a filtered full-text search half as fast again).
    const prefix = normalPrefix(filters.pathPrefix);
    let under = 0;
    if (prefix) for (const f of files.keys()) if (f.startsWith(prefix)) under++;
    parts.push(prefix && under === allowed.size ? `starts_with(file, ${sqlString(prefix)})` : sqlIn('file', allowed));
  }
  if (filters.lang?.length) parts.push(sqlIn('lang', filters.lang));
  return parts.join(' AND ');
}
