/**
 * Soak test of browser mode: the real server (`npm start -- --browser`, i.e. bin/start.js) on a
 * temp copy of the sample library, hammered by several concurrent HTTP clients with a seeded mix of
 * fault-code lookups (hits, misses, codes inside sentences), searches, extractive answers, streamed
 * calls, listings and odd input (valid but strange, and deliberately invalid). Every reply must be
 * the expected one: ok for valid input, the documented status and error code for invalid input.
 * The server's RSS (/proc/<pid>/status VmRSS) is read after a warm-up of 10 % of the queries and at
 * the end, each time as is and after a full GC in the server (scripts/soak-gc-hook.mjs: LanceDB's
 * native query results are freed only when V8 finalizes their wrappers, so under load RSS saws up
 * and down by ~15 % without leaking); the settled figure must not grow by more than 10 %.
 *
 *   npx tsx scripts/soak.ts                                  1000 queries, 8 clients
 *   MANUALDESK_RELIABILITY_FULL=1 npx tsx scripts/soak.ts    10000 queries
 *   MANUALDESK_SOAK_QUERIES=5000 npx tsx scripts/soak.ts [--clients 8] [--seed 7] [--only search,ask]
 *
 * Prints one JSON line: queries, errors, rssWarmMB, rssEndMB, growthPct, p50Ms, p95Ms, …
 * Exits 1 when there were errors or RSS grew more than 10 %.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { prng } from './prng.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const SAMPLES = path.join(ROOT, 'samples', 'library');
const GC_HOOK = path.join(ROOT, 'scripts', 'soak-gc-hook.mjs');

export const SOAK_CI_QUERIES = 1000;
export const SOAK_FULL_QUERIES = 10_000;
export const MAX_RSS_GROWTH_PCT = 10;

/** MANUALDESK_SOAK_QUERIES, else the full count with MANUALDESK_RELIABILITY_FULL=1, else the CI count. */
export function soakQueryCount(env: NodeJS.ProcessEnv = process.env): number {
  const explicit = Number(env.MANUALDESK_SOAK_QUERIES);
  if (Number.isInteger(explicit) && explicit > 0) return explicit;
  return env.MANUALDESK_RELIABILITY_FULL === '1' ? SOAK_FULL_QUERIES : SOAK_CI_QUERIES;
}

// ---- the server ---------------------------------------------------------------------------------

export interface ServerProcess {
  proc: ChildProcess;
  /** The server's origin; requests need the key (`authHeaders`). */
  url: string;
  /** The address the server printed (url + /?token=<key>): what a browser opens. */
  openUrl: string;
  /** `Authorization: Bearer <key>`, the key from the printed address. */
  authHeaders: Record<string, string>;
  pid: number;
  /** Everything the server printed so far. */
  log(): string;
  stop(): Promise<void>;
}

export interface StartOptions {
  /** MANUALDESK_HOME (and HOME) of the server: the sample library is built inside it. */
  home: string;
  /** Extra environment for the server process. */
  env?: Record<string, string>;
  /** Node options before bin/start.js (e.g. ['--import', guard]). */
  nodeArgs?: string[];
  /** Extra arguments of bin/start.js (e.g. ['--library', dir]). */
  args?: string[];
  /** Command wrapped around node (e.g. ['unshare', '-rn', …]); default none. */
  wrapper?: string[];
  timeoutMs?: number;
}

/**
 * Starts `node bin/start.js --browser --port 0` as `npm start -- --browser` does, with the sample
 * library built into `home`, and resolves once the engine has reported the library (so the first
 * query does not measure start-up).
 */
export function startBrowserServer(opts: StartOptions): Promise<ServerProcess> {
  const argv = [...(opts.nodeArgs ?? []), path.join(ROOT, 'bin', 'start.js'), '--browser', '--port', '0', ...(opts.args ?? [])];
  const [cmd, ...pre] = opts.wrapper && opts.wrapper.length > 0 ? [...opts.wrapper, process.execPath] : [process.execPath];
  const proc = spawn(cmd as string, [...pre, ...argv], {
    cwd: ROOT,
    env: {
      ...process.env,
      HOME: opts.home,
      MANUALDESK_HOME: opts.home,
      MANUALDESK_LIBRARY: '',
      MANUALDESK_MODELS: path.join(opts.home, 'models'),
      ...opts.env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let log = '';
  const timeoutMs = opts.timeoutMs ?? 180_000;
  const stop = () =>
    new Promise<void>((resolve) => {
      if (proc.exitCode !== null || proc.signalCode !== null) return resolve();
      const kill = setTimeout(() => proc.kill('SIGKILL'), 10_000);
      proc.once('exit', () => {
        clearTimeout(kill);
        resolve();
      });
      proc.kill('SIGTERM');
    });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      proc.kill('SIGKILL');
      reject(new Error(`browser mode did not start within ${timeoutMs} ms:\n${log}`));
    }, timeoutMs);
    const onData = (chunk: Buffer) => {
      log += chunk.toString();
      const m = /browser mode at ((http:\/\/127\.0\.0\.1:\d+)\/\?token=([\w-]+))/i.exec(log);
      if (m && /^Library: /m.test(log)) {
        clearTimeout(timer);
        proc.off('exit', onExit);
        const authHeaders = { Authorization: `Bearer ${m[3]!}` };
        resolve({ proc, url: m[2]!, openUrl: m[1]!, authHeaders, pid: serverPid(proc), log: () => log, stop });
      }
    };
    const onExit = (code: number | null) => {
      clearTimeout(timer);
      reject(new Error(`browser mode exited with ${code}:\n${log}`));
    };
    proc.stdout?.on('data', onData);
    proc.stderr?.on('data', (c: Buffer) => (log += c.toString()));
    proc.on('exit', onExit);
  });
}

/** The node process itself (a wrapper such as unshare execs it, so the pid is the same). */
function serverPid(proc: ChildProcess): number {
  if (proc.pid === undefined) throw new Error('the server process has no pid');
  return proc.pid;
}

/** Resident set size of a process in MB, from /proc (Linux). */
export function rssMB(pid: number): number {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = Number(/^VmRSS:\s+(\d+)\s+kB/m.exec(status)?.[1]);
  if (!Number.isFinite(kb)) throw new Error(`no VmRSS for process ${pid}`);
  return kb / 1024;
}

// ---- the queries --------------------------------------------------------------------------------

export interface Vocabulary {
  codes: string[];
  words: string[];
  zh: string[];
}

/** Fault codes (first column of the sample code table) and words of the sample manuals. */
export function sampleVocabulary(dir = SAMPLES): Vocabulary {
  const codes = new Set<string>();
  const words = new Set<string>();
  const zh = new Set<string>();
  for (const name of fs.readdirSync(dir).sort()) {
    if (!/\.(md|csv|html|txt)$/.test(name)) continue;
    const text = fs.readFileSync(path.join(dir, name), 'utf8');
    if (name.endsWith('.csv')) {
      for (const line of text.split('\n').slice(1)) {
        const code = line.split(',')[0]?.trim();
        if (code) codes.add(code);
      }
    }
    const plain = text.replace(/<[^>]+>/g, ' ');
    for (const w of plain.match(/[A-Za-z][A-Za-z-]{3,}/g) ?? []) words.add(w.toLowerCase());
    for (const w of plain.match(/[\u4e00-\u9fff]{2,4}/g) ?? []) zh.add(w);
  }
  return { codes: [...codes], words: [...words], zh: [...zh] };
}

export interface SoakQuery {
  kind: string;
  /** Path under the server, e.g. /api/search or /api/ask/stream. */
  path: string;
  method?: 'GET' | 'POST';
  /** Raw body; JSON unless contentType says otherwise. */
  body?: string;
  contentType?: string;
  /** Expected HTTP status (default 200). */
  status: number;
  /** Expected error code; absent: the Result must be ok. */
  code?: string;
  /** Extra check of the value of an ok Result; returns a problem or null. */
  check?: (value: unknown) => string | null;
}

const json = (x: unknown) => JSON.stringify(x);

/** One query of the mix, drawn by `rand`. */
export function drawQuery(rand: () => number, vocab: Vocabulary, manualFiles: string[]): SoakQuery {
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)] as T;
  const words = (n: number) => Array.from({ length: n }, () => pick(vocab.words)).join(' ');
  const r = rand();
  if (r < 0.2) {
    const code = pick(vocab.codes);
    const text = rand() < 0.5 ? code : rand() < 0.5 ? code.toLowerCase().replace('-', '') : `machine shows ${code} after ${pick(vocab.words)}`;
    return {
      kind: 'code-hit',
      path: '/api/lookupCode',
      body: json({ text }),
      status: 200,
      check: (v) => ((v as { matches: unknown[] }).matches.length > 0 ? null : `no match for the defined code in "${text}"`),
    };
  }
  if (r < 0.3) {
    const text = pick([`E-${900 + Math.floor(rand() * 99)}`, `X${Math.floor(rand() * 9999)}`, `AL-${Math.floor(rand() * 999)}`, words(2)]);
    return { kind: 'code-miss', path: '/api/lookupCode', body: json({ text }), status: 200 };
  }
  if (r < 0.55) {
    const req: Record<string, unknown> = { query: words(1 + Math.floor(rand() * 4)) };
    if (rand() < 0.3) req.k = 1 + Math.floor(rand() * 30);
    if (rand() < 0.2) req.mode = pick(['keyword', 'hybrid'] as const);
    if (rand() < 0.15) req.filters = { lang: ['en'] };
    return { kind: 'search', path: '/api/search', body: json(req), status: 200 };
  }
  if (r < 0.6) {
    return { kind: 'search-zh', path: '/api/search', body: json({ query: `${pick(vocab.zh)}${pick(vocab.zh)}` }), status: 200 };
  }
  if (r < 0.7) {
    const question = rand() < 0.5 ? `What does ${pick(vocab.codes)} mean?` : `How do I check the ${words(2)}?`;
    return { kind: 'ask', path: '/api/ask', body: json({ question, prefer: 'extractive' }), status: 200 };
  }
  if (r < 0.75) {
    const question = `${words(2)} ${pick(vocab.codes)}`;
    return { kind: 'ask-stream', path: '/api/ask/stream', body: json({ question, prefer: 'extractive' }), status: 200 };
  }
  if (r < 0.78) {
    return { kind: 'search-stream', path: '/api/search/stream', body: json({ query: words(2) }), status: 200 };
  }
  if (r < 0.82) {
    const which = pick(['info', 'listManuals', 'listPacks', 'methods'] as const);
    if (which === 'methods') return { kind: 'list', path: '/api/methods', method: 'GET', status: 200 };
    return { kind: 'list', path: `/api/${which}`, body: rand() < 0.5 ? '' : '{}', status: 200 };
  }
  if (r < 0.85 && manualFiles.length > 0) {
    return { kind: 'open-source', path: '/api/openSource', body: json({ file: pick(manualFiles) }), status: 200 };
  }
  if (r < 0.92) {
    // Strange but valid: the engine must answer normally.
    const query = pick([
      `${pick(vocab.words)} 🔧🛠️`,
      `"${pick(vocab.words)}" AND (${pick(vocab.words)} OR *)`,
      `' OR 1=1; DROP TABLE chunks; -- ${pick(vocab.words)}`,
      `${pick(vocab.words)}.*+?[](){}|^$\\`,
      `title:${pick(vocab.words)} text:~2`,
      `${pick(vocab.words)}\u0000\u0007\t\n${pick(vocab.words)}`,
      `\u202e${pick(vocab.words)}\u200b`,
      `${pick(vocab.codes)} ${pick(vocab.zh)} ${pick(vocab.words)}`,
      'x'.repeat(1999),
      `${pick(vocab.words)} `.repeat(200).slice(0, 1990),
      '%00%2e%2e%2f',
      '-',
      '???',
    ]);
    const kind = pick(['search', 'lookupCode'] as const);
    return { kind: 'odd-valid', path: `/api/${kind}`, body: json(kind === 'search' ? { query } : { text: query }), status: 200 };
  }
  // Deliberately invalid: each must get its documented status and error code.
  const bad: SoakQuery[] = [
    { kind: 'bad', path: '/api/search', body: json({ query: '' }), status: 400, code: 'INVALID_INPUT' },
    { kind: 'bad', path: '/api/search', body: json({ query: '   \u0000 ' }), status: 400, code: 'INVALID_INPUT' },
    { kind: 'bad', path: '/api/search', body: json({ query: 'x'.repeat(2001) }), status: 400, code: 'INVALID_INPUT' },
    { kind: 'bad', path: '/api/search', body: json({ query: 'oil', k: 0 }), status: 400, code: 'INVALID_INPUT' },
    { kind: 'bad', path: '/api/search', body: json({ query: 'oil', k: 'ten' }), status: 400, code: 'INVALID_INPUT' },
    { kind: 'bad', path: '/api/search', body: json({ query: 'oil', colour: 'red' }), status: 400, code: 'INVALID_INPUT' },
    { kind: 'bad', path: '/api/search', body: '{"query": "oil"', status: 400, code: 'INVALID_INPUT' },
    { kind: 'bad', path: '/api/search', body: json({ query: 'oil' }), contentType: 'text/plain', status: 415, code: 'INVALID_INPUT' },
    { kind: 'bad', path: '/api/lookupCode', body: json({ code: 'E-101' }), status: 400, code: 'INVALID_INPUT' },
    { kind: 'bad', path: '/api/ask', body: json({ question: 'oil?', prefer: 'psychic' }), status: 400, code: 'INVALID_INPUT' },
    { kind: 'bad', path: '/api/search', body: json({ query: 'oil', filters: { packs: ['no-such-pack'] } }), status: 400, code: 'INVALID_INPUT' },
    { kind: 'bad', path: '/api/noSuchMethod', body: '{}', status: 404, code: 'INVALID_INPUT' },
    { kind: 'bad', path: '/api/openSource', body: json({ file: '../../etc/passwd' }), status: 400, code: 'INVALID_INPUT' },
    { kind: 'bad', path: '/api/openSource', body: json({ file: 'not-in-the-library.pdf' }), status: 200, code: 'NOT_FOUND' },
    { kind: 'bad', path: '/api/removeFiles', body: json(['not-in-the-library.md']), status: 200, code: 'NOT_FOUND' },
    { kind: 'bad', path: '/api/removePack', body: json({ id: 'no-such-pack' }), status: 200, code: 'NOT_FOUND' },
  ];
  return pick(bad);
}

// ---- the run ------------------------------------------------------------------------------------

export interface SoakOptions {
  queries: number;
  clients?: number;
  seed?: number;
  /** Per-request timeout (default 30 s). */
  requestTimeoutMs?: number;
  /** Only these query kinds (for finding which kind costs memory); default all. */
  only?: string[];
  log?: (line: string) => void;
}

export interface SoakReport {
  queries: number;
  clients: number;
  seed: number;
  errors: number;
  /** The first few errors, for the report. */
  errorSamples: string[];
  byKind: Record<string, number>;
  rssStartMB: number;
  /** RSS after the warm-up and at the end, each read after a full GC in the server (see soak-gc-hook.mjs). */
  rssWarmMB: number;
  rssEndMB: number;
  /** Highest RSS seen while queries ran (sampled every 50 queries). */
  rssMaxMB: number;
  /** Growth of the settled readings: the figure that must stay within MAX_RSS_GROWTH_PCT. */
  growthPct: number;
  /** The same readings without the GC (they include garbage not yet collected). */
  rssWarmRawMB: number;
  rssEndRawMB: number;
  rawGrowthPct: number;
  /** False when the server could not be asked to collect (no hook): the settled figures are raw ones. */
  settled: boolean;
  p50Ms: number;
  p95Ms: number;
  p99Ms: number;
  seconds: number;
  qps: number;
}

/** Runs the soak against a server already started (url, pid). */
export async function soakServer(server: { url: string; pid: number; authHeaders: Record<string, string> }, opts: SoakOptions): Promise<SoakReport> {
  const clients = opts.clients ?? 8;
  const seed = opts.seed ?? 20261129;
  const total = opts.queries;
  const warmAt = Math.max(1, Math.floor(total / 10));
  const vocab = sampleVocabulary();
  const manuals = (await (await fetch(`${server.url}/api/listManuals`, { method: 'POST', headers: { 'content-type': 'application/json', ...server.authHeaders } })).json()) as {
    ok: boolean;
    value: { file: string }[];
  };
  if (!manuals.ok || manuals.value.length === 0) throw new Error('the sample library lists no manuals');
  const files = manuals.value.map((m) => m.file);
  // All queries drawn up front from one seeded stream, so a run is reproducible whatever the interleaving.
  const rand = prng(seed);
  const draw = (): SoakQuery => {
    for (;;) {
      const q = drawQuery(rand, vocab, files);
      if (!opts.only || opts.only.includes(q.kind)) return q;
    }
  };
  const plan = Array.from({ length: total }, draw);

  const rssStartMB = rssMB(server.pid);
  let rssMaxMB = rssStartMB;
  const latencies: number[] = [];
  const errorSamples: string[] = [];
  const byKind: Record<string, number> = {};
  let errors = 0;
  let done = 0;
  const t0 = performance.now();

  const one = async (q: SoakQuery): Promise<string | null> => {
    const started = performance.now();
    const res = await fetch(server.url + q.path, {
      method: q.method ?? 'POST',
      headers: q.method === 'GET' ? server.authHeaders : { 'content-type': q.contentType ?? 'application/json', ...server.authHeaders },
      body: q.method === 'GET' ? undefined : (q.body ?? ''),
      signal: AbortSignal.timeout(opts.requestTimeoutMs ?? 30_000),
    });
    const text = await res.text();
    latencies.push(performance.now() - started);
    if (res.status !== q.status) return `HTTP ${res.status}, expected ${q.status}: ${text.slice(0, 200)}`;
    let result: { ok: boolean; value?: unknown; error?: { code: string; message: string } };
    if (q.path.endsWith('/stream')) {
      const lines = text.trim().split('\n').map((l) => JSON.parse(l) as { type: string; result?: typeof result });
      const last = lines.at(-1);
      if (last?.type !== 'result' || !last.result) return `stream did not end with a result line: ${text.slice(-200)}`;
      result = last.result;
    } else {
      result = JSON.parse(text) as typeof result;
    }
    if (q.code) {
      if (result.ok) return `expected ${q.code}, got ok`;
      if (result.error?.code !== q.code) return `expected ${q.code}, got ${result.error?.code}: ${result.error?.message}`;
      if (!result.error.message || result.error.message.length < 10) return `error ${q.code} without a helpful message`;
      return null;
    }
    if (!result.ok) return `${result.error?.code}: ${result.error?.message}`;
    return q.check ? q.check(result.value) : null;
  };

  /** Queries [from, to) of the plan, `clients` at a time. */
  const phase = async (from: number, to: number) => {
    let next = from;
    const worker = async () => {
      for (;;) {
        const i = next++;
        if (i >= to) return;
        const q = plan[i] as SoakQuery;
        byKind[q.kind] = (byKind[q.kind] ?? 0) + 1;
        let problem: string | null;
        try {
          problem = await one(q);
        } catch (err) {
          problem = `request failed: ${err instanceof Error ? err.message : String(err)}`;
        }
        if (problem) {
          errors++;
          if (errorSamples.length < 10) errorSamples.push(`#${i} ${q.kind} ${q.path} ${(q.body ?? '').slice(0, 80)} -> ${problem}`);
        }
        done++;
        if (done % 50 === 0) rssMaxMB = Math.max(rssMaxMB, rssMB(server.pid));
        if (opts.log && done % Math.max(1, Math.floor(total / 10)) === 0) opts.log(`${done}/${total} queries, ${errors} errors`);
      }
    };
    await Promise.all(Array.from({ length: clients }, worker));
  };

  // Warm-up (10 %), a reading, the rest, a reading: each reading both as is and after a full GC.
  await phase(0, warmAt);
  const warm = await readings(server.pid);
  await phase(warmAt, total);
  const seconds = (performance.now() - t0) / 1000;
  const end = await readings(server.pid);
  rssMaxMB = Math.max(rssMaxMB, end.rawMB);
  const sorted = [...latencies].sort((a, b) => a - b);
  const pct = (p: number) => round1(sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0);
  return {
    queries: total,
    clients,
    seed,
    errors,
    errorSamples,
    byKind,
    rssStartMB: round1(rssStartMB),
    rssWarmMB: round1(warm.settledMB),
    rssEndMB: round1(end.settledMB),
    rssMaxMB: round1(rssMaxMB),
    growthPct: round1(((end.settledMB - warm.settledMB) / warm.settledMB) * 100),
    rssWarmRawMB: round1(warm.rawMB),
    rssEndRawMB: round1(end.rawMB),
    rawGrowthPct: round1(((end.rawMB - warm.rawMB) / warm.rawMB) * 100),
    settled: end.settled,
    p50Ms: pct(50),
    p95Ms: pct(95),
    p99Ms: pct(99),
    seconds: round1(seconds),
    qps: round1(total / seconds),
  };
}

/** Starts the server on a temp home (sample library built there), soaks it, stops it, cleans up. */
export async function runSoak(opts: SoakOptions): Promise<SoakReport> {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'md-soak-'));
  let server: ServerProcess | null = null;
  try {
    // No language model: answers are extractive (what the soak measures is the server, not generation).
    server = await startBrowserServer({ home, env: { MANUALDESK_LLM: 'none' }, nodeArgs: ['--expose-gc', '--import', GC_HOOK] });
    return await soakServer(server, opts);
  } finally {
    await server?.stop();
    fs.rmSync(home, { recursive: true, force: true });
  }
}

/** RSS as is, then after asking the server for a full GC (SIGUSR2, soak-gc-hook.mjs) and a moment for native finalizers. */
async function readings(pid: number): Promise<{ rawMB: number; settledMB: number; settled: boolean }> {
  const rawMB = rssMB(pid);
  const settled = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('soak-gc-hook');
  if (!settled) return { rawMB, settledMB: rawMB, settled };
  process.kill(pid, 'SIGUSR2');
  await new Promise((r) => setTimeout(r, 1500));
  return { rawMB, settledMB: rssMB(pid), settled };
}

function round1(x: number): number {
  return Math.round(x * 10) / 10;
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      clients: { type: 'string', default: '8' },
      seed: { type: 'string' },
      only: { type: 'string' },
      verbose: { type: 'boolean', default: false },
    },
  });
  const report = await runSoak({
    queries: soakQueryCount(),
    clients: Number(values.clients),
    seed: values.seed === undefined ? undefined : Number(values.seed),
    only: values.only?.split(','),
    log: values.verbose ? (l) => console.error(l) : undefined,
  });
  console.log(JSON.stringify(report));
  if (report.errors > 0 || !(report.growthPct <= MAX_RSS_GROWTH_PCT)) process.exitCode = 1;
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
  main().catch((err: unknown) => {
    console.error(err instanceof Error ? err.stack : String(err));
    process.exit(1);
  });
}
