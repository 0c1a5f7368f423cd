import { createHash } from 'node:crypto';
import type { Block, Chunk, ChunkKind, ParsedDocument } from '../contract/document.js';
import { detectLang } from '../text/lang.js';
import { fenceCode, headingLine, tableRowTexts } from './normalize.js';
import { packRun, type Piece } from './pack.js';
import { buildRun, type Run } from './units.js';
import { countTokens } from '../text/tokens.js';

export { LIMITS } from './limits.js';

/**
 * Bump whenever the same document would chunk differently (sizes, rules, text format), or its fault
 * codes would read differently. 3: invisible format characters dropped everywhere; code-table action
 * lists read "Actions: Reset MMU, …". 4: code blocks fenced with ```, headings of every format read
 * as `#` × level + title (Markdown's own line kept). 5: passages are embedded with their manual title
 * and section path (native/embed/passage-text.ts), so every vector changes. 6: a table row that holds
 * its translations side by side (`en.description`, `zh_CN.description`) is one passage per language.
 * 7: reStructuredText grid, simple and csv-table tables are read (they were skipped), and a directive
 * inside a note is its own block. 8: a Markdown admonition whose label the manual writes itself keeps
 * its line as written ("**WARNING: … freely.**"). 9: a MkDocs content tab (`=== "Python"`) is its label
 * and its body read as Markdown (its code was one indented block with the fence lines in it), and a
 * code block's fence names the language the manual gives it (```python). 10: a JSON or YAML example in a
 * code block (an interface's example error response) gives the code records its rows define, and a table
 * with a remedy column is read as a fault table. 11: the rows of a YAML file whose quoted texts had to be
 * mended quote their records from the first character (they began a few characters late: `ode: "XX307"`),
 * and a code table's note column (Note, Remarks, 备注) is kept as the record's detail, not dropped or
 * run into its title. 12: letter-spaced Chinese in a PDF (character spacing after every glyph, which
 * pdf.js writes as spaces) is read as words, not as single characters; a table whose first row
 * names its columns without being marked as a header (AsciiDoc, HTML/DOCX, RST list-table) reads it
 * as the header. 13: a plain-text table whose columns line up is read as a table; code records from
 * hexadecimal codes (`0x1A`), a code's bracketed second form (`ERR_OVERCURRENT (0x04)`) as its alias,
 * labels in Markdown emphasis (`**Cause:**`) and two labels in one paragraph, a numbered code table
 * with the family of its heading ("Alarm codes"), `W-2001 Fan speed low` headings in an error
 * section; a unit of time after a number ("100 ms.") ends a sentence. 14: a page without a title of its
 * own (a wiki page, an untitled PDF) has its file-name title as the root of every heading path
 * (parse/index.ts withTitleHeading); two tables of one section are read as two. 15: a YAML file
 * with a syntax error is read but for the lines of the error; PascalCase error flags of an interface
 * definition (`error: flags: InvalidState:`) and one-word ids of an error enumeration are records;
 * a code block's numbered lines are not; `**13: Hard Stop** text` and `Alarm 9 (Homing Fail)` give
 * the name apart from the text; an interface's documented attributes are rows of their own; JSON
 * with trailing commas is read; Wiki.js callouts are admonitions, its sized images are images, and
 * heading attribute lists (`{#id}`) are not heading words; a record's fields keep a multiplication's
 * asterisk and lose a code block's fence lines. 16: a PDF whose title is a writer's placeholder
 * ("(anonymous)", "Document1") is read as untitled; an RST role typed against the word before it
 * (`with:code:\`x\``) or with a space before its text (`:ref: \`x <y>\``) reads as its words. 17: a
 * section that only leads in to its subsections (a heading and a short paragraph) opens its first
 * subsection's passage instead of being a passage of its own. 18: a title that names no manual (a
 * contents heading, a link's words) is not the manual's name, and a README is named with its product
 * folder (parse/titles.ts).
 */
export const CHUNKER_VERSION = 18;

export interface ChunkContext {
  /** Path relative to the ingested root, forward slashes. */
  file: string;
  /** Manual title. */
  manual: string;
}

interface Draft {
  text: string;
  kind: ChunkKind;
  headingPath: string[];
  page: number | null;
}

/**
 * Cuts a parsed document into chunks that follow its structure: never across sections, never
 * inside a sentence, step, list item, table row or code block; 200–500 tokens where the
 * section allows; one chunk per table row. Pure and deterministic (ids included).
 */
export function chunkDocument(doc: ParsedDocument, ctx: ChunkContext): Chunk[] {
  const drafts: Draft[] = [];
  const all = sections(doc.blocks);
  // A lead-in (a heading and a line or two before its first subsection) opens that subsection's passage.
  let leadIn = '';
  for (const [i, section] of all.entries()) {
    let passage: Block[] = [];
    // The section's heading line opens its first passage, as the manual prints it.
    let headingLine = [leadIn, section.heading ? headingText(section.heading) : ''].filter(Boolean).join('\n');
    leadIn = '';
    const next = all[i + 1];
    if (next && isLeadIn(section, next)) {
      leadIn = [headingLine, ...passageDrafts(section.blocks).map((d) => d.text)].join('\n');
      continue;
    }
    const flush = (): void => {
      if (passage.length > 0) {
        const pieces = passageDrafts(passage);
        if (headingLine && pieces[0]) pieces[0].text = `${headingLine}\n${pieces[0].text}`;
        headingLine = '';
        drafts.push(...pieces);
      }
      passage = [];
    };
    for (const block of section.blocks) {
      if (block.kind !== 'table-row') {
        passage.push(block);
        continue;
      }
      flush();
      // An entry with its translations side by side gives one passage per language.
      for (const { text } of tableRowTexts(block)) drafts.push({ text, kind: 'table-row', headingPath: [...block.headingPath], page: block.page });
    }
    flush();
  }
  return drafts.map((d, ordinal) => toChunk(d, ordinal, ctx));
}

interface Section {
  /** The heading block that opened this section, when it directly precedes the body. */
  heading: Block | null;
  blocks: Block[];
}

/** A lead-in is at most this long (countTokens units): "If you get the timeout, here are ways to resolve it:". */
export const LEAD_IN_MAX_TOKENS = 40;

/**
 * A section that only introduces its subsections: a heading, then a short paragraph or two, then a
 * deeper heading on the same page ("## Fixes / If you get the timeout here are ways to resolve it: /
 * ### Disable or extend the timeout duration …"). On its own it is a passage that says nothing, and
 * BM25 ranks such short passages high; it opens its first subsection's passage instead.
 */
function isLeadIn(section: Section, next: Section): boolean {
  if (!section.heading || !next.heading) return false;
  if (!section.blocks.every((b) => b.kind === 'paragraph')) return false;
  if (next.blocks[0]?.kind === 'table-row') return false;
  const path = section.blocks[0]!.headingPath;
  const nextPath = next.blocks[0]!.headingPath;
  if (nextPath.length <= path.length || !path.every((t, j) => nextPath[j] === t)) return false;
  if ((section.blocks[0]!.page ?? null) !== (next.blocks[0]!.page ?? null)) return false;
  return countTokens(section.blocks.map((b) => b.text).join(' ')) <= LEAD_IN_MAX_TOKENS;
}

/**
 * Runs of body blocks under one heading path (and on one page). A heading block ends a section; its line opens
 * the section's first passage (and its title is in the headingPath of every block below it), so a
 * heading with no body yields nothing and its title shows in the next chunk's path.
 */
function sections(blocks: Block[]): Section[] {
  const out: Section[] = [];
  let current: Block[] = [];
  let heading: Block | null = null;
  let pendingHeading: Block | null = null;
  let key = '';
  const push = (): void => {
    if (current.length > 0) out.push({ heading, blocks: current });
    current = [];
    heading = null;
  };
  for (const block of blocks) {
    if (block.kind === 'heading') {
      push();
      pendingHeading = block;
      continue;
    }
    // A passage never spans two pages: a citation names one page.
    const k = `${block.headingPath.join('\u0000')}\u0001${block.page ?? ''}`;
    if (current.length > 0 && k !== key) push();
    if (current.length === 0) {
      heading = pendingHeading;
      pendingHeading = null;
    }
    key = k;
    current.push(block);
  }
  push();
  return out;
}

/** A heading as the manual writes it in Markdown (`### 4.1 Spindle warm-up`), else `#` × level and its title. */
function headingText(block: Block): string {
  return headingLine(block);
}

function passageDrafts(blocks: Block[]): Draft[] {
  const run = buildRun(blocks);
  const headingPath = blocks[0]!.headingPath;
  const heading = headingPath[headingPath.length - 1] ?? null;
  return packRun(run, heading).map((piece) => {
    const firstBlock = run.blocks[run.units[piece.first]!.block]!.block;
    return { text: renderPiece(run, piece), kind: 'passage', headingPath: [...headingPath], page: firstBlock.page };
  });
}

/** Blocks on their own lines; consecutive sentences of one block read as the manual wrote them. */
function renderPiece(run: Run, piece: Piece): string {
  const lines: string[] = [];
  if (piece.context) lines.push(piece.context);
  const startUnit = piece.overlap ? piece.first - 1 : piece.first;
  let u = startUnit;
  while (u <= piece.last) {
    const unit = run.units[u]!;
    let v = u;
    while (v + 1 <= piece.last && run.units[v + 1]!.block === unit.block) v++;
    const rb = run.blocks[unit.block]!;
    const slice = rb.text.slice(unit.start, run.units[v]!.end);
    // A code block (or the part of a long one in this chunk) is fenced, so it reads as code.
    const text = rb.block.kind === 'code' ? fenceCode(slice.replace(/^\n+|\n+$/g, ''), rb.block.codeLang) : slice;
    // A definition continued from the previous chunk reads "term: rest…" on one line.
    if (u === startUnit && piece.context && piece.contextInline) {
      lines[0] = `${piece.context} ${text}`;
    } else {
      lines.push(text);
    }
    u = v + 1;
  }
  return lines.join('\n');
}

function toChunk(d: Draft, ordinal: number, ctx: ChunkContext): Chunk {
  const contentHash = sha256(d.text);
  return {
    id: sha256(`${ctx.file}\n${ordinal}\n${contentHash}`).slice(0, 32),
    file: ctx.file,
    page: d.page,
    headingPath: d.headingPath,
    section: d.headingPath.join(' > '),
    text: d.text,
    kind: d.kind,
    lang: detectLang(d.text),
    manual: ctx.manual,
    contentHash,
    chunkerVersion: CHUNKER_VERSION,
    ordinal,
  };
}

function sha256(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}
