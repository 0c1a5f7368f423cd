/**
 * The answer check of a language model: on a library and a question set with known answer facts,
 * asks a stratified sample twice, extractive and `prefer: generative`, and reports
 *  - time to first token (from the question, so retrieval and prompt reading included) p50/p95,
 *    tokens/s while writing, end-to-end time p50/p95;
 *  - how often a generated answer was accepted, fell back to the extractive one (and why), or was
 *    the model's refusal;
 *  - for accepted answers, the answer-facts score of the generated vs the extractive answer
 *    (scripts/eval-lib.ts: the same scoring as scripts/eval-answers.ts).
 *
 * The model passes when at least half the answers it was asked to write were accepted and the
 * accepted ones hold at least as many facts as the extractive answers to the same questions.
 * `--record` writes the result beside the model file (native/llm/answer-check.ts); only a model
 * that passed answers by default (`prefer: auto`). A site that installs a stronger model runs the
 * same command with its own question set (the same JSONL: id, type, query, answer_facts).
 *
 *   MANUALDESK_MODELS=<models dir> npx tsx scripts/eval-generation.ts --library <dir> --questions <jsonl>
 *     [--sample 30] [--all-types] [--record] [--verbose] [--json out]
 */
import fs from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { createEngine } from '../native/engine.js';
import type { AskResponse } from '../native/contract/answer.js';
import { findLlm } from '../native/llm/models.js';
import { modelSearchDirs } from '../native/model-discovery.js';
import { writeAnswerCheck } from '../native/llm/answer-check.js';
import { analyze } from '../native/text/analyze.js';
import { commandLine, factPresent, loadQuestions, percentile, type Question } from './eval-lib.js';

const { values } = parseArgs({
  options: {
    library: { type: 'string' },
    questions: { type: 'string' },
    sample: { type: 'string', default: '30' },
    'all-types': { type: 'boolean', default: false },
    record: { type: 'boolean', default: false },
    verbose: { type: 'boolean', default: false },
    json: { type: 'string' },
  },
});
if (!values.library || !values.questions) {
  console.error('usage: MANUALDESK_MODELS=<dir> npx tsx scripts/eval-generation.ts --library <dir> --questions <jsonl> [--sample 30] [--all-types] [--record] [--verbose] [--json out]');
  process.exit(2);
}

/** Question types answered from a code record: the model never writes those answers. */
const CODE_TYPES = new Set(['code_exact', 'code_variant']);

/** `n` questions spread over the types in proportion (at least one each), evenly over each type's ids. */
function stratifiedSample(questions: Question[], n: number): Question[] {
  const byType = new Map<string, Question[]>();
  for (const q of [...questions].sort((a, b) => a.id.localeCompare(b.id))) byType.set(q.type, [...(byType.get(q.type) ?? []), q]);
  const total = questions.length;
  const out: Question[] = [];
  for (const qs of byType.values()) {
    const take = Math.min(qs.length, Math.max(1, Math.round((qs.length / total) * n)));
    for (let i = 0; i < take; i++) out.push(qs[Math.floor((i * qs.length) / take)] as Question);
  }
  return out.slice(0, Math.max(n, byType.size));
}

function facts(q: Question, a: AskResponse): number {
  if (q.type === 'out_of_scope' || a.refused) return 0;
  const tokens = new Set(analyze([a.answer, ...a.safety.map((s) => s.text)].join('\n')));
  return (q.answer_facts ?? []).filter((f) => factPresent(f, tokens, 2 / 3)).length;
}

type Outcome = 'accepted' | 'fell back' | 'model refused' | 'not generated';

interface Row {
  id: string;
  type: string;
  outcome: Outcome;
  reason?: string;
  firstTokenMs: number | null;
  tokens: number;
  tokensPerS: number | null;
  totalMs: number;
  factsGenerated: number;
  factsExtractive: number;
  factsAsked: number;
  answer: string;
  /** The text the model streamed (kept or rejected). */
  draft: string;
}

console.log(`$ ${commandLine()}`);
const dirs = modelSearchDirs();
const model = findLlm(dirs);
if (!model) {
  console.error(`No language model is installed in ${dirs.join(', ')}: set MANUALDESK_MODELS to the folder that holds the .gguf.`);
  process.exit(2);
}
console.log(`model: ${model.path}`);
const all = await loadQuestions(values.questions);
const pool = values['all-types'] ? all : all.filter((q) => !CODE_TYPES.has(q.type));
const sample = stratifiedSample(pool, Number(values.sample));
const engine = await createEngine({ libraryDir: values.library, readOnly: true });
const rows: Row[] = [];
try {
  for (const q of sample) {
    const ex = await engine.ask({ question: q.query, prefer: 'extractive' });
    if (!ex.ok) throw new Error(`${q.id}: ${ex.error.code} ${ex.error.message}`);
    const t0 = performance.now();
    let first: number | null = null;
    let last = 0;
    let tokens = 0;
    let draft = '';
    const gen = await engine.ask(
      { question: q.query, prefer: 'generative' },
      {
        onToken: (chunk) => {
          draft += chunk;
          const now = performance.now() - t0;
          if (first === null) first = now;
          last = now;
          tokens++;
        },
      },
    );
    const totalMs = performance.now() - t0;
    if (!gen.ok) throw new Error(`${q.id}: ${gen.error.code} ${gen.error.message}`);
    const g = gen.value;
    const firstMs = first as number | null;
    const outcome: Outcome = g.mode === 'generative' ? (g.refused ? 'model refused' : 'accepted') : tokens > 0 ? 'fell back' : 'not generated';
    const row: Row = {
      id: q.id,
      type: q.type,
      outcome,
      reason: g.fallbackReason,
      firstTokenMs: firstMs,
      tokens,
      tokensPerS: firstMs !== null && tokens > 1 && last > firstMs ? ((tokens - 1) * 1000) / (last - firstMs) : null,
      totalMs,
      factsGenerated: facts(q, g),
      factsExtractive: facts(q, ex.value),
      factsAsked: q.type === 'out_of_scope' ? 0 : (q.answer_facts ?? []).length,
      answer: g.answer,
      draft,
    };
    rows.push(row);
    const line = `${q.id.padEnd(8)} ${q.type.padEnd(13)} ${outcome.padEnd(13)} ttft ${firstMs === null ? '-' : `${Math.round(firstMs)} ms`} total ${Math.round(totalMs)} ms facts gen ${row.factsGenerated}/${row.factsAsked} ext ${row.factsExtractive}/${row.factsAsked}`;
    console.log(values.verbose && row.reason ? `${line}\n    ${row.reason}\n    draft: ${JSON.stringify(draft.slice(0, 300))}` : line);
    if (values.verbose && outcome === 'accepted') console.log(`    ${g.answer.replace(/\n/g, '\n    ')}`);
  }
} finally {
  await engine.close();
}

const ran = rows.filter((r) => r.outcome !== 'not generated');
const accepted = rows.filter((r) => r.outcome === 'accepted');
const sorted = (xs: (number | null)[]) => xs.filter((x): x is number => x !== null).sort((a, b) => a - b);
const ttft = sorted(ran.map((r) => r.firstTokenMs));
const tps = sorted(ran.map((r) => r.tokensPerS));
const total = sorted(ran.map((r) => r.totalMs));
const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
const genFacts = sum(accepted.map((r) => r.factsGenerated));
const exFacts = sum(accepted.map((r) => r.factsExtractive));
const askedFacts = sum(accepted.map((r) => r.factsAsked));
const acceptedShare = ran.length === 0 ? 0 : accepted.length / ran.length;
const passed = ran.length > 0 && acceptedShare >= 0.5 && genFacts >= exFacts;
const reasons = new Map<string, number>();
for (const r of rows.filter((x) => x.outcome === 'fell back')) {
  const key = (r.reason ?? '').replace(/"[^"]*"/g, '"…"').replace(/\d+%/g, 'N%');
  reasons.set(key, (reasons.get(key) ?? 0) + 1);
}
const round = (x: number) => String(Math.round(x));
console.log('');
console.log(`questions: ${rows.length} (types: ${[...new Set(rows.map((r) => r.type))].join(', ')}); the model wrote for ${ran.length}`);
console.log(`time to first token ms: p50 ${round(percentile(ttft, 0.5))}  p95 ${round(percentile(ttft, 0.95))}`);
console.log(`tokens/s while writing: p50 ${tps.length > 0 ? percentile(tps, 0.5).toFixed(1) : '-'}`);
console.log(`end to end ms: p50 ${round(percentile(total, 0.5))}  p95 ${round(percentile(total, 0.95))}`);
console.log(`generated accepted: ${accepted.length}/${ran.length}; fell back: ${rows.filter((r) => r.outcome === 'fell back').length}; model refused: ${rows.filter((r) => r.outcome === 'model refused').length}; not generated (code record or evidence gate): ${rows.length - ran.length}`);
for (const [k, n] of reasons) console.log(`  fell back ${n}×: ${k}`);
console.log(`accepted answers, facts found: generated ${genFacts}/${askedFacts}, extractive ${exFacts}/${askedFacts}`);
const summary = passed
  ? `passed: ${accepted.length} of ${ran.length} generated answers accepted, facts ${genFacts} vs extractive ${exFacts}`
  : `failed: ${accepted.length} of ${ran.length} generated answers accepted (at least half needed), facts ${genFacts} vs extractive ${exFacts} (no fewer allowed)`;
console.log(`check ${summary}`);

const figures = {
  questions: rows.length,
  generated: ran.length,
  accepted: accepted.length,
  ttftP50Ms: Math.round(percentile(ttft, 0.5)),
  ttftP95Ms: Math.round(percentile(ttft, 0.95)),
  tokensPerS: Number((percentile(tps, 0.5)).toFixed(1)),
  endToEndP50Ms: Math.round(percentile(total, 0.5)),
  factsGenerated: genFacts,
  factsExtractive: exFacts,
  questionSet: values.questions,
};
if (values.record) {
  const r = writeAnswerCheck(model.path, { passed, summary, figures });
  console.log(`recorded beside the model: ${model.path}.answer-check.json (passed: ${r.passed})`);
}
if (values.json) await fs.writeFile(values.json, JSON.stringify({ figures, passed, rows }, null, 2));
