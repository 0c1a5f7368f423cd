/**
 * Search over a library: keyword (BM25 with thesaurus expansion), vector, or both fused with RRF.
 * Without an embedder (or a library without vectors) only the keyword retriever runs, and the response
 * says so in `mode`.
 */
import type { SearchHit, SearchMode, SearchRequest, SearchResponse } from '../contract/api.js';
import type { Chunk } from '../contract/document.js';
import { EngineError } from '../contract/errors.js';
import type { Embedder } from '../embed/types.js';
import type { LibraryStore } from '../store/library-store.js';
import type { RelatedText, ScoredChunk } from '../store/types.js';
import { fuseRrf, RRF_K } from './rrf.js';

export const DEFAULT_K = 10;
/** Candidates each retriever contributes to fusion: max(3k, this). */
export const MIN_CANDIDATES = 50;

/** The part of LibraryStore that search uses (so tests and callers can pass a narrower object). */
export type SearchableStore = Pick<LibraryStore, 'keywordSearch' | 'vectorSearch' | 'hasVectors'>;

export async function hybridSearch(
  store: SearchableStore,
  embedder: Pick<Embedder, 'embedQuery'> | null,
  req: SearchRequest,
  signal?: AbortSignal,
  /** Text known to be about the question (a named fault code's definition), for the keyword side. */
  related?: RelatedText,
): Promise<SearchResponse> {
  const t0 = performance.now();
  const query = req.query.trim();
  const k = Math.max(1, Math.min(req.k ?? DEFAULT_K, 1000));
  const canVector = embedder !== null && store.hasVectors;
  const mode: SearchMode = req.mode === 'keyword' || !canVector ? 'keyword' : (req.mode ?? 'hybrid');
  if (!query) return { query: req.query, hits: [], ms: performance.now() - t0, mode };

  let ranked: ScoredChunk[];
  if (mode === 'keyword') {
    ranked = await store.keywordSearch(query, k, req.filters, related);
  } else if (mode === 'vector') {
    const v = await embedQuery(embedder, query, signal);
    ranked = await store.vectorSearch(v, k, req.filters);
  } else {
    const n = Math.max(3 * k, MIN_CANDIDATES);
    const [kw, vec] = await Promise.all([
      store.keywordSearch(query, n, req.filters, related),
      embedQuery(embedder, query, signal).then((v) => store.vectorSearch(v, n, req.filters)),
    ]);
    const chunks = new Map<string, Chunk>();
    for (const h of [...kw, ...vec]) if (!chunks.has(h.chunk.id)) chunks.set(h.chunk.id, h.chunk);
    const toRanked = (hs: ScoredChunk[]) => hs.map((h) => ({ id: h.chunk.id, score: h.score }));
    // Vector scores can be ≤ 0 (cosine); only their rank matters, so give every vector hit a positive score.
    const vecList = vec.map((h, i) => ({ id: h.chunk.id, score: vec.length - i }));
    ranked = fuseRrf([toRanked(kw), vecList], RRF_K)
      .slice(0, k)
      .map((r) => ({ chunk: chunks.get(r.id) as Chunk, score: r.score }));
  }
  return { query: req.query, hits: ranked.map(toHit), ms: performance.now() - t0, mode };
}

async function embedQuery(
  embedder: Pick<Embedder, 'embedQuery'> | null,
  query: string,
  signal?: AbortSignal,
): Promise<Float32Array> {
  if (!embedder) throw new EngineError('MODEL_MISSING', 'Vector search needs an embedding model; none is loaded.');
  return embedder.embedQuery(query, signal);
}

export function toHit(h: ScoredChunk): SearchHit {
  const c = h.chunk;
  return {
    file: c.file,
    page: c.page,
    section: c.section,
    text: c.text,
    score: h.score,
    kind: c.kind,
    manual: c.manual,
    lang: c.lang,
    chunkId: c.id,
  };
}
