/**
 * Retrieval regression on the fixture manuals: runs scripts/eval-lib.ts runEval over
 * test/fixtures/eval/questions.jsonl (our own questions about our own fictional manuals; this is what
 * CI runs instead of the shared development set) and holds each question type to a floor.
 *
 * Measured (keyword-only, k = 10, 2026-11, `npx tsx scripts/eval.ts --corpus test/fixtures/manuals
 * --questions test/fixtures/eval/questions.jsonl --verbose`):
 *
 * | type         | n | hit@1 | hit@5 | MRR@10 |
 * |--------------|---|-------|-------|--------|
 * | code_exact   | 4 | 1     | 1     | 1      |
 * | code_variant | 4 | 0.75  | 1     | 0.875  |  CV-01 "al 4 oil too hot": no code detected (see detect.ts GLUED)
 * | symptom      | 4 | 0.5   | 1     | 0.75   |
 * | procedure    | 4 | 1     | 1     | 1      |
 * | multi_hop    | 2 | 0     | 1     | 0.417  |  (both passages within the top 5)
 * | zh           | 4 | 0.75  | 1     | 0.833  |  ZH-04 (Chinese question, English answer) at rank 3
 * | all          |22 | 0.727 | 1     | 0.848  |
 *
 * The floors below sit one question under those figures, so a single regression in a type fails.
 */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEngine, type Engine } from '../../native/engine.js';
import {
  commandLine,
  expectedLang,
  formatAnswerTable,
  formatLangTable,
  formatSetTables,
  formatTable,
  langSplit,
  loadQuestions,
  questionSets,
  runAnswers,
  runEval,
  summariseAnswers,
  type AnswerResult,
  type EvalReport,
  type Question,
} from '../../scripts/eval-lib.js';
import { FIXTURE_MANUALS, REPO_ROOT, cleanupTemp, tempDir, value } from './helpers.js';

const QUESTIONS = path.join(REPO_ROOT, 'test', 'fixtures', 'eval', 'questions.jsonl');

/** Minimum hit@1, hit@5 and MRR@10 per question type. */
const FLOORS: Record<string, { hit1: number; hit5: number; mrr10: number }> = {
  code_exact: { hit1: 0.75, hit5: 1, mrr10: 0.8 },
  code_variant: { hit1: 0.5, hit5: 0.75, mrr10: 0.7 },
  symptom: { hit1: 0.25, hit5: 0.75, mrr10: 0.55 },
  procedure: { hit1: 0.75, hit5: 1, mrr10: 0.8 },
  multi_hop: { hit1: 0, hit5: 0.5, mrr10: 0.2 },
  zh: { hit1: 0.5, hit5: 0.75, mrr10: 0.6 },
  'all (excl. out_of_scope)': { hit1: 0.65, hit5: 0.9, mrr10: 0.78 },
};

let engine: Engine;
let questions: Question[];
let report: EvalReport;
let answers: AnswerResult[];

beforeAll(async () => {
  engine = await createEngine({ libraryDir: path.join(tempDir('eval'), 'lib'), create: true });
  const ing = value(await engine.ingest({ paths: [FIXTURE_MANUALS] }));
  expect(ing.skipped).toEqual([]);
  questions = await loadQuestions(QUESTIONS);
  report = await runEval(engine, FIXTURE_MANUALS, questions, 10);
  answers = await runAnswers(engine, questions, 'extractive');
  console.log(formatTable(report));
  console.log(formatAnswerTable(answers, questionSets(questions)));
});
afterAll(async () => {
  await engine?.close();
  cleanupTemp();
});

describe('retrieval regression on the fixture question set', () => {
  it('has 15–25 well-formed questions of every type', () => {
    expect(questions.length).toBeGreaterThanOrEqual(15);
    expect(questions.length).toBeLessThanOrEqual(25);
    const types = new Set(questions.map((q) => q.type));
    for (const t of ['code_exact', 'code_variant', 'symptom', 'procedure', 'multi_hop', 'zh', 'out_of_scope']) expect(types).toContain(t);
    expect(new Set(questions.map((q) => q.id)).size).toBe(questions.length);
    for (const q of questions) {
      if (q.type === 'out_of_scope') {
        expect(q.expect_file).toBeNull();
        continue;
      }
      if (q.type === 'multi_hop') {
        expect(Array.isArray(q.expect_file) && q.expect_file.length === 2, q.id).toBe(true);
        expect(Array.isArray(q.expect_contains) && q.expect_contains.length === 2, q.id).toBe(true);
      }
    }
  });

  it.each(Object.entries(FLOORS))('%s stays above its floor', (type, floor) => {
    const row = type === report.overall.type ? report.overall : report.rows.find((r) => r.type === type);
    expect(row, type).toBeDefined();
    const detail = report.results
      .filter((r) => type === report.overall.type || r.type === type)
      .map((r) => `${r.id}:${r.ranks.map((x) => x ?? '-').join(',')}`)
      .join(' ');
    expect(row?.hit1, `${type} hit@1 (${detail})`).toBeGreaterThanOrEqual(floor.hit1);
    expect(row?.hit5, `${type} hit@5 (${detail})`).toBeGreaterThanOrEqual(floor.hit5);
    expect(row?.mrr10, `${type} MRR@10 (${detail})`).toBeGreaterThanOrEqual(floor.mrr10);
  });

  it('answers every exact code with its code record first', () => {
    for (const r of report.results.filter((x) => x.type === 'code_exact')) {
      expect(r.top[0]?.kind, r.id).toBe('code');
    }
  });

  it('offers no fault-code definition for out-of-scope questions', async () => {
    for (const q of questions.filter((x) => x.type === 'out_of_scope')) {
      const r = report.results.find((x) => x.id === q.id);
      expect(r?.top.some((h) => h.kind === 'code'), q.id).toBe(false);
      const lookup = value(await engine.lookupCode({ text: q.query }));
      expect(lookup.matches, q.id).toEqual([]);
    }
  });

  it('answers fast enough on this tiny corpus', () => {
    expect(report.overall.p95).toBeLessThan(500);
  });
});

const q = (id: string, over: Partial<Question> = {}): Question => ({
  id,
  type: 'procedure',
  query: 'how do I bleed the pump',
  expect_file: 'a/manual.md',
  expect_contains: 'Open the bleed screw',
  ...over,
});

describe('answers through ask, in the same run', () => {
  it('refuses every out-of-scope fixture question and answers the answerable ones', () => {
    const s = summariseAnswers(answers);
    expect(s.outOfScope).toBe(questions.filter((x) => x.type === 'out_of_scope').length);
    expect(s.outOfScopeRefused, JSON.stringify(answers.filter((a) => a.type === 'out_of_scope' && !a.refused).map((a) => a.id))).toBe(s.outOfScope);
    const refused = answers.filter((a) => a.type !== 'out_of_scope' && a.refused).map((a) => `${a.id}: ${a.answer}`);
    expect(s.answerableRefused, refused.join('\n')).toBeLessThanOrEqual(1);
    expect(Object.values(s.byType).reduce((n, t) => n + t.n, 0)).toBe(s.answerable);
  });

  it('prints a column per set with out-of-scope and per-type refusals', () => {
    const table = formatAnswerTable(answers, questionSets(questions));
    expect(table).toMatch(/\| out_of_scope refused \| \d+\/3 = /);
    expect(table).toMatch(/\| answerable refused \| \d+\/22 = /);
    expect(table).toMatch(/\|\s+code_exact refused \| \d+\/4 = /);
  });
});

describe('question sets, language rows and the command line', () => {
  it('splits ids below 101 from ids from 101 on, and keeps one set when only one part exists', () => {
    const qs = [q('CE-001'), q('SY-099'), q('CE-101'), q('ZH-113'), q('OS-112', { type: 'out_of_scope', expect_file: null, expect_contains: null })];
    const sets = questionSets(qs);
    expect(sets.map((s) => s.name)).toEqual(['all (5)', 'ids < 101 (2)', 'ids ≥ 101 (3)']);
    expect([...(sets[1]?.ids ?? [])]).toEqual(['CE-001', 'SY-099']);
    expect(questionSets(questions).map((s) => s.name)).toEqual([`all (${questions.length})`]);
    const tables = formatSetTables(report, questionSets(questions));
    expect(tables).toContain(`retrieval, all (${questions.length}):`);
  });

  it('decides the manual language by the expected passage, then by the path', () => {
    expect(expectedLang(q('ZH-1', { query: '怎么排气', expect_contains: '打开排气螺钉' }))).toBe('zh');
    expect(expectedLang(q('ZH-2', { query: '怎么排气', expect_file: 'docs/zh_CN/pump.md', expect_contains: 'P-200' }))).toBe('zh');
    expect(expectedLang(q('ZH-3', { expect_file: 'klipper-translations-zh/docs/FAQ.md', expect_contains: 'G28' }))).toBe('zh');
    expect(expectedLang(q('ZH-4', { expect_file: 'docs/cnc/pump.md' }))).toBe('en');
    expect(langSplit(q('ZH-5', { query: '液压泵怎么排气' }))).toBe('zh question → English manual');
    expect(langSplit(q('ZH-6', { query: '液压泵怎么排气', expect_contains: '打开排气螺钉' }))).toBe('zh question → Chinese manual');
    expect(langSplit(q('SY-7', { expect_file: 'manuals/zh/pump.md' }))).toBe('English question → Chinese manual');
    expect(langSplit(q('SY-8'))).toBeNull();
    expect(langSplit(q('OS-9', { type: 'out_of_scope', expect_file: null, expect_contains: null }))).toBeNull();
  });

  it('prints the language rows with retrieval and refusals', () => {
    const table = formatLangTable(questions, report, answers);
    const zhToEn = questions.filter((x) => langSplit(x) === 'zh question → English manual').length;
    expect(zhToEn).toBeGreaterThan(0);
    expect(table).toContain(`| zh question → English manual | ${zhToEn} |`);
    expect(table).toMatch(/\| English question → Chinese manual \| \d+ \|/);
  });

  it('quotes the command line so that it can be pasted back', () => {
    const line = commandLine(['/usr/bin/node', path.join(process.cwd(), 'scripts', 'eval.ts'), '--corpus', '../shared/corpus', '--embedder', 'onnx:models/local/e5 small']);
    expect(line).toBe("npx tsx scripts/eval.ts --corpus ../shared/corpus --embedder 'onnx:models/local/e5 small'");
  });
});
