import type { AdmonitionKind, Block, BlockKind, ParsedDocument } from '../contract/index.js';
import { parseLimits, tableRowsError } from './limits.js';

/** Extra fields a block may carry besides kind/text/headingPath/page. */
export type BlockExtra = Omit<Block, 'kind' | 'text' | 'headingPath' | 'page'>;

/**
 * Collects blocks in reading order and keeps track of the enclosing headings, so every adapter
 * gets `headingPath` right the same way. Adapters call `heading()` when a title starts a section
 * and `add()` for everything else.
 */
export class DocBuilder {
  readonly blocks: Block[] = [];
  readonly warnings: string[] = [];
  /** Page stamped on the blocks added next (PDF); null for formats without pages. */
  page: number | null = null;
  private readonly stack: { level: number; title: string }[] = [];
  /** The current path, shared by consecutive blocks until the stack changes (blocks never mutate it). */
  private path: string[] = [];
  /** Rows added per table name, against the rows-per-table cap (parse/limits.ts). */
  private readonly rowCounts = new Map<string, number>();
  private readonly maxTableRows: number;

  constructor(
    readonly format: string,
    limits: { maxTableRows: number } = parseLimits(),
  ) {
    this.maxTableRows = limits.maxTableRows;
  }

  /** Titles of the current section, outermost first. */
  get headingPath(): readonly string[] {
    return this.path;
  }

  /** The innermost heading title, if any (used to name tables without a caption). */
  get currentHeading(): string | undefined {
    return this.stack[this.stack.length - 1]?.title;
  }

  /** A heading; `source.raw` is its line as written (`## Homing`), shown at the top of its section. */
  heading(level: number, rawText: string, source: { raw?: string } = {}): void {
    const text = normalizeInline(rawText);
    if (!text) return;
    while (this.stack.length > 0 && (this.stack[this.stack.length - 1]?.level ?? 0) >= level) this.stack.pop();
    const block: Block = { kind: 'heading', text, headingPath: this.stack.map((h) => h.title), page: this.page, level };
    if (source.raw) block.raw = stripInvisible(source.raw);
    this.blocks.push(block);
    this.stack.push({ level, title: text });
    // Shared by the following blocks; frozen so that no consumer can change it for all of them.
    this.path = Object.freeze(this.stack.map((h) => h.title)) as string[];
  }

  /** A code block, with the language the manual names for it (the first word of a fence's info string). */
  code(rawText: string, lang?: string | null): Block | null {
    const name = /^[\w+#.-]{1,24}/.exec((lang ?? '').trim())?.[0];
    return this.add('code', rawText, name ? { codeLang: name.toLowerCase() } : {});
  }

  /**
   * Adds a block. Text is trimmed; empty blocks are dropped (a table row is kept when any cell
   * has text). Returns the block, or null when it was dropped.
   */
  add(kind: Exclude<BlockKind, 'heading'>, rawText: string, extra: BlockExtra = {}): Block | null {
    const clean = stripInvisible(rawText);
    const text = kind === 'code' ? trimBlankLines(clean) : clean.trim();
    if (!text && !(kind === 'table-row' && extra.cells?.some((c) => c.trim()))) return null;
    if (kind === 'table-row') {
      const table = extra.table ?? '';
      const rows = (this.rowCounts.get(table) ?? 0) + 1;
      if (rows > this.maxTableRows) throw tableRowsError(table, this.maxTableRows);
      this.rowCounts.set(table, rows);
    }
    const block: Block = { kind, text, headingPath: this.path, page: this.page, ...extra };
    // Passages quote raw lines and cells as written: the same invisible characters go from those.
    if (block.raw !== undefined) block.raw = stripInvisible(block.raw);
    if (block.rawHeader !== undefined) block.rawHeader = stripInvisible(block.rawHeader);
    if (block.term !== undefined) block.term = stripInvisible(block.term);
    if (block.cells) block.cells = block.cells.map(stripInvisible);
    if (block.columns) block.columns = block.columns.map(stripInvisible);
    this.blocks.push(block);
    return block;
  }

  admonition(kind: AdmonitionKind, text: string): Block | null {
    return this.add('admonition', text, { admonition: kind });
  }

  /** One table row; pads/names columns so that columns and cells have the same length. */
  row(table: string, columns: readonly string[], cells: readonly string[], source: { raw?: string; rawHeader?: string } = {}): Block | null {
    const n = Math.max(columns.length, cells.length);
    const cols: string[] = [];
    const vals: string[] = [];
    for (let i = 0; i < n; i++) {
      const col = (columns[i] ?? '').trim() || `Column ${i + 1}`;
      const val = (cells[i] ?? '').trim();
      cols.push(col);
      vals.push(val);
    }
    if (!vals.some((v) => v)) return null;
    const extra: BlockExtra = { columns: cols, cells: vals, table };
    const raw = source.raw?.replace(/^[\r\n]+|[\r\n]+$/g, '');
    const rawHeader = source.rawHeader?.replace(/^[\r\n]+|[\r\n]+$/g, '');
    if (raw) extra.raw = raw;
    if (rawHeader) extra.rawHeader = rawHeader;
    return this.add('table-row', rowText(cols, vals), extra);
  }

  warn(message: string): void {
    if (!this.warnings.includes(message)) this.warnings.push(message);
  }

  finish(meta: ParsedDocument['meta'] = {}, extra: Partial<ParsedDocument> = {}): ParsedDocument {
    return { format: this.format, meta, blocks: this.blocks, warnings: this.warnings, ...extra };
  }
}

/** Text of a table row: "Column: value" pairs on one line each, empty cells left out. */
export function rowText(columns: readonly string[], cells: readonly string[]): string {
  const parts: string[] = [];
  cells.forEach((cell, i) => {
    if (cell) parts.push(`${columns[i] ?? `Column ${i + 1}`}: ${cell}`);
  });
  return parts.join('\n');
}

/** Collapses runs of spaces/tabs and blank lines inside inline text; keeps single line breaks. */
export function normalizeInline(text: string): string {
  let t = text;
  if (t.includes('\r')) t = t.replace(/\r\n?/g, '\n');
  t = stripInvisible(t);
  return t
    .replace(/[ \t\u00a0\u2009\u202f]*\n[ \t\u00a0\u2009\u202f\n]*/g, '\n')
    .replace(/[ \t\u00a0\u2009\u202f]{2,}|[\t\u00a0\u2009\u202f]/g, ' ')
    .trim();
}

/**
 * Invisible format characters: zero-width spaces, joiners and marks, bidi embeddings, overrides and
 * isolates, word joiners, BOM, soft hyphen. A manual's wording never needs them; they split words
 * so search misses them, and bidi controls make the text shown differ from the text stored (a
 * right-to-left override shows "45 Nm" as "mN 54").
 */
const INVISIBLE_RE = /[\u00ad\u180e\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff]/;
const INVISIBLE_G = /[\u00ad\u180e\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff]/g;

/** The text without invisible format characters (see INVISIBLE_RE). */
export function stripInvisible(text: string): string {
  return INVISIBLE_RE.test(text) ? text.replace(INVISIBLE_G, '') : text;
}

/**
 * Same as {@link normalizeInline} but joins lines into one (for paragraph text): a line break inside
 * a paragraph is where the writer's editor wrapped it. Not between two lines that are each a
 * statement of their own (`vel_estimate < -vel_limit` above `vel_estimate > vel_limit`): joined,
 * they read as one expression.
 */
export function oneLine(text: string): string {
  const lines = normalizeInline(text).split('\n');
  let out = lines[0] ?? '';
  for (let i = 1; i < lines.length; i++) {
    const line = lines[i] as string;
    out += isStatement(lines[i - 1] as string) && isStatement(line) ? `\n${line}` : ` ${line}`;
  }
  return out;
}

/** A comparison or assignment between two operands (`a < b`, `x >= 2.5 V`, `mode = 3`, `t ≤ 10 ms`); arrows (`->`, `=>`) are not. */
const RELATION = /[\w)\]]\s*(?:<=|>=|==|!=|≤|≥|≠|<|>|=)\s*[-+]?[\w(.]/u;

/** A line that is one relation, not a sentence that mentions one: short, without a sentence end inside. */
function isStatement(line: string): boolean {
  return line.length <= 120 && RELATION.test(line) && !/[.!?。！？]\s+\S/.test(line);
}

function trimBlankLines(text: string): string {
  return text.replace(/\r\n?/g, '\n').replace(/^\s*\n/, '').replace(/\s+$/, '');
}
