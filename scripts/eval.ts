/**
 * npm run eval -- --corpus <dir> --questions <jsonl> [--library <dir>] [--embedder <spec>] [--json <out>] [--verbose] [--skip-answers]
 *                 [--compare-embedder onnx:<model dir> --compare-library <dir>]
 *
 * --compare-embedder runs the set a second time on a library built with that model and prints both
 * runs side by side (hit@1 / hit@5 / refused per type, first 65 and new 80 apart).
 *
 * Ingests the corpus into a library (default: a folder under .eval/ keyed by the corpus path, reused
 * and updated incrementally), runs every question through the engine and prints, after the exact
 * command line and commit:
 *  - retrieval tables per type: the whole set, then ids below 101 and ids from 101 (dev.jsonl's
 *    "first 65" and "new 80") apart;
 *  - a language table: Chinese questions about English and about Chinese manuals, English questions
 *    about Chinese manuals (the expected passage's language, see eval-lib.ts expectedLang);
 *  - answers through `ask` (extractive unless --prefer auto): out-of-scope refused, answerable refused
 *    (per type) and answer facts found, per set (--skip-answers leaves this out).
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { createEngine } from '../native/engine.js';
import { EMBEDDER_SPELLINGS, parseEmbedderSpec, type EmbedderSpec } from '../native/embed/models.js';
import { commandLine, formatAnswerTable, formatLangTable, formatSetTables, formatSideBySide, loadQuestions, questionSets, runAnswers, runEval, type AnswerResult } from './eval-lib.js';

const { values } = parseArgs({
  options: {
    corpus: { type: 'string' },
    questions: { type: 'string' },
    library: { type: 'string' },
    embedder: { type: 'string' },
    json: { type: 'string' },
    k: { type: 'string', default: '10' },
    verbose: { type: 'boolean', default: false },
    'skip-answers': { type: 'boolean', default: false },
    prefer: { type: 'string', default: 'extractive' },
    'compare-embedder': { type: 'string' },
    'compare-library': { type: 'string' },
  },
});

console.log(`$ ${commandLine()}`);
console.log(`commit ${gitState()}`);

if (!values.corpus || !values.questions) {
  console.error(`usage: npm run eval -- --corpus <dir> --questions <jsonl> [--library <dir>] [--embedder ${EMBEDDER_SPELLINGS.replace(/ /g, '')}] [--json <out>] [--verbose] [--skip-answers] [--prefer extractive|auto]`);
  process.exit(2);
}

const corpus = path.resolve(values.corpus);
const libFor = (raw: string | undefined, explicit: string | undefined) =>
  path.resolve(explicit ?? path.join('.eval', `lib-${createHash('sha256').update(`${corpus}|${raw ?? 'default'}`).digest('hex').slice(0, 10)}`));

const first = await runOne(libFor(values.embedder, values.library), parseEmbedderSpec(values.embedder), values.json);
if (values['compare-embedder']) {
  console.log(`\n==== again with ${values['compare-embedder']} ====`);
  const second = await runOne(libFor(values['compare-embedder'], values['compare-library']), parseEmbedderSpec(values['compare-embedder']), undefined);
  console.log('');
  console.log(
    formatSideBySide(
      [
        { label: values.embedder ?? 'library default', ...first },
        { label: values['compare-embedder'], ...second },
      ],
      first.sets,
    ),
  );
}

async function runOne(libraryDir: string, embedder: EmbedderSpec | undefined, jsonOut: string | undefined) {
const engine = await createEngine({ libraryDir, embedder, create: true });
try {
  const ing = await engine.ingest({ paths: [corpus] });
  if (!ing.ok) throw new Error(`${ing.error.code}: ${ing.error.message}`);
  const r = ing.value;
  console.log(
    `library ${libraryDir}: ingested ${r.files} files (${r.chunks} chunks) in ${r.seconds} s, ${r.unchanged} unchanged, ${r.skipped.length} skipped`,
  );
  for (const s of r.skipped) console.log(`  skipped ${s.file}: ${s.reason}`);

  const questions = await loadQuestions(values.questions as string);
  const report = await runEval(engine, corpus, questions, Number(values.k));
  if (values.verbose) {
    for (const q of report.results) {
      const status = q.ranks.length === 0 ? 'oos' : q.ranks.map((x) => x ?? '-').join(',');
      console.log(`${q.id.padEnd(8)} ${String(status).padEnd(6)} ${q.query}`);
      if (q.ranks.some((x) => x === null || x > 1)) {
        for (const t of q.top.slice(0, 3)) console.log(`           ${t.kind} ${t.file}${t.page ? ` p${t.page}` : ''}: ${t.text.replace(/\s+/g, ' ').slice(0, 110)}`);
      }
    }
  }
  const sets = questionSets(questions);
  let answers: AnswerResult[] | undefined;
  if (!values['skip-answers']) {
    answers = await runAnswers(engine, questions, values.prefer === 'auto' ? 'auto' : 'extractive');
    if (values.verbose) {
      for (const a of answers) {
        const wrong = a.type === 'out_of_scope' ? !a.refused : a.refused;
        if (!wrong) continue;
        console.log(`${a.id.padEnd(8)} ${a.type === 'out_of_scope' ? 'ANSWERED' : 'REFUSED '} ${a.query}`);
        console.log(`           ${a.answer.replace(/\s+/g, ' ').slice(0, 200)}`);
      }
    }
  }
  console.log('');
  console.log(formatSetTables(report, sets));
  console.log('');
  console.log(formatLangTable(questions, report, answers));
  if (answers) {
    console.log('');
    console.log(formatAnswerTable(answers, sets));
  }
  if (jsonOut) {
    await fs.mkdir(path.dirname(path.resolve(jsonOut)), { recursive: true });
    await fs.writeFile(jsonOut, JSON.stringify({ command: commandLine(), commit: gitState(), ...report, answers }, null, 1));
  }
  return { report, answers, sets };
} finally {
  await engine.close();
}
}

/** Short commit id, "+dirty" when the working tree has changes (figures quoted with it say what code made them). */
function gitState(): string {
  try {
    const head = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { encoding: 'utf8' }).trim();
    const dirty = execFileSync('git', ['status', '--porcelain', '--untracked-files=no'], { encoding: 'utf8' }).trim() !== '';
    return dirty ? `${head}+dirty` : head;
  } catch {
    return 'unknown (not a git checkout)';
  }
}
