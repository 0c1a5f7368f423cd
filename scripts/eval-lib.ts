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

interface Target {
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
class PageTexts {
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

async function isCorrect(hit: SearchHit, target: Target, pages: PageTexts): Promise<boolean> {
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

function summarise(type: string, rs: QuestionResult[]): TypeRow {
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

/** A fact is present when at least `share` of its analyzed terms occur in the answer's terms. */
export function factPresent(fact: string, answerTokens: Set<string>, share: number): boolean {
  const terms = [...new Set(analyze(fact))];
  if (terms.length === 0) return true;
  return terms.filter((t) => answerTokens.has(t)).length / terms.length >= share - 1e-9;
}
