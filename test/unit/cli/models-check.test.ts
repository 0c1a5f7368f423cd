/**
 * `manualdesk models check` end to end with a real (tiny, random-weight) GGUF model
 * (scripts/make-gguf-fixture.ts) on a library of test/fixtures/manuals: bad input is refused with
 * a message naming the cause, a run records its verdict beside the model, the engine's `auto`
 * decision reads that record, and `models list` shows it.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { runCliCaptured } from './run-cli.js';
import { answerCheckPath, readAnswerCheck, writeAnswerCheck } from '../../../native/llm/answer-check.js';
import { AnswerModels } from '../../../native/llm/holder.js';
import { makeGgufFixture } from '../../../scripts/make-gguf-fixture.js';

const FIXTURES = fileURLToPath(new URL('../../fixtures/manuals', import.meta.url));

const cli = runCliCaptured;

const saved = { models: process.env.MANUALDESK_MODELS, llm: process.env.MANUALDESK_LLM };
let tmp: string;
let lib: string;
let modelsDir: string;
let model: string;
let questionsOnly: string;
let withFacts: string;

const write = (name: string, lines: string[]): string => {
  const p = path.join(tmp, name);
  fs.writeFileSync(p, lines.join('\n') + '\n');
  return p;
};

beforeAll(async () => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'md-mcheck-'));
  lib = path.join(tmp, 'lib');
  modelsDir = path.join(tmp, 'models');
  fs.mkdirSync(modelsDir);
  model = await makeGgufFixture({ outFile: path.join(modelsDir, 'tiny-chat.gguf') });
  process.env.MANUALDESK_MODELS = modelsDir;
  const ingest = await cli(['ingest', FIXTURES, '--library', lib, '--embedder', 'none', '--json']);
  expect(ingest.code).toBe(0);
  questionsOnly = write('site-questions.jsonl', [
    '{"query": "How do I prime the coolant pump before the first start?"}',
    '{"query": "What does a rattling noise in the coolant pump mean?"}',
  ]);
  withFacts = write('dev-style.jsonl', [
    '{"id": "CP-1", "type": "procedure", "query": "How do I prime the coolant pump before the first start?", "answer_facts": ["priming plug", "fill the pump housing"]}',
    '{"id": "CP-2", "type": "symptom", "query": "What does a rattling noise in the coolant pump mean?", "answer_facts": ["cavitation"]}',
    '{"id": "CD-1", "type": "code_exact", "query": "E07", "answer_facts": ["overcurrent"]}',
  ]);
}, 180_000);

beforeEach(() => {
  // The fixture is the model checked, whatever else is installed on this machine.
  process.env.MANUALDESK_LLM = model;
  fs.rmSync(answerCheckPath(model), { force: true });
});

afterAll(() => {
  for (const [k, v] of [['MANUALDESK_MODELS', saved.models], ['MANUALDESK_LLM', saved.llm]] as const) {
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  }
  fs.rmSync(tmp, { recursive: true, force: true });
});

describe('models check: bad input', () => {
  it('a missing question file is a usage error that names it', async () => {
    const r = await cli(['models', 'check', '--questions', path.join(tmp, 'nope.jsonl'), '--library', lib]);
    expect(r.code).toBe(2);
    expect(r.err).toContain(`Question file not found (or not a file): ${path.join(tmp, 'nope.jsonl')}`);
    expect(fs.existsSync(answerCheckPath(model))).toBe(false);
  });
  it('--questions is required; --sample must be a number', async () => {
    expect((await cli(['models', 'check', '--library', lib])).code).toBe(2);
    const r = await cli(['models', 'check', '--questions', questionsOnly, '--library', lib, '--sample', 'many']);
    expect(r.code).toBe(2);
    expect(r.err).toContain('--sample must be a whole number');
  });
  it('a bad JSON line is named by its number, with the format to use', async () => {
    const bad = write('bad.jsonl', ['{"query": "How do I prime the pump?"}', '', '{"query": "broken', '{"query": "fine"}']);
    const r = await cli(['models', 'check', '--questions', bad, '--library', lib, '--json']);
    expect(r.code).toBe(1);
    expect(r.err).toContain(`${bad}, line 3: not valid JSON`);
    expect(JSON.parse(r.out)).toMatchObject({ ok: false, error: { code: 'INVALID_INPUT' } });
    const noText = write('no-text.jsonl', ['{"id": "a", "answer_facts": ["x"]}']);
    expect((await cli(['models', 'check', '--questions', noText, '--library', lib])).err).toContain('line 1: no question text');
    const empty = write('empty.jsonl', ['', '  ']);
    expect((await cli(['models', 'check', '--questions', empty, '--library', lib])).err).toContain('holds no questions');
    expect(fs.existsSync(answerCheckPath(model))).toBe(false);
  });
  it('no model to check: says how to install one (or that generation is turned off)', async () => {
    process.env.MANUALDESK_LLM = 'none';
    const off = await cli(['models', 'check', '--questions', questionsOnly, '--library', lib]);
    expect(off.code).toBe(1);
    expect(off.err).toContain('Answer writing is turned off (MANUALDESK_LLM=none)');
    expect(off.err).toContain('(MODEL_MISSING)');
    process.env.MANUALDESK_LLM = path.join(tmp, 'missing.gguf');
    const missing = await cli(['models', 'check', '--questions', questionsOnly, '--library', lib]);
    expect(missing.code).toBe(1);
    expect(missing.err).toContain('which is not a file');
  });
  it('a library that does not exist fails with the library message, and nothing is recorded', async () => {
    const r = await cli(['models', 'check', '--questions', questionsOnly, '--library', path.join(tmp, 'no-library')]);
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/LIBRARY_NOT_FOUND/);
    expect(fs.existsSync(answerCheckPath(model))).toBe(false);
  });
});

describe('models check: a run', () => {
  it('not checked yet: models list says so', async () => {
    const r = await cli(['models', 'list']);
    expect(r.code).toBe(0);
    expect(r.out).toContain('tiny-chat.gguf');
    expect(r.out).toContain('answer check: not checked (answers stay extractive');
  });

  it('questions only: runs, judges on acceptance alone, records the verdict that auto then reads, and models list shows it', async () => {
    const r = await cli(['models', 'check', '--questions', questionsOnly, '--library', lib]);
    expect(r.code).toBe(0);
    expect(r.err).toContain('[1/2]');
    expect(r.out).toContain(`Answer check of tiny-chat.gguf (${model})`);
    expect(r.out).toContain(`asked 2 of the 2 question(s) in ${questionsOnly}`);
    expect(r.out).toMatch(/The model wrote \d+ answer\(s\): \d+ accepted, \d+ fell back to quoting the manuals/);
    expect(r.out).toContain('Answer facts not compared: the questions have no "answer_facts"');
    expect(r.out).toMatch(/Time to first token: median \d+ ms/);
    expect(r.out).toContain(`Recorded in ${answerCheckPath(model)}`);

    const rec = readAnswerCheck(model);
    expect(rec).not.toBeNull();
    expect(rec?.figures).toMatchObject({ questions: 2, rule: 'acceptance only (no answer facts)', questionSet: 'site-questions.jsonl' });
    const passed = rec?.passed === true;
    expect(r.out).toContain(passed ? 'Decision: passed — auto will generate' : 'Decision: failed — answers stay extractive');
    // The engine's auto decision reads the same file.
    const holder = new AnswerModels(() => [modelsDir], 1);
    expect(await holder.llmChecked()).toBe(passed);
    await holder.close();

    const list = await cli(['models', 'list']);
    const day = new Date().toISOString().slice(0, 10);
    expect(list.out).toContain(passed ? `answer check: passed ${day}` : `answer check: failed ${day} (answers stay extractive)`);
    const json = await cli(['models', 'list', '--json']);
    const entry = (JSON.parse(json.out) as { id: string; answerCheck?: { passed: boolean } }[]).find((m) => m.id === 'tiny-chat.gguf');
    expect(entry?.answerCheck).toMatchObject({ passed, checkedAt: rec?.checkedAt });
  }, 180_000);

  it('dev-set format with answer facts: code questions left out, facts compared; --json gives the figures', async () => {
    const r = await cli(['models', 'check', '--questions', withFacts, '--library', lib, '--json']);
    expect(r.code).toBe(0);
    const j = JSON.parse(r.out) as Record<string, unknown> & { rows: { id: string }[] };
    expect(j).toMatchObject({ model, questionsInFile: 3, questions: 2, factsCompared: true, recorded: answerCheckPath(model) });
    expect(j.rows.map((x) => x.id).sort()).toEqual(['CP-1', 'CP-2']);
    expect(readAnswerCheck(model)?.figures.rule).toBe('acceptance and answer facts');
    expect(readAnswerCheck(model)?.passed).toBe(j.passed);
  }, 180_000);

  it('--no-record leaves the recorded result as it was (a passed model stays passed)', async () => {
    writeAnswerCheck(model, { passed: true, summary: 'passed: 9 of 12 generated answers accepted', figures: {} });
    const before = fs.readFileSync(answerCheckPath(model), 'utf8');
    const r = await cli(['models', 'check', '--questions', questionsOnly, '--library', lib, '--sample', '1', '--no-record']);
    expect(r.code).toBe(0);
    expect(r.out).toContain('asked 1 of the 2 question(s)');
    expect(r.out).toContain('Not recorded (--no-record)');
    expect(fs.readFileSync(answerCheckPath(model), 'utf8')).toBe(before);
    expect((await cli(['models', 'list'])).out).toContain(`answer check: passed ${new Date().toISOString().slice(0, 10)} (auto writes answers)`);
  }, 180_000);
});
