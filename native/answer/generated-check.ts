/**
 * Is a generated answer fit to show instead of the extractive one? A small model can copy the
 * prompt back (source headers, quoted passage lines, "Question:"/"Answer:" labels, the rules), write
 * the question back instead of answering it, loop, write only citation marks or boilerplate
 * ("The answer is: [1]"), or write words and numbers that no cited passage holds. Any of these
 * makes the answer worse than quoting the manuals, so the pipeline falls back and shows the reason
 * (written for the technician). Pure. Measured on hand-labelled real drafts:
 * scripts/replay-answer-check.ts, docs/answer-check-labels.md.
 *
 * Input: the answer after the citation check (valid marks kept), and the passages it cites.
 */
import { analyze } from '../text/analyze.js';
import { escapeRegExp } from '../text/regexp.js';
import { ANSWER_CUE, REFUSAL_SENTENCE, systemPrompt } from './prompt.js';

export interface GeneratedCheckInput {
  /** The answer text, citation marks included. */
  text: string;
  /** The full text of each passage the answer cites. */
  cited: string[];
  /** The question: its words may be repeated without a passage holding them. */
  question?: string;
  /**
   * The cited passages with their numbers: when given, each cited sentence is judged against the
   * passages its own marks name (checkSentences), not only the answer as a whole.
   */
  sources?: { n: number; text: string }[];
}

export type GeneratedVerdict = { ok: true; support: number } | { ok: false; reason: string };

/** Least share of the answer's content words that must appear in the passages it cites. */
export const MIN_SUPPORT = 0.6;
/**
 * Least share of one cited sentence's content words (the question's included) that the passages its
 * own marks name hold. Measured on labelled drafts: a sentence that writes the question back with a
 * mark, or puts one passage's words under another's number, holds well under half; the supported
 * sentences hold 0.8 and more.
 */
export const MIN_SENTENCE_SUPPORT = 0.5;
/** Fewest content words a sentence needs for its own support to be judged (shorter ones are judged with the whole). */
const MIN_SENTENCE_WORDS = 4;
/**
 * Words no complete English sentence ends on: articles, prepositions, conjunctions, auxiliaries. A
 * cited sentence ending on one was cut mid-phrase (the model ran into the answer shape's length
 * limit, prompt.ts ANSWER_GRAMMAR, or closed the sentence early) and says less than it seems to.
 */
const CUT_ENDINGS = new Set(
  'a an the and or nor but of to for in on at by with from into onto than as is are was were be been being not no if so that this these those their its your our when while whose which'.split(' '),
);
/** Most share of repeated word 4-grams: above it the text is a loop. */
export const MAX_REPETITION = 0.4;
/** Fewest content words an answer must have (beyond citation marks and boilerplate). */
export const MIN_CONTENT_WORDS = 3;
/** Fewest content words an answer must add to the question's: fewer, it wrote the question back. */
export const MIN_NEW_WORDS = 2;

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

/**
 * A text as figures are compared in it: NFKC, lower case, every dash and minus as "-", and thousands
 * commas dropped ("2,000" = "2000"; "3,5" is a decimal and stays).
 */
function figureText(text: string): string {
  return text
    .normalize('NFKC')
    .toLowerCase()
    .replace(/[\u2010-\u2015\u2212]/g, '-')
    .replace(/(\p{N}),(?=\p{N}{3}(?!\p{N}))/gu, '$1');
}

/**
 * Numbers and codes written in a text: Latin letters and digits holding a digit ("210", "3.5",
 * "F0031", "M6x20"), with the digit groups a dot, comma, colon, slash or dash joins ("500-311", "3/4").
 */
export function numbersOf(text: string): string[] {
  const out: string[] = [];
  for (const m of figureText(text).matchAll(/[a-z\p{N}]*\p{N}[a-z\p{N}]*(?:[.,:/-]\p{N}+)*/gu)) out.push(m[0]);
  return out;
}

/**
 * Where a figure of the answer may stand in a passage: its letter and digit groups in order; a
 * dash, slash or colon of the answer may be any of them or spaces in the passage ("500-311" =
 * "500 – 311" = "500/311"), a decimal point a dot or a comma ("3.5" = "3,5"), and a letter may
 * touch its digits or not ("F0031" = "F 0031", "210bar" = "210 bar"). Two digit groups never join
 * across a space ("M6 20" holds no "620"), and no group is part of a longer number or of a decimal
 * ("0.5" holds no "5").
 */
function figurePattern(figure: string): RegExp {
  const parts = figure.match(/\p{L}+|\p{N}+|[^\p{L}\p{N}]+/gu) ?? [];
  let src = '';
  for (let i = 0; i < parts.length; i++) {
    const part = parts[i] as string;
    const prev = parts[i - 1];
    if (/^[^\p{L}\p{N}]+$/u.test(part)) {
      src += /^[.,]$/.test(part) ? '[.,]' : '(?:\\s*[-/:]\\s*|\\s+)';
      continue;
    }
    if (prev !== undefined && /[\p{L}\p{N}]$/u.test(prev)) src += '[\\s-]?';
    src += escapeRegExp(part);
  }
  const first = parts[0] ?? '';
  const last = parts[parts.length - 1] ?? '';
  const before = /^\p{N}/u.test(first) ? '(?<!\\p{N}|\\p{N}[.,])' : '(?<![a-z\\p{N}])';
  const after = /\p{N}$/u.test(last) ? '(?!\\p{N}|[.,]\\p{N})' : '(?![a-z])';
  return new RegExp(`${before}${src}${after}`, 'u');
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

/**
 * A sentence of 4 words or more written twice ("You can also specify a transport directly: [1]. You
 * can also specify a transport directly: [2]."): a loop that a 1–4 sentence answer is too short to
 * show by line or 4-gram counts.
 */
function repeatedSentence(text: string): string | null {
  const seen = new Set<string>();
  for (const raw of withoutCitations(text).split(/\n|(?<=[.!?。！？])\s+/)) {
    const s = words(raw);
    if (s.split(' ').length < 4) continue;
    if (seen.has(s)) return s;
    seen.add(s);
  }
  return null;
}

/** A loop in text still being written: stop generating, it will be rejected anyway. */
export function isLooping(text: string): boolean {
  return repeatedLine(text) !== null || repeatedSentence(text) !== null || repetition(text) > MAX_REPETITION;
}

/** Lines of the prompt's own structure (prompt.ts): a passage line quoted with ">", a source header, a label of the prompt. */
const PROMPT_STRUCTURE = [
  /^\s*>/m,
  /^\s*\[\s*\d{1,4}\s*\]\s*(?:manual|section|page|source)\s*[:：]/im,
  /^\s*source\s*\[\s*\d{1,4}\s*\]\s*\(/im,
  /^\s*"{3}/m,
  /\|\s*(?:section|page)\s*[:：]/i,
  /^\s*[*#_ ]*(?:questions?|sources?|passages?|context|rules?|task|example|system|user|assistant)[*_ ]*(?:\([^)\n]*\))?\s*[:：]/im,
];
/** "Answer:" after the draft has begun: the model is writing the prompt's next turn. */
const LATER_ANSWER_LABEL = /\S[^]*?^\s*[*#_ ]*answer[*_ ]*(?:\([^)\n]*\))?\s*[:：]/im;

function words(text: string): string {
  return text.normalize('NFKC').toLowerCase().replace(/[^\p{L}\p{N}]+/gu, ' ').trim();
}
/**
 * The prompt's instructions (the rules and the cue that closes the user turn), as words. The refusal
 * sentence is left out (the model may write it), and so is the example answer (prompt.ts
 * EXAMPLE_TURN): a manual may say the same, and a copied example fails the figure check.
 */
const INSTRUCTIONS = ` ${words(
  `${systemPrompt()
    .split('\n')
    .filter((line) => !/^example/i.test(line))
    .join('\n')
    .split(REFUSAL_SENTENCE)
    .join('\n')}\n${ANSWER_CUE}`,
)} `;

/** Whether a draft copies the prompt back: its structure, its labels, or a line of its instructions. */
export function echoesPrompt(text: string): boolean {
  if (PROMPT_STRUCTURE.some((re) => re.test(text)) || LATER_ANSWER_LABEL.test(text)) return true;
  return withoutCitations(text)
    .split(/\n|(?<=[.!?])\s+/)
    .map(words)
    .some((line) => line.split(' ').length >= 5 && INSTRUCTIONS.includes(` ${line} `));
}

const ECHO_REASON = 'The language model copied the prompt (passages, their headers or its instructions) instead of answering';

/** Why to stop a draft still being written (it would be rejected anyway), or null to go on. */
export function streamingStop(text: string): string | null {
  if (echoesPrompt(text)) return ECHO_REASON;
  if (isLooping(text)) return 'The language model repeated itself instead of answering';
  return null;
}

export function checkGenerated(input: GeneratedCheckInput): GeneratedVerdict {
  if (echoesPrompt(input.text)) return { ok: false, reason: ECHO_REASON };
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
  if (content.filter((t) => !asked.has(t) && !FREE_WORDS.has(t)).length < MIN_NEW_WORDS) {
    return { ok: false, reason: 'The language model wrote the question back instead of answering it' };
  }
  const figures = figureText(`${sourceText}\n${input.question ?? ''}`);
  const unknownNumbers = [...new Set(numbersOf(withoutCitations(withoutListMarkers(input.text))))].filter((n) => !figurePattern(n).test(figures));
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
  // Then each sentence against its own passages: a whole that passes can still carry a sentence that does not.
  if (input.sources) {
    const sentenceProblem = checkSentences(input.text, input.sources);
    if (sentenceProblem) return { ok: false, reason: sentenceProblem };
  }
  return { ok: true, support };
}

/** Step numbers a model adds to a list ("1. ", "2) ") are not figures from the manual. */
function withoutListMarkers(text: string): string {
  return text.replace(/^\s*\d{1,3}[.)]\s+/gm, '');
}

/**
 * Each sentence that ends with citation marks, judged against the passages those marks name: cut
 * mid-phrase, or too few of its words (the question's included) in its own passages (the question
 * written back with a mark, or one passage's words under another's number). Returns the reason, or null.
 */
export function checkSentences(text: string, sources: { n: number; text: string }[]): string | null {
  const byN = new Map(sources.map((s) => [s.n, new Set(analyze(s.text))]));
  let from = 0;
  for (const m of text.matchAll(CITATION)) {
    const sentence = text.slice(from, m.index);
    from = m.index + m[0].length;
    if (!/\p{L}/u.test(sentence)) continue;
    const last = /([\p{L}]+)[^\p{L}\p{N}]*$/u.exec(sentence.trimEnd())?.[1]?.toLowerCase();
    const open = (sentence.match(/\(/g) ?? []).length > (sentence.match(/\)/g) ?? []).length;
    if ((last !== undefined && CUT_ENDINGS.has(last) && !/[.!?。！？:：]\s*$/.test(sentence)) || open) {
      return `The language model cut a sentence off mid-phrase ("…${sentence.trim().slice(-40)}")`;
    }
    const known = new Set<string>();
    for (const n of (m[0].match(/\d+/g) ?? []).map(Number)) for (const t of byN.get(n) ?? []) known.add(t);
    if (known.size === 0) continue;
    const words = analyze(withoutBoilerplate(sentence)).filter((t) => !FREE_WORDS.has(t));
    if (words.length < MIN_SENTENCE_WORDS) continue;
    const held = words.filter((t) => known.has(t)).length / words.length;
    if (held < MIN_SENTENCE_SUPPORT) {
      return `A sentence of the generated answer is not in the passage it cites (${Math.round(held * 100)}% of its words are, at least ${Math.round(MIN_SENTENCE_SUPPORT * 100)}% needed): "${sentence.trim().slice(0, 80)}"`;
    }
  }
  return null;
}
