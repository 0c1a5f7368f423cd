/**
 * The last ranking steps of a retrieval, after the sources' lists are fused: a two-part question's
 * part lists, the passage that shows a quoted message, hub pages a few places lower; code hits first.
 * Pure (lists in, list out).
 */
import type { SearchHit } from '../../contract/api.js';
import type { RetrievalSettings } from '../settings.js';
import { appendMissing, interleave } from './interleave.js';
import { sinkNavigation } from './navigation.js';
import { runSteps, type RankStep } from './steps.js';

/** What the last steps read besides the list they order. */
export interface PlannedContext {
  /** A two-part question's part lists (fused), each with whether it quotes a message; empty for one part. */
  parts: { fused: SearchHit[]; showsMessage: boolean }[];
  codeHits: SearchHit[];
  k: number;
}

const idOf = (h: SearchHit) => h.chunkId;

/** The last steps, in the order they run (settings.ts, RANKING_STEPS, has their reasons). */
export const PLANNED_STEPS: readonly RankStep<SearchHit, PlannedContext>[] = [
  { name: 'interleave-parts', run: (hits, c) => interleave(c.parts.map((x) => x.fused), hits, { idOf, k: c.k, wholeFirst: true }) },
  { name: 'shown-message-first', run: (hits, c) => appendMissing(c.parts.flatMap((x) => (x.showsMessage && x.fused[0] ? [x.fused[0]] : [])), hits, idOf) },
  // Last, on the list the technician reads: sunk in each channel, a hub page came back when both ranked it.
  { name: 'sink-navigation', run: (hits) => sinkNavigation(hits, (h) => h.text) },
];

/** The whole question's list through the last steps, code hits first, at most k. */
export function rankPlanned(lists: PlannedContext & { whole: SearchHit[] }, settings: Pick<RetrievalSettings, 'off'> = {}): SearchHit[] {
  const { whole, ...context } = lists;
  return [...context.codeHits, ...runSteps(PLANNED_STEPS, whole, context, settings)].slice(0, context.k);
}
