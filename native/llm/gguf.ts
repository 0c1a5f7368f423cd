/**
 * A small GGUF (version 3) reader and writer: metadata (key/value pairs) and tensor descriptions,
 * and writing a file from metadata plus tensor data. Used to describe installed models and by
 * scripts/make-gguf-fixture.ts to build a tiny test model from a vocabulary-only GGUF.
 *
 * Layout: magic "GGUF", u32 version, u64 tensor count, u64 kv count, the kv pairs
 * (string key, u32 type, value), the tensor infos (string name, u32 n_dims, u64 dims[],
 * u32 ggml type, u64 offset into the data section), padding to `general.alignment` (default 32),
 * then the tensor data, each tensor at an aligned offset. Little-endian throughout.
 */
import fs from 'node:fs';

export const GGUF_MAGIC = 0x46554747; // "GGUF" read as u32 LE
export const DEFAULT_ALIGNMENT = 32;

export enum GgufType {
  UINT8 = 0,
  INT8 = 1,
  UINT16 = 2,
  INT16 = 3,
  UINT32 = 4,
  INT32 = 5,
  FLOAT32 = 6,
  BOOL = 7,
  STRING = 8,
  ARRAY = 9,
  UINT64 = 10,
  INT64 = 11,
  FLOAT64 = 12,
}

/** ggml tensor types this module writes. */
export enum GgmlType {
  F32 = 0,
  F16 = 1,
}

export type GgufScalar = number | bigint | boolean | string;
export interface GgufArray {
  itemType: GgufType;
  items: GgufScalar[];
}
export interface GgufValue {
  type: GgufType;
  value: GgufScalar | GgufArray;
}

export interface GgufTensorInfo {
  name: string;
  dims: bigint[];
  type: number;
  offset: bigint;
}

export interface GgufFile {
  version: number;
  metadata: Map<string, GgufValue>;
  tensors: GgufTensorInfo[];
  /** Byte offset of the data section in the file. */
  dataOffset: number;
}

class Reader {
  pos = 0;
  constructor(private readonly buf: Buffer) {}
  u8(): number {
    return this.buf.readUInt8(this.advance(1));
  }
  i8(): number {
    return this.buf.readInt8(this.advance(1));
  }
  u16(): number {
    return this.buf.readUInt16LE(this.advance(2));
  }
  i16(): number {
    return this.buf.readInt16LE(this.advance(2));
  }
  u32(): number {
    return this.buf.readUInt32LE(this.advance(4));
  }
  i32(): number {
    return this.buf.readInt32LE(this.advance(4));
  }
  u64(): bigint {
    return this.buf.readBigUInt64LE(this.advance(8));
  }
  i64(): bigint {
    return this.buf.readBigInt64LE(this.advance(8));
  }
  f32(): number {
    return this.buf.readFloatLE(this.advance(4));
  }
  f64(): number {
    return this.buf.readDoubleLE(this.advance(8));
  }
  str(): string {
    const len = Number(this.u64());
    const start = this.advance(len);
    return this.buf.toString('utf8', start, start + len);
  }
  private advance(n: number): number {
    const at = this.pos;
    if (at + n > this.buf.length) throw new Error(`GGUF: unexpected end of file at byte ${at}`);
    this.pos += n;
    return at;
  }
}

function readScalar(r: Reader, type: GgufType): GgufScalar {
  switch (type) {
    case GgufType.UINT8:
      return r.u8();
    case GgufType.INT8:
      return r.i8();
    case GgufType.UINT16:
      return r.u16();
    case GgufType.INT16:
      return r.i16();
    case GgufType.UINT32:
      return r.u32();
    case GgufType.INT32:
      return r.i32();
    case GgufType.FLOAT32:
      return r.f32();
    case GgufType.BOOL:
      return r.u8() !== 0;
    case GgufType.STRING:
      return r.str();
    case GgufType.UINT64:
      return r.u64();
    case GgufType.INT64:
      return r.i64();
    case GgufType.FLOAT64:
      return r.f64();
    default:
      throw new Error(`GGUF: unknown value type ${type}`);
  }
}

/** Parses the header, metadata and tensor infos of a GGUF held in memory (tensor data is not copied). */
export function parseGguf(buf: Buffer): GgufFile {
  const r = new Reader(buf);
  if (r.u32() !== GGUF_MAGIC) throw new Error('GGUF: not a GGUF file (bad magic)');
  const version = r.u32();
  if (version !== 2 && version !== 3) throw new Error(`GGUF: unsupported version ${version}`);
  const tensorCount = Number(r.u64());
  const kvCount = Number(r.u64());
  const metadata = new Map<string, GgufValue>();
  for (let i = 0; i < kvCount; i++) {
    const key = r.str();
    const type = r.u32() as GgufType;
    if (type === GgufType.ARRAY) {
      const itemType = r.u32() as GgufType;
      const n = Number(r.u64());
      const items: GgufScalar[] = new Array(n);
      for (let j = 0; j < n; j++) items[j] = readScalar(r, itemType);
      metadata.set(key, { type, value: { itemType, items } });
    } else {
      metadata.set(key, { type, value: readScalar(r, type) });
    }
  }
  const tensors: GgufTensorInfo[] = [];
  for (let i = 0; i < tensorCount; i++) {
    const name = r.str();
    const nDims = r.u32();
    const dims: bigint[] = [];
    for (let d = 0; d < nDims; d++) dims.push(r.u64());
    tensors.push({ name, dims, type: r.u32(), offset: r.u64() });
  }
  const alignment = Number(scalarOf(metadata, 'general.alignment') ?? DEFAULT_ALIGNMENT);
  return { version, metadata, tensors, dataOffset: alignUp(r.pos, alignment) };
}

/** Reads only as much of the file as the header needs (grows the window until it parses). */
export function readGgufHeader(file: string): GgufFile {
  const fd = fs.openSync(file, 'r');
  try {
    const size = fs.fstatSync(fd).size;
    for (let want = 1 << 20; ; want *= 4) {
      const n = Math.min(want, size);
      const buf = Buffer.alloc(n);
      fs.readSync(fd, buf, 0, n, 0);
      try {
        return parseGguf(buf);
      } catch (err) {
        if (n >= size || !/unexpected end/.test(String(err))) throw err;
      }
    }
  } finally {
    fs.closeSync(fd);
  }
}

export function scalarOf(metadata: Map<string, GgufValue>, key: string): GgufScalar | undefined {
  const v = metadata.get(key);
  return v && v.type !== GgufType.ARRAY ? (v.value as GgufScalar) : undefined;
}

export function alignUp(n: number, alignment: number): number {
  return Math.ceil(n / alignment) * alignment;
}

// ---- writing ----------------------------------------------------------------------------------

export interface TensorToWrite {
  name: string;
  /** ggml order: the first dimension varies fastest (ne0, ne1, …). */
  dims: number[];
  type: GgmlType;
  data: Buffer;
}

class Writer {
  private buf = Buffer.alloc(1 << 20);
  length = 0;
  private reserve(n: number): number {
    if (this.length + n > this.buf.length) {
      const next = Buffer.alloc(Math.max(this.buf.length * 2, this.length + n));
      this.buf.copy(next, 0, 0, this.length);
      this.buf = next;
    }
    const at = this.length;
    this.length += n;
    return at;
  }
  push(b: Buffer): void {
    const at = this.reserve(b.length);
    b.copy(this.buf, at);
  }
  u32(v: number): void {
    const at = this.reserve(4);
    this.buf.writeUInt32LE(v, at);
  }
  u64(v: bigint | number): void {
    const at = this.reserve(8);
    this.buf.writeBigUInt64LE(BigInt(v), at);
  }
  str(s: string): void {
    const len = Buffer.byteLength(s, 'utf8');
    this.u64(len);
    const at = this.reserve(len);
    this.buf.write(s, at, 'utf8');
  }
  scalar(type: GgufType, v: GgufScalar): void {
    const b = Buffer.alloc(scalarSize(type));
    switch (type) {
      case GgufType.UINT8:
        b.writeUInt8(Number(v));
        break;
      case GgufType.INT8:
        b.writeInt8(Number(v));
        break;
      case GgufType.UINT16:
        b.writeUInt16LE(Number(v));
        break;
      case GgufType.INT16:
        b.writeInt16LE(Number(v));
        break;
      case GgufType.UINT32:
        b.writeUInt32LE(Number(v));
        break;
      case GgufType.INT32:
        b.writeInt32LE(Number(v));
        break;
      case GgufType.FLOAT32:
        b.writeFloatLE(Number(v));
        break;
      case GgufType.BOOL:
        b.writeUInt8(v ? 1 : 0);
        break;
      case GgufType.UINT64:
        b.writeBigUInt64LE(BigInt(v));
        break;
      case GgufType.INT64:
        b.writeBigInt64LE(BigInt(v));
        break;
      case GgufType.FLOAT64:
        b.writeDoubleLE(Number(v));
        break;
      case GgufType.STRING:
        this.str(String(v));
        return;
      default:
        throw new Error(`GGUF: cannot write value type ${type}`);
    }
    this.push(b);
  }
  concat(): Buffer {
    return this.buf.subarray(0, this.length);
  }
}

function scalarSize(type: GgufType): number {
  switch (type) {
    case GgufType.UINT8:
    case GgufType.INT8:
    case GgufType.BOOL:
      return 1;
    case GgufType.UINT16:
    case GgufType.INT16:
      return 2;
    case GgufType.UINT32:
    case GgufType.INT32:
    case GgufType.FLOAT32:
      return 4;
    default:
      return 8;
  }
}

/** Serialises metadata and tensors into a GGUF v3 file image. */
export function buildGguf(metadata: Map<string, GgufValue>, tensors: TensorToWrite[]): Buffer {
  const alignment = Number(scalarOf(metadata, 'general.alignment') ?? DEFAULT_ALIGNMENT);
  const w = new Writer();
  w.u32(GGUF_MAGIC);
  w.u32(3);
  w.u64(tensors.length);
  w.u64(metadata.size);
  for (const [key, v] of metadata) {
    w.str(key);
    w.u32(v.type);
    if (v.type === GgufType.ARRAY) {
      const arr = v.value as GgufArray;
      w.u32(arr.itemType);
      w.u64(arr.items.length);
      for (const item of arr.items) w.scalar(arr.itemType, item);
    } else {
      w.scalar(v.type, v.value as GgufScalar);
    }
  }
  let offset = 0;
  const offsets: number[] = [];
  for (const t of tensors) {
    offsets.push(offset);
    offset = alignUp(offset + t.data.length, alignment);
  }
  tensors.forEach((t, i) => {
    w.str(t.name);
    w.u32(t.dims.length);
    for (const d of t.dims) w.u64(d);
    w.u32(t.type);
    w.u64(offsets[i] ?? 0);
  });
  const header = w.concat();
  const dataStart = alignUp(header.length, alignment);
  const out = Buffer.alloc(dataStart + offset);
  header.copy(out, 0);
  tensors.forEach((t, i) => t.data.copy(out, dataStart + (offsets[i] ?? 0)));
  return out;
}

/** IEEE 754 half precision from a float (round to nearest even), for F16 tensors. */
const HALF_F32 = new Float32Array(1);
const HALF_U32 = new Uint32Array(HALF_F32.buffer);

export function toHalf(value: number): number {
  HALF_F32[0] = value;
  const x = HALF_U32[0] as number;
  const sign = (x >>> 16) & 0x8000;
  const exp = (x >>> 23) & 0xff;
  let mant = x & 0x7fffff;
  if (exp === 0xff) return sign | 0x7c00 | (mant ? 0x200 : 0);
  const e = exp - 127 + 15;
  if (e >= 0x1f) return sign | 0x7c00;
  if (e <= 0) {
    if (e < -10) return sign;
    mant |= 0x800000;
    const shift = 14 - e;
    let half = mant >>> shift;
    const rem = mant & ((1 << shift) - 1);
    const mid = 1 << (shift - 1);
    if (rem > mid || (rem === mid && half & 1)) half++;
    return sign | half;
  }
  let half = (e << 10) | (mant >>> 13);
  const rem = mant & 0x1fff;
  // Rounding up may carry into the exponent; a carry to 0x7c00 is infinity, as it should be.
  if (rem > 0x1000 || (rem === 0x1000 && half & 1)) half++;
  return sign | half;
}
