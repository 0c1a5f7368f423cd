/**
 * A pack is one file, or parts `<name>.001`, `<name>.002`, … (each below the FAT32 limit) that are
 * read as one stream in order.
 */
import { createReadStream, createWriteStream, existsSync, statSync, type WriteStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import { Readable, Writable } from 'node:stream';
import { EngineError } from '../contract/errors.js';

const PART_RE = /\.(\d{3})$/;

export function partName(base: string, index: number): string {
  return `${base}.${String(index + 1).padStart(3, '0')}`;
}

/**
 * The files that make up a pack given by the user: the file itself, or — given `x.mdpack` when only
 * `x.mdpack.001…` exist, or given any part — every part in order. Refuses gaps.
 */
export function resolveParts(file: string): { parts: string[]; bytes: number } {
  let base: string | null = null;
  const m = PART_RE.exec(file);
  if (m && existsSync(file)) base = file.slice(0, -4);
  else if (!existsSync(file) && existsSync(partName(file, 0))) base = file;
  if (base === null) {
    const st = statSync(file, { throwIfNoEntry: false });
    if (!st?.isFile()) throw new EngineError('NOT_FOUND', `No pack at ${file}. Check the path (split packs: name the first part, .001).`);
    return { parts: [file], bytes: st.size };
  }
  const parts: string[] = [];
  let bytes = 0;
  for (let i = 0; i < 999; i++) {
    const p = partName(base, i);
    const st = statSync(p, { throwIfNoEntry: false });
    if (!st) break;
    if (!st.isFile()) throw new EngineError('PACK_INVALID', `${p} is not a file.`);
    parts.push(p);
    bytes += st.size;
  }
  if (parts.length === 0) throw new EngineError('NOT_FOUND', `No part ${partName(base, 0)} found.`);
  return { parts, bytes };
}

/** One readable over every part, in order. */
export function readParts(parts: string[], highWaterMark = 1024 * 1024): Readable {
  async function* chain(): AsyncGenerator<Buffer> {
    for (const p of parts) {
      for await (const chunk of createReadStream(p, { highWaterMark })) yield chunk as Buffer;
    }
  }
  return Readable.from(chain(), { objectMode: false, highWaterMark });
}

/**
 * A writable that fills `<base>.001`, `<base>.002`, … up to `partSize` bytes each. `finish()` returns
 * the parts; when everything fitted in one, it is renamed to `<base>` itself.
 */
export class SplitWriter extends Writable {
  private index = -1;
  private current: WriteStream | null = null;
  private inPart = 0;
  readonly parts: string[] = [];
  bytes = 0;

  constructor(
    private readonly base: string,
    private readonly partSize: number,
  ) {
    super({ highWaterMark: 1024 * 1024 });
    if (!Number.isInteger(partSize) || partSize < 1024) throw new EngineError('INVALID_INPUT', 'The split size must be at least 1024 bytes.');
  }

  override _write(chunk: Buffer, _enc: BufferEncoding, cb: (err?: Error | null) => void): void {
    this.writeChunk(chunk).then(() => cb(), cb);
  }

  private async writeChunk(chunk: Buffer): Promise<void> {
    let off = 0;
    while (off < chunk.length) {
      if (!this.current || this.inPart >= this.partSize) await this.nextPart();
      const n = Math.min(chunk.length - off, this.partSize - this.inPart);
      const piece = chunk.subarray(off, off + n);
      const cur = this.current as WriteStream;
      if (!cur.write(piece)) await new Promise<void>((resolve) => cur.once('drain', resolve));
      this.inPart += n;
      this.bytes += n;
      off += n;
    }
  }

  private async nextPart(): Promise<void> {
    await this.closeCurrent();
    this.index++;
    const p = partName(this.base, this.index);
    this.parts.push(p);
    this.current = createWriteStream(p, { flags: 'wx', flush: true });
    this.inPart = 0;
  }

  private async closeCurrent(): Promise<void> {
    const cur = this.current;
    if (!cur) return;
    this.current = null;
    await new Promise<void>((resolve, reject) => {
      cur.once('error', reject);
      cur.end(() => resolve());
    });
  }

  override _final(cb: (err?: Error | null) => void): void {
    (async () => {
      if (!this.current) await this.nextPart(); // an empty stream still makes a (tiny) file
      await this.closeCurrent();
    })().then(() => cb(), cb);
  }

  /** Removes every part written so far (after a failure or cancel). */
  async discard(): Promise<void> {
    this.current?.destroy();
    for (const p of this.parts) await rm(p, { force: true });
  }
}
