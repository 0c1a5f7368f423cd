/**
 * Switching a library to another embedding model (beginSwitch → attachSwitchVectors → completeSwitch):
 * the library keeps answering with its own model until the new one has every passage, never mixes
 * the two, and a crash at any step leaves one model's library or the other's.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { analyze } from '../../../native/text/analyze.js';
import { keywordSearch } from '../../../native/search/channels/keyword.js';
import { failpoints } from '../../../native/store/failpoints.js';
import { LibraryStore, SWITCH_FILE } from '../../../native/store/library-store.js';
import type { Chunk } from '../../../native/contract/document.js';
import { chunk, code, fakeEmbedder, record, tempDir } from './fixtures.js';

const modelA = fakeEmbedder();
const A = { id: modelA.id, dims: modelA.dims };

/** Another model: other dimensions, other vectors (a token's axis is its length and first letter). */
const modelB = (() => {
  const dims = 24;
  const embed = (text: string) => {
    const v = new Float32Array(dims);
    for (const t of analyze(text)) {
      const i = (t.length * 7 + t.charCodeAt(0)) % dims;
      v[i] = (v[i] ?? 0) + 1;
    }
    const n = Math.hypot(...v) || 1;
    return v.map((x) => x / n);
  };
  return { id: 'fake:len24', dims, embedDocuments: async (t: string[]) => t.map(embed), embedQuery: async (t: string) => embed(t) };
})();
const B = { id: modelB.id, dims: modelB.dims };
const C = { id: 'fake:other', dims: 8 };

const pump = [chunk('pump.md', 0, 'Bleed the hydraulic pump before the first start.'), chunk('pump.md', 1, 'Replace the pump seal kit.')];
const spindle = [chunk('spindle.md', 0, 'Grease the spindle bearing weekly.'), chunk('spindle.md', 1, 'Warm up the spindle for ten minutes.')];

let cleanup = () => {};
afterEach(() => {
  failpoints.afterAdd = false;
  failpoints.afterCommit = false;
  cleanup();
});

async function libraryWithA(): Promise<string> {
  const t = tempDir();
  cleanup = t.cleanup;
  const s = await LibraryStore.open(t.dir, { embedder: A, create: true });
  await s.replaceFiles([
    { record: record('pump.md'), chunks: pump, vectors: await modelA.embedDocuments(pump.map((c) => c.text)), codes: [code('pump.md', 'E-77', 'Pump seal leak')] },
    { record: record('spindle.md'), chunks: spindle, vectors: await modelA.embedDocuments(spindle.map((c) => c.text)), codes: [] },
  ]);
  await s.compact();
  await s.close();
  return t.dir;
}

/** Gives the switch the vectors of `files`, made with model B from the passages as stored. */
async function copy(s: LibraryStore, files: string[]): Promise<void> {
  const read = await s.fileChunks(files);
  await s.attachSwitchVectors(await Promise.all(files.map(async (file) => ({ file, vectors: await modelB.embedDocuments((read.get(file) ?? []).map((c: Chunk) => c.text)) }))));
}

const topFile = async (s: LibraryStore, q: Float32Array) => (await s.vectorSearch(q, 1))[0]?.chunk.file;

describe('a library switching to another embedding model', () => {
  it('answers with its own model until every passage has the new one, then with the new one only', async () => {
    const dir = await libraryWithA();
    const s = await LibraryStore.open(dir, { embedder: B, mayAdopt: true });
    try {
      expect(s.info).toMatchObject({ embedder: A, formatVersion: 1 });
      await s.beginSwitch(B);
      expect(s.switching).toEqual({ to: B, pending: 4, total: 4 });
      await copy(s, ['pump.md']);
      expect(s.switching?.pending).toBe(2);
      // Still model A's library: its vectors answer, the new model's table is not searched.
      expect(await topFile(s, await modelA.embedQuery('pump seal kit'))).toBe('pump.md');
      await expect(s.vectorSearch(await modelB.embedQuery('pump seal'), 3)).rejects.toThrow(/dimensions/);

      // A file changed meanwhile (written with model A) must be copied again; one removed is left out.
      const pump2 = [chunk('pump.md', 0, 'Bleed the hydraulic pump slowly.'), chunk('pump.md', 1, 'Replace the pump seal kit and the filter.')];
      await s.replaceFiles([{ record: record('pump.md'), chunks: pump2, vectors: await modelA.embedDocuments(pump2.map((c) => c.text)), codes: [] }]);
      expect(s.pendingSwitchFiles().map((f) => f.file).sort()).toEqual(['pump.md', 'spindle.md']);
      await expect(s.completeSwitch()).rejects.toThrow(/2 files still wait for vectors of "fake:len24"/);
      await copy(s, ['pump.md', 'spindle.md']);
      await s.removeFiles(['spindle.md']);
      expect(s.switching).toEqual({ to: B, pending: 0, total: 2 });

      await s.completeSwitch();
      expect(s.info).toMatchObject({ embedder: B, formatVersion: 2 });
      expect(s.switching).toBeNull();
      expect(existsSync(path.join(dir, SWITCH_FILE))).toBe(false);
      // Model B's vectors of the current text, and nothing of the removed file or the old text.
      const hits = await s.vectorSearch(await modelB.embedQuery('replace the pump seal kit and the filter'), 10);
      expect(hits.map((h) => h.chunk.text).sort()).toEqual(pump2.map((c) => c.text).sort());
      await expect(s.vectorSearch(await modelA.embedQuery('pump'), 3)).rejects.toThrow(/dimensions/);
      // Keyword search and codes as before.
      expect((await keywordSearch(s, 'filter', 1))[0]?.chunk).toEqual(pump2[1]);
      expect((await s.stats()).chunks).toBe(2);
      expect((await s.allCodes()).length).toBe(0);
    } finally {
      await s.close();
    }
    // Reopened: model B's library; model A is refused, and told how to switch back.
    const b = await LibraryStore.open(dir, { embedder: B });
    expect(b.info.embedder).toEqual(B);
    expect(await topFile(b, await modelB.embedQuery('pump seal kit filter'))).toBe('pump.md');
    await b.close();
    await expect(LibraryStore.open(dir, { embedder: A })).rejects.toThrow(/switch this library to that model: manualdesk ingest/);
  });

  it('a crash while copying keeps model A searchable, and the next run resumes where it was', async () => {
    const dir = await libraryWithA();
    const s = await LibraryStore.open(dir, { embedder: B, mayAdopt: true });
    await s.beginSwitch(B);
    await copy(s, ['pump.md']);
    failpoints.afterAdd = true;
    await expect(copy(s, ['spindle.md'])).rejects.toThrow(/failpoint/);
    failpoints.afterAdd = false;
    await s.close();

    // Model A's library, whole; a reader sees the switch under way.
    const reader = await LibraryStore.open(dir, { embedder: A, readOnly: true });
    expect(reader.info.embedder).toEqual(A);
    expect(reader.switching).toEqual({ to: B, pending: 2, total: 4 });
    expect(await topFile(reader, await modelA.embedQuery('grease spindle bearing'))).toBe('spindle.md');
    await reader.close();

    const again = await LibraryStore.open(dir, { embedder: B, mayAdopt: true });
    await again.beginSwitch(B);
    expect(again.pendingSwitchFiles().map((f) => f.file)).toEqual(['spindle.md']);
    await copy(again, ['spindle.md']);
    await again.completeSwitch();
    // The half-copied rows of the crash were replaced, not added to.
    expect((await again.vectorSearch(await modelB.embedQuery('spindle'), 10)).length).toBe(4);
    await again.close();
  });

  it('a crash before library.json names the new table leaves model A; one after it leaves model B, tidied on open', async () => {
    const dir = await libraryWithA();
    const s = await LibraryStore.open(dir, { embedder: B, mayAdopt: true });
    await s.beginSwitch(B);
    await copy(s, ['pump.md', 'spindle.md']);
    failpoints.afterAdd = true;
    await expect(s.completeSwitch()).rejects.toThrow(/failpoint/);
    failpoints.afterAdd = false;
    await s.close();
    const a = await LibraryStore.open(dir, { embedder: A });
    expect(a.info.embedder).toEqual(A);
    expect(await topFile(a, await modelA.embedQuery('pump seal kit'))).toBe('pump.md');
    await a.close();

    const b = await LibraryStore.open(dir, { embedder: B, mayAdopt: true });
    await b.beginSwitch(B);
    expect(b.pendingSwitchFiles()).toEqual([]);
    failpoints.afterCommit = true;
    await expect(b.completeSwitch()).rejects.toThrow(/failpoint/);
    failpoints.afterCommit = false;
    await b.close();
    const after = await LibraryStore.open(dir, { embedder: B });
    expect(after.info.embedder).toEqual(B);
    expect(after.switching).toBeNull();
    expect(existsSync(path.join(dir, SWITCH_FILE))).toBe(false);
    expect(await topFile(after, await modelB.embedQuery('grease spindle bearing weekly'))).toBe('spindle.md');
    expect((await after.stats()).chunks).toBe(4);
    await after.close();
  });

  it('a switch to a third model starts again; the library never takes a model it has or switches without one', async () => {
    const dir = await libraryWithA();
    const s = await LibraryStore.open(dir, { embedder: B, mayAdopt: true });
    try {
      await s.beginSwitch(A);
      expect(s.switching).toBeNull();
      await s.beginSwitch(B);
      await copy(s, ['pump.md']);
      await s.beginSwitch(C);
      expect(s.switching).toEqual({ to: C, pending: 4, total: 4 });
      await expect(copy(s, ['pump.md'])).rejects.toThrow(/24 dimensions; "fake:other" has 8/);
    } finally {
      await s.close();
    }
    const t = tempDir();
    const k = await LibraryStore.open(t.dir, { embedder: null, create: true });
    await expect(k.beginSwitch(B)).rejects.toThrow(/no embedding model to switch from/);
    await k.close();
    t.cleanup();
  });
});
