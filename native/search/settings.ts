/**
 * Retrieval settings, passed in as arguments (the composition root reads any override from the
 * environment; nothing below it does).
 */

/** Keyword retrieval knobs; query-time only, so they can be switched without re-indexing. */
export interface KeywordConfig {
  /** Also search the heading/title column (fielded BM25) with this boost; 0 searches the body only. */
  headingBoost: number;
  /** Add thesaurus expansions to queries. */
  expand: boolean;
  /** Boost of expansions relative to the query's own terms (1). */
  expansionBoost: number;
}

export const DEFAULT_KEYWORD_CONFIG: KeywordConfig = { headingBoost: 2, expand: true, expansionBoost: 0.15 };

/** Results a search returns when the request names no k. */
export const DEFAULT_K = 10;
/** The first page of results: what a technician reads first (and hit@5 counts); fusion's window. */
export const FIRST_PAGE = 5;
/** Length of each retriever's own ranking in a retrieval (what the evidence gate reads). */
export const DEFAULT_RANKING_DEPTH = 5;

/**
 * Every step that re-orders passages after the channels searched, in the order they run, each with
 * why it is there. A step is a pure `(hits, context) → hits` (rank/steps.ts) in its stage's one list:
 * FUSED_STEPS in channels/hybrid.ts, PLANNED_STEPS in rank/planned.ts; two are
 * settings of a stage rather than list steps (channel-tops: fusion's; scope: the retrieval plan's). Each can be switched off (RetrievalSettings.off) to measure what it earns:
 * `npx tsx scripts/ablate-ranking.ts` prints, per step, the change in each row with the step off.
 * A step stays only while it pays on both halves of the dev set.
 */
export const RANKING_STEPS = [
  { name: 'channel-tops', where: 'channels/hybrid.ts', stage: 'fusion setting', reason: "fusion (rrf.ts, channelTop) places each channel's top 2 within the first 5: what one channel alone ranks first is evidence fusion must not drop" },
  { name: 'sibling-rows-by-keyword', where: 'channels/hybrid.ts', stage: 'FUSED_STEPS', reason: "rows of one table have near-identical vectors: among the places they hold, keyword's order decides" },
  { name: 'untranslated-manual', where: 'channels/hybrid.ts', stage: 'FUSED_STEPS', reason: "a manual the library has only in the other language is found through translated words only: its best passage, when it scores close, is placed on the first page" },
  { name: 'scope', where: 'plan/retrieval-plan.ts', stage: 'plan setting', reason: "a question that names a product (or a code) prefers that product's manuals (the code's folder)" },
  { name: 'interleave-parts', where: 'rank/planned.ts', stage: 'PLANNED_STEPS', reason: "a two-part question's part lists interleaved with the whole question's, so every part reaches the first page" },
  { name: 'shown-message-first', where: 'rank/planned.ts', stage: 'PLANNED_STEPS', reason: 'a passage that shows a message the question writes is what the technician is looking at: it leads' },
  { name: 'sink-navigation', where: 'rank/planned.ts', stage: 'PLANNED_STEPS', reason: 'hub pages and contents lists name every topic but answer none: the final list ranks them a few places lower' },
] as const;

export type RankingStep = (typeof RANKING_STEPS)[number]['name'];

export interface RetrievalSettings {
  keyword: KeywordConfig;
  /** Weight of a named code's definition in the passage query, relative to the question's own words. */
  relatedBoost: number;
  /** Ranking steps switched off (measurement only: scripts/ablate-ranking.ts); default none. */
  off?: readonly RankingStep[];
}

export const DEFAULT_RETRIEVAL_SETTINGS: RetrievalSettings = { keyword: DEFAULT_KEYWORD_CONFIG, relatedBoost: 0.5 };

/** Whether a ranking step runs under `settings`. */
export function stepOn(settings: Pick<RetrievalSettings, 'off'> | undefined, step: RankingStep): boolean {
  return !settings?.off?.includes(step);
}

/**
 * Measurement knob: '{"headingBoost":0,"expand":false,"expansionBoost":0.5}' overrides the keyword
 * defaults (for comparing settings with the eval script without code changes). Pure: the caller
 * passes the raw text (the composition root reads MANUALDESK_KEYWORD).
 */
export function keywordConfigFrom(raw: string | undefined): Partial<KeywordConfig> {
  if (!raw) return {};
  try {
    const v = JSON.parse(raw) as Record<string, unknown>;
    const out: Partial<KeywordConfig> = {};
    if (typeof v.headingBoost === 'number') out.headingBoost = v.headingBoost;
    if (typeof v.expand === 'boolean') out.expand = v.expand;
    if (typeof v.expansionBoost === 'number') out.expansionBoost = v.expansionBoost;
    return out;
  } catch {
    return {};
  }
}
