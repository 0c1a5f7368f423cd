/**
 * Retrieval evaluation: runs question sets (shared/eval/README.md format) through the engine and
 * scores hit@1, hit@5, MRR@10, multi_hop both@5 and latency per question type.
 *
 * A retrieved passage is correct when it comes from the expected file (or an ALT file named in
 * `notes` as `ALT: <file> :: <substring>`) and contains the expected substring after collapsing
 * whitespace. For PDFs the substring is looked up in the whole extracted page of the hit.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import type { EngineApi, SearchHit } from '../native/contract/api.js';
import { parseFile } from '../native/parse/index.js';
import { analyze } from '../native/text/analyze.js';
import { detectLang } from '../native/text/lang.js';
import { placeWithin } from '../native/search/rank/rrf.js';
import { factPresent } from '../native/pipelines/answer-check.js';

export interface Question {
  id: string;
  type: string;
  query: string;
  expect_file: string | string[] | null;
  expect_contains: string | string[] | null;
  answer_facts?: string[];
  notes?: string;
}

export interface QuestionResult {
  id: string;
  type: string;
  query: string;
  /** 1-based rank of the first correct hit per expected passage (null = not in the top k). */
  ranks: (number | null)[];
  ms: number;
  top: { file: string; page: number | null; kind: string; text: string }[];
}

export interface TypeRow {
  type: string;
  n: number;
  hit1: number;
  hit5: number;
  mrr10: number;
  p50: number;
  p95: number;
}

export interface EvalReport {
  rows: TypeRow[];
  overall: TypeRow;
  results: QuestionResult[];
}

export async function loadQuestions(file: string): Promise<Question[]> {
  const text = await fs.readFile(file, 'utf8');
  return text
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as Question);
}

const collapse = (s: string) => s.replace(/\s+/g, ' ').trim();

export interface Target {
  files: { file: string; contains: string }[];
}

/** Expected passages of a question: one target per passage, each with its alternates. */
export function targetsOf(q: Question): Target[] {
  if (q.expect_file === null || q.expect_contains === null) return [];
  const files = Array.isArray(q.expect_file) ? q.expect_file : [q.expect_file];
  const contains = Array.isArray(q.expect_contains) ? q.expect_contains : [q.expect_contains];
  const alts = [...(q.notes ?? '').matchAll(/ALT:\s*(.+?)\s*::\s*(.+?)(?=\s*\|\||$)/g)].map((m) => ({
    file: (m[1] ?? '').trim(),
    contains: (m[2] ?? '').trim(),
  }));
  return files.map((file, i) => ({ files: [{ file, contains: contains[i] ?? contains[0] ?? '' }, ...(files.length === 1 ? alts : [])] }));
}

/** Extracted page texts of PDFs, for matching PDF hits against their whole page. */
export class PageTexts {
  private cache = new Map<string, Map<number, string>>();
  constructor(private readonly corpus: string) {}
  async page(file: string, page: number): Promise<string | undefined> {
    let pages = this.cache.get(file);
    if (!pages) {
      pages = new Map();
      try {
        const doc = await parseFile(path.join(this.corpus, file));
        for (const b of doc.blocks) {
          if (b.page === null) continue;
          pages.set(b.page, `${pages.get(b.page) ?? ''} ${b.text}`);
        }
      } catch {
        // unreadable: no page text
      }
      for (const [p, t] of pages) pages.set(p, collapse(t));
      this.cache.set(file, pages);
    }
    return pages.get(page);
  }
}

export async function isCorrect(hit: SearchHit, target: Target, pages: PageTexts): Promise<boolean> {
  for (const t of target.files) {
    if (hit.file !== t.file) continue;
    const want = collapse(t.contains);
    if (collapse(hit.text).includes(want)) return true;
    if (hit.page !== null && /\.pdf$/i.test(hit.file)) {
      const pageText = await pages.page(hit.file, hit.page);
      if (pageText?.includes(want)) return true;
    }
  }
  return false;
}

export async function runEval(engine: EngineApi, corpus: string, questions: Question[], k = 10): Promise<EvalReport> {
  const pages = new PageTexts(corpus);
  const results: QuestionResult[] = [];
  for (const q of questions) {
    const res = await engine.search({ query: q.query, k });
    if (!res.ok) throw new Error(`${q.id}: ${res.error.code} ${res.error.message}`);
    const hits = res.value.hits;
    const ranks: (number | null)[] = [];
    for (const target of targetsOf(q)) {
      let rank: number | null = null;
      for (let i = 0; i < hits.length; i++) {
        if (await isCorrect(hits[i] as SearchHit, target, pages)) {
          rank = i + 1;
          break;
        }
      }
      ranks.push(rank);
    }
    results.push({
      id: q.id,
      type: q.type,
      query: q.query,
      ranks,
      ms: res.value.ms,
      top: hits.slice(0, 5).map((h) => ({ file: h.file, page: h.page, kind: h.kind, text: h.text.slice(0, 160) })),
    });
  }
  return reportOf(results);
}

/** Per-type rows and the overall row of some results (a whole run or one subset of it). */
export function reportOf(results: QuestionResult[]): EvalReport {
  const types = [...new Set(results.map((r) => r.type))];
  const rows = types.map((t) => summarise(t, results.filter((r) => r.type === t)));
  const overall = summarise('all (excl. out_of_scope)', results.filter((r) => r.type !== 'out_of_scope'));
  return { rows, overall, results };
}

/** A question with several passages (multi_hop) counts at k only when all are within the top k. */
function rankAt(r: QuestionResult): number | null {
  if (r.ranks.length === 0 || r.ranks.some((x) => x === null)) return null;
  return Math.max(...(r.ranks as number[]));
}

export function summarise(type: string, rs: QuestionResult[]): TypeRow {
  const n = rs.length;
  const scored = rs.filter((r) => r.ranks.length > 0);
  const m = scored.length || 1;
  const hitAt = (k: number) => scored.filter((r) => (rankAt(r) ?? Infinity) <= k).length / m;
  const mrr = scored.reduce((s, r) => {
    const rank = rankAt(r);
    return s + (rank !== null && rank <= 10 ? 1 / rank : 0);
  }, 0) / m;
  const ms = rs.map((r) => r.ms).sort((a, b) => a - b);
  return {
    type,
    n,
    hit1: round(hitAt(1)),
    hit5: round(hitAt(5)),
    mrr10: round(mrr),
    p50: round(percentile(ms, 0.5)),
    p95: round(percentile(ms, 0.95)),
  };
}

export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return 0;
  const idx = Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1));
  return sorted[idx] as number;
}

function round(x: number): number {
  return Math.round(x * 1000) / 1000;
}

export function formatTable(report: EvalReport): string {
  const head = '| type | n | hit@1 | hit@5 | MRR@10 | p50 ms | p95 ms |\n|---|---|---|---|---|---|---|';
  const line = (r: TypeRow) => `| ${r.type} | ${r.n} | ${r.hit1} | ${r.hit5} | ${r.mrr10} | ${r.p50} | ${r.p95} |`;
  return [head, ...report.rows.map(line), line(report.overall)].join('\n');
}

/** A fact is present when at least `share` of its analyzed terms occur in the answer's terms (one rule with the answer check). */
export { factPresent };

// ---------------------------------------------------------------------------------------------
// Subsets of a question set

/** A named part of the question set. */
export interface QuestionSet {
  name: string;
  ids: Set<string>;
}

/** The number in an id ("SY-014" → 14), or null. */
export function idNumber(id: string): number | null {
  const m = /(\d+)$/.exec(id);
  return m ? Number(m[1]) : null;
}

/** First id number of the questions added later (dev.jsonl: 101 up; the first 65 are numbered below 100). */
export const NEW_IDS_FROM = 101;

/**
 * The whole set, then the questions numbered below {@link NEW_IDS_FROM} and those from it on
 * (in dev.jsonl: "the first 65" and "the new 80"), when both parts are present.
 */
export function questionSets(questions: Question[]): QuestionSet[] {
  const all: QuestionSet = { name: `all (${questions.length})`, ids: new Set(questions.map((q) => q.id)) };
  const older = questions.filter((q) => (idNumber(q.id) ?? 0) < NEW_IDS_FROM);
  const newer = questions.filter((q) => (idNumber(q.id) ?? 0) >= NEW_IDS_FROM);
  if (older.length === 0 || newer.length === 0) return [all];
  return [
    all,
    { name: `ids < ${NEW_IDS_FROM} (${older.length})`, ids: new Set(older.map((q) => q.id)) },
    { name: `ids ≥ ${NEW_IDS_FROM} (${newer.length})`, ids: new Set(newer.map((q) => q.id)) },
  ];
}

/** Retrieval tables of each set, under a heading each. */
export function formatSetTables(report: EvalReport, sets: QuestionSet[]): string {
  return sets
    .map((s) => `retrieval, ${s.name}:\n${formatTable(reportOf(report.results.filter((r) => s.ids.has(r.id))))}`)
    .join('\n\n');
}

// ---------------------------------------------------------------------------------------------
// Language of questions and of the manuals that answer them

export type LangSplit = 'zh question → English manual' | 'zh question → Chinese manual' | 'English question → Chinese manual';

/** A path that names a Chinese document or translation (`zh`, `zh_CN`, `cn`, `chinese` as a path part). */
const ZH_PATH = /(?:^|[/_.-])(?:zh|zh[-_]cn|zh[-_]hans|cn|chs|chinese)(?:[/_.-]|$)/i;

/** Language of the expected passages: Chinese when their text is, or when the expected file's path says so. */
export function expectedLang(q: Question): 'en' | 'zh' | null {
  if (q.expect_file === null) return null;
  const files = Array.isArray(q.expect_file) ? q.expect_file : [q.expect_file];
  const contains = q.expect_contains === null ? [] : Array.isArray(q.expect_contains) ? q.expect_contains : [q.expect_contains];
  if (contains.some((c) => detectLang(c) === 'zh') || files.some((f) => ZH_PATH.test(f))) return 'zh';
  return 'en';
}

/** Which cross-language row a question belongs to (null: an English question about an English manual). */
export function langSplit(q: Question): LangSplit | null {
  const want = expectedLang(q);
  if (want === null) return null;
  const asked = detectLang(q.query);
  if (asked === 'zh') return want === 'zh' ? 'zh question → Chinese manual' : 'zh question → English manual';
  return want === 'zh' ? 'English question → Chinese manual' : null;
}

const LANG_ROWS: LangSplit[] = ['zh question → English manual', 'zh question → Chinese manual', 'English question → Chinese manual'];

/** Retrieval and refusals per language row (rows with no question say n = 0). */
export function formatLangTable(questions: Question[], report: EvalReport, answers?: AnswerResult[]): string {
  const head = '| language | n | hit@1 | hit@5 | MRR@10 | refused |\n|---|---|---|---|---|---|';
  const lines = LANG_ROWS.map((row) => {
    const ids = new Set(questions.filter((q) => langSplit(q) === row).map((q) => q.id));
    const r = summarise(row, report.results.filter((x) => ids.has(x.id)));
    const a = answers?.filter((x) => ids.has(x.id));
    const refused = a ? ratio(a.filter((x) => x.refused).length, a.length) : '—';
    return r.n === 0 ? `| ${row} | 0 | — | — | — | — |` : `| ${row} | ${r.n} | ${r.hit1} | ${r.hit5} | ${r.mrr10} | ${refused} |`;
  });
  return [head, ...lines].join('\n');
}

// ---------------------------------------------------------------------------------------------
// Answers (ask): refusals and facts

export interface AnswerResult {
  id: string;
  type: string;
  query: string;
  refused: boolean;
  mode: string;
  /** The answer (or the refusal) as shown. */
  answer: string;
  /** answer_facts found at 2/3 of their terms ("lenient"), all of them ("strict"), half of them. */
  facts: { lenient: boolean; strict: boolean; half: boolean }[];
  ms: number;
  chars: number;
}

/** Runs every question through `ask` and scores refusals and answer_facts (see scripts/eval-answers.ts). */
export async function runAnswers(engine: EngineApi, questions: Question[], prefer: 'extractive' | 'auto' = 'extractive'): Promise<AnswerResult[]> {
  const out: AnswerResult[] = [];
  for (const q of questions) {
    const res = await engine.ask({ question: q.query, prefer });
    if (!res.ok) throw new Error(`${q.id}: ${res.error.code} ${res.error.message}`);
    const a = res.value;
    const tokens = new Set(analyze([a.answer, ...a.safety.map((s) => s.text)].join('\n')));
    const facts =
      q.type === 'out_of_scope'
        ? []
        : (q.answer_facts ?? []).map((f) => ({
            lenient: !a.refused && factPresent(f, tokens, 2 / 3),
            strict: !a.refused && factPresent(f, tokens, 1),
            half: !a.refused && factPresent(f, tokens, 1 / 2),
          }));
    out.push({ id: q.id, type: q.type, query: q.query, refused: a.refused, mode: a.mode, answer: a.answer, facts, ms: a.ms, chars: a.refused ? 0 : a.answer.length });
  }
  return out;
}

export interface AnswerSummary {
  questions: number;
  outOfScope: number;
  outOfScopeRefused: number;
  answerable: number;
  answerableRefused: number;
  /** Answerable questions and refusals per type. */
  byType: Record<string, { n: number; refused: number }>;
  facts: number;
  lenient: number;
  strict: number;
  half: number;
  msP50: number;
  msP95: number;
  charsP50: number;
  charsP95: number;
}

export function summariseAnswers(rs: AnswerResult[]): AnswerSummary {
  const oos = rs.filter((r) => r.type === 'out_of_scope');
  const answerable = rs.filter((r) => r.type !== 'out_of_scope');
  const byType: AnswerSummary['byType'] = {};
  for (const r of answerable) {
    const t = (byType[r.type] ??= { n: 0, refused: 0 });
    t.n++;
    if (r.refused) t.refused++;
  }
  const facts = answerable.flatMap((r) => r.facts);
  const ms = rs.map((r) => r.ms).sort((a, b) => a - b);
  const chars = rs.filter((r) => !r.refused).map((r) => r.chars).sort((a, b) => a - b);
  return {
    questions: rs.length,
    outOfScope: oos.length,
    outOfScopeRefused: oos.filter((r) => r.refused).length,
    answerable: answerable.length,
    answerableRefused: answerable.filter((r) => r.refused).length,
    byType,
    facts: facts.length,
    lenient: facts.filter((f) => f.lenient).length,
    strict: facts.filter((f) => f.strict).length,
    half: facts.filter((f) => f.half).length,
    msP50: percentile(ms, 0.5),
    msP95: percentile(ms, 0.95),
    charsP50: percentile(chars, 0.5),
    charsP95: percentile(chars, 0.95),
  };
}

/** "k/n = 0.123" (n = 0: "—"). */
export function ratio(k: number, n: number): string {
  return n === 0 ? '—' : `${k}/${n} = ${(k / n).toFixed(3)}`;
}

/** One column per set: out-of-scope refused, answerable refused (all, then per type), facts found. */
export function formatAnswerTable(answers: AnswerResult[], sets: QuestionSet[]): string {
  const sums = sets.map((s) => summariseAnswers(answers.filter((a) => s.ids.has(a.id))));
  const types = [...new Set(answers.filter((a) => a.type !== 'out_of_scope').map((a) => a.type))];
  const head = `| answers (ask) | ${sets.map((s) => s.name).join(' | ')} |\n|---|${sets.map(() => '---').join('|')}|`;
  const row = (label: string, cell: (s: AnswerSummary) => string) => `| ${label} | ${sums.map(cell).join(' | ')} |`;
  return [
    head,
    row('out_of_scope refused', (s) => ratio(s.outOfScopeRefused, s.outOfScope)),
    row('answerable refused', (s) => ratio(s.answerableRefused, s.answerable)),
    ...types.map((t) => row(`  ${t} refused`, (s) => ratio(s.byType[t]?.refused ?? 0, s.byType[t]?.n ?? 0))),
    row('facts found (2/3 of terms)', (s) => ratio(s.lenient, s.facts)),
    row('facts found (all terms)', (s) => ratio(s.strict, s.facts)),
    row('ask p50 / p95 ms', (s) => `${s.msP50} / ${s.msP95}`),
  ].join('\n');
}

/** The command line as typed, quoted for a POSIX shell, so a figure can be quoted with the command that made it. */
export function commandLine(argv: string[] = process.argv): string {
  const script = path.relative(process.cwd(), argv[1] ?? '') || (argv[1] ?? '');
  const quote = (a: string) => (/^[\w@%+=:,./-]+$/.test(a) ? a : `'${a.replace(/'/g, `'\\''`)}'`);
  return ['npx', 'tsx', script, ...argv.slice(2)].map(quote).join(' ');
}

/**
 * Two runs side by side (keyword-only and with a model), per set and type: hit@1 / hit@5 and, when
 * answers ran, answerable questions refused (out_of_scope: refused, which is right there).
 */
export function formatSideBySide(
  runs: { label: string; report: EvalReport; answers?: AnswerResult[] }[],
  sets: QuestionSet[],
): string {
  const out: string[] = [];
  for (const s of sets) {
    const types = [...new Set(runs[0]?.report.results.filter((r) => s.ids.has(r.id)).map((r) => r.type) ?? [])];
    out.push(`side by side, ${s.name}: hit@1 / hit@5 / refused`);
    out.push(`| type | n | ${runs.map((r) => r.label).join(' | ')} |`);
    out.push(`|---|---|${runs.map(() => '---').join('|')}|`);
    for (const t of types) {
      const cells = runs.map((run) => {
        const rs = run.report.results.filter((r) => s.ids.has(r.id) && r.type === t);
        const row = summarise(t, rs);
        const ans = run.answers?.filter((a) => s.ids.has(a.id) && a.type === t);
        const refused = ans && ans.length > 0 ? (ans.filter((a) => a.refused).length / ans.length).toFixed(2) : '—';
        return t === 'out_of_scope' ? `— / — / ${refused}` : `${row.hit1.toFixed(2)} / ${row.hit5.toFixed(2)} / ${refused}`;
      });
      const n = runs[0]?.report.results.filter((r) => s.ids.has(r.id) && r.type === t).length ?? 0;
      out.push(`| ${t} | ${n} | ${cells.join(' | ')} |`);
    }
    out.push('');
  }
  return out.join('\n');
}

/** One ranked passage of a channel in scripts/eval-fusion.ts's cache (also read by eval-gemma-pool.ts). */
export interface ChannelEntry {
  id: string;
  score: number;
  lang: string;
  /** Which of the question's targets this entry satisfies. */
  ok: boolean[];
  text?: string;
  /** The manual's title and section path (what the embedder reads with the text: passage-text.ts). */
  manual?: string;
  section?: string;
}

/** One question's cached channel rankings (scripts/eval-fusion.ts --cache). */
export interface ChannelDump {
  id: string;
  type: string;
  query: string;
  qlang: string;
  codes: ChannelEntry[];
  keyword: ChannelEntry[];
  vector: ChannelEntry[];
  /** The product's own ranked list (retrieve()'s hits, codes included), as asked. */
  product?: ChannelEntry[];
}

/**
 * 1-based rank within the first 10 at which every one of a cached list's `targets` is found (multi-hop
 * needs all), null when one is not; `targets` defaults to what the entries mark.
 */
export function rankWithin10(list: ChannelEntry[], targets = list[0]?.ok.length ?? 0): number | null {
  if (targets === 0) return null;
  let worst = 0;
  for (let t = 0; t < targets; t++) {
    const i = list.slice(0, 10).findIndex((e) => e.ok[t]);
    if (i < 0) return null;
    worst = Math.max(worst, i + 1);
  }
  return worst;
}

/** A score normaliser fitted to one channel's list of scores. */
export type Norm = (scores: number[]) => (s: number) => number;
const stats = (xs: number[]) => {
  const m = xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);
  const sd = Math.sqrt(xs.reduce((a, b) => a + (b - m) ** 2, 0) / Math.max(1, xs.length)) || 1e-9;
  return { m, sd };
};
/** Distribution-based score fusion's normaliser: mean ± 3σ of the list mapped to 0..1. */
export const dbsf: Norm = (xs) => {
  const { m, sd } = stats(xs);
  return (s) => Math.min(1, Math.max(0, (s - (m - 3 * sd)) / (6 * sd)));
};
export const zscore: Norm = (xs) => {
  const { m, sd } = stats(xs);
  return (s) => (s - m) / sd;
};
export const minmax: Norm = (xs) => {
  const lo = Math.min(...xs);
  const hi = Math.max(...xs);
  return (s) => (hi > lo ? (s - lo) / (hi - lo) : 1);
};

/**
 * Channel lists fused by score: each list's scores normalised over that list by `norm` and summed (a
 * passage a channel lacks gets that channel's lowest), then each list's first `channelTop` placed
 * within the first 5 (rrf.ts's placeWithin). Empty lists are skipped.
 */
export function scoreFusion(lists: ChannelEntry[][], norm: Norm, channelTop: number): ChannelEntry[] {
  const byId = new Map<string, ChannelEntry>();
  for (const l of lists) for (const e of l) if (!byId.has(e.id)) byId.set(e.id, e);
  const total = new Map<string, number>();
  for (const l of lists) {
    if (l.length === 0) continue;
    const f = norm(l.map((e) => e.score));
    const own = new Map<string, number>();
    for (const e of l) if (!own.has(e.id)) own.set(e.id, f(e.score));
    const floor = Math.min(...own.values());
    for (const id of byId.keys()) total.set(id, (total.get(id) ?? 0) + (own.get(id) ?? floor));
  }
  const ranked = [...total.entries()].sort((a, b) => b[1] - a[1]).map(([id, score]) => ({ id, score }));
  const tops = channelTop > 0 ? [...new Set(lists.flatMap((l) => l.slice(0, channelTop).map((e) => e.id)))] : [];
  return placeWithin(ranked, tops, 5).map((r) => byId.get(r.id) as ChannelEntry);
}
