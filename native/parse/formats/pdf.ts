import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { EngineError, type ParsedDocument } from '../../contract/index.js';
import { DocBuilder, oneLine } from '../builder.js';
import { admonitionText, checkAbort, matchAdmonition } from '../text-utils.js';
import type { BinaryAdapterInput } from './types.js';

/** A positioned run of text on a page (PDF user space: y grows upwards). */
interface Item {
  str: string;
  x: number;
  y: number;
  w: number;
  size: number;
}

interface Line {
  text: string;
  x0: number;
  x1: number;
  y: number;
  size: number;
}

interface PageLines {
  page: number;
  /** Lines in reading order (column by column). */
  lines: Line[];
  rawChars: number;
}

/** Pages with fewer visible characters than this have no usable text layer. */
const MIN_TEXT_CHARS = 10;
const PAGE_NUMBER_RE = /^(?:page\s*)?[-–—]?\s*\d{1,4}\s*[-–—]?(?:\s*(?:of|\/)\s*\d{1,4})?$|^[ivxlcdm]{1,6}$/i;
const STEP_RE = /^(\d{1,3})[.)]\s+(?=\S)/;
/** "Step 3: Join the pieces" — kept verbatim, numbered 3. */
const STEP_WORD_RE = /^(?:Step|STEP|步骤|第)\s*(\d{1,3})\s*(?:步)?\s*[:.：)]/;
const BULLET_RE = /^(?:[•●▪■◦‣∙·○►➢✓✔]\s*|[-–]\s+)/;

let assetDirs: { fonts: string; cmaps: string; wasm: string } | undefined;
function pdfjsAssets(): { fonts: string; cmaps: string; wasm: string } {
  if (!assetDirs) {
    const root = dirname(createRequire(import.meta.url).resolve('pdfjs-dist/package.json'));
    assetDirs = {
      fonts: join(root, 'standard_fonts') + '/',
      cmaps: join(root, 'cmaps') + '/',
      wasm: join(root, 'wasm') + '/',
    };
  }
  return assetDirs;
}

/**
 * PDF via pdf.js (legacy build, in-process, no network, no eval): text per page in reading order,
 * running headers/footers and page numbers removed, paragraphs split on vertical gaps, headings
 * guessed from font size, admonitions from their labels. Pages without a text layer are reported.
 */
export async function parsePdf({ data, signal }: BinaryAdapterInput): Promise<ParsedDocument> {
  const pdfjs = await import('pdfjs-dist/legacy/build/pdf.mjs');
  const assets = pdfjsAssets();
  const task = pdfjs.getDocument({
    // pdf.js may transfer (detach) the buffer it is given, so hand it a copy.
    data: new Uint8Array(data),
    disableFontFace: true,
    isEvalSupported: false,
    useSystemFonts: false,
    standardFontDataUrl: assets.fonts,
    cMapUrl: assets.cmaps,
    cMapPacked: true,
    wasmUrl: assets.wasm,
    useWorkerFetch: false,
    isOffscreenCanvasSupported: false,
    stopAtErrors: false,
    verbosity: 0,
  });
  let doc: Awaited<typeof task.promise>;
  try {
    doc = await task.promise;
  } catch (err) {
    await task.destroy().catch(() => undefined);
    const name = err instanceof Error ? err.name : '';
    if (name === 'PasswordException') {
      throw new EngineError('FILE_UNREADABLE', 'This PDF is password-protected. Save an unprotected copy and add that instead.', { cause: err });
    }
    const detail = err instanceof Error ? err.message : String(err);
    throw new EngineError('FILE_UNREADABLE', `This PDF could not be opened (${detail}). The file may be damaged or incomplete; copy it again from the original source.`, { cause: err });
  }
  try {
    const pages: PageLines[] = [];
    for (let p = 1; p <= doc.numPages; p++) {
      checkAbort(signal);
      const page = await doc.getPage(p);
      const content = await page.getTextContent();
      const [vx0 = 0, , vx1 = 612] = page.view;
      const items: Item[] = [];
      let rawChars = 0;
      for (const it of content.items) {
        if (!('str' in it) || !it.str) continue;
        const [a = 0, b = 0, c = 0, d = 0, e = 0, f = 0] = it.transform as number[];
        rawChars += it.str.replace(/\s+/g, '').length;
        // Rotated or vertical runs (margin labels, watermarks) are not part of the reading flow.
        if (Math.abs(b) > Math.abs(a) * 0.2 || Math.abs(c) > Math.abs(d) * 0.2) continue;
        const size = Math.hypot(c, d) || it.height || 10;
        items.push({ str: it.str, x: e, y: f, w: it.width, size });
      }
      pages.push({ page: p, lines: readingOrder(items, vx0, vx1), rawChars });
      page.cleanup();
    }
    const info = await doc.getMetadata().catch(() => null);
    return buildDocument(pages, doc.numPages, infoTitle(info?.info), signal);
  } finally {
    await doc.destroy().catch(() => undefined);
  }
}

function infoTitle(info: unknown): string | undefined {
  if (!info || typeof info !== 'object') return undefined;
  const raw = (info as Record<string, unknown>).Title;
  if (typeof raw !== 'string') return undefined;
  const t = raw
    .replace(/^Microsoft (?:Word|PowerPoint|Excel) - /i, '')
    .replace(/\.(?:docx?|pptx?|xlsx?|odt|pdf|indd|tex)$/i, '')
    .trim();
  if (!t || /^untitled\b/i.test(t) || /^[\w-]+\.\w{2,4}$/.test(raw.trim())) return undefined;
  return t;
}

/** Groups items into lines; on two-column pages, reads the left column before the right one. */
function readingOrder(items: Item[], x0: number, x1: number): Line[] {
  if (items.length === 0) return [];
  const gutter = findGutter(items, x0, x1);
  if (gutter === null) return groupLines(items);
  const left: Item[] = [];
  const right: Item[] = [];
  const spanning: Item[] = [];
  for (const it of items) {
    if (it.x + it.w <= gutter) left.push(it);
    else if (it.x >= gutter) right.push(it);
    else spanning.push(it);
  }
  // Text columns are filled with running lines; a table's cells are short. Tables stay row by row.
  const medianWidth = (lines: Line[]): number => {
    const w = lines.map((l) => l.x1 - l.x0).sort((p, q) => p - q);
    return w[Math.floor(w.length / 2)] ?? 0;
  };
  if (medianWidth(groupLines(left)) < (gutter - x0) * 0.45 || medianWidth(groupLines(right)) < (x1 - gutter) * 0.45) {
    return groupLines(items);
  }
  const colTop = Math.max(...[...left, ...right].map((i) => i.y));
  const above = spanning.filter((i) => i.y > colTop);
  const below = spanning.filter((i) => i.y <= colTop);
  return [...groupLines(above), ...groupLines([...left, ...below.filter((i) => i.x + i.w / 2 < gutter)]), ...groupLines([...right, ...below.filter((i) => i.x + i.w / 2 >= gutter)])];
}

/** The x of an empty vertical band in the middle of the page with text on both sides, or null. */
function findGutter(items: Item[], x0: number, x1: number): number | null {
  const width = x1 - x0;
  if (width <= 0 || items.length < 20) return null;
  const bins = 100;
  const cover = new Array<number>(bins).fill(0);
  let leftChars = 0;
  let rightChars = 0;
  for (const it of items) {
    if (!it.str.trim()) continue;
    const a = Math.max(0, Math.floor(((it.x - x0) / width) * bins));
    const b = Math.min(bins - 1, Math.floor(((it.x + it.w - x0) / width) * bins));
    for (let k = a; k <= b; k++) cover[k] = (cover[k] ?? 0) + 1;
    if (it.x + it.w / 2 < x0 + width / 2) leftChars += it.str.length;
    else rightChars += it.str.length;
  }
  const total = leftChars + rightChars;
  if (leftChars < total * 0.2 || rightChars < total * 0.2) return null;
  const allowed = Math.max(1, Math.floor(items.length * 0.03));
  let bestStart = -1;
  let bestLen = 0;
  let runStart = -1;
  for (let k = 35; k <= 65; k++) {
    if ((cover[k] ?? 0) <= allowed) {
      if (runStart < 0) runStart = k;
      if (k - runStart + 1 > bestLen) {
        bestLen = k - runStart + 1;
        bestStart = runStart;
      }
    } else runStart = -1;
  }
  if (bestLen < 2) return null;
  return x0 + ((bestStart + bestLen / 2) / bins) * width;
}

function groupLines(items: Item[]): Line[] {
  if (items.length === 0) return [];
  const sorted = [...items].sort((p, q) => q.y - p.y || p.x - q.x);
  const lines: Line[] = [];
  let cur: Item[] = [];
  let curY = 0;
  let curSize = 0;
  const flush = (): void => {
    if (cur.length) lines.push(makeLine(cur));
    cur = [];
  };
  for (const it of sorted) {
    if (cur.length && Math.abs(curY - it.y) <= Math.max(2, Math.min(curSize, it.size) * 0.5)) {
      cur.push(it);
      if (it.str.trim() && it.size > curSize) curSize = it.size;
    } else {
      flush();
      cur = [it];
      curY = it.y;
      curSize = it.size;
    }
  }
  flush();
  return lines.filter((l) => l.text);
}

function makeLine(items: Item[]): Line {
  items.sort((p, q) => p.x - q.x);
  let text = '';
  let prevEnd = -Infinity;
  const sizeChars = new Map<number, number>();
  let maxY = -Infinity;
  for (const it of items) {
    const gap = it.x - prevEnd;
    if (text && gap > it.size * 0.15 && !/\s$/.test(text) && !/^\s/.test(it.str)) text += ' ';
    text += it.str;
    prevEnd = Math.max(prevEnd, it.x + it.w);
    const visible = it.str.replace(/\s+/g, '').length;
    if (visible) {
      const s = Math.round(it.size * 2) / 2;
      sizeChars.set(s, (sizeChars.get(s) ?? 0) + visible);
      if (it.y > maxY) maxY = it.y;
    }
  }
  let size = 0;
  let best = -1;
  for (const [s, n] of sizeChars) if (n > best || (n === best && s > size)) [size, best] = [s, n];
  const first = items[0] as Item;
  return {
    text: text.replace(/\s+/g, ' ').trim(),
    x0: first.x,
    x1: prevEnd,
    y: Number.isFinite(maxY) ? maxY : first.y,
    size,
  };
}

/** Normalised form of a header/footer candidate: digits (page numbers, dates) do not matter. */
function furnitureKey(text: string): string {
  return text.toLowerCase().replace(/\d+/g, '#').replace(/\s+/g, ' ').trim();
}

/** Removes running headers/footers (repeated at top/bottom of most pages) and bare page numbers. */
function stripFurniture(pages: PageLines[]): void {
  const withText = pages.filter((p) => p.lines.length > 0);
  const zone = (p: PageLines): { top: Line[]; bottom: Line[] } => {
    const byY = [...p.lines].sort((a, b) => b.y - a.y);
    const n = Math.min(2, Math.floor(byY.length / 2) || 1);
    return { top: byY.slice(0, n), bottom: byY.slice(-n) };
  };
  const topCount = new Map<string, number>();
  const bottomCount = new Map<string, number>();
  const zones = new Map<PageLines, { top: Line[]; bottom: Line[] }>();
  for (const p of withText) {
    const z = zone(p);
    zones.set(p, z);
    for (const key of new Set(z.top.map((l) => furnitureKey(l.text)))) topCount.set(key, (topCount.get(key) ?? 0) + 1);
    for (const key of new Set(z.bottom.map((l) => furnitureKey(l.text)))) bottomCount.set(key, (bottomCount.get(key) ?? 0) + 1);
  }
  const threshold = Math.max(2, Math.ceil(withText.length * 0.5));
  for (const p of withText) {
    const z = zones.get(p);
    if (!z) continue;
    const drop = new Set<Line>();
    for (const l of z.top) if (PAGE_NUMBER_RE.test(l.text) || (topCount.get(furnitureKey(l.text)) ?? 0) >= threshold) drop.add(l);
    for (const l of z.bottom) if (PAGE_NUMBER_RE.test(l.text) || (bottomCount.get(furnitureKey(l.text)) ?? 0) >= threshold) drop.add(l);
    if (drop.size) p.lines = p.lines.filter((l) => !drop.has(l));
  }
}

function buildDocument(pages: PageLines[], pageCount: number, title: string | undefined, signal: AbortSignal | undefined): ParsedDocument {
  const b = new DocBuilder('pdf');
  const pagesWithoutText = pages.filter((p) => p.rawChars < MIN_TEXT_CHARS).map((p) => p.page);
  for (const p of pages) if (p.rawChars < MIN_TEXT_CHARS) p.lines = [];
  stripFurniture(pages);

  // Body size = the size most characters are set in; larger sizes are heading levels.
  const sizeChars = new Map<number, number>();
  for (const p of pages) for (const l of p.lines) sizeChars.set(l.size, (sizeChars.get(l.size) ?? 0) + l.text.length);
  let body = 0;
  let best = -1;
  for (const [s, n] of sizeChars) if (n > best) [body, best] = [s, n];
  const isHeadingSize = (l: Line): boolean => l.size >= body * 1.15 && l.size - body >= 1;
  const headingSizes = [...new Set(pages.flatMap((p) => p.lines.filter((l) => isHeadingSize(l) && isHeadingText(l.text)).map((l) => Math.round(l.size))))].sort((x, y) => y - x);
  const levelOf = (size: number): number => Math.min(6, headingSizes.indexOf(Math.round(size)) + 1 || 6);

  for (const p of pages) {
    checkAbort(signal);
    b.page = p.page;
    emitPage(b, p.lines, isHeadingSize, levelOf);
  }
  if (pagesWithoutText.length) {
    const list = pagesWithoutText.length > 20 ? `${pagesWithoutText.slice(0, 20).join(', ')}, …` : pagesWithoutText.join(', ');
    b.warn(
      `${pagesWithoutText.length} of ${pageCount} page(s) have no text layer (scanned images?): ${list}. ` +
        'Their content cannot be searched; run OCR on the PDF (e.g. with OCRmyPDF) and add it again.',
    );
  }
  const meta: ParsedDocument['meta'] = {};
  if (title) meta.title = title;
  return b.finish(meta, { pageCount, pagesWithoutText });
}

function isHeadingText(text: string): boolean {
  return text.length <= 150 && /\p{L}/u.test(text) && !/[.,;:]$/.test(text);
}

type Para = { lines: Line[]; heading: boolean };

function emitPage(b: DocBuilder, lines: Line[], isHeadingSize: (l: Line) => boolean, levelOf: (size: number) => number): void {
  const paras: Para[] = [];
  let cur: Para | null = null;
  let prev: Line | null = null;
  for (const line of lines) {
    const heading = isHeadingSize(line) && isHeadingText(line.text);
    let brk = !cur || !prev;
    if (cur && prev) {
      const gap = prev.y - line.y;
      const pitch = Math.max(prev.size, line.size) * 1.25;
      if (gap < -1 || gap > pitch * 1.35) brk = true;
      else if (heading !== cur.heading || Math.abs(line.size - prev.size) > 1) brk = true;
      else if (!heading && (STEP_RE.test(line.text) || STEP_WORD_RE.test(line.text) || BULLET_RE.test(line.text) || matchAdmonition(line.text, true))) brk = true;
    }
    if (brk) {
      cur = { lines: [], heading };
      paras.push(cur);
    }
    cur?.lines.push(line);
    prev = line;
  }

  for (let i = 0; i < paras.length; i++) {
    const para = paras[i] as Para;
    const text = joinLines(para.lines);
    if (para.heading) {
      b.heading(levelOf(para.lines[0]?.size ?? 0), text);
      continue;
    }
    const adm = matchAdmonition(text, true);
    if (adm) {
      let bodyText = adm.body;
      const next = paras[i + 1];
      if (!bodyText.trim() && next && !next.heading) {
        bodyText = joinLines(next.lines);
        i++;
      }
      b.admonition(adm.kind, admonitionText(adm.label, oneLine(bodyText)));
      continue;
    }
    const step = STEP_RE.exec(text);
    if (step) {
      b.add('step', text.slice(step[0].length), { stepNumber: Number(step[1]) });
      continue;
    }
    const stepWord = STEP_WORD_RE.exec(text);
    if (stepWord) {
      b.add('step', text, { stepNumber: Number(stepWord[1]) });
      continue;
    }
    const bullet = BULLET_RE.exec(text);
    if (bullet && bullet[0].trim()) {
      b.add('list-item', text.slice(bullet[0].length));
      continue;
    }
    b.add('paragraph', text);
  }
}

/** Joins the lines of a paragraph, mending words hyphenated at line ends. */
function joinLines(lines: Line[]): string {
  let out = '';
  for (const l of lines) {
    if (!out) out = l.text;
    else if (/\p{Ll}-$/u.test(out) && /^\p{Ll}/u.test(l.text)) out = out.slice(0, -1) + l.text;
    else if (/[\u3000-\u9fff\uff00-\uffef]$/.test(out) && /^[\u3000-\u9fff\uff00-\uffef]/.test(l.text)) out += l.text;
    else out += ' ' + l.text;
  }
  return out;
}
