import type { SearchHit } from '../../../native/contract/api.js';

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
