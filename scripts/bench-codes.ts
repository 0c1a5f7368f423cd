/**
 * Fault-code index benchmark on deterministic synthetic data (no corpus, no I/O).
 *
 *   npx tsx scripts/bench-codes.ts [--codes 100000]
 *
 * Reports: index build time (= cold open), first lookup after open (p50 over fresh indexes),
 * warm lookups p50/p99 over a mix of hits, misses, variants and free-text sentences — once with
 * every query new to the LRU (cache misses) and once repeated (cache hits) — and extraction time
 * per 1,000 table rows. Targets: warm p50 ≤ 1 ms, p99 ≤ 5 ms, cold p50 ≤ 10 ms.
 * `benchCodes()` returns the same figures as rows for scripts/bench.ts.
 */
import { pathToFileURL } from 'node:url';
import type { Block, CodeRecord, ParsedDocument } from '../native/contract/document.js';
import { extractCodes } from '../native/fault-codes/extract.js';
import { CodeIndex } from '../native/fault-codes/index.js';
import type { CodeScheme } from '../native/fault-codes/schemes.js';
import { prng as rng } from './prng.js';


let rand = rng(42);
const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)] as T;
const WORDS = ['MOTOR', 'SPINDLE', 'HEATER', 'SENSOR', 'AXIS', 'PUMP', 'VALVE', 'DRIVE', 'FAN', 'DOOR', 'BUS', 'ENCODER'];
const STATES = ['FAULT', 'FAILED', 'TIMEOUT', 'OVERLOAD', 'STALL', 'LOST', 'ERROR'];
const PRODUCTS = ['A1', 'B2', 'C3', 'D4', 'E5', 'F6', 'G7', 'H8', 'J9', 'K10'];

interface Spec {
  table: string;
  columns: string[];
  cells: string[];
}

/** Table rows in several families, shaped like the parsers' output. */
function specs(total: number): Spec[] {
  const out: Spec[] = [];
  const share = (f: number): number => Math.floor(total * f);
  const title = (): string => `${pick(WORDS)} ${pick(STATES)}`.toLowerCase();
  const text = (): string => `The ${title()} was detected. Check the ${pick(WORDS).toLowerCase()} wiring.`;
  for (let i = 1; i <= share(0.05); i++) out.push({ table: 'alarms', columns: ['Alarm Code', 'Alarm Message', 'Alarm Description'], cells: [String(i), title(), text()] });
  for (let i = 1; i <= share(0.2); i++) out.push({ table: 'errors', columns: ['Code', 'Message', 'Description'], cells: [`E-${i}`, title(), text()] });
  for (let i = 1; i <= share(0.1); i++) out.push({ table: 'faults', columns: ['Fault', 'Cause', 'Remedy'], cells: [`F${String(i).padStart(5, '0')}`, text(), 'Replace the part.'] });
  const obd = new Set<string>();
  while (obd.size < share(0.25)) obd.add(`${pick(['P', 'B', 'C', 'U'])}${Math.floor(rand() * 4)}${Math.floor(rand() * 4096).toString(16).toUpperCase().padStart(3, '0')}`);
  for (const c of obd) out.push({ table: 'codes', columns: ['key', 'value'], cells: [c, title()] });
  const nums = new Set<string>();
  while (nums.size < share(0.2)) nums.add(String(10000 + Math.floor(rand() * 89999)));
  for (const c of nums) out.push({ table: 'Errors', columns: ['code', 'title', 'text'], cells: [c, title(), text()] });
  for (let i = 0; i < share(0.1); i++) out.push({ table: 'drive errors', columns: ['Error', 'Description'], cells: [`${pick(WORDS)}_${pick(WORDS)}_${pick(STATES)}_${i}`, text()] });
  const remaining = total - out.length;
  for (let i = 0; i < remaining; i++) {
    const printers = PRODUCTS.filter(() => rand() < 0.3).join(', ');
    out.push({ table: 'Errors', columns: ['code', 'printers', 'title', 'text'], cells: [`XX${String(100 + (i % 900))}`, printers, title(), text()] });
  }
  return out;
}

function toDoc(rows: Spec[]): ParsedDocument {
  const blocks: Block[] = rows.map((r) => ({
    kind: 'table-row',
    text: r.cells.map((c, i) => `${r.columns[i]}: ${c}`).join('\n'),
    headingPath: [],
    page: null,
    columns: r.columns,
    cells: r.cells,
    table: r.table,
  }));
  return { format: 'csv', meta: {}, blocks, warnings: [] };
}

function pct(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] ?? NaN;
}
const f2 = (n: number): string => n.toFixed(2);

export interface BenchRow {
  bench: string;
  value: number;
  unit: string;
  note?: string;
}

/** Runs the benchmark; `log` prints the human summary as well. */
export async function benchCodes(opts: { codes?: number; log?: boolean } = {}): Promise<BenchRow[]> {
  const TOTAL = opts.codes ?? 100_000;
  // Extraction (also produces the records).
  rand = rng(42);
    const rows = specs(TOTAL);
  const doc = toDoc(rows);
  const t0 = performance.now();
  const records: CodeRecord[] = extractCodes(doc, { file: 'bench/codes.csv', manual: 'Bench', equipment: [] });
  const extractMs = performance.now() - t0;
  const scheme: CodeScheme = {
    template: 'XXyzz',
    placeholder: 'XX',
    prefixes: PRODUCTS.map((p, i) => ({ prefix: String(30 + i), names: [p] })),
  };

  // Cold open.
  const builds: number[] = [];
  let index = new CodeIndex(records, [scheme]);
  for (let i = 0; i < 3; i++) {
    const t = performance.now();
    index = new CodeIndex(records, [scheme]);
    builds.push(performance.now() - t);
  }

  // Query mix: hits, variants, misses, free text.
  const sample = (): CodeRecord => records[Math.floor(rand() * records.length)] as CodeRecord;
  function query(): string {
    const r = sample();
    switch (Math.floor(rand() * 8)) {
      case 0:
        return r.code;
      case 1:
        return r.code.toLowerCase().replace(/[-_]/g, ' ');
      case 2:
        return `machine shows ${r.code} after restart, what do I do`;
      case 3:
        return r.family === 'alarm' ? `alarm ${r.code}` : `error ${r.code}`;
      case 4:
        return `E-${900000 + Math.floor(rand() * 99999)}`; // unknown: nearest suggestions
      case 5:
        return `P${Math.floor(rand() * 4)}${Math.floor(rand() * 4096).toString(16).padStart(3, '0')}`; // hit or miss
      case 6:
        return `${30 + Math.floor(rand() * 10)}${String(100 + Math.floor(rand() * 900))}`; // prefixed alias
      default:
        return 'the spindle stops after 5 minutes and the M3 screw is loose';
    }
  }
  const queries = Array.from({ length: 5000 }, query);

  // First lookup after a fresh open (cold JIT paths are warm by now, caches are empty).
  const firsts: number[] = [];
  for (let i = 0; i < 10; i++) {
    const fresh = new CodeIndex(records, [scheme]);
    const q = queries[i * 7] as string;
    const t = performance.now();
    fresh.lookup(q);
    firsts.push(performance.now() - t);
  }

  // Warm: every query new to the LRU (misses), then the same queries again (hits).
  const warmIndex = new CodeIndex(records, [scheme], { cacheSize: 10_000 });
  for (const q of queries.slice(0, 500)) warmIndex.lookup(`${q} warmup`);
  const miss: number[] = [];
  let matched = 0;
  let suggested = 0;
  const slow: [number, string][] = [];
  for (const q of queries) {
    const t = performance.now();
    const r = warmIndex.lookup(q);
    const dt = performance.now() - t;
    miss.push(dt);
    if (process.env.BENCH_SLOW && dt > 3) slow.push([dt, q]);
    if (r.matches.length > 0) matched++;
    else if (r.nearest.length > 0) suggested++;
  }
  if (opts.log && process.env.BENCH_SLOW) console.log(slow.slice(0, 30));
  const hit: number[] = [];
  for (const q of queries) {
    const t = performance.now();
    warmIndex.lookup(q);
    hit.push(performance.now() - t);
  }

  if (opts.log) {
  console.log(`fault-code bench: ${records.length} records from ${rows.length} synthetic rows (${TOTAL} requested), ${index.size} indexed`);
  console.log(`extraction: ${f2(extractMs)} ms total, ${f2((extractMs / rows.length) * 1000)} ms per 1,000 table rows`);
  console.log(`index build (cold open): ${builds.map(f2).join(' / ')} ms`);
  console.log(`first lookup after open: p50 ${f2(pct(firsts, 50))} ms, max ${f2(Math.max(...firsts))} ms   (target p50 ≤ 10 ms)`);
  console.log(`warm lookups, LRU miss (${queries.length}): p50 ${f2(pct(miss, 50))} ms, p99 ${f2(pct(miss, 99))} ms, max ${f2(Math.max(...miss))} ms   (target p50 ≤ 1, p99 ≤ 5)`);
  console.log(`warm lookups, LRU hit  (${queries.length}): p50 ${f2(pct(hit, 50))} ms, p99 ${f2(pct(hit, 99))} ms`);
  console.log(`mix outcome: ${matched} with matches, ${suggested} with nearest suggestions only, ${queries.length - matched - suggested} with nothing`);
  }
  const r2 = (n: number): number => Math.round(n * 100) / 100;
  return [
    { bench: 'codes: extraction per 1,000 table rows', value: r2((extractMs / rows.length) * 1000), unit: 'ms' },
    { bench: `codes: index build (cold open, ${records.length} records)`, value: r2(pct(builds, 50)), unit: 'ms' },
    { bench: 'codes: first lookup after open p50', value: r2(pct(firsts, 50)), unit: 'ms', note: 'target ≤ 10' },
    { bench: 'codes: warm lookup p50 (LRU miss)', value: r2(pct(miss, 50)), unit: 'ms', note: 'target ≤ 1' },
    { bench: 'codes: warm lookup p99 (LRU miss)', value: r2(pct(miss, 99)), unit: 'ms', note: 'target ≤ 5' },
    { bench: 'codes: warm lookup p99 (LRU hit)', value: r2(pct(hit, 99)), unit: 'ms' },
  ];
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const i = process.argv.indexOf('--codes');
  await benchCodes({ codes: i > 0 ? Number(process.argv[i + 1]) : 100_000, log: true });
}
