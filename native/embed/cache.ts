/**
 * On-disk embedding cache keyed by (embedder id, sha256 of the embedded text), so re-ingesting
 * unchanged text never re-embeds it.
 *
 * One append-only file per embedder id in the library folder:
 *   header  "MDEMBC01" | u32 dims | u32 id byte length | id (utf8) | zero pad to 4 bytes
 *   records [32-byte sha256][dims × float32 LE], repeated
 * The hash → file-offset index is built lazily on first use; vectors are read on demand. A torn last
 * record (crash mid-append) is ignored and cut off before the next append. A file whose header does
 * not match (other dims, other id, damaged) is discarded: it is only a cache.
 */
import { createHash } from 'node:crypto';
import {
  closeSync,
  existsSync,
  fstatSync,
  ftruncateSync,
  fsyncSync,
  mkdirSync,
  openSync,
  readSync,
  writeSync,
} from 'node:fs';
import { join } from 'node:path';
import { EngineError } from '../contract/errors.js';
import type { Embedder } from './types.js';

const MAGIC = 'MDEMBC01';
const HASH_BYTES = 32;
const HEX64 = /^[0-9a-f]{64}$/;
/**
 * How often embedWithCache keeps what it computed (flushes the cache): after at most `texts` texts and,
 * as the model's pace allows, after about `ms` of embedding, so a killed or cancelled ingest loses at
 * most that much work whatever the computer's speed. The first slice is `minTexts` (the pace is not
 * known yet); each next one is sized by the pace of the last. `now` is the clock (tests replace it).
 */
export const EMBED_FLUSH = { texts: 256, minTexts: 8, ms: 10_000, now: (): number => performance.now() };

export interface CacheEntry {
  /** sha256 (hex) of the exact text given to the embedder. */
  hash: string;
  vector: Float32Array;
}

/** File name for an embedder id: readable part plus a short hash, safe on every file system. */
export function cacheFileName(embedderId: string): string {
  const readable = embedderId.replace(/[^A-Za-z0-9._-]+/g, '_').slice(0, 80);
  const short = createHash('sha256').update(embedderId).digest('hex').slice(0, 12);
  return `embeddings-${readable}-${short}.bin`;
}

function headerBytes(embedderId: string, dims: number): Buffer {
  const id = Buffer.from(embedderId, 'utf8');
  const len = 16 + id.length;
  const buf = Buffer.alloc(len + ((4 - (len % 4)) % 4));
  buf.write(MAGIC, 0, 'latin1');
  buf.writeUInt32LE(dims, 8);
  buf.writeUInt32LE(id.length, 12);
  id.copy(buf, 16);
  return buf;
}

export class EmbeddingCache {
  readonly path: string;
  private fd: number | undefined;
  private readonly recordBytes: number;
  private readonly header: Buffer;
  /** hex hash → byte offset of the vector in the file; undefined until first use. */
  private index: Map<string, number> | undefined;
  /** Byte length of the file's valid part (header + whole records). */
  private end = 0;
  private pending: Buffer[] = [];

  private constructor(
    path: string,
    readonly embedderId: string,
    readonly dims: number,
  ) {
    this.path = path;
    this.recordBytes = HASH_BYTES + dims * 4;
    this.header = headerBytes(embedderId, dims);
  }

  /** Opens (or creates) the cache file for one embedder in `dir`. */
  static open(dir: string, embedderId: string, dims: number): EmbeddingCache {
    if (!Number.isInteger(dims) || dims <= 0) {
      throw new EngineError('INVALID_INPUT', `Embedding dimensions must be a positive integer, got ${dims}.`);
    }
    mkdirSync(dir, { recursive: true });
    const cache = new EmbeddingCache(join(dir, cacheFileName(embedderId)), embedderId, dims);
    cache.fd = openSync(cache.path, existsSync(cache.path) ? 'r+' : 'w+');
    return cache;
  }

  /** Number of cached vectors. */
  get size(): number {
    return this.load().size;
  }

  has(hash: string): boolean {
    return this.load().has(hash);
  }

  get(hash: string): Float32Array | undefined {
    const offset = this.load().get(hash);
    if (offset === undefined) return undefined;
    if (offset < 0) return this.fromPending(-offset - 1);
    const buf = Buffer.alloc(this.dims * 4);
    readSync(this.openFd(), buf, 0, buf.length, offset);
    return new Float32Array(buf.buffer, buf.byteOffset, this.dims).slice();
  }

  /** Adds vectors (already-cached hashes are skipped). Written on flush(). */
  putMany(entries: Iterable<CacheEntry>): void {
    const index = this.load();
    for (const { hash, vector } of entries) {
      if (!HEX64.test(hash)) throw new EngineError('INVALID_INPUT', `Not a sha256 hex digest: "${hash}".`);
      if (vector.length !== this.dims) {
        throw new EngineError('INVALID_INPUT', `Vector has ${vector.length} dims, the cache holds ${this.dims}.`);
      }
      if (index.has(hash)) continue;
      const rec = Buffer.alloc(this.recordBytes);
      rec.write(hash, 0, 'hex');
      Buffer.from(vector.buffer, vector.byteOffset, vector.byteLength).copy(rec, HASH_BYTES);
      this.pending.push(rec);
      index.set(hash, -this.pending.length); // negative: still in memory
    }
  }

  /** Appends pending records and syncs them to disk. */
  flush(): void {
    if (this.pending.length === 0) return;
    const fd = this.openFd();
    const data = Buffer.concat(this.pending);
    let written = 0;
    while (written < data.length) written += writeSync(fd, data, written, data.length - written, this.end + written);
    fsyncSync(fd);
    const index = this.load();
    this.pending.forEach((rec, i) => {
      index.set(rec.toString('hex', 0, HASH_BYTES), this.end + i * this.recordBytes + HASH_BYTES);
    });
    this.end += data.length;
    this.pending = [];
  }

  /**
   * Empties the cache (only a cache: every vector can be computed again) and returns the bytes freed.
   * What frees room on a full disk for a removal to commit.
   */
  clear(): number {
    const fd = this.openFd();
    const size = fstatSync(fd).size;
    ftruncateSync(fd, 0);
    this.pending = [];
    this.index = undefined;
    this.load(); // writes the header again
    return Math.max(0, size - this.end);
  }

  /** Flushes and closes the file; safe to call twice. */
  close(): void {
    if (this.fd === undefined) return;
    try {
      this.flush();
    } finally {
      closeSync(this.fd);
      this.fd = undefined;
      this.index = undefined;
    }
  }

  private openFd(): number {
    if (this.fd === undefined) throw new EngineError('INTERNAL', 'The embedding cache was already closed.');
    return this.fd;
  }

  private fromPending(i: number): Float32Array | undefined {
    const rec = this.pending[i];
    if (!rec) return undefined;
    return new Float32Array(rec.buffer.slice(rec.byteOffset + HASH_BYTES, rec.byteOffset + rec.length));
  }

  /** Builds the index on first use; resets a foreign or damaged file; cuts a torn tail. */
  private load(): Map<string, number> {
    if (this.index) return this.index;
    const fd = this.openFd();
    const size = fstatSync(fd).size;
    const head = Buffer.alloc(this.header.length);
    const got = size >= head.length ? readSync(fd, head, 0, head.length, 0) : 0;
    const index = new Map<string, number>();
    if (got !== head.length || !head.equals(this.header)) {
      ftruncateSync(fd, 0);
      writeSync(fd, this.header, 0, this.header.length, 0);
      fsyncSync(fd);
      this.end = this.header.length;
    } else {
      const records = Math.floor((size - head.length) / this.recordBytes);
      this.end = head.length + records * this.recordBytes;
      if (this.end !== size) ftruncateSync(fd, this.end); // torn last record
      const chunkRecords = 4096;
      const buf = Buffer.alloc(chunkRecords * this.recordBytes);
      for (let r = 0; r < records; r += chunkRecords) {
        const n = Math.min(chunkRecords, records - r);
        const start = head.length + r * this.recordBytes;
        readSync(fd, buf, 0, n * this.recordBytes, start);
        for (let k = 0; k < n; k++) {
          const at = k * this.recordBytes;
          index.set(buf.toString('hex', at, at + HASH_BYTES), start + at + HASH_BYTES);
        }
      }
    }
    this.index = index;
    return index;
  }
}

/**
 * Embeds only the items the cache does not hold (each distinct hash once), stores the new vectors,
 * and returns one vector per item in input order. `cache` must belong to `embedder`.
 */
export async function embedWithCache(
  embedder: Embedder,
  cache: EmbeddingCache,
  items: { hash: string; text: string }[],
  signal?: AbortSignal,
  /** How many of `items` have their vector so far (those in the cache count from the start). */
  onProgress?: (done: number) => void,
): Promise<Float32Array[]> {
  if (cache.embedderId !== embedder.id || cache.dims !== embedder.dims) {
    throw new EngineError(
      'EMBEDDER_MISMATCH',
      `The embedding cache belongs to ${cache.embedderId} (${cache.dims}-d), not ${embedder.id} (${embedder.dims}-d).`,
    );
  }
  const missing = new Map<string, string>();
  for (const { hash, text } of items) if (!cache.has(hash) && !missing.has(hash)) missing.set(hash, text);
  const pending = [...missing];
  const known = items.length - pending.length;
  // Flush every slice so a cancelled or crashed ingest keeps what it already paid for.
  let size = Math.min(EMBED_FLUSH.minTexts, EMBED_FLUSH.texts);
  for (let start = 0; start < pending.length; ) {
    signal?.throwIfAborted();
    const from = start;
    const slice = pending.slice(from, from + size);
    const began = EMBED_FLUSH.now();
    const vectors = await embedder.embedDocuments(
      slice.map(([, text]) => text),
      signal,
      onProgress && ((n) => onProgress(known + from + n)),
    );
    if (vectors.length !== slice.length) {
      throw new EngineError('INTERNAL', `The embedder returned ${vectors.length} vectors for ${slice.length} texts.`);
    }
    cache.putMany(slice.map(([hash], i) => ({ hash, vector: vectors[i] ?? new Float32Array(0) })));
    cache.flush();
    start += slice.length;
    size = nextSliceSize(slice.length, EMBED_FLUSH.now() - began);
  }
  return items.map(({ hash }) => {
    const v = cache.get(hash);
    if (!v) throw new EngineError('INTERNAL', `No vector for ${hash} after embedding.`);
    return v;
  });
}

/** Texts in the next slice: as many as the last slice's pace fits in EMBED_FLUSH.ms, within the bounds. */
function nextSliceSize(texts: number, ms: number): number {
  const { texts: most, minTexts, ms: budget } = EMBED_FLUSH;
  if (!(ms > 0)) return most;
  return Math.max(Math.min(minTexts, most), Math.min(most, Math.floor((budget * texts) / ms)));
}
