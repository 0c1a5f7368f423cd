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
 * that passed answers by default (`prefer: auto`). The sampling, the two asks, the pass rule and
 * the result file are native/pipelines/answer-check.ts, which the packaged command
 * `manualdesk models check --questions <file.jsonl>` runs too (a site without a source checkout
 * uses that); this script adds the dev-set's per-question lines and a JSON dump.
 *
 *   MANUALDESK_MODELS=<models dir> npx tsx scripts/eval-generation.ts --library <dir> --questions <jsonl>
 *     [--sample 30] [--all-types] [--record] [--verbose] [--json out] [--drafts out.jsonl]
 */
import { appendFileSync } from 'node:fs';
import fs from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { createEngine } from '../native/engine.js';
import { findLlm } from '../native/llm/models.js';
import { modelSearchDirs } from '../native/model-discovery.js';
import { writeAnswerCheck } from '../native/llm/answer-check.js';
import { checkFigures, judgeAnswerCheck, parseCheckQuestions, runAnswerCheck, selectCheckQuestions, type CheckAsk, type CheckRow } from '../native/pipelines/answer-check.js';
import { commandLine } from './eval-lib.js';

const { values } = parseArgs({
  options: {
    library: { type: 'string' },
    questions: { type: 'string' },
    sample: { type: 'string', default: '30' },
    'all-types': { type: 'boolean', default: false },
    record: { type: 'boolean', default: false },
    verbose: { type: 'boolean', default: false },
    json: { type: 'string' },
    drafts: { type: 'string' },
  },
});
if (!values.library || !values.questions) {
  console.error('usage: MANUALDESK_MODELS=<dir> npx tsx scripts/eval-generation.ts --library <dir> --questions <jsonl> [--sample 30] [--all-types] [--record] [--verbose] [--json out]');
  process.exit(2);
}

console.log(`$ ${commandLine()}`);
const dirs = modelSearchDirs();
const model = findLlm(dirs);
if (!model) {
  console.error(`No language model is installed in ${dirs.join(', ')}: set MANUALDESK_MODELS to the folder that holds the .gguf.`);
  process.exit(2);
}
console.log(`model: ${model.path}`);
const all = parseCheckQuestions(await fs.readFile(values.questions, 'utf8'), values.questions);
const sample = selectCheckQuestions(all, { sample: Number(values.sample), allTypes: values['all-types'] });
const engine = await createEngine({ libraryDir: values.library, readOnly: true });
let rows: CheckRow[];
try {
  // --drafts: each draft with the passages it was shown, one JSON line, for labelling (docs/answer-check-labels.md).
  const byQuery = new Map(sample.map((q) => [q.query, q]));
  const ask: CheckAsk = (req, hooks) =>
    engine.ask(req, {
      ...hooks,
      onDraft: (d) => {
        const q = byQuery.get(req.question);
        if (values.drafts) appendFileSync(values.drafts, `${JSON.stringify({ id: q?.id ?? null, type: q?.type ?? null, ...d })}\n`);
      },
    });
  rows = await runAnswerCheck(ask, sample, {
    onRow: (row) => {
      const line = `${row.id.padEnd(8)} ${row.type.padEnd(13)} ${row.outcome.padEnd(13)} ttft ${row.firstTokenMs === null ? '-' : `${Math.round(row.firstTokenMs)} ms`} total ${Math.round(row.totalMs)} ms facts gen ${row.factsGenerated}/${row.factsAsked} ext ${row.factsExtractive}/${row.factsAsked}`;
      console.log(values.verbose && row.reason ? `${line}\n    ${row.reason}\n    draft: ${JSON.stringify(row.draft.slice(0, 300))}` : line);
      if (values.verbose && row.outcome === 'accepted') console.log(`    ${row.answer.replace(/\n/g, '\n    ')}`);
    },
  });
} finally {
  await engine.close();
}

const v = judgeAnswerCheck(rows);
const ms = (x: number | null) => (x === null ? '-' : String(x));
console.log('');
console.log(`questions: ${v.questions} (types: ${[...new Set(rows.map((r) => r.type))].join(', ')}); the model wrote for ${v.generated}`);
console.log(`time to first token ms: p50 ${ms(v.ttftP50Ms)}  p95 ${ms(v.ttftP95Ms)}`);
console.log(`tokens/s while writing: p50 ${v.tokensPerS ?? '-'}`);
console.log(`end to end ms: p50 ${ms(v.endToEndP50Ms)}  p95 ${ms(v.endToEndP95Ms)}`);
console.log(`generated accepted: ${v.accepted}/${v.generated}; fell back: ${v.fellBack}; model refused: ${v.modelRefused}; not generated (code record or evidence gate): ${v.notGenerated}`);
for (const r of v.reasons) console.log(`  fell back ${r.count}×: ${r.reason}`);
console.log(`accepted answers, facts found: generated ${v.factsGenerated}/${v.factsAsked}, extractive ${v.factsExtractive}/${v.factsAsked}`);
console.log(`check ${v.summary}`);

const figures = checkFigures(v, values.questions);
if (values.record) {
  const r = writeAnswerCheck(model.path, { passed: v.passed, summary: v.summary, figures });
  console.log(`recorded beside the model: ${model.path}.answer-check.json (passed: ${r.passed})`);
}
if (values.json) await fs.writeFile(values.json, JSON.stringify({ figures, passed: v.passed, rows }, null, 2));
