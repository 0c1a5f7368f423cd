import type { Block } from '../contract/document.js';
import { columnLanguage, columnWithoutLanguage, isHanCode, productLanguage } from '../text/lang.js';
import { WRITTEN_LABEL } from '../text/labels.js';

/**
 * How each block reads inside a chunk. Wording is the manual's; only whitespace changes,
 * plus the labels a reader needs: step numbers ("3. "), admonition kinds ("WARNING: "),
 * definition terms ("term: ") and list bullets ("- ").
 */
export function blockText(block: Block): string {
  switch (block.kind) {
    case 'code':
      return normalizeCode(block.text);
    case 'step': {
      const body = normalizeLines(block.text);
      if (!body || block.stepNumber === undefined || /^\d+[.)]\s/.test(body)) return body;
      return `${block.stepNumber}. ${body}`;
    }
    case 'admonition': {
      const body = normalizeLines(block.text);
      const label = block.admonition ?? 'NOTE';
      if (!body) return '';
      // Manuals (and parsers) often write the label already ("Warning: …", "注意：…"): keep theirs.
      if (WRITTEN_LABEL.test(body)) return body;
      return `${label}: ${body}`;
    }
    case 'list-item': {
      const body = normalizeLines(block.text);
      if (!body || /^[-*•·▪◦‣]\s/.test(body)) return body;
      return `- ${body}`;
    }
    case 'definition': {
      const body = normalizeInline(block.text);
      const term = block.term ? normalizeInline(block.term) : '';
      if (!term) return body;
      return body && body !== term ? `${term}: ${body}` : term;
    }
    case 'table-row':
      return tableRowText(block);
    default:
      return normalizeInline(block.text);
  }
}

/** The label blockText puts before a definition's text ("term: "), else "". */
export function definitionPrefix(block: Block): string {
  if (block.kind !== 'definition' || !block.term) return '';
  const term = normalizeInline(block.term);
  return term && normalizeInline(block.text) !== term ? `${term}: ` : '';
}

/**
 * A row read from a text table is shown as the manual writes it: its header line, then the row
 * (`"9","Homing fail",…`, `P0301=Cylinder 1 Misfire Detected`, a YAML item). Otherwise
 * `Col1: val1 | Col2: val2`, empty cells skipped; a row without columns is its cells or text.
 */
export function tableRowText(block: Block): string {
  const raw = block.raw?.replace(/\s+$/, '');
  if (raw) {
    const header = block.rawHeader?.trim();
    return header ? `${header}\n${raw.replace(/^\n+/, '')}` : raw.replace(/^\n+/, '');
  }
  const cells = block.cells ?? [];
  const columns = block.columns ?? [];
  if (cells.length === 0) return normalizeInline(block.text);
  const parts: string[] = [];
  cells.forEach((raw, i) => {
    const cell = normalizeInline(raw);
    if (!cell) return;
    const col = normalizeInline(columns[i] ?? '');
    parts.push(col ? `${col}: ${cell}` : cell);
  });
  return parts.join(' | ');
}

/** How one language of a row reads: its language tag (`en`, `zh_cn`; null for an ordinary row) and text. */
export interface RowText {
  tag: string | null;
  text: string;
}

/**
 * The texts a table row is searched and shown as. An entry that holds its translations side by side
 * (`id | en.description | zh_CN.description | es.description …`, from `{"id": …, "en": {…},
 * "zh_CN": {…}}`) reads once per language the product speaks (English, Chinese): the columns that
 * carry no language, then that language's columns without their prefix (`id: 16 | description: … |
 * solution: …`). A passage in one language is what keyword search and the embedding model match
 * well; six languages run together match neither. Any other row reads as tableRowText says.
 */
export function tableRowTexts(block: Block): RowText[] {
  const whole = (): RowText[] => {
    const text = tableRowText(block);
    return text ? [{ tag: null, text }] : [];
  };
  const columns = block.columns ?? [];
  const cells = block.cells ?? [];
  // A per-language table: its columns carry two languages or more (a row may fill only one).
  if (new Set(columns.map(columnLanguage).filter((t) => t !== null)).size < 2) return whole();
  const present = [...new Set(columns.map((c, i) => (normalizeInline(cells[i] ?? '') ? columnLanguage(c) : null)).filter((t): t is string => t !== null))];
  // One tag per product language (zh_CN before a later zh_TW), in the row's order.
  const chosen: string[] = [];
  for (const tag of present) {
    const lang = productLanguage(tag);
    if (lang && !chosen.some((t) => productLanguage(t) === lang)) chosen.push(tag);
  }
  if (chosen.length === 0) return whole();
  return chosen.map((tag) => {
    const parts: string[] = [];
    columns.forEach((col, i) => {
      const t = columnLanguage(col);
      const cell = normalizeInline(cells[i] ?? '');
      if (!cell || (t !== null && t !== tag)) return;
      const name = normalizeInline(t === null ? col : columnWithoutLanguage(col));
      parts.push(name ? `${name}: ${cell}` : cell);
    });
    return { tag, text: parts.join(' | ') };
  });
}

/**
 * One line of prose: every whitespace run becomes one space, except a line break between two
 * Han characters, which disappears (Chinese has no spaces; a wrapped line is not a word gap).
 */
export function normalizeInline(text: string): string {
  if (!text.includes('\n')) return text.replace(/\s+/g, ' ').trim();
  return text
    .replace(/\s+/g, (ws, offset: number, whole: string) => {
      if (!ws.includes('\n')) return ' ';
      const before = whole.charCodeAt(offset - 1);
      const after = whole.charCodeAt(offset + ws.length);
      return isHanCode(before) && isHanCode(after) ? '' : ' ';
    })
    .trim();
}

/** Lines kept, whitespace collapsed within each line, blank lines dropped. */
export function normalizeLines(text: string): string {
  return text
    .split(/\r\n|\r|\n/)
    .map((line) => line.replace(/\s+/g, ' ').trim())
    .filter((line) => line.length > 0)
    .join('\n');
}

/** Code keeps its indentation; trailing spaces, outer blank lines and blank-line runs go. */
export function normalizeCode(text: string): string {
  const lines = text.split(/\r\n|\r|\n/).map((line) => line.replace(/\s+$/, ''));
  while (lines.length > 0 && lines[0] === '') lines.shift();
  while (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
  const out: string[] = [];
  for (const line of lines) {
    if (line === '' && out[out.length - 1] === '') continue;
    out.push(line);
  }
  return out.join('\n');
}

/**
 * A code block as a passage shows it: fenced (```` ``` ````, longer when the code itself holds a
 * backtick run), so the answer builder and the viewer know where code starts and ends.
 */
export function fenceCode(code: string, lang?: string): string {
  const longest = Math.max(2, ...[...code.matchAll(/^\s*(`{3,})/gm)].map((m) => (m[1] as string).length));
  const fence = '`'.repeat(longest + 1 > 3 ? longest + 1 : 3);
  return `${fence}${lang ?? ''}\n${code}\n${fence}`;
}

/**
 * A heading as a passage shows it: the manual's own Markdown line (`### 4.1 Spindle warm-up`),
 * else `#` × level and the title (RST, AsciiDoc, HTML, DOCX, PDF headings), so every format's heading
 * reads as a heading and never as its source markup (`== Title`, an underline).
 */
export function headingLine(block: Block): string {
  const raw = block.raw?.replace(/\s+/g, ' ').trim();
  if (raw && /^#{1,6}\s/.test(raw)) return raw;
  const title = normalizeInline(block.text);
  if (!title) return '';
  return `${'#'.repeat(Math.min(Math.max(block.level ?? 1, 1), 6))} ${title}`;
}
