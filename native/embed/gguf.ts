/**
 * GGUF sentence-embedding backend on node-llama-cpp (llama.cpp), for embedding models converted to
 * GGUF with their pooling and output layers inside the file (EmbeddingGemma: scripts/models_fetch/
 * gemma_gguf.py writes mean pooling and the two dense layers; llama.cpp applies them in its embedding
 * context). This backend adds the prompts, cuts long text to maxTokens and L2-normalises (optionally
 * after Matryoshka truncation to `dims`).
 *
 * node-llama-cpp is imported lazily (ESM only), CPU only, never builds llama.cpp (`build: "never"`).
 */
import { statSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { basename } from 'node:path';
import type { Llama, LlamaEmbeddingContext, LlamaModel } from 'node-llama-cpp';
import { LRUCache } from 'lru-cache';
import { sha256File } from '../base/file-hash.js';
import { EngineError } from '../contract/errors.js';
import { limitForEmbedding } from './limit-text.js';
import type { Embedder } from './types.js';

export interface GgufEmbedderOptions {
  /** The .gguf file. */
  file: string;
  /** Name recorded in the embedder id; default the file name without `.gguf`. */
  modelId?: string;
  /** Prepended to each query (EmbeddingGemma: "task: search result | query: "). */
  queryPrefix?: string;
  /** Prepended to each document (EmbeddingGemma: "title: none | text: "). */
  passagePrefix?: string;
  /** Most tokens per text, <bos> and <eos> included; longer text is cut (default 512). */
  maxTokens?: number;
  /** Keep only the first `dims` components before normalising (Matryoshka models); default all. */
  dims?: number;
  /** llama.cpp threads for queries; default the machine's core count (never more: its threads spin-wait). */
  threads?: number;
  /**
   * llama.cpp threads while embedding documents (an ingest); default one fewer than `threads` (at least
   * one). Documents are embedded beside the rest of the ingest (parsing, the store's writes) and other
   * programs; llama.cpp's threads spin-wait at every step for the slowest of them, so on a machine with
   * no idle core a thread each per core burns CPU waiting (issue 40: 0.61 passages per CPU-second with
   * two threads against 2.48 with one, the same 40 passages on a busy two-core machine).
   */
  documentThreads?: number;
}

export const DEFAULT_GGUF_MAX_TOKENS = 512;
const QUERY_MEMO = 256;

/** Unit length copy of the first `dims` components (all when dims is undefined). */
export function normalise(vector: ArrayLike<number>, dims?: number): Float32Array {
  const out = Float32Array.from(dims === undefined ? Array.from(vector) : Array.from(vector).slice(0, dims));
  let sum = 0;
  for (const x of out) sum += x * x;
  const norm = Math.sqrt(sum);
  if (norm > 0) for (let i = 0; i < out.length; i++) out[i] = (out[i] as number) / norm;
  return out;
}

interface Loaded {
  llama: Llama;
  model: LlamaModel;
  context: LlamaEmbeddingContext;
}

export class GgufEmbedder implements Embedder {
  readonly id: string;
  readonly dims: number;
  private disposed = false;
  private readonly queries = new LRUCache<string, Float32Array>({ max: QUERY_MEMO });

  private constructor(
    id: string,
    dims: number,
    private readonly loaded: Loaded,
    private readonly opts: { queryPrefix: string; passagePrefix: string; maxTokens: number; truncate: number | undefined; threads: number; documentThreads: number },
  ) {
    this.id = id;
    this.dims = dims;
  }

  /** Loads the file; the id is "gguf:<name>@<weights sha8>" ("…-<dims>d@…" when truncated). */
  static async load(options: GgufEmbedderOptions): Promise<GgufEmbedder> {
    try {
      statSync(options.file);
    } catch (err) {
      throw new EngineError('MODEL_MISSING', `The embedding model file ${options.file} was not found. Install it again (npm run models:fetch -- --with embeddinggemma in a source checkout).`, { cause: err });
    }
    const maxTokens = options.maxTokens ?? DEFAULT_GGUF_MAX_TOKENS;
    const { getLlama, LlamaLogLevel } = await import('node-llama-cpp');
    const threads = options.threads ?? availableParallelism();
    const llama = await getLlama({ build: 'never', gpu: false, maxThreads: threads, logLevel: LlamaLogLevel.error });
    let model: LlamaModel | undefined;
    try {
      model = await llama.loadModel({ modelPath: options.file });
      const context = await model.createEmbeddingContext({
        contextSize: maxTokens + 1,
        batchSize: maxTokens + 1,
        threads,
      });
      const native = model.embeddingVectorSize;
      const dims = options.dims !== undefined && options.dims < native ? options.dims : native;
      const name = (options.modelId ?? basename(options.file).replace(/\.gguf$/i, '')) + (dims < native ? `-${dims}d` : '');
      const sha = await sha256File(options.file);
      return new GgufEmbedder(`gguf:${name}@${sha.slice(0, 8)}`, dims, { llama, model, context }, {
        queryPrefix: options.queryPrefix ?? '',
        passagePrefix: options.passagePrefix ?? '',
        maxTokens,
        truncate: dims < native ? dims : undefined,
        threads,
        documentThreads: Math.max(1, Math.min(threads, options.documentThreads ?? threads - 1)),
      });
    } catch (err) {
      await model?.dispose().catch(() => {});
      await llama.dispose().catch(() => {});
      if (err instanceof EngineError) throw err;
      throw new EngineError('MODEL_MISSING', `The embedding model ${options.file} could not be loaded: ${err instanceof Error ? err.message : String(err)}. Install it again.`, { cause: err });
    }
  }

  /** llama.cpp threads in use now (documentThreads while documents are embedded, else threads). */
  get threadsInUse(): number {
    return this.loaded.llama.maxThreads;
  }

  async embedDocuments(texts: string[], signal?: AbortSignal, onProgress?: (done: number) => void): Promise<Float32Array[]> {
    const out: Float32Array[] = [];
    // Read by node-llama-cpp before each decode; a query asked meanwhile runs with as many.
    this.loaded.llama.maxThreads = this.opts.documentThreads;
    try {
      for (const text of texts) {
        signal?.throwIfAborted();
        out.push(await this.embed(this.opts.passagePrefix + text));
        onProgress?.(out.length);
      }
    } finally {
      if (!this.disposed) this.loaded.llama.maxThreads = this.opts.threads;
    }
    return out;
  }

  /** The query's vector, remembered for the last QUERY_MEMO queries (a search typed, then asked). */
  async embedQuery(text: string, signal?: AbortSignal): Promise<Float32Array> {
    signal?.throwIfAborted();
    const known = this.queries.get(text);
    if (known) return known;
    const v = await this.embed(this.opts.queryPrefix + text);
    this.queries.set(text, v);
    return v;
  }

  private async embed(text: string): Promise<Float32Array> {
    if (this.disposed) throw new EngineError('INTERNAL', 'The embedding model was closed.');
    const { model, context } = this.loaded;
    // <bos> and <eos> are added by the embedding context: the text gets maxTokens − 2.
    const tokens = model.tokenize(limitForEmbedding(text, this.opts.maxTokens), false).slice(0, this.opts.maxTokens - 2);
    const embedding = await context.getEmbeddingFor(tokens);
    return normalise(embedding.vector, this.opts.truncate);
  }

  async dispose(): Promise<void> {
    if (this.disposed) return;
    this.disposed = true;
    this.queries.clear();
    await this.loaded.context.dispose();
    await this.loaded.model.dispose();
    await this.loaded.llama.dispose();
  }
}
