/**
 * A passage's structure, never its markup: the text the index holds (Markdown headings, lists, pipe
 * tables, fenced code; a CSV / `key=value` / `Col: val | Col: val` table row) is read into pieces the
 * UI renders as headings, lists, tables with their header, code blocks and labelled fields. Pure;
 * Markdown is read with `marked`'s lexer (no HTML is produced or injected).
 */
import { parse as parseCsv } from 'csv-parse/browser/esm/sync';
import { Lexer, type Token, type Tokens } from 'marked';

export type Piece =
  | { kind: 'heading'; level: number; text: string }
  | { kind: 'paragraph'; text: string }
  | { kind: 'list'; ordered: boolean; start: number; items: string[] }
  | { kind: 'table'; header: string[]; rows: string[][] }
  | { kind: 'code'; text: string }
  | { kind: 'fields'; fields: [string, string][] };

const PIPE_ROW = /^\s*\|.*\|\s*$/;
const PIPE_SEPARATOR = /^\s*\|?\s*:?-{2,}:?\s*(\|\s*:?-{2,}:?\s*)*\|?\s*$/;

/** Pieces of a passage; `tableRow` when the index says the text is one table row (with its header line). */
export function structure(text: string, opts: { tableRow?: boolean } = {}): Piece[] {
  const src = text
    .replace(/\r\n?/g, '\n')
    .trim()
    .split('\n')
    .map(citationsIntoRow)
    .join('\n');
  if (!src) return [];
  if (opts.tableRow || looksLikeCsvRow(src)) {
    const fields = rowFields(src);
    if (fields) return [{ kind: 'fields', fields }];
  }
  const pieces: Piece[] = [];
  for (const token of new Lexer({ gfm: true }).lex(withTableSeparators(withListEnds(src)))) pieces.push(...fromToken(token));
  return pieces;
}

const LIST_LINE = /^\s*(?:[-*+•]|\d{1,3}[.)])\s+\S/;
/** Where a sentence ends, before any citation marks after it ("…500 Hz. [1]"). */
const SENTENCE_END = /[.!?。！？:：)）]\s*(?:\[\d+(?:\s*[,–-]\s*\d+)*\]\s*)*$/;

/**
 * The index holds a passage a block a line, so a sentence that starts on the line after a list item's
 * finished sentence is the paragraph after the list ("After each change, run `kcfg save`…"), not more
 * of the item: Markdown would read it as the item's lazy continuation and show it inside the last item.
 * A blank line between them says so. Indented lines and lines that go on mid-sentence stay the item's.
 */
function withListEnds(src: string): string {
  const lines = src.split('\n');
  const out: string[] = [];
  let inItem = false;
  let fenced = false;
  for (const line of lines) {
    if (/^\s*(?:`{3,}|~{3,})/.test(line)) fenced = !fenced;
    const prev = out[out.length - 1] ?? '';
    if (!fenced && inItem && line.trim() !== '' && !/^\s/.test(line) && !LIST_LINE.test(line) && SENTENCE_END.test(prev) && /^[\p{Lu}\p{Lo}]/u.test(line)) {
      out.push('');
      inItem = false;
    }
    out.push(line);
    if (fenced) continue;
    if (LIST_LINE.test(line)) inItem = true;
    else if (line.trim() === '' || /^\s*#{1,6}\s/.test(line)) inItem = false;
  }
  return out.join('\n');
}

/**
 * A quoted CSV row with its header line (a citation does not say it is a table row): two lines, at
 * least three columns, a header of short names. Prose with commas does not look like this.
 */
export function looksLikeCsvRow(text: string): boolean {
  const lines = text.split('\n').filter((l) => l.trim());
  if (lines.length !== 2 || lines.some((l) => PIPE_ROW.test(l))) return false;
  const rows = csvRows(lines.join('\n'));
  if (!rows || rows.length !== 2) return false;
  const [head, row] = rows as [string[], string[]];
  return head.length >= 3 && head.length === row.length && head.every((h) => h.trim().length > 0 && h.length <= 40 && h.trim().split(/\s+/).length <= 4);
}

/**
 * A table row as labelled fields: a CSV header line + row line, `Col: val | Col: val`, `key=value`,
 * or a pipe-table header + row. Null when the text is none of these.
 */
export function rowFields(text: string): [string, string][] | null {
  const lines = text.split('\n').map((l) => l.trim()).filter((l) => l && !PIPE_SEPARATOR.test(l));
  if (lines.length === 2 && lines.every((l) => PIPE_ROW.test(l))) {
    const [head, row] = lines.map(pipeCells) as [string[], string[]];
    if (head.length === row.length) return zipFields(head, row);
  }
  if (lines.length === 2 && !lines.some((l) => PIPE_ROW.test(l))) {
    const rows = csvRows(lines.join('\n'));
    if (rows && rows.length === 2 && rows[0]!.length >= 2 && rows[0]!.length === rows[1]!.length) return zipFields(rows[0]!, rows[1]!);
  }
  if (lines.length === 1) {
    const line = lines[0]!;
    const labelled = line.split(/\s+\|\s+/).map((part) => /^([^:|]{1,60}):\s+(.+)$/.exec(part));
    if (labelled.length >= 2 && labelled.every(Boolean)) return labelled.map((m) => [m![1]!.trim(), m![2]!.trim()]);
    const kv = /^([A-Za-z0-9_.$-]{1,40})\s*=\s*(.+)$/.exec(line);
    if (kv) return [[kv[1]!, kv[2]!.trim()]];
  }
  return lines.length >= 2 ? fieldLines(lines) : null;
}

const FIELD_LINE = /^([^:|]{1,60}):\s+(.+)$/;

/**
 * A row with a multi-line cell, one `Col: val` field a line (a YAML item's `doc: |` text): a line
 * without a label continues the field above it, its line break kept. Null unless it starts with a field.
 */
function fieldLines(lines: string[]): [string, string][] | null {
  const fields: [string, string][] = [];
  for (const line of lines) {
    const m = FIELD_LINE.exec(line);
    if (m) fields.push([m[1]!.trim(), m[2]!.trim()]);
    else if (fields.length > 0) fields[fields.length - 1]![1] += `\n${line}`;
    else return null;
  }
  return fields.length >= 2 ? fields : null;
}

function zipFields(head: string[], row: string[]): [string, string][] {
  return head.map((h, i) => [h.trim(), (row[i] ?? '').trim()] as [string, string]).filter(([, v]) => v.length > 0);
}

function csvRows(text: string): string[][] | null {
  for (const delimiter of [',', ';', '\t']) {
    if (!text.split('\n')[0]!.includes(delimiter)) continue;
    try {
      return parseCsv(text, { delimiter, relax_quotes: true, relax_column_count: true, skip_empty_lines: true }) as string[][];
    } catch {
      // not this delimiter
    }
  }
  return null;
}

function pipeCells(line: string): string[] {
  return line
    .trim()
    .replace(/^\|/, '')
    .replace(/\|$/, '')
    .split(/(?<!\\)\|/)
    .map((c) => inlineText(c.trim()));
}

/** Citation marks after a pipe row's closing bar (`| 1000 h | 4.4 | [2]`) go into its last cell, so the line stays a row. */
function citationsIntoRow(line: string): string {
  const m = /^(\s*\|.*)\|\s*((?:\[\d+(?:\s*[,–-]\s*\d+)*\]\s*)+)$/.exec(line);
  return m ? `${m[1]!.trimEnd()} ${m[2]!.trim()} |` : line;
}

/**
 * Pipe rows quoted without their `|---|` line still read as a table. The index quotes a table row as
 * its header line, then the row (native/chunk/normalize.ts tableRowText), and an answer lists such rows
 * with the delimiter dropped: a first line that reads as column names (or repeats before later rows)
 * is the header. Rows from the middle of a table (codes, figures in the first line) get no header.
 */
function withTableSeparators(src: string): string {
  const lines = src.split('\n');
  const out: string[] = [];
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const startsBlock = PIPE_ROW.test(line) && !PIPE_ROW.test(lines[i - 1] ?? '');
    if (!startsBlock || PIPE_SEPARATOR.test(lines[i + 1] ?? '')) {
      out.push(line);
      continue;
    }
    let end = i + 1;
    while (end < lines.length && PIPE_ROW.test(lines[end]!)) end++;
    const rows = lines.slice(i + 1, end);
    const cells = pipeCells(line);
    const separator = `|${cells.map(() => ' --- ').join('|')}|`;
    if (isHeaderLine(line, rows)) {
      // The header once; the same line repeated before each later row (one row per citation) is dropped.
      out.push('', line, separator, ...rows.filter((r) => r.trim() !== line.trim()));
    } else {
      // No header line quoted: an empty header (dropped when read back), then the rows.
      out.push('', `|${cells.map(() => ' ').join('|')}|`, separator, line, ...rows);
    }
    i = end - 1;
  }
  return out.join('\n');
}

/** Whether a block's first pipe line is its header: it repeats before later rows, or its cells read as column names. */
function isHeaderLine(line: string, rows: string[]): boolean {
  if (rows.length === 0) return false;
  if (rows.some((r) => r.trim() === line.trim())) return true;
  const cells = pipeCells(line);
  return cells.every((c) => c.length > 0 && c.length <= 40 && c.split(/\s+/).length <= 4 && !/\d/.test(c));
}

function fromToken(token: Token): Piece[] {
  switch (token.type) {
    case 'heading':
      return [{ kind: 'heading', level: (token as Tokens.Heading).depth, text: plain((token as Tokens.Heading).tokens) }];
    case 'paragraph':
      return [{ kind: 'paragraph', text: plain((token as Tokens.Paragraph).tokens) }];
    case 'text':
      return [{ kind: 'paragraph', text: (token as Tokens.Text).tokens ? plain((token as Tokens.Text).tokens!) : (token as Tokens.Text).text }];
    case 'list': {
      const list = token as Tokens.List;
      return [{ kind: 'list', ordered: list.ordered, start: typeof list.start === 'number' ? list.start : 1, items: list.items.map((item) => plain(item.tokens).trim()) }];
    }
    case 'table': {
      const table = token as Tokens.Table;
      const header = table.header.map((c) => plain(c.tokens).trim());
      return [{ kind: 'table', header: header.some(Boolean) ? header : [], rows: table.rows.map((r) => r.map((c) => plain(c.tokens))) }];
    }
    case 'code':
      return [{ kind: 'code', text: (token as Tokens.Code).text }];
    case 'blockquote':
      return (token as Tokens.Blockquote).tokens.flatMap(fromToken);
    case 'html':
      return [{ kind: 'paragraph', text: (token as Tokens.HTML).text.trim() }];
    default:
      return [];
  }
}

/** Inline tokens as plain text: emphasis, code spans and links keep their words, lose their marks. */
function plain(tokens: Token[]): string {
  let out = '';
  for (const t of tokens) {
    if (t.type === 'br') out += '\n';
    else if (t.type === 'space') out += '\n';
    else if ('tokens' in t && Array.isArray(t.tokens) && t.tokens.length > 0) out += plain(t.tokens);
    else if (t.type === 'list') out += (t as Tokens.List).items.map((i) => plain(i.tokens)).join('\n');
    else if ('text' in t && typeof t.text === 'string') out += t.type === 'escape' || t.type === 'codespan' || t.type === 'text' ? decode(t.text) : t.text;
  }
  return out;
}

/** A one-line Markdown fragment (a table cell) as plain text. */
export function inlineText(s: string): string {
  return plain(Lexer.lexInline(s, { gfm: true }));
}

const ENTITIES: Record<string, string> = { '&amp;': '&', '&lt;': '<', '&gt;': '>', '&quot;': '"', '&#39;': "'" };
function decode(s: string): string {
  return s.replace(/&(amp|lt|gt|quot|#39);/g, (m) => ENTITIES[m] ?? m);
}
