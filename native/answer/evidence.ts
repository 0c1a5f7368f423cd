/**
 * Evidence: what retrieval found for a question, reduced to a few signals, and the gate that
 * decides from them whether the library answers it. Pure (the analyzer is the only dependency).
 *
 * Signals:
 * - the question's content terms (analyzer stems, generic question words removed), and which of
 *   them the top passages contain (passage text + section + manual title + file path);
 * - names the question gives (Capitalised or model-number words: "Haas", "VF-2", "840D"): a name
 *   that no retrieved passage mentions means the question is about something else;
 * - codes named in the question: defined in a manual, or not;
 * - agreement between the keyword and vector lists (when vectors exist).
 */
import type { CodeLookupResponse, SearchHit } from '../contract/api.js';
import { checkCodes } from '../fault-codes/check.js';
import { detectCodes } from '../fault-codes/detect.js';
import { analyze, analyzeQuery } from '../text/analyze.js';

/** Question words that say what kind of answer is wanted, not what it is about (stemmed like the rest). */
const GENERIC_WORDS = [
  'mean', 'meaning', 'problem', 'issue', 'wrong', 'happen', 'need', 'want', 'use', 'get', 'make', 'work',
  'say', 'says', 'tell', 'show', 'know', 'way', 'thing', 'something', 'anything', 'fix', 'solve', 'help', 'please',
  'possible', 'correct', 'right', 'best', 'good', 'keep', 'go', 'one', 'cause', 'reason', 'explain',
  'find', 'check', 'set', 'after', 'before', 'when', 'while', 'again', 'still', 'always', 'never', 'every',
  'time', 'sometimes', 'random', 'all', 'any', 'some', 'other', 'first', 'not', 'no',
  "can't", "won't", "don't", "doesn't", "didn't", "isn't", "aren't", "wasn't", "cannot",
  '什么', '意思', '怎么办', '处理', '为什么', '问题', '如何', '可以', '能', '不', '还', '多少', '以内',
];
let generic: Set<string> | null = null;
function isGeneric(term: string): boolean {
  generic ??= new Set(GENERIC_WORDS.flatMap((w) => analyze(w)));
  return generic.has(term);
}

export interface EvidenceInput {
  question: string;
  /** Retrieved passages, best first (code hits excluded). */
  hits: SearchHit[];
  codes: CodeLookupResponse | null;
  /** Top chunk ids of each retriever when both ran (hybrid), for agreement. */
  keywordTop?: string[];
  vectorTop?: string[];
}

export interface Evidence {
  terms: string[];
  /** Terms that say what the question is about (content terms that are not names). */
  topic: string[];
  /** Best share of topic terms in one of the top passages. */
  topicCoverage: number;
  /** Terms found in the best passage among the first three (its index in `hits`). */
  bestIndex: number;
  bestCoverage: number;
  /** Fraction of the terms found in any of the top passages. */
  unionCoverage: number;
  /** Terms no top passage contains. */
  missing: string[];
  /** Names from the question that no top passage mentions. */
  missingNames: string[];
  /** Names that neither the matched code records nor the passages mention. */
  namesOutsideCodes: string[];
  /** Codes named in the question that a manual defines / that none defines. */
  definedCodes: string[];
  undefinedCodes: string[];
  /** The question's own word for each term or name (for messages: "Haas", not "haa"). */
  words: Record<string, string>;
  /** Overlap of the two retrievers' top lists (0..1), null when only one ran. */
  agreement: number | null;
}

/** Passages looked at for coverage. */
export const EVIDENCE_DEPTH = 5;
/** Passages whose union says whether a term exists in the library at all (BM25 ranks rare terms first). */
export const PRESENCE_DEPTH = 10;

export function contentTerms(question: string): string[] {
  return analyzeQuery(question, { expand: false }).terms.filter((t) => !isGeneric(t) && t.length > 0);
}

/** Tokens of a passage with its labels (section, manual, file path words). */
export function passageTokens(h: Pick<SearchHit, 'text' | 'section' | 'manual' | 'file'>): Set<string> {
  return new Set(analyze(`${h.text}\n${h.section}\n${h.manual}\n${h.file.replace(/[/_.-]+/g, ' ')}`));
}

/**
 * Names in the question: Capitalised words ("Haas", "Siemens"; a first word too: stop words and
 * generic words yield no term, and a plain word that starts a question is found in the passages), all-caps
 * acronyms of 2+ letters ("ABB"), and model numbers mixing letters and digits ("VF-2", "840D",
 * "MK4"). Analyzed like everything else; codes are left to the code index.
 */
export function questionNames(question: string, words?: Map<string, string>): string[] {
  let text = question;
  // Every code-like token (weak ones too): codes are the code index's business, not names.
  for (const c of detectCodes(question, { includeWeak: true })) text = text.split(c.raw).join(' ');
  const out: string[] = [];
  const found = [...text.matchAll(/[\p{Script=Latin}\p{N}][\p{Script=Latin}\p{N}_-]*/gu)];
  found.forEach((m) => {
    const w = m[0];
    const capitalised = /^\p{Lu}\p{Ll}+$/u.test(w);
    const acronym = /^\p{Lu}{2,}$/u.test(w);
    const model = /\p{L}/u.test(w) && /\p{N}/u.test(w) && w.length <= 12;
    if (capitalised || acronym || model) {
      const toks = analyze(w);
      const joined = toks[0];
      if (joined) {
        out.push(joined);
        if (words && !words.has(joined)) words.set(joined, w);
      }
    }
  });
  return [...new Set(out)];
}

/**
 * Each content term with the thesaurus alternatives of the word it came from ("hot" → "overheat",
 * "temperatur"…): a passage that uses the manual's word for it covers the term too.
 */
export function termAlternatives(question: string, words?: Map<string, string>): Map<string, string[][]> {
  const out = new Map<string, string[][]>();
  for (const t of contentTerms(question)) out.set(t, []);
  for (const m of question.matchAll(/[^\s,.;:!?，。；：！？'"“”]+/gu)) {
    const a = analyzeQuery(m[0]);
    for (const t of a.terms) {
      out.get(t)?.push(...a.equivalents, ...a.expansions);
      if (words && out.has(t) && !words.has(t)) words.set(t, m[0]);
    }
  }
  return out;
}

function covered(term: string, alts: string[][] | undefined, set: Set<string>): boolean {
  return set.has(term) || (alts ?? []).some((g) => g.length > 0 && g.every((x) => set.has(x)));
}

export function collectEvidence(input: EvidenceInput): Evidence {
  const codeRaw = input.codes?.detected ?? [];
  const words = new Map<string, string>();
  const alternatives = termAlternatives(input.question, words);
  const terms = [...alternatives.keys()];
  const names = questionNames(input.question, words).filter((n) => !isCodeToken(n, codeRaw));
  const topic = terms.filter((t) => !names.includes(t));
  const tokenSets = input.hits.slice(0, PRESENCE_DEPTH).map(passageTokens);
  const share = (list: string[], set: Set<string>) =>
    list.length === 0 ? 0 : list.filter((t) => covered(t, alternatives.get(t), set)).length / list.length;
  let bestIndex = -1;
  let bestCoverage = 0;
  let topicCoverage = 0;
  tokenSets.slice(0, EVIDENCE_DEPTH).forEach((set, i) => {
    const c = share(terms, set);
    if (c > bestCoverage) {
      bestCoverage = c;
      bestIndex = i;
    }
    topicCoverage = Math.max(topicCoverage, share(topic, set));
  });
  const union = new Set<string>();
  for (const s of tokenSets) for (const t of s) union.add(t);
  const missing = terms.filter((t) => !covered(t, alternatives.get(t), union));
  const unionCoverage = terms.length === 0 ? 0 : (terms.length - missing.length) / terms.length;
  const missingNames = names.filter((n) => !union.has(n));
  const matches = input.codes?.matches ?? [];
  // A name the question gives must fit the code's manual too ("Haas alarm 1" is not Grbl's alarm 1).
  const codeTokens = new Set(analyze(matches.map((m) => `${m.manual} ${m.scope.join(' ')} ${m.file.replace(/[/_.-]+/g, ' ')} ${m.section} ${m.text}`).join('\n')));
  const namesOutsideCodes = names.filter((n) => !codeTokens.has(n) && !union.has(n));
  // One code path: the fault-code module says which named codes the lookup answered, as typed.
  const check = checkCodes(input.question, input.codes);
  const definedCodes = check.defined;
  const undefinedCodes = check.undefined;
  for (const k of undefinedCodes) if (check.typed[k] && !words.has(k)) words.set(k, check.typed[k]);
  let agreement: number | null = null;
  if (input.keywordTop && input.vectorTop && input.keywordTop.length > 0 && input.vectorTop.length > 0) {
    const kw = new Set(input.keywordTop.slice(0, EVIDENCE_DEPTH));
    const vec = input.vectorTop.slice(0, EVIDENCE_DEPTH);
    agreement = vec.filter((id) => kw.has(id)).length / Math.min(EVIDENCE_DEPTH, vec.length);
  }
  return {
    terms,
    topic,
    bestIndex,
    bestCoverage,
    topicCoverage,
    unionCoverage,
    missing,
    missingNames,
    namesOutsideCodes,
    definedCodes,
    undefinedCodes,
    agreement,
    words: Object.fromEntries(words),
  };
}

/** A name that is one of the detected codes as typed: "f23" for `fault:23`, "p0301" for `p0301`. */
function isCodeToken(name: string, keys: string[]): boolean {
  const m = /^([a-z]+)-?0*(\d+)$/.exec(name);
  return keys.some((k) => {
    if (k.replace(/[^a-z0-9]/g, '') === name) return true;
    const km = /^([a-z-]+):0*(\d+)$/.exec(k);
    return m !== null && km !== null && km[2] === m[2] && (km[1] ?? '').startsWith(m[1] ?? '');
  });
}

export interface GateDecision {
  answer: boolean;
  /** Why, in the technician's words (used in the refusal). */
  reason: string;
  /** Short machine-readable cause, for evaluation and logs. */
  rule: 'code-defined' | 'code-other-scope' | 'code-undefined' | 'no-passages' | 'unknown-name' | 'unknown-terms' | 'low-coverage' | 'covered';
}

/** Gate thresholds (tuned on the development questions as a whole, never per question). */
export const GATE = {
  /** Answer when one of the best passages holds this share of the content terms… */
  minBestCoverage: 0.4,
  /** …or the top passages together hold this share. */
  minUnionCoverage: 0.75,
  /** Refuse when at least this many content terms (and this share of them) occur in no top passage. */
  maxMissingTerms: 3,
  maxMissingShare: 0.4,
  /** With vectors: answer when the two retrievers agree this much and the union covers half. */
  minAgreement: 0.4,
  minUnionWithAgreement: 0.5,
};

/** Decides whether the retrieved evidence answers the question. Pure. */
export function gate(ev: Evidence, hitCount: number): GateDecision {
  if (ev.definedCodes.length > 0) {
    if (ev.namesOutsideCodes.length > 0) {
      return {
        answer: false,
        reason: `${ev.definedCodes.map(displayKey).join(', ')} is defined only in manuals that do not mention ${quoteList(ev.namesOutsideCodes, ev.words)}.`,
        rule: 'code-other-scope',
      };
    }
    return { answer: true, reason: 'A manual defines the code.', rule: 'code-defined' };
  }
  if (ev.undefinedCodes.length > 0) {
    return { answer: false, reason: `No installed manual defines ${ev.undefinedCodes.map((k) => ev.words[k] ?? displayKey(k)).join(', ')}.`, rule: 'code-undefined' };
  }
  if (hitCount === 0) return { answer: false, reason: 'Nothing in the installed manuals matches the question.', rule: 'no-passages' };
  if (ev.missingNames.length > 0) {
    return { answer: false, reason: `The installed manuals do not mention ${quoteList(ev.missingNames, ev.words)}.`, rule: 'unknown-name' };
  }
  if (ev.missing.length >= GATE.maxMissingTerms && ev.missing.length >= ev.terms.length * GATE.maxMissingShare) {
    return {
      answer: false,
      reason: `The closest passages say nothing about ${quoteList(ev.missing, ev.words)}.`,
      rule: 'unknown-terms',
    };
  }
  const agree = ev.agreement !== null && ev.agreement >= GATE.minAgreement && ev.unionCoverage >= GATE.minUnionWithAgreement;
  if (ev.bestCoverage >= GATE.minBestCoverage || ev.unionCoverage >= GATE.minUnionCoverage || agree) {
    return { answer: true, reason: 'Passages cover the question.', rule: 'covered' };
  }
  return { answer: false, reason: "The closest passages share too few of the question's words to be an answer.", rule: 'low-coverage' };
}

function quoteList(xs: string[], words: Record<string, string> = {}): string {
  return [...new Set(xs.map((x) => words[x] ?? x))].map((x) => `"${x}"`).join(', ');
}

function displayKey(key: string): string {
  const m = /^([a-z-]+):(.+)$/.exec(key);
  return m ? `${m[1]} ${m[2]}` : key.toUpperCase();
}
