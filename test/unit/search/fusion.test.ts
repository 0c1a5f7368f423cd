import { describe, expect, it } from 'vitest';
import { fuseChannels, placeWithin, DEFAULT_FUSION, type LangRanked, type Ranked } from '../../../native/search/rrf.js';

const list = (prefix: string, n: number, top = 10): Ranked[] => Array.from({ length: n }, (_, i) => ({ id: `${prefix}${i}`, score: top - i * 0.1 }));

describe('fusion keeps each channel\'s top entries', () => {
  it('an exact keyword row ranked first by keyword alone stays in the top 5 when the vector list agrees on other passages', () => {
    // Vector and keyword share v0..v5 at mid ranks, so plain RRF lifts the shared ones over keyword's own #1.
    const shared = list('s', 6);
    const keyword = [{ id: 'row', score: 30 }, { id: 'k1', score: 29 }, ...shared.map((h, i) => ({ ...h, score: 20 - i }))];
    const vector = [...shared, { id: 'row', score: 0.1 }];
    const plain = fuseChannels([{ name: 'keyword', hits: keyword }, { name: 'vector', hits: vector }], 10, { ...DEFAULT_FUSION, guaranteeTop: 0 });
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

  it('per-language vectors: the other language\'s best passage gets a place', () => {
    const kw = list('k', 10);
    const vec = list('v', 10, 1);
    const fused = fuseChannels([{ name: 'keyword', hits: kw }, { name: 'vector', hits: vec }], 10, { ...DEFAULT_FUSION, perLanguage: true }, { en: vec, zh: [{ id: 'zh-right', score: 0.5 }] }, 'en');
    expect(fused.slice(0, 5).map((r) => r.id)).toContain('zh-right');
  });

  it("the other language's best passage is placed in the top 5 only when its similarity comes within the margin of the question language's best", () => {
    const kw = list('k', 10);
    const vec = list('v', 10, 0.8).map((h) => ({ ...h, lang: 'en' }));
    const channels = [{ name: 'keyword' as const, hits: kw }, { name: 'vector' as const, hits: vec }];
    const top5 = (zhScore: number) => fuseChannels(channels, 10, DEFAULT_FUSION, { zh: [{ id: 'zh', score: zhScore }] }, 'en').slice(0, 5).map((r) => r.id);
    // A translation that matches nearly as well as the best English passage (e5 scores another language ~0.1 lower).
    expect(top5(0.8 - DEFAULT_FUSION.otherLanguageMargin + 0.005)).toContain('zh');
    // The usual cross-language distance: no place (and not in the list at all: no channel ranked it).
    expect(top5(0.7)).not.toContain('zh');
    expect(fuseChannels(channels, 10, { ...DEFAULT_FUSION, otherLanguageMargin: 0 }, { zh: [{ id: 'zh', score: 0.9 }] }, 'en').map((r) => r.id)).not.toContain('zh');
    // Keyword's #1 keeps first place.
    expect(top5(0.85)[0]).toBe('k0');
  });
});

describe('fusion never loses what the keyword channel found', () => {
  const kwv = (keyword: LangRanked[], vector: LangRanked[], lang?: string) =>
    fuseChannels([{ name: 'keyword', hits: keyword }, { name: 'vector', hits: vector }], 10, DEFAULT_FUSION, undefined, lang).map((r) => r.id);

  it("keyword's clear winner stays first even when the vector channel agrees with keyword on other passages", () => {
    // BM25 #1 far above #2 (a passage that names the question's words); the vector list never saw it
    // but shares keyword's #2..#4, so rank fusion alone puts a shared one first.
    const keyword = [{ id: 'exact', score: 40 }, { id: 'a', score: 22 }, { id: 'b', score: 21 }, { id: 'c', score: 20 }];
    const vector = [{ id: 'b', score: 0.8 }, { id: 'a', score: 0.79 }, { id: 'c', score: 0.78 }, { id: 'v', score: 0.77 }];
    expect(fuseChannels([{ name: 'keyword', hits: keyword }, { name: 'vector', hits: vector }], 10, { ...DEFAULT_FUSION, anchorAgree: 0, strongKeyword: 0 })[0]?.id).not.toBe('exact');
    expect(kwv(keyword, vector)[0]).toBe('exact');
  });

  it("keyword's #1 stays first over passages both channels rank in the middle (a near-tie the vector channel does not break)", () => {
    const keyword = [{ id: 'k1', score: 24.6 }, ...list('m', 8, 19.6)];
    const vector = [{ id: 'v1', score: 0.72 }, ...list('m', 8, 0.7).map((h, i) => ({ ...h, id: `m${7 - i}` }))];
    expect(kwv(keyword, vector)[0]).toBe('k1');
  });

  it("the vector channel breaks a keyword near-tie: keyword's #2 goes first when vector ranks it top-2 and not the #1", () => {
    const keyword = [{ id: 'k1', score: 23.5 }, { id: 'k2', score: 22.5 }, ...list('x', 5, 17)];
    const vector = [{ id: 'k2', score: 0.78 }, { id: 'v', score: 0.75 }, { id: 'x0', score: 0.74 }];
    const out = kwv(keyword, vector);
    expect(out[0]).toBe('k2');
    expect(out.slice(0, 5)).toContain('k1');
    // ...but not over a clear keyword winner.
    expect(kwv([{ id: 'k1', score: 40 }, ...keyword.slice(1)], vector)[0]).toBe('k1');
  });

  it("a Chinese question's English passage found by keyword stays in the top 5 though the vector channel prefers Chinese passages", () => {
    // Keyword: four Chinese passages, then the English one that answers (the question names an English term).
    const keyword: LangRanked[] = [...list('z', 4, 30).map((h) => ({ ...h, lang: 'zh' })), { id: 'en-gold', score: 25, lang: 'en' }];
    // Vector: Chinese passages, some shared with keyword; the English one is far down (cross-language cosine is low).
    const vector: LangRanked[] = [
      ...['y0', 'y1', 'z2', 'z3', 'y2', 'z0', 'z1'].map((id, i) => ({ id, score: 0.8 - i * 0.01, lang: 'zh' })),
      { id: 'en-gold', score: 0.6, lang: 'en' },
    ];
    const before = fuseChannels([{ name: 'keyword', hits: keyword }, { name: 'vector', hits: vector }], 10, { ...DEFAULT_FUSION, otherLanguageTop: 0 }, undefined, 'zh');
    expect(before.slice(0, 5).map((r) => r.id)).not.toContain('en-gold');
    expect(kwv(keyword, vector, 'zh').slice(0, 5)).toContain('en-gold');
    // The same list for an English question: nothing of another language to keep, fusion as before.
    expect(kwv(keyword.map((h) => ({ ...h, lang: 'zh' })), vector, 'zh').slice(0, 5)).not.toContain('en-gold');
  });

  it("keyword's top 5 stay in the first 10, though passages both channels rank mid-list outscore them", () => {
    // 12 passages both channels hold at ranks 3.. (RRF ≈ 2/65 each) against keyword's #3–#5, which
    // the vector channel never found (1/63): plain fusion drops them below the first 10.
    const shared = list('s', 12);
    const keyword = [{ id: 'k0', score: 40 }, { id: 'k1', score: 39 }, { id: 'k2', score: 38 }, { id: 'k3', score: 37 }, { id: 'k4', score: 36 }, ...shared.map((h, i) => ({ ...h, score: 30 - i }))];
    const vector = [{ id: 'v0', score: 0.9 }, { id: 'v1', score: 0.89 }, ...shared];
    const channels = [{ name: 'keyword' as const, hits: keyword }, { name: 'vector' as const, hits: vector }];
    const off = fuseChannels(channels, 10, { ...DEFAULT_FUSION, keywordKeep: { top: 0, within: 10 } }).map((r) => r.id);
    expect(off).not.toContain('k4');
    const fused = fuseChannels(channels, 10).map((r) => r.id);
    for (const id of ['k0', 'k1', 'k2', 'k3', 'k4']) expect(fused).toContain(id);
    // The first five are what they were without the rule.
    expect(fused.slice(0, 5)).toEqual(off.slice(0, 5));
  });

  it('what only the vector channel found still reaches the top 5', () => {
    const keyword = list('k', 10, 30);
    const vector = [{ id: 'sem', score: 0.9 }, { id: 'sem2', score: 0.89 }, ...list('q', 5, 0.8)];
    const top5 = kwv(keyword, vector).slice(0, 5);
    expect(top5[0]).toBe('k0');
    expect(top5).toContain('sem');
    expect(top5).toContain('sem2');
  });
});
