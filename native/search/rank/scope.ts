/** The scope step: a question that names a product (or a code) prefers that product's manuals. Pure. */
import type { SearchHit } from '../../contract/api.js';
import { inScope, type NameScope } from '../plan/name-index.js';
import { boostScope } from './interleave.js';
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
