import { spawn } from 'node:child_process';
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import * as lancedb from '@lancedb/lancedb';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { keywordSearch } from '../../../native/search/channels/keyword.js';
import { EngineError } from '../../../native/contract/errors.js';
import { failpoints } from '../../../native/store/failpoints.js';
import { LANCE_DIR, LibraryStore, LIBRARY_FILE } from '../../../native/store/library-store.js';
import { LOCK_FILE } from '../../../native/store/lock.js';
import { chunk, code, fakeEmbedder, record, tempDir } from './fixtures.js';

let dir: string;
let cleanup: () => void;
const open: LibraryStore[] = [];

async function openStore(opts: Parameters<typeof LibraryStore.open>[1] = { embedder: null, create: true }) {
  const s = await LibraryStore.open(dir, opts);
  open.push(s);
  return s;
}

async function errorOf(p: Promise<unknown>): Promise<EngineError> {
  try {
    await p;
  } catch (err) {
    if (err instanceof EngineError) return err;
    throw err;
  }
  throw new Error('expected an EngineError');
}

function filesUnder(d: string): string[] {
  return readdirSync(d, { recursive: true, encoding: 'utf8' })
    .map((f) => path.join(d, f))
    .filter((f) => statSync(f).isFile());
}

beforeEach(() => {
  ({ dir, cleanup } = tempDir());
  failpoints.afterAdd = false;
  failpoints.afterCommit = false;
});

afterEach(async () => {
  failpoints.afterAdd = false;
  failpoints.afterCommit = false;
  for (const s of open.splice(0)) await s.close();
  cleanup();
});

const SPINDLE = 'Spindle overheating: check the coolant pump and clean the cooling fins.';
const HOMING = 'Homing fails when the limit switch wiring is broken. Check the endstop cable.';
const ZH = '主轴过热时，请检查冷却泵并清洁散热片。';

describe('LibraryStore.hasPassagesIn', () => {
  it('knows the languages of its passages from the file records, and assumes any where a record predates them', async () => {
    const s = await openStore();
    expect(s.hasPassagesIn('en')).toBe(false);
    await s.replaceFile(record('a.md', { langs: ['en'] }), [chunk('a.md', 0, SPINDLE)], null, []);
    expect(s.hasPassagesIn('en')).toBe(true);
    expect(s.hasPassagesIn('zh')).toBe(false);
    await s.replaceFile(record('b.md', { langs: ['zh'] }), [chunk('b.md', 0, ZH, { lang: 'zh' })], null, []);
    expect(s.hasPassagesIn('zh')).toBe(true);
    await s.removeFiles(['b.md']);
    expect(s.hasPassagesIn('zh')).toBe(false);
    // Written before languages were recorded: may hold any.
    await s.replaceFile(record('c.md'), [chunk('c.md', 0, HOMING)], null, []);
    expect(s.hasPassagesIn('zh')).toBe(true);
  });
});

describe('LibraryStore.languageCounts', () => {
  it('counts the passages of the selected files per language, and sees a write', async () => {
    const s = await openStore();
    await s.replaceFile(record('a/one.md', { langs: ['en', 'zh'] }), [chunk('a/one.md', 0, SPINDLE), chunk('a/one.md', 1, ZH, { lang: 'zh' })], null, []);
    await s.replaceFile(record('b/two.md', { langs: ['zh'] }), [chunk('b/two.md', 0, ZH, { lang: 'zh' })], null, []);
    expect(await s.languageCounts({ pathPrefix: 'a/' })).toEqual({ en: 1, zh: 1 });
    expect(await s.languageCounts({ pathPrefix: 'b/' })).toEqual({ zh: 1 });
    expect(await s.languageCounts({ pathPrefix: 'c/' })).toEqual({});
    await s.replaceFile(record('b/three.md', { langs: ['en'] }), [chunk('b/three.md', 0, HOMING)], null, []);
    expect(await s.languageCounts({ pathPrefix: 'b/' })).toEqual({ zh: 1, en: 1 });
  });

  it('reads the table once per version of the files, whichever folders and languages are asked next', async () => {
    const s = await openStore();
    await s.replaceFile(record('a/one.md', { langs: ['en', 'zh'] }), [chunk('a/one.md', 0, SPINDLE), chunk('a/one.md', 1, ZH, { lang: 'zh' })], null, []);
    await s.replaceFile(record('b/two.md', { langs: ['zh'] }), [chunk('b/two.md', 0, ZH, { lang: 'zh' })], null, []);
    expect(await s.languageCounts({ pathPrefix: 'a/' })).toEqual({ en: 1, zh: 1 });
    const table = Reflect.get(s, 'chunksTable') as { query: () => unknown };
    const reads = vi.spyOn(table, 'query');
    expect(await s.languageCounts({ pathPrefix: 'b/' })).toEqual({ zh: 1 });
    expect(await s.languageCounts({})).toEqual({ en: 1, zh: 2 });
    expect(await s.languageCounts({ lang: ['zh'] })).toEqual({ zh: 2 });
    expect(await s.languageCounts({ manuals: ['nothing'] })).toEqual({});
    expect(reads).not.toHaveBeenCalled();
    reads.mockRestore();
    // A write: read again.
    await s.replaceFile(record('a/one.md', { langs: ['en'] }), [chunk('a/one.md', 0, SPINDLE)], null, []);
    expect(await s.languageCounts({ pathPrefix: 'a/' })).toEqual({ en: 1 });
    expect(await s.languageCounts({})).toEqual({ en: 1, zh: 1 });
  });
});

describe('LibraryStore.findText (a quoted message as written)', () => {
  it('finds the passages that hold the words in order with only punctuation or spaces between, any case', async () => {
    const s = await openStore();
    const shown = 'After homing the display may show "Move out of range!" until the next move.';
    const spread = 'Move the carriage out of the way; the range of the axis is 300 mm.';
    await s.replaceFiles([{ record: record('a.md'), chunks: [chunk('a.md', 0, shown), chunk('a.md', 1, spread), chunk('a.md', 2, SPINDLE)], vectors: null, codes: [] }]);
    for (const typed of ['Move out of range', 'move, out of range', 'MOVE OUT OF RANGE!']) {
      expect((await s.findText(typed, 5)).map((h) => h.chunk.text)).toEqual([shown]);
    }
    expect(await s.findText('out of range move', 5)).toEqual([]);
    expect(await s.findText("' %_ '", 5)).toEqual([]);
    // Filters apply: a folder the passage is not in finds nothing.
    expect(await s.findText('Move out of range', 5, { pathPrefix: 'other/' })).toEqual([]);
    await s.close();
  });
});

describe('LibraryStore keyword search', () => {
  it('finds the right chunk, with BM25 scores, in English and Chinese', async () => {
    const s = await openStore();
    await s.replaceFiles([
      { record: record('a.md'), chunks: [chunk('a.md', 0, SPINDLE), chunk('a.md', 1, HOMING)], vectors: null, codes: [] },
      { record: record('zh.md', { title: '中文手册', lang: 'zh' }), chunks: [chunk('zh.md', 0, ZH, { lang: 'zh', manual: '中文手册' })], vectors: null, codes: [] },
    ]);
    const before = await keywordSearch(s, 'machine will not home', 5);
    expect(before[0]?.chunk.text).toBe(HOMING); // unindexed rows are searched too
    await s.compact();
    const hits = await keywordSearch(s, 'homing failure', 5);
    expect(hits[0]?.chunk.text).toBe(HOMING);
    expect(hits[0]?.score).toBeGreaterThan(0);
    const zh = await keywordSearch(s, '主轴过热怎么办', 5);
    expect(zh[0]?.chunk.file).toBe('zh.md');
    expect(await keywordSearch(s, 'zzzqqq', 5)).toEqual([]);
    expect(await keywordSearch(s, '   ', 5)).toEqual([]);
  });

  it('scores one-token clauses alike whether each is its own clause or they share one (fts-query merges them)', async () => {
    const s = await openStore();
    await s.replaceFiles([
      { record: record('a.md'), chunks: [chunk('a.md', 0, 'Set max_z_velocity and has_bit for the driver.'), chunk('a.md', 1, HOMING), chunk('a.md', 2, 'The has_bit pin of the watchdog.')], vectors: null, codes: [] },
    ]);
    await s.compact();
    const terms = ['maxzvelocity', 'hasbit', 'endstop'];
    const apart = await s.fullTextSearch(terms.map((t) => ({ terms: t, columns: ['fts'] as const, boost: 0.7, allTerms: true })), 10);
    const shared = await s.fullTextSearch([{ terms: terms.join(' '), columns: ['fts'] as const, boost: 0.7 }], 10);
    const byId = (r: typeof apart) => new Map(r.hits.map((h) => [h.chunk.id, h.score]));
    const a = byId(apart);
    const b = byId(shared);
    expect(a.size).toBe(3);
    expect([...b.keys()].sort()).toEqual([...a.keys()].sort());
    for (const [id, score] of a) expect(b.get(id)).toBeCloseTo(score, 4);
  });

  it('weights related text (a named code\'s definition) below the question but lets it decide ties', async () => {
    const s = await openStore();
    const PULLOFF = 'Homing pull-off distance: increase it when the switch does not clear.';
    const SPEED = 'Homing speed: lower it when the machine overshoots.';
    await s.replaceFile(record('a.md'), [chunk('a.md', 0, SPEED), chunk('a.md', 1, PULLOFF)], null, []);
    await s.compact();
    const plain = await keywordSearch(s, 'which homing setting', 5);
    expect(plain.map((h) => h.chunk.text)).toEqual(expect.arrayContaining([SPEED, PULLOFF]));
    const related = await keywordSearch(s, 'which homing setting', 5, undefined, { text: 'Pull off travel failed to clear limit switch.', boost: 0.5 });
    expect(related[0]?.chunk.text).toBe(PULLOFF);
  });

  it('orders equal scores the same way every time (by chunk id)', async () => {
    const s = await openStore();
    const same = 'Check the belt tension.';
    await s.replaceFile(record('a.md'), [0, 1, 2, 3, 4].map((i) => chunk('a.md', i, same)), null, []);
    await s.compact();
    const first = (await keywordSearch(s, 'belt tension', 3)).map((h) => h.chunk.id);
    const ids = [0, 1, 2, 3, 4].map((i) => chunk('a.md', i, same).id).sort();
    expect(first).toEqual(ids.slice(0, 3));
    for (let i = 0; i < 3; i++) expect((await keywordSearch(s, 'belt tension', 3)).map((h) => h.chunk.id)).toEqual(first);
  });

  it('orders a tie longer than the rows first fetched (reads on until the tie ends)', async () => {
    const s = await openStore();
    const same = 'Grease the guide rails.';
    const n = Array.from({ length: 40 }, (_, i) => i);
    await s.replaceFile(record('b.md'), n.map((i) => chunk('b.md', i, same)), null, []);
    await s.compact();
    const ids = n.map((i) => chunk('b.md', i, same).id).sort();
    expect((await keywordSearch(s, 'grease guide rails', 5)).map((h) => h.chunk.id)).toEqual(ids.slice(0, 5));
  });

  it('reaches an English manual from a Chinese question through the thesaurus', async () => {
    const s = await openStore();
    await s.replaceFile(record('a.md'), [chunk('a.md', 0, SPINDLE), chunk('a.md', 1, HOMING)], null, []);
    await s.compact();
    const hits = await keywordSearch(s, '回零失败', 5);
    expect(hits[0]?.chunk.text).toBe(HOMING);
  });

  it('matches fault codes written differently', async () => {
    const s = await openStore();
    await s.replaceFile(
      record('codes.md'),
      [chunk('codes.md', 0, 'ALARM:9 Homing fail. Limit switch not found.'), chunk('codes.md', 1, 'E-204 Motor driver overcurrent.')],
      null,
      [],
    );
    await s.compact();
    expect((await keywordSearch(s, 'alarm 9', 2))[0]?.chunk.ordinal).toBe(0);
    expect((await keywordSearch(s, 'E204', 2))[0]?.chunk.ordinal).toBe(1);
  });

  it('applies filters: manual, equipment, lang, path prefix, SQL quoting', async () => {
    const s = await openStore();
    await s.replaceFiles([
      { record: record("mill/o'brien.md", { title: 'Mill Guide', equipment: ['VF-2'] }), chunks: [chunk("mill/o'brien.md", 0, SPINDLE, { manual: 'Mill Guide' })], vectors: null, codes: [] },
      { record: record('printer/p.md', { title: 'Printer Guide', equipment: ['MK4'] }), chunks: [chunk('printer/p.md', 0, SPINDLE + ' printer', { manual: 'Printer Guide' })], vectors: null, codes: [] },
      { record: record('zh/z.md', { title: '中文手册', lang: 'zh' }), chunks: [chunk('zh/z.md', 0, ZH + ' spindle', { lang: 'zh' })], vectors: null, codes: [] },
    ]);
    await s.compact();
    const files = async (f: Parameters<typeof keywordSearch>[3]) =>
      (await keywordSearch(s, 'spindle', 10, f)).map((h) => h.chunk.file).sort();
    expect(await files({})).toEqual(["mill/o'brien.md", 'printer/p.md', 'zh/z.md']);
    expect(await files({ manuals: ['mill guide'] })).toEqual(["mill/o'brien.md"]);
    expect(await files({ equipment: ['mk4'] })).toEqual(['printer/p.md']);
    expect(await files({ lang: ['zh'] })).toEqual(['zh/z.md']);
    expect(await files({ pathPrefix: 'mill/' })).toEqual(["mill/o'brien.md"]);
    expect(await files({ pathPrefix: 'nowhere/' })).toEqual([]);
    expect((await s.getChunks([(await keywordSearch(s, 'spindle', 10, { pathPrefix: 'mill/' }))[0]!.chunk.id]))[0]?.file).toBe("mill/o'brien.md");
  });

  it('indexes the columns searches filter by (language, file), and the filters still find rows added after the indexes', async () => {
    const s = await openStore();
    await s.replaceFiles([
      { record: record('en/a.md'), chunks: [chunk('en/a.md', 0, SPINDLE)], vectors: null, codes: [] },
      { record: record('zh/z.md', { title: '中文手册', lang: 'zh' }), chunks: [chunk('zh/z.md', 0, ZH + ' spindle', { lang: 'zh' })], vectors: null, codes: [] },
    ]);
    await s.compact();
    const db = await lancedb.connect(path.join(dir, LANCE_DIR));
    const indexOf = async (column: string) => {
      const tbl = await db.openTable((await db.tableNames()).find((n) => n.startsWith('chunks')) as string);
      try {
        return (await tbl.listIndices()).find((i) => i.columns.join() === column);
      } finally {
        tbl.close();
      }
    };
    expect((await indexOf('lang'))?.indexType).toBe('Bitmap');
    expect((await indexOf('file'))?.indexType).toBe('BTree');
    const files = async (f: Parameters<typeof keywordSearch>[3]) => (await keywordSearch(s, 'spindle', 10, f)).map((h) => h.chunk.file).sort();
    expect(await files({ lang: ['zh'] })).toEqual(['zh/z.md']);
    // Added after the indexes were built: read unindexed until the next compact, then indexed.
    await s.replaceFiles([{ record: record('zh/y.md', { title: '主轴手册', lang: 'zh' }), chunks: [chunk('zh/y.md', 0, '主轴 spindle 冷却', { lang: 'zh' })], vectors: null, codes: [] }]);
    expect(await files({ lang: ['zh'] })).toEqual(['zh/y.md', 'zh/z.md']);
    expect(await files({ lang: ['en'] })).toEqual(['en/a.md']);
    expect(await files({ pathPrefix: 'zh/' })).toEqual(['zh/y.md', 'zh/z.md']);
    await s.compact();
    expect(await files({ lang: ['zh'] })).toEqual(['zh/y.md', 'zh/z.md']);
    expect(await files({ pathPrefix: 'zh/', lang: ['zh'] })).toEqual(['zh/y.md', 'zh/z.md']);
    expect(await files({ pathPrefix: 'en/' })).toEqual(['en/a.md']);
    // A removed file's rows leave both filters.
    await s.removeFiles(['zh/z.md']);
    expect(await files({ lang: ['zh'] })).toEqual(['zh/y.md']);
    expect(await files({ pathPrefix: 'zh/' })).toEqual(['zh/y.md']);
    expect((await indexOf('lang'))?.numUnindexedRows).toBe(0);
  });

  it('gives a library built before the filter indexes its indexes at the first writable open, not a read-only one', async () => {
    const s = await openStore();
    await s.replaceFiles([{ record: record('zh/z.md', { title: '中文手册', lang: 'zh' }), chunks: [chunk('zh/z.md', 0, ZH + ' spindle', { lang: 'zh' })], vectors: null, codes: [] }]);
    await s.compact();
    await s.close();
    const db = await lancedb.connect(path.join(dir, LANCE_DIR));
    const filterIndexes = async () => {
      const tbl = await db.openTable((await db.tableNames()).find((n) => n.startsWith('chunks')) as string);
      try {
        return (await tbl.listIndices()).filter((i) => ['lang', 'file'].includes(i.columns.join())).map((i) => i.columns.join()).sort();
      } finally {
        tbl.close();
      }
    };
    const old = await db.openTable((await db.tableNames()).find((n) => n.startsWith('chunks')) as string);
    for (const i of await old.listIndices()) if (['lang', 'file'].includes(i.columns.join())) await old.dropIndex(i.name);
    old.close();
    expect(await filterIndexes()).toEqual([]);
    const reader = await openStore({ embedder: null, readOnly: true });
    expect(await filterIndexes()).toEqual([]);
    expect((await keywordSearch(reader, 'spindle', 10, { lang: ['zh'] })).map((h) => h.chunk.file)).toEqual(['zh/z.md']);
    await reader.close();
    const writer = await openStore({ embedder: null });
    expect(await filterIndexes()).toEqual(['file', 'lang']);
    expect((await keywordSearch(writer, 'spindle', 10, { lang: ['zh'], pathPrefix: 'zh/' })).map((h) => h.chunk.file)).toEqual(['zh/z.md']);
  });

  it('answers from the newest revision of a manual unless asked otherwise', async () => {
    const s = await openStore();
    const r = (file: string, revision: string, ingestedAt: string) =>
      record(file, { title: 'Pump Manual', revision, ingestedAt });
    await s.replaceFiles([
      { record: r('pump-rev9.md', 'Rev 9', '2024-01-02T00:00:00Z'), chunks: [chunk('pump-rev9.md', 0, 'Pump seal leak: replace the seal.')], vectors: null, codes: [] },
      { record: r('pump-rev10.md', 'Rev 10', '2024-01-01T00:00:00Z'), chunks: [chunk('pump-rev10.md', 0, 'Pump seal leak: replace the seal kit.')], vectors: null, codes: [] },
    ]);
    await s.compact();
    const files = async (f?: Parameters<typeof keywordSearch>[3]) =>
      (await keywordSearch(s, 'seal leak', 10, f)).map((h) => h.chunk.file).sort();
    expect(await files()).toEqual(['pump-rev10.md']); // natural order: Rev 10 > Rev 9
    expect(await files({ allRevisions: true })).toEqual(['pump-rev10.md', 'pump-rev9.md']);
    expect(await files({ revision: 'rev 9' })).toEqual(['pump-rev9.md']);
  });
});

describe('LibraryStore vectors', () => {
  it('searches one language of few passages in memory, exactly as LanceDB does, and sees writes', async () => {
    const emb = fakeEmbedder();
    const s = await openStore({ embedder: { id: emb.id, dims: emb.dims }, create: true });
    const zh = ['主轴过热时，请检查冷却泵。', '更换液压油前先关闭电源。', '限位开关 触发 回零 失败', '润滑 导轨 每月一次'];
    const en = [SPINDLE, HOMING];
    await s.replaceFile(record('en.md', { langs: ['en'] }), en.map((t, i) => chunk('en.md', i, t)), await emb.embedDocuments(en), []);
    await s.replaceFile(record('zh.md', { langs: ['zh'] }), zh.map((t, i) => chunk('zh.md', i, t, { lang: 'zh' })), await emb.embedDocuments(zh), []);
    const lance = await openStore({ embedder: { id: emb.id, dims: emb.dims }, readOnly: true, inMemoryLanguageRows: 0 });
    const qv = await emb.embedQuery('回零 限位开关');
    const held = await s.vectorSearch(qv, 3, { lang: ['zh'] });
    const byLance = await lance.vectorSearch(qv, 3, { lang: ['zh'] });
    expect(held.map((h) => h.chunk.id)).toEqual(byLance.map((h) => h.chunk.id));
    held.forEach((h, i) => expect(h.score).toBeCloseTo(byLance[i]!.score, 5));
    expect(held[0]?.chunk).toEqual(byLance[0]?.chunk);
    expect(held.every((h) => h.chunk.lang === 'zh')).toBe(true);
    // Other filters apply as in LanceDB.
    expect(await s.vectorSearch(qv, 3, { lang: ['zh'], pathPrefix: 'en' })).toEqual([]);
    // A new passage is found at once; a replaced file's old passages are gone.
    await s.replaceFile(record('zh.md', { langs: ['zh'] }), [chunk('zh.md', 0, '回零 限位开关 说明', { lang: 'zh' })], await emb.embedDocuments(['回零 限位开关 说明']), []);
    const after = await s.vectorSearch(qv, 3, { lang: ['zh'] });
    expect(after.map((h) => h.chunk.text)).toEqual(['回零 限位开关 说明']);
  });

  it('finds the nearest chunk and refuses another embedder', async () => {
    const emb = fakeEmbedder();
    const s = await openStore({ embedder: { id: emb.id, dims: emb.dims }, create: true });
    const texts = [SPINDLE, HOMING, 'Lubricate the ball screws every month.'];
    const chunks = texts.map((t, i) => chunk('a.md', i, t));
    await s.replaceFile(record('a.md'), chunks, await emb.embedDocuments(texts), []);
    await s.compact();
    const qv = await emb.embedQuery('lubricate ball screws');
    const hits = await s.vectorSearch(qv, 2);
    expect(hits.length).toBe(2);
    expect(hits[0]?.chunk.ordinal).toBe(2);
    const dv = (await emb.embedDocuments([texts[2]!]))[0]!;
    const cosine = qv.reduce((acc, x, i) => acc + x * (dv[i] ?? 0), 0);
    expect(hits[0]?.score).toBeCloseTo(cosine, 5);
    await expect(s.replaceFile(record('b.md'), [chunk('b.md', 0, 'x')], null, [])).rejects.toMatchObject({ code: 'EMBEDDER_MISMATCH' });
    await s.close();

    const err = await errorOf(LibraryStore.open(dir, { embedder: { id: 'other-model', dims: 16 } }));
    expect(err.code).toBe('EMBEDDER_MISMATCH');
    expect(err.message).toContain('--library <new folder> --embedder');
    expect((await errorOf(LibraryStore.open(dir, { embedder: { id: emb.id, dims: 32 } }))).code).toBe('EMBEDDER_MISMATCH');
    // Keyword-only use of a vector library is allowed.
    const ro = await openStore({ embedder: null });
    expect((await keywordSearch(ro, 'ball screws', 1))[0]?.chunk.ordinal).toBe(2);
  });

  it('lets an empty library adopt an embedder, but not a keyword-only library with files', async () => {
    const s = await openStore({ embedder: null, create: true });
    await s.close();
    const adopted = await openStore({ embedder: { id: 'm', dims: 16 } });
    expect(adopted.info.embedder).toEqual({ id: 'm', dims: 16 });
    await adopted.close();
    const s2 = await openStore({ embedder: null });
    await expect(s2.replaceFile(record('a.md'), [chunk('a.md', 0, 'x')], null, [])).rejects.toMatchObject({ code: 'EMBEDDER_MISMATCH' });
  });
});

describe('LibraryStore lifetime', () => {
  it('refuses a missing library and a library from the future', async () => {
    expect((await errorOf(LibraryStore.open(path.join(dir, 'none'), { embedder: null }))).code).toBe('LIBRARY_NOT_FOUND');
    const s = await openStore();
    await s.close();
    await s.close(); // safe twice
    const meta = JSON.parse(readFileSync(path.join(dir, LIBRARY_FILE), 'utf8')) as Record<string, unknown>;
    writeFileSync(path.join(dir, LIBRARY_FILE), JSON.stringify({ ...meta, formatVersion: 99 }));
    expect((await errorOf(LibraryStore.open(dir, { embedder: null }))).code).toBe('LIBRARY_FORMAT_MISMATCH');
  });

  it('locks the library for one writer and takes over a stale lock', async () => {
    const s = await openStore();
    expect((await errorOf(LibraryStore.open(dir, { embedder: null }))).code).toBe('LIBRARY_LOCKED');
    const ro = await openStore({ embedder: null, readOnly: true });
    await expect(ro.removeFile('x')).rejects.toMatchObject({ code: 'LIBRARY_READ_ONLY' });
    await s.close();

    // A lock held by another live process.
    const child = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 30000)'], { stdio: 'ignore' });
    try {
      writeFileSync(path.join(dir, LOCK_FILE), JSON.stringify({ pid: child.pid, host: '', at: '' }));
      expect((await errorOf(LibraryStore.open(dir, { embedder: null }))).code).toBe('LIBRARY_LOCKED');
    } finally {
      child.kill();
    }
    await new Promise((r) => child.once('exit', r));
    // Its process is gone now: the lock is stale and taken over.
    const s2 = await openStore({ embedder: null });
    expect(JSON.parse(readFileSync(path.join(dir, LOCK_FILE), 'utf8')).pid).toBe(process.pid);
    await s2.close();
  });
});

describe('LibraryStore replace and remove', () => {
  it('replaces a file: the old text is no longer found', async () => {
    const s = await openStore();
    await s.replaceFile(record('a.md'), [chunk('a.md', 0, 'Old procedure: tighten the gib strip.')], null, [code('a.md', 'ALARM:1', 'Old alarm')]);
    await s.replaceFile(record('a.md'), [chunk('a.md', 0, 'New procedure: adjust the belt tension.')], null, [code('a.md', 'ALARM:2', 'New alarm')]);
    await s.compact();
    expect(await keywordSearch(s, 'gib strip', 5)).toEqual([]);
    expect((await keywordSearch(s, 'belt tension', 5))[0]?.chunk.text).toContain('New procedure');
    expect((await s.allCodes()).map((c) => c.code)).toEqual(['ALARM:2']);
    expect(s.getFile('a.md')?.generation).toBe(2);
    expect(await s.stats()).toEqual({ files: 1, chunks: 1, codes: 1, vectorsPending: 0 });
  });

  it('removes a file for real: not retrievable, old versions pruned, bytes gone', async () => {
    const s = await openStore();
    const secret = 'Quuxinator calibration secret procedure';
    await s.replaceFiles([
      { record: record('gone.md'), chunks: [chunk('gone.md', 0, secret)], vectors: null, codes: [code('gone.md', 'E-777', 'Quuxinator fault')] },
      { record: record('keep.md'), chunks: [chunk('keep.md', 0, HOMING)], vectors: null, codes: [] },
    ]);
    await s.compact();
    const id = (await keywordSearch(s, 'quuxinator', 1))[0]?.chunk.id;
    expect(id).toBeDefined();
    // The text is stored verbatim, so the byte check below can see it.
    expect(filesUnder(dir).some((f) => readFileSync(f).includes('Quuxinator'))).toBe(true);
    expect(await s.removeFile('gone.md')).toBe(true);
    expect(await s.removeFile('gone.md')).toBe(false);
    await s.compact();
    expect(await keywordSearch(s, 'quuxinator', 5)).toEqual([]);
    expect(await s.getChunks([id!])).toEqual([]);
    expect(await s.allCodes()).toEqual([]);
    expect(await s.versionCounts()).toEqual({ chunks: 1, codes: 1 });
    expect((await keywordSearch(s, 'endstop', 5))[0]?.chunk.file).toBe('keep.md');
    await s.close();
    const leaked = filesUnder(dir).filter((f) => readFileSync(f).includes('Quuxinator'));
    expect(leaked).toEqual([]);
  });

  it('survives an ingest killed after adding rows: old version answers, garbage removed', async () => {
    const s = await openStore();
    await s.replaceFile(record('a.md'), [chunk('a.md', 0, 'Old text about the gib strip.')], null, []);
    await s.compact();
    failpoints.afterAdd = true;
    await expect(s.replaceFile(record('a.md', { generation: 2 }), [chunk('a.md', 0, 'New text about belt tension.'), chunk('a.md', 1, 'More new text.')], null, [code('a.md', 'E1', 'x')])).rejects.toThrow('failpoint');
    failpoints.afterAdd = false;
    expect((await s.stats()).chunks).toBe(3); // garbage is on disk…
    expect(await keywordSearch(s, 'belt tension', 5)).toEqual([]); // …but never answers
    await s.close();

    const s2 = await openStore({ embedder: null });
    expect(await s2.stats()).toEqual({ files: 1, chunks: 1, codes: 0, vectorsPending: 0 });
    expect((await keywordSearch(s2, 'gib strip', 5))[0]?.chunk.text).toContain('Old text');
    expect(await keywordSearch(s2, 'belt tension', 5)).toEqual([]);
    expect(s2.getFile('a.md')?.generation).toBe(1);
  });

  it('a read-only reader of a killed run\'s library finds the committed version even when garbage outranks it', async () => {
    const s = await openStore();
    await s.replaceFile(record('a.md'), [chunk('a.md', 0, 'Adjust the gib strip screws.')], null, []);
    failpoints.afterAdd = true;
    const loud = Array.from({ length: 15 }, (_, i) => chunk('a.md', i, 'Gib strip, gib strip: gib strip wear and gib strip play.'));
    await expect(s.replaceFile(record('a.md', { generation: 2 }), loud, null, [])).rejects.toThrow('failpoint');
    failpoints.afterAdd = false;
    await s.close();
    const r = await openStore({ embedder: null, readOnly: true });
    expect((await r.stats()).chunks).toBe(16); // the garbage is still there (a reader deletes nothing)…
    const hits = await keywordSearch(r, 'gib strip', 1);
    expect(hits.map((h) => h.chunk.text)).toEqual(['Adjust the gib strip screws.']); // …and fenced out
  });

  it('survives an ingest killed after the commit: new version answers, old rows removed', async () => {
    const s = await openStore();
    await s.replaceFile(record('a.md'), [chunk('a.md', 0, 'Old text about the gib strip.')], null, []);
    failpoints.afterCommit = true;
    await expect(s.replaceFile(record('a.md', { generation: 2 }), [chunk('a.md', 0, 'New text about belt tension.')], null, [])).rejects.toThrow('failpoint');
    failpoints.afterCommit = false;
    expect(await keywordSearch(s, 'gib strip', 5)).toEqual([]);
    await s.close();
    const s2 = await openStore({ embedder: null });
    expect(await s2.stats()).toEqual({ files: 1, chunks: 1, codes: 0, vectorsPending: 0 });
    expect((await keywordSearch(s2, 'belt tension', 5))[0]?.chunk.text).toContain('New text');
  });

  it('never reuses a generation, even when the caller passes a stale one', async () => {
    const s = await openStore();
    await s.replaceFile(record('a.md', { generation: 5 }), [chunk('a.md', 0, 'first')], null, []);
    await s.replaceFile(record('a.md', { generation: 5 }), [chunk('a.md', 0, 'second')], null, []);
    expect(s.getFile('a.md')?.generation).toBe(6);
    expect((await s.getChunks([chunk('a.md', 0, 'second').id])).map((c) => c.text)).toEqual(['second']);
    expect(await s.getChunks([chunk('a.md', 0, 'first').id])).toEqual([]);
  });
});
