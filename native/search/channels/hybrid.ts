/**
 * Search over one library: keyword (BM25 with thesaurus expansion), vector, or both fused with RRF.
 * Without an embedder (or a library without vectors) only the keyword retriever runs, and the response
 * says so in `mode`. Each retriever's own ranking is returned too (the evidence gate reads both).
 */
import type { SearchFilters, SearchHit, SearchMode, SearchRequest, SearchResponse } from '../../contract/api.js';
import type { Chunk, Lang } from '../../contract/document.js';
import { EngineError } from '../../contract/errors.js';
import type { LibraryStore } from '../../store/library-store.js';
import type { ScoredChunk } from '../../store/types.js';
import type { RelatedText } from './fts-query.js';
import { detectLang } from '../../text/lang.js';
import { keywordSearch } from './keyword.js';
import { siblingRowsByKeyword, withUntranslated } from '../rank/channel-steps.js';
import { DEFAULT_FUSION, fuseChannels, type FusionConfig } from '../rank/rrf.js';
import { untranslatedManuals } from '../plan/translations.js';
import { runSteps, type RankStep } from '../rank/steps.js';
import { DEFAULT_K, DEFAULT_KEYWORD_CONFIG, stepOn, type KeywordConfig, type RankingStep } from '../settings.js';

/** Candidates each retriever contributes to fusion: max(3k, this). */
export const MIN_CANDIDATES = 50;
/** The other language than a question's (a manual the library has only in it: translations.ts). */
const OTHER_LANGUAGE: Record<Lang, Lang> = { en: 'zh', zh: 'en' };

/** What the fused list's steps read: the keyword channel's list, and an untranslated manual's best passage. */
interface FusedContext {
  keyword: ScoredChunk[];
  untranslated: ScoredChunk | undefined;
}

/** The steps the fused list runs, in order (in keyword mode, keyword's own list: the row step changes nothing there). */
const FUSED_STEPS: readonly RankStep<ScoredChunk, FusedContext>[] = [
  { name: 'sibling-rows-by-keyword', run: (hits, c) => siblingRowsByKeyword(hits, c.keyword) },
  { name: 'untranslated-manual', run: (hits, c) => withUntranslated(hits, c.keyword, c.untranslated) },
];

/** The part of LibraryStore that search uses (so tests and callers can pass a narrower object). */
export type SearchableStore = Pick<LibraryStore, 'fullTextSearch' | 'vectorSearch' | 'hasVectors' | 'hasPassagesIn' | 'getFiles' | 'indexedTerms' | 'filesRevision'>;

/** What search needs from an embedder: the query's vector (cancellable). */
export interface QueryEmbedder {
  embedQuery(text: string, signal?: AbortSignal): Promise<Float32Array>;
}

export interface SingleSearch extends SearchResponse {
  /**
   * Each retriever's ranking, best first, as a search in that mode alone would order it: `keyword`
   * always; `vector` when vectors were searched (else the keyword ranking, as a vector-mode search of
   * a keyword-only library gives).
   */
  rankings: { keyword: SearchHit[]; vector: SearchHit[] };
}

export interface SearchOptions {
  signal?: AbortSignal;
  /** Text known to be about the question (a named fault code's definition), for the keyword side. */
  related?: RelatedText;
  keyword?: KeywordConfig;
  /** How the two rankings are merged (default: rrf.ts's DEFAULT_FUSION). */
  fusion?: FusionConfig;
  /** Ranking steps switched off (settings.ts, RANKING_STEPS; measurement only). */
  off?: readonly RankingStep[];
}

export async function hybridSearch(
  store: SearchableStore,
  embedder: QueryEmbedder | null,
  req: SearchRequest,
  opts: SearchOptions = {},
): Promise<SingleSearch> {
  const t0 = performance.now();
  const query = req.query.trim();
  const k = Math.max(1, Math.min(req.k ?? DEFAULT_K, 1000));
  const canVector = embedder !== null && store.hasVectors;
  const mode: SearchMode = req.mode === 'keyword' || !canVector ? 'keyword' : (req.mode ?? 'hybrid');
  if (!query) return { query: req.query, hits: [], ms: performance.now() - t0, mode, rankings: { keyword: [], vector: [] } };
  const cfg = opts.keyword ?? DEFAULT_KEYWORD_CONFIG;
  // Fusion's extra candidates (n > k) need not be complete past the first k.
  const on = (step: RankingStep) => stepOn(opts, step);
  const kwSearch = (n: number) => keywordSearch(store, query, n, req.filters, opts.related, cfg, k);
  const vecSearch = (n: number, filters?: SearchFilters) => embedQuery(embedder, query, opts.signal).then((v) => store.vectorSearch(v, n, filters));
  const qlang = detectLang(query);

  let ranked: ScoredChunk[];
  let rankings: SingleSearch['rankings'];
  // The best passage of a manual the library has only in the other language (translations.ts).
  const foreign = mode === 'vector' || !on('untranslated-manual') ? Promise.resolve(undefined) : untranslatedBest(store, query, qlang, req.filters, opts.related, cfg);
  if (mode === 'keyword') {
    const [kw, untranslated] = await Promise.all([kwSearch(k), foreign]);
    ranked = runSteps(FUSED_STEPS, kw, { keyword: kw, untranslated }, opts);
    const hits = kw.map(toHit);
    rankings = { keyword: hits, vector: hits };
  } else if (mode === 'vector') {
    ranked = await vecSearch(k, req.filters);
    const hits = ranked.map(toHit);
    rankings = { keyword: hits, vector: hits };
  } else {
    const n = Math.max(3 * k, MIN_CANDIDATES);
    const fusion = opts.fusion ?? DEFAULT_FUSION;
    const [kw, vec, untranslated] = await Promise.all([kwSearch(n), vecSearch(n, req.filters), foreign]);
    const chunks = new Map<string, Chunk>();
    for (const h of [...kw, ...vec]) if (!chunks.has(h.chunk.id)) chunks.set(h.chunk.id, h.chunk);
    const toRanked = (hs: ScoredChunk[]) => hs.map((h) => ({ id: h.chunk.id, score: h.score }));
    const channels = [
      { name: 'keyword' as const, hits: toRanked(kw) },
      { name: 'vector' as const, hits: toRanked(vec) },
    ];
    const fused = fuseChannels(channels, k, on('channel-tops') ? fusion : { ...fusion, channelTop: 0 }).map((r) => ({ chunk: chunks.get(r.id) as Chunk, score: r.score }));
    ranked = runSteps(FUSED_STEPS, fused, { keyword: kw, untranslated }, opts);
    rankings = { keyword: kw.map(toHit), vector: vec.map(toHit) };
  }
  return { query: req.query, hits: ranked.map(toHit), ms: performance.now() - t0, mode, rankings };
}

/** Passages of the other language's keyword ranking searched for an untranslated manual's best. */
const UNTRANSLATED_DEPTH = 10;
/**
 * The best keyword passage in the other language than the question's, from a file that exists only
 * in that language (translations.ts), or undefined when the library has none.
 */
async function untranslatedBest(
  store: SearchableStore,
  query: string,
  qlang: Lang,
  filters: SearchFilters | undefined,
  related: RelatedText | undefined,
  cfg: KeywordConfig,
): Promise<ScoredChunk | undefined> {
  const other = OTHER_LANGUAGE[qlang];
  if (filters?.lang?.length || !store.hasPassagesIn(other)) return undefined;
  const { files: only, terms } = untranslatedManuals(store, other);
  if (only.size === 0) return undefined;
  // Only the terms those manuals hold are searched: most questions share none and cost no search.
  const within = (await terms) ?? undefined;
  const hits = await keywordSearch(store, query, UNTRANSLATED_DEPTH, { ...filters, lang: [other] }, related, cfg, UNTRANSLATED_DEPTH, within);
  return hits.find((h) => only.has(h.chunk.file));
}

async function embedQuery(embedder: QueryEmbedder | null, query: string, signal?: AbortSignal): Promise<Float32Array> {
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
