/**
 * What a page draws besides text, read from pdf.js's operator list: ruling lines (thin filled
 * rectangles or stroked straight segments, as table borders are drawn) and the boxes of images
 * (figures, or the whole page of a scan). Coordinates are PDF user space (y grows upwards).
 */
import type { PdfPage } from './open.js';

export interface Rule {
  /** 'h' horizontal: y fixed, x0..x1; 'v' vertical: x fixed, y0..y1 (x0 = x1 resp. y0 = y1). */
  dir: 'h' | 'v';
  x0: number;
  x1: number;
  y0: number;
  y1: number;
}

export interface Rect {
  x0: number;
  y0: number;
  x1: number;
  y1: number;
}

export interface PageGraphics {
  rules: Rule[];
  images: Rect[];
}

type Matrix = [number, number, number, number, number, number];

// pdf.js OPS codes (stable across 4.x/5.x) and the path codes of its constructPath data (5.x).
const OP = {
  save: 10,
  restore: 11,
  transform: 12,
  stroke: 20,
  closeStroke: 21,
  fill: 22,
  eoFill: 23,
  fillStroke: 24,
  eoFillStroke: 25,
  closeFillStroke: 26,
  closeEOFillStroke: 27,
  setLineWidth: 2,
  paintFormXObjectBegin: 74,
  paintFormXObjectEnd: 75,
  paintImageMaskXObject: 83,
  paintImageXObject: 85,
  paintInlineImageXObject: 86,
  paintImageXObjectRepeat: 88,
  constructPath: 91,
} as const;
const PAINTS: ReadonlySet<number> = new Set([OP.stroke, OP.closeStroke, OP.fill, OP.eoFill, OP.fillStroke, OP.eoFillStroke, OP.closeFillStroke, OP.closeEOFillStroke]);
const STROKES: ReadonlySet<number> = new Set([OP.stroke, OP.closeStroke, OP.fillStroke, OP.eoFillStroke, OP.closeFillStroke, OP.closeEOFillStroke]);
const MOVE = 0;
const LINE = 1;
const CURVE = 2;
const QUAD = 3;
const CLOSE = 4;

/** Thickest rectangle still read as a line, in points. */
const MAX_RULE_THICKNESS = 3;
/** Shortest segment kept as a rule, in points. */
const MIN_RULE_LENGTH = 8;

function mul(m: Matrix, n: Matrix): Matrix {
  return [
    m[0] * n[0] + m[2] * n[1],
    m[1] * n[0] + m[3] * n[1],
    m[0] * n[2] + m[2] * n[3],
    m[1] * n[2] + m[3] * n[3],
    m[0] * n[4] + m[2] * n[5] + m[4],
    m[1] * n[4] + m[3] * n[5] + m[5],
  ];
}

function apply(m: Matrix, x: number, y: number): [number, number] {
  return [m[0] * x + m[2] * y + m[4], m[1] * x + m[3] * y + m[5]];
}

function asMatrix(v: unknown): Matrix | null {
  if (!v || typeof v !== 'object' || !('length' in v) || (v as ArrayLike<number>).length !== 6) return null;
  const a = Array.from(v as ArrayLike<number>);
  return a.every((x) => Number.isFinite(x)) ? (a as Matrix) : null;
}

export async function pageGraphics(page: PdfPage): Promise<PageGraphics> {
  const ops = await page.getOperatorList();
  const rules: Rule[] = [];
  const images: Rect[] = [];
  let ctm: Matrix = [1, 0, 0, 1, 0, 0];
  let lineWidth = 1;
  const stack: { ctm: Matrix; lineWidth: number }[] = [];
  const { fnArray, argsArray } = ops;
  for (let i = 0; i < fnArray.length; i++) {
    const fn = fnArray[i];
    const args = argsArray[i] as unknown[] | null;
    switch (fn) {
      case OP.save:
        stack.push({ ctm, lineWidth });
        break;
      case OP.restore: {
        const s = stack.pop();
        if (s) ({ ctm, lineWidth } = s);
        break;
      }
      case OP.transform: {
        const m = asMatrix(args);
        if (m) ctm = mul(ctm, m);
        break;
      }
      case OP.setLineWidth:
        lineWidth = Number(args?.[0]) || 0;
        break;
      case OP.paintFormXObjectBegin: {
        stack.push({ ctm, lineWidth });
        const m = asMatrix(args?.[0]);
        if (m) ctm = mul(ctm, m);
        break;
      }
      case OP.paintFormXObjectEnd: {
        const s = stack.pop();
        if (s) ({ ctm, lineWidth } = s);
        break;
      }
      case OP.paintImageXObject:
      case OP.paintInlineImageXObject:
      case OP.paintImageMaskXObject:
      case OP.paintImageXObjectRepeat: {
        // Images are drawn into the unit square of the current matrix.
        const pts = [apply(ctm, 0, 0), apply(ctm, 1, 0), apply(ctm, 0, 1), apply(ctm, 1, 1)];
        images.push(boxOf(pts));
        break;
      }
      case OP.constructPath: {
        const paint = Number(args?.[0]);
        if (!PAINTS.has(paint)) break;
        const data = (args?.[1] as ArrayLike<number>[] | undefined)?.[0];
        if (!data) break;
        const width = Math.abs(lineWidth * Math.hypot(ctm[0], ctm[1])) || 1;
        pathRules(data, ctm, STROKES.has(paint) ? width : 0, rules);
        break;
      }
      default:
        break;
    }
  }
  return { rules, images };
}

function boxOf(pts: [number, number][]): Rect {
  const xs = pts.map((p) => p[0]);
  const ys = pts.map((p) => p[1]);
  return { x0: Math.min(...xs), x1: Math.max(...xs), y0: Math.min(...ys), y1: Math.max(...ys) };
}

/** Straight axis-parallel segments of a path, and thin rectangles (filled borders), as rules. */
function pathRules(data: ArrayLike<number>, ctm: Matrix, strokeWidth: number, out: Rule[]): void {
  let sub: [number, number][] = [];
  let curved = false;
  const flush = (): void => {
    if (sub.length >= 2 && !curved) {
      const box = boxOf(sub);
      const w = box.x1 - box.x0;
      const h = box.y1 - box.y0;
      if (h <= MAX_RULE_THICKNESS && w >= MIN_RULE_LENGTH) {
        out.push({ dir: 'h', x0: box.x0, x1: box.x1, y0: (box.y0 + box.y1) / 2, y1: (box.y0 + box.y1) / 2 });
      } else if (w <= MAX_RULE_THICKNESS && h >= MIN_RULE_LENGTH) {
        out.push({ dir: 'v', x0: (box.x0 + box.x1) / 2, x1: (box.x0 + box.x1) / 2, y0: box.y0, y1: box.y1 });
      } else if (strokeWidth > 0 && strokeWidth <= MAX_RULE_THICKNESS) {
        // A stroked rectangle or polyline: each straight axis-parallel edge is a rule.
        for (let k = 1; k < sub.length; k++) {
          const [ax, ay] = sub[k - 1] as [number, number];
          const [bx, by] = sub[k] as [number, number];
          if (Math.abs(ay - by) < 0.5 && Math.abs(ax - bx) >= MIN_RULE_LENGTH) out.push({ dir: 'h', x0: Math.min(ax, bx), x1: Math.max(ax, bx), y0: ay, y1: ay });
          else if (Math.abs(ax - bx) < 0.5 && Math.abs(ay - by) >= MIN_RULE_LENGTH) out.push({ dir: 'v', x0: ax, x1: ax, y0: Math.min(ay, by), y1: Math.max(ay, by) });
        }
      }
    }
    sub = [];
    curved = false;
  };
  for (let i = 0; i < data.length; ) {
    const op = data[i];
    if (op === MOVE) {
      flush();
      sub.push(apply(ctm, data[i + 1] as number, data[i + 2] as number));
      i += 3;
    } else if (op === LINE) {
      sub.push(apply(ctm, data[i + 1] as number, data[i + 2] as number));
      i += 3;
    } else if (op === CURVE) {
      curved = true;
      i += 7;
    } else if (op === QUAD) {
      curved = true;
      i += 5;
    } else if (op === CLOSE) {
      if (sub.length) sub.push(sub[0] as [number, number]);
      i += 1;
    } else {
      break;
    }
  }
  flush();
}
