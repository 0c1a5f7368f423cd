/**
 * The library on disk: chunks and fault-code records in LanceDB, file records in files.json.
 *
 * Layout of a library folder:
 *   library.json   format version, chunker/analyzer versions, embedder {id, dims} (never mixed)
 *   files.json     committed file records: the commit point of every change (atomic rename), with its commit number
 *   commit.json    the same commit number and each file's generation, written after files.json: the
 *                  second witness that tells a lost or older files.json from a killed run's leftovers
 *   library.lock   pid of the one process that may write
 *   lance/         LanceDB tables `chunks` and `codes`; every row carries (file, generation)
 *
 * Crash safety: a file is replaced by adding rows of a new generation, then committing its record, then
 * deleting rows of other generations. Readers only trust rows whose (file, generation) is committed, and
 * opening for writing deletes any other rows, so a process killed at any point leaves a library that
 * answers with either the old or the new version of each file. files.json is never the only proof that
 * rows exist: one found missing, damaged or older than commit.json is rebuilt from the rows first
 * (commit-record.ts), so the clean-up never takes a lost file list for "delete everything".
 */
import './lance-env.js';
import * as lancedb from '@lancedb/lancedb';
import { existsSync, statSync } from 'node:fs';
import { copyFile, mkdir, rm } from 'node:fs/promises';
import path from 'node:path';
import type { SearchFilters } from '../contract/api.js';
import type { Chunk, CodeRecord, FileRecord, Lang } from '../contract/document.js';
import { EngineError } from '../contract/errors.js';
import { closedError, NEW_LIBRARY_HINT, switchModelHint } from '../contract/messages.js';
import { ANALYZER_VERSION, MAX_TOKEN_LENGTH } from '../text/analyze.js';
import { CHUNKER_VERSION } from '../chunk/index.js';
import { readJson, writeJsonAtomic } from './atomic-json.js';
import { COMMIT_FILE, commitRecordOf, filesJsonDoubt, readCommitRecord, readFilesJson, rebuildRecords, tallyRows, type CommitRecord, type FilesJsonRead } from './commit-record.js';
import { failpoints } from './failpoints.js';
import { isLanceReadError, LibraryDamagedError } from './lance-errors.js';
import { allowedFiles, sqlIn, sqlString, whereClause } from './filters.js';
import { LibraryLock } from './lock.js';
import { countTerms, docSets, labelSets, SPREAD_CACHE_TERMS, termSpread } from './vocabulary.js';
import { CHUNK_COLUMNS, chunkToRow, codeToRow, rowToChunk, rowToCode, rowWithVector, type ChunkRow, type CodeRow } from './rows.js';
import type { FtsPlan, LibraryMeta, ScoredChunk, StoreStats } from './types.js';

/** Version of the on-disk layout; a library written by a newer ManualDesk is refused. */
export const LIBRARY_FORMAT_VERSION = 2;
/**
 * The layout a library is created with. Format 2 only adds library.json's `chunksTable` (a library
 * that switched models keeps its passages in another table), so a library without one stays
 * readable by ManualDesk versions that know format 1 only.
 */
const CREATED_FORMAT_VERSION = 1;
export const LIBRARY_FILE = 'library.json';
export const FILES_FILE = 'files.json';
export const LANCE_DIR = 'lance';
/** A model switch in progress: the model, its passages' table, and which file versions it holds. */
export const SWITCH_FILE = 'switch.json';
const CHUNKS = 'chunks';
const CODES = 'codes';
/** Below this many vectors, brute force is exact and fast enough; above, an HNSW index is built. */
export const DEFAULT_VECTOR_INDEX_THRESHOLD = 10_000;
/** HNSW search breadth (candidates explored) for a vector search over the index; see vectorSearch. */
const VECTOR_EF = 400;
/**
 * A vector search restricted to one language (hybrid search's look at the other language) makes
 * LanceDB build a mask over every row first: ~7 ms on 17k rows, as long as the whole search. A
 * language with at most this many passages is kept in memory (vectors and rows: ~2.5 KB each) and
 * scanned exactly instead (well under a millisecond for a few thousand).
 */
export const IN_MEMORY_LANGUAGE_ROWS = 6_000;
/** Rows per LanceDB add (bounds memory of one write). */
const ADD_BATCH = 20_000;
/** Predicates per delete statement. */
const DELETE_BATCH = 200;
/**
 * Reads again on the tables' latest version after a failed read: a writer's compaction prunes the
 * version a read was on (in this process or another), and each retry reads the version it left. A
 * table that fails this many times more is damaged.
 */
const READ_RETRIES = 3;

/** files.json's size, change time and inode: a writer's commit (an atomic rename) changes it. */
function filesStamp(dir: string): string {
  const st = statSync(path.join(dir, FILES_FILE), { throwIfNoEntry: false });
  return st ? `${st.size}:${st.mtimeMs}:${st.ino}` : '';
}

/** Versions above this are not a newer ManualDesk's but a damaged library.json (formats grow by one a release at most). */
const PLAUSIBLE_VERSION = 1000;

/**
 * Refuses a library.json that is not a library's description (damaged, or some other file: not an
 * object, versions that are not whole numbers or absurdly high, an embedder without id or dimensions),
 * and a library written by a newer ManualDesk: a newer layout, or text chunked or analyzed by newer
 * rules (searching it would analyze queries differently from its index; re-indexing it would write it
 * down to older rules). Older versions are fine: ingest re-indexes them.
 */
export function assertLibraryVersions(meta: unknown, dir: string): asserts meta is LibraryMeta {
  const damaged = (what: string) =>
    new EngineError(
      'LIBRARY_FORMAT_MISMATCH',
      `The library at ${dir} has a damaged ${LIBRARY_FILE} (${what}); it does not describe a ManualDesk library. Nothing was changed. ` +
        `Restore ${LIBRARY_FILE} (or the whole library folder) from a backup, or re-index the manuals into a new library folder: manualdesk ingest <your manual folders> --library <new folder>.`,
    );
  const newer = (what: string, have: unknown, max: number) =>
    new EngineError(
      'LIBRARY_FORMAT_MISMATCH',
      `The library at ${dir} was written by a newer ManualDesk (${what} ${String(have)}; this version handles ${what} ${max} and older). ` +
        `Nothing was changed. Open it with the ManualDesk version that wrote it or a newer one (update ManualDesk), or re-index the manuals into a new library folder with this version.`,
    );
  if (typeof meta !== 'object' || meta === null || Array.isArray(meta)) throw damaged(`it holds ${Array.isArray(meta) ? 'a list' : String(JSON.stringify(meta)).slice(0, 40)}, not a library's settings`);
  const m = meta as Record<string, unknown>;
  const version = (key: string, label: string, required: boolean): number | undefined => {
    const v = m[key];
    if (v === undefined && !required) return undefined;
    if (typeof v !== 'number' || !Number.isInteger(v) || v < 1 || v > PLAUSIBLE_VERSION) throw damaged(`its ${label} is ${v === undefined ? 'missing' : JSON.stringify(v).slice(0, 40)}, not a version number`);
    return v;
  };
  const format = version('formatVersion', 'format version', true) as number;
  const chunker = version('chunkerVersion', 'chunker version', false);
  const analyzer = version('analyzerVersion', 'analyzer version', false);
  const emb = m.embedder as { id?: unknown; dims?: unknown } | null | undefined;
  if (emb !== undefined && emb !== null) {
    const dimsOk = typeof emb === 'object' && typeof emb.dims === 'number' && Number.isInteger(emb.dims) && emb.dims > 0 && emb.dims <= 65_536;
    if (typeof emb !== 'object' || typeof emb.id !== 'string' || emb.id === '' || !dimsOk) throw damaged('its embedding model has no valid name or size');
  }
  if (m.chunksTable !== undefined && (typeof m.chunksTable !== 'string' || !/^[\w-]+$/.test(m.chunksTable))) throw damaged('its passages table name is not one');
  if (format > LIBRARY_FORMAT_VERSION) throw newer('format', format, LIBRARY_FORMAT_VERSION);
  if (chunker !== undefined && chunker > CHUNKER_VERSION) throw newer('chunker version', chunker, CHUNKER_VERSION);
  if (analyzer !== undefined && analyzer > ANALYZER_VERSION) throw newer('analyzer version', analyzer, ANALYZER_VERSION);
}

export interface EmbedderIdentity {
  id: string;
  dims: number;
}

export interface OpenOptions {
  /** The embedder the caller will use; null for keyword-only. */
  embedder: EmbedderIdentity | null;
  /** Create the library when the folder has none. */
  create?: boolean;
  /** Open without the write lock; writes are refused and no clean-up is done. */
  readOnly?: boolean;
  /** Recorded in library.json when the library is created (default 1). */
  chunkerVersion?: number;
  vectorIndexThreshold?: number;
  /** Most passages of one language held in memory for a vector search in that language (default IN_MEMORY_LANGUAGE_ROWS; 0: never). */
  inMemoryLanguageRows?: number;
  /**
   * A library with files, given an embedder it does not have: open it without vector search instead
   * of refusing, so that adoptEmbedder() (a keyword-only library) or a model switch (beginSwitch, a
   * library with another model) can give it that model: ingest --embedder.
   */
  mayAdopt?: boolean;
}

/** The passages of one language held in memory, each with its row's generation, vector and vector norm. */
interface HeldPassages {
  chunks: Chunk[];
  generations: number[];
  vectors: Float32Array[];
  norms: number[];
}

/** The cached promise for a key, made on first use; a failed one is dropped so the next call retries. */
function memoised<T>(cache: Map<string, Promise<T>>, key: string, make: () => Promise<T>): Promise<T> {
  let p = cache.get(key);
  if (!p) {
    const made = make();
    cache.set(key, made);
    made.catch(() => cache.get(key) === made && cache.delete(key));
    p = made;
  }
  return p;
}

function dot(a: Float32Array, b: Float32Array): number {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += (a[i] as number) * (b[i] as number);
  return s;
}

/** One file's new content for {@link LibraryStore.replaceFiles}. */
export interface FileUpdate {
  record: FileRecord;
  chunks: Chunk[];
  /**
   * One vector per chunk when the library has an embedder; null otherwise, or when the record says
   * its vectors are pending (they are added later by {@link LibraryStore.attachVectors}).
   */
  vectors: Float32Array[] | null;
  codes: CodeRecord[];
}

/** The vectors of a file whose vectors were pending, one per committed passage in ordinal order. */
export interface FileVectors {
  file: string;
  vectors: Float32Array[];
}

/**
 * switch.json: the library is moving to another embedding model. Its passages are copied, with the
 * new model's vectors, into `table`; `copied` names the version (generation) of each file copied.
 * The library keeps searching its own table with its own model until {@link LibraryStore.completeSwitch}.
 */
interface SwitchState {
  to: EmbedderIdentity;
  table: string;
  copied: Record<string, number>;
}

/** Where a model switch stands (LibraryStore.switching). */
export interface SwitchProgress {
  to: EmbedderIdentity;
  /** Passages of the library still to be embedded with the new model. */
  pending: number;
  total: number;
}

interface FilesJson {
  formatVersion: number;
  /** The commit number (commit-record.ts); absent in libraries written before it. */
  commit?: number;
  files: FileRecord[];
}

export class LibraryStore {
  private files: Map<string, FileRecord>;
  private revision = 0;
  /** The files' labels by documentation set, and the sets, as of a files revision (termSpread). */
  private labelIndex: { revision: number; labels: Map<string, Set<string>>; docSets: string[]; spread: Map<string, number> } | null = null;
  private chunksTable: lancedb.Table | null;
  private codesTable: lancedb.Table | null;
  private closed = false;
  private writeChain: Promise<unknown> = Promise.resolve();
  /** Read-only: the predicate that keeps a killed run's uncommitted rows out of searches (null: none). */
  private garbageFence: string | null = null;
  /** Highest generation written per file in this session (including uncommitted attempts). */
  private readonly usedGenerations = new Map<string, number>();
  private vectorIndexed = false;
  /** The number of the last commit of files.json (commit-record.ts). */
  private commitNumber = 0;
  /** Why the file records were rebuilt from the tables at open (files.json missing, damaged or older); null: they were not. */
  private rebuilt: string | null = null;
  /** The table the committed passages are in (library.json `chunksTable`; 'chunks' by default). */
  private chunksName: string;
  private switchState: SwitchState | null = null;
  private switchTable: lancedb.Table | null = null;
  private readonly heldLanguages = new Map<string, Promise<HeldPassages | null>>();
  /** Committed passages per file and language (languageCounts sums them), until the next write. */
  private fileLangs: Promise<Map<string, Record<string, number>>> | null = null;
  /** Read-only: files.json as last read (filesStamp); another stamp means a writer committed since. */
  private filesSeen = '';
  /** Read-only: the reload of a writer's commit under way, shared by the reads that wait for it. */
  private following: Promise<void> | null = null;
  /** Why the tables cannot be read (LIBRARY_DAMAGED); every write is refused with it. */
  private damage: EngineError | null = null;
  /** Every data file of the tables was read once in this session (checkReadable). */
  private readable = false;

  private constructor(
    readonly dir: string,
    private meta: LibraryMeta,
    files: FileRecord[],
    private readonly db: lancedb.Connection,
    chunksTable: lancedb.Table | null,
    codesTable: lancedb.Table | null,
    private readonly lock: LibraryLock | null,
    private readonly opts: OpenOptions,
  ) {
    this.files = new Map(files.map((f) => [f.file, f]));
    this.chunksName = meta.chunksTable ?? CHUNKS;
    this.chunksTable = chunksTable;
    this.codesTable = codesTable;
  }

  static async open(dir: string, opts: OpenOptions): Promise<LibraryStore> {
    const libFile = path.join(dir, LIBRARY_FILE);
    if (!existsSync(libFile)) {
      if (!opts.create) {
        throw new EngineError(
          'LIBRARY_NOT_FOUND',
          `No ManualDesk library at ${dir}. Create one with \`manualdesk ingest <folder>\` or choose another library folder.`,
        );
      }
      if (opts.readOnly) throw new EngineError('LIBRARY_READ_ONLY', 'A library cannot be created read-only.');
      await mkdir(dir, { recursive: true });
    }
    const lock = opts.readOnly ? null : LibraryLock.acquire(dir);
    try {
      let meta = (await readJson(libFile)) as LibraryMeta | undefined;
      const created = meta === undefined;
      if (meta === undefined) {
        meta = {
          formatVersion: CREATED_FORMAT_VERSION,
          chunkerVersion: opts.chunkerVersion ?? 1,
          analyzerVersion: ANALYZER_VERSION,
          embedder: opts.embedder ? { id: opts.embedder.id, dims: opts.embedder.dims } : null,
          createdAt: new Date().toISOString(),
        };
        await writeJsonAtomic(libFile, meta);
      }
      assertLibraryVersions(meta, dir);
      if (created) await writeJsonAtomic(path.join(dir, COMMIT_FILE), commitRecordOf(0, []));
      // Taken before files.json is read: a commit after the read shows as a change (followWriter).
      const stamp = filesStamp(dir);
      // The witness first: a writer commits files.json before it, so files.json read after it is never older.
      const witness = await readCommitRecord(dir);
      const filesJson = await readFilesJson(path.join(dir, FILES_FILE));
      const db = await lancedb.connect(path.join(dir, LANCE_DIR));
      const names = new Set(await db.tableNames());
      const chunksName = meta.chunksTable ?? CHUNKS;
      const chunks = names.has(chunksName) ? await db.openTable(chunksName) : null;
      const codes = names.has(CODES) ? await db.openTable(CODES) : null;
      const store = new LibraryStore(dir, meta, filesJson.files, db, chunks, codes, lock, opts);
      store.commitNumber = Math.max(filesJson.commit, witness?.commit ?? 0);
      try {
        await store.checkRecords(filesJson, witness);
        await store.checkEmbedder(opts.embedder);
        // A writer deletes what a killed run left; a reader cannot, so it fences those rows out of every search.
        if (!opts.readOnly) {
          await store.collectGarbage();
          await store.undoHalfAdoption();
          await store.tidySwitch(names);
          await store.addFilterIndexes();
        } else {
          store.filesSeen = stamp;
          store.garbageFence = await store.uncommittedPredicate();
          store.switchState = await store.liveSwitch();
        }
        store.vectorIndexed = await store.hasVectorIndex();
      } catch (err) {
        await store.close();
        throw err;
      }
      return store;
    } catch (err) {
      lock?.release();
      throw err;
    }
  }

  /**
   * Records that every file was re-chunked and re-indexed with these versions (after a full
   * re-ingest); until then ingest treats the library's text as stale.
   */
  async setIndexVersions(v: { chunkerVersion: number; analyzerVersion: number }): Promise<void> {
    this.ensureOpen();
    if (this.opts.readOnly) throw new EngineError('LIBRARY_READ_ONLY', 'The library is open read-only.');
    this.meta = { ...this.meta, chunkerVersion: v.chunkerVersion, analyzerVersion: v.analyzerVersion };
    await writeJsonAtomic(path.join(this.dir, LIBRARY_FILE), this.meta);
  }

  /** library.json as recorded. */
  get info(): LibraryMeta {
    return { ...this.meta, embedder: this.meta.embedder ? { ...this.meta.embedder } : null };
  }

  get hasVectors(): boolean {
    return this.meta.embedder !== null;
  }

  /** True when vector searches go through the HNSW index (built by compact() on a big enough library). */
  get vectorIndexBuilt(): boolean {
    return this.vectorIndexed;
  }

  /** Committed files whose passages wait for their vectors (searchable by keyword and code meanwhile). */
  pendingVectorFiles(): FileRecord[] {
    if (!this.meta.embedder) return [];
    return [...this.files.values()].filter((f) => f.vectorsPending === true);
  }

  /**
   * Gives a keyword-only library an embedding model: every file with passages is marked as waiting for
   * vectors, the chunks table gets a vector column of placeholders, then library.json records the
   * model. Until its vectors are attached a file is found by keyword and code, as before. A crash
   * before library.json is written leaves a keyword-only library; the next writer undoes the rest.
   */
  async adoptEmbedder(embedder: EmbedderIdentity): Promise<void> {
    await this.exclusive(async () => {
      this.ensureWritable();
      await this.checkReadable();
      if (this.meta.embedder) {
        if (this.meta.embedder.id === embedder.id && this.meta.embedder.dims === embedder.dims) return;
        throw new EngineError('EMBEDDER_MISMATCH', `The library at ${this.dir} already uses "${this.meta.embedder.id}"; ${NEW_LIBRARY_HINT}.`);
      }
      await this.writeFiles(new Map([...this.files].map(([k, r]) => [k, r.chunks > 0 ? { ...r, vectorsPending: true } : r] as const)));
      // The marks come first: a library without them never has this column (see undoHalfAdoption).
      const tbl = this.chunksTable;
      if (tbl) {
        const zeros = new Array<string>(embedder.dims).fill('0.0').join(',');
        await tbl.addColumns([{ name: 'vector', valueSql: `arrow_cast(make_array(${zeros}), 'FixedSizeList(${embedder.dims}, Float32)')` }]);
      }
      if (failpoints.afterAdd) throw new Error('failpoint: afterAdd');
      this.meta = { ...this.meta, embedder: { id: embedder.id, dims: embedder.dims } };
      await writeJsonAtomic(path.join(this.dir, LIBRARY_FILE), this.meta);
    });
  }

  /**
   * A keyword-only library that an adoption left half done (killed before library.json): back to
   * keyword-only. Adoption marks the files before it adds the column, and this drops the column before
   * it clears the marks, so a library without marks needs no look at its schema (every open).
   */
  private async undoHalfAdoption(): Promise<void> {
    if (this.meta.embedder || ![...this.files.values()].some((f) => f.vectorsPending)) return;
    if (this.chunksTable && (await hasColumn(this.chunksTable, 'vector'))) await this.chunksTable.dropColumns(['vector']);
    await this.writeFiles(new Map([...this.files].map(([k, { vectorsPending: _mark, ...r }]) => [k, r] as const)));
  }

  /**
   * Another embedding model, for a library that has one: the first step of switching models. The
   * library goes on answering with its own table and model; the passages are copied, with vectors of
   * `to`, into a table of their own (attachSwitchVectors), and completeSwitch() makes that table the
   * library's in one write of library.json. Resumes a switch to the same model; a switch to another
   * model is started again.
   */
  async beginSwitch(to: EmbedderIdentity): Promise<void> {
    await this.exclusive(async () => {
      this.ensureWritable();
      const have = this.meta.embedder;
      if (!have) throw new EngineError('INVALID_INPUT', 'This library has no embedding model to switch from; give it one with ingest --embedder.');
      if (have.id === to.id && have.dims === to.dims) return;
      const st = this.switchState;
      if (st && st.to.id === to.id && st.to.dims === to.dims) return;
      await this.dropSwitch();
      const state: SwitchState = { to: { id: to.id, dims: to.dims }, table: `${CHUNKS}_${Date.now().toString(36)}`, copied: {} };
      await writeJsonAtomic(path.join(this.dir, SWITCH_FILE), state);
      this.switchState = state;
    });
  }

  /** Where a model switch stands; null when none is under way. */
  get switching(): SwitchProgress | null {
    const st = this.switchState;
    if (!st) return null;
    let total = 0;
    for (const f of this.files.values()) total += f.chunks;
    return { to: { ...st.to }, pending: this.pendingSwitchFiles().reduce((n, f) => n + f.chunks, 0), total };
  }

  /** Committed files with passages whose current version the switch's table does not hold yet. */
  pendingSwitchFiles(): FileRecord[] {
    const st = this.switchState;
    if (!st) return [];
    return [...this.files.values()].filter((f) => f.chunks > 0 && st.copied[f.file] !== f.generation);
  }

  /**
   * Copies files' committed passages, each with its vector of the switch's model, into the switch's
   * table, then records their versions as copied. A crash between the two leaves rows the next copy
   * of the file replaces.
   */
  async attachSwitchVectors(items: FileVectors[]): Promise<void> {
    await this.exclusive(async () => {
      this.ensureWritable();
      await this.checkReadable();
      const st = this.switchState;
      if (!st) throw new EngineError('INVALID_INPUT', 'No model switch is under way.');
      const records = items.map(({ file }) => {
        const rec = this.files.get(file);
        if (!rec) throw new EngineError('INVALID_INPUT', `${file} is not in the library.`);
        return rec;
      });
      const byFile = await this.fileRows(records);
      const rows: ChunkRow[] = [];
      for (const [i, rec] of records.entries()) {
        const { vectors } = items[i] as FileVectors;
        const stored = byFile.get(rec.file) ?? [];
        if (stored.length !== vectors.length) throw new EngineError('INVALID_INPUT', `${rec.file}: ${stored.length} passages but ${vectors.length} vectors.`);
        for (const v of vectors) {
          if (v.length !== st.to.dims) throw new EngineError('EMBEDDER_MISMATCH', `${rec.file}: a vector has ${v.length} dimensions; "${st.to.id}" has ${st.to.dims}.`);
        }
        stored.forEach((r, k) => rows.push(rowWithVector(r, vectors[k] as Float32Array)));
      }
      const files = records.map((r) => r.file);
      if (this.switchTable) {
        for (let i = 0; i < files.length; i += DELETE_BATCH) await this.switchTable.delete(sqlIn('file', files.slice(i, i + DELETE_BATCH)));
      }
      for (let i = 0; i < rows.length; i += ADD_BATCH) {
        const batch = rows.slice(i, i + ADD_BATCH) as unknown as Record<string, unknown>[];
        if (this.switchTable) await this.switchTable.add(batch);
        else this.switchTable = await this.db.createTable(st.table, batch);
      }
      if (failpoints.afterAdd) throw new Error('failpoint: afterAdd');
      const next: SwitchState = { ...st, copied: { ...st.copied, ...Object.fromEntries(records.map((r) => [r.file, r.generation])) } };
      await writeJsonAtomic(path.join(this.dir, SWITCH_FILE), next);
      this.switchState = next;
    });
  }

  /**
   * Ends a switch whose table holds every file's current version: drops the rows of files removed
   * or changed since they were copied, indexes the table for keyword search, then makes it the
   * library's, with its model, in one write of library.json (the commit point). The old table is
   * dropped after; a crash before that leaves it to the next open.
   */
  async completeSwitch(): Promise<void> {
    await this.exclusive(async () => {
      this.ensureWritable();
      const st = this.switchState;
      if (!st) throw new EngineError('INVALID_INPUT', 'No model switch is under way.');
      const left = this.pendingSwitchFiles();
      if (left.length > 0) throw new EngineError('INVALID_INPUT', `${left.length} files still wait for vectors of "${st.to.id}".`);
      const tbl = this.switchTable;
      if (tbl) {
        await this.deleteUncommitted(tbl, await this.uncommittedRows(tbl, 'chunks'));
        if ((await tbl.countRows()) > 0) await this.createTextIndexes(tbl, new Set((await tbl.listIndices()).map((i) => i.columns.join(','))));
      }
      if (failpoints.afterAdd) throw new Error('failpoint: afterAdd');
      const old = this.chunksTable;
      const oldName = this.chunksName;
      this.meta = { ...this.meta, formatVersion: LIBRARY_FORMAT_VERSION, embedder: { ...st.to }, chunksTable: st.table };
      await writeJsonAtomic(path.join(this.dir, LIBRARY_FILE), this.meta);
      if (failpoints.afterCommit) throw new Error('failpoint: afterCommit');
      this.chunksTable = tbl;
      this.chunksName = st.table;
      this.switchTable = null;
      this.switchState = null;
      // Every passage has a vector of the new model: no file waits for one.
      await this.writeFiles(new Map([...this.files].map(([k, { vectorsPending: _done, ...r }]) => [k, r] as const)));
      this.vectorIndexed = await this.hasVectorIndex();
      old?.close();
      await this.db.dropTable(oldName).catch(() => undefined);
      await rm(path.join(this.dir, SWITCH_FILE), { force: true });
    });
  }

  /**
   * On a writer's open: what a finished, abandoned or killed switch left. A switch whose table became
   * the library's (killed before its clean-up) or whose model the library already has is over; tables
   * that are neither the library's nor a live switch's are dropped.
   */
  private async tidySwitch(names: Set<string>): Promise<void> {
    const st = await this.liveSwitch();
    if (!st && existsSync(path.join(this.dir, SWITCH_FILE))) await rm(path.join(this.dir, SWITCH_FILE), { force: true });
    for (const name of names) {
      const passages = name === CHUNKS || name.startsWith(`${CHUNKS}_`);
      if (passages && name !== this.chunksName && name !== st?.table) await this.db.dropTable(name);
    }
    if (!st) return;
    this.switchState = st;
    this.switchTable = names.has(st.table) ? await this.db.openTable(st.table) : null;
  }

  /** switch.json when it describes a switch still under way (not finished, to another model). */
  private async liveSwitch(): Promise<SwitchState | null> {
    const st = (await readJson(path.join(this.dir, SWITCH_FILE)).catch(() => undefined)) as SwitchState | undefined;
    const have = this.meta.embedder;
    if (!st || !have || typeof st.copied !== 'object' || typeof st.table !== 'string' || !st.to) return null;
    if (st.table === this.chunksName || (st.to.id === have.id && st.to.dims === have.dims)) return null;
    return st;
  }

  /** Gives up the switch under way (its table and switch.json). */
  private async dropSwitch(): Promise<void> {
    const st = this.switchState;
    if (!st) return;
    this.switchTable?.close();
    this.switchTable = null;
    if ((await this.db.tableNames()).includes(st.table)) await this.db.dropTable(st.table);
    await rm(path.join(this.dir, SWITCH_FILE), { force: true });
    this.switchState = null;
  }

  /** True when some file has passages in this language (or, recorded before languages were, may have). */
  hasPassagesIn(lang: Lang): boolean {
    for (const f of this.files.values()) if (f.chunks > 0 && (f.langs === undefined || f.langs.includes(lang))) return true;
    return false;
  }

  /**
   * How many committed passages of the files these filters select are in each language: whether a
   * product's manuals are written in the question's language at all. Summed from the per-file counts
   * (fileLanguages), which are kept until the next write.
   */
  languageCounts(filters: SearchFilters): Promise<Record<string, number>> {
    this.ensureOpen();
    // Within a read: a reader first takes up a writer's commit, then selects the files.
    return this.reading(async () => {
      const perFile = await this.fileLanguages();
      return sumLanguages(perFile, allowedFiles(this.files, filters), filters.lang);
    });
  }

  /**
   * The committed passages of each file per language, read in one pass of the table and kept until the
   * next write: every folder a question names sums its counts from it, where a read per folder cost
   * each newly named product 20-60 ms on the dev library (17k passages, busy cores).
   */
  private fileLanguages(): Promise<Map<string, Record<string, number>>> {
    this.fileLangs ??= this.reading(() => this.countFileLanguages()).catch((err: unknown) => {
      this.fileLangs = null;
      throw err;
    });
    return this.fileLangs;
  }

  private async countFileLanguages(): Promise<Map<string, Record<string, number>>> {
    const out = new Map<string, Record<string, number>>();
    const tbl = this.chunksTable;
    if (!tbl) return out;
    for (const r of (await tbl.query().select(['lang', 'file', 'generation']).toArray()) as Record<string, unknown>[]) {
      // Rows of no committed file version (a killed run's) are not passages: the garbage fence's rows.
      if (!this.isCommitted(r)) continue;
      const file = String(r.file);
      const lang = String(r.lang);
      let counts = out.get(file);
      if (!counts) out.set(file, (counts = {}));
      counts[lang] = (counts[lang] ?? 0) + 1;
    }
    return out;
  }

  /** Changes whenever the file records do (a cache of what is derived from them checks it). */
  get filesRevision(): number {
    return this.revision;
  }

  getFiles(): FileRecord[] {
    return [...this.files.values()];
  }

  getFile(file: string): FileRecord | undefined {
    return this.files.get(file);
  }

  async stats(): Promise<StoreStats> {
    return this.reading(async () => {
      return {
        files: this.files.size,
        chunks: this.chunksTable ? await this.chunksTable.countRows() : 0,
        codes: this.codesTable ? await this.codesTable.countRows() : 0,
        vectorsPending: this.pendingVectorFiles().reduce((n, f) => n + f.chunks, 0),
      };
    });
  }

  async replaceFile(rec: FileRecord, chunks: Chunk[], vectors: Float32Array[] | null, codes: CodeRecord[]): Promise<void> {
    await this.replaceFiles([{ record: rec, chunks, vectors, codes }]);
  }

  /**
   * Replaces (or adds) files in one batch: one add per table, one commit of files.json, one delete.
   * The stored generation is the record's, raised when needed above every generation already used
   * for the file, so old rows can never pass for new ones.
   */
  async replaceFiles(updates: FileUpdate[]): Promise<void> {
    await this.exclusive(async () => {
      this.ensureWritable();
      await this.checkReadable();
      if (updates.length === 0) return;
      const seen = new Set<string>();
      const chunkRows: ChunkRow[] = [];
      const codeRows: CodeRow[] = [];
      const committed: FileRecord[] = [];
      const replaced: { file: string; generation: number }[] = [];
      for (const u of updates) {
        const file = u.record.file;
        if (seen.has(file)) throw new EngineError('INVALID_INPUT', `File ${file} appears twice in one batch.`);
        seen.add(file);
        this.validateUpdate(u);
        const prev = this.files.get(file);
        const used = this.usedGenerations.get(file);
        const generation = Math.max(u.record.generation, (prev?.generation ?? 0) + 1, (used ?? 0) + 1);
        this.usedGenerations.set(file, generation);
        // A pending file's rows hold a zero vector until attachVectors: no cosine neighbour of
        // anything, and kept out of vector searches by vectorWhere.
        const placeholder = u.record.vectorsPending && this.meta.embedder ? new Float32Array(this.meta.embedder.dims) : null;
        u.chunks.forEach((c, i) => chunkRows.push(chunkToRow(c, generation, u.vectors?.[i] ?? placeholder)));
        for (const c of u.codes) codeRows.push(codeToRow(c, generation));
        committed.push({ ...u.record, generation, chunks: u.chunks.length, codes: u.codes.length });
        if (prev || used !== undefined) replaced.push({ file, generation });
      }
      let isCommitted = false;
      try {
        await this.addRows('chunks', chunkRows);
        await this.addRows(CODES, codeRows);
        if (failpoints.afterAdd) throw new Error('failpoint: afterAdd');
        const next = new Map(this.files);
        for (const rec of committed) next.set(rec.file, rec);
        await this.writeFiles(next);
        isCommitted = true;
        if (failpoints.afterCommit) throw new Error('failpoint: afterCommit');
        const stale = replaced.map((r) => `(file = ${sqlString(r.file)} AND generation <> ${r.generation})`);
        await this.deleteWhere(stale);
      } catch (err) {
        if (!(err instanceof Error && err.message.startsWith('failpoint:')) && !isCommitted) {
          // Best effort: drop the rows just added; what remains is removed on the next open.
          const fresh = committed.map((r) => `(file = ${sqlString(r.file)} AND generation = ${r.generation})`);
          await this.deleteWhere(fresh).catch(() => undefined);
        }
        throw err;
      }
    });
  }

  /**
   * Gives files whose vectors were pending their vectors: each committed row is rewritten with its
   * vector in one merge (same generation, same analyzed text), then the records are committed without
   * the pending mark. A crash between the two leaves the mark; the next run embeds the file again
   * (from the embedding cache) and the merge is repeated, so the result is the same.
   */
  async attachVectors(items: FileVectors[]): Promise<void> {
    await this.exclusive(async () => {
      this.ensureWritable();
      await this.checkReadable();
      const emb = this.meta.embedder;
      const tbl = this.chunksTable;
      if (!emb) throw new EngineError('INVALID_INPUT', 'This library is keyword-only; vectors were given.');
      const rows: ChunkRow[] = [];
      const next = new Map(this.files);
      const records = items.map(({ file }) => {
        const rec = this.files.get(file);
        if (!rec?.vectorsPending) throw new EngineError('INVALID_INPUT', `${file} has no passages waiting for vectors.`);
        return rec;
      });
      const byFile = await this.fileRows(records);
      for (const [i, { vectorsPending: _done, ...rec }] of records.entries()) {
        const { file, vectors } = items[i] as FileVectors;
        for (const v of vectors) {
          if (v.length !== emb.dims) throw new EngineError('EMBEDDER_MISMATCH', `${file}: a vector has ${v.length} dimensions; the library uses ${emb.dims}.`);
        }
        const stored = byFile.get(file) ?? [];
        if (stored.length !== vectors.length) {
          throw new EngineError('INVALID_INPUT', `${file}: ${stored.length} passages but ${vectors.length} vectors.`);
        }
        stored.forEach((r, k) => rows.push(rowWithVector(r, vectors[k] as Float32Array)));
        next.set(file, rec);
      }
      if (tbl && rows.length > 0) {
        for (let i = 0; i < rows.length; i += ADD_BATCH) {
          await tbl.mergeInsert(['id', 'generation']).whenMatchedUpdateAll().execute(rows.slice(i, i + ADD_BATCH) as unknown as Record<string, unknown>[]);
        }
      }
      if (failpoints.afterAdd) throw new Error('failpoint: afterAdd');
      await this.writeFiles(next);
    });
  }

  /** Committed passages of files, each file's in reading order (what their vectors are made from); one scan. */
  async fileChunks(files: string[]): Promise<Map<string, Chunk[]>> {
    return this.reading(async () => {
      const records = files.flatMap((f) => this.files.get(f) ?? []);
      return new Map([...(await this.fileRows(records))].map(([f, rows]) => [f, rows.map(rowToChunk)] as const));
    });
  }

  /** Every term the full-text index holds for these files (body and heading columns); one scan. */
  async indexedTerms(files: string[]): Promise<Set<string>> {
    return this.reading(async () => {
      const out = new Set<string>();
      const records = files.flatMap((f) => this.files.get(f) ?? []);
      for (const rows of (await this.fileRows(records)).values()) {
        for (const r of rows) for (const t of `${String(r.fts)} ${String(r.fts_head)}`.split(' ')) if (t) out.add(t);
      }
      return out;
    });
  }

  /** The committed rows of files, every column but the vector, each file's in ordinal order; one scan. */
  private async fileRows(records: FileRecord[]): Promise<Map<string, Record<string, unknown>[]>> {
    const out = new Map<string, Record<string, unknown>[]>(records.map((r) => [r.file, []]));
    const tbl = this.chunksTable;
    if (!tbl || records.length === 0) return out;
    const rows = (await tbl
      .query()
      .where(sqlIn('file', records.map((r) => r.file)))
      .select([...CHUNK_COLUMNS, 'fts', 'fts_head'])
      .toArray()) as Record<string, unknown>[];
    for (const r of rows) if (this.isCommitted(r)) out.get(String(r.file))?.push(r);
    for (const list of out.values()) list.sort((a, b) => Number(a.ordinal) - Number(b.ordinal));
    return out;
  }

  /**
   * Rewrites where each file's source is recorded (a pack names its documents by their place in the
   * pack); the folder it was added from is no longer recorded (a pack never names the publisher's folders).
   */
  async relocateSources(to: (rec: FileRecord) => string): Promise<void> {
    await this.exclusive(async () => {
      this.ensureWritable();
      const moved = (r: FileRecord): FileRecord => {
        const { root: _root, ...rest } = r;
        return { ...rest, source: to(r) };
      };
      await this.writeFiles(new Map([...this.files].map(([k, r]) => [k, moved(r)] as const)));
    });
  }

  /**
   * Rewrites the records of files whose passages stay as they are (a file found at a new place with
   * the same content): one commit of files.json, no row touched. Records not in the library are refused.
   */
  async updateRecords(records: FileRecord[]): Promise<void> {
    await this.exclusive(async () => {
      this.ensureWritable();
      if (records.length === 0) return;
      const next = new Map(this.files);
      for (const rec of records) {
        const prev = this.files.get(rec.file);
        if (!prev) throw new EngineError('INVALID_INPUT', `File ${rec.file} is not in the library, so its record cannot be updated.`);
        const { vectorsPending: _pending, ...rest } = rec;
        next.set(rec.file, { ...rest, ...(prev.vectorsPending ? { vectorsPending: true } : {}), generation: prev.generation, chunks: prev.chunks, codes: prev.codes });
      }
      await this.writeFiles(next);
    });
  }

  /** Removes files: committed in files.json first, then their rows deleted. Returns how many were present. */
  async removeFiles(files: string[]): Promise<number> {
    return this.exclusive(async () => {
      this.ensureWritable();
      await this.checkReadable();
      const present = [...new Set(files)].filter((f) => this.files.has(f));
      if (present.length === 0) return 0;
      const next = new Map(this.files);
      for (const f of present) next.delete(f);
      await this.writeFiles(next);
      for (let i = 0; i < present.length; i += DELETE_BATCH) {
        const pred = sqlIn('file', present.slice(i, i + DELETE_BATCH));
        await this.chunksTable?.delete(pred);
        await this.codesTable?.delete(pred);
      }
      return present.length;
    });
  }

  async removeFile(file: string): Promise<boolean> {
    return (await this.removeFiles([file])) > 0;
  }

  /**
   * After an ingest batch: removes garbage rows, builds missing indexes (full-text always; vectors once
   * the library is big enough), folds new rows into the indexes, compacts, and prunes every old version
   * so deleted rows are gone from disk.
   */
  async compact(): Promise<void> {
    await this.exclusive(async () => {
      this.ensureWritable();
      await this.checkReadable();
      await this.collectGarbage();
      // Built at each call: LanceDB turns the date into an age relative to its own clock, so a date taken
      // when compact() began would spare every version written since (e.g. the FTS build's).
      const prune = () => ({ cleanupOlderThan: new Date(Date.now() + 1), deleteUnverified: true });
      const tbl = this.chunksTable;
      if (tbl) {
        const rows = await tbl.countRows();
        const indexed = new Set((await tbl.listIndices()).map((i) => i.columns.join(',')));
        if (rows > 0) {
          await this.createTextIndexes(tbl, indexed);
          const threshold = this.opts.vectorIndexThreshold ?? DEFAULT_VECTOR_INDEX_THRESHOLD;
          // Not over placeholder vectors: the index is built once every file has its vectors.
          const pending = this.pendingVectorFiles().length > 0;
          if (this.meta.embedder && !indexed.has('vector') && rows >= threshold && !pending) {
            await tbl.createIndex('vector', {
              // efConstruction 150 (default 300): the default took 476 s for 100k × 384-d on 2 cores.
              config: lancedb.Index.hnswSq({ distanceType: 'cosine', numPartitions: 1, efConstruction: 150 }),
              replace: true,
            });
          }
        }
        await tbl.optimize(prune());
        this.vectorIndexed = await this.hasVectorIndex();
      }
      if (this.codesTable) await this.codesTable.optimize(prune());
    });
  }

  /**
   * Builds the full-text indexes when the chunks table has none yet (a new library), so keyword
   * search works before compact(); rows added later are searched unindexed until then.
   */
  async ensureTextIndexes(): Promise<void> {
    await this.exclusive(async () => {
      this.ensureWritable();
      const tbl = this.chunksTable;
      if (tbl && (await tbl.countRows()) > 0) await this.createTextIndexes(tbl, new Set((await tbl.listIndices()).map((i) => i.columns.join(','))));
    });
  }

  /**
   * The full-text indexes, and scalar indexes of the columns searches filter by. Without them a filtered
   * search reads the whole column before it searches: a search restricted to one language (the
   * other-language search of every Chinese question, and of an English one that shares a term with a
   * Chinese-only manual) or to a product's folders (a question that names a product documented in the
   * other language). Measured on the dev library (17k passages, 2 busy cores), the same rows either
   * way: a full-text search in one language 13.8 -> 8.4 ms, in one folder 30.8 -> 19.2 ms. Rows added
   * later are read unindexed until the next compact() brings them into the indexes.
   */
  private async createTextIndexes(tbl: lancedb.Table, indexed: Set<string>): Promise<void> {
    for (const column of ['fts', 'fts_head']) {
      if (!indexed.has(column)) await tbl.createIndex(column, { config: ftsIndex(), replace: true });
    }
    await createFilterIndexes(tbl, indexed);
  }

  /**
   * A library built before the filter indexes gets them at its first writable open (about 0.1 s for
   * 17k passages), as it would at its next compact(); a failure (a full disk) leaves it searchable as
   * before, and the next open or compact tries again.
   */
  private async addFilterIndexes(): Promise<void> {
    const tbl = this.chunksTable;
    if (!tbl) return;
    try {
      const indexed = new Set((await tbl.listIndices()).map((i) => i.columns.join(',')));
      if (FILTER_INDEXES.every((c) => indexed.has(c)) || (await tbl.countRows()) === 0) return;
      await createFilterIndexes(tbl, indexed);
    } catch {
      // searched unindexed, as before
    }
  }

  /** Number of stored versions per table (1 each after compact()). */
  async versionCounts(): Promise<{ chunks: number; codes: number }> {
    return {
      chunks: this.chunksTable ? (await this.chunksTable.listVersions()).length : 0,
      codes: this.codesTable ? (await this.codesTable.listVersions()).length : 0,
    };
  }

  /**
   * One raw full-text query (a plan built by native/search/channels/fts-query.ts): the committed rows among
   * the first `limit` the index returns, with their BM25 scores, and the scores of every row fetched
   * (ranking and tie handling are native/search/channels/keyword.ts's).
   */
  async fullTextSearch(plan: FtsPlan, limit: number, filters?: SearchFilters): Promise<{ hits: ScoredChunk[]; scores: number[] }> {
    return this.reading(async () => {
      const tbl = this.chunksTable;
      if (!tbl || limit <= 0 || plan.length === 0) return { hits: [], scores: [] };
      const where = this.searchWhere(filters);
      if (where === null) return { hits: [], scores: [] };
      let q = tbl.query().fullTextSearch(toLanceQuery(plan));
      if (where) q = q.where(where);
      const rows = (await q.select([...CHUNK_COLUMNS, '_score']).limit(limit).toArray()) as Record<string, unknown>[];
      return { hits: this.committedHits(rows, (r) => Number(r._score), rows.length), scores: rows.map((r) => Number(r._score)) };
    });
  }

  /** Passages (capped) that hold each analyzed term anywhere in the library: its vocabulary (see vocabulary.ts). */
  async termCounts(terms: string[], filters?: Pick<SearchFilters, 'pathPrefix'>): Promise<Map<string, number>> {
    return this.reading(async () => {
      if (!filters?.pathPrefix) return countTerms(this.chunksTable, this.files.values(), terms, (r) => this.isCommitted(r));
      // One folder's vocabulary (a named product's manuals).
      const where = this.searchWhere(filters);
      const allowed = allowedFiles(this.files, filters);
      if (where === null || allowed?.size === 0) return new Map(terms.map((t) => [t, 0]));
      const files = [...this.files.values()].filter((f) => allowed === null || allowed.has(f.file));
      return countTerms(this.chunksTable, files, terms, (r) => this.isCommitted(r), where);
    });
  }

  /**
   * In how many documentation sets (top folders) each analyzed term occurs, and the sets themselves
   * (see vocabulary.ts): what makes a word generic in this library.
   */
  async termSpread(terms: string[]): Promise<{ spread: Map<string, number>; docSets: string[] }> {
    return this.reading(async () => {
      if (this.labelIndex?.revision !== this.revision) {
        const files = [...this.files.values()];
        this.labelIndex = { revision: this.revision, labels: labelSets(files), docSets: docSets(files), spread: new Map() };
      }
      const index = this.labelIndex;
      // A term's spread changes only with the files: kept until they do (the common, generic words are asked again and again).
      const fresh = await termSpread(this.chunksTable, index.labels, terms.filter((t) => !index.spread.has(t)), (r) => this.isCommitted(r));
      if (index.spread.size + fresh.size > SPREAD_CACHE_TERMS) index.spread.clear();
      for (const [t, n] of fresh) index.spread.set(t, n);
      const spread = new Map(terms.flatMap((t) => (index.spread.has(t) ? [[t, index.spread.get(t) as number] as const] : [])));
      return { spread, docSets: index.docSets };
    });
  }

  /**
   * Passages that contain a text as written (case and the punctuation or spaces between its words
   * aside), in library order: a quoted display message, which BM25 over common words ("Ram stroke out
   * of range") ranks below passages that merely share them. A scan of the text column, so callers use it
   * for a short quoted message, not for every query.
   */
  async findText(text: string, limit: number, filters?: SearchFilters): Promise<ScoredChunk[]> {
    return this.reading(async () => {
      const tbl = this.chunksTable;
      const words = text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
      if (!tbl || limit <= 0 || words.length === 0) return [];
      const where = this.searchWhere(filters);
      if (where === null) return [];
      // ILIKE with the words joined by '%' narrows the scan (LIKE's own wildcards cannot occur in a
      // word); the exact check (only punctuation or spaces between the words) is done here.
      const like = `text ILIKE ${sqlString(`%${words.join('%')}%`)}`;
      const exact = new RegExp(words.join('[^\\p{L}\\p{N}]+'), 'iu');
      const rows = (await tbl
        .query()
        .where(where ? `(${where}) AND ${like}` : like)
        .select([...CHUNK_COLUMNS])
        .limit(4 * limit + 10)
        .toArray()) as Record<string, unknown>[];
      return this.committedHits(rows.filter((r) => exact.test(String(r.text))), () => 1, limit);
    });
  }

  /** Nearest chunks by cosine similarity. */
  async vectorSearch(v: Float32Array, k: number, filters?: SearchFilters): Promise<ScoredChunk[]> {
    return this.reading(async () => {
      const emb = this.meta.embedder;
      if (!emb) throw new EngineError('INVALID_INPUT', 'This library has no vectors (it was indexed keyword-only).');
      if (v.length !== emb.dims) {
        throw new EngineError('EMBEDDER_MISMATCH', `Query vector has ${v.length} dimensions; the library uses ${emb.dims}.`);
      }
      const tbl = this.chunksTable;
      if (!tbl || k <= 0) return [];
      const only = filters?.lang?.length === 1 ? filters.lang[0] : undefined;
      const held = only !== undefined ? await this.languagePassages(only) : null;
      if (held) return this.scanPassages(held, v, k, filters);
      const where = this.vectorWhere(filters);
      if (where === null) return [];
      let q = tbl.vectorSearch(Array.from(v)).distanceType('cosine');
      // The HNSW index's scalar-quantised distances run ~0.13 below the true cosine (e5, 17k passages):
      // re-scoring its candidates with the stored vectors (+1.6 ms) gives the true one, as a library
      // below the index threshold and the in-memory scan have, so similarities compare across searches.
      // The search breadth: measured on the dev library (17k passages, e5, the 145 dev questions, top 30
      // against an exact scan), ef 100 / 200 / 400 found 0.929 / 0.964 / 0.987 of the exact neighbours
      // at the same time per query (p50 4.4–4.7 ms): a wider search is near exact and gives the same
      // neighbours whichever way the graph was built.
      if (this.vectorIndexed) q = q.ef(Math.max(VECTOR_EF, 4 * k)).refineFactor(1);
      if (where) q = q.where(where);
      const rows = await q
        .select([...CHUNK_COLUMNS, '_distance'])
        .limit(k + 10)
        .toArray();
      return this.committedHits(rows, (r) => 1 - Number(r._distance), k);
    });
  }

  /** The passages of one language with their vectors, when there are few enough to hold (else null). */
  private languagePassages(lang: string): Promise<HeldPassages | null> {
    return memoised(this.heldLanguages, lang, () => this.loadLanguage(lang));
  }

  private async loadLanguage(lang: string): Promise<HeldPassages | null> {
    const tbl = this.chunksTable;
    const max = this.opts.inMemoryLanguageRows ?? IN_MEMORY_LANGUAGE_ROWS;
    if (!tbl || max <= 0) return null;
    const where = `lang = ${sqlString(lang)}`;
    if ((await tbl.countRows(where)) > max) return null;
    const rows = (await tbl.query().where(where).select([...CHUNK_COLUMNS, 'vector']).limit(max + 1).toArray()) as Record<string, unknown>[];
    const vectors = rows.map((r) => Float32Array.from(r.vector as Iterable<number>));
    return {
      chunks: rows.map(rowToChunk),
      generations: rows.map((r) => Number(r.generation)),
      vectors,
      norms: vectors.map((x) => Math.sqrt(dot(x, x)) || 1),
    };
  }

  /** Exact cosine search over held passages: the committed ones the filters allow. */
  private scanPassages(held: HeldPassages, v: Float32Array, k: number, filters?: SearchFilters): ScoredChunk[] {
    const allowed = allowedFiles(this.files, filters);
    const qn = Math.sqrt(dot(v, v)) || 1;
    const best: { i: number; score: number }[] = [];
    held.chunks.forEach((c, i) => {
      if (!this.isCommitted({ file: c.file, generation: held.generations[i] }) || (allowed !== null && !allowed.has(c.file))) return;
      if (this.files.get(c.file)?.vectorsPending) return;
      const score = dot(v, held.vectors[i] as Float32Array) / (qn * (held.norms[i] as number));
      if (best.length === k && score <= (best[k - 1] as { score: number }).score) return;
      const at = best.findIndex((b) => b.score < score);
      best.splice(at < 0 ? best.length : at, 0, { i, score });
      if (best.length > k) best.pop();
    });
    return best.map(({ i, score }) => ({ chunk: held.chunks[i] as Chunk, score }));
  }

  /** Committed chunks by id, in the order asked (unknown ids skipped). */
  async getChunks(ids: string[]): Promise<Chunk[]> {
    return this.reading(async () => {
      const tbl = this.chunksTable;
      if (!tbl || ids.length === 0) return [];
      const byId = new Map<string, Chunk>();
      const unique = [...new Set(ids)];
      for (let i = 0; i < unique.length; i += 500) {
        const rows = await tbl
          .query()
          .where(sqlIn('id', unique.slice(i, i + 500)))
          .select([...CHUNK_COLUMNS])
          .toArray();
        for (const r of rows as Record<string, unknown>[]) {
          if (this.isCommitted(r)) byId.set(String(r.id), rowToChunk(r));
        }
      }
      return ids.flatMap((id) => byId.get(id) ?? []);
    });
  }

  /** Every committed fault-code record (for the in-memory code index). */
  async allCodes(): Promise<CodeRecord[]> {
    return this.reading(async () => {
      if (!this.codesTable) return [];
      const rows = (await this.codesTable.query().select(['file', 'generation', 'json']).toArray()) as Record<string, unknown>[];
      return rows.filter((r) => this.isCommitted(r)).map(rowToCode);
    });
  }

  /**
   * The distinct heading texts of each committed file's chunks (heading path entries), for the
   * library's name index (search/plan/name-index.ts). One scan of two columns.
   */
  async headingsByFile(): Promise<Map<string, string[]>> {
    return this.reading(async () => {
      const out = new Map<string, Set<string>>();
      if (!this.chunksTable) return new Map();
      const rows = (await this.chunksTable.query().select(['file', 'generation', 'heading_path']).toArray()) as Record<string, unknown>[];
      for (const r of rows) {
        if (!this.isCommitted(r)) continue;
        const file = String(r.file);
        let set = out.get(file);
        if (!set) out.set(file, (set = new Set()));
        try {
          for (const h of JSON.parse(String(r.heading_path)) as unknown[]) if (typeof h === 'string' && h) set.add(h);
        } catch {
          // a row without a readable heading path names nothing
        }
      }
      return new Map([...out].map(([f, s]) => [f, [...s]] as const));
    });
  }

  /**
   * The texts of the committed passages that hold a fenced block, for the library's index of shown
   * messages (search/plan/messages.ts). One scan, filtered by the index.
   */
  async fencedTexts(): Promise<string[]> {
    return this.reading(async () => {
      if (!this.chunksTable) return [];
      const rows = (await this.chunksTable
        .query()
        .where("text LIKE '%```%'")
        .select(['file', 'generation', 'text'])
        .toArray()) as Record<string, unknown>[];
      return rows.filter((r) => this.isCommitted(r)).map((r) => String(r.text));
    });
  }

  /**
   * `NOT (…)` over the (file, generation) pairs of the chunks table that are not committed, or null
   * when there are none (the row count matches the records, so nothing is scanned). Searches fetch
   * k + 10 rows before dropping uncommitted ones; without the fence, a killed run's rows could crowd
   * the committed ones out of a read-only reader's results.
   */
  private async uncommittedPredicate(): Promise<string | null> {
    const bad = new Set<string>();
    for (const r of await this.uncommittedRows(this.chunksTable, 'chunks')) bad.add(`(file = ${sqlString(String(r.file))} AND generation = ${Number(r.generation)})`);
    return bad.size > 0 ? `NOT (${[...bad].join(' OR ')})` : null;
  }

  /**
   * (file, generation) of the rows that are not committed. Committed rows number exactly Σ chunks
   * (Σ codes) of the file records, because rows are added before their record is committed; so a table
   * whose row count matches holds none and is not scanned (a scan of 100k rows costs about a second).
   */
  private async uncommittedRows(tbl: lancedb.Table | null, count: 'chunks' | 'codes', force = false): Promise<Record<string, unknown>[]> {
    if (!tbl) return [];
    let want = 0;
    for (const f of this.files.values()) want += f[count];
    if (!force && (await tbl.countRows()) === want) return [];
    const rows = (await tbl.query().select(['file', 'generation']).toArray()) as Record<string, unknown>[];
    return rows.filter((r) => !this.isCommitted(r));
  }

  /** searchWhere, less the files whose vectors are pending (their rows hold placeholders). */
  private vectorWhere(filters?: SearchFilters): string | null {
    const where = this.searchWhere(filters);
    const pending = this.pendingVectorFiles().map((f) => f.file);
    if (where === null || pending.length === 0) return where;
    const fence = `NOT (${sqlIn('file', pending)})`;
    return where ? `(${where}) AND ${fence}` : fence;
  }

  /** The filters' where clause plus the garbage fence; null when nothing can match. */
  private searchWhere(filters?: SearchFilters): string | null {
    const where = whereClause(this.files, filters);
    if (where === null || !this.garbageFence) return where;
    return where ? `(${where}) AND ${this.garbageFence}` : this.garbageFence;
  }

  /**
   * Checks files.json against commit.json and the tables before anything trusts it (the clean-up
   * deletes every row it does not name). One found missing, damaged, emptied or older is rebuilt
   * from the tables (commit-record.ts): written back by a writer, held in memory by a reader, which
   * says so (recordsRebuilt) and changes nothing.
   */
  private async checkRecords(read: FilesJsonRead, witness: CommitRecord | null): Promise<void> {
    const hasRows = async () => (this.chunksTable ? await this.chunksTable.countRows() : 0) + (this.codesTable ? await this.codesTable.countRows() : 0) > 0;
    const doubt = witness || read.files.length === 0 ? filesJsonDoubt(read, witness, !witness && (await hasRows())) : null;
    if (!doubt) {
      // A library from before commit.json gets its witness at its first writable open (or, should this
      // write fail, at a later one: until then files.json is trusted as before).
      if (!witness && !this.opts.readOnly) {
        await writeJsonAtomic(path.join(this.dir, COMMIT_FILE), commitRecordOf(this.commitNumber, this.files.values())).catch(() => undefined);
      }
      return;
    }
    const chunkRows = this.chunksTable ? ((await this.chunksTable.query().select(['file', 'generation', 'lang', 'manual']).toArray()) as Record<string, unknown>[]) : [];
    const codeRows = this.codesTable ? ((await this.codesTable.query().select(['file', 'generation']).toArray()) as Record<string, unknown>[]) : [];
    const records = rebuildRecords(read, witness, tallyRows(chunkRows, codeRows), this.meta.embedder !== null, new Date().toISOString());
    const next = new Map(records.map((r) => [r.file, r] as const));
    const list = `The library's file list (${path.join(this.dir, FILES_FILE)}) ${doubt}`;
    const found = `${records.length} manual${records.length === 1 ? '' : 's'}`;
    if (this.opts.readOnly) {
      this.files = next;
      this.rebuilt =
        `${list}: searching the ${found} found in its stored passages instead. Nothing was changed. ` +
        `To rebuild the file list, run: manualdesk repair --library ${this.dir} (or open the library in ManualDesk).`;
      return;
    }
    // A damaged one is kept beside it, for whoever wants to look at what it held.
    const kept = read.state === 'damaged' ? `${path.join(this.dir, FILES_FILE)}.damaged` : null;
    if (kept) await copyFile(path.join(this.dir, FILES_FILE), kept);
    await this.writeFiles(next);
    this.rebuilt =
      `${list}; it was rebuilt from the stored passages (${found}) and nothing was deleted${kept ? ` (the damaged file is kept as ${kept})` : ''}. ` +
      `Add your manual folders again (manualdesk ingest <your manual folders> --library ${this.dir}) to restore where each manual was read from.`;
  }

  /** Why the file records were rebuilt from the tables when the library was opened (files.json missing, damaged or older); null when they were not. */
  get recordsRebuilt(): string | null {
    return this.rebuilt;
  }

  /** Deletes rows whose (file, generation) is not committed. Returns the number of garbage pairs found. */
  async collectGarbage(opts: { force?: boolean } = {}): Promise<number> {
    let pairs = 0;
    const tables: [lancedb.Table | null, 'chunks' | 'codes'][] = [
      [this.chunksTable, 'chunks'],
      [this.codesTable, 'codes'],
    ];
    for (const [tbl, count] of tables) {
      if (!tbl) continue;
      pairs += await this.deleteUncommitted(tbl, await this.uncommittedRows(tbl, count, opts.force));
    }
    return pairs;
  }

  /** Deletes the rows of these files' other generations (all of a file no longer committed). Returns the files. */
  private async deleteUncommitted(tbl: lancedb.Table, rows: Record<string, unknown>[]): Promise<number> {
    const bad = new Set(rows.map((r) => String(r.file)));
    const preds = [...bad].map((file) => {
      const rec = this.files.get(file);
      return rec ? `(file = ${sqlString(file)} AND generation <> ${rec.generation})` : `(file = ${sqlString(file)})`;
    });
    for (let i = 0; i < preds.length; i += DELETE_BATCH) await tbl.delete(preds.slice(i, i + DELETE_BATCH).join(' OR '));
    return bad.size;
  }

  /**
   * A read-only store takes up what a writer (another process) committed since it last looked: when
   * files.json changed, it reads the file records again and moves its tables to their latest version,
   * which holds every row those records name (rows are added before their record is committed, and
   * deleted after). Until then its tables stay on the version it read, whose records it trusts.
   * `force`: also when files.json is unchanged (a read failed because a writer pruned its version).
   * A writer's store is always current: nothing to do.
   */
  async followWriter(force = false): Promise<void> {
    this.ensureOpen();
    if (!this.opts.readOnly || (!force && filesStamp(this.dir) === this.filesSeen)) return;
    this.following ??= this.reload().finally(() => {
      this.following = null;
    });
    await this.following;
  }

  private async reload(): Promise<void> {
    const stamp = filesStamp(this.dir);
    const meta = ((await readJson(path.join(this.dir, LIBRARY_FILE))) as LibraryMeta | undefined) ?? this.meta;
    const had = this.meta.embedder;
    if (had && meta.embedder && (meta.embedder.id !== had.id || meta.embedder.dims !== had.dims)) {
      throw new EngineError(
        'EMBEDDER_MISMATCH',
        `The library at ${this.dir} now uses the model "${meta.embedder.id}" (another ManualDesk switched it while this one was searching it). Open the library again (or run the search again) to search it with that model.`,
      );
    }
    // As at open: the witness first, then the records, checked against it and the rows (checkRecords).
    const witness = await readCommitRecord(this.dir);
    const read = await readFilesJson(path.join(this.dir, FILES_FILE));
    const names = new Set(await this.db.tableNames());
    const chunksName = meta.chunksTable ?? CHUNKS;
    this.chunksTable = await this.latestTable(chunksName === this.chunksName ? this.chunksTable : null, chunksName, names);
    this.codesTable = await this.latestTable(this.codesTable, CODES, names);
    this.chunksName = chunksName;
    this.meta = meta;
    this.files = new Map(read.files.map((f) => [f.file, f]));
    this.commitNumber = Math.max(read.commit, witness?.commit ?? 0);
    this.rebuilt = null;
    await this.checkRecords(read, witness);
    this.revision++;
    this.heldLanguages.clear();
    this.fileLangs = null;
    this.garbageFence = await this.uncommittedPredicate();
    this.switchState = await this.liveSwitch();
    this.vectorIndexed = await this.hasVectorIndex();
    this.filesSeen = stamp;
  }

  /** The table `name` at its latest version: `current` moved there, or opened again; null when there is none. */
  private async latestTable(current: lancedb.Table | null, name: string, names: Set<string>): Promise<lancedb.Table | null> {
    if (current) {
      if (names.has(name)) {
        try {
          await current.checkoutLatest();
          return current;
        } catch {
          // opened again below
        }
      }
      current.close();
    }
    return names.has(name) ? this.db.openTable(name) : null;
  }

  /**
   * Runs a read of the tables. A writer's compaction may prune the version it reads (in this process or
   * another): it is read again, on the latest version, a few times; a table that still cannot be read
   * is damaged (LIBRARY_DAMAGED), and this store then refuses every write.
   */
  private async reading<T>(fn: () => Promise<T>): Promise<T> {
    this.ensureOpen();
    for (let attempt = 1; ; attempt++) {
      try {
        await this.followWriter(attempt > 1);
        return await fn();
      } catch (err) {
        if (this.closed || !isLanceReadError(err, this.dir)) throw err;
        if (attempt > READ_RETRIES) throw this.damaged(err);
        await new Promise((resolve) => setTimeout(resolve, 5 * attempt));
      }
    }
  }

  /**
   * Before this session's first change of the tables: one column of every row is read, which opens every
   * data file, so a table damaged on disk (truncated, changed by hand) is refused before anything is
   * written into it (the write would fail halfway, after its rows were added).
   */
  private async checkReadable(): Promise<void> {
    if (this.readable) return;
    for (const tbl of [this.chunksTable, this.codesTable]) if (tbl) await tbl.query().select(['generation']).toArray();
    this.readable = true;
  }

  /** Records that the tables cannot be read (writes are refused from now on); the error to throw. */
  private damaged(err: unknown): EngineError {
    this.damage ??= new LibraryDamagedError(this.dir, err);
    return this.damage;
  }

  /** Releases the tables and the lock. Safe to call twice. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.writeChain.catch(() => undefined);
    this.chunksTable?.close();
    this.switchTable?.close();
    this.codesTable?.close();
    this.db.close();
    this.lock?.release();
  }

  // ---------------------------------------------------------------------------------------------

  private committedHits(rows: unknown[], score: (r: Record<string, unknown>) => number, k: number): ScoredChunk[] {
    const out: ScoredChunk[] = [];
    for (const r of rows as Record<string, unknown>[]) {
      if (!this.isCommitted(r)) continue;
      out.push({ chunk: rowToChunk(r), score: score(r) });
      if (out.length >= k) break;
    }
    return out;
  }

  private isCommitted(r: Record<string, unknown>): boolean {
    const rec = this.files.get(String(r.file));
    return rec !== undefined && rec.generation === Number(r.generation);
  }

  private async checkEmbedder(wanted: EmbedderIdentity | null): Promise<void> {
    const have = this.meta.embedder;
    if (wanted === null) return; // keyword-only use of any library; writes are checked in validateUpdate
    if (have && have.id === wanted.id && have.dims === wanted.dims) return;
    if (this.files.size === 0 && !this.opts.readOnly) {
      // Empty library: adopt the new embedder (no vectors to mix with).
      if (this.chunksTable) {
        this.chunksTable.close();
        this.chunksTable = null;
        await this.db.dropTable(this.chunksName);
      }
      this.meta = { ...this.meta, embedder: { id: wanted.id, dims: wanted.dims } };
      await writeJsonAtomic(path.join(this.dir, LIBRARY_FILE), this.meta);
      return;
    }
    // Keyword-only until adoptEmbedder(); a library with another model: until a switch (beginSwitch) completes.
    if (this.opts.mayAdopt && !this.opts.readOnly) return;
    if (!have) {
      // Nothing to mix with: the library can take the model, by an ingest that names it.
      throw new EngineError(
        'EMBEDDER_MISMATCH',
        `The library at ${this.dir} has no embedding model yet (keyword search and fault codes), and "${wanted.id}" was given to search it. ` +
          `Search it without --embedder, or give it that model first: manualdesk ingest <your manual folders> --library ${this.dir} --embedder <that model> (nothing is parsed again; keyword search keeps working while its passages get their vectors).`,
      );
    }
    const recorded = `"${have.id}" (${have.dims} dimensions)`;
    throw new EngineError(
      'EMBEDDER_MISMATCH',
      `The library at ${this.dir} was indexed with ${recorded}, but "${wanted.id}" (${wanted.dims} dimensions) was given. ` +
        `Vectors of different models cannot be mixed: use the matching model, ${switchModelHint(this.dir)}, or ${NEW_LIBRARY_HINT}.`,
    );
  }

  private validateUpdate(u: FileUpdate): void {
    const file = u.record.file;
    for (const c of u.chunks) {
      if (c.file !== file) throw new EngineError('INVALID_INPUT', `Chunk ${c.id} belongs to ${c.file}, not ${file}.`);
    }
    for (const c of u.codes) {
      if (c.file !== file) throw new EngineError('INVALID_INPUT', `Code ${c.code} belongs to ${c.file}, not ${file}.`);
    }
    const emb = this.meta.embedder;
    if (!emb) {
      if (u.vectors) throw new EngineError('INVALID_INPUT', 'This library is keyword-only; vectors were given.');
      return;
    }
    if (u.chunks.length === 0) return;
    if (!u.vectors && u.record.vectorsPending) return;
    if (!u.vectors) {
      throw new EngineError(
        'EMBEDDER_MISMATCH',
        `The library at ${this.dir} stores vectors of "${emb.id}"; load that model to add files, or ${NEW_LIBRARY_HINT}.`,
      );
    }
    if (u.vectors.length !== u.chunks.length) {
      throw new EngineError('INVALID_INPUT', `${file}: ${u.chunks.length} chunks but ${u.vectors.length} vectors.`);
    }
    for (const v of u.vectors) {
      if (v.length !== emb.dims) {
        throw new EngineError('EMBEDDER_MISMATCH', `${file}: a vector has ${v.length} dimensions; the library uses ${emb.dims}.`);
      }
    }
  }

  private async addRows(name: 'chunks' | 'codes', rows: (ChunkRow | CodeRow)[]): Promise<void> {
    for (let i = 0; i < rows.length; i += ADD_BATCH) {
      const batch = rows.slice(i, i + ADD_BATCH) as unknown as Record<string, unknown>[];
      const current = name === 'chunks' ? this.chunksTable : this.codesTable;
      if (current) {
        await current.add(batch);
      } else {
        const created = await this.db.createTable(name === 'chunks' ? this.chunksName : CODES, batch);
        if (name === 'chunks') this.chunksTable = created;
        else this.codesTable = created;
      }
    }
  }

  private async deleteWhere(preds: string[]): Promise<void> {
    for (let i = 0; i < preds.length; i += DELETE_BATCH) {
      const pred = preds.slice(i, i + DELETE_BATCH).join(' OR ');
      await this.chunksTable?.delete(pred);
      await this.codesTable?.delete(pred);
    }
  }

  /**
   * Commits file records: files.json (the commit point), then commit.json with the same commit number
   * (see commit-record.ts). A process killed between the two leaves a files.json one commit ahead,
   * which is trusted.
   */
  private async writeFiles(next: Map<string, FileRecord>): Promise<void> {
    const commit = this.commitNumber + 1;
    const data: FilesJson = { formatVersion: LIBRARY_FORMAT_VERSION, commit, files: [...next.values()] };
    await writeJsonAtomic(path.join(this.dir, FILES_FILE), data);
    this.commitNumber = commit;
    this.files = next;
    await writeJsonAtomic(path.join(this.dir, COMMIT_FILE), commitRecordOf(commit, next.values()));
    this.revision++;
    // Passages held in memory may be gone or joined by new ones.
    this.heldLanguages.clear();
    this.fileLangs = null;
  }

  private async hasVectorIndex(): Promise<boolean> {
    if (!this.chunksTable || !this.meta.embedder) return false;
    return (await this.chunksTable.listIndices()).some((i) => i.columns.includes('vector'));
  }

  /** A write, after the one before it; LanceDB failing to read its own tables marks them damaged (no more writes). */
  private exclusive<T>(write: () => Promise<T>): Promise<T> {
    const fn = () =>
      write().catch((err: unknown) => {
        throw isLanceReadError(err, this.dir) ? this.damaged(err) : err;
      });
    const run = this.writeChain.then(fn, fn);
    this.writeChain = run.catch(() => undefined);
    return run;
  }

  private ensureOpen(): void {
    if (this.closed) throw new EngineError('CLOSED', closedError('The library'));
  }

  private ensureWritable(): void {
    this.ensureOpen();
    if (!this.lock) throw new EngineError('LIBRARY_READ_ONLY', 'The library was opened read-only.');
    if (this.damage) throw this.damage;
  }
}

async function hasColumn(tbl: lancedb.Table, name: string): Promise<boolean> {
  return (await tbl.schema()).fields.some((f) => f.name === name);
}

/** A full-text plan as LanceDB query objects. */
function toLanceQuery(plan: FtsPlan): lancedb.FullTextQuery {
  const clauses = plan.map((c): lancedb.FullTextQuery => {
    if (c.columns.length > 1) return new lancedb.MultiMatchQuery(c.terms, [...c.columns], { boosts: [...(c.columnBoosts ?? [])] });
    const opts: { boost?: number; operator?: lancedb.Operator } = {};
    if (c.boost !== undefined) opts.boost = c.boost;
    if (c.allTerms) opts.operator = lancedb.Operator.And;
    return c.boost === undefined && !c.allTerms ? new lancedb.MatchQuery(c.terms, 'fts') : new lancedb.MatchQuery(c.terms, 'fts', opts);
  });
  if (clauses.length === 1) return clauses[0] as lancedb.FullTextQuery;
  return new lancedb.BooleanQuery(clauses.map((c) => [lancedb.Occur.Should, c] as [lancedb.Occur, lancedb.FullTextQuery]));
}

/**
 * Passages per language of the allowed files (null: every file), in the given languages (none: all):
 * what a read of the rows the filters' where clause selects would count (filters.ts).
 */
function sumLanguages(perFile: Map<string, Record<string, number>>, allowed: Set<string> | null, langs: readonly string[] | undefined): Record<string, number> {
  const wanted = langs?.length ? new Set(langs) : null;
  const out: Record<string, number> = {};
  for (const [file, counts] of perFile) {
    if (allowed && !allowed.has(file)) continue;
    for (const [lang, n] of Object.entries(counts)) if (!wanted || wanted.has(lang)) out[lang] = (out[lang] ?? 0) + n;
  }
  return out;
}

/** The columns searches filter by, each with a scalar index (LibraryStore.createTextIndexes says why). */
const FILTER_INDEXES = ['lang', 'file'] as const;

/** A few languages: a bitmap. Many files, filtered by list and by folder prefix: a B-tree. */
async function createFilterIndexes(tbl: lancedb.Table, indexed: Set<string>): Promise<void> {
  if (!indexed.has('lang')) await tbl.createIndex('lang', { config: lancedb.Index.bitmap(), replace: true });
  if (!indexed.has('file')) await tbl.createIndex('file', { config: lancedb.Index.btree(), replace: true });
}

/** Full-text index over pre-analyzed tokens: split on whitespace only, no stemming or stop words. */
function ftsIndex(): lancedb.Index {
  return lancedb.Index.fts({
    withPosition: false,
    baseTokenizer: 'whitespace',
    lowercase: true,
    stem: false,
    removeStopWords: false,
    asciiFolding: false,
    maxTokenLength: MAX_TOKEN_LENGTH,
  });
}
