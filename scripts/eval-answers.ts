/**
 * Answer evaluation: runs each question of a set (shared/eval/README.md format) through `ask` and reports
 *  - refusals on out_of_scope questions (should be refused) and false refusals on the rest;
 *  - answer_facts found in the answers (non-refused, non-out_of_scope questions).
 *
 * Fact matching: the fact and the answer (with its safety text) go through the product's analyzer
 * (lower case, NFKC, stop words dropped, Porter stems, jieba for Chinese); a fact counts as present
 * when at least 2/3 of its tokens occur in the answer ("lenient"); "strict" needs all of them.
 *
 *   npx tsx scripts/eval-answers.ts --library <dir> --questions <jsonl> [--prefer extractive|auto] [--verbose] [--json out]
 * (build the library first, e.g. with npm run eval -- --corpus … --library <dir>)
 */
import fs from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { createEngine } from '../native/engine.js';
import { analyze } from '../native/text/analyze.js';
import { factPresent, loadQuestions, percentile } from './eval-lib.js';

const { values } = parseArgs({
  options: {
    library: { type: 'string' },
    questions: { type: 'string' },
    prefer: { type: 'string', default: 'extractive' },
    verbose: { type: 'boolean', default: false },
    json: { type: 'string' },
  },
});
if (!values.library || !values.questions) {
  console.error('usage: npx tsx scripts/eval-answers.ts --library <dir> --questions <jsonl> [--prefer extractive|auto] [--verbose] [--json out]');
  process.exit(2);
}

const engine = await createEngine({ libraryDir: values.library, readOnly: true });
try {
  const questions = await loadQuestions(values.questions);
  let oos = 0;
  let oosRefused = 0;
  let inScope = 0;
  let falseRefusals = 0;
  let facts = 0;
  let lenient = 0;
  let strict = 0;
  let half = 0;
  const ms: number[] = [];
  /** Answer lengths (non-refused), so that a fact score bought with longer answers shows. */
  const chars: number[] = [];
  const rows: unknown[] = [];
  for (const q of questions) {
    const res = await engine.ask({ question: q.query, prefer: values.prefer as 'extractive' | 'auto' });
    if (!res.ok) throw new Error(`${q.id}: ${res.error.code} ${res.error.message}`);
    const a = res.value;
    ms.push(a.ms);
    if (!a.refused) chars.push(a.answer.length);
    const isOos = q.type === 'out_of_scope';
    if (isOos) {
      oos++;
      if (a.refused) oosRefused++;
    } else {
      inScope++;
      if (a.refused) falseRefusals++;
    }
    const tokens = new Set(analyze([a.answer, ...a.safety.map((s) => s.text)].join('\n')));
    const found: boolean[] = [];
    if (!isOos) {
      for (const f of q.answer_facts ?? []) {
        facts++;
        const l = !a.refused && factPresent(f, tokens, 2 / 3);
        const s = !a.refused && factPresent(f, tokens, 1);
        if (l) lenient++;
        if (s) strict++;
        if (!a.refused && factPresent(f, tokens, 1 / 2)) half++;
        found.push(l);
      }
    }
    rows.push({ id: q.id, refused: a.refused, mode: a.mode, facts: found, ms: a.ms });
    if (values.verbose) {
      const flag = isOos ? (a.refused ? 'ok-refused' : 'WRONG-answered') : a.refused ? 'FALSE-REFUSAL' : found.map((x) => (x ? '+' : '-')).join('');
      console.log(`${q.id.padEnd(8)} ${a.mode.padEnd(10)} ${flag.padEnd(14)} ${q.query}`);
      if (!isOos && (a.refused || found.includes(false))) {
        console.log(`    facts: ${JSON.stringify(q.answer_facts)}`);
        console.log(`    ${a.answer.replace(/\n/g, '\n    ').slice(0, 900)}`);
      }
    }
  }
  ms.sort((x, y) => x - y);
  chars.sort((x, y) => x - y);
  const summary = {
    questions: questions.length,
    outOfScopeRefused: `${oosRefused}/${oos} = ${(oosRefused / Math.max(1, oos)).toFixed(3)}`,
    falseRefusals: `${falseRefusals}/${inScope} = ${(falseRefusals / Math.max(1, inScope)).toFixed(3)}`,
    factsLenient: `${lenient}/${facts} = ${(lenient / Math.max(1, facts)).toFixed(3)}`,
    factsHalf: `${half}/${facts} = ${(half / Math.max(1, facts)).toFixed(3)}`,
    factsStrict: `${strict}/${facts} = ${(strict / Math.max(1, facts)).toFixed(3)}`,
    askMsP50: percentile(ms, 0.5),
    askMsP95: percentile(ms, 0.95),
    answerCharsP50: percentile(chars, 0.5),
    answerCharsP95: percentile(chars, 0.95),
  };
  console.log(JSON.stringify(summary, null, 1));
  if (values.json) await fs.writeFile(values.json, JSON.stringify({ summary, rows }, null, 1));
} finally {
  await engine.close();
}
