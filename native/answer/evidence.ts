/**
 * Evidence: what retrieval found for a question, reduced to a few signals, and the gate that
 * decides from them whether the library answers it. Pure (the analyzer and the English word list of
 * text/dictionary.ts are its only dependencies).
 *
 * Signals:
 * - the question's content terms, analysed exactly like the index (analyzer stems, jieba words for
 *   Chinese; generic question words and fillers removed), and which of them the top passages contain
 *   (passage text + section + manual title + file path);
 * - the library's vocabulary (injected: how many passages of the whole library hold a term): a word
 *   no manual uses cannot be what the passages failed to cover, so it never vetoes an answer and
 *   weighs less in coverage ("floppy", "sags": colloquial; or a subject the library lacks);
 * - names the question gives (Capitalised or model-number words: "Haas", "VF-2", "840D"): a name
 *   the library's vocabulary lacks means the question is about something else (without a vocabulary:
 *   a name no retrieved passage mentions); typed in lower case, a brand or model is told by where it
 *   stands: words no manual uses right before a model number, a number or a code ("yaskawa gp8"); and
 *   anywhere, a word no manual uses (or only in passing) that is not a word of the language ("moteus",
 *   "grbl"): a coined name;
 * - coverage by one documentation set: the top passages of one source (the top folder of their
 *   files: a machine's or vendor's manuals) must hold the question's words together, not words
 *   scattered over unrelated manuals;
 * - codes named in the question: defined in a manual, or not; defined in the named product's
 *   manuals, or only in another product's; and the plain words right before a code that say which
 *   machine it is on ("plasma cutter alarm 5"), which the code's own documentation sets must use;
 * - how widely the library uses each term (injected: in how many documentation sets): a word most
 *   sets use ("adjust", "pressure", "switch") says nothing about which equipment a passage is for, so
 *   passages that share only such words with a question about something no manual mentions are not
 *   about it;
 * - agreement between the keyword and vector lists (when vectors exist).
 */
import type { CodeLookupResponse, CodeMatch, SearchHit } from '../contract/api.js';
import { checkCodes } from '../fault-codes/check.js';
import { detectCodes, isQuantity } from '../fault-codes/detect.js';
import { MIN_MESSAGE_TERMS, quotedMessages } from '../search/plan/query-plan.js';
import { analyze, analyzeQuery } from '../text/analyze.js';
import { isCommonWord, isDateWord, isLanguageWord, isProperNoun } from '../text/dictionary.js';

/** Question words that say what kind of answer is wanted, not what it is about (stemmed like the rest). */
const GENERIC_WORDS = [
  'mean', 'meaning', 'problem', 'issue', 'wrong', 'happen', 'need', 'want', 'use', 'get', 'make', 'work',
  'say', 'says', 'tell', 'show', 'know', 'way', 'thing', 'something', 'anything', 'fix', 'solve', 'help', 'please',
  'possible', 'correct', 'right', 'best', 'good', 'keep', 'go', 'one', 'cause', 'reason', 'explain',
  'find', 'check', 'set', 'after', 'before', 'when', 'while', 'again', 'still', 'always', 'never', 'every',
  'time', 'sometimes', 'random', 'all', 'any', 'some', 'other', 'first', 'not', 'no',
  // forms of the words above that the stemmer does not bring back to them
  'goes', 'went', 'gone', 'got', 'gotten', 'made', 'says', 'said', 'told', 'shown', 'knew', 'known', 'kept', 'found',
  "can't", "won't", "don't", "doesn't", "didn't", "isn't", "aren't", "wasn't", "weren't", "haven't", "hasn't", "hadn't",
  "shouldn't", "wouldn't", "couldn't", "mustn't", "needn't", "ain't", "cannot",
  // fillers: they say how the technician talks, not what about
  'just', 'since', 'there', 'here', 'onto', 'once', 'really', 'even', 'like', 'somewhere', 'somehow', 'someone',
  'everything', 'nothing', 'everyone', 'everybody', 'somebody', 'anybody', 'everywhere', 'anywhere',
  'anyone', 'myself', 'itself', 'ourselves', 'yourself', 'usual', 'usually', 'ever', 'yet', 'already', 'though',
  'lot', 'bit', 'kind', 'sort', 'stuff', 'whatever', 'anyway', 'maybe', 'guess', 'think',
  '什么', '意思', '怎么办', '处理', '为什么', '问题', '如何', '可以', '能', '不', '还', '多少', '以内',
  // the same kinds of words as the English ones above, as Chinese questions say them
  '含义', '应该', '需要', '要', '想', '使用', '用', '获取', '得到', '让', '说', '告诉', '知道', '方法', '办法',
  '东西', '解决', '修复', '帮助', '请', '可能', '正确', '对', '最好', '好', '保持', '一直', '原因', '解释', '说明',
  '找到', '查找', '检查', '设', '之后', '以后', '之前', '以前', '时候', '再', '又', '仍然', '还是', '总是', '每次',
  '有时', '随机', '所有', '任何', '其他', '首先', '先', '没有', '没', '不是', '发生', '出现', '正常', '是否', '怎样',
  '已经', '一下', '一些',
  // pronouns and the particles of place, as "myself", "in", "into" are above
  '自己', '里', '里面', '上面', '下面',
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
  /**
   * The library's vocabulary: in how many passages of the whole library (its full-text index, not
   * the top passages) a term occurs, 0 when none; asked only for {@link vocabularyTerms} (a term the
   * top passages hold may answer any count ≥ 1). Absent: unknown, and the top passages stand in for it.
   */
  vocabulary?: (term: string) => number;
  /**
   * The product names the question scoped to (Retrieval.scope) and, for the names of
   * {@link scopeCandidates}, in how many passages of those products' manuals each occurs.
   */
  scope?: {
    names: string[];
    vocabulary: (term: string) => number;
    /** Their folders (documentation sets); absent or empty: the names are files'. */
    folders?: string[];
    /** The titles and equipment names of their manuals: the model names the product goes by. */
    titles?: string[];
  };
  /**
   * How widely the library uses a term: in how many of its documentation sets (top folders) it
   * occurs, and the sets themselves. Asked only for {@link spreadTerms}; absent: unknown (no term is
   * taken for generic).
   */
  spread?: { of: (term: string) => number; docSets: string[] };
  /** The library's products the question names (Retrieval.scope: folder, manual or heading names); absent: none. */
  products?: string[];
  /**
   * In how many passages of the documentation sets that define the question's codes (the top folders of
   * the code records' files) each of {@link machineWords} and {@link questionNames} occurs; absent: not known.
   */
  codeSetVocabulary?: (term: string) => number;
}

/** A code definition from another product's manuals than the one the question names. */
export interface OtherDefinition {
  key: string;
  manual: string;
  file: string;
  title: string;
  description: string;
}

export interface Evidence {
  terms: string[];
  /**
   * With a product of the library named: the terms that say what is asked of it (not its own name, nor a
   * model designation of its machines). Empty otherwise.
   */
  askedAbout: string[];
  /** Terms found in the best passage among the first three (its index in `hits`). */
  bestIndex: number;
  bestCoverage: number;
  /** Fraction of the terms found in any of the top passages. */
  unionCoverage: number;
  /** Terms no top passage contains. */
  missing: string[];
  /** Passages of the whole library holding each term and name (from the vocabulary; absent without one). */
  libraryCounts?: Record<string, number>;
  /** Which of the top passages (indices into `hits`, up to PRESENCE_DEPTH) hold each term. */
  termCover: Record<string, number[]>;
  /** The source of each of those passages (the top folder of its file). */
  passageSources: string[];
  /** Terms that are names (Capitalised, acronym, model number), known to the library or not. */
  names: string[];
  /** Names from the question that no top passage mentions. */
  missingNames: string[];
  /** Of the question's names, the coined ones the library mentions only in passing (a link, an aside). */
  passingNames: string[];
  /** Names that neither the matched code records nor the passages mention. */
  namesOutsideCodes: string[];
  /**
   * The words right before the code that say which machine it is on ("plasma cutter error 5"), when the
   * documentation sets that define the code use none of them: that machine is not theirs. Empty otherwise.
   */
  machineOutsideCodes: string[];
  /**
   * Names the library knows from other manuals that the manuals of the product the question names
   * never use ("<product> over <fieldbus> from a <vendor> PLC"): the question is about a combination
   * those manuals do not cover. Empty without a named product.
   */
  namesOutsideScope: string[];
  /** The product names the question scoped to (as the name index writes them). */
  scopeNames: string[];
  /** The titles of those products' manuals (empty when none or not known): what a refusal for another model of theirs lists. */
  scopeTitles: string[];
  /**
   * Model designations the library never uses, named with a code it defines and without an unknown
   * brand ("alarm 412 on our PX7"), or any names it never uses beside a code the named product's
   * manuals define ("sainsmart 3018 grbl alarm 2"): taken as the technician's own name for the machine,
   * so they do not veto the code; the answer says the manuals do not mention them.
   */
  ownModels: string[];
  /**
   * A message the question quotes ("the panel shows 'Valve 2 error: coil B may be open'") that no
   * top passage holds most of the words of; null when it quotes none, or one the passages hold.
   */
  unmatchedMessage: string | null;
  /** Codes named in the question that a manual defines / that none defines. */
  definedCodes: string[];
  undefinedCodes: string[];
  /** The question's own word for each term or name (for messages: "Haas", not "haa"). */
  words: Record<string, string>;
  /** Overlap of the two retrievers' top lists (0..1), null when only one ran. */
  agreement: number | null;
  /**
   * Codes the question asks for a named product whose manuals define none of them, with the
   * definitions other products' manuals give: shown as theirs, never as the answer. Empty otherwise.
   */
  otherDefinitions: OtherDefinition[];
  /** Terms and names of the question that one of the first passages holds: what question and passages share. */
  overlap: string[];
  /** The terms and names the library uses in so many documentation sets that they name no equipment (see GATE.genericSetShare). */
  generic: string[];
  /**
   * Terms and names no top passage holds that fewer documentation sets use than a generic word needs
   * (none, or a set or two: from the spread): what names equipment the passages are not about, when the
   * first passages share only generic words with the question.
   */
  unknownSubject: string[];
  /** The documentation sets (top folders) the library covers; empty when not known. */
  docSets: string[];
  /** The library's products the question names: it is about equipment the library covers. */
  products: string[];
}

/** Passages looked at for coverage. */
export const EVIDENCE_DEPTH = 5;
/** Passages whose union says whether a term exists in the library at all (BM25 ranks rare terms first). */
export const PRESENCE_DEPTH = 10;

/**
 * The terms whose spread can change the gate's decision, when some term or name is in none of the top
 * passages (only then can the question's subject be missing from them): those the first passages
 * hold (what they share with the question, generic or not) and those no top passage holds (the
 * subject, when few documentation sets use it). Ask looks only these up.
 */
export function spreadTerms(question: string, hits: SearchHit[]): string[] {
  const absent = vocabularyTerms(question, hits);
  if (absent.length === 0) return [];
  const alternatives = termAlternatives(question);
  const all = [...new Set([...alternatives.keys(), ...questionNames(question)])];
  const sets = hits.slice(0, EVIDENCE_DEPTH).map(passageTokens);
  return all.filter((t) => absent.includes(t) || sets.some((set) => covered(t, alternatives.get(t), set)));
}

/**
 * The terms and names whose presence in the library can change the gate's decision: those no top
 * passage holds (a term a passage holds is in the library). Ask looks only these up.
 */
export function vocabularyTerms(question: string, hits: SearchHit[]): string[] {
  const alternatives = termAlternatives(question);
  const sets = hits.slice(0, PRESENCE_DEPTH).map(passageTokens);
  const held = (t: string) => sets.some((set) => covered(t, alternatives.get(t), set));
  return [...new Set([...alternatives.keys(), ...questionNames(question)])].filter((t) => !held(t));
}

export function contentTerms(question: string): string[] {
  return analyzeQuery(question, { expand: false }).terms.filter((t) => !isGeneric(t) && t.length > 0);
}

/** Tokens of a passage with its labels (section, manual, file path words). */
export function passageTokens(h: Pick<SearchHit, 'text'> & Partial<Pick<SearchHit, 'section' | 'manual' | 'file'>>): Set<string> {
  return new Set(analyze(`${h.text}\n${h.section ?? ''}\n${h.manual ?? ''}\n${(h.file ?? '').replace(/[/_.-]+/g, ' ')}`));
}

/**
 * Names in the question: Capitalised words ("Haas", "Siemens"; a word that starts a sentence only when
 * the dictionary does not have it in lower case alone, or a model number follows it: "Yesterday", "Engine"
 * are not names there, "Ender 3" is; a day or a month never is), all-caps acronyms of 2+ letters ("ABB"), model
 * numbers mixing letters and digits ("VF-2", "840D", "MK4"), and a brand typed in lower case before a code
 * (a proper noun of the dictionary among its machine words). Analyzed like everything else; codes are left to
 * the code index.
 */
export function questionNames(question: string, words?: Map<string, string>): string[] {
  let text = question;
  // Every code-like token (weak ones too): codes are the code index's business, not names.
  const codes = detectCodes(question, { includeWeak: true });
  for (const c of codes) text = text.split(c.raw).join(' ');
  // A word the dictionary has only as a proper noun, typed in lower case among the words that name the machine a
  // code is asked for, is its brand as much as when capitalised ("honeywell thermostat e4").
  const brands = new Set(machineTokens(question, codes).filter(isProperNoun));
  const out: string[] = [];
  const found = [...text.matchAll(/[\p{Script=Latin}\p{N}][\p{Script=Latin}\p{N}_-]*/gu)];
  found.forEach((m, i) => {
    const w = m[0];
    // A sentence starts with a capital whatever its first word is: a common word there ("Yesterday", "After") is
    // not a name, unless a model number follows it as it follows a brand ("Ender 3", "Duet 2 WiFi").
    const next = found[i + 1];
    const startsSentence = /(?:^|[.!?。！？])\s*$/u.test(text.slice(0, m.index ?? 0));
    const beforeModel = next !== undefined && /^\s+$/.test(text.slice((m.index ?? 0) + w.length, next.index)) && isModelNumber(next[0]);
    // A day or a month ("every Monday") says when, not which machine.
    const capitalised = /^\p{Lu}\p{Ll}+$/u.test(w) && !isDateWord(w) && !(startsSentence && !beforeModel && isCommonWord(w));
    const acronym = /^\p{Lu}{2,}$/u.test(w);
    const model = /\p{L}/u.test(w) && /\p{N}/u.test(w) && w.length <= 12 && !isQuantity(w);
    if (capitalised || acronym || model || brands.has(w)) {
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
 * Names typed in lower case ("yaskawa motoman gp8", "elegoo saturn 3", "jk bms error 3"): the words
 * no manual uses (`unused`) that stand right before a model designation, a number or a code name the
 * machine they belong to, as a brand or a model does, whatever their case. A word the library never
 * uses elsewhere in a question ("floppy", "sags"), or after its code ("p0301 cyl 1": the code's own
 * detail), is the technician's own and stays a plain word; a stop word between ("alarm 412 on our px7")
 * ends the name, as does a common word of the language ("the CNC threw alarm 2"). A Chinese compound
 * there names the machine by its last word ("等离子切割机 报警 E5": 切割机), which is a name when no manual
 * uses it, whatever its first words are.
 */
export function typedNames(question: string, unused: (term: string) => boolean): string[] {
  const codeStarts = detectCodes(question, { includeWeak: true }).map((c) => c.start);
  // What follows a code is the code's own detail ("p0301 cyl 1"), not a machine: names come before it.
  const firstCode = Math.min(Infinity, ...codeStarts);
  const tokens = [...question.matchAll(/[^\s,.;:!?，。；：！？、（）()'"“”]+/gu)].map((m) => {
    const model = isModelNumber(m[0]);
    const terms = analyze(m[0]);
    return {
      terms,
      // A common word of the language ("threw", "welder") is the technician's, not a name, unless a model number
      // follows it as it follows a brand ("ender 5"): a machine named in plain words is machineWords'
      // (code-other-scope), which needs the code's manuals to lack them all.
      common: isCommonWord(m[0]),
      head: headWords(m[0], terms),
      model,
      anchor: (m.index ?? 0) <= firstCode && (codeStarts.includes(m.index ?? -1) || model),
    };
  });
  const out: string[] = [];
  tokens.forEach((tok, i) => {
    if (!tok.anchor) return;
    for (let j = i - 1; j >= 0; j--) {
      const w = tokens[j];
      if (!w || w.anchor || w.terms.length === 0 || (w.common && !(j === i - 1 && tok.model))) break;
      if (!w.terms.every((t) => unused(t) && !isGeneric(t))) {
        // A Chinese compound names its kind of machine last ("等离子切割机": 切割机, a cutting machine): when
        // no manual uses that word (nor the shorter words that end it: 割机), it is the machine's name even
        // where the words before it are known ("等离子"). A head the library uses ("数控车床": 车床) is a kind it covers.
        if (w.head.length > 0 && w.head.every((t) => unused(t) && !isGeneric(t))) out.push(w.head[0] as string);
        break;
      }
      out.push(...w.terms);
    }
  });
  return [...new Set(out)];
}

/**
 * A word of three or more Latin letters standing alone, or before its model number ("moteus-r4"): not
 * part of a path, a file name, an identifier, an option or a hyphenated word.
 */
const LATIN_WORD = /(?<![\p{L}\p{N}_./-])\p{Script=Latin}{3,}(?![\p{L}\p{N}_/]|-(?![\p{L}\p{N}]*\p{N})|\.\p{L})/gu;

/**
 * Names coined for a product, typed in any case and anywhere in the question ("the moteus joint",
 * "unlock grbl"): a word that no manual uses, or only in passing (`unknown`), that no English
 * dictionary has, nor as two of its words written as one ("toolboard"), that the thesaurus does not
 * know and that is not an identifier in camel case ("getAlarm"). A technician's own words are words of
 * the language ("floppy", "sags", "doesnt"); a word nobody but its maker uses names that maker's
 * product, and no manual of the library is about it.
 */
export function coinedNames(question: string, unknown: (term: string) => boolean, alternatives: Map<string, string[][]>, words?: Map<string, string>): string[] {
  // A code's own letters ("flt 41", "err 43") are the code as typed, not a name.
  const codes = detectCodes(question, { includeWeak: true });
  const inCode = (at: number) => codes.some((c) => at >= c.start && at < c.start + c.raw.length);
  const out: string[] = [];
  for (const m of question.matchAll(LATIN_WORD)) {
    if (inCode(m.index ?? 0)) continue;
    const terms = analyze(m[0]);
    const term = terms[0];
    if (terms.length !== 1 || term === undefined || isGeneric(term) || !unknown(term)) continue;
    if ((alternatives.get(term) ?? []).some((g) => g.length > 0) || isLanguageWord(m[0]) || isCompound(m[0]) || /^\p{Ll}+\p{Lu}/u.test(m[0])) continue;
    out.push(term);
    if (words && !words.has(term)) words.set(term, m[0]);
  }
  return [...new Set(out)];
}

/** Two words of the language of four letters or more, written as one ("toolboard", "heatbreak"): a thing's plain name. */
function isCompound(word: string): boolean {
  const w = word.toLowerCase();
  for (let i = 4; i <= w.length - 4; i++) if (isLanguageWord(w.slice(0, i)) && isLanguageWord(w.slice(i))) return true;
  return false;
}

/**
 * The words that end a token written in Chinese (a Han-script run last), longest first: its head word
 * ("切割机" of "等离子切割机") and the shorter words the analyzer also cuts from its end ("割机"). Empty otherwise.
 */
function headWords(token: string, terms: string[]): string[] {
  if (!/\p{Script=Han}$/u.test(token)) return [];
  return [...new Set(terms.filter((t) => t.length >= 2 && token.endsWith(t)))].sort((a, b) => b.length - a.length);
}

/**
 * The words in Latin script that stand right before the question's first code, back to a stop word, a
 * generic word, a quantity or a word in another script ("the plasma cutter alarm 5" → plasma, cutter):
 * what the technician calls the machine the code is on. A model number or a bare number among them is
 * the machine's model, not a word of its name, and is passed over ("duet 3 error 12" → duet; "Mitsubishi
 * MR-J4 alarm 16" → mitsubishi). Empty when no word stands there.
 */
export function machineWords(question: string): string[] {
  return [...new Set(machineTokens(question).flatMap((w) => analyze(w)))];
}

/** {@link machineWords} as the question types them, nearest the code first. */
function machineTokens(question: string, codes = detectCodes(question, { includeWeak: true })): string[] {
  const first = Math.min(Infinity, ...codes.map((c) => c.start));
  if (!Number.isFinite(first)) return [];
  const before = [...question.slice(0, first).matchAll(/[^\s,.;:!?，。；：！？、（）()'"“”]+/gu)].map((m) => m[0]);
  const out: string[] = [];
  for (let i = before.length - 1; i >= 0; i--) {
    const w = before[i] as string;
    if (isModelNumber(w)) continue;
    const terms = analyze(w);
    if (!/^[\p{Script=Latin}-]+$/u.test(w) || terms.length === 0 || terms.some(isGeneric)) break;
    out.push(w);
  }
  return out;
}

/**
 * Each content term with the thesaurus alternatives of the word it came from ("hot" → "overheat",
 * "temperatur"…): a passage that uses the manual's word for it covers the term too.
 */
export function termAlternatives(question: string, words?: Map<string, string>): Map<string, string[][]> {
  const out = new Map<string, string[][]>();
  for (const t of contentTerms(question)) out.set(t, []);
  for (const w of questionWords(question)) {
    const a = analyzeQuery(w);
    for (const t of a.terms) {
      out.get(t)?.push(...a.equivalents, ...a.expansions);
      if (words && out.has(t) && !words.has(t)) words.set(t, w);
    }
  }
  return out;
}

const HAN_RUN = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]+/gu;

/**
 * The question's words, each of which yields one or a few terms: space-separated words, and inside a
 * Chinese run the words jieba cuts it into (as the index does: analyze()), so that each Chinese word
 * carries its own thesaurus alternatives and its own name in messages, not the whole sentence's.
 */
export function questionWords(question: string): string[] {
  const out: string[] = [];
  for (const m of question.matchAll(/[^\s,.;:!?，。；：！？、（）()'"“”]+/gu)) {
    const w = m[0];
    if (!/[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/u.test(w)) {
      out.push(w);
      continue;
    }
    let last = 0;
    for (const r of w.matchAll(HAN_RUN)) {
      const before = w.slice(last, r.index);
      if (before) out.push(before);
      out.push(...analyze(r[0]));
      last = (r.index ?? 0) + r[0].length;
    }
    if (last < w.length) out.push(w.slice(last));
  }
  return out;
}

function covered(term: string, alts: string[][] | undefined, set: Set<string>): boolean {
  return set.has(term) || (alts ?? []).some((g) => g.length > 0 && g.every((x) => set.has(x)));
}

/**
 * Passages of the whole library at most that mention a coined name in passing (grbl's name inside one link
 * of another firmware's page and its translation: 2); a product's own manuals use its name far more.
 */
const PASSING_MENTIONS = 3;

export function collectEvidence(input: EvidenceInput): Evidence {
  const codeRaw = input.codes?.detected ?? [];
  const words = new Map<string, string>();
  const alternatives = termAlternatives(input.question, words);
  const terms = [...alternatives.keys()];
  const count = (t: string): number | null => (input.vocabulary ? input.vocabulary(t) : null);
  const unused = (t: string) => count(t) === 0;
  const tokenSets = input.hits.slice(0, PRESENCE_DEPTH).map(passageTokens);
  const union = new Set<string>();
  for (const s of tokenSets) for (const t of s) union.add(t);
  // A coined name no manual uses, or one the library mentions only in passing (a link, an aside: at most
  // PASSING_MENTIONS passages, none of the top ones, not one of its products), is a product it has no manual for.
  const productKeys = new Set((input.products ?? []).flatMap((p) => analyze(p)));
  const inPassing = (t: string) => {
    const n = count(t);
    return n !== null && n <= PASSING_MENTIONS && !union.has(t) && !productKeys.has(t);
  };
  const coined = coinedNames(input.question, inPassing, alternatives, words);
  const typed = [...questionNames(input.question, words), ...typedNames(input.question, unused), ...coined];
  const names = [...new Set(typed)].filter((n) => !isCodeToken(n, codeRaw));
  const share = (list: string[], set: Set<string>) =>
    list.length === 0 ? 0 : list.filter((t) => covered(t, alternatives.get(t), set)).length / list.length;
  let bestIndex = -1;
  let bestCoverage = 0;
  tokenSets.slice(0, EVIDENCE_DEPTH).forEach((set, i) => {
    const c = share(terms, set);
    if (c > bestCoverage) {
      bestCoverage = c;
      bestIndex = i;
    }
  });
  // What is asked of a product the question names: its words apart from the product's own name and the
  // model designations that say which of its machines ("<product> r4 cost": cost).
  const askedAbout = productKeys.size === 0 ? [] : terms.filter((t) => !productKeys.has(t) && !(names.includes(t) && isModelDesignation(t)));
  const missing = terms.filter((t) => !covered(t, alternatives.get(t), union));
  const unionCoverage = terms.length === 0 ? 0 : (terms.length - missing.length) / terms.length;
  // A name is unknown when the library's vocabulary lacks it; the top passages lacking it are not enough.
  // (A coined name the library mentions in passing is as unknown, and said to be mentioned only in passing.)
  const passingNames = coined.filter((n) => (count(n) ?? 0) > 0);
  const missingNames = names.filter((n) => !union.has(n) && ((count(n) ?? 0) === 0 || passingNames.includes(n)));
  // With a code the library defines, a bare model designation ("alarm 412 on our PX7") that the
  // library never uses, with no unknown brand beside it, is the technician's own name for the
  // machine, not another vendor's product: it does not veto the code's record. An unknown brand
  // ("Norvex PX7 alarm 412", "KLM press") or a model the library knows from other manuals still does,
  // and without a code an unknown model still does (its passages are about some other machine).
  // A code that the manuals of the product the question names define is that product's, on whatever
  // machine runs it ("sainsmart 3018 grbl alarm 2"): every name the library never uses is then the machine's.
  const unknownBrand = missingNames.some((n) => !isModelDesignation(n));
  const codeMatches = input.codes?.matches ?? [];
  const scopeFolders = input.scope?.folders ?? [];
  const namedProductDefines = codeMatches.some((m) => scopeFolders.some((f) => m.file.startsWith(`${f}/`)));
  const ownModels = codeMatches.length === 0 ? [] : namedProductDefines ? missingNames : unknownBrand ? [] : missingNames.filter(isModelDesignation);
  const termCover = Object.fromEntries(terms.map((t) => [t, tokenSets.flatMap((set, i) => (covered(t, alternatives.get(t), set) ? [i] : []))]));
  const passageSources = input.hits.slice(0, PRESENCE_DEPTH).map((h) => sourceOf(h.file));
  const matches = input.codes?.matches ?? [];
  // A name the question gives must fit the code's manual too ("Haas alarm 1" is not Grbl's alarm 1).
  const codeTokens = new Set(analyze(matches.map((m) => `${m.manual} ${m.scope.join(' ')} ${m.file.replace(/[/_.-]+/g, ' ')} ${m.section} ${m.text}`).join('\n')));
  // (A scope question, not one of vocabulary: a name the library knows from another machine's manuals still does not fit;
  // nor does one the first passages hold when the documentation sets that define the code never use it: "alarm 412 on the LX200 board".)
  const setCount = input.codeSetVocabulary;
  const fitsCodes = (n: string) => (setCount && !namedProductDefines ? setCount(n) > 0 : union.has(n));
  const namesOutsideCodes = names.filter((n) => !codeTokens.has(n) && !fitsCodes(n) && !ownModels.includes(n));
  // The machine a code is asked for, in plain words ("plasma cutter alarm 5"): the code's own manuals must use one of them.
  const machine = setCount && !namedProductDefines ? machineWords(input.question).filter((t) => !isCodeToken(t, codeRaw)) : [];
  const machineOutsideCodes = machine.length > 0 && machine.every((t) => setCount?.(t) === 0) ? machine : [];
  // A name the library knows (from some manual) that the named product's manuals never use.
  const scope = input.scope;
  const namesOutsideScope = scope
    ? scopeCandidates(input.question, scope.names, input.codes).filter((n) => (union.has(n) || (count(n) ?? 0) > 0) && scope.vocabulary(n) === 0)
    : [];
  // One code path: the fault-code module says which named codes the lookup answered, as typed.
  const check = checkCodes(input.question, input.codes);
  const definedCodes = check.defined;
  const undefinedCodes = check.undefined;
  for (const k of undefinedCodes) if (check.typed[k] && !words.has(k)) words.set(k, check.typed[k]);
  const libraryCounts = input.vocabulary ? Object.fromEntries([...new Set([...terms, ...names])].map((t) => [t, input.vocabulary?.(t) ?? 0])) : undefined;
  // What the first passages share with the question, and whether that is only words most documentation sets use.
  const asked = [...new Set([...terms, ...names])];
  const overlap = asked.filter((t) => (termCover[t] ?? []).some((i) => i < EVIDENCE_DEPTH));
  const docSetList = input.spread?.docSets ?? [];
  const isGenericTerm = (t: string) => input.spread !== undefined && input.spread.of(t) >= genericSpread(docSetList.length);
  const generic = asked.filter(isGenericTerm);
  // The question's subject, when the top passages lack it: a word used in fewer documentation sets than
  // a generic word must be ("boiler", "conveyor"; none: no manual mentions it) names equipment or a part
  // that at most those sets cover, not the passages' ("adjust", "pressure" are every set's).
  const heldTop = (t: string) => (termCover[t] ?? []).length > 0 || union.has(t);
  const unknownSubject = input.spread ? asked.filter((t) => !heldTop(t) && (input.spread?.of(t) ?? 0) < GATE.minGenericSets) : [];
  let agreement: number | null = null;
  if (input.keywordTop && input.vectorTop && input.keywordTop.length > 0 && input.vectorTop.length > 0) {
    const kw = new Set(input.keywordTop.slice(0, EVIDENCE_DEPTH));
    const vec = input.vectorTop.slice(0, EVIDENCE_DEPTH);
    agreement = vec.filter((id) => kw.has(id)).length / Math.min(EVIDENCE_DEPTH, vec.length);
  }
  return {
    terms,
    askedAbout,
    bestIndex,
    bestCoverage,
    unionCoverage,
    missing,
    libraryCounts,
    termCover,
    passageSources,
    names,
    missingNames,
    passingNames,
    namesOutsideCodes,
    machineOutsideCodes,
    namesOutsideScope,
    scopeNames: scope?.names ?? [],
    scopeTitles: [...new Set(scope?.titles ?? [])],
    ownModels,
    unmatchedMessage: unmatchedMessage(input.question, tokenSets),
    definedCodes,
    undefinedCodes,
    agreement,
    words: Object.fromEntries(words),
    otherDefinitions: scope ? otherDefinitions(input.codes, definedCodes, scope) : [],
    overlap,
    generic,
    unknownSubject,
    docSets: docSetList,
    products: input.products ?? [],
  };
}

/**
 * In how many documentation sets a term must occur to be generic: at least `genericSetShare` of the
 * library's sets and at least `minGenericSets` (a library of two sets has no generic words).
 */
export function genericSpread(docSets: number, t: GateThresholds = GATE): number {
  return Math.max(t.minGenericSets, Math.ceil(docSets * t.genericSetShare));
}

/**
 * The definitions of the question's codes when they are another product's: the named product's
 * folders hold none of them, and each comes from another documentation set (a folder of its own)
 * whose record neither names the named product nor shares a model designation with its manuals'
 * titles and equipment (an alarm list "hpb-200-alarms.csv" kept beside the "HPB-200" press brake's
 * manuals is that machine's own). A passing mention of the other product in the named product's
 * manuals ("unlike Grbl, …") does not make its codes theirs. Empty when a code may be the named
 * product's, when a record has no folder (whose codes they are cannot be told), or when no product is named.
 */
function otherDefinitions(codes: CodeLookupResponse | null, defined: string[], scope: NonNullable<EvidenceInput['scope']>): OtherDefinition[] {
  const folders = scope.folders ?? [];
  if (folders.length === 0 || defined.length === 0 || !codes) return [];
  const inScope = (file: string) => folders.some((f) => file.startsWith(`${f}/`));
  const matches = codes.matches;
  if (matches.length === 0 || matches.some((m) => inScope(m.file))) return [];
  const own = new Set(scope.names.flatMap((n) => analyze(n)));
  const named = (m: CodeMatch) => analyze(`${m.manual} ${m.scope.join(' ')} ${m.file.replace(/[/_.-]+/g, ' ')} ${m.text}`).some((t) => own.has(t));
  const models = new Set(modelDesignations((scope.titles ?? []).join('\n')));
  const sharesModel = (m: CodeMatch) => modelDesignations(`${m.manual}\n${m.scope.join('\n')}\n${m.file}`).some((d) => models.has(d));
  const inOtherSet = (m: CodeMatch) => m.file.includes('/');
  if (!matches.every((m) => !named(m) && !sharesModel(m) && inOtherSet(m))) return [];
  const seen = new Set<string>();
  return matches
    .filter((m) => !seen.has(`${m.key}|${m.manual}`) && seen.add(`${m.key}|${m.manual}`))
    .map((m) => ({ key: m.key, manual: m.manual, file: m.file, title: m.title, description: m.description }));
}

/** Model designations a text gives ("HPB-200", "hpb_200", "SD40", "MK4S" → "hpb200", "sd40", "mk4s"): letters then digits, one "-" or "_" between at most. */
export function modelDesignations(text: string): string[] {
  return [...text.matchAll(/(?<![\p{L}\p{N}])\p{L}+[-_]?\d+\p{L}*(?![\p{L}\p{N}])/gu)].map((m) => m[0].toLowerCase().replace(/[-_]/g, ''));
}

/**
 * Words of a quoted message that must stand in one passage, as a share of its content terms (numbers
 * aside: "Valve 2" or "Valve 3" is the same message). All of up to four words, all but one of five.
 */
export const MESSAGE_COVERAGE = 0.8;

/**
 * The first quoted message no top passage holds: a display or log message is written in the manual
 * that explains it, so a message none of the best passages shows most of the words of belongs to
 * some other product (a panel message quoted from another vendor's controller).
 */
function unmatchedMessage(question: string, passages: Set<string>[]): string | null {
  for (const msg of quotedMessages(question)) {
    const terms = [...new Set(contentTerms(msg))].filter((t) => !/^\d+$/.test(t));
    if (terms.length < MIN_MESSAGE_TERMS) continue; // a word or a code, not a message: other rules judge it
    const best = Math.max(0, ...passages.map((set) => terms.filter((t) => set.has(t)).length / terms.length));
    if (best < MESSAGE_COVERAGE) return msg;
  }
  return null;
}

/**
 * The names to look up in the named product's manuals: the question's names other than the
 * product's own, its codes, and a capitalised first word (a sentence's first word is capitalised
 * whatever it is); acronyms and model numbers count wherever they stand.
 */
export function scopeCandidates(question: string, scopeNames: string[], codes: CodeLookupResponse | null): string[] {
  const own = new Set(scopeNames.flatMap((n) => [...analyze(n), nameKeyOf(n)]));
  const words = new Map<string, string>();
  const first = /^[\s"'“(]*([\p{L}\p{N}][\p{L}\p{N}_-]*)/u.exec(question)?.[1];
  return questionNames(question, words).filter((n) => {
    if (own.has(n) || isCodeToken(n, codes?.detected ?? [])) return false;
    const raw = words.get(n) ?? n;
    return !(raw === first && /^\p{Lu}\p{Ll}+$/u.test(raw));
  });
}

function nameKeyOf(name: string): string {
  return name.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, '');
}

/** A name made of letters and digits ("px7", "hb200", "sl3"), as analyze() writes it: a model, not a brand. */
function isModelDesignation(name: string): boolean {
  return /\p{L}/u.test(name) && /\p{N}/u.test(name);
}

/** A token that gives a machine's model as typed: a bare number, or Latin letters with digits that are no quantity ("3", "gp8", "PX-40"; not "24v"). */
function isModelNumber(token: string): boolean {
  return /^\d+$/.test(token) || (/\p{Script=Latin}/u.test(token) && /\d/.test(token) && !isQuantity(token));
}

/** The documentation set a passage belongs to: the top folder of its file (the file itself at the root). */
export function sourceOf(file: string): string {
  const i = file.indexOf('/');
  return i < 0 ? file : file.slice(0, i);
}

/** Weighted shares of the terms: in the best of the first passages, and in one source's top passages together. */
export interface Coverage {
  best: number;
  source: number;
}

/**
 * Term weights: a word the library never uses weighs `unknownWordWeight` (it may be colloquial, or the
 * subject the library lacks), a name `nameWeight`, every other term 1.
 */
export function weightedCoverage(ev: Evidence, t: GateThresholds = GATE): Coverage {
  const counts = ev.libraryCounts;
  const weight = (term: string) => (counts && (counts[term] ?? 0) === 0 ? t.unknownWordWeight : 1) * (ev.names.includes(term) ? t.nameWeight : 1);
  const total = ev.terms.reduce((s, term) => s + weight(term), 0);
  if (total <= 0) return { best: 0, source: 0 };
  let best = 0;
  for (let i = 0; i < Math.min(EVIDENCE_DEPTH, ev.passageSources.length); i++) {
    best = Math.max(best, ev.terms.reduce((s, term) => s + (ev.termCover[term]?.includes(i) ? weight(term) : 0), 0) / total);
  }
  let source = 0;
  for (const src of new Set(ev.passageSources)) {
    const inSource = (term: string) => (ev.termCover[term] ?? []).some((i) => ev.passageSources[i] === src);
    source = Math.max(source, ev.terms.reduce((s, term) => s + (inSource(term) ? weight(term) : 0), 0) / total);
  }
  return { best, source };
}

/** Missing terms that can veto an answer: those the library uses somewhere (all of them without a vocabulary). */
export function vetoTerms(ev: Evidence): string[] {
  const counts = ev.libraryCounts;
  return counts ? ev.missing.filter((m) => (counts[m] ?? 0) > 0) : ev.missing;
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
  rule:
    | 'code-defined'
    | 'code-other-product'
    | 'code-other-scope'
    | 'code-undefined'
    | 'no-passages'
    | 'unknown-message'
    | 'unknown-name'
    | 'name-other-scope'
    | 'unknown-terms'
    | 'generic-overlap'
    | 'product-only'
    | 'low-coverage'
    | 'covered';
}

export type GateThresholds = typeof GATE;

/** Gate thresholds (tuned on the development questions as a whole, never per question: scripts/calibrate-gate.ts). */
export const GATE = {
  /** Answer when one of the best passages holds this (weighted) share of the content terms… */
  minBestCoverage: 0.35,
  /** …or the top passages of one source (one documentation set) together hold this share. */
  minUnionCoverage: 0.6,
  /** Refuse when at least this many content terms that the library uses (and this share of all terms) occur in no top passage. */
  maxMissingTerms: 3,
  maxMissingShare: 0.4,
  /** Weight of a word no manual of the library uses (colloquial, or a subject the library lacks). */
  unknownWordWeight: 0,
  /** …but refuse when at least this share of the question's words (and two or more) are words no manual uses. */
  maxUnknownShare: 0.5,
  /** Weight of a name in coverage: the machine or product says which manuals, the other words what about. */
  nameWeight: 0.5,
  /** With vectors: answer when the two retrievers agree this much and the union covers half. */
  minAgreement: 0.4,
  minUnionWithAgreement: 0.5,
  /** A term is generic when this share of the library's documentation sets use it… */
  genericSetShare: 0.5,
  /** …and at least this many. */
  minGenericSets: 3,
  /**
   * The words the passages lack must be this share of them and the words the first passages hold to be
   * the question's subject: one word beside five or more that the passages hold is a detail of what they
   * are about (a verb form, a symptom).
   */
  minSubjectShare: 0.2,
  /**
   * …and when the words the passages lack (two or more) are this share of the question's, they are its
   * subject whatever else the passages share with it ("switch on the dust collector trips the breaker":
   * passages about a plasma torch's switch that trips share "trip", not a dust collector). Dev answerable
   * questions that name no product reach 0.33.
   */
  subjectShareAlone: 0.5,
};

/** Decides whether the retrieved evidence answers the question. Pure. */
export function gate(ev: Evidence, hitCount: number, t: GateThresholds = GATE): GateDecision {
  if (ev.definedCodes.length > 0) {
    // The product the question names has manuals, and they define none of its codes: another product's definition is not its answer.
    if (ev.otherDefinitions.length > 0) {
      return {
        answer: false,
        reason: `The manuals of ${quoteList(ev.scopeNames, ev.words)} do not define ${ev.definedCodes.map((k) => ev.words[k] ?? displayKey(k)).join(', ')}. ${elsewhere(ev.otherDefinitions)}`,
        rule: 'code-other-product',
      };
    }
    if (ev.namesOutsideCodes.length > 0) {
      return {
        answer: false,
        reason: `${capitalised(ev.definedCodes.map(displayKey).join(', '))} is defined only in manuals that do not mention ${quoteList(ev.namesOutsideCodes, ev.words)}.${covers(ev)}`,
        rule: 'code-other-scope',
      };
    }
    if (ev.machineOutsideCodes.length > 0) {
      return {
        answer: false,
        reason: `${capitalised(ev.definedCodes.map(displayKey).join(', '))} is defined only in manuals that do not mention ${quoteList(ev.machineOutsideCodes, ev.words)}.${covers(ev)}`,
        rule: 'code-other-scope',
      };
    }
    return { answer: true, reason: 'A manual defines the code.', rule: 'code-defined' };
  }
  if (ev.undefinedCodes.length > 0) {
    return { answer: false, reason: `No installed manual defines ${ev.undefinedCodes.map((k) => ev.words[k] ?? displayKey(k)).join(', ')}.`, rule: 'code-undefined' };
  }
  if (hitCount === 0) return { answer: false, reason: 'Nothing in the installed manuals matches the question.', rule: 'no-passages' };
  if (ev.unmatchedMessage !== null) {
    return { answer: false, reason: `No installed manual shows the message "${ev.unmatchedMessage}".`, rule: 'unknown-message' };
  }
  // Asked with a product whose manuals never use names that other manuals do, name-other-scope below says so.
  const absent = ev.missingNames.filter((n) => !ev.passingNames.includes(n));
  const inPassing = ev.namesOutsideScope.length > 0 ? [] : ev.missingNames.filter((n) => ev.passingNames.includes(n));
  if (absent.length > 0 || inPassing.length > 0) {
    const said = [
      ...(absent.length > 0 ? [`The installed manuals do not mention ${quoteList(absent, ev.words)}.`] : []),
      ...(inPassing.length > 0 ? [`The installed manuals mention ${quoteList(inPassing, ev.words)} only in passing.`] : []),
    ];
    return { answer: false, reason: `${said.join(' ')}${modelsCovered(ev) || covers(ev)}`, rule: 'unknown-name' };
  }
  if (ev.namesOutsideScope.length > 0) {
    return {
      answer: false,
      reason: `The manuals of ${quoteList(ev.scopeNames, ev.words)} do not mention ${quoteList(ev.namesOutsideScope, ev.words)} (other manuals do).`,
      rule: 'name-other-scope',
    };
  }
  // Words the library never uses (colloquial ones: "floppy", "sags") do not veto covered topic words.
  // Counted in the question's words: "VF-2" (vf2, vf, 2) or a Chinese word and its sub-words is one word.
  const veto = vetoTerms(ev);
  const vetoWords = wordCount(veto, ev.words);
  if (vetoWords >= t.maxMissingTerms && vetoWords >= wordCount(ev.terms, ev.words) * t.maxMissingShare) {
    return {
      answer: false,
      reason: `The closest passages say nothing about ${quoteList(veto, ev.words)}.`,
      rule: 'unknown-terms',
    };
  }
  const unknown = ev.libraryCounts ? ev.terms.filter((x) => (ev.libraryCounts?.[x] ?? 0) === 0) : [];
  const unknownWords = wordCount(unknown, ev.words);
  if (unknownWords >= 2 && unknownWords >= wordCount(ev.terms, ev.words) * t.maxUnknownShare) {
    return {
      answer: false,
      reason: `No installed manual uses the words ${quoteList(unknown, ev.words)}.`,
      rule: 'unknown-terms',
    };
  }
  // A question about a product the library covers whose every word about what is asked the first passages
  // lack ("what does a <product> r4 cost", "the warranty on a <product>"): they share its name, not the question.
  if (ev.askedAbout.length > 0 && !ev.askedAbout.some((t) => (ev.termCover[t] ?? []).some((i) => i < EVIDENCE_DEPTH))) {
    return {
      answer: false,
      reason: `The closest passages of the manuals of ${quoteList(ev.products, ev.words)} say nothing about ${quoteList(ev.askedAbout, ev.words)}.`,
      rule: 'product-only',
    };
  }
  // Passages that share only words most documentation sets use ("adjust", "pressure", "switch") with a
  // question about something they do not mention, and that few manuals or none mention, are about other
  // equipment, however well those words cover it; so are passages that lack half the question's words or
  // more, few-set words that name its subject, whatever else they share with it. A question that names
  // one of the library's products is about equipment it covers (a word no manual uses there is the
  // technician's own: "floppy").
  const subjectWords = wordCount(ev.unknownSubject, ev.words);
  const askedWords = wordCount([...ev.terms, ...ev.names], ev.words);
  // Beside what the first passages hold: words that deeper passages hold are neither ("fuse" in the tenth passage).
  const judgedWords = wordCount([...ev.overlap, ...ev.unknownSubject], ev.words);
  const onlyGeneric = ev.overlap.every((x) => ev.generic.includes(x));
  if (ev.products.length === 0 && ev.overlap.length > 0 && subjectWords > 0 && subjectWords >= judgedWords * t.minSubjectShare && (onlyGeneric || (subjectWords >= 2 && subjectWords >= askedWords * t.subjectShareAlone))) {
    const shared = onlyGeneric ? `share only words most of the manuals use (${quoteList(ev.overlap, ev.words)})` : `share ${quoteList(ev.overlap, ev.words)} with the question`;
    return {
      answer: false,
      reason: `The closest passages ${shared}, and ${ev.unknownSubject.every((x) => ev.libraryCounts?.[x] === 0) ? 'no manual' : 'none of them'} mentions ${quoteList(ev.unknownSubject, ev.words)}.${covers(ev)}`,
      rule: 'generic-overlap',
    };
  }
  const cov = weightedCoverage(ev, t);
  const agree = ev.agreement !== null && ev.agreement >= t.minAgreement && ev.unionCoverage >= t.minUnionWithAgreement;
  if (cov.best >= t.minBestCoverage || cov.source >= t.minUnionCoverage || agree) {
    return { answer: true, reason: 'Passages cover the question.', rule: 'covered' };
  }
  return { answer: false, reason: "The closest passages share too few of the question's words to be an answer.", rule: 'low-coverage' };
}

/** Most documentation sets a refusal names. */
const MAX_SETS_NAMED = 12;

/** What the library covers, said after a refusal about other equipment ("" when not known). */
function covers(ev: Evidence): string {
  if (ev.docSets.length === 0) return '';
  const named = ev.docSets.slice(0, MAX_SETS_NAMED).join(', ');
  const more = ev.docSets.length > MAX_SETS_NAMED ? ` and ${ev.docSets.length - MAX_SETS_NAMED} more` : '';
  return ` The installed manuals cover: ${named}${more}.`;
}

/** Most manual titles a refusal lists. */
const MAX_TITLES_NAMED = 8;

/**
 * Which manuals of the product the question names the library holds (their titles and equipment: the
 * models it covers), said after a refusal for a model of that product they never mention ("Orvan OV9"
 * when they are the OV7's); "" when the question names none of the library's products, names no
 * unknown model, or the titles are not known.
 */
function modelsCovered(ev: Evidence): string {
  if (ev.scopeNames.length === 0 || ev.scopeTitles.length === 0 || !ev.missingNames.some(isModelDesignation)) return '';
  const named = ev.scopeTitles.slice(0, MAX_TITLES_NAMED).join('; ');
  const more = ev.scopeTitles.length > MAX_TITLES_NAMED ? ` and ${ev.scopeTitles.length - MAX_TITLES_NAMED} more` : '';
  return ` The installed manuals for ${quoteList(ev.scopeNames, ev.words)} are: ${named}${more}.`;
}

/** Another product's definitions of the codes, said as theirs. */
function elsewhere(defs: OtherDefinition[]): string {
  const meaning = (d: OtherDefinition) => (d.description && !d.description.startsWith(d.title) ? `${d.title}: ${d.description}` : d.description || d.title);
  const shown = defs.slice(0, 3).map((d) => `${d.manual} (${d.file}) defines ${displayKey(d.key)} as "${meaning(d)}"`);
  return `For another product, ${shown.join('; ')}; that is not an answer for this one.`;
}

function wordCount(terms: string[], words: Record<string, string>): number {
  return new Set(terms.map((x) => words[x] ?? x)).size;
}

/** The names as the question typed them, quoted, each once whatever its case ("voron" and "VORON" from a folder and a title). */
function quoteList(xs: string[], words: Record<string, string> = {}): string {
  const seen = new Set<string>();
  return xs
    .map((x) => words[x] ?? x)
    .filter((x) => !seen.has(x.toLowerCase()) && seen.add(x.toLowerCase()))
    .map((x) => `"${x}"`)
    .join(', ');
}

/** A sentence starts with a capital: "Alarm 412 is defined only in…". */
function capitalised(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

function displayKey(key: string): string {
  const m = /^([a-z-]+):(.+)$/.exec(key);
  return m ? `${m[1]} ${m[2]}` : key.toUpperCase();
}
