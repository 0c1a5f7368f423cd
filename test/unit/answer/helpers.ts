import type { CodeLookupResponse, SearchFilters, SearchHit, SearchRequest, SearchResponse } from '../../../native/contract/api.js';
import type { Retrieval, RetrieveRequest } from '../../../native/search/retriever.js';

let next = 0;
/** A passage as retrieval returns it. */
export function hit(text: string, over: Partial<SearchHit> = {}): SearchHit {
  next++;
  return {
    file: 'press/hpb-200.md',
    page: null,
    section: 'Maintenance',
    text,
    score: 1,
    kind: 'passage',
    manual: 'HPB-200 Press Brake Manual',
    lang: 'en',
    chunkId: `c${next}`,
    ...over,
  };
}

/**
 * A retrieve() made of a search and a code lookup (a test's small retriever), counting calls:
 * `calls.retrieve` per retrieval, `calls.search` and `calls.lookup` per underlying call.
 */
export function retrieverOf(
  search: (req: SearchRequest) => Promise<SearchResponse>,
  lookupCode: (text: string, filters?: SearchFilters) => Promise<CodeLookupResponse | null> = async (text) => ({ query: text, detected: [], matches: [], nearest: [], ms: 0 }),
) {
  const calls = { retrieve: 0, search: 0, lookup: 0 };
  const retrieve = async (req: RetrieveRequest): Promise<Retrieval> => {
    calls.retrieve++;
    calls.lookup++;
    const codes = (await lookupCode(req.query, req.filters)) ?? { query: req.query, detected: [], matches: [], nearest: [], ms: 0 };
    calls.search++;
    const res = await search(req);
    const top = res.hits.slice(0, req.rankingDepth ?? 5);
    return { ...res, codes, rankings: { keyword: top, vector: top } };
  };
  return { retrieve, calls };
}
