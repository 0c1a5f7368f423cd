/**
 * Issue 37 item 9, through ingest: a slow model (one second per passage on a fake clock) cancelled
 * 30 s into the vector phase of one 300-passage manual keeps all but the last ~10 s of its work: the
 * next run gives the model at most the passages not kept. Before, nothing was kept until 256 passages
 * (~50 s on a CPU) were done, so an ingest interrupted about once a minute never advanced.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { EMBED_FLUSH, EmbeddingCache } from '../../native/embed/cache.js';
import { ingest } from '../../native/pipelines/ingest.js';
import { fakeEmbedder, storePerTest, tempDir } from '../unit/store/fixtures.js';

const SECOND = 1000;

describe('vector progress survives frequent interruptions', () => {
  const stores = storePerTest();
  let manuals = { dir: '', cleanup: () => {} };
  const realNow = EMBED_FLUSH.now;
  beforeEach(() => void (manuals = tempDir()));
  afterEach(() => {
    EMBED_FLUSH.now = realNow;
    manuals.cleanup();
  });

  it('cancelled 30 s into the vector phase: the next run embeds at most what the last ~10 s had not kept', async () => {
    const docs = path.join(manuals.dir, 'docs');
    mkdirSync(docs, { recursive: true });
    const body = Array.from({ length: 300 }, (_, s) => `## Step ${s + 1}\n\nCheck the pump valve number ${s + 1} and tighten its fitting to ${s + 2} Nm.\n`).join('\n');
    writeFileSync(path.join(docs, 'pump.md'), `# Pump\n\n${body}\n`);

    const base = fakeEmbedder();
    const s = await stores.open({ embedder: { id: base.id, dims: base.dims }, create: true });
    const cache = EmbeddingCache.open(s.dir, base.id, base.dims);
    const versions = { chunkerVersion: 99, analyzerVersion: 99 };
    let clock = 0;
    EMBED_FLUSH.now = () => clock;
    const ac = new AbortController();
    const slow = {
      ...base,
      embedDocuments: async (texts: string[], signal?: AbortSignal) => {
        for (let i = 0; i < texts.length; i++) {
          signal?.throwIfAborted();
          clock += SECOND;
          if (clock >= 30 * SECOND) ac.abort(); // the technician cancels (or the PC is switched off)
        }
        signal?.throwIfAborted();
        return base.embedDocuments(texts);
      },
    };
    await expect(ingest({ store: s, vectors: { embedder: slow, cache }, libraryVersions: versions, ocr: false }, { paths: [docs] }, { signal: ac.signal })).rejects.toThrow();
    const total = s.getFiles().reduce((n, f) => n + f.chunks, 0);
    expect(total).toBeGreaterThan(256);
    expect(s.pendingVectorFiles()).toHaveLength(1);

    let embedded = 0;
    const counting = { ...base, embedDocuments: async (texts: string[]) => ((embedded += texts.length), base.embedDocuments(texts)) };
    const report = await ingest({ store: s, vectors: { embedder: counting, cache }, libraryVersions: versions, ocr: false }, { paths: [docs] });
    expect(report.embedded).toBe(total);
    expect(s.pendingVectorFiles()).toEqual([]);
    // 30 passages were embedded before the cancel; at most the last 10 s (10 passages) were lost.
    expect(embedded).toBeLessThanOrEqual(total - (30 - EMBED_FLUSH.ms / SECOND));
    cache.close();
  });
});
