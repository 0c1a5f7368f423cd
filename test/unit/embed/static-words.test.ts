import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STATIC_WORDS_ID, StaticWordsEmbedder, wordTokens } from '../../../native/embed/static-words.js';

const dot = (a: Float32Array, b: Float32Array) => a.reduce((s, x, i) => s + x * (b[i] ?? 0), 0);

let cacheDir: string;
let e: StaticWordsEmbedder;
beforeAll(async () => {
  cacheDir = mkdtempSync(join(tmpdir(), 'md-embed-words-'));
  e = await StaticWordsEmbedder.load({ cacheDir });
}, 120_000);
afterAll(async () => {
  await e.dispose();
  await e.dispose();
  rmSync(cacheDir, { recursive: true, force: true });
});

describe('StaticWordsEmbedder (SIF-weighted GloVe 100-d)', () => {
  it('tokenises words, keeping hyphenated and apostrophe forms', () => {
    expect(wordTokens("The X-axis motor's fault, code 42!")).toEqual(['the', 'x-axis', "motor's", 'fault', 'code', '42']);
  });

  it('produces 100-d unit vectors and a zero vector for text without known words', async () => {
    expect(e.id).toBe(STATIC_WORDS_ID);
    expect(e.dims).toBe(100);
    const v = await e.embedQuery('The pump pressure is too low.');
    expect(v).toHaveLength(100);
    expect(Math.sqrt(dot(v, v))).toBeCloseTo(1, 5);
    const none = await e.embedQuery('qqzxv ---');
    expect(Array.from(none).every((x) => x === 0)).toBe(true);
  });

  it('scores a related pair above an unrelated pair (vocabulary mismatch)', async () => {
    const [a, b, c] = await e.embedDocuments([
      'the engine overheats',
      'motor temperature too high',
      'bake the cake with flour and sugar',
    ]);
    expect(dot(a!, b!)).toBeGreaterThan(dot(a!, c!) + 0.1);
  });

  it('writes a binary cache that reloads to identical vectors', async () => {
    expect(readdirSync(cacheDir).some((f) => f.endsWith('.bin'))).toBe(true);
    const again = await StaticWordsEmbedder.load({ cacheDir });
    try {
      const text = 'replace the worn drive belt';
      expect(Array.from(await again.embedQuery(text))).toEqual(Array.from(await e.embedQuery(text)));
    } finally {
      await again.dispose();
    }
  });
});
