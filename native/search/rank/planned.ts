/**
 * The last ranking steps of a retrieval, after the sources' lists are fused: a two-part question's
 * part lists, the passage that shows a quoted message, the whole question's keyword top, code hits
 * first. Pure (lists in, list out).
 */
import type { SearchHit } from '../../contract/api.js';
import { FIRST_PAGE, stepOn, type RankingStep, type RetrievalSettings } from '../settings.js';
import { appendMissing, interleave } from './interleave.js';
import { placeWithin } from './rrf.js';

/**
 * The last ranking steps of a retrieval (settings.ts, RANKING_STEPS, in this order), pure: the
 * passage that shows a message the question writes leads (shown-message-first); a two-part
 * question's part lists are interleaved with the whole question's (interleave-parts) and keep the
 * whole question's first keyword passages on the first page (plan-keyword-top); code hits lead.
 */
export function rankPlanned(
  lists: { whole: SearchHit[]; parts: { fused: SearchHit[]; showsMessage: boolean }[]; codeHits: SearchHit[]; keywordRanking: SearchHit[]; k: number },
  settings: Pick<RetrievalSettings, 'off'> = {},
): SearchHit[] {
  const { whole, parts, codeHits, keywordRanking, k } = lists;
  const on = (step: RankingStep) => stepOn(settings, step);
  const idOf = (h: SearchHit) => h.chunkId;
  const showing = on('shown-message-first') ? parts.flatMap((x) => (x.showsMessage && x.fused[0] ? [x.fused[0]] : [])) : [];
  const merged = on('interleave-parts') ? interleave(parts.map((x) => x.fused), whole, { idOf, k, wholeFirst: true }) : whole;
  const interleaved = appendMissing(showing, merged, idOf);
  const passages = parts.length > 0 && on('plan-keyword-top') ? keepKeywordTop(interleaved, keywordRanking, Math.max(PLAN_KEYWORD_KEEP, FIRST_PAGE - codeHits.length)) : interleaved;
  return [...codeHits, ...passages].slice(0, k);
}

/** The whole question's keyword passages a two-part question's interleaved list keeps on its first page. */
const PLAN_KEYWORD_KEEP = 2;

/**
 * The interleaved list of a two-part question with the whole question's first PLAN_KEYWORD_KEEP keyword
 * passages within its first `window` places. Fusing one question's channels keeps keyword's top two on
 * the first page (rrf.ts, guaranteeTop); interleaving the parts' lists round by round pushed the whole
 * list's third and later places off it, and in hybrid mode the vector channel puts keyword's best
 * passage there: turning the model on must not drop what keyword search alone puts first.
 */
function keepKeywordTop(passages: SearchHit[], keyword: SearchHit[], window: number): SearchHit[] {
  const must = keyword.filter((h) => h.kind !== 'code').slice(0, PLAN_KEYWORD_KEEP).map((h) => h.chunkId);
  const byId = new Map(passages.map((h) => [h.chunkId, h] as const));
  return placeWithin(passages.map((h) => ({ id: h.chunkId, score: h.score })), must, window).map((r) => byId.get(r.id) as SearchHit);
}
