/**
 * `manualdesk ask` and `manualdesk models` through runCli on a library of test/fixtures/manuals:
 * the code, extractive and refusal paths with their JSON shape, safety text first, batch mode,
 * follow-ups from a conversation file. (Generative mode is covered in test/unit/llm.)
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCliCaptured } from '../cli/run-cli.js';
import type { AskResponse } from '../../../native/contract/answer.js';

const FIXTURES = fileURLToPath(new URL('../../fixtures/manuals', import.meta.url));

const cli = runCliCaptured;

let tmp: string;
let lib: string;
const saved = { llm: process.env.MANUALDESK_LLM, models: process.env.MANUALDESK_MODELS };

beforeAll(async () => {
  // No language model in these tests, whatever the developer has installed.
  process.env.MANUALDESK_LLM = 'none';
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'md-ask-cli-'));
  process.env.MANUALDESK_MODELS = path.join(tmp, 'models');
  lib = path.join(tmp, 'lib');
  const r = await cli(['ingest', FIXTURES, '--library', lib, '--json']);
  expect(r.code).toBe(0);
}, 120_000);

afterAll(() => {
  for (const [k, v] of [['MANUALDESK_LLM', saved.llm], ['MANUALDESK_MODELS', saved.models]] as const) {
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  }
  fs.rmSync(tmp, { recursive: true, force: true });
});

const askJson = async (q: string, ...extra: string[]) => {
  const r = await cli(['ask', q, '--library', lib, '--json', ...extra]);
  expect(r.code).toBe(0);
  return JSON.parse(r.out) as AskResponse;
};

describe('manualdesk ask', () => {
  it('a code answers from its record, cited to the alarm table', async () => {
    const a = await askJson('AL-03');
    expect(a).toMatchObject({ mode: 'code', refused: false, safety: [] });
    expect(a.answer).toBe(
      'AL-03: Hydraulic pressure low\nCause: Pump not running or pressure relief valve stuck open\nRemedy: Check the pump motor contactor and the relief valve setting (210 bar)\nApplies to: Hpb 200 alarms [1]',
    );
    expect(a.citations).toEqual([expect.objectContaining({ n: 1, file: 'alarms/hpb-200-alarms.csv', page: null })]);
    expect(a.ms).toBeGreaterThan(0);
  });

  it('a procedure is quoted step by step with its warning first', async () => {
    const a = await askJson('how do I wire the motor to the servo drive');
    expect(a.mode).toBe('extractive');
    expect(a.safety[0]).toEqual({
      kind: 'WARNING',
      text: 'WARNING: The DC bus capacitors stay charged for up to five minutes after power-off. Measure the bus voltage before touching terminal X1.',
      n: 1,
    });
    expect(a.answer).toContain('2. Connect the motor phases U, V, W to terminal block X2. [1]');
    expect(a.citations[0]).toMatchObject({ file: 'servo/sd40-servo-drive.adoc', section: expect.stringContaining('Wiring the motor') });
    const human = await cli(['ask', 'how do I wire the motor to the servo drive', '--library', lib]);
    expect(human.out.startsWith('⚠ WARNING [1]: WARNING: The DC bus capacitors')).toBe(true);
  });

  it('refuses a code that no manual defines, with the closest sections', async () => {
    const a = await askJson('Haas alarm 108 servo overload');
    expect(a).toMatchObject({ refused: true, citations: [] });
    expect(a.refusal?.reason).toBe('No installed manual defines alarm 108.');
    expect(a.refusal?.closest.length).toBeGreaterThan(0);
  });

  it('a follow-up carries the previous code', async () => {
    const conv = path.join(tmp, 'conv.json');
    fs.writeFileSync(conv, JSON.stringify([{ question: 'what is AL-04', answer: 'Oil temperature high [1]' }]));
    const a = await askJson('and what do I check?', '--conversation', conv);
    expect(a.standaloneQuery).toBe('and what do I check? AL-04');
    expect(a.mode).toBe('code');
    expect(a.answer).toMatch(/^AL-04: Oil temperature high/);
  });

  it('--batch answers one JSON line per question', async () => {
    const r = await cli(['ask', '--batch', '-', '--library', lib], [JSON.stringify({ id: 'a', query: 'AL-01' }), JSON.stringify({ id: 'b', query: 'Tesla BMS alert' })]);
    expect(r.code).toBe(0);
    const lines = r.out.trim().split('\n').map((l) => JSON.parse(l) as AskResponse & { id: string });
    expect(lines.map((l) => [l.id, l.mode, l.refused])).toEqual([
      ['a', 'code', false],
      ['b', 'extractive', true],
    ]);
  });

  it('usage errors exit 2', async () => {
    expect((await cli(['ask', '--library', lib])).code).toBe(2);
    expect((await cli(['ask', 'x', '--library', lib, '--conversation', path.join(tmp, 'missing.json')])).code).toBe(2);
  });
});

describe('manualdesk models', () => {
  it('lists manifest models, adds a .gguf into the user models folder', async () => {
    const list = await cli(['models', 'list', '--json']);
    const models = JSON.parse(list.out) as { id: string; role: string; installed: boolean }[];
    expect(models.some((m) => m.role === 'llm' && !m.installed)).toBe(true);
    const file = path.join(tmp, 'my-model.gguf');
    fs.writeFileSync(file, 'GGUF');
    const add = await cli(['models', 'add', file, '--json']);
    expect(add.code).toBe(0);
    expect(JSON.parse(add.out)).toMatchObject({ id: 'my-model.gguf', role: 'llm', verified: null, path: path.join(tmp, 'models', 'my-model.gguf') });
    expect(fs.readFileSync(path.join(tmp, 'models', 'my-model.gguf'), 'utf8')).toBe('GGUF');
    const missing = await cli(['models', 'add', path.join(tmp, 'nope.gguf'), '--json']);
    expect(missing.code).toBe(1);
  });
});
