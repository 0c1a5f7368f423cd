/**
 * Issue 37 item 9: vector progress is kept by time as well as by count. A slow model (here one
 * second per passage on a fake clock) cancelled or killed 25 s into the vector phase keeps all but the
 * last ~10 s of its work; before, nothing was kept until 256 passages were done (~50 s on a CPU).
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { EMBED_FLUSH, EmbeddingCache, embedWithCache } from '../../../native/embed/cache.js';
import type { Embedder } from '../../../native/embed/types.js';

const sha = (s: string) => createHash('sha256').update(s).digest('hex');
const SECOND = 1000;

/** A slow model on a fake clock: each passage takes one second; it stops at a cancel, as the real ones do. */
class SlowEmbedder implements Embedder {
  readonly id = 'fake:slow@00000000';
  readonly dims = 4;
  clock = 0;
  async embedDocuments(texts: string[], signal?: AbortSignal, onProgress?: (done: number) => void) {
    const out: Float32Array[] = [];
    for (const t of texts) {
      signal?.throwIfAborted();
      this.clock += SECOND;
      out.push(Float32Array.from({ length: this.dims }, (_, i) => t.length + i));
      onProgress?.(out.length);
      await Promise.resolve();
    }
    return out;
  }
  async embedQuery(text: string) {
    return Float32Array.from({ length: this.dims }, (_, i) => text.length + i);
  }
  async dispose() {}
}

let dir: string;
const realNow = EMBED_FLUSH.now;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'md-vector-progress-'));
});
afterEach(() => {
  EMBED_FLUSH.now = realNow;
  rmSync(dir, { recursive: true, force: true });
});

describe('vector progress is kept by time as well as by count', () => {
  it.each([25, 58])('cancelled %i s into the vector phase: all but the last ~10 s of work is kept', async (cancelAt) => {
    const emb = new SlowEmbedder();
    EMBED_FLUSH.now = () => emb.clock;
    const ctl = new AbortController();
    const cache = EmbeddingCache.open(dir, emb.id, emb.dims);
    const items = Array.from({ length: 400 }, (_, i) => ({ hash: sha(`passage ${i}`), text: `passage ${i}` }));
    const run = embedWithCache(emb, cache, items, ctl.signal, (done) => {
      if (done >= cancelAt) ctl.abort();
    });
    await expect(run).rejects.toMatchObject({ name: 'AbortError' });
    cache.close(); // what a kill leaves: only what was flushed is on disk
    const reopened = EmbeddingCache.open(dir, emb.id, emb.dims);
    expect(reopened.size).toBeGreaterThanOrEqual(cancelAt - EMBED_FLUSH.ms / SECOND);
    expect(reopened.size).toBeLessThanOrEqual(cancelAt);
    reopened.close();
  });

  it('a fast model still embeds in slices of up to 256 passages', async () => {
    const emb = new SlowEmbedder();
    const calls: number[] = [];
    const embed = emb.embedDocuments.bind(emb);
    emb.embedDocuments = (texts, signal, onProgress) => {
      calls.push(texts.length);
      return embed(texts, signal, onProgress);
    };
    EMBED_FLUSH.now = () => 0; // no time passes
    const cache = EmbeddingCache.open(dir, emb.id, emb.dims);
    const items = Array.from({ length: 600 }, (_, i) => ({ hash: sha(`p${i}`), text: `p${i}` }));
    await embedWithCache(emb, cache, items);
    expect(Math.max(...calls)).toBe(EMBED_FLUSH.texts);
    expect(calls.reduce((a, b) => a + b, 0)).toBe(600);
    cache.close();
  });
});
