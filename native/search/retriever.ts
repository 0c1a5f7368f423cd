/**
 * The one retrieval: a question against every selected source (the local library and installed
 * packs). Per source: exact fault-code lookup, then passages (keyword / vector / hybrid) with the
 * named codes' definitions as related text; a code's own table row is shown once, as the code.
 * Across sources: code hits first (the question's language first), then passages fused by rank.
 * Returns the fused list, the merged code lookup and each retriever's fused ranking, so an answer
 * needs one call.
 */
import type { CodeLookupResponse, CodeMatch, SearchFilters, SearchHit, SearchMode, SearchRequest } from '../contract/api.js';
import type { Lang } from '../contract/document.js';
import { EngineError } from '../contract/errors.js';
import type { CodeIndex } from '../fault-codes/index.js';
import type { LibraryStore } from '../store/library-store.js';
import { allowedFiles } from '../store/filters.js';
import { detectLang } from '../text/lang.js';
import { fuseSourceHits, mergeCodeLookups } from './fuse.js';
import { hybridSearch, type QueryEmbedder, type SearchableStore } from './hybrid.js';
import { DEFAULT_RETRIEVAL_SETTINGS, type RetrievalSettings } from './settings.js';

/** One library to search, with the embedder its vectors can be searched with (null: keyword only). */
export interface RetrievalSource {
  /** Pack id; null for the local library. */
  pack: string | null;
  store: SearchableStore & Pick<LibraryStore, 'getFiles' | 'termCounts'>;
  codes: Pick<CodeIndex, 'lookup'> | null;
  embedder: QueryEmbedder | null;
}

export interface RetrieveRequest extends SearchRequest {
  /** Length of each retriever's ranking in the result (default 5). */
  rankingDepth?: number;
}

export interface Retrieval {
  query: string;
  /** Code hits first, then passages, at most k. */
  hits: SearchHit[];
  /** Which retrievers ran (hybrid when any source searched vectors). */
  mode: SearchMode;
  /** The exact code lookup of the query across the sources. */
  codes: CodeLookupResponse;
  /**
   * What a keyword-only and a vector-only search with k = rankingDepth would list (code hits
   * first, as in `hits`). Meaningful when mode is hybrid; otherwise both are the top of `hits`.
   */
  rankings: { keyword: SearchHit[]; vector: SearchHit[] };
  ms: number;
}

/** The retrieval interface the answer pipeline and the engine use. */
export interface Retriever {
  retrieve(req: RetrieveRequest, signal?: AbortSignal): Promise<Retrieval>;
  lookupCodes(text: string, filters?: SearchFilters): Promise<CodeLookupResponse>;
}

export const DEFAULT_RANKING_DEPTH = 5;

/** Exact code lookup in each source, merged (the filters the code index does not apply itself included). */
export function lookupCodes(sources: RetrievalSource[], text: string, filters?: SearchFilters): CodeLookupResponse {
  const t0 = performance.now();
  const parts = perSourceCodes(sources, text, filters).flatMap((p) => (p.res ? [{ pack: p.src.pack, res: p.res }] : []));
  return mergeCodeLookups(text, parts, round2(performance.now() - t0));
}

export async function retrieve(
  sources: RetrievalSource[],
  req: RetrieveRequest,
  settings: RetrievalSettings = DEFAULT_RETRIEVAL_SETTINGS,
  signal?: AbortSignal,
): Promise<Retrieval> {
  const t0 = performance.now();
  const query = req.query;
  const k = req.k ?? 10;
  const depth = req.rankingDepth ?? DEFAULT_RANKING_DEPTH;
  const lang = detectLang(query);
  const codeHits: SearchHit[] = [];
  const lists: { pack: string | null; hits: SearchHit[] }[] = [];
  const kwLists: { pack: string | null; hits: SearchHit[] }[] = [];
  const vecLists: { pack: string | null; hits: SearchHit[] }[] = [];
  const codeParts: { pack: string | null; res: CodeLookupResponse }[] = [];
  let mode: SearchMode | null = null;
  // The local library and every selected pack are searched alike; their lists are fused by rank.
  for (const { src, res: found } of perSourceCodes(sources, query, req.filters)) {
    if (found) codeParts.push({ pack: src.pack, res: found });
    const matches = found?.matches ?? [];
    const mine = toCodeHits(matches, lang).map((h) => (src.pack === null ? h : { ...h, pack: src.pack }));
    // A question that names a code is about what the code means: its definition's words find the
    // passages that explain it further (the setting to change, the part to check).
    const related = matches.length > 0 ? { text: relatedText(matches), boost: settings.relatedBoost } : undefined;
    const res = await hybridSearch(src.store, src.embedder, { ...req, query, k }, { signal, related, keyword: settings.keyword });
    // A code's table row is also a passage: show it once, as the code.
    const notCodeRow = (h: SearchHit) => !mine.some((c) => c.file === h.file && h.text.includes(c.text));
    codeHits.push(...mine);
    lists.push({ pack: src.pack, hits: res.hits.filter(notCodeRow) });
    kwLists.push({ pack: src.pack, hits: res.rankings.keyword.slice(0, depth).filter(notCodeRow) });
    vecLists.push({ pack: src.pack, hits: res.rankings.vector.slice(0, depth).filter(notCodeRow) });
    if (mode === null || mode === 'keyword') mode = res.mode;
    signal?.throwIfAborted();
  }
  const hits = [...codeHits, ...fuseSourceHits(lists, k)].slice(0, k);
  const rankings = {
    keyword: [...codeHits, ...fuseSourceHits(kwLists, depth)].slice(0, depth),
    vector: [...codeHits, ...fuseSourceHits(vecLists, depth)].slice(0, depth),
  };
  const ms = round2(performance.now() - t0);
  return { query, hits, mode: mode ?? 'keyword', codes: mergeCodeLookups(query, codeParts, ms), rankings, ms };
}

function perSourceCodes(sources: RetrievalSource[], text: string, filters?: SearchFilters) {
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
function toCodeHits(matches: CodeMatch[], lang: Lang): SearchHit[] {
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

function relatedText(matches: CodeMatch[]): string {
  const seen = new Set<string>();
  for (const m of matches.slice(0, 4)) for (const t of [m.title, m.description, m.cause, m.remedy]) if (t) seen.add(t);
  return [...seen].join(' ');
}

/** The query as search takes it: text, control characters as spaces, at most 2,000 characters. */
export function validateQuery(q: unknown): string {
  if (typeof q !== 'string') throw new EngineError('INVALID_INPUT', 'The query must be text: type a fault code or a few words about the problem.');
  // Control characters carry no meaning in a manual search; keep tabs/newlines as spaces.
  // eslint-disable-next-line no-control-regex
  const clean = q.replace(/[\u0000-\u001f\u007f]+/g, ' ').trim();
  if (clean.length === 0) throw new EngineError('INVALID_INPUT', 'The search is empty. Type a fault code or a few words about the problem.');
  if (clean.length > 2000) {
    throw new EngineError('INVALID_INPUT', `The search is ${clean.length} characters long; keep it under 2,000 (a code or a sentence is enough).`);
  }
  return clean;
}

export function clampK(k: number | undefined): number {
  if (k === undefined) return 10;
  if (!Number.isInteger(k) || k < 1 || k > 200) {
    throw new EngineError('INVALID_INPUT', `k must be a whole number from 1 to 200 (got ${k}); use a number in that range, or leave it out for 10.`);
  }
  return k;
}

function round2(x: number): number {
  return Math.round(x * 100) / 100;
}
