/**
 * Store/search latency on a synthetic library: build N chunks (keyword-only, then with random
 * 384-d vectors), then time keyword, vector and hybrid queries.
 *
 *   npx tsx scripts/bench-store.ts [--n 100000] [--queries 200] [--dims 384] [--dir .bench/store] [--no-vectors]
 *
 * Also exported as benchSyntheticStore() for scripts/bench.ts.
 *
 * The text is synthetic (Zipf-distributed words from a generated vocabulary plus maintenance terms and
 * fault codes), so the figures measure the engine, not retrieval quality.
 */
import { rmSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import type { Chunk } from '../native/contract/document.js';
import { hybridSearch } from '../native/search/channels/hybrid.js';
import { keywordSearch } from '../native/search/channels/keyword.js';
import { DEFAULT_KEYWORD_CONFIG } from '../native/search/settings.js';
import { LibraryStore, type FileUpdate } from '../native/store/library-store.js';
import type { FileRecord } from '../native/contract/document.js';

export interface BenchStoreOptions {
  chunks: number;
  queries?: number;
  dims?: number;
  /** Also build and time a library with random vectors (default true). */
  vectors?: boolean;
  dir?: string;
  perFile?: number;
}

export interface BenchRow {
  bench: string;
  value: number;
  unit: string;
  note?: string;
}

let N = 100_000;
let Q = 200;
let DIMS = 384;
let PER_FILE = 100;
let ROOT = path.resolve('.bench/store');
const rows: BenchRow[] = [];
const report = (bench: string, value: number, unit: string, note?: string) => {
  rows.push({ bench, value, unit, note });
  console.log(`${bench}: ${value.toFixed(1)} ${unit}${note ? ` (${note})` : ''}`);
};

// Deterministic PRNG (mulberry32).
let seed = 42;
function rand(): number {
  seed = (seed + 0x6d2b79f5) | 0;
  let t = seed;
  t = Math.imul(t ^ (t >>> 15), t | 1);
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
}

const SYL = ['ka', 'to', 'ri', 'ne', 'mo', 'sa', 'lu', 'vi', 'de', 'po', 'gri', 'tan', 'bel', 'cor', 'mix', 'zen'];
const MAINT = 'spindle overheat alarm limit switch homing stepper driver nozzle bed thermistor fan belt coolant pump encoder fuse voltage firmware reset calibrate lubricate bearing'.split(' ');
const vocab: string[] = [];
for (let i = 0; vocab.length < 8000; i++) {
  const n = 2 + Math.floor(rand() * 3);
  let w = '';
  for (let j = 0; j < n; j++) w += SYL[Math.floor(rand() * SYL.length)];
  vocab.push(w);
}
vocab.splice(50, 0, ...MAINT);
// Zipf sampling over the vocabulary.
const H = vocab.reduce((acc, _w, i) => acc + 1 / (i + 1), 0);
const cdf: number[] = [];
let accum = 0;
for (let i = 0; i < vocab.length; i++) cdf.push((accum += 1 / (i + 1) / H));
function word(): string {
  const r = rand();
  let lo = 0;
  let hi = cdf.length - 1;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if ((cdf[mid] ?? 1) < r) lo = mid + 1;
    else hi = mid;
  }
  return vocab[lo] ?? 'x';
}
function sentence(words: number): string {
  const out: string[] = [];
  for (let i = 0; i < words; i++) out.push(word());
  if (rand() < 0.2) out.push(`E-${100 + Math.floor(rand() * 900)}`);
  return out.join(' ') + '.';
}
function randomUnit(dims: number): Float32Array {
  const v = new Float32Array(dims);
  let n = 0;
  for (let i = 0; i < dims; i++) {
    const x = rand() * 2 - 1;
    v[i] = x;
    n += x * x;
  }
  n = Math.sqrt(n);
  for (let i = 0; i < dims; i++) v[i] = (v[i] ?? 0) / n;
  return v;
}

function makeFile(f: number, withVectors: boolean): FileUpdate {
  const file = `manuals/m${f}.md`;
  const chunks: Chunk[] = [];
  for (let o = 0; o < PER_FILE; o++) {
    const text = sentence(60 + Math.floor(rand() * 60));
    const headingPath = [`Manual ${f}`, `Section ${word()} ${word()}`];
    chunks.push({
      id: `c${f}-${o}`,
      file,
      page: 1 + Math.floor(o / 4),
      headingPath,
      section: headingPath.join(' > '),
      text,
      kind: 'passage',
      lang: 'en',
      manual: `Manual ${f}`,
      contentHash: `${f}-${o}`,
      chunkerVersion: 1,
      ordinal: o,
    });
  }
  const record: FileRecord = {
    file,
    source: `/bench/${file}`,
    sha256: String(f),
    size: 0,
    mtimeMs: 0,
    format: 'markdown',
    meta: { title: `Manual ${f}`, equipment: [], revision: null, language: 'en', publisher: null },
    manualKey: `manual ${f}`,
    chunks: PER_FILE,
    codes: 0,
    pagesWithoutText: [],
    generation: 1,
    ingestedAt: new Date().toISOString(),
  };
  return { record, chunks, vectors: withVectors ? chunks.map(() => randomUnit(DIMS)) : null, codes: [] };
}

function pct(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] ?? NaN;
}
async function timeAll(label: string, fn: (i: number) => Promise<unknown>): Promise<void> {
  for (let i = 0; i < 5; i++) await fn(i); // warm-up
  const ts: number[] = [];
  for (let i = 0; i < Q; i++) {
    const t = performance.now();
    await fn(i);
    ts.push(performance.now() - t);
  }
  const note = `${N} chunks, ${Q} queries`;
  report(`${label} p50`, pct(ts, 50), 'ms', note);
  report(`${label} p95`, pct(ts, 95), 'ms', note);
}

const queries: string[] = [];
function makeQueries(): void {
  queries.length = 0;
  for (let i = 0; i < Q + 5; i++) {
  const n = 2 + Math.floor(rand() * 4);
  const ws = Array.from({ length: n }, () => vocab[50 + Math.floor(rand() * 2000)] ?? 'x');
  if (i % 4 === 0) ws.push(MAINT[i % MAINT.length] ?? 'alarm');
  if (i % 7 === 0) ws.push(`E-${100 + (i % 900)}`);
  queries.push(ws.join(' '));
  }
}

async function build(withVectors: boolean): Promise<LibraryStore> {
  const dir = path.join(ROOT, withVectors ? 'vectors' : 'keyword');
  rmSync(dir, { recursive: true, force: true });
  const emb = withVectors ? { id: 'bench:random', dims: DIMS } : null;
  const store = await LibraryStore.open(dir, { embedder: emb, create: true });
  const files = Math.ceil(N / PER_FILE);
  const batch = Math.max(1, Math.floor(10_000 / PER_FILE));
  let tGen = 0;
  let tAdd = 0;
  const t0 = performance.now();
  for (let f = 0; f < files; f += batch) {
    let t = performance.now();
    const updates = Array.from({ length: Math.min(batch, files - f) }, (_x, i) => makeFile(f + i, withVectors));
    tGen += performance.now() - t;
    t = performance.now();
    await store.replaceFiles(updates);
    tAdd += performance.now() - t;
  }
  const tc = performance.now();
  await store.compact();
  const compactMs = performance.now() - tc;
  const total = performance.now() - t0;
  const st = await store.stats();
  const kind = withVectors ? `${DIMS}-d vectors` : 'keyword-only';
  const note = `${st.chunks} chunks in ${st.files} files, ${kind}`;
  report(`store build total (${kind})`, total / 1000, 's', `${note}; synthetic text generation ${(tGen / 1000).toFixed(1)} s`);
  report(`store analyze+add (${kind})`, tAdd / 1000, 's', note);
  report(`store compact/index (${kind})`, compactMs / 1000, 's', note);
  await store.close();
  const to = performance.now();
  const reopened = await LibraryStore.open(dir, { embedder: emb });
  report(`store open (${kind})`, performance.now() - to, 'ms', note);
  return reopened;
}

/** Builds synthetic libraries and times searches; returns the figures (also printed). */
export async function benchSyntheticStore(opts: BenchStoreOptions): Promise<BenchRow[]> {
  N = opts.chunks;
  Q = opts.queries ?? 200;
  DIMS = opts.dims ?? 384;
  PER_FILE = opts.perFile ?? 100;
  ROOT = path.resolve(opts.dir ?? '.bench/store');
  rows.length = 0;
  seed = 42;
  makeQueries();
  const kw = await build(false);
  await timeAll('keyword search k=10', (i) => keywordSearch(kw, queries[i] ?? '', 10));
  await timeAll('keyword search k=10, no thesaurus', (i) => keywordSearch(kw, queries[i] ?? '', 10, undefined, undefined, { ...DEFAULT_KEYWORD_CONFIG, expand: false }));
  await timeAll('keyword search k=10, body field only', (i) => keywordSearch(kw, queries[i] ?? '', 10, undefined, undefined, { ...DEFAULT_KEYWORD_CONFIG, headingBoost: 0 }));
  await timeAll('keyword search k=10, pathPrefix filter', (i) => keywordSearch(kw, queries[i] ?? '', 10, { pathPrefix: 'manuals/m1' }));
  await kw.close();
  if (opts.vectors !== false) {
    const vs = await build(true);
    const qv = queries.map(() => randomUnit(DIMS));
    const embedder = { embedQuery: async () => qv[Math.floor(rand() * qv.length)] ?? randomUnit(DIMS) };
    await timeAll('keyword search k=10 (vector library)', (i) => keywordSearch(vs, queries[i] ?? '', 10));
    await timeAll('vector search k=10', (i) => vs.vectorSearch(qv[i] ?? randomUnit(DIMS), 10));
    await timeAll('hybrid search k=10 (RRF of 50+50)', (i) => hybridSearch(vs, embedder, { query: queries[i] ?? '', k: 10 }));
    await vs.close();
  }
  rmSync(ROOT, { recursive: true, force: true });
  return [...rows];
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
  const { values } = parseArgs({
    options: {
      n: { type: 'string', default: '100000' },
      queries: { type: 'string', default: '200' },
      dims: { type: 'string', default: '384' },
      dir: { type: 'string', default: '.bench/store' },
      'per-file': { type: 'string', default: '100' },
      'no-vectors': { type: 'boolean', default: false },
    },
  });
  console.log(`LANCE_CPU_THREADS=${process.env.LANCE_CPU_THREADS ?? '(set by the store)'}`);
  await benchSyntheticStore({
    chunks: Number(values.n),
    queries: Number(values.queries),
    dims: Number(values.dims),
    dir: values.dir,
    perFile: Number(values['per-file']),
    vectors: !values['no-vectors'],
  });
}
