/**
 * Embedding speed and memory of a GGUF embedding model (EmbeddingGemma) through the product's gguf
 * backend (GgufEmbedder), for issue 40's question: embed the whole library at ingest, or re-rank a
 * candidate pool at ask time?
 *
 *   npx tsx scripts/bench-embed-gguf.ts [--file models/local/embeddinggemma-300m/embeddinggemma-300m-q8_0.gguf]
 *       [--corpus <folder of .md/.txt/.rst>] [--passages 40] [--threads 2] [--document-threads 1] [--dims 768] [--json]
 *
 * Passages: paragraphs of 400–900 characters (~150 tokens) from the corpus's text files, spread evenly
 * (no corpus: synthetic manual-like sentences). Reports load time, RSS after load, ms per passage,
 * passages per CPU-second (robust to a busy shared machine), query p50/p95 over 24 short queries,
 * peak RSS and the 1-minute load average before and after. Pin the cores with `taskset -c 0,1`.
 * llama.cpp's threads spin-wait: on a machine busier than its idle cores, more threads are slower.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { GgufEmbedder } from '../native/embed/gguf.js';

const { values: args } = parseArgs({
  options: {
    file: { type: 'string', default: 'models/local/embeddinggemma-300m/embeddinggemma-300m-q8_0.gguf' },
    corpus: { type: 'string' },
    passages: { type: 'string', default: '40' },
    threads: { type: 'string' },
    'document-threads': { type: 'string' },
    dims: { type: 'string' },
    json: { type: 'boolean', default: false },
  },
});

function* walk(dir: string): Generator<string> {
  for (const e of readdirSync(dir).sort()) {
    const p = join(dir, e);
    if (statSync(p).isDirectory()) yield* walk(p);
    else if (/\.(md|txt|rst)$/i.test(e)) yield p;
  }
}

function passagesFrom(corpus: string | undefined, n: number): string[] {
  const paras: string[] = [];
  if (corpus) {
    for (const f of walk(corpus)) {
      for (const p of readFileSync(f, 'utf8').split(/\n\s*\n/)) {
        const t = p.replace(/\s+/g, ' ').trim();
        if (t.length >= 400 && t.length <= 900) paras.push(t);
      }
      if (paras.length > 5000) break;
    }
  }
  if (paras.length < n) {
    const s = 'If the spindle housing is above 45 °C after warm-up, check that the chiller is running and clean its filter; fault E-107 stops the machine until the cause is removed. ';
    for (let i = paras.length; i < n; i++) paras.push(`${i}. ${s.repeat(3)}`);
  }
  const step = Math.max(1, Math.floor(paras.length / n));
  return Array.from({ length: n }, (_, i) => paras[i * step] as string);
}

const QUERIES = ['spindle overheating', 'how to calibrate the z probe offset', '主轴过热怎么办', 'error 42 on start', 'replace the extruder fan', 'what does alarm 9 mean', 'set the baud rate for the serial port', 'bed leveling fails'];

const n = Number(args.passages);
const passages = passagesFrom(args.corpus, n);
const t0 = performance.now();
const e = await GgufEmbedder.load({
  file: args.file,
  queryPrefix: 'task: search result | query: ',
  passagePrefix: 'title: none | text: ',
  threads: args.threads ? Number(args.threads) : undefined,
  documentThreads: args['document-threads'] ? Number(args['document-threads']) : undefined,
  dims: args.dims ? Number(args.dims) : undefined,
});
const loadMs = performance.now() - t0;
const rssAfterLoad = process.memoryUsage().rss;
const load0 = loadavg()[0] as number;
const cpu0 = process.cpuUsage();
const t1 = performance.now();
await e.embedDocuments(passages);
const wall = performance.now() - t1;
const cpu = process.cpuUsage(cpu0);
const times: number[] = [];
for (let r = 0; r < 3; r++) {
  for (const q of QUERIES) {
    const s = performance.now();
    await e.embedQuery(`${q} ${r}`);
    times.push(performance.now() - s);
  }
}
times.sort((a, b) => a - b);
const result = {
  id: e.id,
  threads: args.threads ?? 'cores',
  documentThreads: args['document-threads'] ?? 'threads − 1',
  loadMs: Math.round(loadMs),
  rssAfterLoadMB: Math.round(rssAfterLoad / 2 ** 20),
  passages: n,
  avgChars: Math.round(passages.reduce((a, p) => a + p.length, 0) / n),
  msPerPassage: Math.round(wall / n),
  passagesPerSecond: +(n / (wall / 1000)).toFixed(2),
  passagesPerCpuSecond: +(n / ((cpu.user + cpu.system) / 1e6)).toFixed(2),
  queryP50Ms: Math.round(times[Math.floor(times.length / 2)] as number),
  queryP95Ms: Math.round(times[Math.floor(times.length * 0.95)] as number),
  peakRssMB: Math.round(process.resourceUsage().maxRSS / 1024),
  loadAverage: [load0, loadavg()[0] as number].map((x) => +x.toFixed(2)),
};
console.log(args.json ? JSON.stringify(result) : result);
await e.dispose();
