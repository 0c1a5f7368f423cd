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
  /** The LanceDB table of the passages, when not `chunks` (format 2: the library switched models). */
  chunksTable?: string;
}

export interface StoreStats {
  files: number;
  chunks: number;
  codes: number;
  /** Passages of files whose vectors are pending (FileRecord.vectorsPending). */
  vectorsPending: number;
}

/** One clause of a full-text query; a query's clauses are OR-ed ("should"), their scores summed. */
export interface FtsClause {
  /** Space-separated analyzed terms. */
  terms: string;
  /** `fts` (body), or body and heading (`fts_head`) with per-column boosts. */
  columns: readonly ['fts'] | readonly ['fts', 'fts_head'];
  /** Per-column boosts (with two columns). */
  columnBoosts?: readonly number[];
  /** Weight of the clause (default 1). */
  boost?: number;
  /** Every term must occur (a multi-word expansion or equivalent). */
  allTerms?: boolean;
}

/** A full-text query as data (built by native/search/channels/fts-query.ts, run by the store). */
export type FtsPlan = FtsClause[];
