import { describe, expect, it } from 'vitest';
import { fuseRrf } from '../../../native/search/rank/rrf.js';

describe('fuseRrf', () => {
  it('sums 1/(k + rank) over lists', () => {
    const fused = fuseRrf([
      [
        { id: 'a', score: 9 },
        { id: 'b', score: 5 },
      ],
      [
        { id: 'b', score: 0.9 },
        { id: 'c', score: 0.8 },
      ],
    ]);
    expect(fused.map((f) => f.id)).toEqual(['b', 'a', 'c']);
    expect(fused[0]?.score).toBeCloseTo(1 / 62 + 1 / 61, 12);
    expect(fused[1]?.score).toBeCloseTo(1 / 61, 12);
    expect(fused[2]?.score).toBeCloseTo(1 / 62, 12);
  });

  it('uses the given k', () => {
    expect(fuseRrf([[{ id: 'a', score: 1 }]], 0)[0]?.score).toBe(1);
  });

  it('drops zero-score hits before ranking', () => {
    const fused = fuseRrf([
      [
        { id: 'z', score: 0 },
        { id: 'a', score: 2 },
      ],
    ]);
    expect(fused).toEqual([{ id: 'a', score: 1 / 61 }]);
  });

  it('keeps ties in first-seen order and counts duplicates once', () => {
    const fused = fuseRrf([
      [
        { id: 'x', score: 1 },
        { id: 'x', score: 1 },
      ],
      [{ id: 'y', score: 1 }],
    ]);
    expect(fused.map((f) => f.id)).toEqual(['x', 'y']);
    expect(fused[0]?.score).toBe(fused[1]?.score);
    expect(fuseRrf([])).toEqual([]);
  });
});
