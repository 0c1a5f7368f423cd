/**
 * PARSE stage: one adapter per format turns a manual file into a {@link ParsedDocument}: blocks
 * in reading order with their heading path, page, admonition kind, table columns/cells, step
 * numbers and definition terms.
 *
 * Conventions shared by all adapters:
 * - `meta.title` is set only when the document itself names a title (first h1, PDF Title, YAML
 *   title…); callers fall back to the sidecar or the file name ({@link resolveManualMeta}).
 * - Admonition text starts with its label ("WARNING: Disconnect power…"); when the manual writes
 *   the label inline, it is kept as written ("Caution: …", "警告：…").
 * - Table rows: `columns` and `cells` have the same length; `text` is "column: cell" lines.
 */
import { readFile, stat } from 'node:fs/promises';
import { isUtf8 } from 'node:buffer';
import { basename, extname } from 'node:path';
import iconv from 'iconv-lite';
import { EngineError, type ManualMeta, type ParsedDocument } from '../contract/index.js';
import { decodeText, looksBinary } from './encoding.js';
import { parseCsv } from './formats/csv.js';
import { parseHtml } from './formats/html.js';
import { parseMarkdown } from './formats/markdown.js';
import type { PdfOcrOptions } from './formats/pdf.js';
import { parseProperties } from './formats/properties.js';
import { parseRst } from './formats/rst.js';
import { parseJsonDoc, parseYamlDoc } from './formats/structured.js';
import { parseText as parsePlainText } from './formats/text.js';
import type { TextAdapterInput } from './formats/types.js';
import { assertTextSize, assertZipWithinLimits, parseLimits, timeoutError, type ParseLimits } from './limits.js';
import { SIDECAR_RE, type Sidecar } from './sidecar.js';
import { isNoTitle, titleFromPath } from './titles.js';

export { decodeText } from './encoding.js';
export { readSidecar, validateSidecar, sidecarPaths, type Sidecar } from './sidecar.js';
export { titleFromFileName } from './text-utils.js';
export type { PdfOcrOptions } from './formats/pdf.js';
export { parseLimits, DEFAULT_LIMITS, type ParseLimits } from './limits.js';

type Format =
  | 'markdown' | 'asciidoc' | 'rst' | 'html' | 'text' | 'docx' | 'pdf' | 'csv' | 'tsv' | 'yaml' | 'json' | 'properties' | 'xlsx';

const BY_EXTENSION: Record<string, Format> = {
  '.md': 'markdown',
  '.markdown': 'markdown',
  '.mdown': 'markdown',
  '.mkd': 'markdown',
  '.adoc': 'asciidoc',
  '.asciidoc': 'asciidoc',
  '.rst': 'rst',
  '.html': 'html',
  '.htm': 'html',
  '.xhtml': 'html',
  '.txt': 'text',
  '.text': 'text',
  '.docx': 'docx',
  '.pdf': 'pdf',
  '.csv': 'csv',
  '.tsv': 'tsv',
  '.yaml': 'yaml',
  '.yml': 'yaml',
  '.json': 'json',
  '.properties': 'properties',
  '.xlsx': 'xlsx',
};

/** File extensions (lower case, with the dot) that {@link parseFile} reads. */
export const SUPPORTED_EXTENSIONS: readonly string[] = Object.freeze(Object.keys(BY_EXTENSION));

const UNSUPPORTED_HINTS: Record<string, string> = {
  '.doc': 'Old Word (.doc) files are not read; save it as .docx or PDF and add that.',
  '.xls': 'Old Excel (.xls) files are not read; save it as .xlsx or CSV and add that.',
  '.ppt': 'PowerPoint files are not read; export the slides as PDF and add that.',
  '.pptx': 'PowerPoint files are not read; export the slides as PDF and add that.',
  '.odt': 'OpenDocument text is not read; save it as .docx or PDF and add that.',
  '.rtf': 'RTF files are not read; save it as .docx or PDF and add that.',
  '.chm': 'CHM help files are not read; decompile them to HTML (e.g. with 7-Zip) and add the folder.',
  '.zip': 'Archives are not read; extract the archive and add the folder.',
};

/** Largest file parseFile will read; bigger files are almost always not manuals. */
const MAX_BYTES = 512 * 1024 * 1024;

/** Formats read from their bytes (with caps of their own); every other format is text. */
const BINARY_FORMATS: ReadonlySet<Format> = new Set(['pdf', 'docx', 'xlsx']);
/** Text formats parsed into a tree of tokens or nodes: a lower size cap (MANUALDESK_MAX_MARKUP_MB). */
const MARKUP_FORMATS: ReadonlySet<Format> = new Set(['markdown', 'asciidoc', 'rst', 'html', 'json', 'yaml']);

/**
 * Refuses a file too large to parse, from its size alone: call before reading it. Text formats are
 * capped by MANUALDESK_MAX_TEXT_MB or MANUALDESK_MAX_MARKUP_MB (their parsers hold several times the
 * text in memory), others by 512 MB.
 */
export function assertFileSize(absPath: string, size: number, limits: ParseLimits = parseLimits()): void {
  const name = basename(absPath);
  assertSize(size, name);
  const format = BY_EXTENSION[extname(name).toLowerCase()];
  if (format && !BINARY_FORMATS.has(format)) assertTextSize(name, size, limits, MARKUP_FORMATS.has(format));
}

/** True for files whose extension has an adapter (metadata sidecars `*.meta.yaml|json` excluded). */
export function isSupportedFile(path: string): boolean {
  const name = basename(path);
  if (SIDECAR_RE.test(name)) return false;
  return extname(name).toLowerCase() in BY_EXTENSION;
}

/**
 * Parses one manual file. Dispatches by extension, corrected by content sniffing (a PDF named
 * .txt is read as PDF). Throws EngineError UNSUPPORTED_FORMAT for unknown types and
 * FILE_UNREADABLE for missing, damaged or undecodable files; an AbortError when cancelled.
 */
export async function parseFile(
  absPath: string,
  opts: { signal?: AbortSignal; ocr?: PdfOcrOptions; /** The file's bytes, already read (ingest hashes them first): parsed as given. */ data?: Buffer } = {},
): Promise<ParsedDocument> {
  const limits = parseLimits();
  // Wall time per file: a file that keeps the parser busy past the cap is given up (the cap's own error
  // below). The timer fires where a parser waits (OCR); pdf.js works in microtasks that never let a timer
  // run, so its page loop also checks the clock (`deadlineAt`).
  const deadlineAt = Date.now() + limits.maxParseMs;
  const deadline = AbortSignal.timeout(limits.maxParseMs);
  const signal = opts.signal ? AbortSignal.any([opts.signal, deadline]) : deadline;
  try {
    return withoutNoTitle(await parseWithin(absPath, { ...opts, signal }, limits, deadlineAt));
  } catch (err) {
    if (deadline.aborted && !opts.signal?.aborted) throw timeoutError(basename(absPath), limits);
    throw err;
  }
}

/** A document whose own title names no manual (a placeholder, a contents heading, a link's words) is read as untitled. */
function withoutNoTitle(doc: ParsedDocument): ParsedDocument {
  if (doc.meta.title === undefined || !isNoTitle(doc.meta.title)) return doc;
  const { title: _, ...meta } = doc.meta;
  return { ...doc, meta };
}

async function parseWithin(
  absPath: string,
  opts: { signal: AbortSignal; ocr?: PdfOcrOptions; data?: Buffer },
  limits: ParseLimits,
  deadlineAt: number,
): Promise<ParsedDocument> {
  const { signal } = opts;
  const name = basename(absPath);
  const ext = extname(name).toLowerCase();
  if (SIDECAR_RE.test(name)) {
    throw new EngineError('UNSUPPORTED_FORMAT', `${name} is a metadata sidecar (see docs/SIDECAR.md), not a manual; it is read together with its manual.`);
  }
  const byExt = BY_EXTENSION[ext];
  if (!byExt) {
    const hint = UNSUPPORTED_HINTS[ext] ?? `Supported types: ${SUPPORTED_EXTENSIONS.join(' ')}. Convert the file to one of them (PDF, DOCX, Markdown, HTML or text work best).`;
    throw new EngineError('UNSUPPORTED_FORMAT', `${name}: files of type "${ext || '(no extension)'}" cannot be read. ${hint}`);
  }
  const data = opts.data ?? (await readBytes(absPath, name, limits));
  assertSize(data.length, name);
  signal?.throwIfAborted();
  if (data.length === 0) {
    throw new EngineError('FILE_UNREADABLE', `${name} is empty (0 bytes): there is nothing to index. It may be an incomplete copy; copy it again from the original source.`);
  }

  const warnings: string[] = [];
  const format = sniff(data, byExt, name, warnings);
  if (!BINARY_FORMATS.has(format)) assertTextSize(name, data.length, limits, MARKUP_FORMATS.has(format));
  const fileStem = name.slice(0, name.length - extname(name).length) || name;
  let doc: ParsedDocument;
  try {
    // The heavy adapters (pdf.js + OCR, mammoth, exceljs, Asciidoctor) load on first use: opening the
    // engine for a search should not pay for them.
    if (format === 'pdf') {
      const { parsePdf } = await import('./formats/pdf.js');
      doc = await parsePdf({ data, fileStem, signal, limits, name, deadlineAt, ...(opts.ocr ? { ocr: opts.ocr } : {}) });
    } else if (format === 'docx' || format === 'xlsx') {
      // Their readers inflate every part into memory: the parts are measured first, without keeping them.
      await assertZipWithinLimits(name, data, limits, signal);
      if (format === 'docx') doc = await (await import('./formats/docx.js')).parseDocx({ data, fileStem, signal, limits, name });
      else doc = await (await import('./formats/xlsx.js')).parseXlsx({ data, fileStem, signal, limits, name });
    }
    else {
      const { text, encoding, guessed } = decodeFor(format, data);
      if (looksBinary(text)) {
        throw new EngineError('FILE_UNREADABLE', `${name} does not contain text (it looks like a binary file). Check that it is really a ${format} file; open it in its usual program and save it again.`);
      }
      if (guessed) {
        warnings.push(`The text encoding was not declared; it was read as ${encoding.toUpperCase()}. If characters look wrong, save the file as UTF-8 and add it again.`);
      }
      doc = await parseTextFormat(format, { text, fileStem, signal, limits, name });
    }
  } catch (err) {
    throw asEngineError(err, name, format);
  }
  if (warnings.length) doc.warnings.unshift(...warnings);
  return doc;
}

function assertSize(bytes: number, name: string): void {
  if (bytes > MAX_BYTES) {
    throw new EngineError('FILE_UNREADABLE', `${name} is ${Math.round(bytes / 1048576)} MB, more than the ${MAX_BYTES / 1048576} MB a manual may have. Split it, or check that it is really a manual.`);
  }
}

async function readBytes(absPath: string, name: string, limits: ParseLimits): Promise<Buffer> {
  try {
    const st = await stat(absPath);
    if (st.isDirectory()) throw new EngineError('FILE_UNREADABLE', `${absPath} is a folder, not a file.`);
    assertFileSize(absPath, st.size, limits);
    return await readFile(absPath);
  } catch (err) {
    if (err instanceof EngineError) throw err;
    const code = (err as NodeJS.ErrnoException).code;
    const why =
      code === 'ENOENT' ? 'it does not exist (moved or deleted?)'
      : code === 'EACCES' || code === 'EPERM' ? 'permission was denied; check the file permissions'
      : code === 'EBUSY' ? 'it is locked by another program; close that program and try again'
      : (err as Error).message;
    throw new EngineError('FILE_UNREADABLE', `${absPath} could not be read: ${why}.`, { cause: err });
  }
}

/** The format the bytes really are, where the extension lies; the extension's format otherwise. */
function sniff(data: Buffer, byExt: Format, name: string, warnings: string[]): Format {
  const head = data.subarray(0, 1024);
  const say = (real: Format): Format => {
    if (real !== byExt) warnings.push(`${name} is named like a ${byExt} file but contains ${real.toUpperCase()}; it was read as ${real.toUpperCase()}.`);
    return real;
  };
  if (head.includes('%PDF-')) return say('pdf');
  if (data.length >= 4 && data.readUInt32BE(0) === 0x504b0304) {
    const probe = data.subarray(0, Math.min(data.length, 4 * 1024 * 1024)).toString('latin1');
    if (probe.includes('word/document')) return say('docx');
    if (probe.includes('xl/workbook')) return say('xlsx');
    if (byExt === 'docx' || byExt === 'xlsx') return byExt;
    throw new EngineError('UNSUPPORTED_FORMAT', `${name} is a ZIP archive, not a ${byExt} file. Extract it and add the files inside.`);
  }
  if (data.length >= 8 && data.readUInt32BE(0) === 0xd0cf11e0) {
    throw new EngineError(
      'UNSUPPORTED_FORMAT',
      `${name} is an old-style Office file (.doc/.xls) or a password-protected Office document. Save it as .docx, .xlsx or PDF without a password and add that.`,
    );
  }
  if (byExt === 'pdf' || byExt === 'docx' || byExt === 'xlsx') {
    if (looksLikeHtml(head)) return say('html');
    throw new EngineError('FILE_UNREADABLE', `${name} is not a valid ${byExt.toUpperCase()} file (its content does not start like one). It may be damaged or incompletely copied; copy it again from the original source.`);
  }
  if ((byExt === 'text' || byExt === 'markdown') && looksLikeHtml(head)) return say('html');
  return byExt;
}

function looksLikeHtml(head: Buffer): boolean {
  return /^\s*(?:<\?xml[^>]*>\s*)?(?:<!--[\s\S]*?-->\s*)*<(?:!doctype\s+html|html[\s>])/i.test(head.toString('latin1').replace(/^\ufeff|^\xef\xbb\xbf/, ''));
}

function decodeFor(format: Format, data: Buffer): { text: string; encoding: string; guessed: boolean } {
  if (format === 'properties') {
    // The .properties spec says ISO-8859-1 (non-Latin text as \uXXXX escapes); files saved as UTF-8 are common too.
    if (data[0] === 0xef && data[1] === 0xbb && data[2] === 0xbf) return { text: data.toString('utf8', 3), encoding: 'utf-8', guessed: false };
    if (isUtf8(data)) return { text: data.toString('utf8'), encoding: 'utf-8', guessed: false };
    return { text: data.toString('latin1'), encoding: 'iso-8859-1', guessed: false };
  }
  if (format === 'html' && !isUtf8(data)) {
    const declared = /<meta[^>]+charset\s*=\s*["']?([\w-]+)/i.exec(data.subarray(0, 4096).toString('latin1'))?.[1];
    if (declared && iconv.encodingExists(declared)) {
      const enc = /^(gb2312|gbk)$/i.test(declared) ? 'gb18030' : declared.toLowerCase();
      return { text: iconv.decode(data, enc).replace(/^\ufeff/, ''), encoding: enc, guessed: false };
    }
  }
  const { text, encoding } = decodeText(data);
  const guessed = !/^utf-(8|16le|16be)$/.test(encoding);
  return { text, encoding, guessed };
}

async function parseTextFormat(format: Format, input: TextAdapterInput): Promise<ParsedDocument> {
  switch (format) {
    case 'markdown':
      return parseMarkdown(input);
    case 'asciidoc':
      return (await import('./formats/asciidoc.js')).parseAsciidoc(input);
    case 'rst':
      return parseRst(input);
    case 'html':
      return parseHtml(input);
    case 'csv':
    case 'tsv':
      return parseCsv(input, format);
    case 'yaml':
      return parseYamlDoc(input);
    case 'json':
      return parseJsonDoc(input);
    case 'properties':
      return parseProperties(input);
    default:
      return parsePlainText(input);
  }
}

function asEngineError(err: unknown, name: string, format: Format): unknown {
  if (err instanceof EngineError) return err;
  if (err instanceof Error && err.name === 'AbortError') return err;
  if (err instanceof RangeError && /call stack/i.test(err.message)) {
    // A reader that recurses per level (mammoth, yaml…) ran out of stack: nesting no manual has.
    return new EngineError(
      'FILE_UNREADABLE',
      `${name} was not read: its content nests deeper than any manual does (a generated or damaged ${format.toUpperCase()} file?). Open it in its usual program and save or export it again, or print it as PDF and add that.`,
      { cause: err },
    );
  }
  const detail = err instanceof Error ? err.message.split('\n')[0] : String(err);
  return new EngineError(
    'FILE_UNREADABLE',
    `${name} could not be read as ${format.toUpperCase()}: ${detail}. The file may be damaged or not really ${format}; open it in its usual program to check, or export it again.`,
    { cause: err },
  );
}

/** Formats whose blocks are rows of a data file: their table is named by the file already. */
const DATA_FORMATS: ReadonlySet<string> = new Set(['csv', 'tsv', 'xlsx', 'json', 'yaml', 'properties']);

/**
 * A page whose title is not in the page itself (a wiki page: its title is the file name the wiki shows
 * above it; a PDF without a title) reads as if that title were its first heading: every block's
 * heading path starts with it, so a passage before any heading, or under a top-level one, is found by
 * the page's name as a titled page's passages are by their headings. Documents with a title of their
 * own, and data files, are returned as they are.
 */
export function withTitleHeading(doc: ParsedDocument, title: string): ParsedDocument {
  const t = title.trim();
  if (doc.meta.title || !t || DATA_FORMATS.has(doc.format)) return doc;
  return { ...doc, blocks: doc.blocks.map((b) => ({ ...b, headingPath: [t, ...b.headingPath] })) };
}

/**
 * The manual's metadata for the library: sidecar first, then what the document says, then the
 * file's name and folder (title only; see titles.ts). Equipment defaults to an empty list, unknowns to null.
 */
export function resolveManualMeta(doc: Pick<ParsedDocument, 'meta'>, sidecar: Sidecar | null, absPath: string): ManualMeta {
  return {
    title: sidecar?.title ?? doc.meta.title ?? titleFromPath(absPath),
    equipment: sidecar?.equipment ?? doc.meta.equipment ?? [],
    revision: sidecar?.revision ?? doc.meta.revision ?? null,
    language: sidecar?.language ?? doc.meta.language ?? null,
    publisher: sidecar?.publisher ?? doc.meta.publisher ?? null,
  };
}
