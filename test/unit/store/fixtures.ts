/** Test helpers: tiny chunks, file records, a deterministic fake embedder, temp library folders. */
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach } from 'vitest';
import type { Chunk, CodeRecord, FileRecord, Lang } from '../../../native/contract/document.js';
import { LibraryStore } from '../../../native/store/library-store.js';
import { analyze } from '../../../native/text/analyze.js';

export function tempDir(): { dir: string; cleanup: () => void } {
  const dir = mkdtempSync(path.join(tmpdir(), 'md-store-'));
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/**
 * A temp library folder for each test of the file that calls this (at its top level), and the store
 * opened in it, closed and removed after each test.
 */
export function storePerTest(): { open: (opts: Parameters<typeof LibraryStore.open>[1]) => Promise<LibraryStore> } {
  let dir = '';
  let cleanup = () => {};
  let store: LibraryStore | null = null;
  beforeEach(() => ({ dir, cleanup } = tempDir()));
  afterEach(async () => {
    await store?.close();
    store = null;
    cleanup();
  });
  return { open: async (opts) => (store = await LibraryStore.open(dir, opts)) };
}

export function sha(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

export function chunk(file: string, ordinal: number, text: string, over: Partial<Chunk> = {}): Chunk {
  const headingPath = over.headingPath ?? ['Troubleshooting'];
  return {
    id: sha(`${file}\0${ordinal}\0${sha(text)}`).slice(0, 24),
    file,
    page: null,
    headingPath,
    section: headingPath.join(' > '),
    text,
    kind: 'passage',
    lang: 'en',
    manual: 'Test Manual',
    contentHash: sha(text),
    chunkerVersion: 1,
    ordinal,
    ...over,
  };
}

export function record(file: string, over: Partial<FileRecord> & { title?: string; revision?: string | null; equipment?: string[]; lang?: Lang } = {}): FileRecord {
  const { title, revision, equipment, lang, ...rest } = over;
  const t = title ?? 'Test Manual';
  return {
    file,
    source: `/src/${file}`,
    sha256: sha(file),
    size: 100,
    mtimeMs: 0,
    format: 'markdown',
    meta: { title: t, equipment: equipment ?? [], revision: revision ?? null, language: lang ?? 'en', publisher: null },
    // Distinct manuals unless a title is given (files sharing a manualKey are revisions of one manual).
    manualKey: title ? title.toLowerCase() : file,
    chunks: 0,
    codes: 0,
    pagesWithoutText: [],
    generation: 1,
    ingestedAt: new Date().toISOString(),
    ...rest,
  };
}

export function code(file: string, c: string, title: string): CodeRecord {
  return {
    code: c,
    key: c.toLowerCase(),
    family: 'alarm',
    aliases: [],
    title,
    description: title,
    cause: '',
    remedy: '',
    severity: null,
    scope: [],
    lang: 'en',
    manual: 'Test Manual',
    file,
    page: null,
    section: 'Alarms',
    text: `${c} ${title}`,
  };
}

export const DIMS = 16;

/**
 * Hashed bag-of-words embedder over analyzed tokens; words listed in `synonyms` share an axis, so a
 * test can make a vector-only match that keyword search cannot find.
 */
export function fakeEmbedder(synonyms: Record<string, string> = {}) {
  const axis = (tok: string): number => {
    const t = synonyms[tok] ?? tok;
    let h = 2166136261;
    for (let i = 0; i < t.length; i++) h = Math.imul(h ^ t.charCodeAt(i), 16777619) >>> 0;
    return h % DIMS;
  };
  const embed = (text: string): Float32Array => {
    const v = new Float32Array(DIMS);
    for (const tok of analyze(text)) v[axis(tok)] = (v[axis(tok)] ?? 0) + 1;
    let n = 0;
    for (const x of v) n += x * x;
    n = Math.sqrt(n) || 1;
    return v.map((x) => x / n);
  };
  return {
    id: 'fake:bow16',
    dims: DIMS,
    embedDocuments: async (texts: string[]) => texts.map(embed),
    embedQuery: async (text: string) => embed(text),
    dispose: async () => undefined,
  };
}
