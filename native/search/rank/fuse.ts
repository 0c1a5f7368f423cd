/**
 * Merging results of several sources (the local library and installed packs). BM25 scores of
 * different indexes are not comparable, so passage lists are fused by rank (RRF). Pure.
 */
import type { SearchHit } from '../../contract/api.js';
import { fuseRrf, RRF_K } from './rrf.js';

/** Passage lists of several sources fused by rank; a single non-empty list is kept exactly as it came (scores included). */
export function fuseSourceHits(lists: { pack: string | null; hits: SearchHit[] }[], k: number): SearchHit[] {
  const tag = (h: SearchHit, pack: string | null): SearchHit => (pack === null ? h : { ...h, pack });
  const nonEmpty = lists.filter((l) => l.hits.length > 0);
  if (nonEmpty.length === 0) return [];
  if (nonEmpty.length === 1) {
    const only = nonEmpty[0] as (typeof nonEmpty)[number];
    return only.hits.slice(0, k).map((h) => tag(h, only.pack));
  }
  const byId = new Map<string, SearchHit>();
  const ranked = nonEmpty.map((l, i) =>
    l.hits.map((h, rank) => {
      const id = `${i}\u0000${h.chunkId}`;
      byId.set(id, tag(h, l.pack));
      return { id, score: l.hits.length - rank };
    }),
  );
  return fuseRrf(ranked, RRF_K)
    .slice(0, k)
    .map((r) => ({ ...(byId.get(r.id) as SearchHit), score: r.score }));
}
