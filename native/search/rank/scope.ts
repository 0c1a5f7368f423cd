/**
 * The scope step: a question that names a product (or a code) prefers that product's manuals (the
 * code's folder), nothing dropped. Pure.
 */
import type { SearchHit } from '../../contract/api.js';
import { inScope, type NameScope } from '../plan/name-index.js';
import { fuseRrf } from './rrf.js';

/**
 * Passages of a question that names a library name, re-ranked to prefer the scope (nothing dropped).
 * With the named folders' own search (foreignScopeSearch), the two lists are first fused by rank:
 * a passage both rank high leads; on a tie, the folders' own order decides.
 */
export function scoped(scope: NameScope, hits: SearchHit[], inside: SearchHit[] | null): SearchHit[] {
  let cands = hits;
  if (inside) {
    const byId = new Map([...hits, ...inside].map((h) => [h.chunkId, h] as const));
    const ranks = (hs: SearchHit[]) => hs.map((h, i) => ({ id: h.chunkId, score: 1 / (i + 1) }));
    // Ties go to the folders' own order: it ranks without the name that skews the library-wide list.
    cands = fuseRrf([ranks(inside), ranks(hits)]).map((r) => ({ ...(byId.get(r.id) as SearchHit), score: r.score }));
  }
  return boostScope(cands, (h) => inScope(scope, h.file));
}

export interface ScopeBoostOptions {
  /** Rank damping: a hit at rank r (from 1) scores weight / (c + r). Default 10. */
  c?: number;
  /** Weight of an in-scope hit (out-of-scope hits weigh 1). Default 2. */
  boost?: number;
  /** The first this-many hits keep their place whatever their scope (e.g. exact code matches). Default 0. */
  keep?: number;
}

/**
 * Re-ranks a list to prefer hits inside the scope without dropping the others: each hit scores
 * weight / (c + rank), weight = boost inside the scope and 1 outside. With the defaults an in-scope
 * hit at rank ≤ 11 climbs above an out-of-scope first hit; everything stays in the list, in its own
 * order within each side. Stable for equal scores. When no hit is in scope, the list is unchanged.
 */
export function boostScope<T>(hits: T[], isInScope: (hit: T) => boolean, opts: ScopeBoostOptions = {}): T[] {
  const c = opts.c ?? 10;
  const boost = opts.boost ?? 2;
  const keep = Math.max(0, opts.keep ?? 0);
  const head = hits.slice(0, keep);
  const rest = hits.slice(keep);
  const scored = rest.map((hit, i) => ({ hit, i, score: (isInScope(hit) ? boost : 1) / (c + keep + i + 1) }));
  scored.sort((a, b) => b.score - a.score || a.i - b.i);
  return [...head, ...scored.map((x) => x.hit)];
}
