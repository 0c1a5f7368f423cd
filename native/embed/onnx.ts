/**
 * ONNX sentence-embedding backend on transformers.js (@huggingface/transformers) + onnxruntime-node.
 *
 * Loads strictly from a local folder in the Hugging Face layout:
 *   <dir>/config.json, <dir>/tokenizer.json, <dir>/tokenizer_config.json,
 *   <dir>/onnx/model.onnx (fp32) and/or <dir>/onnx/model_quantized.onnx (q8)
 * Remote loading is switched off for the whole process; nothing is ever downloaded.
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, statSync, type Stats } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import {
  AutoModel,
  AutoTokenizer,
  env,
  LogLevel,
  Tensor as TensorCtor,
  type PreTrainedModel,
  type PreTrainedTokenizer,
  type Tensor,
} from '@huggingface/transformers';
import { LRUCache } from 'lru-cache';
import { sha256File } from '../base/file-hash.js';
import { EngineError } from '../contract/errors.js';
import { compactTokenizer } from './compact-tokenizer.js';
import { limitForEmbedding } from './limit-text.js';
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
  /** Most texts per forward pass (default 64; 1 for q8 weights, see Q8_BATCH_SIZE). */
  batchSize?: number;
  /** Most tokens per forward pass, padding included (default DEFAULT_TOKEN_BUDGET). */
  tokenBudget?: number;
  /** Token limit per text; default the tokenizer's model_max_length capped at 512. */
  maxTokens?: number;
  /** Writable folder for transformers.js' file cache; default <os.tmpdir()>/manualdesk-transformers. */
  cacheDir?: string;
  /** ONNX Runtime intra-op threads; default the machine's core count. */
  threads?: number;
  /** Keep ONNX Runtime's CPU memory arena (faster reuse, higher RSS); default DEFAULT_SESSION.memArena. */
  memArena?: boolean;
  /** Let idle ONNX Runtime threads spin (lower latency on an idle machine, wasted CPU on a busy one). */
  spinning?: boolean;
}

/**
 * Tokens per forward pass (rows × longest row), where texts share a pass (fp32 weights; q8 embeds one
 * text per pass, see Q8_BATCH_SIZE). Measured with scripts/bench-embed.ts (e5 q8, two
 * shared cores): 2048, 4096 and 8192 embed at the same passages per CPU-second, but peak RSS was
 * 933 / 1128 / 1410 MB. Again on 611 real passages of the dev library (title + section + text, as
 * ingest embeds them): 1024 and 2048 embed 18.0 and 17.5 passages per CPU-second at 919 and 1178 MB
 * peak RSS; 512 (one 512-token passage per pass) is slower. The smallest that keeps batches full wins.
 */
export const DEFAULT_TOKEN_BUDGET = 1024;
export const DEFAULT_BATCH_SIZE = 64;
/**
 * Texts per forward pass with q8 weights: one. Their activations are quantised per pass with one
 * scale for the whole batch (dynamic quantisation), so a passage embedded among others came out
 * different from the same passage alone (cosine 0.9988 in a batch of six, e5 q8) and from how a
 * query is embedded (always alone): a library's vectors depended on which passages happened to share
 * a batch, and two builds of the same manuals ranked differently. One text per pass makes every
 * vector a function of its text only (fp32 weights are exact in a batch and keep batching). Measured
 * on the dev set, each with a fresh e5 q8 library: every expected passage ranked as high or higher
 * (symptom hit@5 first 65 0.88 → 0.94, Chinese new 80 0.89 → 1.00, answer facts 151 → 153 of 264),
 * ingest 766 s against 733 s.
 */
export const Q8_BATCH_SIZE = 1;
/**
 * ONNX Runtime session defaults, measured with scripts/bench-embed.ts: without spinning, idle
 * threads sleep instead of burning the second core that parsing, LanceDB and the UI need
 * (12.0 vs 9.5 passages per CPU-second, query p95 24 vs 34 ms on a busy machine); turning the
 * memory arena off saved little RSS (1058 vs 1128 MB peak) and cost speed, so it stays on.
 */
export const DEFAULT_SESSION = { memArena: true, spinning: false };

/** Query vectors remembered (384 floats each for e5-small: 1.5 KB). */
const QUERY_MEMO = 256;

const WEIGHT_FILES: Record<OnnxDtype, string> = { fp32: 'model.onnx', q8: 'model_quantized.onnx' };

function installHint(dir: string): string {
  return (
    `Put the model's files in "${dir}" (config.json, tokenizer.json, tokenizer_config.json and ` +
    `onnx/model_quantized.onnx or onnx/model.onnx), or install a model pack from Settings → Models. ` +
    `ManualDesk never downloads models itself.`
  );
}

/** How to put a damaged or changed model right; keyword search and fault codes work meanwhile. */
export const REINSTALL_HINT =
  'Reinstall the model: run "npm run models:fetch" (in a source checkout), or copy a good copy of the model folder in with ' +
  '"manualdesk models add <model folder>", or import its model pack. Keyword search and fault codes work meanwhile.';

/**
 * The files besides the weights that decide what vector a text gets (the tokenizer's vocabulary and
 * rules, the model's settings, the pooling): part of the model's identity, and read as JSON.
 */
const IDENTITY_FILES = ['config.json', 'tokenizer.json', 'tokenizer_config.json', 'special_tokens_map.json', '1_Pooling/config.json'];
const JSON_FILES = new Set(IDENTITY_FILES);

/**
 * The first model file that is not readable JSON (truncated, emptied, overwritten), or null. Checked
 * before transformers.js reads them: its parse errors name neither the file nor the fix, and some
 * carry bytes of process memory.
 */
export function damagedModelFile(dir: string): string | null {
  for (const name of JSON_FILES) {
    const file = join(dir, name);
    if (!existsSync(file)) continue;
    try {
      const parsed: unknown = JSON.parse(readFileSync(file, 'utf8'));
      if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) return name;
    } catch {
      return name;
    }
  }
  return null;
}

/** The error for a model file that cannot be read, naming the file and the fix, never the parser's text. */
function damagedError(dir: string, file: string, cause?: unknown): EngineError {
  return new EngineError(
    'MODEL_MISSING',
    `The embedding model in "${dir}" is damaged: ${file} could not be read (cut short, emptied or overwritten). ${REINSTALL_HINT}`,
    cause === undefined ? undefined : { cause },
  );
}

/**
 * Settings a model folder states for itself in config.json's "manualdesk" block (a model installed
 * under any folder name keeps them): the e5 family's "query: " / "passage: " prefixes, pooling, token limit.
 */
export interface OwnModelSettings {
  queryPrefix?: string;
  passagePrefix?: string;
  pooling?: Pooling;
  maxTokens?: number;
}

export function ownModelSettings(dir: string): OwnModelSettings {
  try {
    const cfg = JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8')) as { manualdesk?: Record<string, unknown> };
    const own = cfg.manualdesk ?? {};
    const out: OwnModelSettings = {};
    if (typeof own.queryPrefix === 'string') out.queryPrefix = own.queryPrefix;
    if (typeof own.passagePrefix === 'string') out.passagePrefix = own.passagePrefix;
    if (own.pooling === 'mean' || own.pooling === 'cls') out.pooling = own.pooling;
    if (typeof own.maxTokens === 'number' && Number.isInteger(own.maxTokens) && own.maxTokens > 0) out.maxTokens = own.maxTokens;
    return out;
  } catch {
    return {};
  }
}

/** What decides a model's vectors besides its files: the settings the embedder runs it with. */
interface EmbeddingSettings {
  weights: string;
  pooling: Pooling;
  maxTokens: number;
  queryPrefix: string;
  passagePrefix: string;
}

/** The files of a model folder that exist, with their stat, for the cheap "changed since loaded?" check. */
function statFiles(dir: string, weights: string): Map<string, Stats | null> {
  const out = new Map<string, Stats | null>();
  for (const name of [weights, `${weights}_data`, ...IDENTITY_FILES]) {
    const file = join(dir, name);
    out.set(name, existsSync(file) ? statSync(file) : null);
  }
  return out;
}

function sameStats(a: Map<string, Stats | null>, b: Map<string, Stats | null>): boolean {
  for (const [name, st] of a) {
    const other = b.get(name);
    if (!st || !other) {
      if (st !== other) return false;
      continue;
    }
    if (st.size !== other.size || st.mtimeMs !== other.mtimeMs || st.ctimeMs !== other.ctimeMs || st.ino !== other.ino) return false;
  }
  return true;
}

/**
 * The model's content identity: sha256 over the sha256 of each file that decides its vectors (the
 * weights, the tokenizer's files, config.json, the pooling config) and the settings it runs with. A
 * byte-identical copy under another folder name has the same identity; an edited tokenizer does not.
 */
async function contentHash(dir: string, settings: EmbeddingSettings): Promise<string> {
  const hash = createHash('sha256').update('manualdesk model identity 1\n');
  for (const name of [settings.weights, `${settings.weights}_data`, ...IDENTITY_FILES]) {
    const file = join(dir, name);
    if (existsSync(file)) hash.update(`${name}\0${await sha256File(file)}\n`);
  }
  hash.update(JSON.stringify(settings));
  return hash.digest('hex');
}

/**
 * The weights' and the content's sha256 prefixes an embedder id ends in: "onnx:<name>@<weights>-<content>";
 * ids recorded before the content was part of the identity end in "@<weights>" only (content null).
 */
export function idHashes(id: string): { weights: string; content: string | null } | null {
  const m = /@([0-9a-f]{8,})(?:-([0-9a-f]{8,}))?$/.exec(id);
  return m?.[1] ? { weights: m[1], content: m[2] ?? null } : null;
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

export { sha256File } from '../base/file-hash.js';

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

/**
 * The tokenizer and the ONNX session. release() frees the session only: the compacted tokenizer is
 * small (about 30 MB of heap for e5), while building it again parses tokenizer.json and the Unigram
 * trie (about 300 MB of heap for a moment), which made the reload at the start of the vectors the
 * peak of an ingest.
 */
interface Session {
  tokenizer: PreTrainedTokenizer;
  model: PreTrainedModel;
}

/** What the loaded model is, to check that the files are still the ones loaded before embedding with them again. */
interface LoadedIdentity {
  weightsSha: string;
  content: string;
  /** Why the files are no longer the ones loaded (gone, damaged, changed); null while they are. */
  problem: () => Promise<EngineError | null>;
  stat: () => Map<string, Stats | null>;
}

export class OnnxEmbedder implements Embedder {
  private ownId: string;
  readonly dims: number;
  readonly dtype: OnnxDtype;
  readonly pooling: Pooling;
  private disposed = false;
  private readonly queries = new LRUCache<string, Float32Array>({ max: QUERY_MEMO });
  /** The tokenizer and ONNX session; null after release() until a call needs them again. */
  private session: Session | null;
  /** The tokenizer, kept when release() frees the session (see Session); null once disposed. */
  private tokenizer: PreTrainedTokenizer | null;
  private loading: Promise<Session> | null = null;
  /** Calls using the session now, and whether release() waits for them to finish. */
  private active = 0;
  private releaseWhenIdle = false;
  /** Why this model may no longer embed (its files went or changed since it was loaded); sticky. */
  private broken: EngineError | null = null;
  /** The files' stats when last found to be the loaded model's. */
  private stats: Map<string, Stats | null>;

  private constructor(
    id: string,
    dims: number,
    dtype: OnnxDtype,
    pooling: Pooling,
    session: Session,
    private readonly reload: (tokenizer?: PreTrainedTokenizer) => Promise<Session>,
    private readonly opts: Required<Pick<OnnxEmbedderOptions, 'batchSize' | 'maxTokens' | 'tokenBudget'>> &
      Pick<OnnxEmbedderOptions, 'queryPrefix' | 'passagePrefix'>,
    private readonly padId: bigint,
    private readonly identity: LoadedIdentity,
  ) {
    this.ownId = id;
    this.dims = dims;
    this.dtype = dtype;
    this.pooling = pooling;
    this.session = session;
    this.tokenizer = session.tokenizer;
    this.stats = identity.stat();
  }

  /** "onnx:<name>@<weights sha8>-<content sha8>" (see idHashes). */
  get id(): string {
    return this.ownId;
  }

  /**
   * Whether a recorded embedder id names this model by content: the same weights, and (for ids that
   * record it) the same tokenizer, config and settings; the name before the "@" may differ (a copy of
   * the model under another folder name). An id recorded before the content was part of it
   * ("@<weights sha8>") is accepted by its weights.
   */
  isSame(id: string): boolean {
    const h = idHashes(id);
    return h !== null && id.startsWith('onnx:') && this.identity.weightsSha.startsWith(h.weights) && (h.content === null || this.identity.content.startsWith(h.content));
  }

  /** Goes by a library's recorded id for this same model (isSame), so its vectors and cache keep their id. */
  useId(id: string): void {
    if (!this.isSame(id)) throw new EngineError('INTERNAL', `The embedding model "${this.ownId}" is not "${id}".`);
    this.ownId = id;
  }

  /** Why this model may no longer embed (MODEL_MISSING), or null; set once its files go or change. */
  get unusable(): EngineError | null {
    return this.broken;
  }

  /**
   * Checks that the model's files are still the ones loaded (cheap when their stats are unchanged;
   * hashed again when not). Once they are gone, damaged or other, the embedder refuses to embed.
   */
  async verify(): Promise<EngineError | null> {
    if (this.broken || this.disposed) return this.broken;
    let now: Map<string, Stats | null>;
    try {
      now = this.identity.stat();
    } catch {
      now = new Map();
    }
    if (now.size > 0 && sameStats(now, this.stats)) return null;
    const why = await this.identity.problem().catch((err: unknown) => unreadable(err));
    if (why) this.broken = why;
    else this.stats = now;
    return why;
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
    const weights = `onnx/${WEIGHT_FILES[dtype]}`;
    const weightsPath = join(dir, weights);
    // Also what a call after release() runs again.
    // A reload (after release()) passes the tokenizer kept: its files were just found to be the very
    // ones loaded (identity.problem), so they are not parsed again to see whether they are damaged.
    const loadSession = async (tokenizer?: PreTrainedTokenizer): Promise<Session> => {
      const damaged = tokenizer ? null : damagedModelFile(dir);
      if (damaged) throw damagedError(dir, damaged);
      try {
        return await readSession(tokenizer);
      } catch (err) {
        // Never the runtime's own text: it names no file and may carry bytes of process memory.
        throw new EngineError(
          'MODEL_MISSING',
          `The embedding model in "${dir}" could not be loaded: its weights (${weights}) or config.json are damaged or not a model ManualDesk can read. ${REINSTALL_HINT}`,
          { cause: err },
        );
      }
    };
    const readSession = async (kept?: PreTrainedTokenizer): Promise<Session> => {
      configureOfflineEnv(options.cacheDir);
      env.localModelPath = dirname(dir);
      // Only what tokenising needs stays in memory (compactTokenizer: 159 → 29 MB of heap for e5).
      const tokenizer = kept ?? compactTokenizer(await AutoTokenizer.from_pretrained(dir, { local_files_only: true }));
      const model = await AutoModel.from_pretrained(dir, {
        local_files_only: true,
        dtype,
        device: 'cpu',
        use_external_data_format: existsSync(`${weightsPath}_data`) ? true : undefined,
        session_options: {
          intraOpNumThreads: options.threads ?? availableParallelism(),
          interOpNumThreads: 1,
          executionMode: 'sequential',
          graphOptimizationLevel: 'all',
          enableCpuMemArena: options.memArena ?? DEFAULT_SESSION.memArena,
          extra: { session: { intra_op: { allow_spinning: (options.spinning ?? DEFAULT_SESSION.spinning) ? '1' : '0' } } },
        },
      });
      return { tokenizer, model };
    };
    const loaded = await loadSession();
    const own = ownModelSettings(dir);
    const { tokenizer } = loaded;
    const modelMax = Number(tokenizer.model_max_length);
    const maxTokens =
      own.maxTokens ?? options.maxTokens ?? (Number.isFinite(modelMax) && modelMax > 0 ? Math.min(modelMax, 512) : 512);
    const pooling = own.pooling ?? options.pooling ?? readPooling(dir);
    const queryPrefix = own.queryPrefix ?? options.queryPrefix;
    const passagePrefix = own.passagePrefix ?? options.passagePrefix;
    const settings: EmbeddingSettings = { weights, pooling, maxTokens, queryPrefix: queryPrefix ?? '', passagePrefix: passagePrefix ?? '' };
    let weightsSha: string;
    let content: string;
    try {
      weightsSha = await sha256File(weightsPath);
      content = await contentHash(dir, settings);
    } catch (err) {
      await loaded.model.dispose();
      throw unreadable(err, dir);
    }
    const identity: LoadedIdentity = {
      weightsSha,
      content,
      stat: () => statFiles(dir, weights),
      problem: async () => {
        const found = existsSync(dir) ? inspectOnnxModelDir(dir) : { ok: false as const, missing: ['the folder itself'] };
        if (!found.ok || !existsSync(weightsPath)) {
          return new EngineError(
            'MODEL_MISSING',
            `The embedding model in "${dir}" is gone or incomplete since it was loaded (missing: ${found.ok ? weights : found.missing.join(', ')}). ${REINSTALL_HINT}`,
          );
        }
        // The same bytes as the files loaded (sha256File is memoised by stat): nothing to parse. Only
        // files that differ are parsed, to say whether they are damaged or another model's: parsing
        // tokenizer.json (17 MB for e5) takes about 60 MB of heap, and a reload checks twice.
        if ((await contentHash(dir, settings)) === content) return null;
        const damaged = damagedModelFile(dir);
        if (damaged) return damagedError(dir, damaged);
        return new EngineError(
          'MODEL_MISSING',
          `The embedding model's files in "${dir}" changed since it was loaded (other weights, tokenizer or settings): vectors made with them would not match the ones stored, so search by meaning is off until ManualDesk opens the library again with its own model. ${REINSTALL_HINT}`,
        );
      },
    };
    const padToken = Number((tokenizer as unknown as { pad_token_id?: number }).pad_token_id);
    const padId = BigInt(Number.isInteger(padToken) && padToken >= 0 ? padToken : 0);
    const partial = new OnnxEmbedder(
      '',
      0,
      dtype,
      pooling,
      loaded,
      loadSession,
      {
        batchSize: options.batchSize ?? (dtype === 'q8' ? Q8_BATCH_SIZE : DEFAULT_BATCH_SIZE),
        tokenBudget: options.tokenBudget ?? DEFAULT_TOKEN_BUDGET,
        maxTokens,
        queryPrefix,
        passagePrefix,
      },
      padId,
      identity,
    );
    // Dims come from the model's real output, not from config.json.
    const probe = await partial.embedBatched(['dimension probe']);
    const dims = probe[0]?.length ?? 0;
    if (dims === 0) {
      await partial.dispose();
      throw new EngineError('MODEL_MISSING', `The model in "${dir}" produced no output vector. ${installHint(dir)}`);
    }
    const id = `onnx:${options.modelId ?? defaultModelId(dir)}@${weightsSha.slice(0, 8)}-${content.slice(0, 8)}`;
    return partial.withIdentity(id, dims);
  }

  async embedDocuments(texts: string[], signal?: AbortSignal, onProgress?: (done: number) => void): Promise<Float32Array[]> {
    const prefix = this.opts.passagePrefix ?? '';
    return this.embedBatched(
      texts.map((t) => prefix + t),
      signal,
      onProgress,
    );
  }

  /**
   * The query's vector, remembered for the last QUERY_MEMO queries: the app searches a question as
   * it is typed and then asks it, and a technician goes back to an earlier search; each is embedded
   * once. Only finished vectors are kept, so a cancelled search never hands its cancellation to another.
   */
  async embedQuery(text: string, signal?: AbortSignal): Promise<Float32Array> {
    const known = this.queries.get(text);
    if (known) return known;
    const [v] = await this.embedBatched([(this.opts.queryPrefix ?? '') + text], signal);
    if (!v) throw new EngineError('INTERNAL', 'The embedding model returned no vector for the query.');
    this.queries.set(text, v);
    return v;
  }

  async dispose(): Promise<void> {
    if (this.disposed) return;
    this.disposed = true;
    this.tokenizer = null;
    await this.free();
  }

  /**
   * Frees the ONNX session (170–250 MB for e5-small q8) until a call needs it, which loads it again
   * (about a second; the tokenizer stays, see Session): ingest does this while it parses and builds
   * the text index, which need no model. Calls running now finish first.
   */
  async release(): Promise<void> {
    if (this.disposed) return;
    if (this.active > 0) {
      this.releaseWhenIdle = true;
      return;
    }
    await this.free();
  }

  /** Whether the tokenizer and session are in memory (for tests and diagnostics). */
  get loaded(): boolean {
    return this.session !== null;
  }

  private async free(): Promise<void> {
    const pending = this.loading;
    const session = this.session ?? (pending ? await pending.catch(() => null) : null);
    this.session = null;
    this.loading = null;
    await session?.model.dispose();
  }

  /**
   * The session, loaded again when release() freed it, and only from the files loaded first: files
   * gone, damaged or changed meanwhile (other weights, an edited tokenizer) make the embedder refuse
   * to embed (MODEL_MISSING) rather than put vectors of another model under this one's id.
   */
  private async sessionNow(): Promise<Session> {
    if (this.broken) throw this.broken;
    if (this.session) return this.session;
    this.loading ??= this.reloadChecked().then(
      (s) => {
        this.session = s;
        return s;
      },
      (err: unknown) => {
        this.loading = null;
        this.broken = err instanceof EngineError && err.code === 'MODEL_MISSING' ? err : unreadable(err);
        throw this.broken;
      },
    );
    return this.loading;
  }

  private async reloadChecked(): Promise<Session> {
    const before = await this.identity.problem();
    if (before) throw before;
    const session = await this.reload(this.tokenizer ?? undefined);
    // Checked again: files replaced while they were being read.
    const after = await this.identity.problem().catch((err: unknown) => unreadable(err));
    if (after) {
      await session.model.dispose();
      throw after;
    }
    this.stats = this.identity.stat();
    return session;
  }

  /** The same loaded model under its final id and dims (load() probes the dims first). */
  private withIdentity(id: string, dims: number): OnnxEmbedder {
    return new OnnxEmbedder(id, dims, this.dtype, this.pooling, this.session as Session, this.reload, this.opts, this.padId, this.identity);
  }

  /**
   * The batch API every caller goes through. Each text is cut to what the model can read
   * (limitForEmbedding), identical texts are embedded once, and texts are tokenised once, sorted by
   * token count and grouped so that a batch holds at most `tokenBudget` tokens including padding (and
   * at most `batchSize` texts): short passages travel in large batches, long ones in small ones, and
   * little compute is spent on padding. Vectors come back in input order.
   */
  private async embedBatched(texts: string[], signal?: AbortSignal, onProgress?: (done: number) => void): Promise<Float32Array[]> {
    if (this.disposed) throw new EngineError('INTERNAL', 'The embedder was already closed.');
    if (this.broken) throw this.broken;
    this.active++;
    try {
      return await this.embedWith(await this.sessionNow(), texts, signal, onProgress);
    } finally {
      this.active--;
      if (this.active === 0 && this.releaseWhenIdle) {
        this.releaseWhenIdle = false;
        await this.free();
      }
    }
  }

  private async embedWith(session: Session, texts: string[], signal?: AbortSignal, onProgress?: (done: number) => void): Promise<Float32Array[]> {
    const unique = new Map<string, number>();
    const slot = texts.map((t) => {
      const cut = limitForEmbedding(t, this.opts.maxTokens);
      let k = unique.get(cut);
      if (k === undefined) {
        k = unique.size;
        unique.set(cut, k);
      }
      return k;
    });
    const distinct = [...unique.keys()];
    const encoded = distinct.map((t) => this.encode(session.tokenizer, t));
    const order = encoded.map((_, i) => i).sort((a, b) => (encoded[a]?.length ?? 0) - (encoded[b]?.length ?? 0));
    const vectors = new Array<Float32Array>(distinct.length);
    let finished = 0;
    for (const group of planBatches(order.map((i) => encoded[i]?.length ?? 0), this.opts.batchSize, this.opts.tokenBudget)) {
      signal?.throwIfAborted();
      const idx = group.map((k) => order[k] ?? 0);
      const out = await this.forwardIds(
        session.model,
        idx.map((i) => encoded[i] ?? new BigInt64Array(0)),
        idx.map((i) => distinct[i] ?? ''),
      );
      idx.forEach((i, k) => {
        const v = out[k];
        if (v) vectors[i] = v;
      });
      finished += idx.length;
      onProgress?.(Math.round((finished / distinct.length) * texts.length));
    }
    signal?.throwIfAborted();
    return slot.map((k) => vectors[k] as Float32Array);
  }

  /** Token ids of one text, with the tokenizer's special tokens, truncated to maxTokens. */
  private encode(tokenizer: PreTrainedTokenizer, text: string): BigInt64Array {
    try {
      const enc = tokenizer(text, { truncation: true, max_length: this.opts.maxTokens }) as Record<string, Tensor>;
      return enc.input_ids?.data as BigInt64Array;
    } catch (err) {
      throw embedFailure(err, [text], 'tokenizer');
    }
  }

  /** Pads the id lists into one batch, runs the model, pools and L2-normalises each row. */
  private async forwardIds(model: PreTrainedModel, ids: BigInt64Array[], texts: string[]): Promise<Float32Array[]> {
    const rows = ids.length;
    const width = Math.max(1, ...ids.map((r) => r.length));
    const inputIds = new BigInt64Array(rows * width).fill(this.padId);
    const mask = new BigInt64Array(rows * width);
    ids.forEach((r, i) => {
      inputIds.set(r, i * width);
      mask.fill(1n, i * width, i * width + r.length);
    });
    let hidden: Tensor | undefined;
    try {
      const outputs = (await model({
        input_ids: new TensorCtor('int64', inputIds, [rows, width]),
        attention_mask: new TensorCtor('int64', mask, [rows, width]),
      })) as Record<string, Tensor | undefined>;
      hidden = outputs.last_hidden_state ?? outputs.token_embeddings;
    } catch (err) {
      throw embedFailure(err, texts, 'model');
    }
    if (!hidden) throw new EngineError('INTERNAL', 'The embedding model has no last_hidden_state output.');
    const dims = hidden.dims.at(-1) ?? 0;
    const data = hidden.data as Float32Array;
    const result: Float32Array[] = [];
    for (let r = 0; r < rows; r++) {
      const v = new Float32Array(dims);
      const base = r * width * dims;
      const n = this.pooling === 'cls' ? 1 : (ids[r]?.length ?? 0);
      for (let t = 0; t < n; t++) {
        const off = base + t * dims;
        for (let d = 0; d < dims; d++) v[d]! += data[off + d]!;
      }
      let norm = 0;
      for (let d = 0; d < dims; d++) norm += v[d]! * v[d]!;
      const inv = norm > 0 ? 1 / Math.sqrt(norm) : 0;
      for (let d = 0; d < dims; d++) v[d]! *= inv;
      result.push(v);
    }
    hidden.dispose?.();
    return result;
  }
}

/**
 * Groups lengths (sorted ascending) into batches of at most `maxRows` rows whose padded size
 * (rows × longest) stays within `tokenBudget`; a single text longer than the budget gets a batch alone.
 * Returns positions into `lengths`.
 */
export function planBatches(lengths: number[], maxRows: number, tokenBudget: number): number[][] {
  const batches: number[][] = [];
  let current: number[] = [];
  let longest = 0;
  lengths.forEach((len, i) => {
    const wider = Math.max(longest, len);
    if (current.length > 0 && (current.length >= maxRows || (current.length + 1) * wider > tokenBudget)) {
      batches.push(current);
      current = [];
      longest = 0;
    }
    current.push(i);
    longest = Math.max(longest, len);
  });
  if (current.length > 0) batches.push(current);
  return batches;
}

/** A model whose files could not be read again (a folder deleted while in use): never the system's text. */
function unreadable(err: unknown, dir?: string): EngineError {
  if (err instanceof EngineError) return err;
  return new EngineError(
    'MODEL_MISSING',
    `The embedding model${dir ? ` in "${dir}"` : ''} could not be read again (its folder was moved, deleted or damaged while ManualDesk was using it). ${REINSTALL_HINT}`,
    { cause: err },
  );
}

/** An error of the tokenizer or model on some passages, with its real cause, for the technician. */
function embedFailure(err: unknown, texts: string[], stage: 'tokenizer' | 'model'): EngineError {
  if (err instanceof EngineError) return err;
  const cause = err instanceof Error ? err.message : String(err);
  const longest = texts.reduce((a, t) => (t.length > a.length ? t : a), '');
  const start = longest.slice(0, 60).replace(/\s+/g, ' ');
  return new EngineError(
    'INVALID_INPUT',
    `The embedding model's ${stage} failed (${cause}) on ${texts.length === 1 ? 'a passage' : `${texts.length} passages`} ` +
      `of up to ${longest.length.toLocaleString('en-US')} characters, starting "${start}". The file was not added; ` +
      `add it again without the model (--embedder none) or report the file so the passage can be handled.`,
    { cause: err },
  );
}
