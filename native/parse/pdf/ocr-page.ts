/** OCR of PDF pages that have no usable text layer: render, recognise, and turn words into positioned runs. */
import type { OcrPageResult, OcrSession } from '../../ocr/tesseract.js';
import type { Item } from './layout.js';

export interface PdfOcrOptions {
  /** False: no OCR; pages without a text layer are only reported. Default true. */
  enabled?: boolean;
  /** A session shared by the files of one ingest; without one, a session is made for this file and disposed after it. */
  session?: OcrSession;
  /** Called after each OCR'd page. */
  onPage?: (p: { page: number; pageCount: number; confidence: number; ms: number }) => void;
  /** Pages whose mean word confidence is below this (0–100) are flagged "check the page". Default {@link LOW_OCR_CONFIDENCE}. */
  lowConfidence?: number;
}

/** Below this mean word confidence, OCR text is flagged for the reader to check against the page. */
export const LOW_OCR_CONFIDENCE = 70;

/**
 * OCR words as runs in the rendered page's own coordinates (points, y up, origin bottom-left),
 * so OCR'd pages go through the same line, column, table and heading logic as text layers.
 * Word heights vary with ascenders and descenders: sizes within 30 % of the page's median line
 * height are set to the median, so only truly larger lines read as headings.
 */
export function ocrItems(result: OcrPageResult, scale: number, heightPx: number): Item[] {
  const heights = result.words.map((w) => w.lineHeight).sort((a, b) => a - b);
  const median = heights[Math.floor(heights.length / 2)] ?? 12 * scale;
  const items: Item[] = [];
  for (const w of result.words) {
    const h = w.lineHeight > median * 1.3 || w.lineHeight < median * 0.7 ? w.lineHeight : median;
    // A line of text is about 1.2 em high.
    const size = Math.round((h / scale / 1.2) * 2) / 2 || 1;
    items.push({ str: w.text, x: w.x0 / scale, y: (heightPx - w.y1) / scale, w: (w.x1 - w.x0) / scale, size });
  }
  return items;
}

/** Share of characters in a text layer that are not readable text (private-use glyph codes, U+FFFD, controls). */
export function garbageShare(text: string): number {
  const chars = text.replace(/\s+/g, '');
  if (!chars) return 0;
  let bad = 0;
  for (const ch of chars) {
    const c = ch.codePointAt(0) ?? 0;
    if (c < 0x20 || (c >= 0xe000 && c <= 0xf8ff) || c === 0xfffd) bad++;
  }
  return bad / [...chars].length;
}
