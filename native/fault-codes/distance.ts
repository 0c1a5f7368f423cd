/**
 * Optimal-string-alignment distance (Damerau–Levenshtein with adjacent transpositions, each
 * substring edited once), bounded: returns `max + 1` as soon as the distance must exceed `max`.
 * Rows are reused between calls: nearest-code search runs it over thousands of keys per miss.
 */
let prev2 = new Int32Array(32);
let prev = new Int32Array(32);
let cur = new Int32Array(32);

export function boundedDistance(a: string, b: string, max: number): number {
  const la = a.length;
  const lb = b.length;
  if (Math.abs(la - lb) > max) return max + 1;
  if (la === 0) return lb;
  if (lb === 0) return la;
  if (prev.length <= lb) {
    prev2 = new Int32Array(lb + 1);
    prev = new Int32Array(lb + 1);
    cur = new Int32Array(lb + 1);
  }
  for (let j = 0; j <= lb; j++) prev[j] = j;
  for (let i = 1; i <= la; i++) {
    cur[0] = i;
    let rowMin = i;
    const ca = a.charCodeAt(i - 1);
    for (let j = 1; j <= lb; j++) {
      const cb = b.charCodeAt(j - 1);
      const cost = ca === cb ? 0 : 1;
      let v = Math.min((prev[j] as number) + 1, (cur[j - 1] as number) + 1, (prev[j - 1] as number) + cost);
      if (i > 1 && j > 1 && ca === b.charCodeAt(j - 2) && a.charCodeAt(i - 2) === cb) {
        v = Math.min(v, (prev2[j - 2] as number) + 1);
      }
      cur[j] = v;
      if (v < rowMin) rowMin = v;
    }
    if (rowMin > max) return max + 1;
    const t = prev2;
    prev2 = prev;
    prev = cur;
    cur = t;
  }
  const d = prev[lb] as number;
  return d > max ? max + 1 : d;
}
