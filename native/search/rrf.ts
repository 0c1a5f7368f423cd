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

/** One retriever's ranking, best first, with its own scores (BM25, cosine: not comparable across channels). */
export interface Channel {
  name: 'keyword' | 'vector';
  hits: LangRanked[];
}

/** A ranked passage with the language of its text (absent: unknown, never "another language"). */
export interface LangRanked extends Ranked {
  lang?: string;
}

/** How the keyword and vector rankings are merged (native/search/hybrid.ts). Measured: scripts/eval-fusion.ts. */
export interface FusionConfig {
  /** 'rrf': by rank; 'minmax': each channel's scores scaled to 0..1 over its list, then summed. */
  mode: 'rrf' | 'minmax';
  /** RRF constant. */
  k: number;
  weights: { keyword: number; vector: number };
  /**
   * Each channel's first `guaranteeTop` entries are placed within the first `window` results (in
   * fused order), so fusion never drops what one channel alone ranks at the very top. 0: off.
   * `keywordTop`, when set, is the keyword channel's own depth (BM25's third is right more often
   * than the vector's third: it is only displaced by what both channels agree on).
   */
  guaranteeTop: number;
  keywordTop?: number;
  window: number;
  /**
   * First place is the keyword channel's (0: off, the fused order decides): its #1, except that its
   * #2 goes first when the vector channel ranks that one within its top `anchorAgree` and not the #1,
   * and the #1's BM25 score is below `strongKeyword` × the #2's (a clear keyword winner stays first).
   * The vector channel breaks keyword's near-ties; it does not overrule a passage that matches the
   * question's words best.
   */
  anchorAgree: number;
  /** When > 0: the keyword top entry goes first if its score is at least this many times the keyword 2nd score. */
  strongKeyword: number;
  /**
   * Keyword hits within keyword's first `otherLanguageTop` whose language differs from the
   * question's are placed within the window too (0: off): a multilingual model scores a passage in
   * another language than the question's low, so its ranking cannot speak against them.
   */
  otherLanguageTop: number;
  /**
   * Also search vectors per passage language and give the best passages in the other language
   * their own channel (a multilingual model prefers its question's language). Used by hybrid.ts.
   */
  perLanguage: boolean;
  /**
   * The best passage of the vector search restricted to the other language (English for a Chinese
   * question, Chinese for an English one) is placed within the window when its similarity is at
   * least the best same-language passage's minus this margin (0: off), cosine similarities being
   * exact (store/library-store.ts). A multilingual model scores a passage in another language
   * lower than one in the question's language, so one that comes this close matches the question
   * better than anything in its own language: the manual that answers may exist only in
   * translation. Measured with scripts/eval-fusion.ts (e5-small, replaying the dumped channels):
   * 0.015 changes no dev-set row and places the translation for two more questions of the twin set
   * (scripts/make-twin-set.ts); 0.02 and 0.035 place more and lose a dev procedure question. Through
   * the whole retrieval (scope, parts) the twin set gains one question at 0.015 and loses one to it.
   */
  otherLanguageMargin: number;
  /**
   * Keyword's first `top` hits that the first `window` places do not hold are placed within the first
   * `within` (0: off): a passage both channels rank mid-list outscores keyword's third by reciprocal
   * rank when the vector channel never found it, and turning the model on must not drop from the list
   * a passage that keyword search alone would show. Below the first window, so it never takes a place
   * there from what both channels agree on.
   */
  keywordKeep: { top: number; within: number };
}

export const DEFAULT_FUSION: FusionConfig = {
  mode: 'rrf',
  k: RRF_K,
  weights: { keyword: 1, vector: 1 },
  guaranteeTop: 2,
  window: 5,
  anchorAgree: 2,
  strongKeyword: 1.5,
  otherLanguageTop: 5,
  perLanguage: false,
  otherLanguageMargin: 0.015,
  keywordKeep: { top: 5, within: 10 },
};

/**
 * Fuses the channels' rankings by `cfg`. `otherLanguage`: vector rankings restricted to each passage
 * language, keyed by language; with cfg.perLanguage the lists of languages other than `queryLang`
 * join as vector channels (their top entry guaranteed like the others'); with cfg.otherLanguageMargin
 * their top entry is placed when it comes close to the best in the question's language. Pure.
 */
export function fuseChannels(
  channels: Channel[],
  n: number,
  cfg: FusionConfig = DEFAULT_FUSION,
  otherLanguage?: Record<string, Ranked[]>,
  queryLang?: string,
): Ranked[] {
  const all: { hits: Ranked[]; weight: number; guarantee: number }[] = channels.map((c) => ({
    hits: c.hits.filter((h) => h.score > 0 || c.name === 'vector'),
    weight: cfg.weights[c.name],
    guarantee: c.name === 'keyword' ? (cfg.keywordTop ?? cfg.guaranteeTop) : cfg.guaranteeTop,
  }));
  if (cfg.perLanguage && otherLanguage) {
    for (const [lang, hits] of Object.entries(otherLanguage)) {
      if (lang !== queryLang && hits.length > 0) all.push({ hits, weight: cfg.weights.vector, guarantee: Math.min(1, cfg.guaranteeTop) });
    }
  }
  const fused = new Map<string, { score: number; order: number }>();
  let order = 0;
  const add = (id: string, s: number) => {
    const cur = fused.get(id);
    if (cur) cur.score += s;
    else fused.set(id, { score: s, order: order++ });
  };
  for (const ch of all) {
    const seen = new Set<string>();
    const list = ch.hits.filter((h) => !seen.has(h.id) && (seen.add(h.id), true));
    if (cfg.mode === 'minmax') {
      const scores = list.map((h) => h.score);
      const max = Math.max(...scores);
      const min = Math.min(...scores);
      list.forEach((h) => add(h.id, ch.weight * (max > min ? (h.score - min) / (max - min) : 1)));
    } else {
      list.forEach((h, rank) => add(h.id, ch.weight / (cfg.k + rank + 1)));
    }
  }
  let ranked = [...fused.entries()]
    .sort((a, b) => b[1].score - a[1].score || a[1].order - b[1].order)
    .map(([id, v]) => ({ id, score: v.score }));
  const kw: LangRanked[] = channels.find((c) => c.name === 'keyword')?.hits.filter((h) => h.score > 0) ?? [];
  const vec: LangRanked[] = channels.find((c) => c.name === 'vector')?.hits ?? [];
  const guaranteed: string[] = [];
  const first = firstPlace(kw, vec, cfg);
  if (first !== null) {
    guaranteed.push(first);
    ranked = [...ranked.filter((r) => r.id === first), ...ranked.filter((r) => r.id !== first)];
  }
  for (const ch of all) for (const h of ch.hits.slice(0, ch.guarantee)) if (!guaranteed.includes(h.id)) guaranteed.push(h.id);
  if (cfg.otherLanguageMargin > 0 && otherLanguage && queryLang) {
    const sameTop = vec.find((h) => h.lang === queryLang)?.score ?? otherLanguage[queryLang]?.[0]?.score;
    for (const [lang, hits] of Object.entries(otherLanguage)) {
      const top = hits[0];
      if (lang === queryLang || !top || sameTop === undefined || top.score < sameTop - cfg.otherLanguageMargin) continue;
      if (!ranked.some((r) => r.id === top.id)) ranked.push({ id: top.id, score: 0 });
      if (!guaranteed.includes(top.id)) guaranteed.push(top.id);
    }
  }
  if (cfg.otherLanguageTop > 0 && queryLang) {
    for (const h of kw.slice(0, cfg.otherLanguageTop)) if (h.lang && h.lang !== queryLang && !guaranteed.includes(h.id)) guaranteed.push(h.id);
  }
  const placed = placeWithin(ranked, guaranteed, cfg.window);
  const { top, within } = cfg.keywordKeep;
  if (top <= 0 || within <= cfg.window) return placed.slice(0, n);
  const head = placed.slice(0, cfg.window);
  const keep = kw.slice(0, top).map((h) => h.id).filter((id) => !head.some((r) => r.id === id));
  return [...head, ...placeWithin(placed.slice(cfg.window), keep, within - cfg.window)].slice(0, n);
}

/** The id that must come first by cfg.anchorAgree / cfg.strongKeyword (see FusionConfig), or null. */
function firstPlace(kw: Ranked[], vec: Ranked[], cfg: FusionConfig): string | null {
  const k1 = kw[0];
  if (!k1) return null;
  const k2 = kw[1];
  const clear = cfg.strongKeyword > 0 && (!k2 || k1.score >= cfg.strongKeyword * k2.score);
  if (clear) return k1.id;
  if (cfg.anchorAgree <= 0) return null;
  if (!k2) return k1.id;
  const top = new Set(vec.slice(0, cfg.anchorAgree).map((h) => h.id));
  return top.has(k2.id) && !top.has(k1.id) ? k2.id : k1.id;
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
