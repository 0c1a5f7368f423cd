import { estimateTokens } from '../text/tokens.js';
import { LIMITS } from './limits.js';
import { definitionPrefix } from './normalize.js';
import type { Run } from './units.js';

/** One chunk of a run: units [first, last], and what it repeats from before it. */
export interface Piece {
  first: number;
  last: number;
  /** The intro line (or heading) of the procedure this piece continues, if any, or the term
   * of the definition it continues. */
  context: string | null;
  /** The context shares the first line ("term: rest of the definition") instead of its own. */
  contextInline: boolean;
  /** The piece starts with the previous sentence of a split paragraph. */
  overlap: boolean;
}

/** Cost of each chunk, so the packer prefers fewer chunks of useful size. */
const PER_CHUNK = 1;
/** Cost of a chunk at size 0, falling to 0 at LIMITS.targetMin (quadratically). */
const SMALL_PENALTY = 4;

/**
 * Splits a run into chunks by dynamic programming over break points: minimise the sum of
 * break costs (a paragraph cut between sentences costs more than a cut between blocks; an
 * admonition can never be cut from what follows it) plus a cost per chunk and a penalty for
 * chunks under the target minimum, with every chunk of more than one group under targetMax.
 * A single group larger than that (a long code block, a warning with its step) stands alone.
 */
export function packRun(run: Run, heading: string | null): Piece[] {
  const { units, breakAfter } = run;
  if (units.length === 0) return [];
  // Groups: units tied by an unbreakable link (an admonition and what follows it).
  const groupStart: number[] = [];
  for (let i = 0; i < units.length; i++) {
    if (i === 0 || breakAfter[i - 1] !== Number.POSITIVE_INFINITY) groupStart.push(i);
  }
  const m = groupStart.length;
  const startOf = (g: number): number => groupStart[g]!;
  const endOf = (g: number): number => (g + 1 < m ? groupStart[g + 1]! : units.length) - 1;
  const prefix = [0];
  for (let i = 0; i < units.length; i++) prefix.push(prefix[i]! + units[i]!.tokens);

  const contexts = new Map<number, Context | null>();
  const contextOf = (u: number): Context | null => {
    if (!contexts.has(u)) contexts.set(u, continuationContext(run, u, heading));
    return contexts.get(u) ?? null;
  };
  const overlapTokens = (u: number): number => {
    const cur = units[u]!;
    const prev = units[u - 1];
    if (!cur.sentence || cur.first || !prev || !prev.sentence || prev.block !== cur.block) return 0;
    return prev.tokens <= LIMITS.overlapMax ? prev.tokens : 0;
  };

  const best: number[] = new Array<number>(m + 1).fill(Number.POSITIVE_INFINITY);
  const choice: Array<{ from: number; overlap: boolean }> = new Array(m + 1);
  best[0] = 0;
  for (let b = 0; b < m; b++) {
    const end = endOf(b);
    for (let a = b; a >= 0; a--) {
      const start = startOf(a);
      const body = prefix[end + 1]! - prefix[start]!;
      if (a < b && body > LIMITS.targetMax) break;
      if (best[a] === Number.POSITIVE_INFINITY) continue;
      const ctx = contextOf(start)?.tokens ?? 0;
      const ov = overlapTokens(start);
      let size = body + ctx + ov;
      let overlap = ov > 0;
      if (size > LIMITS.targetMax) {
        // Several groups must fit with their overlap; a lone oversize group drops it.
        if (a < b) continue;
        if (overlap) {
          size -= ov;
          overlap = false;
        }
      }
      const breakCost = a > 0 ? breakAfter[start - 1]! : 0;
      const cost = best[a]! + breakCost + PER_CHUNK + smallPenalty(size);
      if (cost < best[b + 1]!) {
        best[b + 1] = cost;
        choice[b + 1] = { from: a, overlap };
      }
    }
  }

  const pieces: Piece[] = [];
  for (let g = m; g > 0; ) {
    const c = choice[g]!;
    const first = startOf(c.from);
    pieces.push({
      first,
      last: endOf(g - 1),
      context: contextOf(first)?.text ?? null,
      contextInline: contextOf(first)?.inline ?? false,
      overlap: c.overlap,
    });
    g = c.from;
  }
  return pieces.reverse();
}

function smallPenalty(size: number): number {
  if (size >= LIMITS.targetMin) return 0;
  const gap = (LIMITS.targetMin - size) / LIMITS.targetMin;
  return SMALL_PENALTY * gap * gap;
}

/**
 * What a chunk starting at unit u must repeat to read on its own: the intro line of the
 * procedure it continues (else the section heading), or the term of the definition it continues.
 */
interface Context {
  text: string;
  tokens: number;
  inline: boolean;
}

function continuationContext(run: Run, u: number, heading: string | null): Context | null {
  const unit = run.units[u]!;
  const rb = run.blocks[unit.block]!;
  let text: string | null = null;
  for (const p of run.procedures) {
    // From the first block after the intro (a leading admonition, step 1) to the last step.
    const from = p.intro !== null ? p.intro + 1 : p.firstStep + 1;
    if (unit.block >= from && unit.block <= p.lastStep) text = introLine(run, p.intro) ?? heading;
  }
  if (text !== null) return { text, tokens: estimateTokens(text), inline: false };
  if (rb.block.kind === 'definition' && !unit.first) {
    const term = definitionPrefix(rb.block).trimEnd();
    if (term) return { text: term, tokens: estimateTokens(term), inline: true };
  }
  return null;
}

/** The last sentence of the intro paragraph ("To replace the filter:"). */
function introLine(run: Run, intro: number | null): string | null {
  if (intro === null) return null;
  const text = run.blocks[intro]!.text;
  // Units are in block order: the intro's last unit is the last one before the next block's.
  let last = null;
  for (let i = run.units.findIndex((u) => u.block === intro); i >= 0 && i < run.units.length; i++) {
    if (run.units[i]!.block !== intro) break;
    last = run.units[i]!;
  }
  return last ? text.slice(last.start, last.end) : null;
}
