/**
 * What a question's fault codes give the retrieval before any search: each source's exact code lookup
 * (with the filters the code index does not apply itself) and the sources' lookups merged, the code hits shown before passages, the
 * folder that defines the codes, and their meanings as related text and as the query plan's definitions.
 */
import type { CodeLookupResponse, CodeMatch, SearchFilters, SearchHit } from '../../contract/api.js';
import type { Lang } from '../../contract/document.js';
import { detectCodes } from '../../fault-codes/detect.js';
import type { LibraryStore } from '../../store/library-store.js';
import { allowedFiles } from '../../store/filters.js';
import type { RetrievalSource } from '../source.js';
import type { NameScope } from './name-index.js';

export function perSourceCodes(sources: RetrievalSource[], text: string, filters?: SearchFilters) {
  return sources.map((src) => {
    if (!src.codes) return { src, res: null };
    const res = src.codes.lookup(text, { manuals: filters?.manuals, equipment: filters?.equipment });
    return { src, res: { ...res, matches: res.matches.filter(codeFilter(filters, src.store)) } };
  });
}

/**
 * The search filters the code index does not apply itself: newest revision only (unless asked),
 * revision, path prefix and language, so a code hit never comes from a file a passage could not.
 * Manual and equipment filters are the index's (equipment is matched against each code's scope).
 */
function codeFilter(filters: SearchFilters | undefined, store: Pick<LibraryStore, 'getFiles'>): (m: CodeMatch) => boolean {
  const records = new Map(store.getFiles().map((f) => [f.file, f] as const));
  const allowed = allowedFiles(records, { ...filters, manuals: undefined, equipment: undefined });
  const langs = filters?.lang?.length ? new Set<string>(filters.lang) : null;
  return (m) => (allowed === null || allowed.has(m.file)) && (langs === null || langs.has(m.lang ?? 'en'));
}

/**
 * Exact fault-code matches, shown before passages: definitions in the question's language first
 * (every code's), then their translations.
 */
export function toCodeHits(matches: CodeMatch[], lang: Lang): SearchHit[] {
  const ordered = [...matches.filter((m) => (m.lang ?? 'en') === lang), ...matches.filter((m) => (m.lang ?? 'en') !== lang)];
  return ordered.map((m, i) => ({
    file: m.file,
    page: m.page,
    section: m.section,
    text: m.text,
    score: 1000 - i,
    kind: 'code' as const,
    manual: m.manual,
    lang: m.lang ?? 'en',
    chunkId: `code:${m.key}:${m.file}:${i}`,
  }));
}

/**
 * The documentation set of the codes a question names: the top folder of each defining file (the
 * machine's or vendor's manuals), or the file itself when it sits at the library's top. "error 12,
 * which other switch must be on" names no machine, but the code's record does.
 */
export function codeScope(matches: CodeMatch[]): NameScope | null {
  if (matches.length === 0) return null;
  const prefixes = [...new Set(matches.filter((m) => m.file.includes('/')).map((m) => m.file.split('/')[0] as string))];
  const files = [...new Set(matches.filter((m) => !m.file.includes('/')).map((m) => m.file))];
  return { names: [], files, prefixes };
}

export function relatedText(matches: CodeMatch[]): string {
  const seen = new Set<string>();
  for (const m of matches.slice(0, 4)) for (const t of [m.title, m.description, m.cause, m.remedy]) if (t) seen.add(t);
  return [...seen].join(' ');
}

/**
 * The detected codes' meanings from the one code lookup, keyed as the query plan detects codes
 * (detectCodes), and which matches belong to a planned part's code.
 */
export function codeDefinitions(query: string, codes: CodeLookupResponse) {
  // The lookup's detected keys, by the text the question wrote them as.
  const byRaw = new Map<string, string>();
  for (const [key, raw] of Object.entries(codes.typed ?? {})) byRaw.set(raw.toLowerCase(), key);
  const lookupKeyOf = new Map<string, string>();
  for (const c of detectCodes(query)) {
    const key = codes.detected.includes(c.key) ? c.key : byRaw.get(c.raw.toLowerCase());
    if (key) lookupKeyOf.set(c.key, key);
  }
  const byDetected: Record<string, string> = {};
  for (const [planKey, key] of lookupKeyOf) {
    const m = codes.matches.find((x) => x.key === key);
    // The description when the record has no cause or remedy of its own (a register list's
    // "17 - valve not set up - the valve teach-in has not been run").
    if (m) byDetected[planKey] = [m.title, ...(m.cause || m.remedy ? [m.cause, m.remedy] : [m.description])].filter(Boolean).join(' ');
  }
  return {
    byDetected,
    matchesOf: (planKey: string, m: CodeMatch): boolean => m.key === (lookupKeyOf.get(planKey) ?? planKey),
  };
}

/** Code lookups of several sources merged: matches grouped by detected code, in source order. */
export function mergeCodeLookups(query: string, parts: { pack: string | null; res: CodeLookupResponse }[], ms: number): CodeLookupResponse {
  if (parts.length === 0) return { query, detected: [], matches: [], nearest: [], ms };
  if (parts.length === 1 && parts[0]) {
    const { pack, res } = parts[0];
    return { ...res, matches: pack === null ? res.matches : res.matches.map((m) => ({ ...m, pack })), ms };
  }
  const detected = [...new Set(parts.flatMap((p) => p.res.detected))];
  const order = new Map(detected.map((d, i) => [d, i] as const));
  const matches = parts
    .flatMap((p) => p.res.matches.map((m) => (p.pack === null ? m : { ...m, pack: p.pack })))
    .map((m, i) => ({ m, i }))
    .sort((a, b) => (order.get(a.m.key) ?? 1e9) - (order.get(b.m.key) ?? 1e9) || a.i - b.i)
    .map((x) => x.m);
  const defined = new Set(matches.map((m) => m.key));
  const nearest: CodeLookupResponse['nearest'] = [];
  for (const p of parts) {
    for (const n of p.res.nearest) {
      if (defined.has(n.code) || nearest.some((x) => x.code === n.code && x.manual === n.manual)) continue;
      nearest.push(n);
    }
  }
  return { query, detected, matches, nearest: matches.length > 0 ? [] : nearest.slice(0, 5), ms };
}
