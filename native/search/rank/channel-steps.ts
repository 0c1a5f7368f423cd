/**
 * The ranking steps that run inside one library's search, on its fused channel list (channels/hybrid.ts
 * switches them: settings.ts, RANKING_STEPS). Pure.
 */
import type { ScoredChunk } from '../../store/types.js';
import { FIRST_PAGE } from '../settings.js';
import { placeWithin } from './rrf.js';

/**
 * An untranslated manual's best keyword passage is placed within the first UNTRANSLATED_WINDOW
 * results when its BM25 score is at least this share of the best passage's. It matches through
 * translated words only, which weigh a fraction of the question's own (fts-query.ts), so it never
 * outscores a passage in the question's language that shares its words. Measured (keyword library of
 * the dev corpus plus a Chinese-only protocol manual written for the test): the manual's best passage
 * for its ten English questions scored 0.30–1.28 of the best, and for the dev set's English questions
 * (which it does not answer) at most 0.35; 0.4 places it for seven of the ten and for none of those.
 */
const UNTRANSLATED_SHARE = 0.4;
const UNTRANSLATED_WINDOW = FIRST_PAGE;

/** `ranked` with `candidate` placed within the first UNTRANSLATED_WINDOW when it scores close enough to keyword's best. */
export function withUntranslated(ranked: ScoredChunk[], keyword: ScoredChunk[], candidate: ScoredChunk | undefined): ScoredChunk[] {
  const best = keyword[0]?.score ?? 0;
  if (!candidate || (best > 0 && candidate.score < UNTRANSLATED_SHARE * best)) return ranked;
  const all = ranked.some((h) => h.chunk.id === candidate.chunk.id) ? ranked : [...ranked, { chunk: candidate.chunk, score: 0 }];
  const byId = new Map(all.map((h) => [h.chunk.id, h] as const));
  const placed = placeWithin(all.map((h) => ({ id: h.chunk.id, score: h.score })), [candidate.chunk.id], UNTRANSLATED_WINDOW);
  return placed.map((r) => byId.get(r.id) as ScoredChunk).slice(0, Math.max(ranked.length, 1));
}

/**
 * Rows of one table in the fused list, reordered among the places they hold by the keyword channel's
 * order (the rows it did not rank keep theirs, after the ones it did). A table's rows are written to
 * one template and differ by a word or a number ("Bank 1" / "Bank 2", "Joint 3"), so their vectors
 * are near-identical and the model's order among them is noise; the words tell them apart.
 */
export function siblingRowsByKeyword(fused: ScoredChunk[], keyword: ScoredChunk[]): ScoredChunk[] {
  const kwRank = new Map(keyword.map((h, i) => [h.chunk.id, i] as const));
  const byFile = new Map<string, number[]>();
  fused.forEach((h, i) => {
    if (h.chunk.kind !== 'table-row') return;
    const at = byFile.get(h.chunk.file);
    if (at) at.push(i);
    else byFile.set(h.chunk.file, [i]);
  });
  const out = fused.slice();
  for (const places of byFile.values()) {
    if (places.length < 2) continue;
    const rows = places.map((i) => fused[i] as ScoredChunk);
    const order = rows.map((h, j) => ({ h, j, r: kwRank.get(h.chunk.id) ?? Infinity })).sort((a, b) => a.r - b.r || a.j - b.j);
    places.forEach((p, j) => (out[p] = { ...(order[j] as { h: ScoredChunk }).h, score: (fused[p] as ScoredChunk).score }));
  }
  return out;
}
