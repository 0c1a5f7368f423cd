/**
 * The last ranking steps of a retrieval, after the sources' lists are fused: a two-part question's
 * part lists, the passage that shows a quoted message, the whole question's keyword top, hub pages
 * a few places lower; code hits first. Pure (lists in, list out).
 */
import type { SearchHit } from '../../contract/api.js';
import { FIRST_PAGE, type RetrievalSettings } from '../settings.js';
import { appendMissing, interleave } from './interleave.js';
import { placeWithin } from './rrf.js';
import { sinkNavigation } from './navigation.js';
import { runSteps, type RankStep } from './steps.js';

/** What the last steps read besides the list they order. */
export interface PlannedContext {
  /** A two-part question's part lists (fused), each with whether it quotes a message; empty for one part. */
  parts: { fused: SearchHit[]; showsMessage: boolean }[];
  codeHits: SearchHit[];
  /** The whole question's keyword ranking. */
  keywordRanking: SearchHit[];
  k: number;
}

const idOf = (h: SearchHit) => h.chunkId;

/** The last steps, in the order they run (settings.ts, RANKING_STEPS, has their reasons). */
export const PLANNED_STEPS: readonly RankStep<SearchHit, PlannedContext>[] = [
  { name: 'interleave-parts', run: (hits, c) => interleave(c.parts.map((x) => x.fused), hits, { idOf, k: c.k, wholeFirst: true }) },
  { name: 'shown-message-first', run: (hits, c) => appendMissing(c.parts.flatMap((x) => (x.showsMessage && x.fused[0] ? [x.fused[0]] : [])), hits, idOf) },
  {
    name: 'plan-keyword-top',
    run: (hits, c) => (c.parts.length > 0 ? keepKeywordTop(hits, c.keywordRanking, Math.max(PLAN_KEYWORD_KEEP, FIRST_PAGE - c.codeHits.length)) : hits),
  },
  // Last, on the list the technician reads: sunk in each channel, a hub page came back when both ranked it.
  { name: 'sink-navigation', run: (hits) => sinkNavigation(hits, (h) => h.text) },
];

/** The whole question's list through the last steps, code hits first, at most k. */
export function rankPlanned(lists: PlannedContext & { whole: SearchHit[] }, settings: Pick<RetrievalSettings, 'off'> = {}): SearchHit[] {
  const { whole, ...context } = lists;
  return [...context.codeHits, ...runSteps(PLANNED_STEPS, whole, context, settings)].slice(0, context.k);
}

/** The whole question's keyword passages a two-part question's interleaved list keeps on its first page. */
const PLAN_KEYWORD_KEEP = 2;

/**
 * The interleaved list of a two-part question with the whole question's first PLAN_KEYWORD_KEEP keyword
 * passages within its first `window` places. Fusing one question's channels keeps each channel's top two on
 * the first page (rrf.ts, channelTop); interleaving the parts' lists round by round pushed the whole
 * list's third and later places off it: turning the model on must not drop what keyword search alone puts first.
 */
function keepKeywordTop(passages: SearchHit[], keyword: SearchHit[], window: number): SearchHit[] {
  const must = keyword.filter((h) => h.kind !== 'code').slice(0, PLAN_KEYWORD_KEEP).map((h) => h.chunkId);
  const byId = new Map(passages.map((h) => [h.chunkId, h] as const));
  return placeWithin(passages.map((h) => ({ id: h.chunkId, score: h.score })), must, window).map((r) => byId.get(r.id) as SearchHit);
}
