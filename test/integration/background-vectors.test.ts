/**
 * Vectors after keywords: with an embedding model, ingest commits every file (keyword rows and codes)
 * before it embeds anything; a cancel or a failure while embedding keeps what was committed, and the
 * next ingest finishes the vectors without reading a file again.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { IngestProgress } from '../../native/contract/api.js';
import { EmbeddingCache } from '../../native/embed/cache.js';
import { embeddingText } from '../../native/embed/passage-text.js';
import { ingest } from '../../native/pipelines/ingest.js';
import { keywordSearch } from '../../native/search/channels/keyword.js';
import { fakeEmbedder, storePerTest, tempDir } from '../unit/store/fixtures.js';

/** Markdown manuals, each with its own topic word and enough passages to fill several embedding groups. */
function writeManuals(root: string, n: number, sections: number): string[] {
  mkdirSync(root, { recursive: true });
  const topics: string[] = [];
  for (let i = 0; i < n; i++) {
    const topic = `widget${String.fromCharCode(97 + i)}`;
    topics.push(topic);
    const body = Array.from(
      { length: sections },
      (_, s) => `## Step ${s + 1}\n\nCheck the ${topic} valve number ${s + 1} and tighten its fitting to ${s + 2} Nm before the test run.\n`,
    ).join('\n');
    writeFileSync(path.join(root, `manual-${i}.md`), `# Manual ${topic}\n\n${body}\n\n## Alarms\n\n| Code | Meaning |\n|---|---|\n| E-${100 + i} | ${topic} pressure low |\n`);
  }
  return topics;
}

describe('ingest with a model: keyword rows first, vectors after', () => {
  const stores = storePerTest();
  let manuals = { dir: '', cleanup: () => {} };
  beforeEach(() => void (manuals = tempDir()));
  afterEach(() => manuals.cleanup());

  const docs = () => path.join(manuals.dir, 'docs');
  const open = async () => {
    const e = fakeEmbedder();
    const store = await stores.open({ embedder: { id: e.id, dims: e.dims }, create: true });
    return { store, cache: EmbeddingCache.open(store.dir, e.id, e.dims) };
  };
  const versions = { chunkerVersion: 99, analyzerVersion: 99 };

  it('commits every file before the first embedding, survives a cancel while embedding, and the next run finishes', async () => {
    const topics = writeManuals(docs(), 6, 60);
    const { store: s, cache } = await open();
    const base = fakeEmbedder();
    const ac = new AbortController();
    const events: string[] = [];
    let calls = 0;
    const embedder = {
      ...base,
      embedDocuments: async (texts: string[]) => {
        // At the first embedding, every manual is in the library and found by keyword.
        if (calls === 0) {
          events.push(`embed: ${s.getFiles().length} files, ${s.pendingVectorFiles().length} pending`);
          for (const t of topics) expect((await keywordSearch(s, `${t} valve`, 3))[0]?.chunk.text).toContain(t);
        }
        // Cancelled in the second group, once the first group's vectors are committed.
        if (++calls > 1 && s.pendingVectorFiles().length < 6) ac.abort();
        return base.embedDocuments(texts);
      },
    };
    const progress: IngestProgress[] = [];
    await expect(
      ingest(
        { store: s, vectors: { embedder, cache }, libraryVersions: versions, ocr: false, afterParse: async () => void events.push('afterParse') },
        { paths: [docs()] },
        { signal: ac.signal, onProgress: (p) => progress.push(p) },
      ),
    ).rejects.toThrow();
    // The code index was told about the files before any vector was computed.
    expect(events).toEqual(['afterParse', 'embed: 6 files, 6 pending']);
    const embedEvents = progress.filter((p) => p.phase === 'embed');
    expect(embedEvents[0]).toMatchObject({ unit: 'passages', done: 0 });
    const total = s.getFiles().reduce((n, f) => n + f.chunks, 0);
    expect(embedEvents[0]?.total).toBe(total);

    // What the first group committed has vectors; the rest waits, searchable by keyword.
    const pendingAfterCancel = (await s.stats()).vectorsPending;
    expect(pendingAfterCancel).toBeGreaterThan(0);
    expect(pendingAfterCancel).toBeLessThan(total);
    expect(s.getFiles()).toHaveLength(6);
    const query = await base.embedQuery(`${topics[5]} valve number 3`);
    const before = await s.vectorSearch(query, 50);
    expect(before.every((h) => !s.getFile(h.chunk.file)?.vectorsPending)).toBe(true);

    // The next run reads no file again and embeds only what was not embedded (the cache kept the rest).
    let embeddedTexts = 0;
    const counting = { ...base, embedDocuments: async (texts: string[]) => ((embeddedTexts += texts.length), base.embedDocuments(texts)) };
    const report = await ingest({ store: s, vectors: { embedder: counting, cache }, libraryVersions: versions, ocr: false }, { paths: [docs()] });
    expect(report.files).toBe(0);
    expect(report.unchanged).toBe(6);
    expect(report.embedded).toBe(pendingAfterCancel);
    expect((await s.stats()).vectorsPending).toBe(0);
    expect(s.pendingVectorFiles()).toEqual([]);
    expect(embeddedTexts).toBeLessThanOrEqual(pendingAfterCancel);
    expect((await s.stats()).chunks).toBe(total);
    // Every passage now has its own vector (no placeholder left): searching with exactly what was
    // embedded for a passage of the last file finds it at similarity 1.
    for (const target of (await s.fileChunks(['manual-5.md'])).get('manual-5.md') ?? []) {
      const hits = await s.vectorSearch(await base.embedQuery(embeddingText(target)), 20);
      const self = hits.find((h) => h.chunk.id === target.id);
      expect(self?.score).toBeCloseTo(1, 5);
    }
    for (const t of topics) expect((await keywordSearch(s, `${t} valve`, 3))[0]?.chunk.text).toContain(t);
  });

  it('frees the model while files are parsed and the index compacted, and not when nothing is to parse', async () => {
    writeManuals(docs(), 3, 4);
    const { store: s, cache } = await open();
    const base = fakeEmbedder();
    const log: string[] = [];
    const embedder = {
      ...base,
      embedDocuments: async (texts: string[]) => {
        log.push('embed');
        return base.embedDocuments(texts);
      },
      release: async () => void log.push('release'),
    };
    const deps = { store: s, vectors: { embedder, cache }, libraryVersions: versions, ocr: false as const };
    const onProgress = (p: IngestProgress) => void (p.phase === 'parse' && p.done === 0 && log.push('parse'));
    await ingest(deps, { paths: [docs()] }, { onProgress });
    // Freed once the first file is read, loaded again by the embedding, freed again before compaction.
    expect(log[0]).toBe('parse');
    expect(log.slice(1)).toEqual(['release', ...log.slice(2, -1).map(() => 'embed'), 'release']);
    log.length = 0;
    await ingest(deps, { paths: [docs()] });
    expect(log).toEqual([]);
  });

  it('a file whose passages the model cannot embed stays in the library, found by keyword, and is reported', async () => {
    writeManuals(docs(), 3, 2);
    writeFileSync(path.join(docs(), 'odd.md'), '# Odd manual\n\nThe gizmo bearing POISON needs grease every week.\n');
    const { store: s, cache } = await open();
    const base = fakeEmbedder();
    const embedder = {
      ...base,
      embedDocuments: async (texts: string[]) => {
        if (texts.some((t) => t.includes('POISON'))) throw new Error('the model failed on this text');
        return base.embedDocuments(texts);
      },
    };
    const report = await ingest({ store: s, vectors: { embedder, cache }, libraryVersions: versions, ocr: false }, { paths: [docs()] });
    expect(report.files).toBe(4);
    expect(report.skipped).toHaveLength(1);
    expect(report.skipped[0]?.file).toBe('odd.md');
    expect(report.skipped[0]?.reason).toMatch(/found by keyword and fault code, and the next ingest tries again/);
    expect(s.pendingVectorFiles().map((f) => f.file)).toEqual(['odd.md']);
    expect((await keywordSearch(s, 'gizmo bearing grease', 3))[0]?.chunk.file).toBe('odd.md');
    // The other manuals got their vectors.
    expect((await s.stats()).vectorsPending).toBe(s.getFile('odd.md')?.chunks);

    // "Finish now" (no paths): only the waiting vectors, with a model that can read the text.
    const finish = await ingest({ store: s, vectors: { embedder: base, cache }, libraryVersions: versions, ocr: false }, { paths: [], completeVectors: true });
    expect(finish).toMatchObject({ files: 0, unchanged: 0, skipped: [], embedded: s.getFile('odd.md')?.chunks });
    expect(s.pendingVectorFiles()).toEqual([]);
    // No paths without completeVectors is a mistake, as before.
    await expect(ingest({ store: s, vectors: { embedder: base, cache }, libraryVersions: versions, ocr: false }, { paths: [] })).rejects.toThrow(/No files or folders given/);
  });

  it('a file whose every passage is in the embedding cache gets its vectors at once (no second phase)', async () => {
    writeManuals(docs(), 2, 3);
    const { store: s, cache } = await open();
    const base = fakeEmbedder();
    await ingest({ store: s, vectors: { embedder: base, cache }, libraryVersions: versions, ocr: false }, { paths: [docs()] });
    let calls = 0;
    const counting = { ...base, embedDocuments: async (texts: string[]) => (calls++, base.embedDocuments(texts)) };
    const progress: IngestProgress[] = [];
    const report = await ingest(
      { store: s, vectors: { embedder: counting, cache }, libraryVersions: versions, ocr: false },
      { paths: [docs()], force: true },
      { onProgress: (p) => progress.push(p) },
    );
    expect(report.files).toBe(2);
    expect(calls).toBe(0);
    expect(progress.some((p) => p.phase === 'embed')).toBe(false);
    expect(s.pendingVectorFiles()).toEqual([]);
  });
});
