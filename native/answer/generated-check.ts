/**
 * Is a generated answer fit to show instead of the extractive one? A small model can loop, write
 * only citation marks or boilerplate ("The answer is: [1]"), or write words and numbers that no
 * cited passage holds. Any of these makes the answer worse than quoting the manuals, so the
 * pipeline falls back and shows the reason (written for the technician). Pure.
 *
 * Input: the answer after the citation check (valid marks kept), and the passages it cites.
 */
import { analyze } from '../text/analyze.js';
import { escapeRegExp } from '../text/regexp.js';
import { REFUSAL_SENTENCE } from './prompt.js';

export interface GeneratedCheckInput {
  /** The answer text, citation marks included. */
  text: string;
  /** The full text of each passage the answer cites. */
  cited: string[];
  /** The question: its words may be repeated without a passage holding them. */
  question?: string;
}

export type GeneratedVerdict = { ok: true; support: number } | { ok: false; reason: string };

/** Least share of the answer's content words that must appear in the passages it cites. */
export const MIN_SUPPORT = 0.6;
/** Most share of repeated word 4-grams: above it the text is a loop. */
export const MAX_REPETITION = 0.4;
/** Fewest content words an answer must have (beyond citation marks and boilerplate). */
export const MIN_CONTENT_WORDS = 3;

const CITATION = /\[\s*\d{1,4}(?:\s*[,;]\s*\d{1,4})*\s*\]/g;
/** Phrases that say nothing on their own: a line made only of these is empty. */
const BOILERPLATE = [
  /\b(?:the\s+)?answer\s+(?:is|to\s+(?:the|your)\s+question\s+is)\s*[:：]?/gi,
  /\b(?:according\s+to|based\s+on|as\s+(?:stated|described)\s+in)\s+(?:the\s+)?(?:sources?|passages?|manuals?|documents?)\b/gi,
  /\b(?:sources?|answer|question|citations?|references?)\s*[:：]/gi,
  /\bsee\s+(?:the\s+)?(?:sources?|passages?)\b/gi,
  /\b(?:source|passage)\s+\d+\b/gi,
  // The prompt's refusal sentence, when the model writes it and then answers anyway.
  new RegExp(REFUSAL_SENTENCE.replace(/[.]/g, '\\.?'), 'gi'),
];
/** Words of this vocabulary (after analyze) that a faithful answer may add: connectives of explanation. */
const FREE_WORDS = new Set(analyze('answer source passage manual mean means step first then next also should need check'));

function withoutCitations(text: string): string {
  return text.replace(CITATION, ' ');
}

function withoutBoilerplate(text: string): string {
  let out = withoutCitations(text);
  for (const re of BOILERPLATE) out = out.replace(re, ' ');
  return out;
}

/** Numbers and codes written in a text: Latin letters and digits holding a digit ("210", "3.5", "F0031", "M6x20"). */
export function numbersOf(text: string): string[] {
  const out: string[] = [];
  for (const m of text.normalize('NFKC').matchAll(/[a-z\p{N}]*\p{N}[a-z\p{N}]*(?:[.,:/-]\p{N}+)*/giu)) {
    const t = m[0].toLowerCase().replace(/,/g, '');
    if (t) out.push(t);
  }
  return out;
}

/** Share of repeated word 4-grams (0: none repeats). A loop repeats the same phrase over and over. */
export function repetition(text: string): number {
  const words = withoutCitations(text).toLowerCase().split(/[^\p{L}\p{N}]+/u).filter(Boolean);
  if (words.length < 16) return 0;
  const grams = new Set<string>();
  let total = 0;
  for (let i = 0; i + 4 <= words.length; i++) {
    grams.add(words.slice(i, i + 4).join(' '));
    total++;
  }
  return 1 - grams.size / total;
}

/** A line written three times or more (lines of under 4 words, like step labels, aside). */
function repeatedLine(text: string): string | null {
  const count = new Map<string, number>();
  for (const raw of text.split('\n')) {
    const line = withoutCitations(raw).replace(/^\s*(?:\d{1,3}[.)]|[-*•])\s+/, '').trim().toLowerCase();
    if (line.split(/\s+/).length < 4) continue;
    const n = (count.get(line) ?? 0) + 1;
    if (n >= 3) return line;
    count.set(line, n);
  }
  return null;
}

/** A loop in text still being written: stop generating, it will be rejected anyway. */
export function isLooping(text: string): boolean {
  return repeatedLine(text) !== null || repetition(text) > MAX_REPETITION;
}

export function checkGenerated(input: GeneratedCheckInput): GeneratedVerdict {
  const content = analyze(withoutBoilerplate(input.text));
  if (content.length < MIN_CONTENT_WORDS) {
    return { ok: false, reason: 'The language model wrote no answer of its own (only citation marks or set phrases such as "The answer is:")' };
  }
  if (isLooping(input.text)) {
    return { ok: false, reason: 'The language model repeated itself instead of answering' };
  }
  const sourceText = input.cited.join('\n');
  const known = new Set(analyze(sourceText));
  const asked = new Set(analyze(input.question ?? ''));
  const compact = compactText(`${sourceText}\n${input.question ?? ''}`);
  const unknownNumbers = [...new Set(numbersOf(withoutCitations(withoutListMarkers(input.text))))].filter((n) => !holdsNumber(compact, n));
  if (unknownNumbers.length > 0) {
    return { ok: false, reason: `The language model wrote ${unknownNumbers.slice(0, 3).map((n) => `"${n}"`).join(', ')}, which no cited passage contains` };
  }
  const judged = content.filter((t) => !asked.has(t) && !FREE_WORDS.has(t));
  const supported = judged.filter((t) => known.has(t)).length;
  const support = judged.length === 0 ? 1 : supported / judged.length;
  if (support < MIN_SUPPORT) {
    return {
      ok: false,
      reason: `Only ${Math.round(support * 100)}% of the words the language model wrote appear in the passages it cites (at least ${Math.round(MIN_SUPPORT * 100)}% needed)`,
    };
  }
  return { ok: true, support };
}

/** A text as numbers are compared in it: NFKC, lower case, no spaces or thousands commas ("210 bar" = "210bar"). */
function compactText(text: string): string {
  return text.normalize('NFKC').toLowerCase().replace(/[\s,]+/g, '');
}

/** The number, not as part of a longer one ("250" is not in "2500"). */
function holdsNumber(compact: string, n: string): boolean {
  return new RegExp(`(?<!\\p{N})${escapeRegExp(n)}(?!\\p{N})`, 'u').test(compact);
}

/** Step numbers a model adds to a list ("1. ", "2) ") are not figures from the manual. */
function withoutListMarkers(text: string): string {
  return text.replace(/^\s*\d{1,3}[.)]\s+/gm, '');
}
