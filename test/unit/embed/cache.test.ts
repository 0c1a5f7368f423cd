import { createHash } from 'node:crypto';
import { appendFileSync, mkdtempSync, readdirSync, rmSync, statSync, truncateSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { EngineError } from '../../../native/contract/errors.js';
import { cacheFileName, EmbeddingCache, embedWithCache } from '../../../native/embed/cache.js';
import type { Embedder } from '../../../native/embed/types.js';

const sha = (s: string) => createHash('sha256').update(s).digest('hex');
const vec = (seed: number, dims = 4) => Float32Array.from({ length: dims }, (_, i) => seed + i / 10);

/** Deterministic fake embedder that counts what it was asked to embed. */
class CountingEmbedder implements Embedder {
  readonly dims = 4;
  calls: string[][] = [];
  constructor(readonly id = 'fake:counting@00000000') {}
  async embedDocuments(texts: string[]) {
    this.calls.push(texts);
    return texts.map((t) => vec(t.length));
  }
  async embedQuery(text: string) {
    return vec(text.length);
  }
  async dispose() {}
}

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'md-embed-cache-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('EmbeddingCache', () => {
  it('misses, then hits after putMany (before and after flush)', () => {
    const cache = EmbeddingCache.open(dir, 'e1', 4);
    expect(cache.get(sha('a'))).toBeUndefined();
    cache.putMany([{ hash: sha('a'), vector: vec(1) }]);
    expect(Array.from(cache.get(sha('a'))!)).toEqual(Array.from(vec(1)));
    cache.flush();
    expect(Array.from(cache.get(sha('a'))!)).toEqual(Array.from(vec(1)));
    expect(cache.get(sha('b'))).toBeUndefined();
    expect(cache.size).toBe(1);
    cache.close();
    cache.close();
  });

  it('persists across reopen', () => {
    const a = EmbeddingCache.open(dir, 'e1', 4);
    a.putMany([
      { hash: sha('a'), vector: vec(1) },
      { hash: sha('b'), vector: vec(2) },
    ]);
    a.close();
    const b = EmbeddingCache.open(dir, 'e1', 4);
    expect(b.size).toBe(2);
    expect(Array.from(b.get(sha('b'))!)).toEqual(Array.from(vec(2)));
    b.putMany([{ hash: sha('c'), vector: vec(3) }]);
    b.close();
    const c = EmbeddingCache.open(dir, 'e1', 4);
    expect(c.size).toBe(3);
    expect(Array.from(c.get(sha('a'))!)).toEqual(Array.from(vec(1)));
    expect(Array.from(c.get(sha('c'))!)).toEqual(Array.from(vec(3)));
    c.close();
  });

  it('ignores a torn last record and keeps appending correctly after it', () => {
    const a = EmbeddingCache.open(dir, 'e1', 4);
    a.putMany([
      { hash: sha('a'), vector: vec(1) },
      { hash: sha('b'), vector: vec(2) },
    ]);
    a.close();
    const file = join(dir, cacheFileName('e1'));
    truncateSync(file, statSync(file).size - 5); // crash in the middle of writing record b
    const b = EmbeddingCache.open(dir, 'e1', 4);
    expect(b.size).toBe(1);
    expect(Array.from(b.get(sha('a'))!)).toEqual(Array.from(vec(1)));
    expect(b.get(sha('b'))).toBeUndefined();
    b.putMany([{ hash: sha('c'), vector: vec(3) }]);
    b.close();
    appendFileSync(file, Buffer.from([1, 2, 3])); // another torn tail
    const c = EmbeddingCache.open(dir, 'e1', 4);
    expect(c.size).toBe(2);
    expect(Array.from(c.get(sha('c'))!)).toEqual(Array.from(vec(3)));
    c.close();
  });

  it('keeps embedders apart, and discards a file whose dims do not match', () => {
    const a = EmbeddingCache.open(dir, 'onnx:x@11111111', 4);
    a.putMany([{ hash: sha('a'), vector: vec(1) }]);
    a.close();
    const other = EmbeddingCache.open(dir, 'onnx:x@22222222', 4);
    expect(other.get(sha('a'))).toBeUndefined();
    other.close();
    expect(readdirSync(dir)).toHaveLength(2);
    const again = EmbeddingCache.open(dir, 'onnx:x@11111111', 4);
    expect(again.get(sha('a'))).toBeDefined();
    again.close();
  });

  it('rejects vectors of the wrong size and malformed hashes', () => {
    const cache = EmbeddingCache.open(dir, 'e1', 4);
    expect(() => cache.putMany([{ hash: sha('a'), vector: vec(1, 3) }])).toThrow(EngineError);
    expect(() => cache.putMany([{ hash: 'abc', vector: vec(1) }])).toThrow(/sha256/);
    cache.close();
  });
});

describe('embedWithCache', () => {
  it('embeds only what is missing, once per distinct text, and keeps input order', async () => {
    const emb = new CountingEmbedder();
    const cache = EmbeddingCache.open(dir, emb.id, emb.dims);
    const items = ['aa', 'bbb', 'aa', 'c'].map((text) => ({ hash: sha(text), text }));
    const first = await embedWithCache(emb, cache, items);
    expect(emb.calls).toEqual([['aa', 'bbb', 'c']]);
    expect(first.map((v) => v[0])).toEqual([2, 3, 2, 1]);
    cache.close();

    const reopened = EmbeddingCache.open(dir, emb.id, emb.dims);
    const second = await embedWithCache(emb, reopened, [...items, { hash: sha('dddd'), text: 'dddd' }]);
    expect(emb.calls).toEqual([['aa', 'bbb', 'c'], ['dddd']]);
    expect(second.map((v) => v[0])).toEqual([2, 3, 2, 1, 4]);
    reopened.close();
  });

  it('keeps the slices embedded before a cancellation', async () => {
    const emb = new CountingEmbedder();
    const ctl = new AbortController();
    const original = emb.embedDocuments.bind(emb);
    emb.embedDocuments = async (texts: string[]) => {
      const out = await original(texts);
      ctl.abort(); // cancel after the first slice
      return out;
    };
    const cache = EmbeddingCache.open(dir, emb.id, emb.dims);
    const items = Array.from({ length: 300 }, (_, i) => ({ hash: sha(`t${i}`), text: `t${i}` }));
    const run = embedWithCache(emb, cache, items, ctl.signal);
    await expect(run).rejects.toMatchObject({ name: 'AbortError' });
    cache.close();
    const reopened = EmbeddingCache.open(dir, emb.id, emb.dims);
    expect(emb.calls[0]?.length).toBeGreaterThan(0);
    expect(reopened.size).toBe(emb.calls[0]?.length);
    reopened.close();
  });

  it('refuses a cache that belongs to another embedder', async () => {
    const cache = EmbeddingCache.open(dir, 'other@1', 4);
    await expect(embedWithCache(new CountingEmbedder(), cache, [])).rejects.toMatchObject({
      code: 'EMBEDDER_MISMATCH',
    });
    cache.close();
  });
});
