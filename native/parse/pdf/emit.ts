/**
 * From laid-out pages to blocks: running headers/footers and page numbers removed, headings by
 * font size, paragraphs split on vertical gaps, steps, bullets, admonitions, tables (header cells
 * repeated on every row, kept across page breaks), figure captions with their callout labels.
 */
import type { Block } from '../../contract/index.js';
import { DocBuilder, oneLine } from '../builder.js';
import { admonitionText, checkAbort, matchAdmonition } from '../text-utils.js';
import { FIGURE_CAPTION_RE, TABLE_CAPTION_RE, type Callouts } from './figures.js';
import { isCjk, type Line } from './layout.js';
import { continuesTable, type Table } from './tables.js';

/** One element of a page in reading order: a line of text, a table, or the labels of a figure. */
export type Flow = { line: Line } | { table: Table } | { callouts: Callouts };

export interface PageFlow {
  page: number;
  flow: Flow[];
  /** Set when the page's text was read by OCR: tesseract's mean confidence, 0–100. */
  ocrConfidence?: number;
}

const PAGE_NUMBER_RE = /^(?:page\s*)?[-–—]?\s*\d{1,4}\s*[-–—]?(?:\s*(?:of|\/)\s*\d{1,4})?$|^[ivxlcdm]{1,6}$|^\d{1,4}\s*\|\s*p\s*a\s*g\s*e$|^第\s*\d+\s*页(?:\s*共\s*\d+\s*页)?$/i;
const STEP_RE = /^(\d{1,3})[.)]\s+(?=\S)/;
/** "Step 3: Join the pieces" — kept verbatim, numbered 3. */
const STEP_WORD_RE = /^(?:Step|STEP|步骤|第)\s*(\d{1,3})\s*(?:步)?\s*[:.：)]/;
const BULLET_RE = /^(?:[•●▪■◦‣∙·○►➢✓✔]\s*|[-–]\s+)/;

const FIGURE_LABELS = 'Figure labels: ';

const lineOf = (f: Flow): Line | null => ('line' in f ? f.line : null);

/** Normalised form of a header/footer candidate: digits (page numbers, dates) do not matter. */
function furnitureKey(text: string): string {
  return text.toLowerCase().replace(/\d+/g, '#').replace(/\s+/g, ' ').trim();
}

/** Removes running headers/footers (repeated at top/bottom of most pages) and bare page numbers. */
export function stripFurniture(pages: PageFlow[]): void {
  const linesOf = (p: PageFlow): Line[] => p.flow.map(lineOf).filter((l): l is Line => l !== null);
  const withText = pages.filter((p) => linesOf(p).length > 0);
  const zone = (p: PageFlow): { top: Line[]; bottom: Line[] } => {
    const byY = linesOf(p).sort((a, b) => b.y - a.y);
    const n = Math.min(2, Math.floor(byY.length / 2) || 1);
    return { top: byY.slice(0, n), bottom: byY.slice(-n) };
  };
  const topCount = new Map<string, number>();
  const bottomCount = new Map<string, number>();
  const zones = new Map<PageFlow, { top: Line[]; bottom: Line[] }>();
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
    if (drop.size) p.flow = p.flow.filter((f) => !('line' in f) || !drop.has(f.line));
  }
}

export function isHeadingText(text: string): boolean {
  return text.length <= 150 && /\p{L}/u.test(text) && !/[.,;:]$/.test(text) && !FIGURE_CAPTION_RE.test(text) && !TABLE_CAPTION_RE.test(text);
}

/** A table whose last row ended a page: the next page may continue it. */
interface OpenTable {
  table: Table;
  columns: string[];
  name: string;
}

export class PdfEmitter {
  private readonly isHeadingSize: (l: Line) => boolean;
  private readonly levelOf: (size: number) => number;
  private open: OpenTable | null = null;

  constructor(
    private readonly b: DocBuilder,
    pages: PageFlow[],
    private readonly fileStem: string,
  ) {
    // Body size = the size most characters are set in; larger sizes are heading levels.
    const sizeChars = new Map<number, number>();
    const count = (size: number, chars: number): void => {
      sizeChars.set(size, (sizeChars.get(size) ?? 0) + chars);
    };
    for (const p of pages) {
      for (const f of p.flow) {
        if ('line' in f) count(f.line.size, f.line.text.length);
        else if ('table' in f) count(Math.round(f.table.size * 2) / 2, f.table.rows.flat().join('').length);
      }
    }
    let body = 0;
    let best = -1;
    for (const [s, n] of sizeChars) if (n > best) [body, best] = [s, n];
    this.isHeadingSize = (l) => l.size >= body * 1.15 && l.size - body >= 1;
    const headingSizes = [
      ...new Set(pages.flatMap((p) => p.flow.map(lineOf).filter((l): l is Line => l !== null && this.isHeadingSize(l) && isHeadingText(l.text)).map((l) => Math.round(l.size)))),
    ].sort((x, y) => y - x);
    this.levelOf = (size) => Math.min(6, headingSizes.indexOf(Math.round(size)) + 1 || 6);
  }

  emitAll(pages: PageFlow[], signal: AbortSignal | undefined): void {
    for (const p of pages) {
      checkAbort(signal);
      this.b.page = p.page;
      const from = this.b.blocks.length;
      this.emitPage(p.flow);
      if (p.ocrConfidence !== undefined) {
        const ocr = { confidence: Math.round(p.ocrConfidence) };
        for (let k = from; k < this.b.blocks.length; k++) (this.b.blocks[k] as Block).ocr = ocr;
      }
    }
  }

  private emitPage(flow: Flow[]): void {
    type Para = { lines: Line[]; heading: boolean };
    let paras: Para[] = [];
    let cur: Para | null = null;
    let prev: Line | null = null;
    let first = true;
    const flushParas = (): void => {
      this.emitParas(paras);
      paras = [];
      cur = null;
      prev = null;
    };
    for (const f of flow) {
      if ('table' in f) {
        flushParas();
        // A caption line right above names the table ("Table 4: Alarm codes").
        const caption = this.b.blocks.at(-1);
        const name = caption && caption.kind === 'paragraph' && caption.page === this.b.page && TABLE_CAPTION_RE.test(caption.text) ? caption.text : undefined;
        this.emitTable(f.table, first, name);
        first = false;
        continue;
      }
      if ('callouts' in f) {
        flushParas();
        this.emitCallouts(f.callouts);
        first = false;
        continue;
      }
      const line = f.line;
      const heading = this.isHeadingSize(line) && isHeadingText(line.text);
      const caption = FIGURE_CAPTION_RE.test(line.text) || TABLE_CAPTION_RE.test(line.text);
      let brk = !cur || !prev;
      if (cur && prev) {
        const gap = prev.y - line.y;
        const pitch = Math.max(prev.size, line.size) * 1.25;
        if (gap < -1 || gap > pitch * 1.35) brk = true;
        else if (heading !== cur.heading || Math.abs(line.size - prev.size) > 1) brk = true;
        else if (!heading && (caption || STEP_RE.test(line.text) || STEP_WORD_RE.test(line.text) || BULLET_RE.test(line.text) || matchAdmonition(line.text, true))) brk = true;
      }
      if (brk) {
        cur = { lines: [], heading };
        paras.push(cur);
      }
      (cur as Para | null)?.lines.push(line);
      prev = line;
      first = false;
      this.open = null;
    }
    flushParas();
  }

  private emitParas(paras: { lines: Line[]; heading: boolean }[]): void {
    const b = this.b;
    for (let i = 0; i < paras.length; i++) {
      const para = paras[i] as { lines: Line[]; heading: boolean };
      const text = joinLines(para.lines);
      if (para.heading) {
        b.heading(this.levelOf(para.lines[0]?.size ?? 0), text);
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
      const last = b.blocks.at(-1);
      if (FIGURE_CAPTION_RE.test(text) && last && last.page === b.page && last.kind === 'paragraph' && last.text.startsWith(FIGURE_LABELS)) {
        // Labels printed on the figure, then its caption below it: one block, caption first.
        last.text = `${text} — labels: ${last.text.slice(FIGURE_LABELS.length)}`;
        continue;
      }
      b.add('paragraph', text);
    }
  }

  /** Labels printed on a figure: added to the figure's caption when it is right there, else on their own. */
  private emitCallouts(c: Callouts): void {
    const labels = [...new Set(c.labels.map((l) => l.trim()).filter((l) => /[\p{L}\p{N}]/u.test(l)))];
    if (labels.length === 0) return;
    const last = this.b.blocks.at(-1);
    if (last && last.kind === 'paragraph' && last.page === this.b.page && FIGURE_CAPTION_RE.test(last.text) && !last.text.includes(' — labels: ')) {
      last.text = `${last.text} — labels: ${labels.join(' · ')}`;
      return;
    }
    this.b.add('paragraph', `${FIGURE_LABELS}${labels.join(' · ')}`);
  }

  private emitTable(t: Table, firstOnPage: boolean, caption: string | undefined): void {
    const b = this.b;
    let rows = t.rows;
    let columns: string[];
    let name: string;
    const open = this.open;
    if (firstOnPage && open && continuesTable(open.table, t)) {
      // Continued from the previous page: the same header, repeated on the page or not.
      const head = rows[0] ?? [];
      if (head.join('\u0000').toLowerCase() === open.columns.join('\u0000').toLowerCase()) rows = rows.slice(1);
      columns = open.columns;
      name = open.name;
    } else if (t.header) {
      columns = (rows[0] ?? []).map((c, k) => c || `Column ${k + 1}`);
      rows = rows.slice(1);
      name = caption ?? b.currentHeading ?? this.fileStem;
    } else if ((rows[0]?.length ?? 0) === 2) {
      // Two columns without a header: a list of terms and what they mean.
      for (const r of rows) {
        const [term = '', def = ''] = r;
        if (term && def) b.add('definition', def, { term });
        else if (term || def) b.add('paragraph', term || def);
      }
      this.open = null;
      return;
    } else {
      columns = (rows[0] ?? []).map((_, k) => `Column ${k + 1}`);
      name = caption ?? b.currentHeading ?? this.fileStem;
    }
    for (const r of rows) b.row(name, columns, r);
    this.open = { table: t, columns, name };
  }
}

/** Joins the lines of a paragraph, mending words hyphenated at line ends. */
function joinLines(lines: Line[]): string {
  let out = '';
  for (const l of lines) {
    if (!out) out = l.text;
    else if (/\p{Ll}-$/u.test(out) && /^\p{Ll}/u.test(l.text)) out = out.slice(0, -1) + l.text;
    else if (isCjk(out.at(-1)) && isCjk(l.text[0])) out += l.text;
    else out += ' ' + l.text;
  }
  return out;
}
