/**
 * Reciprocal rank fusion (Cormack et al., 2009): score(d) = Σ_lists 1 / (k + rank_list(d)), rank from 1.
 * Pure. Entries with a score ≤ 0 are dropped before ranking (a keyword "hit" that matched nothing must
 * not earn a rank); an id listed twice in one list counts at its best rank. Ties keep first-seen order.
 */
import { FIRST_PAGE } from '../settings.js';

export interface Ranked {
  id: string;
  score: number;
}

export const RRF_K = 60;

export function fuseRrf(lists: Ranked[][], k = RRF_K): Ranked[] {
  const fused = new Map<string, { score: number; order: number }>();
  let order = 0;
  for (const list of lists) {
    const seen = new Set<string>();
    let rank = 0;
    for (const item of list) {
      if (!(item.score > 0) || seen.has(item.id)) continue;
      seen.add(item.id);
      rank++;
      const add = 1 / (k + rank);
      const cur = fused.get(item.id);
      if (cur) cur.score += add;
      else fused.set(item.id, { score: add, order: order++ });
    }
  }
  return [...fused.entries()]
    .sort((a, b) => b[1].score - a[1].score || a[1].order - b[1].order)
    .map(([id, v]) => ({ id, score: v.score }));
}

/** One retriever's ranking, best first, with its own scores (BM25, cosine: not comparable across channels). */
export interface Channel {
  name: 'keyword' | 'vector';
  hits: Ranked[];
}

/**
 * How the keyword and vector rankings are merged (native/search/hybrid.ts): plain reciprocal rank
 * fusion, with each channel's own first entries kept on the first page. No channel leads: a passage
 * is first because both channels rank it high, or because one ranks it first and the other has
 * nothing better (held-out, a "keyword leads" rule fitted to the dev set cost the hits the vector
 * channel alone found). Measured: scripts/eval-fusion.ts.
 */
export interface FusionConfig {
  /** RRF constant. */
  k: number;
  weights: { keyword: number; vector: number };
  /**
   * Each channel's first `channelTop` entries are placed within the first `window` results (in fused
   * order): a passage one channel alone ranks at the very top is that channel's evidence, and fusion
   * must not drop it for what both rank in the middle. 0: off.
   */
  channelTop: number;
  window: number;
}

export const DEFAULT_FUSION: FusionConfig = { k: RRF_K, weights: { keyword: 1, vector: 1 }, channelTop: 2, window: FIRST_PAGE };

/** The channels' rankings fused by `cfg` (a keyword entry scored ≤ 0 matched nothing and earns no rank). Pure. */
export function fuseChannels(channels: Channel[], n: number, cfg: FusionConfig = DEFAULT_FUSION): Ranked[] {
  const lists = channels.map((c) => {
    const seen = new Set<string>();
    const hits = c.hits.filter((h) => (h.score > 0 || c.name === 'vector') && !seen.has(h.id) && (seen.add(h.id), true));
    return { hits, weight: cfg.weights[c.name] };
  });
  const fused = new Map<string, { score: number; order: number }>();
  let order = 0;
  for (const { hits, weight } of lists) {
    hits.forEach((h, rank) => {
      const add = weight / (cfg.k + rank + 1);
      const cur = fused.get(h.id);
      if (cur) cur.score += add;
      else fused.set(h.id, { score: add, order: order++ });
    });
  }
  const ranked = [...fused.entries()]
    .sort((a, b) => b[1].score - a[1].score || a[1].order - b[1].order)
    .map(([id, v]) => ({ id, score: v.score }));
  const tops = lists.flatMap((l) => l.hits.slice(0, cfg.channelTop).map((h) => h.id));
  return placeWithin(ranked, [...new Set(tops)], cfg.window).slice(0, n);
}

/**
 * The fused order, except that every id of `must` is within the first `window` entries: a slot is
 * given to the best-fused missing one only when the remaining slots are just enough for them. Pure.
 */
export function placeWithin(ranked: Ranked[], must: string[], window: number): Ranked[] {
  const present = new Set(ranked.map((r) => r.id));
  const pending = must.filter((id) => present.has(id)).slice(0, window);
  if (pending.length === 0) return ranked;
  const out: Ranked[] = [];
  const used = new Set<string>();
  const rest = ranked.slice();
  while (out.length < window && used.size < ranked.length) {
    const missing = pending.filter((id) => !used.has(id));
    const free = window - out.length;
    const next = free <= missing.length ? rest.find((r) => missing.includes(r.id)) : rest.find((r) => !used.has(r.id));
    if (!next) break;
    out.push(next);
    used.add(next.id);
    rest.splice(rest.indexOf(next), 1);
  }
  return [...out, ...rest];
}
