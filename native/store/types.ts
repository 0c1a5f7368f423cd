import type { Chunk } from '../contract/document.js';

export interface ScoredChunk {
  chunk: Chunk;
  /** BM25 for keyword search; cosine similarity (1 − distance) for vector search. */
  score: number;
}

/** What library.json records. */
export interface LibraryMeta {
  formatVersion: number;
  chunkerVersion: number;
  /** Version of the keyword analyzer the `fts` columns were built with. */
  analyzerVersion: number;
  embedder: { id: string; dims: number } | null;
  createdAt: string;
}

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

export interface StoreStats {
  files: number;
  chunks: number;
  codes: number;
}

/** Text known to be about the question, searched with a lower weight than the question itself. */
export interface RelatedText {
  text: string;
  /** Weight relative to the question's own terms (1). */
  boost: number;
}
