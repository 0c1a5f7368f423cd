import type { Block } from '../contract/document.js';
import { isHanCode } from '../text/lang.js';

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
      // Some manuals already write the label ("Warning: …"); do not say it twice.
      if (body.toUpperCase().startsWith(label) && !/\p{L}/u.test(body.charAt(label.length))) return body;
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
      return body ? `${term}: ${body}` : term;
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
  return term ? `${term}: ` : '';
}

/** `Col1: val1 | Col2: val2`, empty cells skipped; a row without columns is its cells or text. */
export function tableRowText(block: Block): string {
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

/**
 * One line of prose: every whitespace run becomes one space, except a line break between two
 * Han characters, which disappears (Chinese has no spaces; a wrapped line is not a word gap).
 */
export function normalizeInline(text: string): string {
  return text
    .replace(/[\s\u00a0\u3000]+/g, (ws, offset: number, whole: string) => {
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
    .map((line) => line.replace(/[\s\u00a0\u3000]+/g, ' ').trim())
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
