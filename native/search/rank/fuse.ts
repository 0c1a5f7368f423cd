/**
 * Merging results of several sources (the local library and installed packs). BM25 scores of
 * different indexes are not comparable, so passage lists are fused by rank (RRF). Pure.
 */
import type { CodeLookupResponse, SearchHit } from '../../contract/api.js';
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

/** Code lookups of several sources merged: matches grouped by detected code, in source order. */
export function mergeCodeLookups(query: string, parts: { pack: string | null; res: CodeLookupResponse }[], ms: number): CodeLookupResponse {
  if (parts.length === 0) return { query, detected: [], matches: [], nearest: [], ms };
  if (parts.length === 1 && parts[0]) {
    const { pack, res } = parts[0];
    return { ...res, matches: pack === null ? res.matches : res.matches.map((m) => ({ ...m, pack })), ms };
  }
  const detected = [...new Set(parts.flatMap((p) => p.res.detected))];
  const order = new Map(detected.map((d, i) => [d, i] as const));
  const matches = parts
    .flatMap((p) => p.res.matches.map((m) => (p.pack === null ? m : { ...m, pack: p.pack })))
    .map((m, i) => ({ m, i }))
    .sort((a, b) => (order.get(a.m.key) ?? 1e9) - (order.get(b.m.key) ?? 1e9) || a.i - b.i)
    .map((x) => x.m);
  const defined = new Set(matches.map((m) => m.key));
  const nearest: CodeLookupResponse['nearest'] = [];
  for (const p of parts) {
    for (const n of p.res.nearest) {
      if (defined.has(n.code) || nearest.some((x) => x.code === n.code && x.manual === n.manual)) continue;
      nearest.push(n);
    }
  }
  return { query, detected, matches, nearest: matches.length > 0 ? [] : nearest.slice(0, 5), ms };
}
