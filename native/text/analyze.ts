/**
 * The keyword analyzer: one pure function used both when a chunk is indexed and when a query is
 * searched, so both sides always produce the same tokens. The full-text index then only splits on
 * whitespace (no stemming or stop words of its own).
 *
 * Scheme, applied to NFKC-normalised, lower-cased text (full-width forms become ASCII):
 * - Apostrophes inside words are dropped: "won't" → "wont", "driver's" → "drivers" → "driver"; a stop
 *   word with a clitic is that stop word ("there's", "they're", "I'm" yield nothing). (Dropping more
 *   tokens keeps older indexes valid: their extra tokens are never asked for.)
 * - Chinese (and other CJK) runs are segmented with jieba in search mode (long words also yield their
 *   dictionary sub-words: 限位开关 → 限位, 开关, 限位开关), with the thesaurus' Chinese terms added to the
 *   dictionary; a few function words (的, 了, 怎么…) are dropped.
 * - Other runs are split into raw tokens: letters/digits, joined by the connectors `_ : - . /`, with an
 *   optional `$` or `#` prefix.
 *   - a plain word: dropped if a stop word, else Porter-stemmed ("homing" → "home");
 *   - a plain number or letter/digit mix is kept as is: "p0301", "24v", "404";
 *   - a decimal or dotted number is kept whole only: "1.5", "2.0.3";
 *   - a compound (with connectors or a `$`/`#` prefix) yields its joined form, connectors `_ : - /`
 *     removed and `.` kept, plus each part treated as above:
 *       "error:9" → "error9", "error", "9";  "E-204" → "e204", "e", "204";
 *       "ERROR_DRV_FAULT" → "errordrvfault", "error", "drv", "fault";  "$X" → "$x", "x";
 *       "$100" → "$100", "100";  "printer.cfg" → "printer.cfg", "printer", "cfg".
 *   So "E204", "E-204" and "e 204" all meet, and a code written whole scores above its parts.
 * - Tokens longer than {@link MAX_TOKEN_LENGTH} characters are dropped.
 *
 * Duplicates are kept by analyze() (term frequency matters when indexing); analyzeQuery() de-duplicates.
 */
import { createRequire } from 'node:module';
import { stemmer } from 'stemmer';
import { EQUIVALENTS, THESAURUS } from './thesaurus-data.js';
import { compileThesaurus, expandQuery, type CompiledThesaurus } from './thesaurus.js';

export const MAX_TOKEN_LENGTH = 64;

/**
 * Bump when the scheme (or what the store indexes with it, see store/rows.ts) changes: indexed
 * tokens must then be rebuilt, and the next ingest re-indexes every file.
 */
export const ANALYZER_VERSION = 5;

/**
 * The oldest analyzer whose index this one still searches: versions 3, 4 and 5 only added thesaurus
 * words to jieba's dictionary (search mode still yields their dictionary sub-words, which the older
 * index mostly holds), so a pack built with version 2 is installed and searched as it is, a little
 * less precisely for the new words; a library re-indexes on its next ingest (no re-embedding).
 */
export const MIN_SEARCHABLE_ANALYZER = 2;

const EN_STOP = new Set(
  (
    'a an and are as at be been but by for from if in into is it its of on or so such that the their then ' +
    'there these they this those to was were will with i me my we our you your he she him her them ' +
    'do does did doing done can could should would may might shall must has have had having ' +
    'how what when where which who whom why s t am just also than too very about'
  ).split(' '),
);

const ZH_STOP = new Set(
  '的 了 和 与 及 或 是 在 有 为 把 被 就 都 而 也 吗 呢 吧 啊 呀 么 着 之 其 该 这 那 这个 那个 一个 怎么 怎样 如何 什么 哪 哪些 哪个 请问 我 你 他 它 我们 时 后'.split(
    ' ',
  ),
);

const CJK_CLASS = '\\p{Script=Han}\\p{Script=Hiragana}\\p{Script=Katakana}\\p{Script=Hangul}';
const WORD_CLASS = '\\p{Script=Latin}\\p{Script=Greek}\\p{Script=Cyrillic}\\p{Nd}\\p{M}';
const RUN = new RegExp(`([${CJK_CLASS}]+)|([$#]?[${WORD_CLASS}]+(?:[_:\\-./][${WORD_CLASS}]+)*)`, 'gu');
const APOSTROPHE = /(\p{L})['’](?=\p{L})/gu;
/** A stop word with a clitic ("there's", "they're", "I'm", "we've"): the stop word, dropped like it. */
const STOP_CONTRACTION = /(?<!\p{L})(\p{L}+)['’](?:s|re|ll|ve|d|m)(?!\p{L})/gu;
const CONNECTOR = /[_:\-./]/;
const LATIN_WORD = /^[a-z]+$/;
const DOTTED_NUMBER = /^\d+(?:\.\d+)+$/;

interface Segmenter {
  cutForSearch(sentence: string, hmm?: boolean | null): string[];
}

let jieba: Segmenter | null = null;

/** Loads jieba and its dictionary on first use (≈ 0.2 s), plus the thesaurus' Chinese terms. */
function segmenter(): Segmenter {
  if (jieba) return jieba;
  const require = createRequire(import.meta.url);
  const { Jieba } = require('@node-rs/jieba') as typeof import('@node-rs/jieba');
  const { dict } = require('@node-rs/jieba/dict') as { dict: Uint8Array };
  const instance = Jieba.withDict(dict);
  const extra = new Set<string>();
  // One word a line ("word freq"): a term with a space in it would make jieba reject the whole dictionary.
  for (const e of THESAURUS) for (const t of e.zh) if ([...t].length >= 2 && !/\s/u.test(t)) extra.add(t.normalize('NFKC').toLowerCase());
  instance.loadDict(Buffer.from([...extra].map((w) => `${w} 2000`).join('\n') + '\n', 'utf8'));
  jieba = instance;
  return instance;
}

/** Stems are memoised: the Porter stemmer costs ≈ 1 µs a word, and manuals repeat their words. */
const stems = new Map<string, string>();
const MAX_MEMO = 200_000;

function stem(word: string): string {
  if (!LATIN_WORD.test(word)) return word;
  let s = stems.get(word);
  if (s === undefined) {
    if (stems.size >= MAX_MEMO) stems.clear();
    s = stemmer(word);
    stems.set(word, s);
  }
  return s;
}

/** A token without connectors or prefix. */
function pushSimple(w: string, out: string[]): void {
  if (w.length === 0 || w.length > MAX_TOKEN_LENGTH) return;
  if (/^\p{L}+$/u.test(w)) {
    if (EN_STOP.has(w)) return;
    out.push(stem(w));
  } else {
    out.push(w);
  }
}

function pushRaw(raw: string, out: string[]): void {
  let prefix = '';
  let body = raw;
  if (raw.startsWith('$') || raw.startsWith('#')) {
    prefix = raw[0] ?? '';
    body = raw.slice(1);
  }
  if (!prefix && !CONNECTOR.test(body)) {
    pushSimple(body, out);
    return;
  }
  if (!prefix && DOTTED_NUMBER.test(body)) {
    if (body.length <= MAX_TOKEN_LENGTH) out.push(body);
    return;
  }
  const joined = prefix + body.replace(/[_:\-/]/g, '');
  if (joined.length <= MAX_TOKEN_LENGTH) out.push(joined);
  // A dotted path of identifiers (`hm2_5i20.0.watchdog.has_bit`) also yields each identifier whole.
  if (body.includes('.')) {
    for (const seg of body.split('.')) {
      if (/[_:\-/]/.test(seg)) {
        const whole = seg.replace(/[_:\-/]/g, '');
        if (whole && whole.length <= MAX_TOKEN_LENGTH) out.push(whole);
      }
    }
  }
  for (const part of body.split(/[_:\-./]/)) {
    if (part && part !== joined) pushSimple(part, out);
  }
}

function pushCjk(run: string, out: string[]): void {
  for (const w of segmenter().cutForSearch(run, true)) {
    const t = w.trim();
    if (t && !ZH_STOP.has(t) && t.length <= MAX_TOKEN_LENGTH) out.push(t);
  }
}

/** Tokens of a text, for indexing and querying. Pure (jieba is loaded lazily, once). */
export function analyze(text: string): string[] {
  const out: string[] = [];
  if (!text) return out;
  const norm = text
    .normalize('NFKC')
    .toLowerCase()
    .replace(STOP_CONTRACTION, (m, base: string) => (EN_STOP.has(base) ? base : m))
    .replace(APOSTROPHE, '$1');
  for (const m of norm.matchAll(RUN)) {
    if (m[1]) pushCjk(m[1], out);
    else if (m[2]) pushRaw(m[2], out);
  }
  return out;
}

export interface AnalyzedQuery {
  /** The query's own tokens, de-duplicated, in order. */
  terms: string[];
  /**
   * Thesaurus expansions (to be weighted lower than the terms): one token group per thesaurus term;
   * the tokens of a multi-word group should all be present for it to count.
   */
  expansions: string[][];
  /** Expansions from EQUIVALENTS (abbreviations, spelled-out forms): weighted close to the terms. */
  equivalents: string[][];
}

let thesaurus: CompiledThesaurus | null = null;
let equivalents: CompiledThesaurus | null = null;

/**
 * Compiles the thesauri (which loads the Chinese segmenter and its dictionary: a few tenths of a
 * second) unless done. A library calls it when its contents change, so the technician's first
 * query after adding manuals does not wait for it.
 */
export function prepareQueryAnalysis(): { thesaurus: CompiledThesaurus; equivalents: CompiledThesaurus } {
  thesaurus ??= compileThesaurus(THESAURUS, analyze);
  equivalents ??= compileThesaurus(EQUIVALENTS, analyze);
  return { thesaurus, equivalents };
}

/** Whether a query is analyzed without compiling anything first (see prepareQueryAnalysis). */
export function queryAnalysisReady(): boolean {
  return thesaurus !== null && equivalents !== null;
}

/** Analyzes a query and adds thesaurus expansions. */
export function analyzeQuery(text: string, opts: { expand?: boolean } = {}): AnalyzedQuery {
  const terms = [...new Set(analyze(text))];
  if (opts.expand === false || terms.length === 0) return { terms, expansions: [], equivalents: [] };
  const { thesaurus, equivalents } = prepareQueryAnalysis();
  const eq = [...expandQuery(equivalents, text, terms), ...joinedPairs(text, terms)];
  const tight = new Set(eq.map((g) => g.join(' ')));
  return {
    terms,
    expansions: expandQuery(thesaurus, text, terms).filter((g) => !tight.has(g.join(' '))),
    equivalents: eq,
  };
}

/** A word of the query; a contraction ("can't", "won't") is one word, never joined to its neighbours. */
const QUERY_WORD = /[\p{L}\p{Nd}]+(?:['’][\p{L}]+)*/gu;

/**
 * Technicians type identifiers as words ("has bit" for `has_bit`, "max z velocity", "enable the
 * robot" for `EnableRobot`): each pair of adjacent Latin words, and each pair of adjacent words once
 * stop words are left out, also searches as the one token an identifier `a_b` / `a-b` / `aB` indexes to.
 */
function joinedPairs(text: string, own: string[]): string[][] {
  const words = [...text.normalize('NFKC').toLowerCase().matchAll(QUERY_WORD)].map((m) => m[0]);
  const have = new Set(own);
  const out: string[][] = [];
  const pairs = (ws: string[]) => {
    for (let i = 0; i + 1 < ws.length; i++) {
      const a = ws[i] as string;
      const b = ws[i + 1] as string;
      if (!/^[a-z][a-z0-9]*$/.test(a) || !/^[a-z0-9]+$/.test(b)) continue;
      const joined = `${a}${b}`;
      if (joined.length > MAX_TOKEN_LENGTH || have.has(joined)) continue;
      have.add(joined);
      out.push([joined]);
    }
  };
  pairs(words);
  pairs(words.filter((w) => !EN_STOP.has(w)));
  return out;
}
