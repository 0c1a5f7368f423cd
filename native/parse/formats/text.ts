import type { ParsedDocument } from '../../contract/index.js';
import { DocBuilder, oneLine } from '../builder.js';
import { firstRowIsHeader } from '../table-header.js';
import { admonitionText, matchAdmonition } from '../text-utils.js';
import type { TextAdapterInput } from './types.js';

const STEP_RE = /^\s*(\d{1,3})[.)]\s+(?=\S)/;
/** "Step 3: Join the pieces" — kept verbatim, numbered 3. */
const STEP_WORD_RE = /^\s*(?:Step|STEP|步骤|第)\s*(\d{1,3})\s*(?:步)?\s*[:.：)]/;
const BULLET_RE = /^\s*(?:[-*•●▪◦]|\u2022)\s+(?=\S)/;
const NUMBERED_HEADING_RE = /^(\d{1,2}(?:\.\d{1,3})+)\.?\s+(\S.*)$/;
const UNDERLINE_RE = /^([=\-~^*#])\1{2,}\s*$/;

/**
 * Plain text: paragraphs split on blank lines; short ALL-CAPS lines, numbered titles ("1.2 Title")
 * and underlined lines become headings; "WARNING:" etc. start admonitions; "1." / "1)" lines are
 * steps and "-"/"*"/"•" lines list items.
 */
export function parseText({ text, fileStem }: TextAdapterInput): ParsedDocument {
  const b = new DocBuilder('text');
  const lines = text.replace(/\r\n?/g, '\n').replace(/\f/g, '\n\n').split('\n');
  let para: string[] = [];
  let label: string | null = null;
  const flushPara = (): void => {
    if (!para.length) return;
    const only = para.length === 1 ? (para[0] ?? '').trim() : '';
    const adm = only ? matchAdmonition(only, true) : null;
    if (adm && !adm.body.trim() && label === null) {
      // A label on its own line ("WARNING") introduces the next paragraph.
      label = adm.label;
    } else {
      if (label !== null) para[0] = `${label}: ${(para[0] ?? '').trim()}`;
      label = null;
      emitParagraph(b, para, fileStem);
    }
    para = [];
  };
  const underlineLevels: string[] = [];
  for (let i = 0; i < lines.length; i++) {
    const line = (lines[i] ?? '').replace(/\s+$/, '');
    if (!line.trim()) {
      flushPara();
      continue;
    }
    const next = lines[i + 1] ?? '';
    const u = UNDERLINE_RE.exec(next.trim());
    if (para.length === 0 && u?.[1] && line.trim().length <= 100 && next.trim().length >= Math.min(line.trim().length, 3)) {
      let level = underlineLevels.indexOf(u[1]);
      if (level < 0) level = underlineLevels.push(u[1]) - 1;
      b.heading(level + 1, line.trim());
      i++;
      continue;
    }
    para.push(line);
  }
  flushPara();
  if (label !== null) emitParagraph(b, [label], fileStem);
  return b.finish({});
}

function headingLevel(line: string, alone: boolean): number | null {
  const t = line.trim();
  if (!alone || t.length > 80 || /[.:;,!?]$/.test(t) || matchAdmonition(t, true)) return null;
  const num = NUMBERED_HEADING_RE.exec(t);
  if (num?.[1] && /^\p{Lu}/u.test(num[2] ?? '')) return Math.min(6, num[1].split('.').length);
  const letters = t.replace(/[^\p{L}]/gu, '');
  if (letters.length >= 3 && letters === letters.toUpperCase() && /\p{Lu}/u.test(letters) && t.split(/\s+/).length <= 10) return 1;
  return null;
}

/** A blank-line separated paragraph: heading, admonition, steps/list items, or running text. */
function emitParagraph(b: DocBuilder, lines: string[], fileStem: string): void {
  const first = lines[0] ?? '';
  const level = headingLevel(first, lines.length === 1);
  if (level) {
    b.heading(level, first.trim());
    return;
  }
  // A heading line directly followed by its text (no blank line in between).
  const lead = lines.length > 1 ? headingLevel(first, true) : null;
  if (lead && !STEP_RE.test(first)) {
    b.heading(lead, first.trim());
    lines = lines.slice(1);
  }
  const table = alignedTable(lines);
  if (table) {
    const header = firstRowIsHeader(table) ? (table.shift() as string[]) : [];
    const name = b.currentHeading || fileStem;
    for (const cells of table) b.row(name, header, cells);
    return;
  }
  // Split the paragraph where steps, bullets or admonitions start.
  let cur: string[] = [];
  const flush = (): void => {
    if (cur.length) emitUnit(b, cur.join('\n'));
    cur = [];
  };
  for (const line of lines) {
    if (cur.length && (STEP_RE.test(line) || STEP_WORD_RE.test(line) || BULLET_RE.test(line) || matchAdmonition(line.trim(), false))) flush();
    cur.push(line);
  }
  flush();
}

/** Columns of a plain-text table are set apart by two or more spaces or a tab. */
const COLUMN_GAP = / {2,}|\t+/g;
/** How far (characters) a column may start from where the same column starts on the other lines. */
const COLUMN_SLACK = 2;

/**
 * The cells of a plain-text table, or null: a paragraph of two or more lines, each cut by wide gaps
 * into the same number (two or more) of cells that start at the same places on every line ("E01  Overheat
 * Let the unit cool down"). Prose never lines up so; a tab-separated line is taken as it comes.
 */
function alignedTable(lines: string[]): string[][] | null {
  if (lines.length < 2) return null;
  const rows: { cells: string[]; starts: number[] }[] = [];
  for (const line of lines) {
    const cells: string[] = [];
    const starts: number[] = [];
    let pos = line.length - line.trimStart().length;
    for (const m of line.trimEnd().matchAll(COLUMN_GAP)) {
      if (m.index < pos) continue;
      cells.push(line.slice(pos, m.index));
      starts.push(pos);
      pos = m.index + m[0].length;
    }
    cells.push(line.trimEnd().slice(pos));
    starts.push(pos);
    rows.push({ cells, starts });
  }
  const width = rows[0]?.cells.length ?? 0;
  if (width < 2 || rows.some((r) => r.cells.length !== width)) return null;
  const tabbed = lines.every((l) => l.includes('\t'));
  if (!tabbed) {
    for (let k = 1; k < width; k++) {
      const at = rows.map((r) => r.starts[k] as number);
      if (Math.max(...at) - Math.min(...at) > COLUMN_SLACK) return null;
    }
  }
  return rows.map((r) => r.cells.map((c) => c.trim()));
}

function emitUnit(b: DocBuilder, raw: string): void {
  const text = raw.trim();
  const adm = matchAdmonition(text, true);
  if (adm) {
    b.admonition(adm.kind, admonitionText(adm.label, oneLine(adm.body)));
    return;
  }
  const step = STEP_RE.exec(text);
  if (step) {
    b.add('step', oneLine(text.slice(step[0].length)), { stepNumber: Number(step[1]) });
    return;
  }
  const stepWord = STEP_WORD_RE.exec(text);
  if (stepWord) {
    b.add('step', oneLine(text), { stepNumber: Number(stepWord[1]) });
    return;
  }
  const bullet = BULLET_RE.exec(text);
  if (bullet) {
    b.add('list-item', oneLine(text.slice(bullet[0].length)));
    return;
  }
  b.add('paragraph', oneLine(text));
}
