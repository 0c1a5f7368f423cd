import { parse as parseCsv } from 'csv-parse/sync';
import type { ParsedDocument } from '../../contract/index.js';
import { DocBuilder, normalizeInline, oneLine } from '../builder.js';
import { admonitionKind, admonitionText, matchAdmonition } from '../text-utils.js';
import { assertNesting, parseLimits } from '../limits.js';
import { indentNestingDepth } from '../nesting.js';
import type { TextAdapterInput } from './types.js';
import { firstRowIsHeader } from '../table-header.js';

/*
 * A deliberately small reStructuredText reader (no library covers RST in Node): section titles
 * (underlined or over- and underlined), paragraphs, bullet and enumerated lists, definition and
 * field lists, literal blocks, admonition directives, code directives and tables (grid, simple,
 * list-table and csv-table with its own content), one row block per body row.
 */

const ADORN = '=-`:\'"~^_*+#<>.';
const ADORN_RE = new RegExp(`^([${ADORN.replace(/[\\\]^-]/g, '\\$&')}])\\1{2,}\\s*$`);
const DIRECTIVE_RE = /^\.\.\s+([A-Za-z][\w-]*(?::[\w-]+)?)::(?:\s+(.*))?$/;
const BULLET_RE = /^([-*+•‣⁃])(\s+)(?=\S)/;
const ENUM_RE = /^(?:(\d+|#|[a-zA-Z]|[ivxlcdm]+)([.)])|\((\d+|#|[a-zA-Z])\))(\s+)(?=\S)/;
const FIELD_RE = /^:([^:\s][^:]*):(?:\s+(.*))?$/;
const CODE_DIRECTIVES = new Set(['code', 'code-block', 'sourcecode', 'parsed-literal']);
const SKIP_DIRECTIVES = new Set([
  'image', 'figure', 'toctree', 'contents', 'include', 'literalinclude', 'raw', 'only', 'index', 'meta',
  'highlight', 'sectnum', 'role', 'default-role', 'math', 'autosummary', 'graphviz',
  'youtube', 'video', 'tabularcolumns', 'glossary', 'rubric',
]);

interface Ctx {
  b: DocBuilder;
  styles: string[];
  fileStem: string;
  meta: ParsedDocument['meta'];
  /** The title of the `.. table::` directive being read. */
  caption?: string;
}

export function parseRst({ text, fileStem, limits = parseLimits(), name = 'This RST file' }: TextAdapterInput): ParsedDocument {
  // The reader recurses once per indentation level, copying the lines each time.
  assertNesting(name, 'indented blocks', indentNestingDepth(text), limits);
  const b = new DocBuilder('rst');
  const ctx: Ctx = { b, styles: [], fileStem, meta: {} };
  const lines = text.replace(/\r\n?/g, '\n').replace(/\t/g, '        ').split('\n').map((l) => l.replace(/\s+$/, ''));
  blocks(lines, ctx);
  const first = b.blocks.find((x) => x.kind === 'heading');
  if (first) ctx.meta.title = first.text;
  return b.finish(ctx.meta);
}

const indentOf = (line: string): number => line.length - line.trimStart().length;
const isBlank = (line: string | undefined): boolean => !line || !line.trim();

/** Lines of an indented block starting at `start` (blank lines inside kept), dedented. */
function indentedBlock(lines: string[], start: number, minIndent = 1): { block: string[]; end: number } {
  let end = start;
  while (end < lines.length && (isBlank(lines[end]) || indentOf(lines[end] ?? '') >= minIndent)) end++;
  while (end > start && isBlank(lines[end - 1])) end--;
  const body = lines.slice(start, end);
  // A loop, not Math.min(...lines): spreading a long block's lines overflows the stack.
  let dedent = Infinity;
  for (const l of body) if (l.trim()) dedent = Math.min(dedent, indentOf(l));
  return { block: body.map((l) => (isFinite(dedent) ? l.slice(dedent) : l.trimStart())), end };
}

function blocks(lines: string[], ctx: Ctx): void {
  const { b } = ctx;
  let i = 0;
  let literalNext = false;
  while (i < lines.length) {
    const line = lines[i] ?? '';
    if (isBlank(line)) {
      i++;
      continue;
    }
    const ind = indentOf(line);
    if (ind > 0) {
      const { block, end } = indentedBlock(lines, i);
      if (literalNext) b.add('code', block.join('\n'));
      else blocks(block, ctx);
      literalNext = false;
      i = end;
      continue;
    }
    literalNext = false;
    const next = lines[i + 1] ?? '';
    const third = lines[i + 2] ?? '';

    // Section titles: overline + title + underline, or title + underline.
    const over = ADORN_RE.exec(line);
    if (over?.[1] && !isBlank(next) && ADORN_RE.exec(third)?.[1] === over[1] && third.trim().length >= next.trim().length) {
      heading(ctx, `o${over[1]}`, next.trim());
      i += 3;
      continue;
    }
    const under = ADORN_RE.exec(next);
    if (under?.[1] && !ADORN_RE.test(line) && next.trim().length >= Math.min(line.trim().length, 4)) {
      heading(ctx, under[1], line.trim());
      i += 2;
      continue;
    }
    if (over) {
      i++; // transition
      continue;
    }

    // Explicit markup: directives, comments, targets, substitution definitions.
    if (line.startsWith('..')) {
      const d = DIRECTIVE_RE.exec(line);
      const { block, end } = indentedBlock(lines, i + 1);
      if (d?.[1]) directive(d[1].toLowerCase(), d[2] ?? '', block, ctx);
      i = end;
      continue;
    }

    // Grid tables and simple tables: one row block per body row, under the header row's names.
    if (GRID_BORDER.test(line)) {
      const start = i;
      while (i < lines.length && !isBlank(lines[i]) && /^[+|]/.test(lines[i] ?? '')) i++;
      emitTable(ctx, gridTable(lines.slice(start, i)));
      continue;
    }
    if (SIMPLE_BORDER.test(line)) {
      const start = i;
      let borders = 0;
      while (i < lines.length) {
        const l = lines[i] ?? '';
        if (SIMPLE_BORDER.test(l)) borders++;
        i++;
        // The table ends at a border followed by a blank line (or the end), after its header border.
        if (SIMPLE_BORDER.test(l) && borders >= 2 && isBlank(lines[i])) break;
      }
      emitTable(ctx, simpleTable(lines.slice(start, i)));
      continue;
    }

    // Lists.
    const bullet = BULLET_RE.exec(line);
    const en = bullet ? null : ENUM_RE.exec(line);
    if (bullet || en) {
      i = listRun(lines, i, ctx);
      continue;
    }

    // Field lists.
    const field = FIELD_RE.exec(line);
    if (field?.[1]) {
      const { block, end } = indentedBlock(lines, i + 1);
      const value = oneLine(inline([field[2] ?? '', ...block].join('\n')));
      const name = field[1].trim();
      if (/^(title|language|lang)$/i.test(name)) {
        if (/^title$/i.test(name) && value) ctx.meta.title = value;
        else if (/^en\b/i.test(value)) ctx.meta.language = 'en';
        else if (/^zh\b/i.test(value)) ctx.meta.language = 'zh';
      } else if (value) b.add('definition', value, { term: name });
      i = end;
      continue;
    }

    // Definition list item: a term line directly followed by an indented definition.
    if (next && indentOf(next) > 0 && !isBlank(next)) {
      const { block, end } = indentedBlock(lines, i + 1);
      const firstPara = block.findIndex((l) => isBlank(l));
      const defLines = firstPara < 0 ? block : block.slice(0, firstPara);
      const term = oneLine(inline(line.replace(/\s+:\s+.*$/, '')));
      b.add('definition', oneLine(inline(defLines.join('\n'))) || term, { term });
      if (firstPara >= 0) blocks(block.slice(firstPara), ctx);
      i = end;
      continue;
    }

    // Paragraph.
    const para: string[] = [];
    // A directive written right under a paragraph line (no blank line between, as authors often do)
    // starts its own block: `.. note::` is never text of the paragraph above it.
    while (i < lines.length && !isBlank(lines[i]) && indentOf(lines[i] ?? '') === 0 && (para.length === 0 || !DIRECTIVE_RE.test(lines[i] ?? ''))) para.push(lines[i++] ?? '');
    let ptext = para.join('\n');
    if (/::$/.test(ptext)) {
      literalNext = true;
      ptext = ptext.replace(/\s*::$/, /\s::$/.test(ptext) || ptext === '::' ? '' : ':');
    }
    paragraph(ctx, inline(ptext));
  }
}

function heading(ctx: Ctx, style: string, title: string): void {
  let level = ctx.styles.indexOf(style);
  if (level < 0) level = ctx.styles.push(style) - 1;
  ctx.b.heading(Math.min(level + 1, 6), inline(title));
}

function paragraph(ctx: Ctx, text: string): void {
  const t = normalizeInline(text);
  const m = matchAdmonition(t);
  if (m) ctx.b.admonition(m.kind, admonitionText(m.label, oneLine(m.body)));
  else ctx.b.add('paragraph', oneLine(t));
}

/** A run of list items of the same kind; returns the index after the run. */
function listRun(lines: string[], start: number, ctx: Ctx): number {
  let i = start;
  let auto = 1;
  const kindOf = (l: string): string => {
    if (BULLET_RE.test(l)) return 'bullet';
    const e = ENUM_RE.exec(l);
    return e ? ((e[1] ?? e[3]) === '#' ? 'auto' : 'enum') : '';
  };
  const runKind = kindOf(lines[start] ?? '');
  while (i < lines.length) {
    const line = lines[i] ?? '';
    if (isBlank(line)) {
      // The list goes on if the next non-blank line is another item.
      let j = i;
      while (j < lines.length && isBlank(lines[j])) j++;
      const nx = lines[j] ?? '';
      if (j < lines.length && indentOf(nx) === 0 && kindOf(nx) === runKind) {
        i = j;
        continue;
      }
      return i;
    }
    if (indentOf(line) > 0) return i;
    const bullet = BULLET_RE.exec(line);
    const en = bullet ? null : ENUM_RE.exec(line);
    if ((!bullet && !en) || kindOf(line) !== runKind) return i;
    const marker = (bullet ?? en)?.[0] ?? '';
    const { block, end } = indentedBlock(lines, i + 1, marker.length);
    const firstLine = line.slice(marker.length);
    const blankAt = block.findIndex((l) => isBlank(l));
    const ownLines = [firstLine, ...(blankAt < 0 ? block : block.slice(0, blankAt))];
    // A nested list right under the first line belongs to the rest, not to the item text.
    const nestedAt = ownLines.findIndex((l, k) => k > 0 && (BULLET_RE.test(l) || ENUM_RE.test(l)));
    const own = nestedAt > 0 ? ownLines.slice(0, nestedAt) : ownLines;
    const rest = [...(nestedAt > 0 ? ownLines.slice(nestedAt) : []), ...(blankAt < 0 ? [] : block.slice(blankAt))];
    const text = oneLine(inline(own.join('\n')));
    if (en) {
      const label = en[1] ?? en[3] ?? '';
      const n = /^\d+$/.test(label) ? Number(label) : label === '#' ? auto : null;
      if (n !== null) {
        ctx.b.add('step', text, { stepNumber: n });
        auto = n + 1;
      } else ctx.b.add('list-item', text);
    } else {
      const m = matchAdmonition(text);
      if (m) ctx.b.admonition(m.kind, admonitionText(m.label, m.body));
      else ctx.b.add('list-item', text);
    }
    if (rest.some((l) => l.trim())) blocks(rest, ctx);
    i = end;
  }
  return i;
}

function directive(name: string, arg: string, content: string[], ctx: Ctx): void {
  const { b } = ctx;
  // Leading ":option: value" lines belong to the directive, not its content.
  let k = 0;
  const options: Record<string, string> = {};
  while (k < content.length && FIELD_RE.test(content[k] ?? '')) {
    const f = FIELD_RE.exec(content[k] ?? '');
    if (f?.[1]) options[f[1]] = f[2] ?? '';
    k++;
  }
  const body = content.slice(k);
  const kind = name === 'admonition' ? 'NOTE' : admonitionKind(name);
  if (kind && (name === 'admonition' || admonitionKind(name))) {
    const label = name === 'admonition' ? '' : kind;
    // Its text is what precedes the first directive in it; a code block or figure inside a note is
    // read as its own block (its markup never becomes part of the safety text shown word for word).
    const cut = body.findIndex((l) => /^\.\.\s/.test(l));
    const own = cut < 0 ? body : body.slice(0, cut);
    // A generic admonition's argument is its title ("Ubuntu, Raspbian"): "Title: text".
    const title = oneLine(inline(arg));
    const rest = oneLine(inline(own.join('\n')));
    const text = [!label && title && rest && !/[.:!?]$/.test(title) ? `${title}:` : title, rest].filter(Boolean).join(' ');
    if (text) b.admonition(kind, label ? admonitionText(label, text) : text);
    if (cut >= 0) blocks(body.slice(cut), ctx);
    return;
  }
  if (CODE_DIRECTIVES.has(name)) {
    b.code(body.join('\n'), name === 'parsed-literal' ? null : arg);
    return;
  }
  if (name === 'list-table') {
    listTable(arg, options, body, ctx);
    return;
  }
  if (name === 'csv-table') {
    csvTable(arg, options, body, ctx);
    return;
  }
  if (name === 'table') {
    // A titled table: the grid or simple table inside it is named after the title.
    blocks(body, { ...ctx, caption: arg || ctx.caption });
    return;
  }
  if (name === 'title' && arg) {
    ctx.meta.title = oneLine(inline(arg));
    return;
  }
  if (SKIP_DIRECTIVES.has(name) || name.includes(':')) return;
  // Unknown directive (topic, sidebar, container…): read its content as ordinary blocks.
  if (arg) b.add('paragraph', oneLine(inline(arg)));
  blocks(body, ctx);
}

function listTable(arg: string, options: Record<string, string>, body: string[], ctx: Ctx): void {
  const rows: string[][] = [];
  let row: string[] | null = null;
  let cell: string[] | null = null;
  const endCell = (): void => {
    if (row && cell) row.push(oneLine(inline(cell.join('\n'))));
    cell = null;
  };
  for (const line of body) {
    const rowStart = /^[*-]\s+[-*]\s+(.*)$/.exec(line);
    const cellStart = /^\s+[-*]\s+(.*)$/.exec(line);
    if (rowStart) {
      endCell();
      row = [];
      rows.push(row);
      cell = [rowStart[1] ?? ''];
    } else if (cellStart && row) {
      endCell();
      cell = [cellStart[1] ?? ''];
    } else if (cell && line.trim()) cell.push(line.trim());
  }
  endCell();
  const headerRows = Number.parseInt(options['header-rows'] ?? '0', 10) || 0;
  const columns = headerRows > 0 ? (rows[headerRows - 1] ?? []) : [];
  emitTable(ctx, { columns, rows: rows.slice(headerRows) }, arg);
}

const GRID_BORDER = /^\+[-=+]+\+$/;
const SIMPLE_BORDER = /^=+( +=+)+$/;

interface TableRows {
  columns: string[];
  rows: string[][];
}

/** Adds a table's body rows, named after its caption or the section it is in. */
function emitTable(ctx: Ctx, t: TableRows | null, caption = ''): void {
  if (!t) return;
  const name = oneLine(inline(caption || ctx.caption || '')) || ctx.b.currentHeading || ctx.fileStem;
  // A list-table or csv-table without :header-rows: whose first row names the columns.
  const [columns, rows] = t.columns.length === 0 && firstRowIsHeader(t.rows) ? [t.rows[0] as string[], t.rows.slice(1)] : [t.columns, t.rows];
  for (const cells of rows) ctx.b.row(name, columns, cells);
}

/** Cell text as a reader sees it (inline markup removed, one line). */
const cellText = (cells: string[]): string[] => cells.map((c) => oneLine(inline(c)));

/** Column names from a header of one or more rows (a name over two lines is joined). */
function headerNames(header: string[][], width: number): string[] {
  if (header.length === 0) return [];
  return cellText(Array.from({ length: width }, (_, c) => header.map((h) => h[c] ?? '').filter(Boolean).join(' ')));
}

/**
 * A grid table (`+---+---+` borders, `|` between cells, `+===+` under the header). A cell that spans
 * columns gives its text to the first of them; a cell spanning rows ends at the next border.
 */
function gridTable(lines: string[]): TableRows | null {
  const first = lines[0] ?? '';
  const bounds = [...first].flatMap((ch, k) => (ch === '+' ? [k] : []));
  if (bounds.length < 2) return null;
  const width = bounds.length - 1;
  const rows: string[][] = [];
  let header: string[][] = [];
  let current: string[][] | null = null;
  const close = () => {
    if (current) rows.push(current.map((parts) => parts.join(' ').trim()));
    current = null;
  };
  for (const line of lines.slice(1)) {
    if (GRID_BORDER.test(line) || /^[+|](?:[^|]*\+-{3,})/.test(line)) {
      close();
      if (line.includes('=')) {
        header = rows.splice(0, rows.length);
      }
      continue;
    }
    current ??= Array.from({ length: width }, () => [] as string[]);
    for (let c = 0; c < width; c++) {
      const from = (bounds[c] as number) + 1;
      // A cell spanning columns has no `|` at the next boundary: it runs to the next one that has.
      let to = c + 1;
      while (to < width && line[bounds[to] as number] !== '|') to++;
      const text = line.slice(from, bounds[to]).trim();
      if (text) current[c]?.push(text);
      c = to - 1;
    }
  }
  close();
  return { columns: headerNames(header, width), rows: rows.map(cellText) };
}

/**
 * A simple table (columns under `=====  =====` borders; a header between the first two borders when
 * a third follows). A row whose first column is blank continues the row above it.
 */
function simpleTable(lines: string[]): TableRows | null {
  const first = lines[0] ?? '';
  const starts = [...first.matchAll(/=+/g)].map((m) => m.index as number);
  if (starts.length < 2) return null;
  const borderAt = lines.flatMap((l, k) => (SIMPLE_BORDER.test(l) ? [k] : []));
  const headerEnd = borderAt.length >= 3 ? (borderAt[1] as number) : -1;
  const cut = (line: string) => starts.map((s, c) => line.slice(s, c + 1 < starts.length ? starts[c + 1] : undefined).trim());
  const header: string[][] = [];
  const rows: string[][] = [];
  lines.forEach((line, k) => {
    if (SIMPLE_BORDER.test(line) || isBlank(line) || /^[-\s]+$/.test(line)) return;
    const cells = cut(line);
    const into = headerEnd >= 0 && k < headerEnd ? header : rows;
    const last = into[into.length - 1];
    if (last && !cells[0] && into === rows) cells.forEach((t, c) => t && (last[c] = `${last[c] ?? ''} ${t}`.trim()));
    else into.push(cells);
  });
  return { columns: headerNames(header, starts.length), rows: rows.map(cellText) };
}

/** A csv-table directive's own content (a `:file:` table is its own file, read on its own). */
function csvTable(arg: string, options: Record<string, string>, body: string[], ctx: Ctx): void {
  const text = body.join('\n').trim();
  const header = options.header ? parseCsvLines(options.header, options.delim) : [];
  const records = text ? parseCsvLines(text, options.delim) : [];
  const headerRows = Number.parseInt(options['header-rows'] ?? '0', 10) || 0;
  const columns = header[0] ?? records[headerRows - 1] ?? [];
  emitTable(ctx, { columns: cellText(columns), rows: records.slice(headerRows).map(cellText) }, arg);
}

function parseCsvLines(text: string, delim?: string): string[][] {
  const delimiter = delim === 'tab' ? '\t' : delim === 'space' ? ' ' : (delim?.trim() || ',');
  try {
    return parseCsv(text, { delimiter, relax_column_count: true, relax_quotes: true, skip_empty_lines: true, trim: true }) as string[][];
  } catch {
    return text.split('\n').filter((l) => l.trim()).map((l) => l.split(delimiter).map((c) => c.trim()));
  }
}

/** Removes RST inline markup, keeping the text a reader sees. */
export function inline(text: string): string {
  return text
    // Typos docutils forgives in print: a role against the word before it ("with:code:`x`") reads
    // "with x", and a role with a space before its backquote (":ref: `x <y>`") is still a role.
    .replace(/(?<![:\w])(\w+)(:[\w+-]+(?::[\w+-]+)?:`)/g, '$1 $2')
    .replace(/(^|\s)(:[\w+-]+(?::[\w+-]+)?:)\s+`/gm, '$1$2`')
    .replace(/``(.+?)``/gs, '$1')
    .replace(/:[\w:+-]+:`([^`<]*?)\s*<[^`>]*>`/g, '$1')
    .replace(/:[\w:+-]+:`([^`]*)`/g, '$1')
    .replace(/`([^`<]*?)\s*<[^`>]*>`__?/g, '$1')
    .replace(/`([^`]+)`__?/g, '$1')
    .replace(/`([^`]+)`/g, '$1')
    .replace(/\*\*(.+?)\*\*/gs, '$1')
    .replace(/(^|[\s(])\*(\S(?:.*?\S)?)\*(?=[\s).,;:!?]|$)/gm, '$1$2')
    .replace(/\s*\[(?:#\w*|\*|\d+)\]_/g, '')
    .replace(/\|([^|\s][^|]*)\|_{0,2}/g, '$1')
    .replace(/(\w)__?(?=[\s.,;:!?)]|$)/g, '$1')
    .replace(/\\(.)/g, '$1');
}
