/**
 * Embedding speed and memory of an ONNX model folder through the product's own loader (OnnxEmbedder).
 *
 *   npx tsx scripts/bench-embed.ts [--dir models/local/multilingual-e5-small] [--dtype q8|fp32]
 *       [--passages 2000] [--corpus <folder of .md/.txt/.rst>] [--threads 2] [--batch 64] [--budget 4096]
 *       [--queries 200] [--arena on|off] [--spinning on|off] [--max-tokens N] [--json]
 *
 * Passages: deterministic synthetic manual-like text (English, German, Chinese; 20–400 tokens, as the
 * chunker makes) or, with --corpus, paragraphs of up to ~1,200 characters from the text files of a
 * folder. They go through embedDocuments in slices of 256, as ingest does (embedWithCache).
 * Reports load time, RSS after load, passages/s, tokens/s, peak RSS (getrusage maxrss of this process),
 * passages per CPU-second (robust to a busy shared machine), and query-embedding p50/p95 over short
 * queries. Pin the cores with taskset (e.g. `taskset -c 0,1`) to measure the two-core case.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { OnnxEmbedder, type OnnxDtype } from '../native/embed/onnx.js';
import { prng } from './prng.js';

const { values: args } = parseArgs({
  options: {
    dir: { type: 'string', default: 'models/local/multilingual-e5-small' },
    dtype: { type: 'string', default: 'q8' },
    passages: { type: 'string', default: '2000' },
    corpus: { type: 'string' },
    threads: { type: 'string' },
    batch: { type: 'string' },
    budget: { type: 'string' },
    queries: { type: 'string', default: '200' },
    arena: { type: 'string' },
    'max-tokens': { type: 'string' },
    spinning: { type: 'string' },
    json: { type: 'boolean', default: false },
  },
});

const EN = [
  'Check that the spindle chiller is running and its display shows 20–24 °C.',
  'If the alarm E-107 appears, stop the machine and let the spindle cool down for 30 minutes.',
  'Remove the four M6 screws of the rear cover and disconnect the fan connector X12.',
  'Measure the supply voltage between terminals L1 and N; it must be 230 V ± 10 %.',
  'Replace the coolant filter cartridge every 500 operating hours or when the pressure drop exceeds 0.8 bar.',
  'Warning: hazardous voltage is present inside the cabinet for five minutes after switching off.',
  'Lubricate the linear guides of the X and Y axes with the grease specified in table 7.',
  'The servo drive reports overcurrent when the motor cable is damaged or the brake does not release.',
];
const DE = [
  'Prüfen Sie, ob die Sicherung F3 durchgebrannt ist, und ersetzen Sie sie gegebenenfalls.',
  'Vor dem Öffnen des Schaltschranks den Hauptschalter ausschalten und gegen Wiedereinschalten sichern.',
  'Der Kühlmittelstand muss zwischen den Markierungen MIN und MAX liegen.',
];
const ZH = [
  '如果主轴温度超过45°C，请检查冷却机是否运行，并清洁过滤网。',
  '更换滤芯前，请先关闭电源并释放系统压力。',
  '报警代码 AL-0042 表示伺服电机过载，请检查 X 轴导轨润滑情况。',
  '每运行五百小时更换一次液压油，并检查油位。',
];
const QUERIES = [
  'spindle overheating',
  'motor does not start',
  'E-107 alarm',
  'how to replace the coolant filter',
  '主轴过热怎么办',
  'Sicherung ersetzen',
  'servo overcurrent after brake release',
  'lubricate linear guides',
];

function synthetic(n: number): string[] {
  const rand = prng(17);
  const out: string[] = [];
  for (let i = 0; i < n; i++) {
    const pool = rand() < 0.2 ? ZH : rand() < 0.15 ? DE : EN;
    const sentences = 1 + Math.floor(rand() * rand() * 22); // skewed: most chunks short, some long
    const parts: string[] = [];
    for (let s = 0; s < sentences; s++) parts.push(pool[Math.floor(rand() * pool.length)] ?? '');
    out.push(`Section ${i % 97}.${i % 13}: ${parts.join(' ')}`);
  }
  return out;
}

function fromCorpus(dir: string, n: number): string[] {
  const files: string[] = [];
  const walk = (d: string): void => {
    for (const name of readdirSync(d).sort()) {
      const p = join(d, name);
      const st = statSync(p);
      if (st.isDirectory()) walk(p);
      else if (/\.(md|txt|rst|adoc)$/i.test(name) && st.size < 2_000_000) files.push(p);
    }
  };
  walk(dir);
  const out: string[] = [];
  for (const f of files) {
    let buf = '';
    for (const para of readFileSync(f, 'utf8').split(/\n\s*\n/)) {
      const t = para.replace(/\s+/g, ' ').trim();
      if (!t) continue;
      if (buf.length + t.length > 1200 && buf) {
        out.push(buf);
        buf = '';
      }
      buf = buf ? `${buf} ${t}` : t;
      if (out.length >= n) return out;
    }
    if (buf) out.push(buf);
    if (out.length >= n) return out;
  }
  return out;
}

function pct(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
}

const mb = (bytes: number): number => Math.round(bytes / 1e6);
const maxRssMb = (): number => Math.round((process.resourceUsage().maxRSS * 1024) / 1e6);

const n = Number(args.passages);
const passages = args.corpus ? fromCorpus(resolve(args.corpus), n) : synthetic(n);
const chars = passages.reduce((a, p) => a + p.length, 0);

const t0 = performance.now();
const embedder = await OnnxEmbedder.load({
  dir: resolve(args.dir),
  dtype: args.dtype as OnnxDtype,
  queryPrefix: 'query: ',
  passagePrefix: 'passage: ',
  threads: args.threads ? Number(args.threads) : undefined,
  batchSize: args.batch ? Number(args.batch) : undefined,
  tokenBudget: args.budget ? Number(args.budget) : undefined,
  memArena: args.arena ? args.arena === 'on' : undefined,
  maxTokens: args['max-tokens'] ? Number(args['max-tokens']) : undefined,
  spinning: args.spinning ? args.spinning === 'on' : undefined,
});
const loadMs = performance.now() - t0;
const rssAfterLoad = mb(process.memoryUsage().rss);

const t1 = performance.now();
const cpu0 = process.cpuUsage();
for (let start = 0; start < passages.length; start += 256) {
  await embedder.embedDocuments(passages.slice(start, start + 256));
}
const embedS = (performance.now() - t1) / 1000;
const cpu = process.cpuUsage(cpu0);
const cpuS = (cpu.user + cpu.system) / 1e6;
const rssAfterEmbed = mb(process.memoryUsage().rss);

const times: number[] = [];
const nq = Number(args.queries);
for (let i = 0; i < nq; i++) {
  const q = `${QUERIES[i % QUERIES.length]}${i >= QUERIES.length ? ` ${i}` : ''}`;
  const s = performance.now();
  await embedder.embedQuery(q);
  times.push(performance.now() - s);
}
times.sort((a, b) => a - b);
await embedder.dispose();

const result = {
  model: embedder.id,
  dtype: embedder.dtype,
  passages: passages.length,
  avgChars: Math.round(chars / passages.length),
  loadMs: Math.round(loadMs),
  rssAfterLoadMb: rssAfterLoad,
  passagesPerS: Number((passages.length / embedS).toFixed(1)),
  embedS: Number(embedS.toFixed(1)),
  /** Passages per CPU-second: less sensitive than wall time to other processes on a shared machine. */
  passagesPerCpuS: Number((passages.length / cpuS).toFixed(1)),
  rssAfterEmbedMb: rssAfterEmbed,
  peakRssMb: maxRssMb(),
  queryP50Ms: Number(pct(times, 50).toFixed(1)),
  queryP95Ms: Number(pct(times, 95).toFixed(1)),
  threads: args.threads ?? 'default',
  batch: args.batch ?? 'default',
  budget: args.budget ?? 'default',
  arena: args.arena ?? 'default',
  spinning: args.spinning ?? 'default',
  maxTokens: args['max-tokens'] ?? 'default',
};
if (args.json) console.log(JSON.stringify(result));
else
  console.log(
    `${result.model} ${result.dtype}: ${result.passages} passages (avg ${result.avgChars} chars) ` +
      `${result.passagesPerS}/s (${result.embedS} s; ${result.passagesPerCpuS} per CPU-s), load ${result.loadMs} ms, RSS after load ${rssAfterLoad} MB, ` +
      `peak RSS ${result.peakRssMb} MB; query p50 ${result.queryP50Ms} ms, p95 ${result.queryP95Ms} ms ` +
      `[threads ${result.threads}, batch ${result.batch}, budget ${result.budget}, arena ${result.arena}, spinning ${result.spinning}, max tokens ${result.maxTokens}]`,
  );
