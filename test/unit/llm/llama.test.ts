/**
 * The real thing on a generated model: a 2-layer qwen2 GGUF with random weights and Qwen2's real
 * tokenizer and ChatML template (scripts/make-gguf-fixture.ts), loaded with node-llama-cpp.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildFixture, makeGgufFixture } from '../../../scripts/make-gguf-fixture.js';
import { LocalLlm } from '../../../native/llm/llama.js';
import { buildGguf, GgufType, parseGguf, readGgufHeader, scalarOf, type GgufValue } from '../../../native/llm/gguf.js';
import { budgetPrompt } from '../../../native/answer/prompt.js';
import { ask, type AnswerDeps } from '../../../native/pipelines/answer.js';
import { retrieverOf } from '../answer/helpers.js';
import { findLlm } from '../../../native/llm/models.js';
import type { SearchHit } from '../../../native/contract/api.js';

let dir: string;
let modelPath: string;
let llm: LocalLlm;

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'md-llm-'));
  modelPath = await makeGgufFixture({ outFile: path.join(dir, 'tiny-qwen2.gguf') });
  llm = await LocalLlm.load({ modelPath, contextSize: 512 });
}, 120_000);

afterAll(async () => {
  await llm?.dispose();
  fs.rmSync(dir, { recursive: true, force: true });
});

const passage = (n: number, text: string): SearchHit => ({
  file: 'press/manual.md', page: n, section: `Section ${n}`, text, score: 1, kind: 'passage', manual: 'Press Manual', lang: 'en', chunkId: `c${n}`,
});

describe('generated GGUF fixture', () => {
  it('carries the real tokenizer and chat template with a tiny network', () => {
    const g = readGgufHeader(modelPath);
    expect(scalarOf(g.metadata, 'general.architecture')).toBe('qwen2');
    expect(scalarOf(g.metadata, 'qwen2.block_count')).toBe(2);
    expect(String(scalarOf(g.metadata, 'tokenizer.chat_template'))).toContain('<|im_start|>');
    expect(g.tensors.find((t) => t.name === 'token_embd.weight')?.dims.map(Number)).toEqual([64, 151936]);
  });
  it('is deterministic (same vocabulary in, same bytes out)', () => {
    const vocab = buildGguf(
      new Map<string, GgufValue>([
        ['general.architecture', { type: GgufType.STRING, value: 'qwen2' }],
        ['tokenizer.ggml.model', { type: GgufType.STRING, value: 'gpt2' }],
        ['tokenizer.ggml.tokens', { type: GgufType.ARRAY, value: { itemType: GgufType.STRING, items: ['a', 'b', 'c', 'd'] } }],
      ]),
      [],
    );
    const a = buildFixture(vocab, { embd: 8, ff: 16, heads: 2 });
    const b = buildFixture(vocab, { embd: 8, ff: 16, heads: 2 });
    const c = buildFixture(vocab, { embd: 8, ff: 16, heads: 2, seed: 7 });
    expect(a.equals(b)).toBe(true);
    expect(a.equals(c)).toBe(false);
    expect(parseGguf(a).tensors.map((t) => t.name)).toContain('blk.1.ffn_down.weight');
  });
});

describe('LocalLlm on the fixture', () => {
  it('loads once with the model\'s own chat template (ChatML)', async () => {
    expect(llm.contextSize).toBe(512);
    expect(llm.threads).toBe(os.availableParallelism());
    expect(await llm.chatWrapperName()).toBe('ChatML');
    const rendered = await llm.renderPrompt('SYSTEM-TEXT', 'USER-TEXT');
    expect(rendered).toContain('<|im_start|>system\nSYSTEM-TEXT<|im_end|>');
    expect(rendered).toContain('<|im_start|>user\nUSER-TEXT<|im_end|>');
    expect(rendered.trimEnd().endsWith('<|im_start|>assistant')).toBe(true);
  });

  it('counts tokens with the model\'s tokenizer', () => {
    expect(llm.countTokens('Hello world')).toBe(2);
    expect(llm.countTokens('')).toBe(0);
  });

  it('a context that does not fit is trimmed by rank', () => {
    const sources = [1, 2, 3, 4].map((n) => ({ n, manual: 'Press Manual', section: `S${n}`, page: n, text: `Passage ${n}: ${'check the hydraulic pressure relief valve setting '.repeat(8)}` }));
    const b = budgetPrompt({ question: 'relief valve?', sources, countTokens: (s) => llm.countTokens(s), contextSize: 512, answerTokens: 100 });
    expect(b.included.length).toBeGreaterThan(0);
    expect(b.dropped.length).toBeGreaterThan(0);
    expect([...b.included, ...b.dropped]).toEqual([1, 2, 3, 4]);
    expect(b.included).toEqual(sources.slice(0, b.included.length).map((s) => s.n));
    expect(llm.countTokens(b.system) + llm.countTokens(b.user)).toBeLessThanOrEqual(512 - 100);
  });

  it('a prompt capped by maxPromptTokens fits it as the model reads it (chat template included)', async () => {
    const sources = [1, 2, 3, 4].map((n) => ({ n, manual: 'Press Manual', section: `S${n}`, page: n, text: `Passage ${n}: ${'check the hydraulic pressure relief valve setting '.repeat(8)}` }));
    const b = budgetPrompt({ question: 'relief valve?', sources, countTokens: (s) => llm.countTokens(s), contextSize: 4096, answerTokens: 100, maxPromptTokens: 450 });
    expect(b.included.length).toBeGreaterThan(0);
    expect(b.promptTokens).toBeLessThanOrEqual(450);
    expect(b.dropped.length).toBeGreaterThan(0);
    // The chat template's own tokens: an empty conversation, its markers counted as text (an overestimate).
    const template = llm.countTokens(await llm.renderPrompt('', ''));
    expect(llm.countTokens(b.system) + llm.countTokens(b.user) + template).toBeLessThanOrEqual(450);
  });

  it('streams tokens, and an abort stops generation early', async () => {
    const chunks: string[] = [];
    const full = await llm.generate({ system: 'Answer.', user: 'Say something.', maxTokens: 8, onToken: (t) => chunks.push(t) });
    expect(full.chunks).toBeGreaterThan(3);
    expect(chunks.join('')).toBe(full.text);
    expect(full.firstTokenMs).not.toBeNull();
    const ac = new AbortController();
    let seen = 0;
    const cut = await llm.generate({
      system: 'Answer.',
      user: 'Say something.',
      maxTokens: 200,
      signal: ac.signal,
      onToken: () => {
        if (++seen === 3) ac.abort();
      },
    });
    expect(cut.aborted).toBe(true);
    expect(cut.chunks).toBeLessThan(10);
  }, 60_000);

  it('in the answer pipeline, output citing no source falls back to the extractive answer', async () => {
    const hits = [passage(4, 'Set the relief valve to 210 bar. Check the pump contactor.'), passage(9, 'The back gauge uses ball screws.')];
    const deps: AnswerDeps = {
      retrieve: retrieverOf(async (req) => ({ query: req.query, hits, ms: 0, mode: 'keyword' })).retrieve,
      // The real model, its answer kept short for test time.
      generator: async () => ({
        contextSize: llm.contextSize,
        countTokens: (t: string) => llm.countTokens(t),
        generate: (r) => llm.generate({ ...r, maxTokens: 12 }),
      }),
    };
    const tokens: string[] = [];
    const a = await ask(deps, { question: 'what pressure for the relief valve', k: 2, prefer: 'generative' }, { onToken: (t) => tokens.push(t) });
    expect(tokens.length).toBeGreaterThan(0);
    // Random weights write no "[1]": the check finds no valid citation and the manuals are quoted.
    expect(a.mode).toBe('extractive');
    expect(a.fallbackReason).toMatch(/cited none of the passages, so the answer quotes the manuals instead/);
    expect(a.answer).toContain('Set the relief valve to 210 bar. [1]');
  }, 60_000);

  it('finds a model named by MANUALDESK_LLM, and none when it says none', () => {
    expect(findLlm([dir], undefined, { MANUALDESK_LLM: modelPath })?.path).toBe(modelPath);
    expect(findLlm([dir], undefined, { MANUALDESK_LLM: 'none' })).toBeNull();
    // A .gguf in the user's models folder is offered even when the manifest does not list it.
    expect(findLlm([dir], undefined, {})?.path).toBe(modelPath);
  });

  it('dispose is safe twice and a disposed model refuses work', async () => {
    await llm.dispose();
    await llm.dispose();
    expect(llm.isDisposed).toBe(true);
    expect(() => llm.countTokens('x')).toThrow(/closed/);
  });
});
