/**
 * The one retrieval: a question against every selected source (the local library and installed
 * packs). retrieve() only orchestrates, in the order of the data:
 *
 *   codes and scope (plan/retrieval-plan.ts, plan/codes.ts) → query plan (plan/query-plan.ts)
 *   → channel searches: the whole question (channels/whole.ts), a two-part question's parts
 *     (channels/parts.ts), each source's keyword and vector channels fused in channels/hybrid.ts
 *   → rank: the sources' lists fused by rank (rank/fuse.ts), then the last steps (rank/planned.ts)
 *
 * It returns the ranked list, the merged code lookup and each channel's own ranking, so an answer
 * needs one call. Every step that re-orders passages is listed, in order, in settings.ts (RANKING_STEPS).
 */
import type { CodeLookupResponse, CodeMatch, SearchFilters, SearchHit, SearchMode, SearchRequest } from '../contract/api.js';
import { EngineError } from '../contract/errors.js';
import { detectLang } from '../text/lang.js';
import { searchParts } from './channels/parts.js';
import { searchWhole } from './channels/whole.js';
import { mergeCodeLookups, perSourceCodes } from './plan/codes.js';
import type { PlanPart } from './plan/query-plan.js';
import { planRetrieval, planSources } from './plan/retrieval-plan.js';
import { fuseSourceHits } from './rank/fuse.js';
import { rankPlanned } from './rank/planned.js';
import { DEFAULT_K, DEFAULT_RANKING_DEPTH, DEFAULT_RETRIEVAL_SETTINGS, type RetrievalSettings } from './settings.js';
import type { RetrievalSource } from './source.js';

export type { RetrievalSource };

export interface RetrieveRequest extends SearchRequest {
  /** Length of each retriever's ranking in the result (default 5). */
  rankingDepth?: number;
  /** Also give `rowCodes` (the answer pipeline quotes rows as records; a search shows rows as they are). */
  rowRecords?: boolean;
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
  /**
   * A two-part question's parts, each with its own top passages (rankingDepth), in question order;
   * absent when the question is one part. The answer cites every part.
   */
  parts?: RetrievedPart[];
  /** The library names the question mentions (the manuals it was scoped to); absent when none. */
  scope?: string[];
  /** The folders of the named products (`moteus`, no slash); absent when the question names none. */
  scopeFolders?: string[];
  /**
   * The fault-code record each table-row passage of the hits and parts shows, by chunk id: an answer
   * quotes the row as its record (meaning, cause, remedy), not as the file's raw fields.
   */
  rowCodes?: Record<string, CodeMatch>;
  ms: number;
}

export interface RetrievedPart {
  /** The clause as the question writes it. */
  clause: string;
  /** What was searched for it (the clause with inherited context). */
  query: string;
  reason: PlanPart['reason'];
  /** The part's own top passages (code rows excluded). */
  hits: SearchHit[];
}

/** The retrieval interface the answer pipeline and the engine use. */
export interface Retriever {
  retrieve(req: RetrieveRequest, signal?: AbortSignal): Promise<Retrieval>;
  lookupCodes(text: string, filters?: SearchFilters): Promise<CodeLookupResponse>;
}

export { DEFAULT_RANKING_DEPTH };

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
  const k = req.k ?? DEFAULT_K;
  const depth = req.rankingDepth ?? DEFAULT_RANKING_DEPTH;
  const lang = detectLang(query);
  // Codes and scope, per source: what needs no search.
  const { perSource, codeHits, codes } = await planSources(sources, query, lang, req.filters, settings);
  // The query plan: a two-part question's parts (at most MAX_PARTS), each with its codes' meanings.
  const { plan, definitions, scopeNames, scopeFolders } = await planRetrieval(sources, perSource, query, codes);
  // The channel searches: the whole question and its parts, concurrently.
  const [wholes, searched] = await Promise.all([
    searchWhole(perSource, { ...req, query, k }, { depth, lang, settings, signal }),
    searchParts(perSource, plan.parts, definitions, { ...req, k }, { lang, settings, signal }),
  ]);
  // Rank: the sources' lists fused by rank, then the last steps.
  // Hybrid when any source searched vectors.
  const mode: SearchMode | null = wholes.reduce<SearchMode | null>((m, w) => (m === null || m === 'keyword' ? w.mode : m), null);
  const whole = fuseSourceHits(wholes.map((w) => w.hits), k);
  const parts: RetrievedPart[] = searched.map(({ part, fused }) => ({ clause: part.clause, query: part.query, reason: part.reason, hits: fused.slice(0, depth) }));
  const hits = rankPlanned({ whole, parts: searched, codeHits, k }, settings);
  const rankings = {
    keyword: [...codeHits, ...fuseSourceHits(wholes.map((w) => w.keyword), depth)].slice(0, depth),
    vector: [...codeHits, ...fuseSourceHits(wholes.map((w) => w.vector), depth)].slice(0, depth),
  };
  const rowCodes = req.rowRecords ? recordsOfRows(sources, [...hits, ...parts.flatMap((p) => p.hits)]) : {};
  const ms = round2(performance.now() - t0);
  return {
    query,
    hits,
    mode: mode ?? 'keyword',
    codes: { ...codes, ms },
    rankings,
    ...(parts.length > 0 ? { parts } : {}),
    ...(scopeNames.length > 0 ? { scope: scopeNames } : {}),
    ...(scopeFolders.length > 0 ? { scopeFolders } : {}),
    ...(Object.keys(rowCodes).length > 0 ? { rowCodes } : {}),
    ms,
  };
}

/** The code record each table-row passage shows, from its own source's code index. */
function recordsOfRows(sources: RetrievalSource[], hits: SearchHit[]): Record<string, CodeMatch> {
  const out: Record<string, CodeMatch> = {};
  for (const h of hits) {
    if (h.kind !== 'table-row' || out[h.chunkId]) continue;
    const src = sources.find((s) => s.pack === (h.pack ?? null));
    const m = src?.codes?.recordOfRow?.(h.file, h.text, h.lang);
    if (m) out[h.chunkId] = m;
  }
  return out;
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
  if (k === undefined) return DEFAULT_K;
  if (!Number.isInteger(k) || k < 1 || k > 200) {
    throw new EngineError('INVALID_INPUT', `k must be a whole number from 1 to 200 (got ${k}); use a number in that range, or leave it out for 10.`);
  }
  return k;
}

function round2(x: number): number {
  return Math.round(x * 100) / 100;
}
