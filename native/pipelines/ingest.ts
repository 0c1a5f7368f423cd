/**
 * Ingest pipeline: manual file → parse → chunk → fault codes → store, then → embed → store.
 *
 * Incremental: a file whose size and mtime (or, failing that, sha256) are unchanged is not touched;
 * changed files replace their chunks and codes in crash-safe batches (LibraryStore.replaceFiles: one
 * commit of files.json per batch of up to INGEST_BATCH files); a file that vanished from an ingested
 * folder is removed for real. A file that cannot be read is reported with the reason and skipped; the
 * rest goes on.
 *
 * Two phases where the library has an embedding model: every file is parsed and committed first,
 * searchable by keyword and code as soon as its batch is; then the passages still without vectors
 * are embedded, a few hundred at a time across files, each group committed as it is done
 * (LibraryStore.attachVectors). Embedding takes minutes where parsing takes seconds; a cancel or a
 * crash keeps every vector already committed (and every one computed, in the embedding cache), and
 * the next ingest finishes the rest. A file whose every passage is in the embedding cache gets its
 * vectors in the first phase.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import type { IngestProgress, IngestReport, IngestRequest, SkippedFile } from '../contract/api.js';
import type { Chunk, CodeRecord, FileRecord, OcrPageInfo } from '../contract/document.js';
import { EngineError, toErrorData } from '../contract/errors.js';
import { assertFileSize, isSupportedFile, parseFile, readSidecar, resolveManualMeta, sidecarPaths, withTitleHeading } from '../parse/index.js';
import { chunkDocument, CHUNKER_VERSION } from '../chunk/index.js';
import { ANALYZER_VERSION } from '../text/analyze.js';
import { extractCodes } from '../fault-codes/extract.js';
import { learnSchemes, readSchemeFile, SCHEME_FILE_NAME } from '../fault-codes/schemes.js';
import type { CodeScheme } from '../fault-codes/schemes.js';
import type { Embedder } from '../embed/types.js';
import type { EmbeddingCache } from '../embed/cache.js';
import { embedWithCache } from '../embed/cache.js';
import { embeddingKey, embeddingText } from '../embed/passage-text.js';
import type { FileUpdate, FileVectors, LibraryStore } from '../store/library-store.js';
import { scanPaths, describeFsError } from './scan.js';
import { FileKeys } from './file-keys.js';
import { ingestRoot } from '../library/identity.js';
import { libraryDiskError } from '../store/disk-errors.js';
import { OcrSession, type OcrOptions } from '../ocr/tesseract.js';
import type { Library } from '../library/library.js';

export interface IngestDeps {
  store: LibraryStore;
  /** Absent: keyword + fault codes only (no vectors). */
  vectors: { embedder: Embedder; cache: EmbeddingCache } | null;
  /** Versions the library's text was indexed with; different ones mean every file is re-indexed. */
  libraryVersions: { chunkerVersion: number; analyzerVersion: number };
  /** OCR of scanned PDF pages: on by default (eng + chi_sim from npm); false switches it off. */
  ocr?: false | OcrOptions;
  /**
   * Called once every file is parsed and committed, before vectors are computed, with the code
   * schemes the documents declared: the library's code index follows, so codes work meanwhile.
   */
  afterParse?: (schemes: Map<string, CodeScheme[]>) => Promise<void>;
}

export interface IngestHooks {
  signal?: AbortSignal;
  onProgress?: (p: IngestProgress) => void;
}

export interface IngestOutcome extends IngestReport {
  /** Prefix schemes declared by the ingested documents, per file (persisted by the engine). */
  schemes: Map<string, CodeScheme[]>;
}

/**
 * Ingest into a library and its follow-up work: the embedder check before, the learned code schemes
 * saved and the code index rebuilt after. What the engine and pack building both call.
 */
export async function ingestIntoLibrary(library: Library, req: IngestRequest, hooks: IngestHooks = {}, ocr?: false | OcrOptions): Promise<IngestReport> {
  library.assertWritable();
  const t0 = performance.now();
  await library.adoptGivenModel();
  const switched = await switchModel(library, hooks);
  library.assertEmbedderForWrites();
  const store = library.store;
  // The learned schemes were saved by afterParse, with the code index.
  const { schemes: _learned, ...report } = await ingest(
    {
      store,
      vectors: library.vectors,
      libraryVersions: { chunkerVersion: store.info.chunkerVersion, analyzerVersion: store.info.analyzerVersion },
      ...(ocr !== undefined ? { ocr } : {}),
      afterParse: (schemes) => library.afterChange(schemes),
    },
    req,
    hooks,
  );
  // The passages a model switch re-embedded count as indexed for meaning, as the ingest's own do,
  // and its time as the ingest's.
  if (switched === 0) return report;
  return { ...report, embedded: (report.embedded ?? 0) + switched, seconds: Math.round((performance.now() - t0) / 10) / 100 };
}

/**
 * ingest --embedder with a model other than the library's: every passage is embedded with the new
 * model into a table of its own while the library keeps searching with its old one (a cancel or a
 * crash keeps what is done; the next such ingest resumes), then the library takes the new table and
 * model in one commit. Nothing is parsed again. Vectors of two models are never mixed.
 */
async function switchModel(library: Library, hooks: IngestHooks): Promise<number> {
  const target = library.switchVectors();
  if (!target) return 0;
  const store = library.store;
  const from = store.info.embedder?.id ?? 'none';
  try {
    await storeWrite(store, () => store.beginSwitch({ id: target.embedder.id, dims: target.embedder.dims }));
    const failed: SkippedFile[] = [];
    const embedded = await embedPending(store, { vectors: target, pending: store.pendingSwitchFiles(), attach: (items) => store.attachSwitchVectors(items), skipLine }, failed, hooks.signal, hooks.onProgress ?? (() => {}));
    if (failed.length > 0) {
      const first = failed[0] as SkippedFile;
      throw new EngineError(
        'FILE_UNREADABLE',
        `The library still searches with "${from}": ${failed.length} file(s) could not be embedded with "${target.embedder.id}" (${first.file}: ${first.reason}). ` +
          'Fix or remove that file, then run the same ingest again: what is embedded is kept.',
      );
    }
    await storeWrite(store, () => library.finishSwitch());
    await storeWrite(store, () => store.compact());
    return embedded;
  } catch (err) {
    throw err instanceof LibraryWriteFailure ? err.cause : err;
  }
}

/** Removes files from a library for real (rows deleted, versions pruned), then its schemes and code index follow. */
export async function removeFromLibrary(library: Library, files: string[]): Promise<{ removed: number }> {
  library.assertWritable();
  const store = library.store;
  const known = new Set(store.getFiles().map((f) => f.file));
  const unknown = files.filter((f) => !known.has(f));
  if (unknown.length > 0) {
    throw new EngineError('NOT_FOUND', `Not in the library: ${unknown.join(', ')}. Use "manualdesk list" to see the files as the library names them.`);
  }
  // One commit of files.json, however many files. On a full disk, what the library can rebuild is
  // freed and the commit tried once more, so the space of a manual can always be reclaimed.
  try {
    await store.removeFiles(files);
  } catch (err) {
    if (!isDiskFull(err, store.dir)) throw err;
    await library.freeRebuildableSpace();
    await storeWrite(store, () => store.removeFiles(files)).catch((again: unknown) => {
      throw again instanceof LibraryWriteFailure ? again.cause : again;
    });
  }
  // Committed: the files are gone from every search. Compaction (which gives the disk space back) and
  // the schemes file follow; on a still-full disk they wait for the next change.
  const afterCommit = async (fn: () => Promise<void>) => {
    await fn().catch((err: unknown) => {
      if (!isDiskFull(err, store.dir)) throw err;
    });
  };
  await afterCommit(() => store.compact());
  await afterCommit(() => library.afterChange());
  await library.reloadCodes();
  return { removed: files.length };
}

export async function ingest(deps: IngestDeps, req: IngestRequest, hooks: IngestHooks = {}): Promise<IngestOutcome> {
  // One OCR worker for the whole run, started by the first scanned page, ended with the run.
  const ocr = deps.ocr === false ? null : new OcrSession(deps.ocr ?? {});
  try {
    return await ingestRun(deps, req, hooks, ocr);
  } catch (err) {
    // The library's disk (full, read-only) stops the run: every other file would fail the same way.
    throw err instanceof LibraryWriteFailure ? err.cause : err;
  } finally {
    await ocr?.dispose();
  }
}

async function ingestRun(deps: IngestDeps, req: IngestRequest, hooks: IngestHooks, ocr: OcrSession | null): Promise<IngestOutcome> {
  const t0 = performance.now();
  const { store } = deps;
  const signal = hooks.signal;
  const progress = hooks.onProgress ?? (() => {});
  // No paths: only the vectors still to compute (IngestRequest.completeVectors).
  if (req.paths.length === 0 && req.completeVectors !== true) {
    throw new EngineError('INVALID_INPUT', 'No files or folders given. Name at least one manual file or folder to add.');
  }

  progress({ phase: 'scan', done: 0, total: req.paths.length });
  const scan = await scanPaths(req.paths, isManualFile);
  const skipped: SkippedFile[] = scan.missing.map((m) => ({ file: m.file, reason: m.reason, code: m.code }));
  const known = new Map(store.getFiles().map((f) => [f.file, f] as const));
  // Only older versions are stale (re-indexed here); a newer library is refused when it is opened.
  const stale =
    deps.libraryVersions.chunkerVersion < CHUNKER_VERSION || deps.libraryVersions.analyzerVersion < ANALYZER_VERSION;
  const rechunkAll = req.force === true || stale;

  const report: IngestOutcome = {
    files: 0,
    chunks: 0,
    unchanged: 0,
    removed: 0,
    skipped,
    pagesNeedingOcr: [],
    seconds: 0,
    schemes: new Map(),
  };

  const total = scan.files.length;
  let done = 0;
  // Parsing and the text index need no model: once a file is to be parsed, the model's memory is
  // freed until the vectors are computed (the text index build is the peak of a run: 1.29 GB with
  // e5 q8 resident, on the dev corpus).
  let released = false;
  // Parsed files wait in a batch: their chunks are embedded together (the embedder groups texts of
  // every file by length) and the batch is committed with one write of files.json. A crash or cancel
  // loses at most the batch in progress; the next run does it again.
  const batch = new Batch(deps, report, signal, progress);
  // Which record each file is: found where it is read from, or (a moved folder) by its path below its
  // folder and its content; else a key of its own, never one another manual has.
  const keys = new FileKeys(store.getFiles());
  // Records of files found at a new place with the same content: only the record changes.
  const relocated: FileRecord[] = [];
  // The keys of the files this run read (or tried to): what a re-added folder still holds.
  const seen = new Set<string>();
  const read = new Set<string>();
  for (const f of scan.files) {
    signal?.throwIfAborted();
    // One file named twice (a folder and a file in it) is read once.
    if (read.has(f.abs)) {
      done++;
      continue;
    }
    read.add(f.abs);
    let prev = keys.atSource(f.abs);
    let key = prev?.file;
    if (key !== undefined) seen.add(key);
    progress({ phase: 'parse', file: key ?? f.rel, done, total });
    try {
      const companions = await companionStamp(f.abs);
      const same = !rechunkAll && prev !== undefined && (prev.companions ?? '') === companions;
      if (same && prev?.size === f.size && prev.mtimeMs === f.mtimeMs) {
        report.unchanged++;
      } else {
        // Refused before it is read: a file over its size cap costs its report line, not the memory.
        assertFileSize(f.abs, f.size);
        const buf = await fs.readFile(f.abs);
        const sha256 = createHash('sha256').update(buf).digest('hex');
        const mtimeMs = (await fs.stat(f.abs)).mtimeMs;
        if (!prev) {
          prev = await keys.movedHere(f.rel, sha256);
          if (prev) seen.add(prev.file);
        }
        // A record rebuilt without its content hash: taken only once parsing shows the same manual (below).
        const unproven = prev ? undefined : keys.unknownContentAt(f.rel);
        prev ??= unproven;
        key = prev?.file ?? keys.claimNew(f.rel, f.root);
        seen.add(key);
        // A key's folder stays the one it was given under (its name may be the key's first part).
        const root = (prev && ingestRoot(prev)) ?? f.root;
        if (same && prev?.sha256 === sha256) {
          report.unchanged++;
        } else if (!rechunkAll && prev && prev.source !== f.abs && prev.sha256 === sha256 && (prev.companions ?? '') === companions) {
          // The same file at a new place (a moved folder): its passages and vectors stay as they are.
          relocated.push({ ...prev, source: f.abs, root: f.root, size: buf.length, mtimeMs });
          report.unchanged++;
        } else {
          // The file may have changed since the scan (still being copied, edited): the record describes
          // the bytes read, so the next run and the source viewer compare against what was indexed.
          if (!released) {
            released = true;
            await deps.vectors?.embedder.release?.();
          }
          const moved = prev !== undefined && prev.source !== f.abs;
          let prepared = await prepareFile({ ...f, key, root: moved ? f.root : root, size: buf.length, mtimeMs, companions }, buf, sha256, prev, signal, progress, { done, total }, ocr);
          if (unproven && prepared.update.record.meta.title !== unproven.meta.title) {
            // Another manual that merely has the lost record's path: a key of its own, the record left as it is.
            keys.release(unproven);
            seen.delete(unproven.file);
            key = keys.claimNew(f.rel, f.root);
            seen.add(key);
            prepared = await prepareFile({ ...f, key, root: f.root, size: buf.length, mtimeMs, companions }, buf, sha256, undefined, signal, progress, { done, total }, ocr);
          }
          batch.add(prepared);
        }
      }
    } catch (err) {
      if (signal?.aborted) throw err;
      skipped.push(skipLine(key ?? f.rel, err));
    }
    done++;
    if (batch.full) await batch.commit({ done, total });
  }
  await batch.commit({ done, total });
  if (relocated.length > 0) await storeWrite(store, () => store.updateRecords(relocated));

  // Files that vanished from a folder that was ingested again are removed for real, in one commit.
  const vanished = [...known.values()]
    .filter((rec) => !seen.has(rec.file) && scan.roots.some((r) => rec.source.startsWith(r + path.sep)))
    .map((rec) => rec.file);
  if (vanished.length > 0) {
    signal?.throwIfAborted();
    report.removed += await storeWrite(deps.store, () => store.removeFiles(vanished));
  }

  // Keyword search and codes for everything parsed; then the vectors (this run's files and any a
  // cancelled or crashed run left).
  if (report.files > 0 && store.pendingVectorFiles().length > 0) await storeWrite(store, () => store.ensureTextIndexes());
  await deps.afterParse?.(report.schemes);
  // Files whose text could not be indexed (a file the model fails on below keeps its text).
  const unreadable = new Set(skipped.map((s) => s.file));
  const embedded = await embedPending(store, pendingOfLibrary(deps), report.skipped, signal, progress);
  if (embedded > 0) report.embedded = embedded;

  progress({ phase: 'store', done: total, total });
  // Compaction needs no model either; the next search loads it again.
  if (embedded > 0) await deps.vectors?.embedder.release?.();
  if (report.files > 0 || report.removed > 0 || embedded > 0) await store.compact();
  // Every file now has text from this version: the library stops being stale.
  if (stale && store.getFiles().every((rec) => seen.has(rec.file) && !unreadable.has(rec.file))) {
    await store.setIndexVersions({ chunkerVersion: CHUNKER_VERSION, analyzerVersion: ANALYZER_VERSION });
  }
  report.seconds = Math.round((performance.now() - t0) / 10) / 100;
  progress({ phase: 'done', done: total, total });
  return report;
}

/** One parsed file waiting in a batch. */
interface Prepared {
  update: FileUpdate;
  pagesWithoutText: number[];
  ocrPages: OcrPageInfo[];
  schemes: CodeScheme[];
  /** The parser's notices for the technician (ParsedDocument.warnings). */
  warnings: string[];
}

async function prepareFile(
  f: { abs: string; rel: string; key: string; root: string; size: number; mtimeMs: number; companions: string },
  data: Buffer,
  sha256: string,
  prev: FileRecord | undefined,
  signal: AbortSignal | undefined,
  progress: (p: IngestProgress) => void,
  counts: { done: number; total: number },
  ocr: OcrSession | null,
): Promise<Prepared> {
  // Parsed from the bytes hashed: the record's sha256 is always the indexed text's, even when the file changes meanwhile.
  const parsed = await parseFile(f.abs, {
    data,
    signal,
    ocr: ocr
      ? { session: ocr, onPage: (p) => progress({ phase: 'parse', file: f.key, ...counts, page: p.page, pageCount: p.pageCount }) }
      : { enabled: false },
  });
  const sidecar = await readSidecar(f.abs);
  const meta = resolveManualMeta(parsed, sidecar, f.abs);
  const doc = withTitleHeading(parsed, meta.title);
  // Files are revisions of one manual only when they say so (sidecar id, or a title with a revision);
  // two unrelated files that merely share a title ("Overview") must never hide each other.
  const manualKey = sidecar?.id ?? (meta.revision ? `title:${normaliseTitle(meta.title)}` : `file:${f.key}`);

  const chunks = chunkDocument(doc, { file: f.key, manual: meta.title });
  // A declared code scheme applies to the manuals in the declaring file's folder and below (as the
  // library names them: a key prefixed with its folder's name keeps the prefix).
  const folder = path.posix.dirname(f.key);
  const schemes = [...learnSchemes(doc), ...(await readSchemeFile(f.abs))].map((sc) => ({
    ...sc,
    root: folder === '.' ? '' : folder,
    source: sc.source ?? f.key,
  }));
  const codes: CodeRecord[] = extractCodes(doc, { file: f.key, manual: meta.title, equipment: meta.equipment });
  const record: FileRecord = {
    file: f.key,
    source: f.abs,
    root: f.root,
    sha256,
    size: f.size,
    mtimeMs: f.mtimeMs,
    format: doc.format,
    meta,
    manualKey,
    chunks: chunks.length,
    langs: [...new Set(chunks.map((c) => c.lang))].sort(),
    codes: codes.length,
    pagesWithoutText: doc.pagesWithoutText ?? [],
    ...(doc.ocrPages?.length ? { ocrPages: doc.ocrPages } : {}),
    generation: (prev?.generation ?? 0) + 1,
    ingestedAt: new Date().toISOString(),
    companions: f.companions,
  };
  return { update: { record, chunks, vectors: null, codes }, pagesWithoutText: record.pagesWithoutText, ocrPages: doc.ocrPages ?? [], schemes, warnings: doc.warnings };
}

/**
 * Files per commit of files.json and chunks that close a batch early; passages embedded together
 * (and committed together) when vectors follow.
 */
export const INGEST_BATCH = { files: 64, chunks: 2_000, embedTexts: 256 };

/** Which files wait for vectors, of which model, and where their vectors go. */
interface VectorTarget {
  vectors: { embedder: Embedder; cache: EmbeddingCache };
  pending: FileRecord[];
  attach: (items: FileVectors[]) => Promise<void>;
  /** The report line of a file the model fails on. */
  skipLine: (file: string, err: unknown) => SkippedFile;
}

/** The library's own pending vectors (LibraryStore.attachVectors). */
function pendingOfLibrary(deps: IngestDeps): VectorTarget | null {
  const store = deps.store;
  return deps.vectors ? { vectors: deps.vectors, pending: store.pendingVectorFiles(), attach: (items) => store.attachVectors(items), skipLine: vectorSkipLine } : null;
}

/**
 * Embeds the passages of every pending file of `target`, in groups of about
 * INGEST_BATCH.embedTexts passages across files, each group committed when done. Returns the number
 * of passages given vectors. A file whose passages cannot be embedded is reported in `skipped` and
 * stays pending; the next run tries again.
 */
async function embedPending(
  store: LibraryStore,
  target: VectorTarget | null,
  skipped: SkippedFile[],
  signal: AbortSignal | undefined,
  progress: (p: IngestProgress) => void,
): Promise<number> {
  const pending = target?.pending ?? [];
  if (!target || pending.length === 0) return 0;
  const { vectors } = target;
  const total = pending.reduce((n, f) => n + f.chunks, 0);
  let done = 0;
  const embedGroup = async (group: { file: string; chunks: Chunk[] }[]) => {
    const texts = group.flatMap((g) => g.chunks.map(embeddingItem));
    const last = group[group.length - 1]?.file ?? '';
    const flat = await embedWithCache(vectors.embedder, vectors.cache, texts, signal, (n) =>
      progress({ phase: 'embed', file: last, done: done + n, total, unit: 'passages' }),
    );
    signal?.throwIfAborted();
    let at = 0;
    const items = group.map((g) => ({ file: g.file, vectors: flat.slice(at, (at += g.chunks.length)) }));
    await storeWrite(store, () => target.attach(items));
    done += texts.length;
  };
  // A cancel or the library's disk stops the run; any other failure is the file's own.
  const throwUnlessFileFault = (err: unknown, file: string | undefined) => {
    if (signal?.aborted || err instanceof LibraryWriteFailure || file === undefined) throw err;
    skipped.push(target.skipLine(file, err));
  };
  const flush = async (group: { file: string; chunks: Chunk[] }[]) => {
    if (group.length === 0) return;
    try {
      await embedGroup(group);
      return;
    } catch (err) {
      if (group.length === 1) return throwUnlessFileFault(err, group[0]?.file);
      if (signal?.aborted || err instanceof LibraryWriteFailure) throw err;
    }
    // One file's text failed the model: the others go on, each alone.
    for (const g of group) {
      try {
        await embedGroup([g]);
      } catch (one) {
        throwUnlessFileFault(one, g.file);
      }
    }
  };
  progress({ phase: 'embed', done, total, unit: 'passages' });
  // Groups by the records' passage counts; each group's passages are read in one scan.
  const next = async (files: string[]) => {
    signal?.throwIfAborted();
    const read = await store.fileChunks(files);
    await flush(files.map((file) => ({ file, chunks: read.get(file) ?? [] })));
  };
  let group: string[] = [];
  let size = 0;
  for (const rec of pending) {
    group.push(rec.file);
    size += rec.chunks;
    if (size >= INGEST_BATCH.embedTexts || group.length >= INGEST_BATCH.files) {
      await next(group);
      group = [];
      size = 0;
    }
  }
  await next(group);
  progress({ phase: 'embed', done, total, unit: 'passages' });
  return done;
}

/** What the embedding cache and the model are given for a passage. */
function embeddingItem(c: Chunk): { hash: string; text: string } {
  const text = embeddingText(c);
  return { hash: embeddingKey(text), text };
}

/** The report line of a file that is searchable by keyword but whose passages could not be embedded. */
function vectorSkipLine(file: string, err: unknown): SkippedFile {
  const { reason, code } = skipLine(file, err);
  return {
    file,
    code,
    reason: `${reason} Its passages have no vectors yet: it is found by keyword and fault code, and the next ingest tries again.`,
  };
}

/** Parsed files not yet committed: committed together. */
class Batch {
  private items: Prepared[] = [];
  private chunks = 0;

  constructor(
    private readonly deps: IngestDeps,
    private readonly report: IngestOutcome,
    private readonly signal: AbortSignal | undefined,
    private readonly progress: (p: IngestProgress) => void,
  ) {}

  add(p: Prepared): void {
    this.items.push(p);
    this.chunks += p.update.chunks.length;
  }

  get full(): boolean {
    return this.items.length >= INGEST_BATCH.files || this.chunks >= INGEST_BATCH.chunks;
  }

  /** Commits the batch; when that fails for one file's sake, each file goes alone (and fails alone). */
  async commit(counts: { done: number; total: number }): Promise<void> {
    const items = this.items;
    this.items = [];
    this.chunks = 0;
    if (items.length === 0) return;
    try {
      await this.write(items, counts);
    } catch (err) {
      if (this.signal?.aborted || err instanceof LibraryWriteFailure || items.length === 1) throw err;
      for (const p of items) {
        try {
          await this.write([p], counts);
        } catch (one) {
          if (this.signal?.aborted || one instanceof LibraryWriteFailure) throw one;
          this.report.skipped.push(skipLine(p.update.record.file, one));
        }
      }
      return;
    }
  }

  private async write(items: Prepared[], counts: { done: number; total: number }): Promise<void> {
    const vectors = this.deps.vectors;
    const updates: FileUpdate[] = [];
    for (const p of items) {
      const texts = p.update.chunks.map(embeddingItem);
      if (!vectors || texts.length === 0) updates.push(p.update);
      // Every vector known already (a re-index, a file moved): no model, no second write.
      else if (texts.every((t) => vectors.cache.has(t.hash))) {
        updates.push({ ...p.update, vectors: await embedWithCache(vectors.embedder, vectors.cache, texts, this.signal) });
      } else updates.push({ ...p.update, record: { ...p.update.record, vectorsPending: true } });
    }
    this.signal?.throwIfAborted();
    // One store event per file of the batch (what a progress bar names), then the one commit.
    for (const p of items) this.progress({ phase: 'store', file: p.update.record.file, ...counts });
    await storeWrite(this.deps.store, () => this.deps.store.replaceFiles(updates));
    for (const p of items) this.account(p);
  }

  private account(p: Prepared): void {
    const r = this.report;
    const file = p.update.record.file;
    r.files++;
    r.chunks += p.update.chunks.length;
    if (p.pagesWithoutText.length > 0) r.pagesNeedingOcr.push({ file, pages: p.pagesWithoutText });
    else if (p.update.chunks.length === 0) (r.withoutText ??= []).push(file);
    if (p.ocrPages.length > 0) {
      (r.ocrPages ??= []).push({
        file,
        pages: p.ocrPages.map((x) => x.page),
        lowConfidence: p.ocrPages.filter((x) => x.lowConfidence).map((x) => x.page),
      });
    }
    if (p.schemes.length > 0) r.schemes.set(file, p.schemes);
    if (p.warnings.length > 0) (r.warnings ??= []).push({ file, messages: p.warnings });
  }
}

/** A write into the library; a failure of the library's disk (full, read-only) or its damage becomes a LibraryWriteFailure. */
async function storeWrite<T>(store: LibraryStore, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    const disk = libraryDiskError(err, store.dir, { permission: true });
    if (disk) throw new LibraryWriteFailure(disk);
    // A damaged library stops the whole run (each file would fail the same way).
    throw err instanceof EngineError && err.code === 'LIBRARY_DAMAGED' ? new LibraryWriteFailure(err) : err;
  }
}

function isDiskFull(err: unknown, dir: string): boolean {
  return (err instanceof EngineError && err.code === 'DISK_FULL') || libraryDiskError(err, dir)?.code === 'DISK_FULL';
}

/** The report line of a file that could not be indexed. */
function skipLine(file: string, err: unknown): SkippedFile {
  const data = toErrorData(err);
  return data.code === 'INTERNAL'
    ? { file, reason: describeFsError(err, file), code: 'FILE_UNREADABLE' }
    : { file, reason: data.message, code: data.code };
}

/** A write into the library failed for a reason of the library's disk, not of the manual. */
class LibraryWriteFailure extends Error {
  constructor(override readonly cause: EngineError) {
    super(cause.message);
  }
}

function normaliseTitle(title: string): string {
  return title.toLowerCase().replace(/\s+/g, ' ').trim();
}

/** Manual files: what the parsers read, except the per-manual code scheme file (read with its manual). */
function isManualFile(file: string): boolean {
  return isSupportedFile(file) && path.basename(file) !== SCHEME_FILE_NAME;
}

/**
 * Size and mtime of the files read together with a manual (metadata sidecar, code scheme file):
 * editing one of them re-ingests the manual even though the manual itself did not change.
 */
async function companionStamp(abs: string): Promise<string> {
  const parts: string[] = [];
  for (const p of [...sidecarPaths(abs), path.join(path.dirname(abs), SCHEME_FILE_NAME)]) {
    try {
      const st = await fs.stat(p);
      parts.push(`${path.basename(p)}:${st.size}:${st.mtimeMs}`);
    } catch {
      // absent
    }
  }
  return parts.join(';');
}
