/**
 * Builds a tiny GGUF chat model for tests, deterministically: the real tokenizer and chat template
 * of a vocabulary-only GGUF that ships inside node-llama-cpp (llama.cpp's `models/ggml-vocab-*.gguf`,
 * read from the package's `llama/gitRelease.bundle`), plus a 2-layer qwen2 network with
 * pseudo-random weights. It loads, tokenizes, applies its chat template and generates tokens
 * (meaningless ones) like a real model, at a fraction of the size (~20 MB).
 *
 *   npx tsx scripts/make-gguf-fixture.ts [out.gguf]
 *
 * Library use: `await makeGgufFixture({ outFile })` returns the path (tests call it in beforeAll).
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { buildGguf, GgmlType, GgufType, parseGguf, toHalf, type GgufValue, type TensorToWrite } from '../native/llm/gguf.js';
import { prng } from './prng.js';

export interface FixtureOptions {
  outFile: string;
  /** Which vocabulary file of the bundle (default qwen2: ChatML template). */
  vocab?: string;
  layers?: number;
  embd?: number;
  heads?: number;
  ff?: number;
  context?: number;
  seed?: number;
}

export const FIXTURE_DEFAULTS = { vocab: 'qwen2', layers: 2, embd: 64, heads: 4, ff: 128, context: 512, seed: 1234 } as const;

/** Finds node-llama-cpp's llama.cpp source bundle (or null). */
export function findLlamaBundle(): string | null {
  const pkgDir = findPackageDir('node-llama-cpp');
  if (!pkgDir) return null;
  const expected = path.join(pkgDir, 'llama', 'gitRelease.bundle');
  if (fs.existsSync(expected)) return expected;
  // Layout changed: look for any *.bundle inside the package.
  const stack = [pkgDir];
  while (stack.length > 0) {
    const dir = stack.pop() as string;
    for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
      const p = path.join(dir, e.name);
      if (e.isDirectory() && e.name !== 'node_modules') stack.push(p);
      else if (e.isFile() && e.name.endsWith('.bundle')) return p;
    }
  }
  return null;
}

/** The installed package folder, looked up from here and from the working directory upwards. */
function findPackageDir(name: string): string | null {
  for (const start of [path.dirname(fileURLToPath(import.meta.url)), process.cwd()]) {
    for (let dir = start; ; dir = path.dirname(dir)) {
      const candidate = path.join(dir, 'node_modules', name);
      if (fs.existsSync(path.join(candidate, 'package.json'))) return candidate;
      if (path.dirname(dir) === dir) break;
    }
  }
  return null;
}

/** Extracts `models/ggml-vocab-<name>.gguf` from the bundle via a throw-away bare repository. */
export function extractVocab(name: string, bundle: string): Buffer {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'md-vocab-'));
  try {
    const git = (...args: string[]) => execFileSync('git', args, { cwd: tmp, maxBuffer: 256 << 20, stdio: ['ignore', 'pipe', 'pipe'] });
    git('init', '-q', '--bare', '.');
    git('bundle', 'unbundle', bundle);
    const head = git('bundle', 'list-heads', bundle).toString().trim().split('\n')[0]?.split(/\s+/)[0];
    if (!head) throw new Error(`no refs in ${bundle}`);
    return git('cat-file', 'blob', `${head}:models/ggml-vocab-${name}.gguf`);
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}


function randomTensor(name: string, dims: number[], type: GgmlType, scale: number, rand: () => number): TensorToWrite {
  const n = dims.reduce((a, b) => a * b, 1);
  if (type === GgmlType.F16) {
    // Half-precision bit patterns drawn directly (sign, exponent within [scale/64, scale), mantissa):
    // converting ten million floats one by one costs seconds.
    const top = (toHalf(scale) >>> 10) & 0x1f;
    const h = new Uint16Array(n);
    for (let i = 0; i < n; i++) {
      const r = (rand() * 4294967296) >>> 0;
      h[i] = (r & 0x8000) | ((top - 1 - ((r >>> 16) % 6)) << 10) | (r & 0x3ff);
    }
    return { name, dims, type, data: Buffer.from(h.buffer) };
  }
  const f = new Float32Array(n);
  for (let i = 0; i < n; i++) f[i] = (rand() * 2 - 1) * scale;
  return { name, dims, type, data: Buffer.from(f.buffer) };
}

function ones(name: string, n: number): TensorToWrite {
  return { name, dims: [n], type: GgmlType.F32, data: Buffer.from(new Float32Array(n).fill(1).buffer) };
}

const u32 = (v: number): GgufValue => ({ type: GgufType.UINT32, value: v });
const f32 = (v: number): GgufValue => ({ type: GgufType.FLOAT32, value: v });
const str = (v: string): GgufValue => ({ type: GgufType.STRING, value: v });

/** A vocabulary GGUF's metadata and the size of its token list. */
function readVocabulary(vocabGguf: Buffer): { vocab: ReturnType<typeof parseGguf>; nVocab: number } {
  const vocab = parseGguf(vocabGguf);
  const tokens = vocab.metadata.get('tokenizer.ggml.tokens');
  if (!tokens || tokens.type !== GgufType.ARRAY) throw new Error('the vocabulary GGUF has no token list');
  return { vocab, nVocab: (tokens.value as { items: unknown[] }).items.length };
}

/** Builds the fixture in memory from a vocabulary GGUF. */
export function buildFixture(vocabGguf: Buffer, opts: Omit<FixtureOptions, 'outFile'> = {}): Buffer {
  const o = { ...FIXTURE_DEFAULTS, ...opts };
  const { vocab, nVocab } = readVocabulary(vocabGguf);
  const arch = 'qwen2';
  const meta = new Map<string, GgufValue>();
  meta.set('general.architecture', str(arch));
  meta.set('general.name', str(`manualdesk-test-${o.vocab}-${o.layers}x${o.embd}`));
  meta.set('general.file_type', u32(1));
  meta.set(`${arch}.block_count`, u32(o.layers));
  meta.set(`${arch}.context_length`, u32(o.context));
  meta.set(`${arch}.embedding_length`, u32(o.embd));
  meta.set(`${arch}.feed_forward_length`, u32(o.ff));
  meta.set(`${arch}.attention.head_count`, u32(o.heads));
  meta.set(`${arch}.attention.head_count_kv`, u32(o.heads));
  meta.set(`${arch}.rope.freq_base`, f32(10000));
  meta.set(`${arch}.attention.layer_norm_rms_epsilon`, f32(1e-6));
  // The tokenizer and chat template, as the vocabulary file has them.
  for (const [k, v] of vocab.metadata) if (k.startsWith('tokenizer.')) meta.set(k, v);

  const rand = prng(o.seed);
  const e = o.embd;
  const t: TensorToWrite[] = [];
  // Large enough weights that the logits differ from token to token (generation varies).
  t.push(randomTensor('token_embd.weight', [e, nVocab], GgmlType.F16, 1, rand));
  t.push(ones('output_norm.weight', e));
  for (let l = 0; l < o.layers; l++) {
    const p = `blk.${l}.`;
    t.push(ones(`${p}attn_norm.weight`, e));
    for (const w of ['attn_q', 'attn_k', 'attn_v']) {
      t.push(randomTensor(`${p}${w}.weight`, [e, e], GgmlType.F32, 0.2, rand));
      t.push(randomTensor(`${p}${w}.bias`, [e], GgmlType.F32, 0.02, rand));
    }
    t.push(randomTensor(`${p}attn_output.weight`, [e, e], GgmlType.F32, 0.2, rand));
    t.push(ones(`${p}ffn_norm.weight`, e));
    t.push(randomTensor(`${p}ffn_gate.weight`, [e, o.ff], GgmlType.F32, 0.2, rand));
    t.push(randomTensor(`${p}ffn_up.weight`, [e, o.ff], GgmlType.F32, 0.2, rand));
    t.push(randomTensor(`${p}ffn_down.weight`, [o.ff, e], GgmlType.F32, 0.2, rand));
  }
  return buildGguf(meta, t);
}

/**
 * A tiny `gemma-embedding` model (EmbeddingGemma's llama.cpp architecture: bidirectional attention,
 * mean pooling and the two dense layers inside the file) with pseudo-random weights and a real
 * SentencePiece vocabulary: it loads in node-llama-cpp's embedding context and returns vectors
 * (meaningless ones) like the real model, for tests of the gguf embedding backend's wiring.
 */
export function buildEmbeddingFixture(vocabGguf: Buffer, opts: { layers?: number; embd?: number; ff?: number; seed?: number } = {}): Buffer {
  const o = { layers: 2, embd: 64, ff: 128, seed: 4321, ...opts };
  const { vocab, nVocab } = readVocabulary(vocabGguf);
  const arch = 'gemma-embedding';
  const headDim = 32;
  const dense = o.embd * 2;
  const meta = new Map<string, GgufValue>();
  meta.set('general.architecture', str(arch));
  meta.set('general.name', str(`manualdesk-test-embedding-${o.layers}x${o.embd}`));
  meta.set('general.file_type', u32(0));
  meta.set(`${arch}.block_count`, u32(o.layers));
  meta.set(`${arch}.context_length`, u32(2048));
  meta.set(`${arch}.embedding_length`, u32(o.embd));
  meta.set(`${arch}.feed_forward_length`, u32(o.ff));
  meta.set(`${arch}.attention.head_count`, u32(2));
  meta.set(`${arch}.attention.head_count_kv`, u32(1));
  meta.set(`${arch}.attention.key_length`, u32(headDim));
  meta.set(`${arch}.attention.value_length`, u32(headDim));
  meta.set(`${arch}.attention.layer_norm_rms_epsilon`, f32(1e-6));
  meta.set(`${arch}.attention.sliding_window`, u32(512));
  // One sliding-window layer then one global one (the real model: five then one). With only
  // sliding-window layers llama.cpp leaves the global attention mask unallocated and aborts.
  meta.set(`${arch}.attention.sliding_window_pattern`, u32(2));
  meta.set(`${arch}.rope.freq_base`, f32(1e6));
  meta.set(`${arch}.pooling_type`, u32(1));
  meta.set(`${arch}.dense_2_feat_in`, u32(o.embd));
  meta.set(`${arch}.dense_2_feat_out`, u32(dense));
  meta.set(`${arch}.dense_3_feat_in`, u32(dense));
  meta.set(`${arch}.dense_3_feat_out`, u32(o.embd));
  for (const [k, v] of vocab.metadata) if (k.startsWith('tokenizer.')) meta.set(k, v);

  const rand = prng(o.seed);
  const e = o.embd;
  const t: TensorToWrite[] = [];
  t.push(randomTensor('token_embd.weight', [e, nVocab], GgmlType.F16, 1, rand));
  t.push(ones('output_norm.weight', e));
  t.push(randomTensor('dense_2.weight', [e, dense], GgmlType.F32, 0.2, rand));
  t.push(randomTensor('dense_3.weight', [dense, e], GgmlType.F32, 0.2, rand));
  for (let l = 0; l < o.layers; l++) {
    const p = `blk.${l}.`;
    t.push(ones(`${p}attn_norm.weight`, e));
    t.push(randomTensor(`${p}attn_q.weight`, [e, 2 * headDim], GgmlType.F32, 0.2, rand));
    t.push(randomTensor(`${p}attn_k.weight`, [e, headDim], GgmlType.F32, 0.2, rand));
    t.push(randomTensor(`${p}attn_v.weight`, [e, headDim], GgmlType.F32, 0.2, rand));
    t.push(ones(`${p}attn_q_norm.weight`, headDim));
    t.push(ones(`${p}attn_k_norm.weight`, headDim));
    t.push(randomTensor(`${p}attn_output.weight`, [2 * headDim, e], GgmlType.F32, 0.2, rand));
    t.push(ones(`${p}post_attention_norm.weight`, e));
    t.push(ones(`${p}ffn_norm.weight`, e));
    t.push(randomTensor(`${p}ffn_gate.weight`, [e, o.ff], GgmlType.F32, 0.2, rand));
    t.push(randomTensor(`${p}ffn_up.weight`, [e, o.ff], GgmlType.F32, 0.2, rand));
    t.push(randomTensor(`${p}ffn_down.weight`, [o.ff, e], GgmlType.F32, 0.2, rand));
    t.push(ones(`${p}post_ffw_norm.weight`, e));
  }
  return buildGguf(meta, t);
}

/** Writes the embedding fixture (llama-spm vocabulary) to outFile and returns its path. */
export async function makeEmbeddingFixture(outFile: string): Promise<string> {
  const bundle = findLlamaBundle();
  if (!bundle) throw new Error('node-llama-cpp is not installed (its llama.cpp bundle holds the vocabulary files)');
  await fs.promises.mkdir(path.dirname(outFile), { recursive: true });
  await fs.promises.writeFile(outFile, buildEmbeddingFixture(extractVocab('llama-spm', bundle)));
  return outFile;
}

/** Writes the fixture model to opts.outFile and returns its path. */
export async function makeGgufFixture(opts: FixtureOptions): Promise<string> {
  const bundle = findLlamaBundle();
  if (!bundle) throw new Error('node-llama-cpp is not installed (its llama.cpp bundle holds the vocabulary files)');
  const vocab = extractVocab(opts.vocab ?? FIXTURE_DEFAULTS.vocab, bundle);
  await fs.promises.mkdir(path.dirname(opts.outFile), { recursive: true });
  await fs.promises.writeFile(opts.outFile, buildFixture(vocab, opts));
  return opts.outFile;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const out = path.resolve(process.argv[2] ?? path.join(os.tmpdir(), 'manualdesk-test-model.gguf'));
  const t0 = performance.now();
  await makeGgufFixture({ outFile: out });
  console.log(`${out}: ${(fs.statSync(out).size / 1e6).toFixed(1)} MB in ${Math.round(performance.now() - t0)} ms`);
}
