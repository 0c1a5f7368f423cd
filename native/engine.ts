/**
 * The composition root: createEngine(config) wires the stages into one EngineApi that the CLI,
 * the HTTP server (browser mode) and the Electron main process all use.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import type {
  CodeLookupRequest,
  CodeLookupResponse,
  CodeMatch,
  EngineApi,
  EngineHooks,
  IngestReport,
  IngestRequest,
  LibraryInfo,
  ManualInfo,
  SearchFilters,
  SearchHit,
  SearchRequest,
  SearchResponse,
  SourceDocument,
  SourceRequest,
} from './contract/api.js';
import type { CodeRecord, FileRecord, Lang } from './contract/document.js';
import { detectLang } from './text/lang.js';
import { EngineError, ok, toErrorData, type Result } from './contract/errors.js';
import { configureNativeThreads, type EngineConfig } from './config.js';
import { IdleCollector } from './idle-gc.js';
import { createEmbedder, findModel, type EmbedderSpec } from './embed/models.js';
import type { Embedder } from './embed/types.js';
import { EmbeddingCache } from './embed/cache.js';
import { LIBRARY_FILE, LibraryStore } from './store/library-store.js';
import { readJson, writeJsonAtomic } from './store/atomic-json.js';
import { LibraryReadOnlyError, libraryDiskError } from './store/disk-errors.js';
import type { LibraryMeta } from './store/types.js';
import { clampK, lookupCodes, retrieve, validateQuery, type Retrieval, type RetrieveRequest } from './search/retriever.js';
import { DEFAULT_RETRIEVAL_SETTINGS, keywordConfigFrom, type RetrievalSettings } from './search/settings.js';
import { CodeIndex } from './fault-codes/index.js';
import type { CodeScheme } from './fault-codes/schemes.js';
import { ingest } from './pipelines/ingest.js';
import { parseFile } from './parse/index.js';
import { allowedFiles, newestRevisions } from './store/filters.js';
import { CHUNKER_VERSION } from './chunk/index.js';
import type { AskHooks, AskRequest, AskResponse, ModelStatus } from './contract/answer.js';
import { ask } from './answer/ask.js';
import { AnswerModels } from './llm/holder.js';
import type { PackHooks, PackMethods } from './contract/api.js';
import type { PackImportRequest, PackInfo, PackVerifyReport } from './contract/packs.js';
import { cleanupPacks, installPack, readRegistry, removePack, rollbackPack, toPackInfo, verifyPack, type SiteState } from './packs/install.js';
import { trustedFingerprints } from './packs/keys.js';
import { LOCAL_ID } from './packs/format.js';
import { closePackSources, openPackSources, sourceSelected, type PackSource } from './packs/sources.js';

const SCHEMES_FILE = 'code-schemes.json';

export interface Engine extends EngineApi, PackMethods {
  /** The embedder in use (null: keyword + fault codes only). */
  readonly embedderId: string | null;
  /** The one retrieval behind search and ask: code lookup, passages and each retriever's ranking. */
  retrieve(req: RetrieveRequest, signal?: AbortSignal): Promise<Result<Retrieval>>;
}

/** Opens (or, with config.create, creates on first ingest) the library and returns the engine. */
export async function createEngine(config: EngineConfig): Promise<Engine> {
  configureNativeThreads();
  const engine = new LocalEngine(config);
  return engine;
}

class LocalEngine implements Engine {
  private store: LibraryStore | null = null;
  private embedder: Embedder | null = null;
  private cache: EmbeddingCache | null = null;
  private codes: CodeIndex | null = null;
  /** Active installed manual packs, searched with the local library. */
  private packs: PackSource[] = [];
  /** Installed packs that could not be opened, with the reason (shown by listPacks). */
  private readonly packProblems = new Map<string, string>();
  /** One full GC after each burst of calls (LanceDB's native results are freed only when collected). */
  private readonly idle: IdleCollector;
  private packsCleaned = false;
  /** Set when the library folder turned out not writable: it was opened read-only, writes say why. */
  private writeBlocked: EngineError | null = null;
  private opening: Promise<void> | null = null;
  private closed = false;
  /** Serialises writes (ingest, remove) inside this process. */
  private writeChain: Promise<unknown> = Promise.resolve();
  /** The language model and reranker for answers: loaded on first use, disposed on close. */
  private answerModels = new AnswerModels(() => modelSearchDirs());

  private readonly settings: RetrievalSettings;

  constructor(private readonly config: EngineConfig) {
    this.settings = config.retrieval ?? { ...DEFAULT_RETRIEVAL_SETTINGS, keyword: { ...DEFAULT_RETRIEVAL_SETTINGS.keyword, ...keywordConfigFrom(process.env.MANUALDESK_KEYWORD) } };
    this.idle = new IdleCollector(config.idleGcMs ?? 2000, 10_000);
  }

  get embedderId(): string | null {
    return this.embedder?.id ?? null;
  }

  // ---- lifecycle -------------------------------------------------------------------------------

  private async ensureOpen(create: boolean): Promise<LibraryStore> {
    if (this.closed) throw new EngineError('INVALID_INPUT', 'The library was closed. Open it again.');
    if (this.store) return this.store;
    if (!this.opening) {
      this.opening = this.open(create).finally(() => {
        this.opening = null;
      });
    }
    await this.opening;
    if (!this.store) throw new EngineError('INTERNAL', 'The library could not be opened.');
    return this.store;
  }

  private async open(create: boolean): Promise<void> {
    const dir = this.config.libraryDir;
    await assertFolder(dir);
    const recorded = (await readJson(path.join(dir, LIBRARY_FILE))) as LibraryMeta | undefined;
    const spec = this.config.embedder ?? specForRecorded(recorded?.embedder?.id ?? null);
    const embedder = await createEmbedder(spec);
    try {
      const options = {
        embedder: embedder ? { id: embedder.id, dims: embedder.dims } : null,
        create: create || this.config.create === true,
        readOnly: this.config.readOnly === true,
        chunkerVersion: CHUNKER_VERSION,
      };
      let store: LibraryStore;
      try {
        store = await LibraryStore.open(dir, options);
      } catch (err) {
        if (!(err instanceof LibraryReadOnlyError) || options.create) throw err;
        // A library on a read-only disk (or without write permission) can still be searched.
        store = await LibraryStore.open(dir, { ...options, readOnly: true });
        this.writeBlocked = err;
      }
      this.embedder = embedder;
      this.cache = embedder ? EmbeddingCache.open(dir, embedder.id, embedder.dims) : null;
      this.store = store;
      await this.rebuildCodeIndex();
      // Leftovers of an interrupted pack import are removed by the one writer, then packs load.
      if (!this.config.readOnly && !this.writeBlocked && !this.packsCleaned) {
        await cleanupPacks(dir, modelSearchDirs()[0]);
        this.packsCleaned = true;
      }
      await this.reloadPacks();
    } catch (err) {
      await embedder?.dispose();
      throw err;
    }
  }

  private async rebuildCodeIndex(): Promise<void> {
    if (!this.store) return;
    const records: CodeRecord[] = await this.store.allCodes();
    const schemes = await this.readSchemes();
    // A scheme file next to several manuals is read with each of them: keep one copy.
    const unique = new Map([...schemes.values()].flat().map((sc) => [JSON.stringify(sc), sc] as const));
    this.codes = new CodeIndex(records, [...unique.values()]);
  }

  private async readSchemes(): Promise<Map<string, CodeScheme[]>> {
    const raw = (await readJson(path.join(this.config.libraryDir, SCHEMES_FILE))) as Record<string, CodeScheme[]> | undefined;
    return new Map(Object.entries(raw ?? {}));
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.idle.stop();
    await this.opening?.catch(() => {});
    await this.writeChain.catch(() => {});
    await this.closeLocal();
    await closePackSources(this.packs);
    await this.answerModels.dispose();
  }

  private async reloadPacks(): Promise<void> {
    await closePackSources(this.packs);
    const e = this.embedder;
    this.packProblems.clear();
    this.packs = await openPackSources(this.config.libraryDir, e ? { id: e.id, dims: e.dims } : null, (pack, reason) =>
      this.packProblems.set(pack, reason),
    );
  }

  // ---- EngineApi -------------------------------------------------------------------------------

  info(): Promise<Result<LibraryInfo>> {
    return this.guard(async () => {
      const store = await this.ensureOpen(false);
      const stats = await store.stats();
      const meta = store.info;
      return {
        dir: this.config.libraryDir,
        formatVersion: meta.formatVersion,
        chunkerVersion: meta.chunkerVersion,
        embedder: meta.embedder,
        files: stats.files,
        chunks: stats.chunks,
        codes: stats.codes,
      };
    });
  }

  ingest(req: IngestRequest, hooks: EngineHooks = {}): Promise<Result<IngestReport>> {
    return this.guard(() =>
      this.serialWrite(async () => {
        const store = await this.openForWriting(true);
        const recorded = store.info.embedder;
        if (recorded && (!this.embedder || this.embedder.id !== recorded.id)) {
          throw new EngineError(
            'EMBEDDER_MISMATCH',
            `This library stores vectors of "${recorded.id}"; files can only be added with that model loaded. Install it, or build a new library with another model (manualdesk ingest <folders> --library <new folder> --embedder …).`,
          );
        }
        const outcome = await ingest(
          {
            store,
            vectors: this.embedder && this.cache ? { embedder: this.embedder, cache: this.cache } : null,
            libraryVersions: { chunkerVersion: store.info.chunkerVersion, analyzerVersion: store.info.analyzerVersion },
          },
          req,
          hooks,
        );
        const { schemes: learned, ...report } = outcome;
        await this.saveSchemes(learned, store);
        await this.rebuildCodeIndex();
        return report;
      }),
    );
  }

  /** Keeps the prefix schemes of files still in the library, replacing those of re-ingested files. */
  private async saveSchemes(learned: Map<string, CodeScheme[]>, store: LibraryStore): Promise<void> {
    const current = await this.readSchemes();
    const files = new Set(store.getFiles().map((f) => f.file));
    let changed = false;
    for (const file of [...current.keys()]) {
      if (!files.has(file)) {
        current.delete(file);
        changed = true;
      }
    }
    for (const [file, schemes] of learned) {
      current.set(file, schemes);
      changed = true;
    }
    if (changed) await writeJsonAtomic(path.join(this.config.libraryDir, SCHEMES_FILE), Object.fromEntries(current));
  }

  search(req: SearchRequest): Promise<Result<SearchResponse>> {
    return this.guard(async () => {
      const r = await this.retrieveNow(req);
      return { query: r.query, hits: r.hits, ms: r.ms, mode: r.mode };
    });
  }

  /** The one retrieval (codes, passages, each retriever's ranking) over the selected sources. */
  retrieve(req: RetrieveRequest, signal?: AbortSignal): Promise<Result<Retrieval>> {
    return this.guard(() => this.retrieveNow(req, signal));
  }

  private async retrieveNow(req: RetrieveRequest, signal?: AbortSignal): Promise<Retrieval> {
    const t0 = performance.now();
    const query = validateQuery(req.query);
    const k = clampK(req.k);
    const store = await this.ensureOpen(false);
    const r = await retrieve(this.sources(store, req.filters?.packs), { ...req, query, k }, this.settings, signal);
    return { ...r, ms: round2(performance.now() - t0) };
  }

  ask(req: AskRequest, hooks: AskHooks = {}): Promise<Result<AskResponse>> {
    return this.guard(async () => {
      await this.ensureOpen(false);
      return ask(
        {
          retrieve: (r, signal) => this.retrieveNow(r, signal),
          generator: () => this.answerModels.llm(),
          reranker: () => this.answerModels.reranker(),
        },
        req,
        hooks,
      );
    });
  }

  listModels(): Promise<Result<ModelStatus[]>> {
    return this.guard(() => this.answerModels.list(this.embedderId));
  }

  lookupCode(req: CodeLookupRequest): Promise<Result<CodeLookupResponse>> {
    return this.guard(async () => {
      const text = validateQuery(req.text);
      const t0 = performance.now();
      const store = await this.ensureOpen(false);
      if (!this.codes) throw new EngineError('INTERNAL', 'The fault-code index is not loaded.');
      return { ...lookupCodes(this.sources(store, req.filters?.packs), text, req.filters), ms: round2(performance.now() - t0) };
    });
  }

  listManuals(): Promise<Result<ManualInfo[]>> {
    return this.guard(async () => {
      const store = await this.ensureOpen(false);
      const files = store.getFiles();
      const current = newestRevisions(files);
      return files.map((f) => ({
        file: f.file,
        title: f.meta.title,
        equipment: f.meta.equipment,
        revision: f.meta.revision,
        language: f.meta.language,
        publisher: f.meta.publisher,
        format: f.format,
        chunks: f.chunks,
        current: current.has(f.file),
        source: f.source,
        pagesNeedingOcr: f.pagesWithoutText,
      }));
    });
  }

  /**
   * The source viewer's copy of a library file: only files recorded in the library (or in the named
   * installed pack, whose documents/ folder holds its manuals), never other paths.
   */
  openSource(req: SourceRequest): Promise<Result<SourceDocument>> {
    return this.guard(async () => {
      const store = await this.ensureOpen(false);
      const { rec, file } = req.pack && req.pack !== LOCAL_ID ? this.packDocument(req.pack, req.file) : this.localDocument(store, req.file);
      let data: Buffer;
      try {
        data = await fs.readFile(file);
      } catch {
        throw new EngineError(
          'FILE_UNREADABLE',
          req.pack && req.pack !== LOCAL_ID
            ? `${rec.file} is missing from pack ${req.pack} (${file}). Run "manualdesk pack verify" on the pack file, or re-import the pack.`
            : `${rec.file} was moved or deleted since it was indexed (${file}). Put it back or remove it from the library.`,
        );
      }
      const changed = data.length !== rec.size || createHash('sha256').update(data).digest('hex') !== rec.sha256;
      const base = { file: rec.file, manual: rec.meta.title, format: rec.format, changed };
      if (rec.format === 'pdf') return { kind: 'pdf' as const, ...base, base64: data.toString('base64') };
      return { kind: 'blocks' as const, ...base, blocks: (await parseFile(file)).blocks };
    });
  }

  private localDocument(store: LibraryStore, name: string): { rec: FileRecord; file: string } {
    const rec = store.getFiles().find((f) => f.file === name);
    if (!rec) throw new EngineError('NOT_FOUND', `${name} is not in the library. Search again, or add the file in the Library screen.`);
    return { rec, file: rec.source };
  }

  /** A pack's manual: its record in the pack's library, its bytes under the pack's documents/ folder. */
  private packDocument(pack: string, name: string): { rec: FileRecord; file: string } {
    const src = this.packs.find((p) => p.pack === pack);
    if (!src) {
      const problem = this.packProblems.get(pack);
      throw new EngineError(
        'NOT_FOUND',
        problem ?? `No active pack named ${pack} is installed (it may have been removed). Import the pack again or search again.`,
      );
    }
    const rec = src.store.getFiles().find((f) => f.file === name);
    if (!rec) throw new EngineError('NOT_FOUND', `${name} is not in pack ${pack} ${src.version}. Search again: the pack may have been updated.`);
    const docs = path.join(path.dirname(src.dir), 'documents');
    const file = path.join(docs, ...rec.file.split('/'));
    const rel = path.relative(docs, file);
    if (rel === '' || rel.split(path.sep)[0] === '..' || path.isAbsolute(rel)) {
      throw new EngineError('NOT_FOUND', `${name} does not name a document inside pack ${pack}.`);
    }
    return { rec, file };
  }

  removeFiles(files: string[]): Promise<Result<{ removed: number }>> {
    return this.guard(() =>
      this.serialWrite(async () => {
        const store = await this.openForWriting(false);
        const known = new Set(store.getFiles().map((f) => f.file));
        const unknown = files.filter((f) => !known.has(f));
        if (unknown.length > 0) {
          throw new EngineError(
            'NOT_FOUND',
            `Not in the library: ${unknown.join(', ')}. Use "manualdesk list" to see the files as the library names them.`,
          );
        }
        for (const f of files) await store.removeFile(f);
        await store.compact();
        await this.saveSchemes(new Map(), store);
        await this.rebuildCodeIndex();
        return { removed: files.length };
      }),
    );
  }

  // ---- packs (native/packs) ----------------------------------------------------------------------

  /** The local library and the active packs the filter selects, each with the embedder it can use. */
  private sources(store: LibraryStore, packs: string[] | undefined) {
    const unknown = (packs ?? []).filter((id) => id !== LOCAL_ID && !this.packs.some((p) => p.pack === id));
    if (unknown.length > 0) {
      throw new EngineError('INVALID_INPUT', `No installed pack named ${unknown.join(', ')}. "manualdesk pack list" shows the installed packs ("${LOCAL_ID}" is this library's own manuals).`);
    }
    const local = sourceSelected(packs, null) ? [{ pack: null as string | null, store, codes: this.codes, embedder: this.embedder }] : [];
    return [
      ...local,
      ...this.packs
        .filter((p) => sourceSelected(packs, p.pack))
        .map((p) => ({ pack: p.pack as string | null, store: p.store, codes: p.codes as CodeIndex | null, embedder: p.embedderId && p.embedderId === this.embedder?.id ? this.embedder : null })),
    ];
  }

  private siteState(store: LibraryStore): SiteState {
    return {
      libraryDir: this.config.libraryDir,
      embedder: store.info.embedder,
      localFiles: store.getFiles().length,
      embedderProblem: (id) => {
        try {
          specForRecorded(id);
          return null;
        } catch (err) {
          return err instanceof EngineError ? err : new EngineError('MODEL_MISSING', String(err));
        }
      },
      modelsDir: modelSearchDirs()[0] as string,
    };
  }

  listPacks(): Promise<Result<PackInfo[]>> {
    return this.guard(async () => {
      const trusted = trustedFingerprints(this.config.libraryDir);
      return readRegistry(this.config.libraryDir).map((e) => {
        const info = toPackInfo(this.config.libraryDir, e, trusted);
        const problem = this.packProblems.get(e.id);
        return problem ? { ...info, problem } : info;
      });
    });
  }

  verifyPack(req: { file: string }, hooks: PackHooks = {}): Promise<Result<PackVerifyReport>> {
    return this.guard(async () => {
      const store = await this.ensureOpen(false).catch((err: unknown) => {
        if (err instanceof EngineError && err.code === 'LIBRARY_NOT_FOUND') return null;
        throw err;
      });
      return verifyPack(req.file, store ? this.siteState(store) : null, hooks);
    });
  }

  importPack(req: PackImportRequest, hooks: PackHooks = {}): Promise<Result<PackInfo>> {
    return this.installPackFile(req, 'import', hooks);
  }

  updatePack(req: PackImportRequest, hooks: PackHooks = {}): Promise<Result<PackInfo>> {
    return this.installPackFile(req, 'update', hooks);
  }

  private installPackFile(req: PackImportRequest, mode: 'import' | 'update', hooks: PackHooks): Promise<Result<PackInfo>> {
    return this.guard(() =>
      this.serialWrite(async () => {
        // A site may start with packs only: the first import creates the (empty) local library.
        let store = await this.openForWriting(true);
        // Open pack files are never replaced or deleted underneath a reader (Windows refuses that).
        await closePackSources(this.packs);
        try {
          const outcome = await installPack(
            this.siteState(store),
            {
              file: req.file,
              allowUnsigned: req.allowUnsigned,
              mode,
              checkStaged: async (dir, m) => {
                if (m.kind !== 'manuals') return;
                const emb = m.library?.embedder ?? null;
                const probe = await LibraryStore.open(path.join(dir, 'library'), { embedder: emb ? { id: emb.id, dims: emb.dims } : null, readOnly: true });
                await probe.close();
                if (emb && !store.info.embedder) {
                  // The empty keyword-only library adopts the pack's model, so queries embed alike.
                  await this.closeLocal();
                  const adopted = await LibraryStore.open(this.config.libraryDir, { embedder: { id: emb.id, dims: emb.dims }, chunkerVersion: CHUNKER_VERSION });
                  await adopted.close();
                  store = await this.ensureOpen(true);
                }
              },
            },
            hooks,
          );
          return outcome.info;
        } finally {
          await this.reloadPacks();
        }
      }),
    );
  }

  rollbackPack(req: { id: string }): Promise<Result<PackInfo>> {
    return this.guard(() =>
      this.serialWrite(async () => {
        await this.openForWriting(false);
        await closePackSources(this.packs);
        try {
          return await rollbackPack(this.config.libraryDir, req.id);
        } finally {
          await this.reloadPacks();
        }
      }),
    );
  }

  removePack(req: { id: string }): Promise<Result<{ removed: string }>> {
    return this.guard(() =>
      this.serialWrite(async () => {
        await this.openForWriting(false);
        await closePackSources(this.packs);
        try {
          await removePack(this.config.libraryDir, req.id, modelSearchDirs()[0] as string);
          return { removed: req.id };
        } finally {
          await this.reloadPacks();
        }
      }),
    );
  }

  /** Closes the local store and embedder (not the engine), so the library can be reopened. */
  private async closeLocal(): Promise<void> {
    this.cache?.close();
    this.cache = null;
    await this.embedder?.dispose();
    this.embedder = null;
    await this.store?.close();
    this.store = null;
    this.codes = null;
  }

  /** Runs an API call: anything thrown becomes error data; the library's full disk says so. */
  private guard<T>(fn: () => Promise<T>): Promise<Result<T>> {
    return guard(fn, this.config.libraryDir).finally(() => {
      if (!this.closed) this.idle.touch();
    });
  }

  /** Opens the library for a write: refused when it is read-only, also when opening finds the folder so. */
  private async openForWriting(create: boolean): Promise<LibraryStore> {
    this.assertWritable();
    const store = await this.ensureOpen(create);
    this.assertWritable();
    return store;
  }

  private assertWritable(): void {
    if (this.writeBlocked) throw this.writeBlocked;
    if (this.config.readOnly) {
      throw new EngineError('INVALID_INPUT', 'This library was opened read-only; close other ManualDesk windows and open it for editing.');
    }
  }

  private serialWrite<T>(fn: () => Promise<T>): Promise<T> {
    const next = this.writeChain.then(fn, fn);
    this.writeChain = next.catch(() => {});
    return next;
  }
}

/** Picks the embedder a library was built with, when no embedder is configured explicitly. */
export function specForRecorded(id: string | null): EmbedderSpec {
  if (!id) return { kind: 'none' };
  if (id.startsWith('use-lite:')) return { kind: 'use-lite' };
  if (id.startsWith('static-words:')) return { kind: 'static-words' };
  if (id.startsWith('onnx:')) {
    const modelId = id.slice('onnx:'.length).replace(/@[0-9a-f]+$/, '');
    const dir = findModel(modelId, modelSearchDirs());
    if (!dir) {
      throw new EngineError(
        'MODEL_MISSING',
        `This library was indexed with the model ${modelId}, which is not installed. Install it from a model pack (manualdesk models add) or re-index the library with another model.`,
      );
    }
    return { kind: 'onnx', dir, modelId };
  }
  throw new EngineError('EMBEDDER_MISMATCH', `This library was indexed with an unknown embedder (${id}). Open it with that model (--embedder), or build a new library with another model (manualdesk ingest <folders> --library <new folder> --embedder …).`);
}

/** User models folder first, then the app's own models folder. */
export function modelSearchDirs(): string[] {
  const dirs: string[] = [];
  if (process.env.MANUALDESK_MODELS) dirs.push(process.env.MANUALDESK_MODELS);
  dirs.push(path.join(process.env.HOME ?? process.env.USERPROFILE ?? '.', '.manualdesk', 'models'));
  dirs.push(path.resolve(new URL('../models', import.meta.url).pathname));
  return dirs;
}

/** A library path that exists must be a folder (a file there is never a library). */
async function assertFolder(dir: string): Promise<void> {
  const st = await fs.stat(dir).catch(() => null);
  if (st && !st.isDirectory()) {
    throw new EngineError(
      'INVALID_INPUT',
      `The library path ${dir} is a file, not a folder. Choose a folder for the library (an empty or new one to start a library).`,
    );
  }
}

function round2(x: number): number {
  return Math.round(x * 100) / 100;
}

async function guard<T>(fn: () => Promise<T>, libraryDir: string): Promise<Result<T>> {
  try {
    return ok(await fn());
  } catch (err) {
    return { ok: false, error: toErrorData(libraryDiskError(err, libraryDir) ?? err) };
  }
}

export { CHUNKER_VERSION };
