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
import { commandLine, formatAnswerTable, loadQuestions, questionSets, ratio, runAnswers, summariseAnswers } from './eval-lib.js';

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

console.log(`$ ${commandLine()}`);
const engine = await createEngine({ libraryDir: values.library, readOnly: true });
try {
  const questions = await loadQuestions(values.questions);
  const results = await runAnswers(engine, questions, values.prefer === 'auto' ? 'auto' : 'extractive');
  if (values.verbose) {
    for (const [i, a] of results.entries()) {
      const q = questions[i];
      const isOos = a.type === 'out_of_scope';
      const found = a.facts.map((f) => f.lenient);
      const flag = isOos ? (a.refused ? 'ok-refused' : 'WRONG-answered') : a.refused ? 'FALSE-REFUSAL' : found.map((x) => (x ? '+' : '-')).join('');
      console.log(`${a.id.padEnd(8)} ${a.mode.padEnd(10)} ${flag.padEnd(14)} ${a.query}`);
      if (!isOos && (a.refused || found.includes(false))) {
        console.log(`    facts: ${JSON.stringify(q?.answer_facts)}`);
        console.log(`    ${a.answer.replace(/\n/g, '\n    ').slice(0, 900)}`);
      }
    }
  }
  const s = summariseAnswers(results);
  const summary = {
    questions: s.questions,
    outOfScopeRefused: ratio(s.outOfScopeRefused, s.outOfScope),
    falseRefusals: ratio(s.answerableRefused, s.answerable),
    factsLenient: ratio(s.lenient, s.facts),
    factsHalf: ratio(s.half, s.facts),
    factsStrict: ratio(s.strict, s.facts),
    askMsP50: s.msP50,
    askMsP95: s.msP95,
    answerCharsP50: s.charsP50,
    answerCharsP95: s.charsP95,
  };
  console.log(JSON.stringify(summary, null, 1));
  console.log(formatAnswerTable(results, questionSets(questions)));
  const rows = results.map((a) => ({ id: a.id, refused: a.refused, mode: a.mode, facts: a.facts.map((f) => f.lenient), ms: a.ms }));
  if (values.json) await fs.writeFile(values.json, JSON.stringify({ command: commandLine(), summary, rows }, null, 1));
} finally {
  await engine.close();
}
