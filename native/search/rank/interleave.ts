/**
 * Fusion for planned questions (query-plan.ts): the ranked lists of the sub-queries are interleaved
 * so that every part reaches the top results. Pure and generic over the hit type; ids de-duplicate.
 */

export interface InterleaveOptions<T> {
  /** A hit's identity (a chunk id); the first occurrence wins. */
  idOf: (hit: T) => string;
  /** Put the whole-question list in the round-robin too, as its first list (default false: tie-breaker only). */
  wholeFirst?: boolean;
  /** Length of the result (default: everything). */
  k?: number;
}

/**
 * Round-robin by part: round r takes the r-th hit of each part's list (skipping hits already taken),
 * ordered within the round by their rank in the whole-question list (a hit the whole question also
 * found ranks first; then part order). After the parts run out, the rest of the whole list follows.
 * With no parts, the whole list is returned as it is.
 */
export function interleave<T>(parts: T[][], whole: T[], opts: InterleaveOptions<T>): T[] {
  const { idOf } = opts;
  const k = opts.k ?? Infinity;
  if (parts.length === 0) return whole.slice(0, k);
  const wholeRank = new Map<string, number>();
  whole.forEach((h, i) => {
    const id = idOf(h);
    if (!wholeRank.has(id)) wholeRank.set(id, i);
  });
  // Every part takes part, even one whose first hit the whole question also found: a part's first hit
  // may be a neighbour of the other part's answer (measured: leaving such parts out lost the second
  // passage of two-part questions and gained nothing elsewhere).
  const lists = opts.wholeFirst ? [whole, ...parts] : parts;
  const out: T[] = [];
  const taken = new Set<string>();
  const longest = Math.max(...lists.map((l) => l.length));
  for (let r = 0; r < longest && out.length < k; r++) {
    const round: { hit: T; id: string; list: number }[] = [];
    lists.forEach((list, li) => {
      const hit = list[r];
      if (hit === undefined) return;
      const id = idOf(hit);
      if (taken.has(id) || round.some((x) => x.id === id)) return;
      round.push({ hit, id, list: li });
    });
    round.sort(
      (a, b) => (wholeRank.get(a.id) ?? Infinity) - (wholeRank.get(b.id) ?? Infinity) || a.list - b.list,
    );
    for (const x of round) {
      if (out.length >= k) break;
      taken.add(x.id);
      out.push(x.hit);
    }
  }
  for (const h of whole) {
    if (out.length >= k) break;
    const id = idOf(h);
    if (taken.has(id)) continue;
    taken.add(id);
    out.push(h);
  }
  return out;
}

/**
 * Merges extra candidates (a search restricted to the scope) after a list, without duplicates, so
 * that boostScope can lift in-scope passages the unrestricted search ranked too low to return.
 */
export function appendMissing<T>(hits: T[], extra: T[], idOf: (hit: T) => string): T[] {
  const seen = new Set(hits.map(idOf));
  const out = [...hits];
  for (const h of extra) {
    const id = idOf(h);
    if (seen.has(id)) continue;
    seen.add(id);
    out.push(h);
  }
  return out;
}
