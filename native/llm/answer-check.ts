/**
 * The answer check's result, kept beside the model file (`<model>.gguf.answer-check.json`): a
 * language model writes answers by default (`prefer: auto`) only if it passed the check that
 * `manualdesk models check` (and scripts/eval-generation.ts) runs: native/pipelines/answer-check.ts. The result names the
 * file's size, so a replaced model file counts as unchecked until it is checked again.
 */
import fs from 'node:fs';
import path from 'node:path';

export const ANSWER_CHECK_FORMAT = 1;

export interface AnswerCheckResult {
  format: typeof ANSWER_CHECK_FORMAT;
  /** File name of the model checked. */
  model: string;
  sizeBytes: number;
  passed: boolean;
  /** Why it passed or failed, for `models list` and the README. */
  summary: string;
  checkedAt: string;
  /** The figures measured (sample size, acceptance, facts, times). */
  figures: Record<string, number | string>;
}

export function answerCheckPath(modelPath: string): string {
  return `${modelPath}.answer-check.json`;
}

/** The recorded result for this model file, or null (none, unreadable, or for a file of another size). */
export function readAnswerCheck(modelPath: string): AnswerCheckResult | null {
  try {
    const r = JSON.parse(fs.readFileSync(answerCheckPath(modelPath), 'utf8')) as Partial<AnswerCheckResult>;
    const size = fs.statSync(modelPath).size;
    if (r.format !== ANSWER_CHECK_FORMAT || r.sizeBytes !== size || r.model !== path.basename(modelPath) || typeof r.passed !== 'boolean') return null;
    return r as AnswerCheckResult;
  } catch {
    return null;
  }
}

/** True only when the model file passed the check. */
export function passedAnswerCheck(modelPath: string): boolean {
  return readAnswerCheck(modelPath)?.passed === true;
}

export function writeAnswerCheck(modelPath: string, r: Omit<AnswerCheckResult, 'format' | 'model' | 'sizeBytes' | 'checkedAt'>): AnswerCheckResult {
  const out: AnswerCheckResult = {
    format: ANSWER_CHECK_FORMAT,
    model: path.basename(modelPath),
    sizeBytes: fs.statSync(modelPath).size,
    checkedAt: new Date().toISOString(),
    ...r,
  };
  const file = answerCheckPath(modelPath);
  fs.writeFileSync(`${file}.tmp`, `${JSON.stringify(out, null, 2)}\n`);
  fs.renameSync(`${file}.tmp`, file);
  return out;
}
