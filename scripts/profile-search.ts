/**
 * npx tsx scripts/profile-search.ts --library <built library> --questions <jsonl> [--serial] [--json <out>]
 *
 * Where a hybrid search spends its time, stage by stage: each question is retrieved once with the
 * stages of retrieve() (native/search/retriever.ts) run one after another and timed apart, and every
 * call a stage makes on a source (code lookup, name and message indexes, query embedding, full-text
 * and vector searches, language counts, indexed terms) timed as it runs. A second pass, on a fresh
 * engine (no memoised query vector), times engine.search as the app calls it, and what of that is
 * outside retrieve() (opening checks). --serial runs the source calls one at a time (their own costs). Prints p50/p95 per stage and per call kind, one-part and
 * two-part questions apart, and the calls per question. Measurement only; the library is opened read-only.
 */
import fs from 'node:fs/promises';
import { parseArgs } from 'node:util';
import type { SearchFilters } from '../native/contract/api.js';
import { createEngine, type Engine } from '../native/engine.js';
import type { Library } from '../native/library/library.js';
import type { Sources } from '../native/packs/sources.js';
import { searchParts } from '../native/search/channels/parts.js';
import { searchWhole } from '../native/search/channels/whole.js';
import { planRetrieval, planSources } from '../native/search/plan/retrieval-plan.js';
import { planQuery } from '../native/search/plan/query-plan.js';
import { retrieve } from '../native/search/retriever.js';
import { fuseSourceHits } from '../native/search/rank/fuse.js';
import { rankPlanned } from '../native/search/rank/planned.js';
import { DEFAULT_RANKING_DEPTH, DEFAULT_RETRIEVAL_SETTINGS } from '../native/search/settings.js';
import type { RetrievalSource } from '../native/search/source.js';
import { detectLang } from '../native/text/lang.js';
import { commandLine, idNumber, loadQuestions, NEW_IDS_FROM, percentile } from './eval-lib.js';

const { values } = parseArgs({ options: { library: { type: 'string' }, questions: { type: 'string' }, json: { type: 'string' }, serial: { type: 'boolean', default: false } } });
if (!values.library || !values.questions) {
  console.error('usage: npx tsx scripts/profile-search.ts --library <dir> --questions <jsonl> [--json <out>]');
  process.exit(2);
}
console.log(`$ ${commandLine()}`);
const loaded = await loadQuestions(values.questions);
const questions = loaded.map((q) => q.query);
const twoPart = new Set(questions.filter((q) => planQuery(q).parts.length > 1));
/** The dev set's first half (ids below NEW_IDS_FROM); the rest is the newer half. */
const older = new Set(loaded.filter((q) => (idNumber(q.id) ?? 0) < NEW_IDS_FROM).map((q) => q.query));

/** Per question: ms per stage / call kind (calls of a kind summed), and call counts. */
type Times = Map<string, number>;
const perQuestion: { q: string; times: Times; counts: Map<string, number> }[] = [];
let current: { times: Times; counts: Map<string, number> } | null = null;
let stage = '';

/** Each call's start and end (ms from the question's start), for the timelines of the slowest questions. */
let spans: { name: string; from: number; to: number }[] | null = null;
let spanZero = 0;

function note(name: string, ms: number): void {
  spans?.push({ name, from: performance.now() - ms - spanZero, to: performance.now() - spanZero });
  if (!current) return;
  current.times.set(name, (current.times.get(name) ?? 0) + ms);
  current.counts.set(name, (current.counts.get(name) ?? 0) + 1);
}

async function timed<T>(name: string, fn: () => Promise<T> | T): Promise<T> {
  const t = performance.now();
  try {
    return await fn();
  } finally {
    note(name, performance.now() - t);
  }
}

/**
 * --serial: the source calls run one at a time (each waits for the one before), so each call's time is
 * its own cost, not its wait for the calls it overlaps; the stages' times are then their serial sums.
 */
let chain: Promise<unknown> = Promise.resolve();
function leaf<T>(name: string, fn: () => Promise<T>): Promise<T> {
  if (!values.serial) return timed(name, fn);
  const run = chain.then(() => timed(name, fn));
  chain = run.catch(() => undefined);
  return run;
}

/** The label of a full-text call: which filters it carries says which channel asked. */
function ftsLabel(filters: SearchFilters | undefined): string {
  if (filters?.pathPrefix) return 'fts (named folder)';
  if (filters?.lang?.length) return 'fts (untranslated)';
  return 'fts';
}

/** A source whose store, code index, embedder and indexes time every call (wall time; calls may overlap). */
function instrumented(src: RetrievalSource): RetrievalSource {
  return { ...src, ...instrumentedParts(src), names: src.names && (() => timed(`${stage}: names()`, src.names as () => Promise<never>)), messages: src.messages && (() => timed(`${stage}: messages()`, src.messages as () => Promise<never>)) };
}

/**
 * One proxy per store, code index and embedder, made once: what the engine caches per store object
 * (the untranslated manuals' terms, keyed by the store) must find the same object on every question.
 */
const made = new WeakMap<object, Pick<RetrievalSource, 'store' | 'codes' | 'embedder'>>();
function instrumentedParts(src: RetrievalSource): Pick<RetrievalSource, 'store' | 'codes' | 'embedder'> {
  const known = made.get(src.store);
  if (known) return known;
  const store = src.store;
  const wrap = <A extends unknown[], R>(name: (...a: A) => string, fn: (...a: A) => Promise<R>) => (...a: A) => leaf(`${stage}: ${name(...a)}`, () => fn(...a));
  const s = new Proxy(store, {
    get(target, prop, recv) {
      const v = Reflect.get(target, prop, recv) as unknown;
      if (typeof v !== 'function') return v;
      const f = (v as (...a: unknown[]) => unknown).bind(target);
      switch (prop) {
        case 'fullTextSearch':
          return wrap((_p, _l, filters?: SearchFilters) => ftsLabel(filters), f as (...a: unknown[]) => Promise<unknown>);
        case 'vectorSearch':
          return wrap(() => 'vector search', f as (...a: unknown[]) => Promise<unknown>);
        case 'findText':
        case 'languageCounts':
        case 'indexedTerms':
          return wrap(() => String(prop), f as (...a: unknown[]) => Promise<unknown>);
        default:
          return f;
      }
    },
  });
  const embedder = src.embedder && { embedQuery: (t: string, sig?: AbortSignal) => leaf(`${stage}: embed query`, () => (src.embedder as NonNullable<typeof src.embedder>).embedQuery(t, sig)) };
  const codes = src.codes && {
    ...src.codes,
    lookup: (...a: Parameters<NonNullable<RetrievalSource['codes']>['lookup']>) => {
      const t = performance.now();
      const r = (src.codes as NonNullable<RetrievalSource['codes']>).lookup(...a);
      note(`${stage}: code lookup`, performance.now() - t);
      return r;
    },
  };
  const out = { store: s, codes, embedder };
  made.set(src.store, out);
  return out;
}

/** The engine's sources for a read (what engine.search hands retrieve()); measurement only. */
type Reader = { read<T>(fn: (local: Library, sources: Sources) => Promise<T>): Promise<{ ok: boolean; value?: T; error?: unknown }> };

const settings = DEFAULT_RETRIEVAL_SETTINGS;
const depth = DEFAULT_RANKING_DEPTH;
const k = 10;

async function staged(engine: Engine): Promise<void> {
  const reader = engine as unknown as Reader;
  // Warm-up: the name and message indexes and the model load, as the bench's warm-up searches do.
  for (const q of ['how do I check the oil level', 'machine stops without a message', 'alarm 1']) await engine.search({ query: q, mode: 'hybrid' });
  for (const query of questions) {
    const entry = { q: query, times: new Map<string, number>(), counts: new Map<string, number>() };
    current = entry;
    const res = await reader.read(async (local, sources) => {
      const raw = sources.select(local, undefined);
      const srcs = raw.map(instrumented);
      const t0 = performance.now();
      stage = 'lang';
      const lang = await timed('lang', () => detectLang(query));
      stage = 'plan sources';
      const { perSource, codeHits, codes } = await timed('plan sources (codes, scope)', () => planSources(srcs, query, lang, undefined, settings));
      stage = 'plan retrieval';
      const { plan, definitions } = await timed('plan retrieval (parts, messages)', () => planRetrieval(srcs, perSource, query, codes));
      stage = 'whole';
      const wholes = await timed('search whole', () => searchWhole(perSource, { query, k }, { depth, lang, settings }));
      stage = 'parts';
      const searched = await timed('search parts', () => searchParts(perSource, plan.parts, definitions, { query, k }, { lang, settings }));
      stage = 'rank';
      await timed('rank (fuse, planned steps)', () => {
        const whole = fuseSourceHits(wholes.map((w) => w.hits), k);
        fuseSourceHits(wholes.map((w) => w.keyword), depth);
        rankPlanned({ whole, parts: searched, codeHits, k }, settings);
        fuseSourceHits(wholes.map((w) => w.vector), depth);
      });
      note('retrieve, stages one after another', performance.now() - t0);
    });
    if (!res.ok) throw new Error(JSON.stringify(res.error));
    current = null;
    perQuestion.push(entry);
  }
}

/** engine.search as the app calls it, and retrieve()'s own time within it. */
async function asCalled(engine: Engine, mode: 'hybrid' | 'keyword' | 'vector'): Promise<Map<string, { total: number; inside: number }>> {
  for (const q of ['how do I check the oil level', 'machine stops without a message', 'alarm 1']) await engine.search({ query: q, mode });
  const out = new Map<string, { total: number; inside: number }>();
  for (const q of questions) {
    const t = performance.now();
    const r = await engine.search({ query: q, k, mode });
    if (!r.ok) throw new Error(r.error.message);
    out.set(q, { total: performance.now() - t, inside: r.value.ms });
  }
  return out;
}

/** retrieve() as engine.search runs it (stages concurrent), with each source call's span recorded. */
async function timelines(engine: Engine): Promise<{ q: string; ms: number; spans: NonNullable<typeof spans> }[]> {
  const reader = engine as unknown as Reader;
  for (const q of ['how do I check the oil level', 'machine stops without a message', 'alarm 1']) await engine.search({ query: q, mode: 'hybrid' });
  const out: { q: string; ms: number; spans: NonNullable<typeof spans> }[] = [];
  for (const query of questions) {
    const res = await reader.read(async (local, sources) => {
      const srcs = sources.select(local, undefined).map(instrumented);
      spans = [];
      stage = 'retrieve';
      spanZero = performance.now();
      await retrieve(srcs, { query, k }, settings);
      const ms = performance.now() - spanZero;
      out.push({ q: query, ms, spans });
      spans = null;
    });
    if (!res.ok) throw new Error(JSON.stringify(res.error));
  }
  return out;
}

const lib = values.library;
let engine = await createEngine({ libraryDir: lib, readOnly: true });
try {
  await staged(engine);
} finally {
  await engine.close();
}
engine = await createEngine({ libraryDir: lib, readOnly: true });
let called: Map<string, { total: number; inside: number }>;
try {
  called = await asCalled(engine, 'hybrid');
} finally {
  await engine.close();
}
for (const e of perQuestion) {
  const c = called.get(e.q);
  if (!c) continue;
  e.times.set('engine.search (hybrid, as called)', c.total);
  e.times.set('  of it outside retrieve()', c.total - c.inside);
}

engine = await createEngine({ libraryDir: lib, readOnly: true });
let lines: Awaited<ReturnType<typeof timelines>>;
try {
  lines = await timelines(engine);
} finally {
  await engine.close();
}

const fmt = (x: number) => x.toFixed(1).padStart(7);
const names = [...new Set(perQuestion.flatMap((e) => [...e.times.keys()]))];
const rows: Record<string, unknown>[] = [];
const groups = [
  ['one', (q: string) => !twoPart.has(q)],
  ['two', (q: string) => twoPart.has(q)],
  ['older', (q: string) => older.has(q)],
  ['newer', (q: string) => !older.has(q)],
] as const;
console.log(`\n${'stage / call (ms per question, calls of a kind summed; 0 when not made)'.padEnd(58)}   one-part p50  p95   two-part p50  p95   ids<${NEW_IDS_FROM} p50  p95   ids≥${NEW_IDS_FROM} p50  p95   calls/q   asked by`);
for (const n of names) {
  const row: Record<string, unknown> = { name: n };
  let line = n.padEnd(58);
  for (const [kind, inKind] of groups) {
    const xs = perQuestion.filter((e) => inKind(e.q)).map((e) => e.times.get(n) ?? 0).sort((a, b) => a - b);
    row[kind] = { p50: percentile(xs, 0.5), p95: percentile(xs, 0.95) };
    line += `   ${fmt(percentile(xs, 0.5))} ${fmt(percentile(xs, 0.95))}`;
  }
  const asked = perQuestion.filter((e) => (e.counts.get(n) ?? 0) > 0).length;
  const calls = perQuestion.reduce((s, e) => s + (e.counts.get(n) ?? 0), 0) / perQuestion.length;
  line += `   ${calls.toFixed(2).padStart(6)}   ${asked}/${perQuestion.length}`;
  row.callsPerQuestion = calls;
  row.asked = asked;
  rows.push(row);
  console.log(line);
}
console.log(`\n${perQuestion.length - twoPart.size} one-part, ${twoPart.size} two-part questions`);
console.log('\nThe slowest questions, retrieve() as run (concurrent): each source call from-to ms');
for (const [kind, inKind] of [['one-part', (q: string) => !twoPart.has(q)], ['two-part', (q: string) => twoPart.has(q)]] as const) {
  const xs = lines.filter((l) => inKind(l.q)).sort((a, b) => b.ms - a.ms);
  const p50 = percentile(xs.map((l) => l.ms).sort((a, b) => a - b), 0.5);
  const p95 = percentile(xs.map((l) => l.ms).sort((a, b) => a - b), 0.95);
  console.log(`${kind}: retrieve p50 ${p50.toFixed(1)} p95 ${p95.toFixed(1)}`);
  for (const l of xs.slice(0, 8)) {
    console.log(`  ${l.ms.toFixed(1).padStart(6)} ms  ${l.q.slice(0, 70)}`);
    console.log(`          ${l.spans.map((s) => `${s.name.replace('retrieve: ', '')} ${s.from.toFixed(0)}-${s.to.toFixed(0)}`).join(' | ')}`);
  }
}
if (values.json) await fs.writeFile(values.json, JSON.stringify({ command: commandLine(), rows, timelines: lines }, null, 2));
