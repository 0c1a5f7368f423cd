/**
 * A library folder and everything opened from it: the store (chunks, codes, file records), the
 * embedder it was indexed with and its embedding cache, the code schemes and the in-memory code index.
 * The one owner of the folder's files (native/library/layout.ts). An installed pack is a read-only
 * Library that borrows the engine's embedder when its vectors were made with the same model.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import type { CodeScheme } from '../fault-codes/schemes.js';
import { CodeIndex } from '../fault-codes/index.js';
import { EngineError } from '../contract/errors.js';
import { embedderRequired as embedderRequiredMessage, otherModelFiles, otherModelGiven, READ_ONLY_ENGINE } from '../contract/messages.js';
import { createEmbedder, type EmbedderSpec } from '../embed/models.js';
import type { Embedder } from '../embed/types.js';
import { EmbeddingCache } from '../embed/cache.js';
import { readJson } from '../store/atomic-json.js';
import { LibraryReadOnlyError } from '../store/disk-errors.js';
import { assertLibraryVersions, LibraryStore } from '../store/library-store.js';
import type { LibraryMeta } from '../store/types.js';
import type { RetrievalSource } from '../search/retriever.js';
import { buildNameIndex, type NameIndex } from '../search/plan/name-index.js';
import { buildMessageIndex, type MessageIndex } from '../search/plan/messages.js';
import { CHUNKER_VERSION } from '../chunk/index.js';
import { prepareQueryAnalysis } from '../text/analyze.js';
import { prepareDictionary } from '../text/dictionary.js';
import { Disposable } from '../base/lifetime.js';
import { LIBRARY_FILE, MODEL_FOLDER_FILE } from './layout.js';
import type { RememberedModel } from '../embed/models.js';
import { writeJsonAtomic } from '../store/atomic-json.js';
import { readSchemes, saveSchemes, uniqueSchemes } from './schemes.js';

export interface LibraryOpenOptions {
  /** The embedder to use; default: resolveRecorded(the library's recorded one). */
  embedder?: EmbedderSpec;
  /** Turns a recorded embedder id into a spec (finds the model on disk; throws MODEL_MISSING). */
  resolveRecorded: (id: string | null, remembered?: RememberedModel | null) => EmbedderSpec;
  /** The embedder of a library created by this open (no library.json yet), when `embedder` is not set. */
  forNew?: () => EmbedderSpec | null;
  /** Create the library when the folder has none. */
  create?: boolean;
  readOnly?: boolean;
  /**
   * Open even when the recorded model is not installed (MODEL_MISSING): with no embedder. Searched by
   * keyword and fault code only (Library.missingModel says why); refuses to take new passages
   * (they would get no vectors) until the model is installed or the library switches to another one.
   */
  modelOptional?: boolean;
}

/** A model given to a keyword-only library that holds manuals: adopted by its next write (ingest). */
export interface GivenModel {
  embedder: Embedder;
  spec: EmbedderSpec;
}

export class Library extends Disposable {
  private nameIndex: Promise<NameIndex> | null = null;
  private messageIndex: Promise<MessageIndex> | null = null;
  /** The embedding cache of the model a switch moves the library to. */
  private switchCache: EmbeddingCache | null = null;

  private constructor(
    readonly dir: string,
    readonly store: LibraryStore,
    private searchEmbedder: Embedder | null,
    private cache: EmbeddingCache | null,
    private codeIndex: CodeIndex,
    /** Why writes are refused (a read-only open, a folder that cannot be written); null: writable. */
    readonly writeBlocked: EngineError | null,
    /** Whether the embedder is this library's own (disposed with it) or borrowed (a pack's). */
    private readonly ownsEmbedder: boolean,
    private given: GivenModel | null = null,
    /** Why the recorded model is not loaded (opened with modelOptional); null: it is, or there is none. */
    private modelMissing: EngineError | null = null,
  ) {
    super('The library');
    this.indexedAt = store.filesRevision;
  }

  /** The library's own model after its files went or changed while open: kept to be disposed with the library. */
  private retired: Embedder | null = null;

  /** The store's file-records revision the code index (and the names and messages built from it) was read at. */
  private indexedAt: number;

  /** The model the library's vectors are made with (null: keyword + fault codes only). */
  get embedder(): Embedder | null {
    return this.searchEmbedder;
  }

  /**
   * Opens the local library. A folder that cannot be written is opened read-only (searchable;
   * writes say why), unless it is being created.
   */
  static async open(dir: string, opts: LibraryOpenOptions): Promise<Library> {
    await assertFolder(dir);
    const recorded = (await readJson(path.join(dir, LIBRARY_FILE))) as LibraryMeta | undefined;
    // A damaged library.json is said to be one before its model is looked up by what it records.
    if (recorded !== undefined) assertLibraryVersions(recorded, dir);
    const remembered = (await readJson(path.join(dir, MODEL_FOLDER_FILE)).catch(() => undefined)) as RememberedModel | undefined;
    const fresh = recorded === undefined && opts.create === true ? (opts.forNew?.() ?? null) : null;
    let spec: EmbedderSpec;
    let missing: { id: string; dims: number } | null = null;
    let missingWhy: EngineError | null = null;
    try {
      spec = opts.embedder ?? fresh ?? opts.resolveRecorded(recorded?.embedder?.id ?? null, remembered ?? null);
    } catch (err) {
      if (!(opts.modelOptional && recorded?.embedder && err instanceof EngineError && err.code === 'MODEL_MISSING')) throw err;
      spec = { kind: 'none' };
      missing = recorded.embedder;
      missingWhy = err;
    }
    const mayOpenWithout = (err: unknown): err is EngineError =>
      opts.modelOptional === true && recorded?.embedder != null && err instanceof EngineError && err.code === 'MODEL_MISSING';
    let embedder: Embedder | null;
    try {
      embedder = await sameModelAsRecorded(await createEmbedder(spec), recorded?.embedder ?? null, opts.embedder === undefined);
    } catch (err) {
      // A model that cannot be loaded (damaged files) or is not the library's (other tokenizer or
      // config): missing for vectors only; keyword search and fault codes keep working.
      if (!mayOpenWithout(err)) throw err;
      embedder = null;
      missing = recorded?.embedder ?? null;
      missingWhy = err;
    }
    try {
      const identity = embedder ? { id: embedder.id, dims: embedder.dims } : missing;
      const options = {
        embedder: identity,
        create: opts.create === true,
        readOnly: opts.readOnly === true,
        chunkerVersion: CHUNKER_VERSION,
        // A model named for a keyword-only library with manuals: ingest gives the library that model.
        mayAdopt: opts.embedder !== undefined,
      };
      let store: LibraryStore;
      let blocked: EngineError | null = opts.readOnly ? new EngineError('LIBRARY_READ_ONLY', READ_ONLY_ENGINE) : null;
      try {
        store = await LibraryStore.open(dir, options);
      } catch (err) {
        if (!(err instanceof LibraryReadOnlyError) || options.create) throw err;
        // A library on a read-only disk (or without write permission) can still be searched.
        store = await LibraryStore.open(dir, { ...options, readOnly: true });
        blocked = err;
      }
      try {
        const recordedModel = store.info.embedder;
        if (embedder && (recordedModel === null || recordedModel.id !== embedder.id || recordedModel.dims !== embedder.dims)) {
          // Keyword-only until its next ingest adopts the model (adoptGivenModel); a library with
          // another model: without vector search in this process until the ingest has switched it.
          return new Library(dir, store, null, null, await loadCodeIndex(store), blocked, true, { embedder, spec });
        }
        const modelPath = rememberedPath(spec);
        if (embedder && !blocked && modelPath && remembered?.dir !== modelPath) await rememberModelFolder(dir, spec, embedder);
        const cache = embedder ? EmbeddingCache.open(dir, embedder.id, embedder.dims) : null;
        return new Library(dir, store, embedder, cache, await loadCodeIndex(store), blocked, true, null, missingWhy);
      } catch (err) {
        await store.close();
        throw err;
      }
    } catch (err) {
      await embedder?.dispose();
      throw err;
    }
  }

  /** An installed pack's library: read-only, searched with `embedder` only when its vectors are that model's. */
  static async openPack(dir: string, embedder: Embedder | null, packEmbedder: { id: string; dims: number } | null): Promise<Library> {
    const same =
      packEmbedder !== null && embedder !== null && packEmbedder.dims === embedder.dims && (packEmbedder.id === embedder.id || embedder.isSame?.(packEmbedder.id) === true);
    const store = await LibraryStore.open(dir, { embedder: same ? { id: packEmbedder.id, dims: packEmbedder.dims } : null, readOnly: true });
    try {
      const blocked = new EngineError('LIBRARY_READ_ONLY', 'An installed pack is read-only; build a new version of the pack to change it.');
      return new Library(dir, store, same ? embedder : null, null, await loadCodeIndex(store), blocked, false);
    } catch (err) {
      await store.close();
      throw err;
    }
  }

  /** Checks that a staged pack's library opens (format, embedder) without keeping it open. */
  static async probe(dir: string, embedder: { id: string; dims: number } | null): Promise<void> {
    const probe = await LibraryStore.open(dir, { embedder, readOnly: true });
    await probe.close();
  }

  /** Makes an empty keyword-only library adopt an embedder (so queries embed like a pack's). */
  static async adoptEmbedder(dir: string, embedder: { id: string; dims: number }): Promise<void> {
    const adopted = await LibraryStore.open(dir, { embedder, chunkerVersion: CHUNKER_VERSION });
    await adopted.close();
  }

  get codes(): CodeIndex {
    return this.codeIndex;
  }

  get info(): LibraryMeta {
    return this.store.info;
  }

  /** The embedding side of ingest (null: keyword + fault codes only). */
  get vectors(): { embedder: Embedder; cache: EmbeddingCache } | null {
    return this.embedder && this.cache ? { embedder: this.embedder, cache: this.cache } : null;
  }

  /** This library as a search source (pack: the installed pack's id, null for the local library). */
  source(pack: string | null): RetrievalSource {
    const given = this.given;
    const recorded = this.store.info.embedder;
    // Opened with another model than its own, for an ingest to switch it: not searched with either
    // (unless its own is missing: then it is searched by keyword while it switches, as before it).
    if (given && recorded && !this.modelMissing) throw new EngineError('EMBEDDER_MISMATCH', otherModelGiven(this.dir, recorded.id, given.embedder.id));
    const embedder = this.embedder && !this.embedder.unusable ? this.embedder : null;
    return { pack, store: this.store, codes: this.codeIndex, embedder, names: () => this.names(), messages: () => this.messages() };
  }

  /** The messages the library's passages show (search/plan/messages.ts), built like the names and kept in memory. */
  messages(): Promise<MessageIndex> {
    this.messageIndex ??= this.store.fencedTexts().then(buildMessageIndex, (err: unknown) => {
      this.messageIndex = null;
      throw err;
    });
    return this.messageIndex;
  }

  /**
   * The library's known names (search/plan/name-index.ts), built on the first retrieval after the library
   * opens or changes (titles, sidecar equipment, top folders, chunk headings: a fraction of a second
   * from stored rows) and kept in memory.
   */
  names(): Promise<NameIndex> {
    this.nameIndex ??= buildNames(this.store).catch((err: unknown) => {
      this.nameIndex = null;
      throw err;
    });
    return this.nameIndex;
  }

  /** Refuses a write with the reason (read-only open, unwritable folder, pack). */
  assertWritable(): void {
    this.lifetime.assertOpen();
    if (this.writeBlocked) throw this.writeBlocked;
  }

  /**
   * The library's own model when it is not installed on this computer (opened with modelOptional):
   * its id, and the error that says how to install it. The library is searched by keyword and fault
   * code meanwhile; an ingest refuses until the model is back or the library has switched to another.
   */
  get missingModel(): { id: string; error: EngineError } | null {
    const recorded = this.store.info.embedder;
    return this.modelMissing && recorded ? { id: recorded.id, error: this.modelMissing } : null;
  }

  /**
   * Checks that the library's model is still the one it was opened with (files not deleted, damaged
   * or changed since; OnnxEmbedder.verify). When it is not, or `failure` (MODEL_MISSING from using it)
   * says so, the library goes on without it as if it were not installed: keyword search and fault
   * codes, info's modelMissing says why, and writes that need vectors are refused. Returns that reason.
   */
  async checkModel(failure?: EngineError): Promise<EngineError | null> {
    const embedder = this.searchEmbedder;
    if (!embedder || !this.ownsEmbedder || !this.store.info.embedder) return null;
    const why = failure?.code === 'MODEL_MISSING' ? failure : ((await embedder.verify?.()) ?? embedder.unusable ?? null);
    if (!why) return null;
    this.modelMissing = why;
    this.searchEmbedder = null;
    this.retired = embedder;
    this.cache?.close();
    this.cache = null;
    return why;
  }

  /** True when the library has no embedding model yet (keyword + fault codes only). */
  get keywordOnly(): boolean {
    return this.store.info.embedder === null;
  }

  /**
   * A keyword-only library takes a model: the one named for it when it was opened (ingest --embedder),
   * or `model` (the app's "turn on search by meaning"; owned by the library from here on). Records the
   * model and marks every passage as waiting for its vectors, which the ingest then computes. Keyword
   * search and codes keep working meanwhile. Does nothing when there is no model to adopt.
   */
  async adoptGivenModel(model?: GivenModel): Promise<void> {
    if (model && this.given && this.given.embedder !== model.embedder) await this.given.embedder.dispose();
    const given = model ?? this.given;
    if (!given) return;
    this.given = given;
    // A library with a model of its own switches to the given one instead (switchVectors).
    if (!this.keywordOnly) return;
    this.assertWritable();
    await this.store.adoptEmbedder({ id: given.embedder.id, dims: given.embedder.dims });
    this.given = null;
    this.searchEmbedder = given.embedder;
    this.cache = EmbeddingCache.open(this.dir, given.embedder.id, given.embedder.dims);
    await rememberModelFolder(this.dir, given.spec, given.embedder);
  }

  /**
   * The model named for a library that has another one (ingest --embedder), with its embedding cache:
   * what a model switch embeds every passage with. Null when there is no switch to make.
   */
  switchVectors(): { embedder: Embedder; cache: EmbeddingCache } | null {
    const given = this.given;
    if (!given || this.keywordOnly) return null;
    this.switchCache ??= EmbeddingCache.open(this.dir, given.embedder.id, given.embedder.dims);
    return { embedder: given.embedder, cache: this.switchCache };
  }

  /**
   * Ends a model switch whose passages all have vectors of the new model (LibraryStore.completeSwitch):
   * from here on the library searches and ingests with that model, and remembers its folder.
   */
  async finishSwitch(): Promise<void> {
    const given = this.given;
    if (!given || !this.switchCache) throw new EngineError('INVALID_INPUT', 'No model switch is under way.');
    this.assertWritable();
    await this.store.completeSwitch();
    this.given = null;
    this.modelMissing = null;
    this.searchEmbedder = given.embedder;
    this.cache?.close();
    this.cache = this.switchCache;
    this.switchCache = null;
    this.nameIndex = null;
    this.messageIndex = null;
    await rememberModelFolder(this.dir, given.spec, given.embedder);
  }

  /** Ingest and removal need the embedder the library's vectors were made with. */
  assertEmbedderForWrites(): void {
    if (this.modelMissing) throw this.modelMissing;
    const recorded = this.store.info.embedder;
    if (recorded && (!this.embedder || this.embedder.id !== recorded.id)) {
      throw new EngineError('EMBEDDER_MISMATCH', embedderRequiredMessage(recorded.id));
    }
  }

  /** After files were added or removed: keeps the schemes of files still present, adds `learned`, rebuilds the code index. */
  async afterChange(learned: Map<string, CodeScheme[]> = new Map()): Promise<void> {
    await saveSchemes(this.dir, learned, new Set(this.store.getFiles().map((f) => f.file)));
    await this.reindex();
    await this.prepareSearch();
  }

  /**
   * Builds now what the first search after a change would otherwise wait for (measured on a new
   * library: 0.5-0.9 s of a first search against 0.02 s for the next): the name and message
   * indexes of the stored rows, the query analyzer's thesauri with the Chinese segmenter, and the
   * English dictionary the answer gate reads (text/dictionary.ts). A
   * failure here fails no write: the search that needs an index builds it, and reports its error.
   */
  async prepareSearch(): Promise<void> {
    prepareQueryAnalysis();
    prepareDictionary();
    await Promise.all([this.names(), this.messages()]).catch(() => {});
  }

  /** Whether the name and message indexes of the current contents are built (or being built). */
  get searchPrepared(): boolean {
    return this.nameIndex !== null && this.messageIndex !== null;
  }

  /**
   * Opened read-only beside a writer (another process): takes up what it committed since the last read
   * (the store's file records and tables, then the code index and the names and messages built from them).
   */
  async followWriter(): Promise<void> {
    await this.store.followWriter();
    // Compared with the revision the index was read at, not the one before this call: a search running
    // beside this read may have moved the store on already (its read follows the writer too).
    if (this.store.filesRevision !== this.indexedAt) await this.reindex();
  }

  /** Rebuilds the in-memory code index from the committed rows. */
  async reloadCodes(): Promise<void> {
    await this.reindex();
  }

  /** Reads the code index again from the committed rows; the names and messages built from it follow when next asked. */
  private async reindex(): Promise<void> {
    const at = this.store.filesRevision;
    this.codeIndex = await loadCodeIndex(this.store);
    this.indexedAt = at;
    this.nameIndex = null;
    this.messageIndex = null;
  }

  /**
   * Frees what the library can rebuild (the embedding cache; temp files a failed write left) so a
   * removal can commit on a full disk. Returns the bytes freed.
   */
  async freeRebuildableSpace(): Promise<number> {
    let freed = 0;
    try {
      freed += this.cache?.clear() ?? 0;
    } catch {
      // a cache that cannot be emptied frees nothing
    }
    for (const name of await fs.readdir(this.dir).catch(() => [] as string[])) {
      if (!/\.tmp$/.test(name)) continue;
      const st = await fs.stat(path.join(this.dir, name)).catch(() => null);
      if (st?.isFile() && (await fs.rm(path.join(this.dir, name)).then(() => true, () => false))) freed += st.size;
    }
    return freed;
  }

  protected async dispose(): Promise<void> {
    this.cache?.close();
    this.cache = null;
    this.switchCache?.close();
    this.switchCache = null;
    if (this.ownsEmbedder) await this.embedder?.dispose();
    if (this.ownsEmbedder) await this.retired?.dispose();
    await this.given?.embedder.dispose();
    await this.store.close();
  }
}

/**
 * The model loaded for a library that records one: under the recorded id when it is that model by
 * content (the same weights, tokenizer and config in another folder, or an id recorded before the
 * content was part of it). One found from the recorded id (`fromRecord`) that is another model by
 * content (an edited tokenizer.json, another config.json) is not the library's: MODEL_MISSING, so no
 * vector of it is ever mixed with the library's. A model named explicitly stays as it is (a switch).
 */
async function sameModelAsRecorded(embedder: Embedder | null, recorded: { id: string; dims: number } | null, fromRecord: boolean): Promise<Embedder | null> {
  if (!embedder || !recorded || embedder.id === recorded.id) return embedder;
  if (embedder.dims === recorded.dims && embedder.isSame?.(recorded.id)) {
    embedder.useId?.(recorded.id);
    return embedder;
  }
  if (!fromRecord || !recorded.id.startsWith('onnx:') || !embedder.id.startsWith('onnx:')) return embedder;
  await embedder.dispose();
  throw new EngineError('MODEL_MISSING', otherModelFiles(recorded.id, embedder.id));
}

/** The library remembers the model folder that built it, so search and ask find it without a flag. */
async function rememberModelFolder(dir: string, spec: EmbedderSpec, embedder: Embedder): Promise<void> {
  const modelPath = rememberedPath(spec);
  if (!modelPath) return;
  await writeJsonAtomic(path.join(dir, MODEL_FOLDER_FILE), { id: embedder.id, dir: modelPath }).catch(() => {});
}

/** Where a model of files lives (an ONNX folder, a GGUF file); null for the bundled ones. */
function rememberedPath(spec: EmbedderSpec): string | null {
  return spec.kind === 'onnx' ? path.resolve(spec.dir) : spec.kind === 'gguf' ? path.resolve(spec.file) : null;
}


async function loadCodeIndex(store: LibraryStore): Promise<CodeIndex> {
  const records = await store.allCodes();
  return new CodeIndex(records, uniqueSchemes(await readSchemes(store.dir)));
}

async function buildNames(store: LibraryStore): Promise<NameIndex> {
  const headings = await store.headingsByFile();
  return buildNameIndex(
    store.getFiles().map((f) => ({ file: f.file, title: f.meta.title, equipment: f.meta.equipment, headings: headings.get(f.file) ?? [] })),
  );
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
