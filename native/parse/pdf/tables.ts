/**
 * Tables on a PDF page, found two ways:
 * - ruled: a grid of ruling lines (vertical + horizontal borders) from the operator list; each
 *   text run goes to the cell its centre falls in, so wrapped and vertically centred cells stay
 *   whole;
 * - aligned: consecutive lines whose blocks of text (runs separated by wide gaps) start at the
 *   same x positions; a line with nothing in the first column continues the row above.
 * A table keeps its column positions so a table continued on the next page can be recognised.
 */
import type { Rule } from './graphics.js';
import { groupLines, makeLine, splitSegments, type Item, type Line } from './layout.js';
import { isHeaderWord } from '../table-header.js';

export interface Table {
  x0: number;
  x1: number;
  /** y of the top and bottom edges (user space: top > bottom). */
  top: number;
  bottom: number;
  /** Left edge of each column. */
  colX: number[];
  rows: string[][];
  /** True when the first row is a header row. */
  header: boolean;
  ruled: boolean;
  /** Body font size of the table's text. */
  size: number;
}

const TOL = 2;
/** More rules than this on one page is a drawing, not tables. */
const MAX_RULES = 3000;

// ---------------------------------------------------------------- ruled tables

/** Tables drawn as grids of ruling lines; returns them and the items outside every table. */
export function ruledTables(items: Item[], rules: Rule[]): { tables: Table[]; rest: Item[] } {
  if (rules.length < 4 || rules.length > MAX_RULES) return { tables: [], rest: items };
  const groups = connected(rules);
  const tables: Table[] = [];
  let rest = items;
  for (const g of groups) {
    const vs = g.filter((r) => r.dir === 'v');
    const hs = g.filter((r) => r.dir === 'h');
    const xs = cluster(vs.map((r) => r.x0));
    if (xs.length < 3 && !(xs.length === 2 && hs.length >= 3)) continue;
    const near = (x: number): boolean => xs.some((c) => Math.abs(c - x) <= TOL * 2);
    // Row borders end on column borders; underlines of links inside a cell do not.
    const ys = cluster(hs.filter((h) => near(h.x0) && near(h.x1)).map((h) => h.y0)).sort((a, b) => b - a);
    if (ys.length < 2) continue;
    const x0 = xs[0] as number;
    const x1 = xs[xs.length - 1] as number;
    const top = ys[0] as number;
    const bottom = ys[ys.length - 1] as number;
    const cells: Item[][][] = ys.slice(1).map(() => xs.slice(1).map(() => []));
    const inside: Item[] = [];
    const outside: Item[] = [];
    for (const it of rest) {
      const cx = it.x + it.w / 2;
      const cy = it.y + it.size * 0.3;
      if (cx < x0 || cx > x1 || cy > top || cy < bottom) {
        outside.push(it);
        continue;
      }
      const c = Math.max(0, xs.findIndex((x, k) => k > 0 && cx <= x) - 1);
      const r = Math.max(0, ys.findIndex((y, k) => k > 0 && cy >= y) - 1);
      cells[r]?.[c]?.push(it);
      inside.push(it);
    }
    const rows = cells.map((row) => row.map(cellText)).filter((row) => row.some((c) => c));
    const width = Math.max(...rows.map((r) => r.filter((c) => c).length), 0);
    // A framed note or a box around a figure is not a table: at least two rows of two cells, or
    // a lone header row of three or more (its rows are on the next page).
    const loneHeader = rows.length === 1 && (rows[0]?.length ?? 0) >= 3 && (rows[0] ?? []).every((c) => c);
    if ((rows.length < 2 && !loneHeader) || width < 2 || inside.length === 0) continue;
    const dropEmptyCols = rows[0]?.map((_, k) => rows.some((r) => r[k])) ?? [];
    const keep = (row: string[]): string[] => row.filter((_, k) => dropEmptyCols[k]);
    const colX = xs.slice(0, -1).filter((_, k) => dropEmptyCols[k]);
    const kept = rows.map(keep);
    splitMergedHeader(kept);
    tables.push({ x0, x1, top, bottom, colX, rows: kept, header: true, ruled: true, size: medianSize(inside) });
    rest = outside;
  }
  return { tables, rest };
}

function cellText(items: Item[]): string {
  if (items.length === 0) return '';
  return groupLines(items)
    .map((l) => l.text)
    .join(' ')
    .replace(/(\p{Ll})- (\p{Ll})/gu, '$1$2')
    // A part number or code wrapped after its hyphen ("VB-LM-01-" / "GTB1") is one word.
    .replace(/([\p{L}\d]-) (?=[\p{Lu}\d])/gu, '$1')
    .replace(/\s+/g, ' ')
    .trim();
}

function medianSize(items: Item[]): number {
  const s = items.map((i) => i.size).sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)] ?? 10;
}

/** Groups rules that touch each other (a table's borders form one connected grid). */
function connected(rules: Rule[]): Rule[][] {
  const parent = rules.map((_, i) => i);
  const find = (i: number): number => {
    while (parent[i] !== i) i = parent[i] = parent[parent[i] as number] as number;
    return i;
  };
  const touch = (a: Rule, b: Rule): boolean =>
    a.x0 - TOL <= b.x1 && b.x0 - TOL <= a.x1 && a.y0 - TOL <= b.y1 && b.y0 - TOL <= a.y1;
  const order = rules.map((_, i) => i).sort((i, j) => (rules[i] as Rule).x0 - (rules[j] as Rule).x0);
  for (let a = 0; a < order.length; a++) {
    const ra = rules[order[a] as number] as Rule;
    for (let b = a + 1; b < order.length; b++) {
      const rb = rules[order[b] as number] as Rule;
      if (rb.x0 - TOL > ra.x1) break;
      if (touch(ra, rb)) parent[find(order[a] as number)] = find(order[b] as number);
    }
  }
  const groups = new Map<number, Rule[]>();
  rules.forEach((r, i) => {
    const k = find(i);
    const g = groups.get(k);
    if (g) g.push(r);
    else groups.set(k, [r]);
  });
  return [...groups.values()];
}

/** Sorted centres of values closer than 2×TOL to each other. */
function cluster(values: number[]): number[] {
  const s = [...values].sort((a, b) => a - b);
  const out: number[] = [];
  let group: number[] = [];
  for (const v of s) {
    if (group.length && v - (group[group.length - 1] as number) > TOL * 2) {
      out.push(group.reduce((a, b) => a + b, 0) / group.length);
      group = [];
    }
    group.push(v);
  }
  if (group.length) out.push(group.reduce((a, b) => a + b, 0) / group.length);
  return out;
}

// ---------------------------------------------------------------- aligned tables

export type Flow = { line: Line; table?: undefined } | { table: Table; line?: undefined };

/** Markers that make a two-block line a list item or a step, not a table row. */
const LIST_MARK = /^(?:\(?\d{1,3}[.)]|\(?[a-z][.)]|[•●▪■◦‣∙·○►➢✓✔*–-]|step\s*\d+[:.]?|note:?|caution:?|warning:?|danger:?|tip:?|注意[:：]?|警告[:：]?|危险[:：]?|第\s*\d+\s*步)$/i;

/**
 * Finds tables made of aligned blocks of text in a run of lines (one column of a page, in reading
 * order) and returns the lines with each table in place of its lines.
 */
export function alignedTables(lines: Line[]): Flow[] {
  const segs = lines.map((l) => splitSegments(l));
  const out: Flow[] = [];
  let i = 0;
  while (i < lines.length) {
    const found = (segs[i]?.length ?? 0) >= 2 ? tableAt(lines, segs, i) : null;
    if (found) {
      out.push({ table: found.table });
      i = found.end;
    } else {
      out.push({ line: lines[i] as Line });
      i++;
    }
  }
  return out;
}

/** The table starting at line `start`, and the index after its last line; null when there is none. */
function tableAt(lines: Line[], segs: Line[][], start: number): { table: Table; end: number } | null {
  const first = segs[start] as Line[];
  const size = (lines[start] as Line).size || 10;
  const tol = Math.max(4, size * 0.6);
  // Column anchors grow from the rows seen so far.
  const anchors: number[] = first.map((s) => s.x0);
  const rows: Line[][] = [first];
  let multi = 1;
  let end = start + 1;
  const maxGap = size * 2.6;
  for (let j = start + 1; j < lines.length; j++) {
    const prev = lines[j - 1] as Line;
    const line = lines[j] as Line;
    const gap = prev.y - line.y;
    if (gap < 0 || gap > maxGap || Math.abs(line.size - size) > 1.5) break;
    let s = segs[j] as Line[];
    // A narrower gap still separates cells when the text after it starts exactly at a column.
    if (s.length === 1) {
      s = splitAtAnchors(line, anchors, tol);
      segs[j] = s;
    }
    if (s.length >= 2) {
      // A row shares at least one column with the rows above; new columns may appear (a header
      // with fewer cells than its rows).
      if (!s.some((seg) => anchorOf(anchors, seg, tol) >= 0)) break;
      for (const seg of s) if (anchorOf(anchors, seg, tol) < 0) insertAnchor(anchors, seg.x0);
      multi++;
    } else {
      // One block: a wrapped cell (not in the first column) or the end of the table.
      const only = s[0] as Line;
      if (anchorOf(anchors, only, tol) <= 0 || gap > size * 1.8) break;
    }
    rows.push(s);
    end = j + 1;
  }
  // Three rows make a table; two do when the first is plainly a header ("Code  Description").
  const headerish = first.filter((seg) => isHeaderWord(seg.text)).length >= 2;
  const minRows = headerish ? 2 : 3;
  if (multi < minRows || anchors.length < 2) return null;
  // The first column of a list of steps or bullets is its markers: that is a list, not a table.
  const firstCol = rows.map((r) => r.find((s) => anchorOf(anchors, s, tol) === 0)?.text ?? '').filter(Boolean);
  if (firstCol.filter((t) => LIST_MARK.test(t)).length >= firstCol.length * 0.5) return null;

  const grid: string[][] = [];
  for (const r of rows) {
    const cells = new Array<string>(anchors.length).fill('');
    for (const seg of r) {
      const k = Math.max(0, anchorOf(anchors, seg, tol) >= 0 ? anchorOf(anchors, seg, tol) : lastAnchorBefore(anchors, seg.x0 + tol));
      cells[k] = cells[k] ? `${cells[k]} ${seg.text}` : seg.text;
    }
    const continues = grid.length > 0 && !cells[0];
    if (continues) {
      const last = grid[grid.length - 1] as string[];
      cells.forEach((c, k) => {
        if (c) last[k] = joinCell(last[k] ?? '', c);
      });
    } else grid.push(cells);
  }
  if (grid.length < minRows) return null;
  const firstLine = lines[start] as Line;
  splitMergedHeader(grid);
  const header = looksLikeHeader(grid, firstLine, lines.slice(start + 1, end));
  const x0 = Math.min(...rows.flat().map((s) => s.x0));
  const x1 = Math.max(...rows.flat().map((s) => s.x1));
  const table: Table = {
    x0,
    x1,
    top: firstLine.y + size,
    bottom: (lines[end - 1] as Line).y,
    colX: anchors,
    rows: grid,
    header,
    ruled: false,
    size,
  };
  return { table, end };
}

/** Splits a line where a run starts at a column anchor after a gap of at least half an em. */
function splitAtAnchors(line: Line, anchors: number[], tol: number): Line[] {
  const parts: Item[][] = [];
  let cur: Item[] = [];
  let end = -Infinity;
  for (const it of line.items) {
    if (!it.str.trim()) continue;
    const atAnchor = anchors.some((a, k) => k > 0 && Math.abs(a - it.x) <= tol);
    if (cur.length && atAnchor && it.x - end >= it.size * 0.5) {
      parts.push(cur);
      cur = [];
    }
    cur.push(it);
    end = Math.max(end, it.x + it.w);
  }
  if (cur.length) parts.push(cur);
  return parts.length > 1 ? parts.map((p) => makeLine(p)) : [line];
}

function joinCell(a: string, b: string): string {
  if (!a) return b;
  if (/\p{Ll}-$/u.test(a) && /^\p{Ll}/u.test(b)) return a.slice(0, -1) + b;
  return `${a} ${b}`;
}

/** Index of the anchor a segment starts at (left-aligned), or ends under (right-aligned numbers); -1 when none. */
function anchorOf(anchors: number[], seg: Line, tol: number): number {
  for (let k = 0; k < anchors.length; k++) if (Math.abs((anchors[k] as number) - seg.x0) <= tol) return k;
  // Right-aligned or centred cells: the segment lies between this anchor and the next.
  for (let k = 0; k < anchors.length; k++) {
    const a = anchors[k] as number;
    const b = anchors[k + 1] ?? Infinity;
    if (seg.x0 > a && seg.x1 < b - tol && k > 0) return k;
  }
  return -1;
}

function lastAnchorBefore(anchors: number[], x: number): number {
  let k = -1;
  anchors.forEach((a, i) => {
    if (a <= x) k = i;
  });
  return k;
}

function insertAnchor(anchors: number[], x: number): void {
  anchors.push(x);
  anchors.sort((a, b) => a - b);
}

/**
 * Mends a header whose two cells were read as one ("Meaning Remedy" over two columns, as OCR and
 * narrow gaps do): a header cell made of two header words, next to an empty header cell whose column
 * holds text below, is split between the two. Changes `grid` in place.
 */
export function splitMergedHeader(grid: string[][]): void {
  const head = grid[0];
  if (!head || grid.length < 2) return;
  for (let k = 0; k < head.length; k++) {
    const cell = (head[k] ?? '').trim();
    const words = cell.split(/\s+/);
    if (words.length < 2 || isHeaderWord(cell)) continue;
    const emptyAt = [k + 1, k - 1].find((j) => j >= 0 && j < head.length && !(head[j] ?? '').trim() && grid.slice(1).some((r) => (r[j] ?? '').trim()));
    if (emptyAt === undefined) continue;
    for (let i = 1; i < words.length; i++) {
      const left = words.slice(0, i).join(' ');
      const right = words.slice(i).join(' ');
      if (!isHeaderWord(left) || !isHeaderWord(right)) continue;
      if (emptyAt > k) {
        head[k] = left;
        head[emptyAt] = right;
      } else {
        head[emptyAt] = left;
        head[k] = right;
      }
      break;
    }
  }
}

function looksLikeHeader(grid: string[][], first: Line, rest: Line[]): boolean {
  const head = grid[0] ?? [];
  if (head.some((c) => isHeaderWord(c))) return true;
  const bodySize = rest[0]?.size ?? first.size;
  if (Math.abs(first.size - bodySize) >= 0.5) return true;
  // Every header cell is words, while some column below holds numbers or codes.
  if (!head.every((c) => c && /\p{L}/u.test(c) && !/\d/.test(c))) return false;
  return head.some((_, k) => {
    const col = grid.slice(1).map((r) => r[k] ?? '').filter(Boolean);
    return col.length > 0 && col.filter((c) => /\d/.test(c)).length >= col.length * 0.6;
  });
}

/** True when `next` continues `prev` on the following page (same columns, same x positions). */
export function continuesTable(prev: Table, next: Table): boolean {
  if (prev.colX.length !== next.colX.length) return false;
  const tol = prev.ruled && next.ruled ? 3 : 10;
  return prev.colX.every((x, k) => Math.abs(x - (next.colX[k] as number)) <= tol);
}
