/**
 * Soak (CI size): browser mode as `npm start -- --browser` runs it, 8 concurrent HTTP clients, a seeded
 * mix of code lookups, searches, extractive answers, streamed calls and bad input (scripts/soak.ts).
 * Count: MANUALDESK_SOAK_QUERIES, else 1000 (10000 with MANUALDESK_RELIABILITY_FULL=1).
 */
import { describe, expect, it } from 'vitest';
import { prng } from '../../scripts/prng.js';
import { drawQuery, MAX_RSS_GROWTH_PCT, runSoak, sampleVocabulary, soakQueryCount } from '../../scripts/soak.js';

describe('soak: browser mode under concurrent mixed queries', () => {
  it('draws a reproducible mix with codes, misses, asks, streams and bad input', () => {
    const vocab = sampleVocabulary();
    expect(vocab.codes).toContain('E-107');
    expect(vocab.words.length).toBeGreaterThan(100);
    expect(vocab.zh.length).toBeGreaterThan(5);
    const draw = (seed: number) => {
      const rand = prng(seed);
      return Array.from({ length: 500 }, () => drawQuery(rand, vocab, ['a.md']));
    };
    const a = draw(1);
    expect(draw(1).map((q) => q.body)).toEqual(a.map((q) => q.body));
    const kinds = new Set(a.map((q) => q.kind));
    for (const k of ['code-hit', 'code-miss', 'search', 'search-zh', 'ask', 'ask-stream', 'search-stream', 'list', 'open-source', 'odd-valid', 'bad']) {
      expect(kinds, k).toContain(k);
    }
    expect(a.filter((q) => q.kind === 'bad').every((q) => q.code !== undefined)).toBe(true);
  });

  it(
    'answers every query as expected and the server RSS grows at most 10 % after warm-up',
    async () => {
      const queries = soakQueryCount();
      const report = await runSoak({ queries, clients: 8 });
      console.log(JSON.stringify(report));
      expect(report.errorSamples).toEqual([]);
      expect(report.errors).toBe(0);
      expect(report.queries).toBe(queries);
      expect(report.byKind.bad ?? 0).toBeGreaterThan(0);
      expect(report.byKind['ask-stream'] ?? 0).toBeGreaterThan(0);
      expect(Number.isFinite(report.rssWarmMB)).toBe(true);
      expect(report.growthPct).toBeLessThanOrEqual(MAX_RSS_GROWTH_PCT);
    },
    Math.max(120_000, soakQueryCount() * 60),
  );
});
