import { describe, expect, it } from 'vitest';
import { fuseChannels, placeWithin, DEFAULT_FUSION, type Ranked } from '../../../native/search/rank/rrf.js';

const list = (prefix: string, n: number, top = 10): Ranked[] => Array.from({ length: n }, (_, i) => ({ id: `${prefix}${i}`, score: top - i * 0.1 }));

describe('fusion keeps each channel\'s top entries', () => {
  it('an exact keyword row ranked first by keyword alone stays in the top 5 when the vector list agrees on other passages', () => {
    // Vector and keyword share v0..v5 at mid ranks, so plain RRF lifts the shared ones over keyword's own #1.
    const shared = list('s', 6);
    const keyword = [{ id: 'row', score: 30 }, { id: 'k1', score: 29 }, ...shared.map((h, i) => ({ ...h, score: 20 - i }))];
    const vector = [...shared, { id: 'row', score: 0.1 }];
    const plain = fuseChannels([{ name: 'keyword', hits: keyword }, { name: 'vector', hits: vector }], 10, { ...DEFAULT_FUSION, channelTop: 0 });
    expect(plain.slice(0, 5).map((r) => r.id)).not.toContain('k1');
    const fused = fuseChannels([{ name: 'keyword', hits: keyword }, { name: 'vector', hits: vector }], 10);
    const top5 = fused.slice(0, 5).map((r) => r.id);
    expect(top5).toContain('row');
    expect(top5).toContain('k1');
    expect(top5).toContain('s0');
    expect(top5).toContain('s1');
  });

  it('placeWithin keeps fused order and only moves what must be in the window', () => {
    const ranked = list('r', 8);
    expect(placeWithin(ranked, ['r6'], 5).map((r) => r.id)).toEqual(['r0', 'r1', 'r2', 'r3', 'r6', 'r4', 'r5', 'r7']);
    expect(placeWithin(ranked, ['r1'], 5)).toEqual(ranked);
    expect(placeWithin(ranked, [], 5)).toEqual(ranked);
  });

  it('a keyword hit that matched nothing (score 0) earns no place; vector hits with cosine ≤ 0 still rank', () => {
    const fused = fuseChannels(
      [
        { name: 'keyword', hits: [{ id: 'zero', score: 0 }] },
        { name: 'vector', hits: [{ id: 'a', score: -0.1 }, { id: 'b', score: -0.2 }] },
      ],
      10,
    );
    expect(fused.map((r) => r.id)).toEqual(['a', 'b']);
  });
});
