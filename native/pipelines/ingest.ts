/**
 * Ingest pipeline: manual file → parse → chunk → fault codes → embed → store.
 *
 * Incremental: a file whose size and mtime (or, failing that, sha256) are unchanged is not touched;
 * a changed file replaces its chunks and codes in one crash-safe step (LibraryStore.replaceFile);
 * a file that vanished from an ingested folder is removed for real. A file that cannot be read is
 * reported with the reason and skipped; the rest goes on.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import type { IngestProgress, IngestReport, IngestRequest, SkippedFile } from '../contract/api.js';
import type { CodeRecord, FileRecord, OcrPageInfo } from '../contract/document.js';
import { EngineError, toErrorData } from '../contract/errors.js';
import { isSupportedFile, parseFile, readSidecar, resolveManualMeta, sidecarPaths } from '../parse/index.js';
import { chunkDocument, CHUNKER_VERSION } from '../chunk/index.js';
import { ANALYZER_VERSION } from '../text/analyze.js';
import { extractCodes } from '../fault-codes/extract.js';
import { learnSchemes, readSchemeFile, SCHEME_FILE_NAME } from '../fault-codes/schemes.js';
import type { CodeScheme } from '../fault-codes/schemes.js';
import type { Embedder } from '../embed/types.js';
import type { EmbeddingCache } from '../embed/cache.js';
import { embedWithCache } from '../embed/cache.js';
import type { LibraryStore } from '../store/library-store.js';
import { scanPaths, describeFsError } from './scan.js';
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
  library.assertEmbedderForWrites();
  const store = library.store;
  const { schemes, ...report } = await ingest(
    {
      store,
      vectors: library.vectors,
      libraryVersions: { chunkerVersion: store.info.chunkerVersion, analyzerVersion: store.info.analyzerVersion },
      ...(ocr !== undefined ? { ocr } : {}),
    },
    req,
    hooks,
  );
  await library.afterChange(schemes);
  return report;
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
  for (const f of files) await store.removeFile(f);
  await store.compact();
  await library.afterChange();
  return { removed: files.length };
}

export async function ingest(deps: IngestDeps, req: IngestRequest, hooks: IngestHooks = {}): Promise<IngestOutcome> {
  // One OCR worker for the whole run, started by the first scanned page, ended with the run.
  const ocr = deps.ocr === false ? null : new OcrSession(deps.ocr ?? {});
  try {
    return await ingestRun(deps, req, hooks, ocr);
  } finally {
    await ocr?.dispose();
  }
}

async function ingestRun(deps: IngestDeps, req: IngestRequest, hooks: IngestHooks, ocr: OcrSession | null): Promise<IngestOutcome> {
  const t0 = performance.now();
  const { store } = deps;
  const signal = hooks.signal;
  const progress = hooks.onProgress ?? (() => {});
  if (req.paths.length === 0) {
    throw new EngineError('INVALID_INPUT', 'No files or folders given. Name at least one manual file or folder to add.');
  }

  progress({ phase: 'scan', done: 0, total: req.paths.length });
  const scan = await scanPaths(req.paths, isManualFile);
  const skipped: SkippedFile[] = scan.missing.map((m) => ({ file: m.file, reason: m.reason, code: m.code }));
  const known = new Map(store.getFiles().map((f) => [f.file, f] as const));
  const stale =
    deps.libraryVersions.chunkerVersion !== CHUNKER_VERSION || deps.libraryVersions.analyzerVersion !== ANALYZER_VERSION;
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
  for (const f of scan.files) {
    signal?.throwIfAborted();
    progress({ phase: 'parse', file: f.rel, done, total });
    const prev = known.get(f.rel);
    try {
      const companions = await companionStamp(f.abs);
      const same = !rechunkAll && prev !== undefined && prev.source === f.abs && (prev.companions ?? '') === companions;
      if (same && prev.size === f.size && prev.mtimeMs === f.mtimeMs) {
        report.unchanged++;
      } else {
        const buf = await fs.readFile(f.abs);
        const sha256 = createHash('sha256').update(buf).digest('hex');
        if (same && prev.sha256 === sha256) {
          report.unchanged++;
        } else {
          // The file may have changed since the scan (still being copied, edited): the record describes
          // the bytes read, so the next run and the source viewer compare against what was indexed.
          const read = { ...f, size: buf.length, mtimeMs: (await fs.stat(f.abs)).mtimeMs, companions };
          const written = await ingestFile(deps, read, buf, sha256, prev, signal, progress, { done, total }, ocr);
          report.files++;
          report.chunks += written.chunks;
          if (written.pagesWithoutText.length > 0) {
            report.pagesNeedingOcr.push({ file: f.rel, pages: written.pagesWithoutText });
          } else if (written.chunks === 0) {
            (report.withoutText ??= []).push(f.rel);
          }
          if (written.ocrPages.length > 0) {
            (report.ocrPages ??= []).push({
              file: f.rel,
              pages: written.ocrPages.map((p) => p.page),
              lowConfidence: written.ocrPages.filter((p) => p.lowConfidence).map((p) => p.page),
            });
          }
          if (written.schemes.length > 0) report.schemes.set(f.rel, written.schemes);
        }
      }
    } catch (err) {
      if (signal?.aborted) throw err;
      // The library's disk (full, read-only) stops the run: every other file would fail the same way.
      if (err instanceof LibraryWriteFailure) throw err.cause;
      const data = toErrorData(err);
      skipped.push(
        data.code === 'INTERNAL'
          ? { file: f.rel, reason: describeFsError(err, f.rel), code: 'FILE_UNREADABLE' }
          : { file: f.rel, reason: data.message, code: data.code },
      );
    }
    done++;
  }

  // Files that vanished from a folder that was ingested again are removed for real.
  const seen = new Set(scan.files.map((f) => f.rel));
  for (const rec of known.values()) {
    if (seen.has(rec.file)) continue;
    const underRoot = scan.roots.some((r) => rec.source.startsWith(r + path.sep));
    if (!underRoot) continue;
    signal?.throwIfAborted();
    await store.removeFile(rec.file);
    report.removed++;
  }

  progress({ phase: 'store', done: total, total });
  if (report.files > 0 || report.removed > 0) await store.compact();
  // Every file now has text from this version: the library stops being stale.
  if (stale && store.getFiles().every((rec) => seen.has(rec.file) && !skipped.some((s) => s.file === rec.file))) {
    await store.setIndexVersions({ chunkerVersion: CHUNKER_VERSION, analyzerVersion: ANALYZER_VERSION });
  }
  report.seconds = Math.round((performance.now() - t0) / 10) / 100;
  progress({ phase: 'done', done: total, total });
  return report;
}

async function ingestFile(
  deps: IngestDeps,
  f: { abs: string; rel: string; size: number; mtimeMs: number; companions: string },
  data: Buffer,
  sha256: string,
  prev: FileRecord | undefined,
  signal: AbortSignal | undefined,
  progress: (p: IngestProgress) => void,
  counts: { done: number; total: number },
  ocr: OcrSession | null,
): Promise<{ chunks: number; pagesWithoutText: number[]; ocrPages: OcrPageInfo[]; schemes: CodeScheme[] }> {
  // Parsed from the bytes hashed: the record's sha256 is always the indexed text's, even when the file changes meanwhile.
  const doc = await parseFile(f.abs, {
    data,
    signal,
    ocr: ocr
      ? { session: ocr, onPage: (p) => progress({ phase: 'parse', file: f.rel, ...counts, page: p.page, pageCount: p.pageCount }) }
      : { enabled: false },
  });
  const sidecar = await readSidecar(f.abs);
  const meta = resolveManualMeta(doc, sidecar, f.abs);
  // Files are revisions of one manual only when they say so (sidecar id, or a title with a revision);
  // two unrelated files that merely share a title ("Overview") must never hide each other.
  const manualKey = sidecar?.id ?? (meta.revision ? `title:${normaliseTitle(meta.title)}` : `file:${f.rel}`);

  const chunks = chunkDocument(doc, { file: f.rel, manual: meta.title });
  // A declared code scheme applies to the manuals in the declaring file's folder and below.
  const folder = path.posix.dirname(f.rel);
  const schemes = [...learnSchemes(doc), ...(await readSchemeFile(f.abs))].map((sc) => ({
    ...sc,
    root: folder === '.' ? '' : folder,
    source: sc.source ?? f.rel,
  }));
  const codes: CodeRecord[] = extractCodes(doc, { file: f.rel, manual: meta.title, equipment: meta.equipment });

  let vectors: Float32Array[] | null = null;
  if (deps.vectors && chunks.length > 0) {
    progress({ phase: 'embed', file: f.rel, ...counts });
    vectors = await embedWithCache(
      deps.vectors.embedder,
      deps.vectors.cache,
      chunks.map((c) => ({ hash: c.contentHash, text: c.text })),
      signal,
    );
  }

  signal?.throwIfAborted();
  progress({ phase: 'store', file: f.rel, ...counts });
  const rec: FileRecord = {
    file: f.rel,
    source: f.abs,
    sha256,
    size: f.size,
    mtimeMs: f.mtimeMs,
    format: doc.format,
    meta,
    manualKey,
    chunks: chunks.length,
    codes: codes.length,
    pagesWithoutText: doc.pagesWithoutText ?? [],
    ...(doc.ocrPages?.length ? { ocrPages: doc.ocrPages } : {}),
    generation: (prev?.generation ?? 0) + 1,
    ingestedAt: new Date().toISOString(),
    companions: f.companions,
  };
  try {
    await deps.store.replaceFile(rec, chunks, vectors, codes);
  } catch (err) {
    const disk = libraryDiskError(err, deps.store.dir, { permission: true });
    throw disk ? new LibraryWriteFailure(disk) : err;
  }
  return { chunks: chunks.length, pagesWithoutText: rec.pagesWithoutText, ocrPages: doc.ocrPages ?? [], schemes };
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
