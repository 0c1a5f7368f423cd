/**
 * `manualdesk models check`: runs the answer check of the installed language model on a library
 * and a question file (native/pipelines/answer-check.ts), prints the verdict for the site admin and
 * records it beside the model file, where it decides whether `prefer: auto` generates answers.
 * Exit 0 when the check ran, whatever the verdict; 1 when it could not run (no model, bad question
 * file, library missing); 2 usage (missing question file, bad --sample).
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Command, Option } from 'commander';
import { EngineError, toErrorData, type EngineErrorData } from '../contract/errors.js';
import { answerCheckPath, writeAnswerCheck } from '../llm/answer-check.js';
import { findLlm } from '../llm/models.js';
import { modelSearchDirs } from '../model-discovery.js';
import {
  checkFigures,
  judgeAnswerCheck,
  parseCheckQuestions,
  runAnswerCheck,
  selectCheckQuestions,
  type CheckRow,
  type CheckVerdict,
} from '../pipelines/answer-check.js';
import { reportError, withEngine } from './shared.js';
import { terminalText } from './terminal-text.js';

export interface ModelsCheckContext {
  io: { stdout: NodeJS.WritableStream; stderr: NodeJS.WritableStream & { isTTY?: boolean } };
  libraryOption: () => Option;
  setExit: (code: number) => void;
  usage: (message: string) => Error;
}

interface CheckOptions {
  questions: string;
  library: string;
  sample: string;
  allTypes?: boolean;
  record: boolean;
  verbose?: boolean;
  json?: boolean;
}

export function registerModelsCheck(models: Command, ctx: ModelsCheckContext): void {
  const { io } = ctx;
  const fail = (error: EngineErrorData, json: boolean | undefined): void => {
    reportError(io, error, json);
    ctx.setExit(1);
  };
  models
    .command('check')
    .description('answer check of the installed language model: only a model that passes writes answers by default')
    .requiredOption('--questions <file.jsonl>', 'questions, one JSON object per line: {"query": "..."} (optional: "id", "type", "answer_facts")')
    .addOption(ctx.libraryOption())
    .option('--sample <n>', 'how many questions to ask (spread over the question types)', '30')
    .option('--all-types', 'also ask fault-code questions (answered from the code table, never by the model)')
    .option('--no-record', 'print the verdict only; keep the result beside the model as it is')
    .option('--verbose', 'show why each rejected answer fell back, and the draft')
    .option('--json', 'print JSON')
    .action(async (opts: CheckOptions) => {
      const sample = Number(opts.sample);
      if (!Number.isInteger(sample) || sample < 1 || sample > 1000) throw ctx.usage('--sample must be a whole number from 1 to 1000.');
      if (!fs.statSync(opts.questions, { throwIfNoEntry: false })?.isFile()) {
        throw ctx.usage(`Question file not found (or not a file): ${opts.questions}. Give a JSON-lines file, one question a line: {"query": "How do I reset the pump?"}.`);
      }
      try {
        const all = parseCheckQuestions(fs.readFileSync(opts.questions, 'utf8'), opts.questions);
        const dirs = modelSearchDirs();
        const model = findLlm(dirs);
        if (!model) {
          const off = /^(none|off)$/.test(process.env.MANUALDESK_LLM?.trim() ?? '');
          throw new EngineError(
            'MODEL_MISSING',
            off
              ? 'Answer writing is turned off (MANUALDESK_LLM=none), so there is no model to check. Unset MANUALDESK_LLM, or set it to the .gguf file to check.'
              : `No language model is installed (looked in ${dirs.join(', ')}). Install one (manualdesk models add <file.gguf>, or import a model pack), then run the check again.`,
          );
        }
        const asked = selectCheckQuestions(all, { sample, allTypes: opts.allTypes });
        if (asked.length === 0) {
          throw new EngineError('INVALID_INPUT', `${opts.questions} holds only fault-code questions (code_exact, code_variant), which the model never answers. Add other questions, or pass --all-types.`);
        }
        const rows = await withEngine({ libraryDir: opts.library, readOnly: true }, (engine) =>
          runAnswerCheck((req, hooks) => engine.ask(req, hooks), asked, {
            onRow: opts.json ? undefined : (row, done, total) => io.stderr.write(terminalText(progressLine(row, done, total, opts.verbose === true)) + '\n'),
          }),
        );
        const verdict = judgeAnswerCheck(rows);
        const recorded = opts.record ? writeAnswerCheck(model.path, { passed: verdict.passed, summary: verdict.summary, figures: checkFigures(verdict, path.basename(opts.questions)) }) : null;
        const report = {
          model: model.path,
          library: opts.library,
          questionFile: opts.questions,
          questionsInFile: all.length,
          ...verdict,
          recorded: recorded ? answerCheckPath(model.path) : null,
          checkedAt: recorded?.checkedAt ?? null,
          rows,
        };
        io.stdout.write((opts.json ? JSON.stringify(report) : terminalText(formatCheck(report))) + '\n');
        ctx.setExit(0);
      } catch (err) {
        fail(toErrorData(err), opts.json);
      }
    });
}

function progressLine(r: CheckRow, done: number, total: number, verbose: boolean): string {
  const ttft = r.firstTokenMs === null ? '' : `, first token ${Math.round(r.firstTokenMs)} ms`;
  const outcome = r.outcome === 'not generated' ? 'not for the model (a code record answered, or too little in the manuals)' : r.outcome;
  const line = `[${done}/${total}] ${r.id}: ${outcome}${ttft}`;
  return verbose && r.reason ? `${line}\n    ${r.reason}\n    draft: ${JSON.stringify(r.draft.slice(0, 300))}` : line;
}

interface CheckReport extends CheckVerdict {
  model: string;
  library: string;
  questionFile: string;
  questionsInFile: number;
  recorded: string | null;
}

export function formatCheck(r: CheckReport): string {
  const ms = (x: number | null) => (x === null ? '-' : `${x} ms`);
  const lines = [
    `Answer check of ${path.basename(r.model)} (${r.model})`,
    `Library: ${r.library}; asked ${r.questions} of the ${r.questionsInFile} question(s) in ${r.questionFile}.`,
    `The model wrote ${r.generated} answer(s): ${r.accepted} accepted, ${r.fellBack} fell back to quoting the manuals, ${r.modelRefused} refused by the model.` +
      (r.notGenerated > 0 ? ` ${r.notGenerated} question(s) were not for the model (a fault-code record answered, or the manuals hold too little on it).` : ''),
  ];
  if (r.reasons.length > 0) {
    lines.push('Why answers fell back:');
    for (const x of r.reasons) lines.push(`  ${x.count}×  ${x.reason}`);
  }
  if (r.generated > 0) {
    lines.push(
      `Time to first token: median ${ms(r.ttftP50Ms)}, slowest (p95) ${ms(r.ttftP95Ms)}; writing ${r.tokensPerS === null ? '-' : `${r.tokensPerS} tokens/s`}; whole answer median ${ms(r.endToEndP50Ms)}.`,
    );
  }
  lines.push(
    r.factsCompared
      ? `Answer facts in the accepted answers: ${r.factsGenerated} of ${r.factsAsked} (the extractive answers to the same questions: ${r.factsExtractive}).`
      : 'Answer facts not compared: the questions have no "answer_facts", so the share of accepted answers alone decides.',
  );
  const why = r.summary.replace(/^(passed|failed): /, '');
  lines.push(r.passed ? `Decision: passed — auto will generate: ${why}.` : `Decision: failed — answers stay extractive: ${why}.`);
  lines.push(
    r.recorded
      ? `Recorded in ${r.recorded}; manualdesk models list shows it.`
      : 'Not recorded (--no-record): the result already beside the model, if any, still decides.',
  );
  return lines.join('\n');
}
