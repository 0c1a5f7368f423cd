import { isHanCode, isHanHighSurrogate } from './lang.js';

/**
 * Model-token estimate, good enough for sizing chunks (not for billing):
 * - a run of letters/digits (a word, a number) ≈ 1.3 tokens, plus a little for very long runs
 *   (serial numbers, hashes) that a sub-word tokenizer cuts into several pieces;
 * - a run of punctuation/symbols ≈ 1 token (`_`, `=`, `.` split identifiers and settings,
 *   so `SET_VELOCITY_LIMIT` ≈ 6 and `$110=500.000` ≈ 6, close to real tokenizers);
 * - each CJK character (ideograph, kana, hangul, CJK or full-width punctuation) ≈ 1 token.
 *
 * Additive over whitespace: the estimate of "a b" is the estimate of "a" plus that of "b",
 * which lets the chunker add up the sizes of its pieces.
 */
export function estimateTokens(text: string): number {
  let words = 0;
  let longExtra = 0;
  let others = 0;
  let wordLen = 0;
  let inPunct = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    const cls = classOf(c);
    if (cls === WORD) {
      if (wordLen === 0) words++;
      wordLen++;
      inPunct = false;
      continue;
    }
    if (wordLen > LONG_WORD) longExtra += (wordLen - LONG_WORD) / LONG_WORD_STEP;
    wordLen = 0;
    if (cls === SPACE) {
      inPunct = false;
    } else if (cls === CJK) {
      others++;
      inPunct = false;
      // A surrogate pair is one character.
      if (c >= 0xd800 && c <= 0xdbff) i++;
    } else {
      if (!inPunct) others++;
      inPunct = true;
      if (c >= 0xd800 && c <= 0xdbff) i++;
    }
  }
  if (wordLen > LONG_WORD) longExtra += (wordLen - LONG_WORD) / LONG_WORD_STEP;
  return words * 1.3 + longExtra + others;
}

/** Integer model-token estimate of `text` (see estimateTokens). Pure, one pass, no allocation. */
export function countTokens(text: string): number {
  return Math.round(estimateTokens(text));
}

const SPACE = 0;
const WORD = 1;
const CJK = 2;
const PUNCT = 3;
const LONG_WORD = 12;
const LONG_WORD_STEP = 6;

function classOf(c: number): number {
  if (c < 0x80) {
    if (c <= 0x20 || c === 0x7f) return SPACE;
    if ((c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a)) return WORD;
    return PUNCT;
  }
  if (c === 0xa0 || c === 0x3000 || c === 0xfeff || (c >= 0x2000 && c <= 0x200b) || c === 0x2028 || c === 0x2029) {
    return SPACE;
  }
  if (isHanCode(c) || isHanHighSurrogate(c)) return CJK;
  // CJK punctuation, kana, bopomofo, hangul, full-width forms.
  if ((c >= 0x3000 && c <= 0x33ff) || (c >= 0xac00 && c <= 0xd7af) || (c >= 0xff00 && c <= 0xffef)) return CJK;
  // Latin-1 symbols, general punctuation, arrows, math, box drawing, dingbats; other surrogates (emoji).
  if (
    (c >= 0xa1 && c <= 0xbf) ||
    c === 0xd7 ||
    c === 0xf7 ||
    (c >= 0x2010 && c <= 0x2bff) ||
    (c >= 0xd800 && c <= 0xdfff) ||
    (c >= 0xe000 && c <= 0xf8ff)
  ) {
    return PUNCT;
  }
  // Accented Latin, Greek, Cyrillic and other alphabets: word characters.
  return WORD;
}
