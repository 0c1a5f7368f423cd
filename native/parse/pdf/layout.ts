/**
 * Page layout from positioned text: runs → lines → reading order (column by column on
 * two-column pages, band by band where full-width text interrupts the columns).
 * Coordinates are PDF user space (points, y grows upwards).
 */

/** A positioned run of text on a page. */
export interface Item {
  str: string;
  x: number;
  y: number;
  w: number;
  size: number;
}

export interface Line {
  text: string;
  x0: number;
  x1: number;
  y: number;
  size: number;
  /** The runs of the line, left to right. */
  items: Item[];
}

/** A gap wider than this many ems between two runs of a line separates two blocks of text (cells, columns). */
const SEGMENT_GAP_EM = 1.2;

/**
 * Characters of scripts written without spaces between words (Chinese, Japanese kana, CJK
 * punctuation and full-width forms; not Hangul, which spaces its words).
 */
const CJK = '\\p{Script=Han}\\p{Script=Hiragana}\\p{Script=Katakana}\\u3000-\\u303f\\uff00-\\uffef';
const CJK_CHAR = new RegExp(`[${CJK}]`, 'u');
const CJK_GAP = new RegExp(`(?<=[${CJK}])[ \\t\\u00a0]+(?=[${CJK}])`, 'gu');

/** Whether a character (the last of one run, the first of the next) is one of {@link CJK}. */
export function isCjk(ch: string | undefined): boolean {
  return ch !== undefined && CJK_CHAR.test(ch);
}

const SPACED_RUN = /^\s*\S(?:\s\S)+\s*$/u;
const SPACED_DIGIT = new RegExp(`(?<=[\\d${CJK}])\\s(?=\\d)|(?<=\\d)\\s(?=[${CJK}])`, 'gu');

/**
 * A run's text without the spaces between CJK characters. Letter-spaced or justified Chinese
 * (character spacing, `Tc`) puts a gap after every character, and pdf.js writes each gap as a space:
 * "机 器 人 无 法 保 持 静 止" would be indexed as single characters that no question's words match.
 * Chinese writes no spaces between words, so none is lost. In a run spaced out character by
 * character, the digits are closed up too ("2 2" is code 22, "关 节 3" is 关节3); Latin letters
 * are left alone, as their own word spaces look the same.
 */
export function closeCjkGaps(text: string): string {
  const closed = SPACED_RUN.test(text) ? text.replace(SPACED_DIGIT, '') : text;
  return closed.replace(CJK_GAP, '');
}

/** Groups items into lines; on two-column pages, reads each column band by band. */
export function readingOrder(items: Item[], x0: number, x1: number): Line[] {
  if (items.length === 0) return [];
  const lines = groupLines(items);
  const gutter = findGutter(lines, x0, x1);
  if (gutter === null) return lines;
  // Each line split where it has a wide gap: a line of a two-column page is two segments.
  const segs = lines.flatMap((l) => splitSegments(l));
  const left: Line[] = [];
  const right: Line[] = [];
  for (const s of segs) {
    if (s.x1 <= gutter) left.push(s);
    else if (s.x0 >= gutter) right.push(s);
  }
  // Text columns are filled with running lines; a table's cells are short. Tables stay row by row.
  const median = (ls: Line[]): number => {
    const w = ls.map((l) => l.x1 - l.x0).sort((p, q) => p - q);
    return w[Math.floor(w.length / 2)] ?? 0;
  };
  if (median(left) < (gutter - x0) * 0.45 || median(right) < (x1 - gutter) * 0.45) return lines;

  // Bands: runs of column text between full-width lines (a title above, a wide figure caption
  // between, a footnote below). Within a band: the left column, then the right one.
  const out: Line[] = [];
  let bandLeft: Line[] = [];
  let bandRight: Line[] = [];
  const flushBand = (): void => {
    out.push(...mergeSegments(bandLeft), ...mergeSegments(bandRight));
    bandLeft = [];
    bandRight = [];
  };
  for (const s of segs) {
    if (s.x1 <= gutter) bandLeft.push(s);
    else if (s.x0 >= gutter) bandRight.push(s);
    else {
      flushBand();
      out.push(s);
    }
  }
  flushBand();
  return out;
}

/** Splits a line at gaps wider than {@link SEGMENT_GAP_EM} ems. */
export function splitSegments(line: Line): Line[] {
  const parts: Item[][] = [];
  let cur: Item[] = [];
  let end = -Infinity;
  for (const it of line.items) {
    // pdf.js reports the space between two runs as a run of its own, as wide as the gap.
    if (!it.str.trim()) continue;
    if (cur.length && it.x - end > Math.max(6, it.size * SEGMENT_GAP_EM)) {
      parts.push(cur);
      cur = [];
    }
    cur.push(it);
    end = Math.max(end, it.x + it.w);
  }
  if (cur.length) parts.push(cur);
  if (parts.length === 1) return [line];
  return parts.map((p) => makeLine(p)).filter((l) => l.text);
}

/** Segments of one column back into lines (segments of the same line on the same side stay one line). */
function mergeSegments(segs: Line[]): Line[] {
  return groupLines(segs.flatMap((s) => s.items));
}

/**
 * The x of an empty vertical band in the middle of the page with text on both sides, or null.
 * Only segments narrower than 55 % of the page count: a full-width title or paragraph above or
 * below the columns does not hide their gutter.
 */
function findGutter(lines: Line[], x0: number, x1: number): number | null {
  const width = x1 - x0;
  if (width <= 0 || lines.length < 8) return null;
  const bins = 100;
  const cover = new Array<number>(bins).fill(0);
  let leftChars = 0;
  let rightChars = 0;
  let counted = 0;
  for (const l of lines) {
    for (const s of splitSegments(l)) {
      if (s.x1 - s.x0 > width * 0.55) continue;
      counted++;
      const a = Math.max(0, Math.floor(((s.x0 - x0) / width) * bins));
      const b = Math.min(bins - 1, Math.floor(((s.x1 - x0) / width) * bins));
      for (let k = a; k <= b; k++) cover[k] = (cover[k] ?? 0) + 1;
      if ((s.x0 + s.x1) / 2 < x0 + width / 2) leftChars += s.text.length;
      else rightChars += s.text.length;
    }
  }
  const total = leftChars + rightChars;
  if (counted < 8 || leftChars < total * 0.2 || rightChars < total * 0.2) return null;
  const allowed = Math.max(1, Math.floor(counted * 0.03));
  let bestStart = -1;
  let bestLen = 0;
  let runStart = -1;
  for (let k = 30; k <= 70; k++) {
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

export function groupLines(items: Item[]): Line[] {
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

export function makeLine(items: Item[]): Line {
  items.sort((p, q) => p.x - q.x);
  let text = '';
  let prevEnd = -Infinity;
  const sizeChars = new Map<number, number>();
  let maxY = -Infinity;
  for (const it of items) {
    const gap = it.x - prevEnd;
    // Two runs of Chinese a small gap apart are one text (spaced characters, see closeCjkGaps).
    const cjk = gap < it.size * SEGMENT_GAP_EM && isCjk(text.at(-1)) && isCjk(it.str[0]);
    if (text && gap > it.size * 0.15 && !cjk && !/\s$/.test(text) && !/^\s/.test(it.str)) text += ' ';
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
    items,
  };
}
