/**
 * Sentence boundaries in one line of prose (a normalised paragraph).
 *
 * English: `.`, `!` or `?` attached to a word, then whitespace, then something that can start a
 * sentence (not a lower-case letter). Abbreviations (e.g., i.e., Fig., No.), initials, list
 * numbers ("1. Do"), G-code words ("X10. Y20.") do not end a sentence; decimals, versions and
 * settings ("0.5", "v1.1", "$30=1000.") have no space after the dot and are never split.
 * Chinese: `。！？；` (full-width or not) end a sentence with no space needed.
 *
 * When in doubt it does not split: a sentence kept too long is harmless, one cut in half is not.
 */

/** [start, end) ranges of the sentences of `text`, trimmed, covering every non-space character. */
export function sentenceRanges(text: string): Array<[number, number]> {
  const out: Array<[number, number]> = [];
  const n = text.length;
  let start = skipSpace(text, 0);
  const marks = /[.!?。！？；｡]/g;
  marks.lastIndex = start;
  for (let m = marks.exec(text); m !== null; m = marks.exec(text)) {
    const i = m.index;
    const c = m[0];
    let end = -1;
    if (CJK_TERMINATORS.has(c)) {
      end = consumeClosers(text, i + 1, true);
    } else if ((c === '.' || c === '!' || c === '?') && isEnglishBoundary(text, i, start)) {
      let k = i + 1;
      while (k < n && ENGLISH_TERMINATORS.has(text[k]!)) k++;
      end = consumeClosers(text, k, false);
    }
    if (end === -1) continue;
    out.push([start, end]);
    start = skipSpace(text, end);
    marks.lastIndex = start;
  }
  if (start < n) {
    const e = trimEnd(text, n);
    if (e > start) out.push([start, e]);
  }
  return out;
}

const CJK_TERMINATORS = new Set(['。', '！', '？', '；', '｡']);
const CLOSERS = new Set(['"', "'", '”', '’', ')', ']', '」', '』', '）', '】', '》', '〕']);
const ENGLISH_TERMINATORS = new Set(['.', '!', '?']);

/** Words that end with a dot without ending the sentence (compared lower-case, without the dot). */
const ABBREVIATIONS = new Set([
  'e.g', 'i.e', 'eg', 'ie', 'cf', 'viz', 'vs', 'approx', 'ca', 'incl', 'excl', 'esp', 'resp', 'al',
  'fig', 'figs', 'tab', 'no', 'nos', 'nr', 'ref', 'refs', 'sec', 'ch', 'chap', 'vol', 'vols', 'p', 'pp',
  'para', 'eq', 'eqs', 'art', 'pt', 'pts', 'rev', 'ver', 'ed', 'mr', 'mrs', 'ms', 'dr', 'prof', 'st',
  'jr', 'sr', 'inc', 'ltd', 'co', 'corp', 'dept', 'mfg', 'mfr', 'tel', 'max', 'min', 'jan', 'feb',
  'mar', 'apr', 'jun', 'jul', 'aug', 'sep', 'sept', 'oct', 'nov', 'dec', 'op',
]);

/** Abbreviations that are also units of time, written after a number ("100 ms", "5 min", "2 sec"). */
const UNITS_AFTER_NUMBER = new Set(['ms', 'min', 'sec']);

function isEnglishBoundary(text: string, i: number, sentenceStart: number): boolean {
  // The mark must close a word: "~ ! ?" in a list of commands is not a sentence end.
  if (i === 0 || !canPrecedeTerminator(text[i - 1]!)) return false;
  // Run of marks ("?!", "..."), then closing quotes/brackets, then whitespace.
  let j = i;
  while (j < text.length && ENGLISH_TERMINATORS.has(text[j]!)) j++;
  j = consumeClosers(text, j, false);
  if (j >= text.length) return true;
  if (!isSpace(text[j]!)) return false;
  const next = skipSpace(text, j);
  if (next >= text.length) return true;
  const nc = text[next]!;
  if (isLowerLetter(nc)) return false;
  if (text[i] !== '.' || text[i + 1] === '.') return true;
  const word = wordBefore(text, i);
  const lower = word.toLowerCase();
  // A unit after a number ends a sentence like any word: "…arrives within 100 ms. Then…" ("Ms." the title does not).
  if (ABBREVIATIONS.has(lower) && !(UNITS_AFTER_NUMBER.has(lower) && /\d\s*$/.test(text.slice(Math.max(sentenceStart, i - word.length - 12), i - word.length)))) return false;
  if (/^(?:\p{L}\.)+\p{L}$/u.test(word)) return false; // U.S.A., e.g. without the list
  if (/^\p{Lu}$/u.test(word)) return false; // initials, axis letters: "J. Smith", "the X. Y axis"
  if (/^\d{1,3}$/.test(word) && i - word.length <= sentenceStart) return false; // "1. Remove the cover"
  if (/^[A-Z]-?\d+(?:\.\d+)?$/.test(word) && /^[A-Z]-?\d/.test(text.slice(next, next + 3))) return false; // G-code
  return true;
}

function canPrecedeTerminator(c: string): boolean {
  return /[\p{L}\p{N}%)\]"'”’`]/u.test(c);
}

/** The run of non-space characters before position i (without leading quotes/brackets). */
function wordBefore(text: string, i: number): string {
  let s = i;
  while (s > 0 && !isSpace(text[s - 1]!)) s--;
  return text.slice(s, i).replace(/^[("'“‘[]+/, '');
}

function consumeClosers(text: string, j: number, cjk: boolean): number {
  let k = j;
  while (k < text.length) {
    const c = text[k]!;
    if (CLOSERS.has(c) || (cjk && CJK_TERMINATORS.has(c)) || (cjk && (c === '!' || c === '?'))) k++;
    else break;
  }
  return k;
}

function isSpace(c: string): boolean {
  return c === ' ' || c === '\t' || c === '\n' || c === '\r' || c === '\u00a0' || c === '\u3000';
}

function isLowerLetter(c: string): boolean {
  return /\p{Ll}/u.test(c);
}

function skipSpace(text: string, i: number): number {
  let k = i;
  while (k < text.length && isSpace(text[k]!)) k++;
  return k;
}

function trimEnd(text: string, end: number): number {
  let k = end;
  while (k > 0 && isSpace(text[k - 1]!)) k--;
  return k;
}
