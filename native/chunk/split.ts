import { isHanCode } from '../text/lang.js';
import { estimateTokens } from '../text/tokens.js';

/**
 * Cuts text[start, end) — one sentence or block too long to keep whole — into pieces of about
 * equal size, none over maxTokens where possible. Cuts fall only at whitespace or between Han
 * characters (code: at line ends first), so no word, number or fault code is ever cut.
 */
export function splitOversize(
  text: string,
  start: number,
  end: number,
  maxTokens: number,
  isCode: boolean,
): Array<[number, number]> {
  const atoms = isCode ? lineAtoms(text, start, end, maxTokens) : wordAtoms(text, start, end);
  const total = atoms.reduce((sum, a) => sum + a.tokens, 0);
  const pieces = Math.max(1, Math.ceil(total / maxTokens));
  const target = total / pieces;
  const out: Array<[number, number]> = [];
  let pieceStart = -1;
  let pieceEnd = -1;
  let acc = 0;
  for (const atom of atoms) {
    if (pieceStart !== -1 && acc > 0 && (acc >= target || acc + atom.tokens > maxTokens)) {
      out.push([pieceStart, pieceEnd]);
      pieceStart = -1;
      acc = 0;
    }
    if (pieceStart === -1) pieceStart = atom.start;
    pieceEnd = atom.end;
    acc += atom.tokens;
  }
  if (pieceStart !== -1) out.push([pieceStart, pieceEnd]);
  return out;
}

interface Atom {
  start: number;
  end: number;
  tokens: number;
}

/** Whitespace-separated words; a run of Han characters gives one atom per character. */
function wordAtoms(text: string, start: number, end: number): Atom[] {
  const atoms: Atom[] = [];
  let i = start;
  while (i < end) {
    if (/\s/.test(text[i]!)) {
      i++;
      continue;
    }
    let j = i;
    if (isHanCode(text.charCodeAt(i))) {
      j = i + 1;
      // Keep CJK punctuation with the character before it.
      while (j < end && isCjkPunct(text.charCodeAt(j))) j++;
    } else {
      while (j < end && !/\s/.test(text[j]!) && !isHanCode(text.charCodeAt(j))) j++;
    }
    atoms.push({ start: i, end: j, tokens: estimateTokens(text.slice(i, j)) });
    i = j;
  }
  return atoms;
}

/** Lines (without their newline); a line too long on its own is cut into words. */
function lineAtoms(text: string, start: number, end: number, maxTokens: number): Atom[] {
  const atoms: Atom[] = [];
  let i = start;
  while (i < end) {
    let j = text.indexOf('\n', i);
    if (j === -1 || j > end) j = end;
    const tokens = estimateTokens(text.slice(i, j));
    if (tokens > maxTokens) atoms.push(...wordAtoms(text, i, j));
    else if (j > i) atoms.push({ start: i, end: j, tokens });
    i = j + 1;
  }
  return atoms;
}

function isCjkPunct(code: number): boolean {
  return (code >= 0x3000 && code <= 0x303f) || (code >= 0xff00 && code <= 0xff65);
}
