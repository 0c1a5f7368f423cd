import type { Block } from '../contract/document.js';
import { estimateTokens } from '../text/tokens.js';
import { LIMITS } from './limits.js';
import { blockText, definitionPrefix } from './normalize.js';
import { sentenceRanges } from './sentences.js';
import { splitOversize } from './split.js';

/** A block of a passage run, as it will read in a chunk. */
export interface RunBlock {
  block: Block;
  text: string;
  /** Index of the procedure this block belongs to, if any. */
  procedure: number | null;
}

/** The smallest piece the packer moves: a sentence of prose, or a whole step/item/code/admonition. */
export interface Unit {
  /** Index into the run's blocks. */
  block: number;
  start: number;
  end: number;
  tokens: number;
  /** A sentence of a prose paragraph (may be carried as overlap). */
  sentence: boolean;
  /** First unit of its block. */
  first: boolean;
}

/** Numbered steps that belong together, and the line that introduces them. */
export interface Procedure {
  firstStep: number;
  lastStep: number;
  /** The paragraph just before the first step (admonitions aside), if there is one. */
  intro: number | null;
}

/** Break costs between one unit and the next (see pack.ts). */
export const BREAK = {
  /** A block boundary with no reason to keep the two sides together. */
  free: 0,
  listItems: 1,
  steps: 2,
  /** Between two sentences of a paragraph (the next piece gets an overlap sentence). */
  sentence: 3,
  /** Between a paragraph and the code block or procedure it introduces, or the lower-case
   * paragraph that finishes its sentence after a code block. */
  introduces: 6,
  /** Never: an admonition and the block it warns about. */
  never: Number.POSITIVE_INFINITY,
} as const;

export interface Run {
  blocks: RunBlock[];
  units: Unit[];
  /** breakAfter[i]: cost of ending a chunk after units[i]. */
  breakAfter: number[];
  procedures: Procedure[];
}

/** Cuts a run of passage blocks (one section, no table rows) into units with break costs. */
export function buildRun(sourceBlocks: Block[]): Run {
  const blocks: RunBlock[] = [];
  for (const block of sourceBlocks) {
    const text = blockText(block);
    if (text) blocks.push({ block, text, procedure: null });
  }
  const procedures = findProcedures(blocks);
  const units: Unit[] = [];
  blocks.forEach((rb, b) => {
    for (const u of blockUnits(rb, b)) units.push(u);
  });
  const breakAfter = units.map((u, i) => breakCost(u, units[i + 1], blocks, procedures));
  return { blocks, units, breakAfter, procedures };
}

function blockUnits(rb: RunBlock, b: number): Unit[] {
  const { block, text } = rb;
  const prose = block.kind === 'paragraph' || block.kind === 'definition';
  const ranges: Array<[number, number]> = prose ? proseRanges(block, text) : [[0, text.length]];
  const units: Unit[] = [];
  for (const [s, e] of ranges) {
    const tokens = estimateTokens(text.slice(s, e));
    if (tokens <= LIMITS.hardCap) {
      units.push({ block: b, start: s, end: e, tokens, sentence: prose, first: false });
      continue;
    }
    for (const [ps, pe] of splitOversize(text, s, e, LIMITS.targetMax, block.kind === 'code')) {
      units.push({ block: b, start: ps, end: pe, tokens: estimateTokens(text.slice(ps, pe)), sentence: false, first: false });
    }
  }
  if (units[0]) units[0].first = true;
  return units;
}

/** Sentences of a paragraph; a definition's "term: " label stays on its first sentence. */
function proseRanges(block: Block, text: string): Array<[number, number]> {
  const prefix = definitionPrefix(block);
  const offset = prefix && text.startsWith(prefix) ? prefix.length : 0;
  const ranges = sentenceRanges(text.slice(offset)).map(([s, e]): [number, number] => [s + offset, e + offset]);
  if (offset > 0) {
    if (ranges[0]) ranges[0][0] = 0;
    else ranges.push([0, text.length]);
  }
  return ranges;
}

/**
 * Steps from the first to the last of a numbered sequence, with what lies between them.
 * A step numbered at or below the one before starts a new procedure.
 */
function findProcedures(blocks: RunBlock[]): Procedure[] {
  const procedures: Procedure[] = [];
  let current: Procedure | null = null;
  let lastNumber: number | undefined;
  blocks.forEach((rb, i) => {
    if (rb.block.kind !== 'step') return;
    const n = rb.block.stepNumber;
    const restart = current !== null && n !== undefined && lastNumber !== undefined && n <= lastNumber;
    if (current === null || restart) {
      current = { firstStep: i, lastStep: i, intro: introOf(blocks, i) };
      procedures.push(current);
    } else {
      current.lastStep = i;
    }
    lastNumber = n;
  });
  procedures.forEach((p, index) => {
    for (let i = p.firstStep; i <= p.lastStep; i++) blocks[i]!.procedure = index;
  });
  return procedures;
}

function introOf(blocks: RunBlock[], firstStep: number): number | null {
  let i = firstStep - 1;
  while (i >= 0 && blocks[i]!.block.kind === 'admonition') i--;
  if (i < 0) return null;
  const kind = blocks[i]!.block.kind;
  return kind === 'paragraph' || kind === 'definition' ? i : null;
}

function breakCost(u: Unit, next: Unit | undefined, blocks: RunBlock[], procedures: Procedure[]): number {
  if (!next) return BREAK.free;
  if (next.block === u.block) return BREAK.sentence;
  const cur = blocks[u.block]!;
  const nxt = blocks[next.block]!;
  if (cur.block.kind === 'admonition') return BREAK.never;
  const prose = cur.block.kind === 'paragraph' || cur.block.kind === 'definition';
  if (prose && nxt.block.kind === 'code') return BREAK.introduces;
  if (procedures.some((p) => p.intro === u.block)) return BREAK.introduces;
  // "…run:" [code] "and compile…": a paragraph opening in lower case continues the sentence.
  if (nxt.block.kind === 'paragraph' && /^\p{Ll}/u.test(nxt.text)) return BREAK.introduces;
  if (cur.procedure !== null && cur.procedure === nxt.procedure) return BREAK.steps;
  if (cur.block.kind === 'list-item' && nxt.block.kind === 'list-item') return BREAK.listItems;
  return BREAK.free;
}
