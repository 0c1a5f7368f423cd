/**
 * Keyword retrieval: the question's full-text plan against the store, ties ordered by chunk id.
 * The store answers the raw query; the ranking rules live here.
 */
import type { SearchFilters } from '../../contract/api.js';
import type { FtsPlan, ScoredChunk } from '../../store/types.js';
import { buildFtsPlan, restrictPlan, type RelatedText } from './fts-query.js';
import { DEFAULT_KEYWORD_CONFIG, type KeywordConfig } from '../settings.js';

/**
 * A run of equal scores past the first rows fetched is read once more, this many times wider (at
 * most MAX_TIE_FETCH rows): enough for the ties seen in real manuals (rows of one table, man-page
 * stubs) without paying for a loop on every query.
 */
const TIE_FETCH_FACTOR = 4;
const MAX_TIE_FETCH = 400;

/** What keyword retrieval needs from a store: one raw full-text call over committed rows. */
export interface FullTextStore {
  fullTextSearch(plan: FtsPlan, limit: number, filters?: SearchFilters): Promise<{ hits: ScoredChunk[]; scores: number[] }>;
}

/** True when the score at rank k (1-based) equals the last fetched row's: the tie may go on. */
export function tieRunsPast(fetched: number[], k: number): boolean {
  const scores = [...fetched].sort((a, b) => b - a);
  const kth = scores[Math.min(k, scores.length) - 1];
  return kth !== undefined && kth > 0 && scores[scores.length - 1] === kth;
}

/** Orders hits by score, equal scores by chunk id (the index returns ties in no fixed order). */
export function rankHits(hits: ScoredChunk[]): ScoredChunk[] {
  return hits
    .filter((h) => h.score > 0)
    .sort((a, b) => b.score - a.score || (a.chunk.id < b.chunk.id ? -1 : a.chunk.id > b.chunk.id ? 1 : 0));
}

/**
 * The question's best `k` passages by BM25. `complete` (default k): how many of them must be there
 * whatever ties the index cut; fusion asks for more candidates than it shows, and a tie past the
 * shown ones may shorten its list instead of costing a second, wider fetch. `within`: the indexed
 * terms of the only passages wanted (restrictPlan); the index is then asked for those terms alone.
 */
export async function keywordSearch(
  store: FullTextStore,
  query: string,
  k: number,
  filters?: SearchFilters,
  related?: RelatedText,
  cfg: KeywordConfig = DEFAULT_KEYWORD_CONFIG,
  complete = k,
  within?: ReadonlySet<string>,
): Promise<ScoredChunk[]> {
  if (k <= 0) return [];
  const whole = buildFtsPlan(query, cfg, related);
  const plan = whole && within ? restrictPlan(whole, within) : whole;
  if (!plan) return [];
  // The same question must give the same list every time (and in a pack of this library). When a
  // tie runs past the rows fetched, which of the tied rows came back is the index's choice: drop the
  // tied run when enough rows score above it, else fetch more so every tied row is ordered.
  let limit = k + 10;
  let res = await store.fullTextSearch(plan, limit, filters);
  if (res.scores.length === limit && tieRunsPast(res.scores, k)) {
    const tail = Math.min(...res.scores);
    const above = res.hits.filter((h) => h.score > tail);
    if (above.length >= Math.min(complete, k)) return rankHits(above).slice(0, k);
    limit = Math.min(TIE_FETCH_FACTOR * limit, MAX_TIE_FETCH);
    res = await store.fullTextSearch(plan, limit, filters);
  }
  return rankHits(res.hits).slice(0, k);
}
