import { describe, expect, it } from 'vitest';
import { fuseChannels, DEFAULT_FUSION, type Channel, type Ranked } from '../../../native/search/rank/rrf.js';

/** Fusion decides from each channel's own evidence (rank, agreement), with no fixed leader. */
const list = (prefix: string, n: number, top = 10): Ranked[] => Array.from({ length: n }, (_, i) => ({ id: `${prefix}${i}`, score: top - i * 0.1 }));
const ids = (channels: Channel[], n = 10) => fuseChannels(channels, n).map((r) => r.id);

describe('fusion: no channel leads', () => {
  it("the passage both channels rank high goes first, over keyword's #1 that the vector channel never found", () => {
    // BM25 #1 far above #2: a "keyword leads" rule kept it first; agreement is the better evidence.
    const keyword = [{ id: 'exact', score: 40 }, { id: 'a', score: 22 }, { id: 'b', score: 21 }];
    const vector = [{ id: 'a', score: 0.8 }, { id: 'v', score: 0.79 }, { id: 'b', score: 0.78 }];
    const out = ids([{ name: 'keyword', hits: keyword }, { name: 'vector', hits: vector }]);
    expect(out[0]).toBe('a');
    expect(out.slice(0, 5)).toContain('exact');
  });

  it('the channels are treated alike: swapping which list is keyword and which is vector gives the same first five', () => {
    const x = [...list('x', 3, 30), ...list('s', 4, 20)];
    const y = [...list('y', 2, 0.9), ...list('s', 4, 0.8).reverse(), ...list('x', 3, 0.5)];
    const a = ids([{ name: 'keyword', hits: x }, { name: 'vector', hits: y }], 5);
    const b = ids([{ name: 'keyword', hits: y }, { name: 'vector', hits: x }], 5);
    expect(new Set(a)).toEqual(new Set(b));
  });

  it("each channel's first two are on the first page, though passages both rank mid-list outscore them by reciprocal rank", () => {
    const shared = list('s', 8);
    const keyword = [{ id: 'k0', score: 40 }, { id: 'k1', score: 39 }, ...shared.map((h, i) => ({ ...h, score: 30 - i }))];
    const vector = [{ id: 'v0', score: 0.9 }, { id: 'v1', score: 0.89 }, ...shared];
    const channels: Channel[] = [{ name: 'keyword', hits: keyword }, { name: 'vector', hits: vector }];
    const plain = fuseChannels(channels, 10, { ...DEFAULT_FUSION, channelTop: 0 }).slice(0, 5).map((r) => r.id);
    expect(plain).not.toContain('k1');
    expect(plain).not.toContain('v1');
    const top5 = ids(channels, 5);
    for (const id of ['k0', 'k1', 'v0', 'v1']) expect(top5).toContain(id);
  });

  it("a keyword list in the question's language and a vector list in another are fused by rank alone (no language rule)", () => {
    // A Chinese question: keyword's English passage at #1; the vector channel's Chinese ones. Neither leads by language.
    const keyword = [{ id: 'en-gold', score: 25 }, ...list('z', 4, 20)];
    const vector = [...list('y', 3, 0.8), { id: 'z0', score: 0.7 }];
    const out = ids([{ name: 'keyword', hits: keyword }, { name: 'vector', hits: vector }], 5);
    expect(out).toContain('en-gold');
    expect(out).toContain('y0');
    expect(out[0]).toBe('z0');
  });
});
