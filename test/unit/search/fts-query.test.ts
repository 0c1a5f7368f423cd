import { describe, expect, it } from 'vitest';
import { buildFtsPlan, EQUIVALENT_BOOST, restrictPlan } from '../../../native/search/channels/fts-query.js';
import { keywordSearch, rankHits, tieRunsPast, type FullTextStore } from '../../../native/search/channels/keyword.js';
import { DEFAULT_KEYWORD_CONFIG, keywordConfigFrom } from '../../../native/search/settings.js';
import { analyzeQuery } from '../../../native/text/analyze.js';
import type { Chunk } from '../../../native/contract/document.js';

const cfg = DEFAULT_KEYWORD_CONFIG;

describe('buildFtsPlan (no database)', () => {
  it('searches the question on body and heading, weighted', () => {
    const plan = buildFtsPlan('spindle overheats', cfg);
    expect(plan?.[0]).toEqual({ terms: analyzeQuery('spindle overheats', { expand: true }).terms.join(' '), columns: ['fts', 'fts_head'], columnBoosts: [1, cfg.headingBoost] });
  });

  it('adds the words of a warning, below the question, when it asks what to watch out for', () => {
    const warnings = (q: string) => (buildFtsPlan(q, cfg) ?? []).find((c) => c.terms.split(' ').includes('caution'));
    for (const q of ['what must I check before running it?', 'safety precautions before calibrating the drive', '校准电机之前要注意什么安全事项？']) {
      expect(warnings(q)).toMatchObject({ columns: ['fts', 'fts_head'], boost: 0.3 });
    }
    expect(warnings('how do I run the calibration?')).toBeUndefined();
  });

  it('searches the body only when the heading boost is 0', () => {
    expect(buildFtsPlan('spindle', { ...cfg, headingBoost: 0 })?.[0]).toEqual({ terms: analyzeQuery('spindle', { expand: true }).terms.join(' '), columns: ['fts'] });
  });

  it('adds related text below the question, without its own terms', () => {
    const plan = buildFtsPlan('spindle alarm', cfg, { text: 'Spindle drive fault: check the fan.', boost: 0.5 });
    const first = plan?.[0];
    expect(first?.boost).toBe(0.5);
    expect(first?.columns).toEqual(['fts']);
    expect(first?.terms.split(' ')).not.toContain('spindle');
    expect(first?.terms.split(' ')).toContain('fan');
  });

  it('adds thesaurus expansions with the expansion boost, multi-word ones as all-terms clauses, and equivalents', () => {
    const q = 'VFD temp';
    const a = analyzeQuery(q, { expand: true });
    const plan = buildFtsPlan(q, cfg) ?? [];
    const expansions = plan.filter((c) => c.boost === cfg.expansionBoost);
    expect(expansions.length > 0 || a.expansions.length === 0).toBe(true);
    const eq = plan.filter((c) => c.boost === EQUIVALENT_BOOST);
    // Multi-token equivalents need all their tokens; one-token ones share one clause.
    expect(eq.filter((c) => !c.allTerms).length).toBeLessThanOrEqual(1);
    for (const c of eq) if (c.allTerms) expect(c.terms).toContain(' ');
    expect(plan.filter((c) => c.allTerms && c.boost === cfg.expansionBoost)).toHaveLength(a.expansions.filter((g) => g.length > 1).length);
    expect(buildFtsPlan(q, { ...cfg, expand: false })?.some((c) => c.boost === cfg.expansionBoost)).toBe(false);
  });

  it('puts every one-token equivalent (words typed for an identifier) in one clause, scored as separate ones would be', () => {
    const q = 'max z velocity on the stepper driver';
    const a = analyzeQuery(q, { expand: true });
    const single = a.equivalents.filter((g) => g.length === 1).map((g) => g[0]);
    expect(single.length).toBeGreaterThan(2);
    const plan = buildFtsPlan(q, cfg) ?? [];
    const shared = plan.filter((c) => c.boost === EQUIVALENT_BOOST && !c.allTerms);
    expect(shared).toEqual([{ terms: single.join(' '), columns: ['fts'], boost: EQUIVALENT_BOOST }]);
  });

  it('is null when nothing can be searched', () => {
    expect(buildFtsPlan('   ', cfg)).toBeNull();
  });

  it('reads overrides from text, ignoring what is not valid', () => {
    expect(keywordConfigFrom('{"headingBoost":0,"expand":false,"x":1}')).toEqual({ headingBoost: 0, expand: false });
    expect(keywordConfigFrom('not json')).toEqual({});
    expect(keywordConfigFrom(undefined)).toEqual({});
  });
});

const chunk = (id: string): Chunk => ({ id }) as unknown as Chunk;

describe('keyword ranking (no database)', () => {
  it('orders equal scores by chunk id and drops zero scores', () => {
    const ranked = rankHits([
      { chunk: chunk('b'), score: 2 },
      { chunk: chunk('a'), score: 2 },
      { chunk: chunk('z'), score: 0 },
      { chunk: chunk('c'), score: 3 },
    ]);
    expect(ranked.map((h) => h.chunk.id)).toEqual(['c', 'a', 'b']);
  });

  it('sees a tie that runs past the rows fetched', () => {
    expect(tieRunsPast([5, 3, 3, 3], 2)).toBe(true);
    expect(tieRunsPast([5, 3, 3, 2], 2)).toBe(false);
    expect(tieRunsPast([0, 0], 1)).toBe(false);
  });

  it('fetches wider once when a tie runs past the first rows, so every tied row is ordered', async () => {
    const limits: number[] = [];
    const rows = Array.from({ length: 40 }, (_, i) => ({ chunk: chunk(`id${String(39 - i).padStart(2, '0')}`), score: 1 }));
    const store: FullTextStore = {
      async fullTextSearch(_plan, limit) {
        limits.push(limit);
        const hits = rows.slice(0, limit);
        return { hits, scores: hits.map((h) => h.score) };
      },
    };
    const hits = await keywordSearch(store, 'belt', 3);
    expect(limits).toEqual([13, 52]);
    expect(hits.map((h) => h.chunk.id)).toEqual(['id00', 'id01', 'id02']);
  });

  it('drops a tie past the rows that must be complete instead of fetching wider (fusion candidates)', async () => {
    const limits: number[] = [];
    // Five rows score above a tied run longer than any fetch.
    const rows = [
      ...Array.from({ length: 5 }, (_, i) => ({ chunk: chunk(`top${i}`), score: 10 - i })),
      ...Array.from({ length: 100 }, (_, i) => ({ chunk: chunk(`tie${String(99 - i).padStart(2, '0')}`), score: 1 })),
    ];
    const store: FullTextStore = {
      async fullTextSearch(_plan, limit) {
        limits.push(limit);
        const hits = rows.slice(0, limit);
        return { hits, scores: hits.map((h) => h.score) };
      },
    };
    // 20 candidates of which the first 3 must be complete: the five above the tie, one fetch.
    const hits = await keywordSearch(store, 'belt', 20, undefined, undefined, cfg, 3);
    expect(limits).toEqual([30]);
    expect(hits.map((h) => h.chunk.id)).toEqual(['top0', 'top1', 'top2', 'top3', 'top4']);
    // Seven must be complete: only five rows beat the tie, so the wider fetch orders the tied ones.
    limits.length = 0;
    const wide = await keywordSearch(store, 'belt', 20, undefined, undefined, cfg, 7);
    expect(limits).toEqual([30, 120]);
    expect(wide.map((h) => h.chunk.id).slice(5, 7)).toEqual(['tie00', 'tie01']);
  });
});

describe('restrictPlan', () => {
  const plan = [
    { terms: 'robot status port', columns: ['fts', 'fts_head'] as const, columnBoosts: [1, 2] },
    { terms: '机器人 状态', columns: ['fts'] as const, boost: 0.15 },
    { terms: '实时 反馈', columns: ['fts'] as const, boost: 0.15, allTerms: true },
    { terms: '端口 号', columns: ['fts'] as const, boost: 0.15, allTerms: true },
  ];
  it('keeps the terms some wanted passage holds, with their clause weights, and all-terms clauses only whole', () => {
    const held = new Set(['status', '机器人', '实时', '反馈', '端口']);
    expect(restrictPlan(plan, held)).toEqual([
      { terms: 'status', columns: ['fts', 'fts_head'], columnBoosts: [1, 2] },
      { terms: '机器人', columns: ['fts'], boost: 0.15 },
      { terms: '实时 反馈', columns: ['fts'], boost: 0.15, allTerms: true },
    ]);
  });
  it('leaves nothing to search when the passages hold none of the terms', () => {
    expect(restrictPlan(plan, new Set(['encoder', '端口']))).toBeNull();
  });
});
