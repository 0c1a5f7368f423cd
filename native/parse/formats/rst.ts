import type { ParsedDocument } from '../../contract/index.js';
import { DocBuilder, normalizeInline, oneLine } from '../builder.js';
import { admonitionKind, admonitionText, matchAdmonition } from '../text-utils.js';
import type { TextAdapterInput } from './types.js';

/*
 * A deliberately small reStructuredText reader (no library covers RST in Node): section titles
 * (underlined or over- and underlined), paragraphs, bullet and enumerated lists, definition and
 * field lists, literal blocks, admonition directives, code directives and list-tables. Grid and
 * simple tables are skipped with a warning.
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
  'highlight', 'sectnum', 'role', 'default-role', 'csv-table', 'table', 'math', 'autosummary', 'graphviz',
  'youtube', 'video', 'tabularcolumns', 'glossary', 'rubric',
]);

interface Ctx {
  b: DocBuilder;
  styles: string[];
  fileStem: string;
  meta: ParsedDocument['meta'];
}

export function parseRst({ text, fileStem }: TextAdapterInput): ParsedDocument {
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
  const dedent = Math.min(...body.filter((l) => l.trim()).map(indentOf), Infinity);
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

    // Grid tables and simple tables.
    if (/^\+[-=+]+\+$/.test(line)) {
      while (i < lines.length && !isBlank(lines[i])) i++;
      b.warn('A grid table was skipped (RST grid tables are not read); convert it to a list-table to make it searchable.');
      continue;
    }
    if (/^=+( +=+)+$/.test(line)) {
      i++;
      while (i < lines.length && !(/^=+( +=+)+$/.test(lines[i] ?? '') && isBlank(lines[i + 1]))) i++;
      i++;
      b.warn('A simple table was skipped (RST simple tables are not read); convert it to a list-table to make it searchable.');
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
    const text = oneLine(inline([arg, ...body].filter((l) => l !== undefined).join('\n')));
    b.admonition(kind, label ? admonitionText(label, text) : text);
    return;
  }
  if (CODE_DIRECTIVES.has(name)) {
    b.add('code', body.join('\n'));
    return;
  }
  if (name === 'list-table') {
    listTable(arg, options, body, ctx);
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
  const name = oneLine(inline(arg)) || ctx.b.currentHeading || ctx.fileStem;
  for (const r of rows.slice(headerRows)) ctx.b.row(name, columns, r);
}

/** Removes RST inline markup, keeping the text a reader sees. */
export function inline(text: string): string {
  return text
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
