/**
 * Reciprocal rank fusion (Cormack et al., 2009): score(d) = Σ_lists 1 / (k + rank_list(d)), rank from 1.
 * Pure. Entries with a score ≤ 0 are dropped before ranking (a keyword "hit" that matched nothing must
 * not earn a rank); an id listed twice in one list counts at its best rank. Ties keep first-seen order.
 */
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
