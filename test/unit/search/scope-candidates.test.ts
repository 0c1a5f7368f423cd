import { describe, expect, it } from 'vitest';
import type { SearchHit } from '../../../native/contract/api.js';
import { boostScope } from '../../../native/search/interleave.js';
import { withKeywordTop } from '../../../native/search/retriever.js';

const hit = (id: string, file: string, score: number): SearchHit => ({
  file,
  page: null,
  section: '',
  text: id,
  score,
  kind: 'passage',
  manual: 'Manual',
  lang: 'en',
  chunkId: id,
});

describe('the scope re-rank sees what keyword found', () => {
  // Fusion kept keyword's #1 and #2 and filled the rest with vector passages from other products;
  // keyword's #4 is the named product's answer.
  const fused = [hit('k1', 'acme/a.md', 0.03), hit('k2', 'acme/b.md', 0.029), hit('v1', 'other/x.md', 0.016), hit('v2', 'other/y.md', 0.015)];
  const keyword = [hit('k1', 'acme/a.md', 20), hit('k2', 'acme/b.md', 19), hit('k3', 'other/z.md', 18), hit('gold', 'acme/pid.md', 17)];
  const inAcme = (h: SearchHit) => h.file.startsWith('acme/');

  it("in hybrid mode, keyword's first k that fusion left out follow the fused list (scored below it), so the re-rank can lift them", () => {
    const cands = withKeywordTop({ mode: 'hybrid', hits: fused, rankings: { keyword } }, 4, () => true);
    expect(cands.map((h) => h.chunkId)).toEqual(['k1', 'k2', 'v1', 'v2', 'k3', 'gold']);
    expect(cands[5]!.score).toBeLessThan(cands[3]!.score);
    expect(boostScope(cands, inAcme).slice(0, 3).map((h) => h.chunkId)).toEqual(['k1', 'k2', 'gold']);
    // Without it the named product's passage is not even a candidate.
    expect(boostScope(fused, inAcme).map((h) => h.chunkId)).not.toContain('gold');
  });

  it('in keyword mode the list is the keyword list, unchanged; filtered rows stay out', () => {
    expect(withKeywordTop({ mode: 'keyword', hits: keyword, rankings: { keyword } }, 4, () => true)).toEqual(keyword);
    const noGold = withKeywordTop({ mode: 'hybrid', hits: fused, rankings: { keyword } }, 4, (h) => h.chunkId !== 'gold');
    expect(noGold.map((h) => h.chunkId)).toEqual(['k1', 'k2', 'v1', 'v2', 'k3']);
  });
});
