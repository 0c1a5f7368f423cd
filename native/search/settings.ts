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

export interface RetrievalSettings {
  keyword: KeywordConfig;
  /** Weight of a named code's definition in the passage query, relative to the question's own words. */
  relatedBoost: number;
}

export const DEFAULT_RETRIEVAL_SETTINGS: RetrievalSettings = { keyword: DEFAULT_KEYWORD_CONFIG, relatedBoost: 0.5 };

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
