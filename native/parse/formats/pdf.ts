import { EngineError, type OcrPageInfo, type ParsedDocument } from '../../contract/index.js';
import { OcrSession } from '../../ocr/tesseract.js';
import { DocBuilder } from '../builder.js';
import { assertPdfPages, parseLimits, timeoutError } from '../limits.js';
import { checkAbort } from '../text-utils.js';
import { PdfEmitter, stripFurniture, type Flow, type PageFlow } from '../pdf/emit.js';
import { FIGURE_CAPTION_RE, TABLE_CAPTION_RE, takeCallouts, type Callouts } from '../pdf/figures.js';
import { pageGraphics } from '../pdf/graphics.js';
import { closeCjkGaps, groupLines, readingOrder, splitSegments, type Item, type Line } from '../pdf/layout.js';
import { garbageShare, LOW_OCR_CONFIDENCE, ocrItems } from '../pdf/ocr-page.js';
import { loadPdf, type PdfDocument, type PdfPage } from '../pdf/open.js';
import { isBlank, renderPageGrey, toPgm } from '../pdf/render.js';
import { alignedTables, ruledTables, type Table } from '../pdf/tables.js';
import type { BinaryAdapterInput } from './types.js';

export type { PdfOcrOptions } from '../pdf/ocr-page.js';

/** Pages with fewer visible characters than this have no usable text layer. */
const MIN_TEXT_CHARS = 10;

/** Why a page has no searchable text. */
type NoTextReason = 'blank' | 'ocr-empty' | 'ocr-off' | 'ocr-failed';

/**
 * PDF via pdf.js (legacy build, in-process, no network, no eval). Per page: the text layer in
 * reading order (column by column), tables (ruled grids or aligned columns) as rows with their
 * header, figure captions with their callout labels; pages without a usable text layer are
 * rendered and OCR'd (tesseract.js, offline), page by page, so mixed PDFs keep their text layer
 * where they have one. Running headers/footers and page numbers are removed, headings guessed
 * from font size, admonitions from their labels.
 */
export async function parsePdf({
  data,
  signal,
  fileStem,
  ocr = {},
  limits = parseLimits(),
  name = `${fileStem}.pdf`,
  deadlineAt = Infinity,
}: BinaryAdapterInput): Promise<ParsedDocument> {
  const task = await loadPdf(data);
  let doc: PdfDocument;
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
    assertPdfPages(name, doc.numPages, limits);
  } catch (err) {
    await doc.destroy().catch(() => undefined);
    throw err;
  }
  const ocrEnabled = ocr.enabled !== false;
  let ownSession: OcrSession | null = null;
  const session = (): OcrSession => ocr.session ?? (ownSession ??= new OcrSession());
  try {
    const pages: PageFlow[] = [];
    const noText = new Map<number, NoTextReason>();
    const ocrPages: OcrPageInfo[] = [];
    let ocrError = '';
    for (let p = 1; p <= doc.numPages; p++) {
      checkAbort(signal);
      if (Date.now() > deadlineAt) throw timeoutError(name, limits);
      const page = await doc.getPage(p);
      try {
        const text = await textLayer(page);
        if (text.usable) {
          pages.push({ page: p, flow: await layoutTextPage(page, text.items) });
          continue;
        }
        if (!ocrEnabled) {
          noText.set(p, 'ocr-off');
          continue;
        }
        const img = await renderPageGrey(page);
        if (isBlank(img)) {
          noText.set(p, 'blank');
          continue;
        }
        checkAbort(signal);
        let result;
        try {
          result = await session().recognize(toPgm(img), signal);
        } catch (err) {
          if (signal?.aborted || (err instanceof Error && err.name === 'AbortError')) throw err;
          noText.set(p, 'ocr-failed');
          ocrError ||= err instanceof Error ? err.message : String(err);
          continue;
        }
        const items = ocrItems(result, img.scale, img.height);
        if (items.length === 0) {
          noText.set(p, 'ocr-empty');
          continue;
        }
        const lines = readingOrder(items, 0, img.width / img.scale);
        pages.push({ page: p, flow: alignedTables(lines).map(toFlow), ocrConfidence: result.confidence });
        const low = result.confidence < (ocr.lowConfidence ?? LOW_OCR_CONFIDENCE);
        ocrPages.push({ page: p, confidence: Math.round(result.confidence), lowConfidence: low });
        ocr.onPage?.({ page: p, pageCount: doc.numPages, confidence: result.confidence, ms: result.ms });
      } finally {
        page.cleanup();
      }
    }
    const info = await doc.getMetadata().catch(() => null);
    return buildDocument(pages, doc.numPages, { noText, ocrPages, ocrError }, infoTitle(info?.info), fileStem, signal);
  } finally {
    await doc.destroy().catch(() => undefined);
    if (ownSession) await (ownSession as OcrSession).dispose();
  }
}

async function textLayer(page: PdfPage): Promise<{ items: Item[]; usable: boolean }> {
  const content = await page.getTextContent();
  const items: Item[] = [];
  let raw = '';
  for (const it of content.items) {
    if (!('str' in it) || !it.str) continue;
    const [a = 0, b = 0, c = 0, d = 0, e = 0, f = 0] = it.transform as number[];
    raw += it.str;
    // Rotated or vertical runs (margin labels, watermarks) are not part of the reading flow.
    if (Math.abs(b) > Math.abs(a) * 0.2 || Math.abs(c) > Math.abs(d) * 0.2) continue;
    const size = Math.hypot(c, d) || it.height || 10;
    items.push({ str: closeCjkGaps(it.str), x: e, y: f, w: it.width, size });
  }
  const visible = raw.replace(/\s+/g, '').length;
  // A text layer of unmapped glyph codes (fonts without a Unicode map) is no better than none.
  return { items, usable: visible >= MIN_TEXT_CHARS && garbageShare(raw) < 0.5 };
}

/** Ruled tables first (their cells may wrap and centre), then reading order, aligned tables and figure labels. */
async function layoutTextPage(page: PdfPage, items: Item[]): Promise<Flow[]> {
  const [vx0 = 0, vy0 = 0, vx1 = 612, vy1 = 792] = page.view;
  // The operator list (ruling lines, image boxes) costs as much as decoding the page's images:
  // read it only where the text suggests a table or names a figure. Elsewhere, labels printed on a
  // picture stay ordinary text of the page (still found, only not grouped).
  const graphics = needsGraphics(items) ? await pageGraphics(page).catch(() => ({ rules: [], images: [] })) : { rules: [], images: [] };
  const { tables, rest } = ruledTables(items, graphics.rules);
  const lines = readingOrder(rest, vx0, vx1);
  const { lines: body, callouts } = takeCallouts(lines, graphics.images, (vx1 - vx0) * (vy1 - vy0));
  let flow = alignedTables(body).map(toFlow);
  for (const t of tables) flow = placeAt(flow, { table: t }, t.top, t.x0, t.x1);
  for (const c of callouts) flow = placeAt(flow, { callouts: c }, c.box.y1, c.box.x0, c.box.x1);
  return flow;
}

function needsGraphics(items: Item[]): boolean {
  const lines = groupLines(items);
  for (const l of lines) {
    if (FIGURE_CAPTION_RE.test(l.text) || TABLE_CAPTION_RE.test(l.text)) return true;
    if (splitSegments(l).length >= 2) return true;
  }
  return false;
}

function toFlow(f: { line: Line } | { table: Table }): Flow {
  return 'table' in f ? { table: f.table } : { line: f.line };
}

/** Inserts an element before the first line below `top` that overlaps it horizontally. */
function placeAt(flow: Flow[], el: Flow, top: number, x0: number, x1: number): Flow[] {
  const k = flow.findIndex((f) => {
    const b = bounds(f);
    return b.top < top && b.x1 > x0 && b.x0 < x1;
  });
  if (k < 0) return [...flow, el];
  return [...flow.slice(0, k), el, ...flow.slice(k)];
}

function bounds(f: Flow): { top: number; x0: number; x1: number } {
  if ('line' in f) return { top: f.line.y, x0: f.line.x0, x1: f.line.x1 };
  if ('table' in f) return { top: f.table.top, x0: f.table.x0, x1: f.table.x1 };
  const c: Callouts = f.callouts;
  return { top: c.box.y1, x0: c.box.x0, x1: c.box.x1 };
}

function infoTitle(info: unknown): string | undefined {
  if (!info || typeof info !== 'object') return undefined;
  const raw = (info as Record<string, unknown>).Title;
  if (typeof raw !== 'string') return undefined;
  const t = raw
    .replace(/^Microsoft (?:Word|PowerPoint|Excel) - /i, '')
    .replace(/\.(?:docx?|pptx?|xlsx?|odt|pdf|indd|tex)$/i, '')
    .trim();
  // A file name is no title; a placeholder or a contents heading is dropped for every format (titles.ts).
  if (/^[\w-]+\.\w{2,4}$/.test(raw.trim())) return undefined;
  return t;
}

function pageList(pages: number[]): string {
  return pages.length > 20 ? `${pages.slice(0, 20).join(', ')}, …` : pages.join(', ');
}

function buildDocument(
  pages: PageFlow[],
  pageCount: number,
  ocr: { noText: Map<number, NoTextReason>; ocrPages: OcrPageInfo[]; ocrError: string },
  title: string | undefined,
  fileStem: string,
  signal: AbortSignal | undefined,
): ParsedDocument {
  const b = new DocBuilder('pdf');
  stripFurniture(pages);
  new PdfEmitter(b, pages, fileStem).emitAll(pages, signal);

  const pagesWithoutText = [...ocr.noText.keys()].sort((x, y) => x - y);
  const by = (r: NoTextReason): number[] => pagesWithoutText.filter((p) => ocr.noText.get(p) === r);
  const blank = by('blank');
  const off = by('ocr-off');
  const failed = by('ocr-failed');
  const empty = by('ocr-empty');
  if (off.length) {
    b.warn(
      `${off.length} of ${pageCount} page(s) have no text layer (scanned images?): ${pageList(off)}. ` +
        'OCR is switched off, so their content cannot be searched; switch OCR on and add the file again.',
    );
  }
  if (blank.length) b.warn(`${blank.length} of ${pageCount} page(s) have no text layer and are blank: ${pageList(blank)}.`);
  if (empty.length) {
    b.warn(`${empty.length} of ${pageCount} page(s) have no text layer and OCR found no text on them (drawings or photos only?): ${pageList(empty)}.`);
  }
  if (failed.length) {
    b.warn(`${failed.length} of ${pageCount} page(s) have no text layer and OCR failed on them: ${pageList(failed)} (${ocr.ocrError}).`);
  }
  const low = ocr.ocrPages.filter((p) => p.lowConfidence);
  if (ocr.ocrPages.length) {
    b.warn(`${ocr.ocrPages.length} of ${pageCount} page(s) were scanned images; their text was read by OCR: ${pageList(ocr.ocrPages.map((p) => p.page))}.`);
  }
  if (low.length) {
    b.warn(`OCR text, check the page: the OCR of ${low.length} page(s) is uncertain (${low.map((p) => `page ${p.page}: ${p.confidence} %`).join(', ')}); compare results from them with the page.`);
  }
  const meta: ParsedDocument['meta'] = {};
  if (title) meta.title = title;
  const extra: Partial<ParsedDocument> = { pageCount, pagesWithoutText };
  if (ocr.ocrPages.length) extra.ocrPages = ocr.ocrPages;
  return b.finish(meta, extra);
}
