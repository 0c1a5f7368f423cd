/**
 * Answer benchmarks:
 *  - ask overhead (gate + extraction + code answers, everything but LLM time) over a library;
 *  - with the generated test GGUF (scripts/make-gguf-fixture.ts): load time, time to first token
 *    and tokens per second, on a real prompt of retrieved passages;
 *  - with each real answer model installed (`npm run models:fetch`, `--llm 0.5b,1.5b`): load time, the
 *    prompt reading rate (prefill tokens/s, which sets MAX_PROMPT_TOKENS), time to first token on a
 *    prompt as large as the pipeline sends, writing speed and the memory the model adds. Rows are
 *    left out where no real model is installed (CI, a fresh clone).
 *
 *   npx tsx scripts/bench-answers.ts [--library <dir>] [--questions <jsonl>] [--no-llm]
 * Without --library a library is built from test/fixtures/manuals in a temp folder.
 * Also called by scripts/bench.ts (benchAnswers).
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { createEngine } from '../native/engine.js';
import { LocalLlm } from '../native/llm/llama.js';
import { budgetPrompt } from '../native/answer/prompt.js';
import { installedLlms } from '../native/llm/models.js';
import { modelSearchDirs } from '../native/model-discovery.js';
import { MAX_PROMPT_TOKENS } from '../native/pipelines/answer.js';
import { toCitation } from '../native/answer/extract.js';
import { makeGgufFixture } from './make-gguf-fixture.js';
import { loadQuestions, percentile } from './eval-lib.js';

export interface BenchRow {
  bench: string;
  value: number;
  unit: string;
  note?: string;
}

const FIXTURE_MANUALS = fileURLToPath(new URL('../test/fixtures/manuals', import.meta.url));
const QUERIES = [
  'AL-03',
  'how do I replace the pump filter',
  'oil temperature too high',
  'E-205 conveyor',
  'how often should the hydraulic oil be changed',
  'Haas alarm 108',
  'encoder signal lost',
  'reset the servo drive after a fault',
];

export async function benchAnswers(opts: { library?: string; questions?: string; llm?: boolean } = {}): Promise<BenchRow[]> {
  const rows: BenchRow[] = [];
  const tmp = await fs.mkdtemp(path.join(os.tmpdir(), 'manualdesk-bench-ask-'));
  const prevLlm = process.env.MANUALDESK_LLM;
  process.env.MANUALDESK_LLM = 'none';
  try {
    const libraryDir = opts.library ?? path.join(tmp, 'lib');
    const engine = await createEngine({ libraryDir, create: !opts.library, readOnly: Boolean(opts.library) });
    try {
      if (!opts.library) {
        const r = await engine.ingest({ paths: [FIXTURE_MANUALS] });
        if (!r.ok) throw new Error(r.error.message);
      }
      const queries = opts.questions ? (await loadQuestions(opts.questions)).map((q) => q.query) : QUERIES;
      for (const q of queries.slice(0, 5)) await engine.ask({ question: q }); // warm-up
      const ms: number[] = [];
      for (const q of queries) {
        const r = await engine.ask({ question: q, prefer: 'extractive' });
        if (!r.ok) throw new Error(r.error.message);
        ms.push(r.value.ms);
      }
      ms.sort((a, b) => a - b);
      const where = opts.library ? path.basename(opts.library) : 'fixture manuals';
      rows.push({ bench: 'ask overhead p50 (no LLM time)', value: percentile(ms, 0.5), unit: 'ms', note: `${queries.length} questions, ${where}` });
      rows.push({ bench: 'ask overhead p95 (no LLM time)', value: percentile(ms, 0.95), unit: 'ms', note: 'target ≤ 100 ms' });

      if (opts.llm !== false) {
        for (const found of installedLlms(modelSearchDirs())) rows.push(...(await benchRealModel(engine, found.id, found.path)));
        const model = await makeGgufFixture({ outFile: path.join(tmp, 'tiny-qwen2.gguf') });
        const llm = await LocalLlm.load({ modelPath: model, contextSize: 2048 });
        try {
          rows.push({ bench: 'LLM load (fixture GGUF, 2×64 qwen2)', value: llm.loadMs, unit: 'ms', note: `${llm.threads} threads` });
          const search = await engine.search({ query: 'how do I replace the pump filter', k: 8 });
          const hits = search.ok ? search.value.hits : [];
          const prompt = budgetPrompt({
            question: 'how do I replace the pump filter',
            sources: hits.map((h, i) => toCitation(i + 1, h)),
            countTokens: (t) => llm.countTokens(t),
            contextSize: llm.contextSize,
            answerTokens: 128,
          });
          const ttft: number[] = [];
          const tps: number[] = [];
          for (let i = 0; i < 3; i++) {
            const r = await llm.generate({ system: prompt.system, user: prompt.user, maxTokens: 128 });
            if (r.firstTokenMs !== null) ttft.push(r.firstTokenMs);
            const genMs = r.ms - (r.firstTokenMs ?? 0);
            if (r.chunks > 1 && genMs > 0) tps.push(((r.chunks - 1) / genMs) * 1000);
          }
          ttft.sort((a, b) => a - b);
          tps.sort((a, b) => a - b);
          rows.push({ bench: 'LLM time to first token (fixture)', value: percentile(ttft, 0.5), unit: 'ms', note: `prompt ${prompt.promptTokens} tokens, median of ${ttft.length}` });
          rows.push({ bench: 'LLM generation (fixture)', value: percentile(tps, 0.5), unit: 'tokens/s', note: 'median of 3 × 128 tokens' });
        } finally {
          await llm.dispose();
        }
      }
    } finally {
      await engine.close();
    }
  } finally {
    if (prevLlm === undefined) delete process.env.MANUALDESK_LLM;
    else process.env.MANUALDESK_LLM = prevLlm;
    await fs.rm(tmp, { recursive: true, force: true });
  }
  return rows.map((r) => ({ ...r, value: Math.round(r.value * 100) / 100 }));
}

/** Questions whose passages fill a generation prompt, read and answered by a real model. */
const REAL_QUESTIONS = ['how do I replace the pump filter', 'oil temperature too high', 'reset the servo drive after a fault'];

async function benchRealModel(engine: Awaited<ReturnType<typeof createEngine>>, id: string, modelPath: string): Promise<BenchRow[]> {
  const name = id.split('/').pop() ?? id;
  const rssBefore = process.memoryUsage().rss;
  const llm = await LocalLlm.load({ modelPath });
  try {
    const ttft: number[] = [];
    const prefill: number[] = [];
    const tps: number[] = [];
    let promptTokens = 0;
    for (const question of REAL_QUESTIONS) {
      const search = await engine.search({ query: question, k: 8 });
      const hits = search.ok ? search.value.hits : [];
      const prompt = budgetPrompt({
        question,
        sources: hits.map((h, i) => toCitation(i + 1, h)),
        countTokens: (t) => llm.countTokens(t),
        contextSize: llm.contextSize,
        answerTokens: 128,
        maxPromptTokens: MAX_PROMPT_TOKENS,
      });
      const r = await llm.generate({ system: prompt.system, user: prompt.user, maxTokens: 128 });
      if (r.firstTokenMs === null) continue;
      ttft.push(r.firstTokenMs);
      prefill.push((prompt.promptTokens / r.firstTokenMs) * 1000);
      promptTokens = Math.max(promptTokens, prompt.promptTokens);
      const genMs = r.ms - r.firstTokenMs;
      if (r.chunks > 1 && genMs > 0) tps.push(((r.chunks - 1) / genMs) * 1000);
    }
    const rssMb = (process.memoryUsage().rss - rssBefore) / 2 ** 20;
    const med = (xs: number[]) => percentile([...xs].sort((a, b) => a - b), 0.5);
    return [
      { bench: `LLM load (${name})`, value: llm.loadMs, unit: 'ms', note: `${llm.threads} threads, context ${llm.contextSize}` },
      { bench: `LLM prompt reading (${name})`, value: med(prefill), unit: 'tokens/s', note: `sets MAX_PROMPT_TOKENS (${MAX_PROMPT_TOKENS})` },
      { bench: `LLM time to first token (${name})`, value: med(ttft), unit: 'ms', note: `prompts up to ${promptTokens} tokens, median of ${ttft.length}; target ≤ 4000 ms` },
      { bench: `LLM generation (${name})`, value: med(tps), unit: 'tokens/s', note: `median of ${tps.length} × ≤ 128 tokens; target ≥ 12` },
      { bench: `LLM memory added (${name})`, value: rssMb, unit: 'MB', note: 'process RSS after load and three answers, minus before' },
    ];
  } finally {
    await llm.dispose();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const { values } = parseArgs({ options: { library: { type: 'string' }, questions: { type: 'string' }, 'no-llm': { type: 'boolean', default: false } } });
  console.log(`answer bench on ${os.availableParallelism()} cores, node ${process.version}`);
  for (const r of await benchAnswers({ library: values.library, questions: values.questions, llm: !values['no-llm'] })) {
    console.log(`| ${r.bench} | ${r.value} | ${r.unit} | ${r.note ?? ''} |`);
  }
}
