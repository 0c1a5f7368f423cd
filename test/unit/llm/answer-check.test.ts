/** The answer check's result beside the model file decides whether `prefer: auto` generates. */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { answerCheckPath, passedAnswerCheck, readAnswerCheck, writeAnswerCheck } from '../../../native/llm/answer-check.js';
import { AnswerModels } from '../../../native/llm/holder.js';

let dir: string;
let model: string;
const saved = process.env.MANUALDESK_LLM;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'md-check-'));
  model = path.join(dir, 'tiny-chat.gguf');
  fs.writeFileSync(model, Buffer.alloc(1024, 1));
  delete process.env.MANUALDESK_LLM;
});
afterEach(() => {
  fs.rmSync(dir, { recursive: true, force: true });
  if (saved === undefined) delete process.env.MANUALDESK_LLM;
  else process.env.MANUALDESK_LLM = saved;
});

describe('answer check result', () => {
  it('no result: not passed', () => {
    expect(readAnswerCheck(model)).toBeNull();
    expect(passedAnswerCheck(model)).toBe(false);
  });
  it('a recorded pass counts; a recorded failure does not', () => {
    writeAnswerCheck(model, { passed: true, summary: 'passed: 9 of 12', figures: { accepted: 9 } });
    expect(readAnswerCheck(model)).toMatchObject({ model: 'tiny-chat.gguf', sizeBytes: 1024, passed: true, figures: { accepted: 9 } });
    expect(passedAnswerCheck(model)).toBe(true);
    writeAnswerCheck(model, { passed: false, summary: 'failed: 0 of 12', figures: {} });
    expect(passedAnswerCheck(model)).toBe(false);
  });
  it('a replaced model file (another size) is unchecked again; a damaged result file counts as none', () => {
    writeAnswerCheck(model, { passed: true, summary: 'passed', figures: {} });
    fs.writeFileSync(model, Buffer.alloc(2048, 1));
    expect(passedAnswerCheck(model)).toBe(false);
    fs.writeFileSync(answerCheckPath(model), '{not json');
    expect(readAnswerCheck(model)).toBeNull();
  });
  it('AnswerModels.llmChecked reads it for the installed model, without loading it', async () => {
    const models = new AnswerModels(() => [dir], 1);
    expect(await models.llmChecked()).toBe(false);
    writeAnswerCheck(model, { passed: true, summary: 'passed', figures: {} });
    expect(await models.llmChecked()).toBe(true);
    process.env.MANUALDESK_LLM = 'none';
    expect(await models.llmChecked()).toBe(false);
    await models.close();
    delete process.env.MANUALDESK_LLM;
    expect(await models.llmChecked()).toBe(false);
  });
});
