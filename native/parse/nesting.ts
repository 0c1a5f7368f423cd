/**
 * How deep a text format's blocks nest, measured on the raw text in one linear pass, before the
 * format's parser sees it. The parsers' cost grows much faster than the text with nesting (marked:
 * 600 nested list levels in 0.4 MB take 7 s; 5,000 abort the process), so a file nested past the cap
 * (limits.ts, MANUALDESK_MAX_NESTING) is refused before parsing. The measures are close to what the
 * parsers build, never far below it for a hostile file: a line that may continue a paragraph
 * ("lazy") does not close anything.
 */

/** Column width of leading whitespace, tabs to the next multiple of `tab`; and the offset after it. */
function leading(line: string, from: number, col: number, tab: number): { pos: number; col: number } {
  let pos = from;
  for (; pos < line.length; pos++) {
    const ch = line.charCodeAt(pos);
    if (ch === 0x20) col++;
    else if (ch === 0x09) col += tab - (col % tab);
    else break;
  }
  return { pos, col };
}

const LIST_MARKER = /^(?:[-*+]|\d{1,9}[.)])(?=[ \t]|$)/;
const FENCE = /^(`{3,}|~{3,})/;

/**
 * Markdown (CommonMark/GFM): the most lists and block quotes open at once on any line. Lists nest
 * by indentation or by markers on one line (`- - - item`); quotes by `>` markers; fenced code is
 * not looked into.
 */
export function markdownNestingDepth(text: string): number {
  /** Content column of each open list item. */
  const items: number[] = [];
  let fence: { mark: string; col: number; quotes: number } | null = null;
  let prevBlank = true;
  let max = 0;
  let start = 0;
  while (start <= text.length) {
    let end = text.indexOf('\n', start);
    if (end < 0) end = text.length;
    const line = text.slice(start, end);
    start = end + 1;

    // Block quote markers first: each `>` opens one level on this line.
    let quotes = 0;
    let at = leading(line, 0, 0, 4);
    while (line.charCodeAt(at.pos) === 0x3e) {
      quotes++;
      at = leading(line, at.pos + 1, 0, 4);
    }
    const blank = at.pos >= line.length || /^\s*$/.test(line.slice(at.pos));
    if (blank) {
      prevBlank = true;
      continue;
    }
    const rest = line.slice(at.pos);
    if (fence) {
      // Fenced code ends at its closing fence, or where its container ends (less indented, fewer quotes).
      if (rest.startsWith(fence.mark) && /^(?:`+|~+)\s*$/.test(rest)) {
        fence = null;
        prevBlank = false;
        continue;
      }
      if ((fence.col > 0 && at.col < fence.col) || quotes < fence.quotes) fence = null;
      else continue;
    }
    const marker = LIST_MARKER.test(rest);
    // A line that may continue a paragraph closes no list; others close the items indented past them.
    if (marker || prevBlank) while (items.length > 0 && (items[items.length - 1] as number) > at.col) items.pop();
    let pos = at.pos;
    let col = at.col;
    for (;;) {
      const m = LIST_MARKER.exec(line.slice(pos, pos + 11));
      if (m) {
        const after = leading(line, pos + m[0].length, col + m[0].length, 4);
        const gap = after.col - col - m[0].length;
        items.push(gap >= 1 && gap <= 4 ? after.col : col + m[0].length + 1);
        pos = after.pos;
        col = after.col;
        continue;
      }
      if (line.charCodeAt(pos) === 0x3e) {
        quotes++;
        const after = leading(line, pos + 1, col + 1, 4);
        pos = after.pos;
        col = after.col;
        continue;
      }
      break;
    }
    const f = FENCE.exec(line.slice(pos));
    if (f) fence = { mark: f[1] as string, col, quotes };
    max = Math.max(max, items.length + quotes);
    prevBlank = false;
  }
  return max;
}

/**
 * Formats that nest by indentation (reStructuredText block quotes, list and directive bodies; YAML
 * block mappings and sequences): the most indentation levels open at once. Tabs count as 8 columns,
 * as the RST reader reads them.
 */
export function indentNestingDepth(text: string): number {
  const levels: number[] = [];
  let max = 0;
  let start = 0;
  while (start <= text.length) {
    let end = text.indexOf('\n', start);
    if (end < 0) end = text.length;
    const line = text.slice(start, end);
    start = end + 1;
    const at = leading(line, 0, 0, 8);
    if (at.pos >= line.length || /^\s*$/.test(line.slice(at.pos))) continue;
    while (levels.length > 0 && (levels[levels.length - 1] as number) > at.col) levels.pop();
    if (at.col > 0 && (levels.length === 0 || (levels[levels.length - 1] as number) < at.col)) levels.push(at.col);
    max = Math.max(max, levels.length);
  }
  return max;
}

/** Delimiters of AsciiDoc blocks whose content is not parsed (listing, literal, passthrough, comment). */
const ADOC_VERBATIM = /^(?:-{4,}|\.{4,}|\+{4,}|\/{4,})$/;
const ADOC_DELIMITER = /^(?:={4,}|\*{4,}|-{4,}|\.{4,}|_{4,}|\+{4,}|\/{4,}|--|[|!,:]={3,})$/;

/**
 * AsciiDoc: the most delimited blocks open at once (example, sidebar, quote, open blocks and tables
 * nest by using delimiters of other lengths or kinds). List depth is bounded by Asciidoctor itself
 * (five marker levels per kind).
 */
export function asciidocNestingDepth(text: string): number {
  const open: string[] = [];
  let max = 0;
  let start = 0;
  while (start <= text.length) {
    let end = text.indexOf('\n', start);
    if (end < 0) end = text.length;
    const line = text.slice(start, end).trimEnd();
    start = end + 1;
    if (!ADOC_DELIMITER.test(line)) continue;
    const top = open[open.length - 1];
    if (top !== undefined && ADOC_VERBATIM.test(top)) {
      if (top === line) open.pop();
      continue;
    }
    // A block ends at the first line equal to its delimiter, closing the blocks opened inside it.
    const at = open.lastIndexOf(line);
    if (at >= 0) open.length = at;
    else open.push(line);
    max = Math.max(max, open.length);
  }
  return max;
}
