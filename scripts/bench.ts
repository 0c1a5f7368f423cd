/**
 * npm run bench -- [--corpus <dir>] [--questions <jsonl>] [--embedder <spec>] [--synthetic <n>] [--codes <n>] [--many-files <n>] [--json <out>]
 *                   [--library <dir>]
 *
 * Rows: ingest of a corpus folder (files/s, chunks/s, MB/s, PDF pages/s) without and, with
 * --embedder, with embeddings; re-ingest of the unchanged corpus; search p50/p95 on the corpus
 * (keyword, and vector/hybrid when an embedder is given); search p50/p95 on a deterministic synthetic
 * library (--synthetic, default 100000 chunks; 0 skips); fault-code lookup on a synthetic code table
 * (--codes, default 100000; 0 skips); ingest of 1/10 of --many-files against --many-files one-line
 * files, time, peak RSS and ratio (default 10000; 0 skips); engine RSS. Prints a table and writes JSON with --json.
 * Search rows are given for one-part and two-part questions apart (the query plan's parts), whose
 * targets differ. --library times the searches on a library already built (read-only, no ingest
 * rows; its own model), so a large corpus is not ingested again for them.
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { createEngine } from '../native/engine.js';
import type { EmbedderSpec } from '../native/embed/models.js';
import type { SearchMode } from '../native/contract/api.js';
import { loadQuestions, percentile } from './eval-lib.js';
import { benchSyntheticStore } from './bench-store.js';
import { benchCodes } from './bench-codes.js';
import { benchAnswers } from './bench-answers.js';
import { benchManyFiles } from './bench-many-files.js';
import { scanPaths } from '../native/pipelines/scan.js';
import { isSupportedFile, parseFile } from '../native/parse/index.js';
import { extractCodes } from '../native/fault-codes/extract.js';
import { planQuery } from '../native/search/plan/query-plan.js';

const { values } = parseArgs({
  options: {
    corpus: { type: 'string' },
    questions: { type: 'string' },
    embedder: { type: 'string' },
    synthetic: { type: 'string', default: '100000' },
    codes: { type: 'string', default: '100000' },
    json: { type: 'string' },
    answers: { type: 'string', default: 'on' },
    'many-files': { type: 'string', default: '10000' },
    library: { type: 'string' },
  },
});

interface Row {
  bench: string;
  value: number;
  unit: string;
  note?: string;
}
const rows: Row[] = [];
const add = (bench: string, value: number, unit: string, note?: string) => {
  rows.push({ bench, value: Math.round(value * 100) / 100, unit, note });
  console.log(`${bench}: ${Math.round(value * 100) / 100} ${unit}${note ? ` (${note})` : ''}`);
};
const rssMb = () => process.memoryUsage().rss / 2 ** 20;

/**
 * The process's highest RSS while `run` runs, sampled every 100 ms (process.resourceUsage().maxRSS
 * is the whole process's peak, which an earlier ingest of this bench may hold).
 */
async function peakRssDuring<T>(run: () => Promise<T>): Promise<{ value: T; peakMb: number }> {
  let peak = rssMb();
  const timer = setInterval(() => (peak = Math.max(peak, rssMb())), 100);
  try {
    const value = await run();
    return { value, peakMb: Math.max(peak, rssMb()) };
  } finally {
    clearInterval(timer);
  }
}

const GENERIC_QUERIES = [
  'spindle will not home after power loss',
  'limit switch triggered during homing',
  'reset settings to defaults',
  'motor overheating driver',
  'how do I calibrate the probe',
  'communication timeout with controller',
  'E-204',
  'alarm 9',
  'p0300',
  'replace the nozzle',
];

async function corpusBench(corpus: string, spec: EmbedderSpec | undefined, label: string): Promise<void> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'manualdesk-bench-'));
  try {
    const engine = await createEngine({ libraryDir: dir, embedder: spec, create: true });
    try {
      const bytes = await folderBytes(corpus);
      // With a model, every file is searchable by keyword and code when its vectors start.
      const t0 = performance.now();
      let vectorsFrom: number | null = null;
      const { value: r1, peakMb } = await peakRssDuring(() =>
        engine.ingest({ paths: [corpus] }, { onProgress: (p) => void (p.unit === 'passages' && vectorsFrom === null && (vectorsFrom = performance.now())) }),
      );
      if (!r1.ok) throw new Error(r1.error.message);
      const s = r1.value.seconds;
      add(`ingest ${label}`, s, 's', `${r1.value.files} files, ${r1.value.chunks} chunks, ${(bytes / 2 ** 20).toFixed(1)} MB`);
      if (vectorsFrom !== null) add(`ingest ${label} keyword-searchable after`, (vectorsFrom - t0) / 1000, 's', 'then the vectors');
      add(`ingest ${label} files/s`, r1.value.files / s, 'files/s');
      add(`ingest ${label} chunks/s`, r1.value.chunks / s, 'chunks/s');
      add(`ingest ${label} MB/s`, bytes / 2 ** 20 / s, 'MB/s');
      add(`ingest ${label} peak RSS`, peakMb, 'MB', 'sampled every 100 ms during the ingest; target with a model: <= 1024');
      const r2 = await engine.ingest({ paths: [corpus] });
      if (!r2.ok) throw new Error(r2.error.message);
      add(`re-ingest unchanged ${label}`, r2.value.seconds, 's', `${r2.value.unchanged} unchanged`);

      await searchBench(dir, label, spec && spec.kind !== 'none' ? ['keyword', 'vector', 'hybrid'] : ['keyword']);
      add(`engine RSS after corpus ${label}`, rssMb(), 'MB');
      if (!spec || spec.kind === 'none') await extractionShare(corpus, s);
    } finally {
      await engine.close();
    }
  } finally {
    await fs.rm(dir, { recursive: true, force: true });
  }
}

/** Warm-up searches, none of them a timed question (the engine memoises query vectors). */
const WARM_UP = ['how do I check the oil level', 'machine stops without a message', 'alarm 1', 'replace the drive belt', 'sensor reading drifts'];

/**
 * Search p50/p95 per mode over the questions (or GENERIC_QUERIES), one-part and two-part questions
 * apart. Each mode gets an engine of its own on the library and asks each question once, so every
 * timed search embeds its question as a technician's new question would (no memoised vector).
 */
async function searchBench(dir: string, label: string, modes: SearchMode[]): Promise<void> {
  const queries = values.questions ? (await loadQuestions(values.questions)).map((q) => q.query) : GENERIC_QUERIES;
  const twoPart = new Set(queries.filter((q) => planQuery(q).parts.length > 1));
  for (const mode of modes) {
    const engine = await createEngine({ libraryDir: dir, readOnly: true });
    try {
      for (const q of WARM_UP) await engine.search({ query: q, mode });
      const ms: number[] = [];
      const byParts: Record<'one-part' | 'two-part', number[]> = { 'one-part': [], 'two-part': [] };
      for (const q of queries) {
        const t = performance.now();
        const res = await engine.search({ query: q, k: 10, mode });
        if (!res.ok) throw new Error(res.error.message);
        const took = performance.now() - t;
        ms.push(took);
        byParts[twoPart.has(q) ? 'two-part' : 'one-part'].push(took);
      }
      ms.sort((a, b) => a - b);
      add(`search ${mode} corpus ${label} p50`, percentile(ms, 0.5), 'ms', `${ms.length} queries, each asked once`);
      add(`search ${mode} corpus ${label} p95`, percentile(ms, 0.95), 'ms');
      for (const [kind, xs] of Object.entries(byParts)) {
        if (xs.length === 0 || xs.length === ms.length) continue;
        xs.sort((a, b) => a - b);
        const target = mode !== 'hybrid' ? '' : kind === 'one-part' ? '; target ≤ 50 ms' : '; target ≤ 120 ms';
        add(`search ${mode} corpus ${label} ${kind} p95`, percentile(xs, 0.95), 'ms', `${xs.length} questions${target}`);
      }
    } finally {
      await engine.close();
    }
  }
}

/** Searches of a library already built (--library), with the model it records. */
async function libraryBench(dir: string): Promise<void> {
  const engine = await createEngine({ libraryDir: dir, readOnly: true });
  const info = await engine.info().finally(() => engine.close());
  const vectors = info.ok && info.value.embedder !== null && !info.value.modelMissing;
  await searchBench(dir, path.basename(dir), vectors ? ['keyword', 'vector', 'hybrid'] : ['keyword']);
  add(`process RSS after library ${path.basename(dir)}`, rssMb(), 'MB');
}

/** Fault-code extraction time over the corpus's parsed documents, as a share of the measured ingest. */
async function extractionShare(corpus: string, ingestSeconds: number): Promise<void> {
  const { files } = await scanPaths([corpus], isSupportedFile);
  let extractMs = 0;
  let records = 0;
  for (const f of files) {
    let doc;
    try {
      doc = await parseFile(f.abs);
    } catch {
      continue;
    }
    const t = performance.now();
    records += extractCodes(doc, { file: f.rel, manual: f.rel, equipment: [] }).length;
    extractMs += performance.now() - t;
  }
  add('fault-code extraction over corpus', extractMs, 'ms', `${records} records`);
  add('fault-code extraction share of ingest', (100 * extractMs) / 1000 / ingestSeconds, '%');
}

async function folderBytes(dir: string): Promise<number> {
  let total = 0;
  for (const e of await fs.readdir(dir, { withFileTypes: true, recursive: true })) {
    if (e.isFile()) total += (await fs.stat(path.join(e.parentPath, e.name))).size;
  }
  return total;
}

function parseSpec(s: string | undefined): EmbedderSpec | undefined {
  if (!s) return undefined;
  if (s.startsWith('onnx:')) return { kind: 'onnx', dir: s.slice(5) };
  return { kind: s } as EmbedderSpec;
}

console.log(`ManualDesk bench on ${os.cpus().length} cores, node ${process.version}`);
if (values.library) await libraryBench(path.resolve(values.library));
if (values.corpus) {
  const corpus = path.resolve(values.corpus);
  await corpusBench(corpus, { kind: 'none' }, 'no-embeddings');
  if (values.embedder) await corpusBench(corpus, parseSpec(values.embedder), values.embedder);
}
const nSynthetic = Number(values.synthetic);
if (nSynthetic > 0) {
  for (const r of await benchSyntheticStore({ chunks: nSynthetic })) add(r.bench, r.value, r.unit, r.note);
}
const nCodes = Number(values.codes);
if (nCodes > 0) {
  for (const r of await benchCodes({ codes: nCodes })) add(r.bench, r.value, r.unit, r.note);
}
// Ingest cost against file count: 1/10 of --many-files against --many-files one-line files (0 skips).
const nMany = Number(values['many-files']);
if (nMany > 0) {
  for (const r of benchManyFiles({ small: Math.max(1, Math.round(nMany / 10)), large: nMany })) add(r.bench, r.value, r.unit, r.note);
}
// Answer overhead and the fixture LLM's first-token time and speed (--answers off to skip).
if (values.answers !== 'off') {
  for (const r of await benchAnswers()) add(r.bench, r.value, r.unit, r.note);
}
add('process RSS at end', rssMb(), 'MB');

console.log('\n| bench | value | unit | note |\n|---|---|---|---|');
for (const r of rows) console.log(`| ${r.bench} | ${r.value} | ${r.unit} | ${r.note ?? ''} |`);
if (values.json) await fs.writeFile(values.json, JSON.stringify({ host: { cores: os.cpus().length, node: process.version }, rows }, null, 1));
