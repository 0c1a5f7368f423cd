/**
 * Figures on a PDF page: captions ("Figure 3: …", "Fig. 2 …", "图 3 …") and the callout labels
 * printed on top of an image (terminal names, part labels), so that a question about a diagram
 * finds the page the diagram is on.
 */
import type { Rect } from './graphics.js';
import type { Line } from './layout.js';

export const FIGURE_CAPTION_RE = /^(?:(?:figure|fig\.?|illustration|diagram|drawing|abbildung|abb\.)\s*\d+(?:[.\-–]\d+)*[a-z]?\b|图\s*\d+(?:[.\-–]\d+)*)/i;
export const TABLE_CAPTION_RE = /^(?:(?:table|tab\.?|tabelle)\s*\d+(?:[.\-–]\d+)*\b|表\s*\d+(?:[.\-–]\d+)*)/i;

export interface Callouts {
  /** The image the labels are printed on. */
  box: Rect;
  labels: string[];
}

/** Longest text read as a callout label rather than body text. */
const MAX_LABEL_CHARS = 40;

/**
 * Pulls the short lines printed inside image boxes out of the reading flow. Images that cover most
 * of the page (a scan under its OCR text, a page background) have no callouts.
 */
export function takeCallouts(lines: Line[], images: Rect[], pageArea: number): { lines: Line[]; callouts: Callouts[] } {
  const boxes = images.filter((r) => {
    const area = (r.x1 - r.x0) * (r.y1 - r.y0);
    return area > 400 && area < pageArea * 0.6;
  });
  if (boxes.length === 0) return { lines, callouts: [] };
  // Labels are set small; a large word over a picture (a cover title, "DRAFT") is not a callout.
  const sizes = lines.map((l) => l.size).sort((a, b) => a - b);
  const maxSize = Math.min(14, (sizes[Math.floor(sizes.length / 2)] ?? 10) * 1.1);
  const found = new Map<Rect, string[]>();
  const rest: Line[] = [];
  for (const l of lines) {
    const cx = (l.x0 + l.x1) / 2;
    const cy = l.y + l.size * 0.3;
    const label = l.text.length <= MAX_LABEL_CHARS && l.size <= maxSize && !FIGURE_CAPTION_RE.test(l.text);
    const box = label ? boxes.find((r) => cx >= r.x0 - 2 && cx <= r.x1 + 2 && cy >= r.y0 - 2 && cy <= r.y1 + 2) : undefined;
    if (!box) {
      rest.push(l);
      continue;
    }
    const list = found.get(box);
    if (list) list.push(l.text);
    else found.set(box, [l.text]);
  }
  return { lines: rest, callouts: [...found].map(([box, labels]) => ({ box, labels })) };
}
