import { createHash } from 'node:crypto';
import type { Block, Chunk, ChunkKind, ParsedDocument } from '../contract/document.js';
import { detectLang } from '../text/lang.js';
import { tableRowText } from './normalize.js';
import { packRun, type Piece } from './pack.js';
import { buildRun, type Run } from './units.js';

export { LIMITS } from './limits.js';

/** Bump whenever the same document would chunk differently (sizes, rules, text format). */
export const CHUNKER_VERSION = 1;

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
  for (const section of sections(doc.blocks)) {
    let passage: Block[] = [];
    const flush = (): void => {
      if (passage.length > 0) drafts.push(...passageDrafts(passage));
      passage = [];
    };
    for (const block of section) {
      if (block.kind !== 'table-row') {
        passage.push(block);
        continue;
      }
      flush();
      const text = tableRowText(block);
      if (text) drafts.push({ text, kind: 'table-row', headingPath: [...block.headingPath], page: block.page });
    }
    flush();
  }
  return drafts.map((d, ordinal) => toChunk(d, ordinal, ctx));
}

/**
 * Runs of body blocks under one heading path. A heading block ends a section and is not
 * text of its own: its title lives in the headingPath of the blocks below it, so a heading
 * with no body yields nothing and its title shows in the next chunk's path.
 */
function sections(blocks: Block[]): Block[][] {
  const out: Block[][] = [];
  let current: Block[] = [];
  let key = '';
  for (const block of blocks) {
    if (block.kind === 'heading') {
      if (current.length > 0) out.push(current);
      current = [];
      continue;
    }
    const k = block.headingPath.join('\u0000');
    if (current.length > 0 && k !== key) {
      out.push(current);
      current = [];
    }
    key = k;
    current.push(block);
  }
  if (current.length > 0) out.push(current);
  return out;
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
    const text = run.blocks[unit.block]!.text.slice(unit.start, run.units[v]!.end);
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
