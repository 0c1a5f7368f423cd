/**
 * The composition root: createEngine(config) wires the stages into one EngineApi that the CLI,
 * the HTTP server (browser mode) and the Electron main process all use. It holds the lifetimes
 * (the local Library, the pack sources, the answer models), serialises writes, and turns anything
 * thrown into error data. The work itself is in the stages and pipelines it calls.
 */
import type {
  CodeLookupRequest,
  CodeLookupResponse,
  EngineApi,
  EngineHooks,
  IngestReport,
  IngestRequest,
  LibraryInfo,
  ManualInfo,
  OpenedLibrary,
  OpenLibraryRequest,
  PackHooks,
  PackMethods,
  SearchFilters,
  SearchRequest,
  SearchResponse,
  SourceDocument,
  SourceRequest,
} from './contract/api.js';
import type { AskHooks, AskRequest, AskResponse, ModelStatus } from './contract/answer.js';
import type { PackImportRequest, PackInfo, PackVerifyReport } from './contract/packs.js';
import fs from 'node:fs/promises';
import path from 'node:path';
import { EngineError, ok, toErrorData, type Result } from './contract/errors.js';
import { Lifetime } from './base/lifetime.js';
import { configureNativeThreads, engineThreads, type EngineConfig } from './config.js';
import { IdleCollector } from './idle-gc.js';
import { embedderModelOf, installedEmbedder, modelSearchDirs, specForRecorded } from './model-discovery.js';
import { libraryDiskError } from './store/disk-errors.js';
import { VOCABULARY_COUNT_CAP } from './store/vocabulary.js';
import type { SwitchProgress } from './store/library-store.js';
import { Library, type GivenModel } from './library/library.js';
import { createEmbedder, type EmbedderSpec, type RememberedModel } from './embed/models.js';
import { readJson } from './store/atomic-json.js';
import { MODEL_FOLDER_FILE } from './library/layout.js';
import { listManuals, openSource } from './library/documents.js';
import { assertLibraryFolder, isSampleLibrary, prepareNewLibraryFolder, sampleSourcesOf } from './library/folders.js';
import { clampK, lookupCodes, retrieve, validateQuery, type Retrieval, type RetrieveRequest } from './search/retriever.js';
import { DEFAULT_RETRIEVAL_SETTINGS, keywordConfigFrom, type RetrievalSettings } from './search/settings.js';
import { answerRetrieval, ask, gateEvidence, type AnswerDeps } from './pipelines/answer.js';
import type { Evidence } from './answer/evidence.js';
import { ingestIntoLibrary, removeFromLibrary } from './pipelines/ingest.js';
import { AnswerModels } from './llm/holder.js';
import { cleanupPacks } from './packs/install.js';
import { Sources, sourceSelected } from './packs/sources.js';
import { installPackFile, listInstalled, removeInstalled, rollbackInstalled, verifyPackFile, type PackSite } from './packs/site.js';
import { CHUNKER_VERSION } from './chunk/index.js';

export interface Engine extends EngineApi, PackMethods {
  /** The embedder in use (null: keyword + fault codes only). */
  readonly embedderId: string | null;
  /** The one retrieval behind search and ask: code lookup, passages and each retriever's ranking. */
  retrieve(req: RetrieveRequest, signal?: AbortSignal): Promise<Result<Retrieval>>;
  /** The library's vocabulary for the evidence gate (not part of the contract; see termCounts below). */
  termCounts(terms: string[], packs?: string[], pathPrefix?: string): Promise<Result<Record<string, number>>>;
  /** The evidence the gate judges for a question, as ask gathers it (not part of the contract; see below). */
  gateEvidence(question: string, filters?: SearchFilters): Promise<Result<{ retrieval: Retrieval; evidence: Evidence; passages: number }>>;
}

/** Opens (or, with config.create, creates on first ingest) the library and returns the engine. */
export async function createEngine(config: EngineConfig): Promise<Engine> {
  configureNativeThreads();
  return new LocalEngine(config);
}

/** What a technician calls an installed embedding model: its manifest id, else its folder. */
function modelName(spec: EmbedderSpec | null): string | null {
  if (spec?.kind === 'onnx') return spec.modelId ?? path.basename(spec.dir);
  if (spec?.kind === 'gguf') return spec.modelId ?? path.basename(spec.file);
  return null;
}

/** Settings read from the environment here, and only here. */
function settingsFromEnv(): RetrievalSettings {
  const keyword = { ...DEFAULT_RETRIEVAL_SETTINGS.keyword, ...keywordConfigFrom(process.env.MANUALDESK_KEYWORD) };
  return { ...DEFAULT_RETRIEVAL_SETTINGS, keyword };
}

class LocalEngine implements Engine {
  private local: Library | null = null;
  private opening: Promise<Library> | null = null;
  /** The library folder in use (openLibrary switches it, with its sources and pack site). */
  private libraryDir: string;
  private sources: Sources;
  private readonly lifetime = new Lifetime('The engine');
  /** One full GC after each burst of calls (LanceDB's native results are freed only when collected). */
  private readonly idle: IdleCollector;
  private readonly settings: RetrievalSettings;
  private readonly modelDirs = modelSearchDirs();
  private packsCleaned = false;
  /** Serialises writes (ingest, remove, pack operations) inside this process. */
  private writeChain: Promise<unknown> = Promise.resolve();
  /** Writes running or waiting in the chain (openLibrary is refused while there are any). */
  private writesPending = 0;
  /** The language model and reranker for answers: loaded on first use, disposed on close. */
  private readonly answerModels = new AnswerModels(() => this.modelDirs, engineThreads());
  private site: PackSite;

  constructor(private readonly config: EngineConfig) {
    this.idle = new IdleCollector(config.idleGcMs ?? 2000, 10_000);
    this.settings = config.retrieval ?? settingsFromEnv();
    this.libraryDir = config.libraryDir;
    this.sources = new Sources(config.libraryDir);
    this.site = this.siteFor(config.libraryDir, this.sources);
  }

  /** What the pack operations need of the library at `dir`. */
  private siteFor(dir: string, sources: Sources): PackSite {
    return {
      libraryDir: dir,
      modelsDir: this.modelDirs[0] as string,
      sources,
      embedder: () => this.local?.embedder ?? null,
      openLocal: (create, opts) => this.openForWriting(create, opts?.modelOptional === true),
      closeLocal: () => this.closeLocal(),
      embedderProblem: (id) => {
        try {
          specForRecorded(id, this.modelDirs);
          return null;
        } catch (err) {
          return err instanceof EngineError ? err : new EngineError('MODEL_MISSING', String(err));
        }
      },
    };
  }

  get embedderId(): string | null {
    return this.local?.embedder?.id ?? null;
  }

  // ---- lifecycle -------------------------------------------------------------------------------

  private async ensureOpen(create: boolean, modelOptional = false): Promise<Library> {
    this.lifetime.assertOpen();
    if (this.local) return this.local;
    this.opening ??= this.open(create, modelOptional).finally(() => {
      this.opening = null;
    });
    return this.opening;
  }

  private async open(create: boolean, modelOptional = false): Promise<Library> {
    const local = await this.openAt(this.libraryDir, this.sources, create || this.config.create === true, modelOptional);
    this.local = local;
    return local;
  }

  /** Opens the library at `dir` and its installed packs into `sources`; on failure nothing stays open. */
  private async openAt(dir: string, sources: Sources, create: boolean, modelOptional = false): Promise<Library> {
    const local = await Library.open(dir, {
      embedder: this.config.embedder,
      resolveRecorded: (id, remembered) => specForRecorded(id, this.modelDirs, remembered),
      forNew: () => (this.config.newLibraryEmbedder === 'installed' ? installedEmbedder(this.modelDirs) : (this.config.newLibraryEmbedder ?? null)),
      create,
      readOnly: this.config.readOnly === true,
      modelOptional,
    });
    try {
      // Leftovers of an interrupted pack import are removed by the one writer, then packs load.
      if (!local.writeBlocked && !(this.packsCleaned && dir === this.libraryDir)) {
        await cleanupPacks(dir, this.modelDirs[0]);
        if (dir === this.libraryDir) this.packsCleaned = true;
      }
      await sources.openPacks(local.embedder);
    } catch (err) {
      await sources.closePacks();
      await local.close();
      throw err;
    }
    return local;
  }

  /** Closes the local library (not the engine), so it can be reopened. */
  private async closeLocal(): Promise<void> {
    const local = this.local;
    this.local = null;
    await local?.close();
  }

  /** Waits for running calls, then closes the library, the packs and the models. Safe twice. */
  close(): Promise<void> {
    return this.lifetime.close(async () => {
      this.idle.stop();
      await this.opening?.catch(() => {});
      await this.writeChain.catch(() => {});
      await this.closeLocal();
      await this.sources.closePacks();
      await this.answerModels.close();
    });
  }

  // ---- reads -----------------------------------------------------------------------------------

  info(): Promise<Result<LibraryInfo>> {
    return this.read(async (local) => this.infoOf(local, this.libraryDir));
  }

  private async infoOf(local: Library, dir: string): Promise<LibraryInfo> {
    const stats = await local.store.stats();
    const meta = local.info;
    return {
      dir,
      formatVersion: meta.formatVersion,
      chunkerVersion: meta.chunkerVersion,
      embedder: meta.embedder,
      embedderModel: meta.embedder ? await this.embedderModel(dir, meta.embedder.id) : null,
      files: stats.files,
      chunks: stats.chunks,
      codes: stats.codes,
      vectorsPending: stats.vectorsPending,
      modelToAdd: local.keywordOnly || local.missingModel ? modelName(installedEmbedder(this.modelDirs)) : null,
      modelMissing: local.missingModel ? { id: local.missingModel.id, message: local.missingModel.error.message } : null,
      switching: switchingOf(local.store.switching),
      filesRebuilt: local.store.recordsRebuilt,
      sample: isSampleLibrary(local.dir, local.store.getFiles()),
    };
  }

  /** The library's embedding model by name, licence and terms (the terms file found beside its weights). */
  private async embedderModel(dir: string, id: string): Promise<LibraryInfo['embedderModel']> {
    const remembered = (await readJson(path.join(dir, MODEL_FOLDER_FILE)).catch(() => undefined)) as RememberedModel | undefined;
    return embedderModelOf(id, this.modelDirs, remembered ?? null);
  }

  search(req: SearchRequest): Promise<Result<SearchResponse>> {
    return this.read(async (local, sources) => {
      const r = await this.retrieveWith(local, sources, req);
      return { query: r.query, hits: r.hits, ms: r.ms, mode: r.mode };
    });
  }

  retrieve(req: RetrieveRequest, signal?: AbortSignal): Promise<Result<Retrieval>> {
    return this.read((local, sources) => this.retrieveWith(local, sources, req, signal));
  }

  private async retrieveWith(local: Library, sources: Sources, req: RetrieveRequest, signal?: AbortSignal): Promise<Retrieval> {
    const t0 = performance.now();
    const query = validateQuery(req.query);
    const k = clampK(req.k);
    let r: Omit<Retrieval, 'ms'>;
    try {
      r = await retrieve(sources.select(local, req.filters?.packs), { ...req, query, k }, this.settings, signal);
    } catch (err) {
      // The model could not embed the query (its files went or changed as it was loaded again): the
      // library goes on without it, and this search is answered by keyword and fault code.
      if (!(err instanceof EngineError && err.code === 'MODEL_MISSING' && (await local.checkModel(err)))) throw err;
      r = await retrieve(sources.select(local, req.filters?.packs), { ...req, query, k }, this.settings, signal);
    }
    return { ...r, ms: round2(performance.now() - t0) };
  }

  lookupCode(req: CodeLookupRequest): Promise<Result<CodeLookupResponse>> {
    return this.read(async (local, sources) => {
      const text = validateQuery(req.text);
      const t0 = performance.now();
      return { ...lookupCodes(sources.select(local, req.filters?.packs), text, req.filters), ms: round2(performance.now() - t0) };
    });
  }

  ask(req: AskRequest, hooks: AskHooks = {}): Promise<Result<AskResponse>> {
    return this.read((local, sources) =>
      ask(
        {
          retrieve: (r, signal) => this.retrieveWith(local, sources, r, signal),
          ...this.gateDeps(local, sources),
          generator: () => this.answerModels.llm(),
          generatorChecked: () => this.answerModels.llmChecked(),
          reranker: () => this.answerModels.reranker(),
          passagesOf: async (file, pack) => {
            const src = sources.select(local, undefined).find((s) => s.pack === pack);
            return src?.store.fileChunks ? ((await src.store.fileChunks([file])).get(file) ?? []) : [];
          },
        },
        req,
        hooks,
      ),
    );
  }

  /** What the gate reads of the library besides a retrieval: vocabulary, spread over documentation sets, manual titles. */
  private gateDeps(local: Library, sources: Sources): Pick<AnswerDeps, 'vocabulary' | 'spread' | 'titles'> {
    return {
      vocabulary: async (terms, filters) => new Map(Object.entries(await this.termCountsWith(local, sources, terms, filters?.packs, filters?.pathPrefix))),
      spread: (terms, filters) => this.termSpreadWith(local, sources, terms, filters?.packs),
      titles: async (folders, filters) => this.titlesIn(local, sources, folders, filters?.packs),
    };
  }

  /**
   * The evidence the gate judges for a question, gathered as ask gathers it (the same retrieval and
   * pipelines/answer.ts gateEvidence; no follow-up rewrite, no reranker): what scripts/calibrate-gate.ts
   * replays. Not part of the contract.
   */
  gateEvidence(question: string, filters?: SearchFilters): Promise<Result<{ retrieval: Retrieval; evidence: Evidence; passages: number }>> {
    return this.read(async (local, sources) => {
      const retrieval = await this.retrieveWith(local, sources, answerRetrieval(question, undefined, filters));
      const passages = retrieval.hits.filter((h) => h.kind !== 'code');
      const { evidence } = await gateEvidence(this.gateDeps(local, sources), question, retrieval, passages, filters);
      return { retrieval, evidence, passages: passages.length };
    });
  }

  /**
   * The library's vocabulary (gate): in how many passages of the selected sources each analyzed term
   * occurs, summed and capped (store/vocabulary.ts). Not part of the contract; ask and scripts use it.
   */
  termCounts(terms: string[], packs?: string[], pathPrefix?: string): Promise<Result<Record<string, number>>> {
    return this.read((local, sources) => this.termCountsWith(local, sources, terms, packs, pathPrefix));
  }

  /** `pathPrefix`: one folder's vocabulary (a named product's manuals) instead of the whole library's. */
  private async termCountsWith(local: Library, sources: Sources, terms: string[], packs?: string[], pathPrefix?: string): Promise<Record<string, number>> {
    const out: Record<string, number> = {};
    for (const src of sources.select(local, packs)) {
      for (const [t, n] of await src.store.termCounts(terms, { pathPrefix })) out[t] = Math.min(VOCABULARY_COUNT_CAP, (out[t] ?? 0) + n);
    }
    return out;
  }

  /** The titles and equipment names of the selected sources' manuals in these folders (the gate: which machine a folder is about). */
  private titlesIn(local: Library, sources: Sources, folders: string[], packs?: string[]): string[] {
    const out: string[] = [];
    for (const src of sources.select(local, packs)) {
      for (const f of src.store.getFiles()) {
        if (folders.some((d) => f.file.startsWith(`${d}/`))) out.push(f.meta.title, ...(f.meta.equipment ?? []));
      }
    }
    return out;
  }

  /**
   * In how many documentation sets of the selected sources each analyzed term occurs, and which sets
   * they hold (a pack's sets named after the pack): the gate's measure of a generic word (store/vocabulary.ts).
   */
  private async termSpreadWith(local: Library, sources: Sources, terms: string[], packs?: string[]): Promise<{ spread: Map<string, number>; docSets: string[] }> {
    const libraries = [
      ...(sourceSelected(packs, null) ? [{ pack: null, library: local }] : []),
      ...sources.packs.filter((p) => sourceSelected(packs, p.pack)),
    ];
    const spread = new Map<string, number>();
    const sets: string[] = [];
    for (const { pack, library } of libraries) {
      const r = await library.store.termSpread(terms);
      for (const [t, n] of r.spread) spread.set(t, (spread.get(t) ?? 0) + n);
      sets.push(...r.docSets.map((d) => (pack ? `${pack}: ${d}` : d)));
    }
    return { spread, docSets: sets };
  }

  listModels(): Promise<Result<ModelStatus[]>> {
    return this.guard(() => this.answerModels.list(this.embedderId));
  }

  listManuals(): Promise<Result<ManualInfo[]>> {
    return this.read(async (local) => listManuals(local));
  }

  openSource(req: SourceRequest): Promise<Result<SourceDocument>> {
    return this.read((local, sources) => openSource(local, sources, req));
  }

  // ---- writes ----------------------------------------------------------------------------------

  ingest(req: IngestRequest, hooks: EngineHooks = {}): Promise<Result<IngestReport>> {
    return this.write(async () => {
      // "Turn on search by meaning" also serves a library whose own model is not installed here: it
      // switches to the installed one (the library is searched by keyword until the switch completes).
      const local = await this.openForWriting(true, req.completeVectors === true);
      if (req.completeVectors && (local.keywordOnly || local.missingModel)) await local.adoptGivenModel(await this.installedModel());
      return ingestIntoLibrary(local, req, hooks);
    });
  }

  /** The installed embedding model a keyword-only library can take (IngestRequest.completeVectors). */
  private async installedModel(): Promise<GivenModel> {
    const spec = installedEmbedder(this.modelDirs);
    const embedder = spec ? await createEmbedder(spec) : null;
    if (!spec || !embedder) {
      throw new EngineError(
        'MODEL_MISSING',
        `No search model (embedding model) is installed in ${this.modelDirs.join(' or ')}. Import a model pack on the Packs screen, or install one with "manualdesk models add <model folder>", then turn search by meaning on again. Keyword search and fault codes work without it.`,
      );
    }
    return { embedder, spec };
  }

  removeFiles(files: string[]): Promise<Result<{ removed: number }>> {
    // Removing a manual needs no model: it works on a library whose model is not installed here.
    return this.write(async () => removeFromLibrary(await this.openForWriting(false, true), files));
  }

  openLibrary(req: OpenLibraryRequest): Promise<Result<OpenedLibrary>> {
    if (this.writesPending > 0) {
      return Promise.resolve({
        ok: false,
        error: {
          code: 'LIBRARY_BUSY',
          message: `The library ${this.libraryDir} is being changed (manuals being added or removed, or a pack operation). Wait until it has finished, or cancel it, then open the other library.`,
        },
      });
    }
    return this.write(() => this.switchLibrary(path.resolve(req.dir), req.create));
  }

  /**
   * Opens (or creates) the library at `dir` while the current one stays in use; only then swaps them,
   * once the searches running on the current one have finished, and closes it (its lock released).
   */
  private async switchLibrary(dir: string, create: boolean): Promise<OpenedLibrary> {
    const current = path.resolve(this.libraryDir);
    if (dir === current) {
      // The library this engine was started with, not opened yet (none there): create it when asked.
      const unopened = create && !this.local && !(await this.opening?.then(() => true, () => false));
      const absent = unopened && (await prepareNewLibraryFolder(dir, null)).kind === 'new';
      const local = await this.ensureOpen(create, true);
      if (create && isSampleLibrary(local.dir, local.store.getFiles())) {
        throw new EngineError('INVALID_INPUT', `${dir} is the fictional sample library. Choose another folder for your own library, for example ${path.join(path.dirname(dir), 'library')}.`);
      }
      return { info: await this.infoOf(local, this.libraryDir), created: absent };
    }
    let made: string | null = null;
    let created = false;
    if (create) {
      const samples = this.local ? sampleSourcesOf(this.local.dir) : sampleSourcesOf(current);
      const folder = await prepareNewLibraryFolder(dir, samples);
      if (folder.kind === 'new') {
        made = folder.made;
        created = true;
      }
    } else {
      assertLibraryFolder(dir);
    }
    const sources = new Sources(dir);
    let next: Library;
    try {
      next = await this.openAt(dir, sources, created, true);
    } catch (err) {
      // The folder this call made holds nothing but what the failed open wrote.
      if (made) await fs.rm(made, { recursive: true, force: true }).catch(() => {});
      throw err;
    }
    const oldSources = this.sources;
    const old = await oldSources.exclusive(async () => {
      await this.opening?.catch(() => {});
      const previous = this.local;
      this.local = next;
      this.libraryDir = dir;
      this.sources = sources;
      this.site = this.siteFor(dir, sources);
      this.packsCleaned = true;
      return previous;
    });
    await oldSources.closePacks().catch(() => {});
    await old?.close();
    return { info: await this.infoOf(next, dir), created };
  }

  listPacks(): Promise<Result<PackInfo[]>> {
    return this.guard(async () => listInstalled(this.site));
  }

  verifyPack(req: { file: string }, hooks: PackHooks = {}): Promise<Result<PackVerifyReport>> {
    return this.guard(async () => {
      const local = await this.ensureOpen(false).catch((err: unknown) => {
        if (err instanceof EngineError && err.code === 'LIBRARY_NOT_FOUND') return null;
        throw err;
      });
      return verifyPackFile(this.site, local, req.file, hooks);
    });
  }

  importPack(req: PackImportRequest, hooks: PackHooks = {}): Promise<Result<PackInfo>> {
    return this.write(() => installPackFile(this.site, req, 'import', hooks));
  }

  updatePack(req: PackImportRequest, hooks: PackHooks = {}): Promise<Result<PackInfo>> {
    return this.write(() => installPackFile(this.site, req, 'update', hooks));
  }

  rollbackPack(req: { id: string }): Promise<Result<PackInfo>> {
    return this.write(() => rollbackInstalled(this.site, req.id));
  }

  removePack(req: { id: string }): Promise<Result<{ removed: string }>> {
    return this.write(() => removeInstalled(this.site, req.id));
  }

  // ---- plumbing --------------------------------------------------------------------------------

  /** Opens the library for a write: refused when it is read-only, also when opening finds the folder so. */
  private async openForWriting(create: boolean, modelOptional = false): Promise<Library> {
    let local = await this.ensureOpen(create, modelOptional);
    await local.checkModel();
    // Opened without its model (by a read): a write that needs the model is refused with what to
    // install, unless the model has been installed since (then the library opens again, with it).
    const missing = local.missingModel;
    if (missing && !modelOptional) {
      if (!(await this.installedNow(local.dir, missing.id))) throw missing.error;
      await this.closeLocal();
      local = await this.ensureOpen(create, false);
    }
    local.assertWritable();
    return local;
  }

  /** Whether the model `id` of the library at `dir` is installed now, with the weights its vectors were made with. */
  private async installedNow(dir: string, id: string): Promise<boolean> {
    const remembered = (await readJson(path.join(dir, MODEL_FOLDER_FILE)).catch(() => undefined)) as RememberedModel | undefined;
    try {
      specForRecorded(id, this.modelDirs, remembered ?? null);
      return true;
    } catch {
      return false;
    }
  }

  /**
   * A read call: the local library open, pack libraries held open until it is done. A call that
   * started while openLibrary swapped the library runs again on the new one.
   */
  private read<T>(fn: (local: Library, sources: Sources) => Promise<T>): Promise<Result<T>> {
    return this.guard(async () => {
      for (;;) {
        const sources = this.sources;
        // A library whose model is not installed here is still searched, by keyword and fault code.
        const done = await sources.read(async () => {
          if (sources !== this.sources) return null;
          const local = await this.ensureOpen(false, true);
          // A read-only library first takes up what a writer in another process committed.
          await local.followWriter();
          // A model folder deleted, damaged or replaced since it was loaded: keyword search, and info says why.
          await local.checkModel();
          return { value: await fn(local, sources) };
        });
        if (done) return done.value;
      }
    });
  }

  /** A write call, serialised with the other writes of this process. */
  private write<T>(fn: () => Promise<T>): Promise<Result<T>> {
    return this.guard(() => {
      this.writesPending++;
      const next = this.writeChain.then(fn, fn).finally(() => this.writesPending--);
      this.writeChain = next.catch(() => {});
      return next;
    });
  }

  /** Runs an API call (counted, so close waits for it): anything thrown becomes error data; the library's full disk says so. */
  private async guard<T>(fn: () => Promise<T>): Promise<Result<T>> {
    try {
      return ok(await this.lifetime.run(fn));
    } catch (err) {
      return { ok: false, error: toErrorData(libraryDiskError(err, this.libraryDir) ?? err) };
    } finally {
      if (!this.lifetime.closed) this.idle.touch();
    }
  }
}

function round2(x: number): number {
  return Math.round(x * 100) / 100;
}

export { CHUNKER_VERSION };

function switchingOf(sw: SwitchProgress | null): LibraryInfo['switching'] {
  return sw ? { to: sw.to.id, pending: sw.pending, total: sw.total } : null;
}
