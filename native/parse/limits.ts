/**
 * Resource caps of the parse stage, against "bombs" (a small file that expands to gigabytes or to
 * minutes of work). A file over a cap is refused with FILE_UNREADABLE and a message naming the cap
 * and its setting; ingest skips it, reports it, and goes on with the other files.
 *
 * Settings (environment, read at each parse; defaults fit real manuals with a wide margin):
 *   MANUALDESK_MAX_UNZIPPED_MB    decompressed size of a DOCX/XLSX (all its parts)      default 256
 *   MANUALDESK_MAX_ZIP_RATIO      decompressed : file size of a DOCX/XLSX over 16 MB     default 100
 *   MANUALDESK_MAX_PDF_PAGES      pages of one PDF                                       default 10000
 *   MANUALDESK_MAX_TABLE_ROWS     rows of one table (CSV, spreadsheet sheet, document)   default 200000
 *   MANUALDESK_MAX_PARSE_SECONDS  wall time to read one file (OCR included)              default 1800
 *   MANUALDESK_MAX_TEXT_MB        size of a plain text, CSV/TSV or .properties file        default 64
 *   MANUALDESK_MAX_MARKUP_MB      size of a Markdown, HTML, AsciiDoc, RST, JSON, YAML file default 32
 *   MANUALDESK_MAX_NESTING        nesting of lists, quotes, blocks in a text format      default 64
 *
 * Text formats have their own size caps, below the 512 MB of any file: their parsers hold the whole
 * text in memory, and markup parsers a token or node per element besides (marked: about 30 times
 * the file's size), so a flat 400 MB Markdown file exhausts the heap. Plain text costs about 4 times
 * its size (a 50 MB text file: 200 MB). Their parsers also slow down sharply with nesting (marked,
 * the RST reader: 2,000 nested list levels in 4 MB take minutes and gigabytes, 5,000 abort the
 * process); the nesting is measured on the raw text first (parse/nesting.ts), in linear time.
 */
import { createInflateRaw } from 'node:zlib';
import { EngineError } from '../contract/errors.js';

export interface ParseLimits {
  maxUnzippedBytes: number;
  maxZipRatio: number;
  maxPdfPages: number;
  maxTableRows: number;
  maxParseMs: number;
  maxTextBytes: number;
  maxMarkupBytes: number;
  maxNesting: number;
}

export const DEFAULT_LIMITS: Readonly<ParseLimits> = Object.freeze({
  maxUnzippedBytes: 256 * 1024 * 1024,
  maxZipRatio: 100,
  maxPdfPages: 10_000,
  maxTableRows: 200_000,
  maxParseMs: 30 * 60 * 1000,
  maxTextBytes: 64 * 1024 * 1024,
  maxMarkupBytes: 32 * 1024 * 1024,
  maxNesting: 64,
});

/** Below this decompressed size the ratio is not checked (small files compress well and harm nothing). */
const RATIO_FLOOR_BYTES = 16 * 1024 * 1024;

export function parseLimits(env: NodeJS.ProcessEnv = process.env): ParseLimits {
  const num = (name: string, fallback: number, scale = 1): number => {
    const n = Number(env[name]);
    return env[name] !== undefined && env[name] !== '' && Number.isFinite(n) && n > 0 ? n * scale : fallback;
  };
  return {
    maxUnzippedBytes: num('MANUALDESK_MAX_UNZIPPED_MB', DEFAULT_LIMITS.maxUnzippedBytes, 1024 * 1024),
    maxZipRatio: num('MANUALDESK_MAX_ZIP_RATIO', DEFAULT_LIMITS.maxZipRatio),
    maxPdfPages: Math.floor(num('MANUALDESK_MAX_PDF_PAGES', DEFAULT_LIMITS.maxPdfPages)),
    maxTableRows: Math.floor(num('MANUALDESK_MAX_TABLE_ROWS', DEFAULT_LIMITS.maxTableRows)),
    maxParseMs: num('MANUALDESK_MAX_PARSE_SECONDS', DEFAULT_LIMITS.maxParseMs, 1000),
    maxTextBytes: num('MANUALDESK_MAX_TEXT_MB', DEFAULT_LIMITS.maxTextBytes, 1024 * 1024),
    maxMarkupBytes: num('MANUALDESK_MAX_MARKUP_MB', DEFAULT_LIMITS.maxMarkupBytes, 1024 * 1024),
    maxNesting: Math.floor(num('MANUALDESK_MAX_NESTING', DEFAULT_LIMITS.maxNesting)),
  };
}

/** The error of a file over a cap: which cap, its value, the setting that raises it. */
export function overCap(name: string, what: string, setting: string): EngineError {
  return new EngineError(
    'FILE_UNREADABLE',
    `${name} was not read: ${what}. This is far beyond a real manual (a damaged or hostile file?); open it in its usual program and save or export it again. If it really is a manual, raise the limit with the setting ${setting} and add it again.`,
  );
}

export function assertPdfPages(name: string, pages: number, limits: ParseLimits): void {
  if (pages > limits.maxPdfPages) {
    throw overCap(name, `it has ${pages} pages, more than the ${limits.maxPdfPages} pages allowed for one PDF`, 'MANUALDESK_MAX_PDF_PAGES');
  }
}

/** Size cap of a text-format file: `markup` for formats parsed into a tree (Markdown, HTML, AsciiDoc, RST, JSON, YAML). */
export function assertTextSize(name: string, size: number, limits: ParseLimits, markup: boolean): void {
  const [cap, kind, setting] = markup
    ? [limits.maxMarkupBytes, 'markup', 'MANUALDESK_MAX_MARKUP_MB']
    : [limits.maxTextBytes, 'text', 'MANUALDESK_MAX_TEXT_MB'];
  if (size > cap) throw overCap(name, `it is ${bytes(size)} of ${kind}, more than the ${bytes(cap)} allowed for one ${kind} file`, setting);
}

/** `what` nests `depth` levels deep, past the cap (measured by parse/nesting.ts before parsing). */
export function assertNesting(name: string, what: string, depth: number, limits: ParseLimits): void {
  if (depth > limits.maxNesting) {
    throw overCap(name, `it nests ${what} ${depth} levels deep, more than the ${limits.maxNesting} levels allowed`, 'MANUALDESK_MAX_NESTING');
  }
}

export function tableRowsError(table: string, limit: number): EngineError {
  return overCap(`The table "${table.slice(0, 80)}"`, `it has more than ${limit} rows`, 'MANUALDESK_MAX_TABLE_ROWS');
}

export function timeoutError(name: string, limits: ParseLimits): EngineError {
  return overCap(name, `reading it took longer than ${Math.round(limits.maxParseMs / 1000)} s`, 'MANUALDESK_MAX_PARSE_SECONDS');
}

interface ZipEntry {
  name: string;
  method: number;
  compressedSize: number;
  dataStart: number;
}

/**
 * Decompresses every part of a ZIP-based file (DOCX, XLSX) without keeping the output, counting the
 * bytes: the sizes a ZIP declares can lie, the inflated stream cannot. Refuses the file once the total
 * passes the size cap, or the ratio cap for large totals. Memory: one inflate window at a time.
 * An archive whose directory cannot be read is left to the format's own reader (it reports the damage).
 */
export async function assertZipWithinLimits(name: string, data: Buffer, limits: ParseLimits, signal?: AbortSignal): Promise<void> {
  const entries = readCentralDirectory(data);
  if (!entries) return;
  const ratioBudget = Math.max(RATIO_FLOOR_BYTES, data.length * limits.maxZipRatio);
  const budget = Math.min(limits.maxUnzippedBytes, ratioBudget);
  let total = 0;
  for (const e of entries) {
    signal?.throwIfAborted();
    if (e.method === 0) total += e.compressedSize;
    else if (e.method === 8) total += await inflatedSize(data.subarray(e.dataStart, e.dataStart + e.compressedSize), budget - total + 1);
    else continue; // other methods: the format's reader refuses them
    if (total > budget) {
      if (total > limits.maxUnzippedBytes) {
        throw overCap(name, `its parts expand to more than ${bytes(limits.maxUnzippedBytes)}`, 'MANUALDESK_MAX_UNZIPPED_MB');
      }
      throw overCap(
        name,
        `its ${bytes(data.length)} expand to more than ${bytes(budget)}, over ${limits.maxZipRatio} times its size (a "zip bomb")`,
        'MANUALDESK_MAX_ZIP_RATIO',
      );
    }
  }
}

function bytes(n: number): string {
  return n >= 1048576 ? `${Math.round(n / 1048576)} MB` : `${Math.ceil(n / 1024)} KB`;
}

/** Bytes a raw deflate stream inflates to, stopping as soon as `stopAt` is passed. */
function inflatedSize(compressed: Buffer, stopAt: number): Promise<number> {
  return new Promise((resolve) => {
    const inflate = createInflateRaw({ chunkSize: 64 * 1024 });
    let size = 0;
    let done = false;
    const finish = () => {
      if (done) return;
      done = true;
      resolve(size);
    };
    inflate.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > stopAt) {
        finish();
        inflate.destroy();
      }
    });
    inflate.on('end', finish);
    inflate.on('close', finish);
    inflate.on('error', finish); // damaged data: counted so far; the format's reader reports the damage
    inflate.end(compressed);
  });
}

/** The entries of a ZIP's central directory (ZIP64 sizes included); null when it cannot be found or read. */
function readCentralDirectory(data: Buffer): ZipEntry[] | null {
  const eocd = findEocd(data);
  if (eocd < 0) return null;
  let count = data.readUInt16LE(eocd + 10);
  let offset = data.readUInt32LE(eocd + 16);
  if (count === 0xffff || offset === 0xffffffff) {
    const loc = eocd - 20;
    if (loc < 0 || data.readUInt32LE(loc) !== 0x07064b50) return null;
    const z64 = Number(data.readBigUInt64LE(loc + 8));
    if (z64 + 56 > data.length || data.readUInt32LE(z64) !== 0x06064b50) return null;
    count = Number(data.readBigUInt64LE(z64 + 32));
    offset = Number(data.readBigUInt64LE(z64 + 48));
  }
  const entries: ZipEntry[] = [];
  let p = offset;
  for (let i = 0; i < count; i++) {
    if (p + 46 > data.length || data.readUInt32LE(p) !== 0x02014b50) return entries.length ? entries : null;
    const method = data.readUInt16LE(p + 10);
    let compressedSize = data.readUInt32LE(p + 20);
    const nameLen = data.readUInt16LE(p + 28);
    const extraLen = data.readUInt16LE(p + 30);
    const commentLen = data.readUInt16LE(p + 32);
    let localOffset = data.readUInt32LE(p + 42);
    const name = data.toString('utf8', p + 46, p + 46 + nameLen);
    if (compressedSize === 0xffffffff || localOffset === 0xffffffff) {
      const z = zip64Extra(data, p + 46 + nameLen, extraLen, data.readUInt32LE(p + 24) === 0xffffffff, compressedSize === 0xffffffff, localOffset === 0xffffffff);
      if (z.compressedSize !== undefined) compressedSize = z.compressedSize;
      if (z.localOffset !== undefined) localOffset = z.localOffset;
    }
    if (localOffset + 30 <= data.length && data.readUInt32LE(localOffset) === 0x04034b50) {
      const dataStart = localOffset + 30 + data.readUInt16LE(localOffset + 26) + data.readUInt16LE(localOffset + 28);
      entries.push({ name, method, compressedSize: Math.min(compressedSize, Math.max(0, data.length - dataStart)), dataStart });
    }
    p += 46 + nameLen + extraLen + commentLen;
  }
  return entries;
}

function zip64Extra(data: Buffer, start: number, len: number, hasSize: boolean, hasCompressed: boolean, hasOffset: boolean): { compressedSize?: number; localOffset?: number } {
  for (let q = start; q + 4 <= start + len && q + 4 <= data.length; ) {
    const id = data.readUInt16LE(q);
    const size = data.readUInt16LE(q + 2);
    if (id === 0x0001) {
      let r = q + 4;
      const out: { compressedSize?: number; localOffset?: number } = {};
      if (hasSize) r += 8;
      if (hasCompressed && r + 8 <= data.length) {
        out.compressedSize = Number(data.readBigUInt64LE(r));
        r += 8;
      }
      if (hasOffset && r + 8 <= data.length) out.localOffset = Number(data.readBigUInt64LE(r));
      return out;
    }
    q += 4 + size;
  }
  return {};
}

function findEocd(data: Buffer): number {
  const min = Math.max(0, data.length - 22 - 0xffff);
  for (let p = data.length - 22; p >= min; p--) if (data.readUInt32LE(p) === 0x06054b50) return p;
  return -1;
}
