/**
 * The library's vocabulary: in how many passages each analyzed term occurs (counted up to a cap).
 * "Does the library know this word?" is asked of the whole full-text index (passage text and
 * headings) and of the labels every passage carries (file path, manual title, equipment), never of
 * the passages a search happened to rank first. The evidence gate uses it to tell a name the library
 * has never heard of from one that the top passages merely lack.
 */
import * as lancedb from '@lancedb/lancedb';
import type { FileRecord } from '../contract/document.js';
import { analyze } from '../text/analyze.js';

/** Passages counted at most per term: enough to tell a rare word from a common one, cheap to fetch. */
export const VOCABULARY_COUNT_CAP = 50;

/** Tokens of the labels of the files (path parts, manual title, equipment). */
export function labelTokens(files: Iterable<FileRecord>): Set<string> {
  const out = new Set<string>();
  for (const f of files) {
    const text = `${f.file.replace(/[/_.-]+/g, ' ')}\n${f.meta.title}\n${f.meta.equipment.join(' ')}`;
    for (const t of analyze(text)) out.add(t);
  }
  return out;
}

/**
 * Passages holding each term (at most {@link VOCABULARY_COUNT_CAP}; a term found only in file labels
 * counts 1). Terms are analyzer tokens (analyze() output), looked up as they are.
 */
export async function countTerms(
  table: lancedb.Table | null,
  files: Iterable<FileRecord>,
  terms: string[],
  isCommitted: (row: Record<string, unknown>) => boolean,
  /** Only the passages of these rows (a where clause over file; '' or absent: all). */
  where?: string,
): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  const wanted = [...new Set(terms.filter((t) => t.length > 0 && !/\s/.test(t)))];
  if (wanted.length === 0) return out;
  const labels = labelTokens(files);
  const inIndex = async (term: string): Promise<number> => {
    if (!table) return 0;
    let q = table.query().fullTextSearch(new lancedb.MultiMatchQuery(term, ['fts', 'fts_head']));
    if (where) q = q.where(where);
    const rows = await q
      .select(['file', 'generation', '_score'])
      .limit(VOCABULARY_COUNT_CAP)
      .toArray();
    return (rows as Record<string, unknown>[]).filter(isCommitted).length;
  };
  // One small query a term, run together (a question has a few terms the top passages lack).
  const counts = await Promise.all(wanted.map(inIndex));
  wanted.forEach((term, i) => {
    const n = counts[i] ?? 0;
    out.set(term, n === 0 && labels.has(term) ? 1 : n);
  });
  return out;
}

/**
 * Passages read per term for its spread: every passage of all but the commonest words (a full-text
 * query returns only the file of each, a few ms even for thousands). A sample of the best-scored 200
 * under-counted: one set's many short rows ("pressure" in a car's code list) filled it.
 */
export const SPREAD_SAMPLE = 5000;

/** Term spreads a library keeps between questions (per files revision); past it they are dropped and counted again. */
export const SPREAD_CACHE_TERMS = 20_000;

/** The documentation set a file belongs to: its top folder (null for a file at the root: no set). */
export function docSetOf(file: string): string | null {
  const i = file.indexOf('/');
  return i < 0 ? null : file.slice(0, i);
}

/** The documentation sets of the files (top folders), sorted. */
export function docSets(files: Iterable<FileRecord>): string[] {
  return [...new Set([...files].flatMap((f) => docSetOf(f.file) ?? []))].sort();
}

/** For each token of the files' labels (path parts, title, equipment), the documentation sets whose files carry it. */
export function labelSets(files: Iterable<FileRecord>): Map<string, Set<string>> {
  const out = new Map<string, Set<string>>();
  for (const f of files) {
    const set = docSetOf(f.file);
    if (set === null) continue;
    for (const t of labelTokens([f])) {
      if (!out.has(t)) out.set(t, new Set());
      out.get(t)?.add(set);
    }
  }
  return out;
}

/**
 * In how many documentation sets (top folders: a machine's or vendor's manuals) each analyzed term
 * occurs, in its passages (up to {@link SPREAD_SAMPLE}) and the files' labels ({@link labelSets}).
 * The gate tells a word most sets use (generic: "switch", "replace") from one that names what a set is about.
 */
export async function termSpread(
  table: lancedb.Table | null,
  labels: ReadonlyMap<string, ReadonlySet<string>>,
  terms: string[],
  isCommitted: (row: Record<string, unknown>) => boolean,
): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  const wanted = [...new Set(terms.filter((t) => t.length > 0 && !/\s/.test(t)))];
  if (wanted.length === 0) return out;
  const inIndex = async (term: string): Promise<string[]> => {
    if (!table) return [];
    const rows = (await table
      .query()
      .fullTextSearch(new lancedb.MultiMatchQuery(term, ['fts', 'fts_head']))
      .select(['file', 'generation', '_score'])
      .limit(SPREAD_SAMPLE)
      .toArray()) as Record<string, unknown>[];
    return rows.filter(isCommitted).flatMap((r) => docSetOf(String(r.file)) ?? []);
  };
  const found = await Promise.all(wanted.map(inIndex));
  wanted.forEach((term, i) => out.set(term, new Set([...(found[i] ?? []), ...(labels.get(term) ?? [])]).size));
  return out;
}
