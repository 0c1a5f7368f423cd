/**
 * ONNX sentence-embedding backend on transformers.js (@huggingface/transformers) + onnxruntime-node.
 *
 * Loads strictly from a local folder in the Hugging Face layout:
 *   <dir>/config.json, <dir>/tokenizer.json, <dir>/tokenizer_config.json,
 *   <dir>/onnx/model.onnx (fp32) and/or <dir>/onnx/model_quantized.onnx (q8)
 * Remote loading is switched off for the whole process; nothing is ever downloaded.
 */
import { createHash } from 'node:crypto';
import { createReadStream, existsSync, readFileSync, statSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import {
  AutoModel,
  AutoTokenizer,
  env,
  LogLevel,
  mean_pooling,
  type PreTrainedModel,
  type PreTrainedTokenizer,
  type Tensor,
} from '@huggingface/transformers';
import { EngineError } from '../contract/errors.js';
import type { Embedder } from './types.js';

export type OnnxDtype = 'fp32' | 'q8';
export type Pooling = 'mean' | 'cls';

export interface OnnxEmbedderOptions {
  /** Model folder (Hugging Face layout). */
  dir: string;
  /** Id recorded in the embedder id; defaults to the folder's last two path segments ("Xenova/foo"). */
  modelId?: string;
  /** Which weights to load; default: q8 when model_quantized.onnx is present, else fp32. */
  dtype?: OnnxDtype;
  /** Pooling; default: read from sentence-transformers' 1_Pooling/config.json, else mean. */
  pooling?: Pooling;
  /** Prepended to each query (e5: "query: "). */
  queryPrefix?: string;
  /** Prepended to each document (e5: "passage: "). */
  passagePrefix?: string;
  /** Texts per forward pass (default 16). */
  batchSize?: number;
  /** Token limit per text; default the tokenizer's model_max_length capped at 512. */
  maxTokens?: number;
  /** Writable folder for transformers.js' file cache; default <os.tmpdir()>/manualdesk-transformers. */
  cacheDir?: string;
  /** ONNX Runtime intra-op threads; default the machine's core count. */
  threads?: number;
}

const WEIGHT_FILES: Record<OnnxDtype, string> = { fp32: 'model.onnx', q8: 'model_quantized.onnx' };

function installHint(dir: string): string {
  return (
    `Put the model's files in "${dir}" (config.json, tokenizer.json, tokenizer_config.json and ` +
    `onnx/model_quantized.onnx or onnx/model.onnx), or install a model pack from Settings → Models. ` +
    `ManualDesk never downloads models itself.`
  );
}

/**
 * Switches transformers.js to local-only loading for this process. Called before every load; the
 * settings are process-wide, so nothing else in the app may turn remote loading back on.
 */
export function configureOfflineEnv(cacheDir?: string): void {
  env.allowRemoteModels = false;
  env.allowLocalModels = true;
  env.cacheDir = cacheDir ?? join(tmpdir(), 'manualdesk-transformers');
  env.logLevel = LogLevel.ERROR;
}

/** Files present in a model folder, or the reason it is unusable. */
export function inspectOnnxModelDir(
  dir: string,
): { ok: true; dtypes: OnnxDtype[] } | { ok: false; missing: string[] } {
  const missing = ['config.json', 'tokenizer.json', 'tokenizer_config.json'].filter(
    (f) => !existsSync(join(dir, f)),
  );
  const dtypes = (Object.keys(WEIGHT_FILES) as OnnxDtype[]).filter((d) =>
    existsSync(join(dir, 'onnx', WEIGHT_FILES[d])),
  );
  if (dtypes.length === 0) missing.push('onnx/model_quantized.onnx (or onnx/model.onnx)');
  return missing.length === 0 ? { ok: true, dtypes } : { ok: false, missing };
}

const hashMemo = new Map<string, string>();

/** sha256 of a file, streamed; memoised per (path, size, mtime) for this process. */
export async function sha256File(path: string): Promise<string> {
  const st = statSync(path);
  const key = `${path}\0${st.size}\0${st.mtimeMs}`;
  const known = hashMemo.get(key);
  if (known) return known;
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
  const hex = hash.digest('hex');
  hashMemo.set(key, hex);
  return hex;
}

function readPooling(dir: string): Pooling {
  const file = join(dir, '1_Pooling', 'config.json');
  if (!existsSync(file)) return 'mean';
  try {
    const cfg = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
    if (cfg.pooling_mode_cls_token === true) return 'cls';
  } catch {
    // A damaged optional file: keep the default.
  }
  return 'mean';
}

function defaultModelId(dir: string): string {
  const parent = dirname(dir);
  const name = dir.slice(parent.length + 1);
  const owner = parent.slice(dirname(parent).length + 1);
  return owner ? `${owner}/${name}` : name;
}

export class OnnxEmbedder implements Embedder {
  readonly id: string;
  readonly dims: number;
  readonly dtype: OnnxDtype;
  readonly pooling: Pooling;
  private disposed = false;

  private constructor(
    id: string,
    dims: number,
    dtype: OnnxDtype,
    pooling: Pooling,
    private readonly tokenizer: PreTrainedTokenizer,
    private readonly model: PreTrainedModel,
    private readonly opts: Required<Pick<OnnxEmbedderOptions, 'batchSize' | 'maxTokens'>> &
      Pick<OnnxEmbedderOptions, 'queryPrefix' | 'passagePrefix'>,
  ) {
    this.id = id;
    this.dims = dims;
    this.dtype = dtype;
    this.pooling = pooling;
  }

  /** Loads the model from `options.dir`; throws EngineError MODEL_MISSING when it is not there. */
  static async load(options: OnnxEmbedderOptions): Promise<OnnxEmbedder> {
    const dir = resolve(options.dir);
    const found = existsSync(dir) ? inspectOnnxModelDir(dir) : { ok: false as const, missing: ['the folder itself'] };
    if (!found.ok) {
      throw new EngineError(
        'MODEL_MISSING',
        `The embedding model is missing or incomplete (missing: ${found.missing.join(', ')}). ${installHint(dir)}`,
      );
    }
    const dtype = options.dtype ?? (found.dtypes.includes('q8') ? 'q8' : 'fp32');
    if (!found.dtypes.includes(dtype)) {
      throw new EngineError(
        'MODEL_MISSING',
        `The ${dtype} weights (onnx/${WEIGHT_FILES[dtype]}) are not in "${dir}". ${installHint(dir)}`,
      );
    }
    const weightsPath = join(dir, 'onnx', WEIGHT_FILES[dtype]);
    configureOfflineEnv(options.cacheDir);
    env.localModelPath = dirname(dir);

    let tokenizer: PreTrainedTokenizer;
    let model: PreTrainedModel;
    try {
      tokenizer = await AutoTokenizer.from_pretrained(dir, { local_files_only: true });
      model = await AutoModel.from_pretrained(dir, {
        local_files_only: true,
        dtype,
        device: 'cpu',
        use_external_data_format: existsSync(`${weightsPath}_data`) ? true : undefined,
        session_options: { intraOpNumThreads: options.threads ?? availableParallelism() },
      });
    } catch (err) {
      const msg = err instanceof Error ? err.message : String(err);
      throw new EngineError(
        'MODEL_MISSING',
        `The embedding model in "${dir}" could not be loaded (${msg}). ${installHint(dir)}`,
        { cause: err },
      );
    }
    const sha = await sha256File(weightsPath);
    const modelMax = Number(tokenizer.model_max_length);
    const maxTokens =
      options.maxTokens ?? (Number.isFinite(modelMax) && modelMax > 0 ? Math.min(modelMax, 512) : 512);
    const pooling = options.pooling ?? readPooling(dir);
    const partial = new OnnxEmbedder('', 0, dtype, pooling, tokenizer, model, {
      batchSize: options.batchSize ?? 16,
      maxTokens,
      queryPrefix: options.queryPrefix,
      passagePrefix: options.passagePrefix,
    });
    // Dims come from the model's real output, not from config.json.
    const probe = await partial.forward(['dimension probe']);
    const dims = probe[0]?.length ?? 0;
    if (dims === 0) {
      await partial.dispose();
      throw new EngineError('MODEL_MISSING', `The model in "${dir}" produced no output vector. ${installHint(dir)}`);
    }
    const id = `onnx:${options.modelId ?? defaultModelId(dir)}@${sha.slice(0, 8)}`;
    return new OnnxEmbedder(id, dims, dtype, pooling, tokenizer, model, partial.opts);
  }

  async embedDocuments(texts: string[], signal?: AbortSignal): Promise<Float32Array[]> {
    const prefix = this.opts.passagePrefix ?? '';
    return this.embedBatched(
      texts.map((t) => prefix + t),
      signal,
    );
  }

  async embedQuery(text: string, signal?: AbortSignal): Promise<Float32Array> {
    const [v] = await this.embedBatched([(this.opts.queryPrefix ?? '') + text], signal);
    if (!v) throw new EngineError('INTERNAL', 'The embedding model returned no vector for the query.');
    return v;
  }

  async dispose(): Promise<void> {
    if (this.disposed) return;
    this.disposed = true;
    await this.model.dispose();
  }

  /** Sorts by length so each batch pads little, runs the batches, restores the input order. */
  private async embedBatched(texts: string[], signal?: AbortSignal): Promise<Float32Array[]> {
    if (this.disposed) throw new EngineError('INTERNAL', 'The embedder was already closed.');
    const order = texts.map((_, i) => i).sort((a, b) => (texts[a]?.length ?? 0) - (texts[b]?.length ?? 0));
    const out = new Array<Float32Array>(texts.length);
    for (let start = 0; start < order.length; start += this.opts.batchSize) {
      signal?.throwIfAborted();
      const idx = order.slice(start, start + this.opts.batchSize);
      const vectors = await this.forward(idx.map((i) => texts[i] ?? ''));
      idx.forEach((i, k) => {
        const v = vectors[k];
        if (v) out[i] = v;
      });
    }
    signal?.throwIfAborted();
    return out;
  }

  private async forward(texts: string[]): Promise<Float32Array[]> {
    const inputs = this.tokenizer(texts, {
      padding: true,
      truncation: true,
      max_length: this.opts.maxTokens,
    }) as Record<string, Tensor>;
    const outputs = (await this.model(inputs)) as Record<string, Tensor | undefined>;
    const hidden = outputs.last_hidden_state ?? outputs.token_embeddings;
    if (!hidden) throw new EngineError('INTERNAL', 'The embedding model has no last_hidden_state output.');
    const mask = inputs.attention_mask;
    let pooled: Tensor;
    if (this.pooling === 'cls') pooled = hidden.slice(null, 0);
    else if (mask) pooled = mean_pooling(hidden, mask);
    else throw new EngineError('INTERNAL', 'The tokenizer produced no attention mask.');
    const normed = pooled.normalize(2, -1);
    const [rows = 0, dims = 0] = normed.dims;
    const data = normed.data as Float32Array;
    const result: Float32Array[] = [];
    for (let r = 0; r < rows; r++) result.push(Float32Array.from(data.subarray(r * dims, (r + 1) * dims)));
    return result;
  }
}
