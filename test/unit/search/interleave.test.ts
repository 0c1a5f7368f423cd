import { describe, expect, it } from 'vitest';
import { appendMissing, interleave } from '../../../native/search/rank/interleave.js';
import { boostScope } from '../../../native/search/rank/scope.js';

const id = (s: string) => s;
const opts = { idOf: id };

describe('interleave', () => {
  it('round-robin by part puts the first hit of every part in the top results', () => {
    const a = ['a1', 'a2', 'a3', 'a4', 'a5'];
    const b = ['b1', 'b2', 'b3'];
    const whole = ['a1', 'a2', 'a3', 'a4', 'a5', 'b1'];
    const out = interleave([a, b], whole, { ...opts, k: 5 });
    expect(out).toEqual(['a1', 'b1', 'a2', 'b2', 'a3']);
  });

  it('within a round, the whole-question rank breaks the tie, then part order', () => {
    const out = interleave([['x', 'p'], ['y', 'q']], ['y', 'q', 'x'], opts);
    expect(out.slice(0, 2)).toEqual(['y', 'x']);
    expect(interleave([['x'], ['y']], [], opts)).toEqual(['x', 'y']);
  });

  it('de-duplicates across parts and appends the rest of the whole list', () => {
    const out = interleave([['s', 'a'], ['s', 'b']], ['w', 's'], opts);
    expect(out).toEqual(['s', 'a', 'b', 'w']);
  });

  it('no parts: the whole list unchanged', () => {
    expect(interleave([], ['w1', 'w2', 'w3'], { ...opts, k: 2 })).toEqual(['w1', 'w2']);
  });

  it('wholeFirst: the whole list takes part in each round, first', () => {
    expect(interleave([['a1', 'a2'], ['b1']], ['w1', 'w2'], { ...opts, wholeFirst: true })).toEqual(['w1', 'a1', 'b1', 'w2', 'a2']);
  });

  it('every part takes part, also one whose first hit the whole list already has', () => {
    const whole = ['w1', 'a1', 'w3', 'w4', 'w5', 'w6'];
    expect(interleave([['a1', 'a2'], ['w3', 'b2']], whole, { ...opts, wholeFirst: true, k: 5 })).toEqual(['w1', 'a1', 'w3', 'a2', 'b2']);
  });
});

describe('boostScope', () => {
  const inside = (h: string) => h.startsWith('in');

  it('lifts in-scope hits without dropping the others', () => {
    const hits = ['out1', 'out2', 'in3', 'out4', 'in5'];
    const out = boostScope(hits, inside);
    expect(out).toEqual(['in3', 'in5', 'out1', 'out2', 'out4']);
    expect([...out].sort()).toEqual([...hits].sort());
  });

  it('an in-scope hit far down does not climb above a first out-of-scope hit', () => {
    const hits = ['out1', ...Array.from({ length: 15 }, (_, i) => `out${i + 2}`), 'in17'];
    const out = boostScope(hits, inside);
    expect(out[0]).toBe('out1');
    expect(out.indexOf('in17')).toBeLessThan(16);
  });

  it('keep: the first hits stay in place (exact code matches)', () => {
    expect(boostScope(['code', 'out2', 'in3'], inside, { keep: 1 })).toEqual(['code', 'in3', 'out2']);
  });

  it('nothing in scope: unchanged', () => {
    expect(boostScope(['a', 'b', 'c'], inside)).toEqual(['a', 'b', 'c']);
  });
});

describe('appendMissing', () => {
  it('adds the scoped search hits the list lacks, after it', () => {
    expect(appendMissing(['a', 'b'], ['b', 'c', 'a', 'd'], id)).toEqual(['a', 'b', 'c', 'd']);
  });
});
