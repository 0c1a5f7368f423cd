/**
 * Query planning: a question with two parts ("what does alarm 4 mean and how do I fix it?",
 * "P0171 and P0174 together") becomes one sub-query per part, so that retrieval can look for each
 * part on its own and the fusion (interleave.ts) can give every part a place in the top results.
 * Pure: no store, no model; analysis by native/text/analyze.ts, codes by native/fault-codes/detect.ts.
 *
 * The rule is conservative and explainable:
 * - A question is cut only at a clause boundary: a sentence end (`?`, `;`, `。`…) followed by more
 *   text, a spaced dash (` - `), or a connective (`and`, `also`, `plus`, `then`; 另外, 还有, 以及,
 *   并且, 而且, 同时, 此外, 如果…) that opens a new question: a question word, "is there", or an
 *   auxiliary with its subject follows ("and what if…", "and which…", ", also do I…"); 和/与 only
 *   before a question word ("…和怎么处理"). So "power and ground wiring", "start and stop button",
 *   "hums but does not start" and 电源和地线 are never cut. A clause that opens with "before", "when",
 *   "if"… and ends at a comma is the condition of the question after it, and is not cut off.
 * - A cut is kept only when both sides keep at least {@link MIN_TOPIC_TERMS} topic terms of their own
 *   after analysis (generic question words such as "mean", "next", "happen" do not count); otherwise
 *   the pieces are joined back. "What is alarm 9 and what does it mean" stays one query.
 * - Two or more distinct codes in one question give one part per code: the question with the other
 *   codes taken out, so each keeps its own context words ("scanner shows P0171 … what do they mean").
 * - Each connective part inherits the question's context it lacks: the codes named elsewhere in the
 *   question (with their meaning when the caller gives it), and the caller's context words (the
 *   product names the question mentions, see name-index.ts), because "which setting do I raise"
 *   alone no longer says which machine or which alarm.
 *
 * - A quoted message of three or more topic terms is one more part: the message alone.
 *
 * A question that is one part gives `parts: []`: search the whole question as today.
 */
import { detectCodes, type DetectedCode } from '../../fault-codes/detect.js';
import { analyze } from '../../text/analyze.js';

/** Topic terms each side of a cut must keep. */
export const MIN_TOPIC_TERMS = 2;
/** At most this many parts; a longer question keeps its first parts and the rest joined to the last. */
export const MAX_PARTS = 3;

export type PartReason = 'connective' | 'code' | 'message';

export interface PlanPart {
  /** What to search for this part (the clause plus inherited context). */
  query: string;
  /** The clause as the question writes it (without inherited context). */
  clause: string;
  reason: PartReason;
  /** Normalised keys of the codes this part is about. */
  codes: string[];
}

export interface QueryPlan {
  query: string;
  /** Sub-queries, in question order; empty when the question is one part. */
  parts: PlanPart[];
}

export interface PlanOptions {
  /** Words to add to each part that lacks them: product or manual names the question mentions. */
  context?: string[];
  /** Code detection (default: detectCodes with its strong candidates only). */
  detect?: (text: string) => DetectedCode[];
  /** Connective parts also carry codes named in other parts (default true). */
  inheritCodes?: boolean;
  /**
   * What each code means: key as detectCodes writes it → the record's title, cause and remedy (the
   * caller looks each detected code up in the code index, which resolves padding and prefixes). A
   * connective part that inherits a code also carries its meaning, because the part's own words
   * often refer to it ("which setting do I raise" after "alarm 4", whose remedy names the release-travel setting).
   */
  definitions?: Record<string, string>;
  minTopicTerms?: number;
  maxParts?: number;
  /**
   * Messages the manuals show that the question writes without quotes (search/messages.ts): searched
   * on their own like quoted ones, whatever their length, since the library shows them as written.
   */
  shownMessages?: string[];
}

/**
 * Words that carry no topic of their own once analysed (stems as analyze() writes them): a part made
 * of these and stop words is a follow-up ("what next", "what does it mean"), not a second question.
 */
const GENERIC = new Set(
  (
    'mean next happen need get make thing someth anyth way also other anoth two both each one first then ' +
    'now again still ok okay pleas thank know tell want like say said go goe see look use done happen ' +
    '意思 怎么办 怎么样 办 处理 解决 应该 需要 可以 能 要 原因 为什么 什么样 一下 吗 呢 方法 办法'
  ).split(' '),
);

/** What opens a new English question: a question word, "is there", or an auxiliary with its subject ("do I", "can we"). */
const QUESTION_WORD_EN =
  '(?:what|how|which|why|where|when|who|whose)\\b|(?:is|are)\\s+there\\b|' +
  '(?:do|does|did|can|could|should|would|will|must|may)\\s+(?:i|we|you|it|they|the|this|that)\\b';
const ZH_QUESTION = '怎么|怎样|如何|为什么|为何|哪|什么|是否|能否|可否|要不要|需要|应该|是不是';

/** Places where a question may be cut; each pattern's match is removed (the connective itself). */
const CUTS: RegExp[] = [
  // A sentence end followed by more text.
  /(?<=[?？;；。!！])\s*(?=\S)/gu,
  // A spaced dash between clauses: "alarm 4 - which setting…".
  /\s+[-–—]+\s+/gu,
  // An English connective opening a new question: ", and what if", " and which", "; also how".
  new RegExp(`\\s*,?\\s+(?:and\\s+also|and|also|plus|then)\\s+(?=${QUESTION_WORD_EN})`, 'giu'),
  // A comma before a new question: "…together, what do they mean".
  new RegExp(`\\s*,\\s*(?=${QUESTION_WORD_EN})`, 'giu'),
  // Chinese connectives after a comma or on their own: "…，另外…", "…以及怎么…", "…，如果…怎么办".
  /\s*[，,、]?\s*(?:另外|还有|以及|并且|而且|同时|此外|然后|那么)\s*/gu,
  /\s*[，,]\s*(?=如果|要是|假如|万一)/gu,
  // 和/与 join nouns (电源和地线); only before a question word do they open a new question.
  new RegExp(`\\s*(?:和|与)\\s*(?=${ZH_QUESTION})`, 'gu'),
  // A Chinese comma before a question word: "报警9是什么意思，怎么处理".
  new RegExp(`\\s*[，,]\\s*(?=${ZH_QUESTION})`, 'gu'),
];

/** The opening of a subordinate clause: a condition or a time, not a question. */
const SUBORDINATE = /^\s*(?:before|after|when|whenever|while|if|once|since|until|unless|as soon as|every time)\b/i;

/** Topic terms of a text: analysed tokens, minus generic words, minus Chinese sub-words of a longer token. */
export function topicTerms(text: string): string[] {
  const toks = [...new Set(analyze(text))].filter((t) => !GENERIC.has(t));
  return toks.filter((t) => !(/\p{Script=Han}/u.test(t) && toks.some((o) => o !== t && o.includes(t))));
}

/**
 * Clauses of a question, cut only where both sides keep enough topic terms (see the file comment).
 * Pure. Returns `[question]` when it is one clause.
 */
export function splitClauses(query: string, opts: Pick<PlanOptions, 'minTopicTerms' | 'maxParts'> = {}): string[] {
  const min = opts.minTopicTerms ?? MIN_TOPIC_TERMS;
  const max = opts.maxParts ?? MAX_PARTS;
  const text = query.trim();
  // Cut positions: [start, end) of each connective, from every pattern, non-overlapping.
  const cuts: { start: number; end: number }[] = [];
  for (const re of CUTS) {
    for (const m of text.matchAll(re)) {
      const start = m.index;
      const end = start + m[0].length;
      if (start === 0 || end >= text.length) continue;
      if (cuts.some((c) => start < c.end + (end === start ? 1 : 0) && c.start < end + (end === start ? 1 : 0))) continue;
      cuts.push({ start, end });
    }
  }
  cuts.sort((a, b) => a.start - b.start);
  // A clause that opens with "before", "when", "if"… and ends at a comma is the condition of the
  // question after it ("before I power the drive, what must I check"), not a question of its own.
  for (let i = 0; i < cuts.length; i++) {
    const from = i === 0 ? 0 : (cuts[i - 1] as { end: number }).end;
    const cut = cuts[i] as { start: number; end: number };
    if (SUBORDINATE.test(text.slice(from, cut.start)) && /^\s*,\s*$/.test(text.slice(cut.start, cut.end))) cuts.splice(i--, 1);
  }
  // Pieces as spans of the question, so that joined pieces keep their connective as written.
  const spans: { start: number; end: number }[] = [];
  let pos = 0;
  for (const c of cuts) {
    spans.push({ start: pos, end: c.start });
    pos = c.end;
  }
  spans.push({ start: pos, end: text.length });
  const pieces = spans.filter((s) => text.slice(s.start, s.end).trim() !== '');
  // Join pieces that are too thin to stand alone. A run of thin pieces that together keep enough
  // topic terms is one question of its own ("…gives error 12, which other switch must be on and
  // what number is it?": neither "which other switch must be on" nor "what number is it" stands
  // alone, together they do); otherwise a thin piece joins its neighbour (the previous one, or the next).
  const thin = (s: { start: number; end: number }) => topicTerms(text.slice(s.start, s.end)).length < min;
  const grouped: { start: number; end: number }[] = [];
  for (const p of pieces) {
    const prev = grouped[grouped.length - 1];
    if (prev !== undefined && thin(prev) && thin(p)) prev.end = p.end;
    else grouped.push({ ...p });
  }
  const joined: { start: number; end: number }[] = [];
  for (const p of grouped) {
    const prev = joined[joined.length - 1];
    if (prev !== undefined && (thin(p) || thin(prev))) prev.end = p.end;
    else joined.push({ ...p });
  }
  if (joined.length > max) {
    const last = joined[joined.length - 1] as { start: number; end: number };
    joined.splice(max - 1, joined.length, { start: (joined[max - 1] as { start: number }).start, end: last.end });
  }
  return joined.map((s) => text.slice(s.start, s.end).trim());
}

const strongCodes = (text: string) => detectCodes(text).filter((c) => c.strength === 'strong');

/**
 * The plan for a question: one part per named code when it names two or more distinct codes, else
 * one part per clause; `parts: []` when it is one part.
 */
export function planQuery(query: string, opts: PlanOptions = {}): QueryPlan {
  const plan = planParts(query, opts);
  // A quoted message is also searched on its own: the passage that shows it is what the technician
  // is asking about, whatever else the question says ("the panel says 'Ram stroke out of range' after a reference run").
  const quoted = quotedMessages(plan.query).filter((m) => topicTerms(m).length >= MIN_MESSAGE_TERMS);
  const shown = (opts.shownMessages ?? []).filter((m) => !quoted.some((q) => q.toLowerCase().includes(m.toLowerCase())));
  const messages = [...quoted, ...shown]
    .filter((m) => !plan.parts.some((p) => p.clause === m))
    .map((m): PlanPart => ({ query: m, clause: m, reason: 'message', codes: [] }));
  return messages.length > 0 ? { query: plan.query, parts: [...plan.parts, ...messages].slice(0, (opts.maxParts ?? MAX_PARTS) + 1) } : plan;
}

/** Topic terms a quoted message needs to be searched on its own (fewer: a word or a code, which the rest handles). */
export const MIN_MESSAGE_TERMS = 3;

function planParts(query: string, opts: PlanOptions): QueryPlan {
  const text = query.trim();
  const detect = opts.detect ?? strongCodes;
  const codes = detect(text);
  const keys = [...new Set(codes.map((c) => c.key))];
  if (keys.length >= 2) {
    const parts = keys.slice(0, opts.maxParts ?? MAX_PARTS).map((key): PlanPart => {
      const clause = removeSpans(
        text,
        codes.filter((c) => c.key !== key),
      );
      return { query: withContext(clause, opts.context ?? []), clause, reason: 'code', codes: [key] };
    });
    return { query: text, parts };
  }
  const clauses = splitClauses(text, opts);
  if (clauses.length < 2) return { query: text, parts: [] };
  const inherit = opts.inheritCodes !== false;
  const parts = clauses.map((clause): PlanPart => {
    const own = detect(clause).map((c) => c.key);
    const inherited = inherit ? codes.filter((c) => !own.includes(c.key)) : [];
    const lacking = inherited.flatMap((c) => {
      const meaning = opts.definitions?.[c.key];
      return meaning ? [c.raw, clip(meaning, MAX_DEFINITION_WORDS)] : [c.raw];
    });
    return {
      query: withContext(clause, [...(opts.context ?? []), ...lacking]),
      clause,
      reason: 'connective',
      codes: inherit ? keys : own,
    };
  });
  return { query: text, parts };
}

/**
 * The text with the given spans taken out, each with the connective that joined it to its
 * neighbour ("P0171 and P0174 together" without P0174 → "P0171 together").
 */
function removeSpans(text: string, spans: { start: number; end: number }[]): string {
  const JOIN_BEFORE = /(?:\s*(?:,|、|\band\b|\bor\b|&|和|与|及|或))\s*$/iu;
  const JOIN_AFTER = /^\s*(?:,|、|and\b|or\b|&|和|与|及|或)\s*/iu;
  let out = '';
  let pos = 0;
  for (const s of [...spans].sort((a, b) => a.start - b.start)) {
    let before = text.slice(pos, s.start);
    let end = s.end;
    const joinBefore = before.match(JOIN_BEFORE);
    if (joinBefore) before = before.slice(0, before.length - joinBefore[0].length);
    else {
      const joinAfter = text.slice(end).match(JOIN_AFTER);
      if (joinAfter) end += joinAfter[0].length;
    }
    out += `${before} `;
    pos = end;
  }
  out += text.slice(pos);
  return out.replace(/\s+/g, ' ').trim();
}

/** Words of a code's meaning a part carries at most. */
export const MAX_DEFINITION_WORDS = 16;

function clip(text: string, words: number): string {
  return text.split(/\s+/).filter(Boolean).slice(0, words).join(' ');
}

/** The part with each context word it does not already contain (compared after analysis). */
function withContext(part: string, context: string[]): string {
  const have = new Set(analyze(part));
  const add: string[] = [];
  for (const c of context) {
    const toks = analyze(c);
    if (toks.length === 0 || toks.every((t) => have.has(t))) continue;
    for (const t of toks) have.add(t);
    add.push(c);
  }
  return add.length ? `${add.join(' ')} ${part}` : part;
}

/**
 * Messages the question quotes: text between straight quotes that open after a space (or the start)
 * and close before a space, punctuation or the end, so apostrophes ("won't", "it's") are never
 * quotes; or between “…”, 「…」, 『…』, which are never apostrophes.
 */
export function quotedMessages(question: string): string[] {
  // Straight quotes, backticks and ‘…’ can be apostrophes: only at word boundaries. Brackets and “…” always quote.
  const bounded = /(?:^|[\s(:：])(['"‘`])([^'"’`]{3,}?)['"’`](?=$|[\s.,;:!?)，。？！])/gu;
  const paired = /[“「『]([^”」』]{2,}?)[”」』]/gu;
  const found = [...question.matchAll(bounded)].map((m) => ({ at: m.index, text: m[2] ?? '' }));
  for (const m of question.matchAll(paired)) if (!found.some((f) => f.text.includes(m[1] ?? ''))) found.push({ at: m.index, text: m[1] ?? '' });
  return found.sort((a, b) => a.at - b.at).map((f) => f.text.trim()).filter(Boolean);
}
