/**
 * npx tsx scripts/probe-plan.ts --library <dir> --questions <jsonl> --corpus <dir> [--verbose] [--names]
 *
 * Measures what query planning (native/search/plan/query-plan.ts) and name scoping (name-index.ts) could
 * give, from OUTSIDE the engine, through its public API only: engine.search once per sub-query,
 * engine.listManuals + engine.openSource for the name index, then interleave/boostScope here.
 * Prints hit@5 per type (multi_hop: both@5), first 65 and new 80 apart, for:
 *   plain   engine.search(question)
 *   plan    sub-queries interleaved (whole question as tie-breaker)
 *   scope   plain + a search restricted to the named source folder(s), boosted to the scope
 *   both    plan + scope
 * The library must already exist (npm run eval … --library <dir> builds it).
 */
import path from 'node:path';
import { parseArgs } from 'node:util';
import type { SearchFilters, SearchHit } from '../native/contract/api.js';
import { createEngine } from '../native/engine.js';
import { parseFile } from '../native/parse/index.js';
import { appendMissing, interleave } from '../native/search/rank/interleave.js';
import { boostScope } from '../native/search/rank/scope.js';
import { buildNameIndex, inScope, matchNames, type NameRecord, type NameScope } from '../native/search/plan/name-index.js';
import { detectCodes } from '../native/fault-codes/detect.js';
import { planQuery } from '../native/search/plan/query-plan.js';
import { fuseRrf } from '../native/search/rank/rrf.js';
import { loadQuestions, targetsOf, type Question } from './eval-lib.js';

const { values } = parseArgs({
  options: {
    library: { type: 'string' },
    questions: { type: 'string' },
    corpus: { type: 'string' },
    verbose: { type: 'boolean', default: false },
    names: { type: 'boolean', default: false },
    k: { type: 'string', default: '10' },
    /** rr: round-robin of the parts (whole list as tie-breaker); rr-whole: the whole list takes part too; cover: rr-whole over the parts the whole list's top 5 does not already cover. */
    fusion: { type: 'string', default: 'rr' },
    'no-inherit': { type: 'boolean', default: false },
    /** Connective parts that inherit a code also carry its meaning (engine.lookupCode). */
    definitions: { type: 'boolean', default: false },
    /** Boost only: no extra search restricted to the scope. */
    'boost-only': { type: 'boolean', default: false },
  },
});
if (!values.library || !values.questions || !values.corpus) {
  console.error('usage: npx tsx scripts/probe-plan.ts --library <dir> --questions <jsonl> --corpus <dir> [--verbose] [--names]');
  process.exit(2);
}
const K = Number(values.k);
const corpus = path.resolve(values.corpus);

const engine = await createEngine({ libraryDir: path.resolve(values.library) });
const unwrap = <T>(r: { ok: true; value: T } | { ok: false; error: { code: string; message: string } }): T => {
  if (!r.ok) throw new Error(`${r.error.code}: ${r.error.message}`);
  return r.value;
};

// ---- The name index, from what the library already records per file ----
const t0 = performance.now();
const manuals = unwrap(await engine.listManuals()).filter((m) => m.current);
const records: NameRecord[] = [];
for (const m of manuals) {
  const headings = new Set<string>();
  if (m.format !== 'pdf') {
    const doc = await engine.openSource({ file: m.file });
    if (doc.ok && doc.value.kind === 'blocks') {
      for (const b of doc.value.blocks) {
        if (b.kind === 'heading') headings.add(b.text);
        for (const h of b.headingPath) headings.add(h);
      }
    }
  }
  records.push({ file: m.file, title: m.title, equipment: m.equipment, headings: [...headings] });
}
const tRead = performance.now();
const index = buildNameIndex(records);
const tBuild = performance.now();
console.log(
  `name index: ${index.entries.length} names from ${records.length} files (${records.reduce((s, r) => s + (r.headings?.length ?? 0), 0)} headings); ` +
    `reading headings ${Math.round(tRead - t0)} ms, build ${Math.round(tBuild - tRead)} ms, ${JSON.stringify(index).length} bytes as JSON`,
);
if (values.names) for (const e of index.entries) console.log(`  ${e.kind.padEnd(9)} ${e.name} → ${e.prefixes.join(',') || `${e.files.length} files`}`);

// ---- Scoring (the eval's rule: expected file + substring, PDF hits by their whole page) ----
const collapse = (s: string) => s.replace(/\s+/g, ' ').trim();
const pageCache = new Map<string, Map<number, string>>();
async function pageText(file: string, page: number): Promise<string | undefined> {
  let pages = pageCache.get(file);
  if (!pages) {
    pages = new Map();
    try {
      const doc = await parseFile(path.join(corpus, file));
      for (const b of doc.blocks) if (b.page !== null) pages.set(b.page, `${pages.get(b.page) ?? ''} ${b.text}`);
    } catch {
      // unreadable: no page text
    }
    for (const [p, t] of pages) pages.set(p, collapse(t));
    pageCache.set(file, pages);
  }
  return pages.get(page);
}
async function rankOf(hits: SearchHit[], target: ReturnType<typeof targetsOf>[number]): Promise<number | null> {
  for (let i = 0; i < Math.min(hits.length, K); i++) {
    const h = hits[i] as SearchHit;
    for (const t of target.files) {
      if (h.file !== t.file) continue;
      const want = collapse(t.contains);
      if (collapse(h.text).includes(want)) return i + 1;
      if (h.page !== null && /\.pdf$/i.test(h.file) && (await pageText(h.file, h.page))?.includes(want)) return i + 1;
    }
  }
  return null;
}
async function rankAt(q: Question, hits: SearchHit[]): Promise<number | null> {
  const ranks: (number | null)[] = [];
  for (const t of targetsOf(q)) ranks.push(await rankOf(hits, t));
  if (ranks.length === 0 || ranks.some((r) => r === null)) return null;
  return Math.max(...(ranks as number[]));
}

// ---- The variants ----
const idOf = (h: SearchHit) => h.chunkId;
/** rrf / rrf10: reciprocal rank fusion of the whole list and the parts (k = 60 / 10), for comparison. */
function fuse(parts: SearchHit[][], whole: SearchHit[]): SearchHit[] {
  if (!values.fusion.startsWith('rrf') || parts.length === 0) return interleave(parts, whole, fusion);
  const byId = new Map<string, SearchHit>();
  for (const h of [...whole, ...parts.flat()]) if (!byId.has(h.chunkId)) byId.set(h.chunkId, h);
  const lists = [whole, ...parts].map((l) => l.map((h, i) => ({ id: h.chunkId, score: l.length - i })));
  return fuseRrf(lists, values.fusion === 'rrf10' ? 10 : 60)
    .slice(0, K)
    .map((r) => byId.get(r.id) as SearchHit);
}
const fusion = {
  idOf,
  k: K,
  wholeFirst: values.fusion !== 'rr',
  skipCovered: values.fusion === 'cover' ? { depth: 1, top: 5 } : undefined,
};
/** Time spent in engine.search per variant of the current question (ms, as the engine reports it). */
let spent = 0;
const search = async (query: string, k = K, filters?: SearchFilters) => {
  const res = unwrap(await engine.search({ query, k, filters }));
  spent += res.ms;
  return res.hits;
};
const titleOf = new Map(manuals.map((m) => [m.file, m.title] as const));
/** A file scope this small is searched on its own (by manual title) as well as boosted. */
const MAX_SCOPED_FILES = 20;
/** Code hits (exact matches) keep their place: the scope must not push a named code's definition down. */
const keepOf = (hits: SearchHit[]) => hits.findIndex((h) => h.kind !== 'code') === -1 ? hits.length : hits.findIndex((h) => h.kind !== 'code');

async function scoped(query: string, scope: NameScope | null, base: SearchHit[]): Promise<SearchHit[]> {
  if (!scope) return base;
  let cands = base;
  if (values['boost-only']) return boostScope(cands, (h) => inScope(scope, h.file), { keep: keepOf(cands) });
  for (const p of scope.prefixes.slice(0, 2)) cands = appendMissing(cands, await search(query, K, { pathPrefix: p }), idOf);
  if (scope.files.length > 0 && scope.files.length <= MAX_SCOPED_FILES) {
    const titles = [...new Set(scope.files.map((f) => titleOf.get(f)).filter((t): t is string => t !== undefined))];
    cands = appendMissing(cands, await search(query, K, { manuals: titles }), idOf);
  }
  return boostScope(cands, (h) => inScope(scope, h.file), { keep: keepOf(cands) });
}

const VARIANTS = ['plain', 'plan', 'scope', 'both'] as const;
type Variant = (typeof VARIANTS)[number];
interface Row {
  q: Question;
  group: string;
  split: boolean;
  scope: string[];
  rank: Record<Variant, number | null>;
  /** engine.search time: the plain search; plain + parts; plain + parts + scoped searches. */
  ms: { plain: number; plan: number; both: number };
}
const rows: Row[] = [];
let searches = 0;
const questions = await loadQuestions(values.questions);
for (const q of questions) {
  if (q.type === 'out_of_scope') continue;
  const num = Number(/(\d+)$/.exec(q.id)?.[1] ?? 0);
  const scope = matchNames(index, q.query);
  // Context for the parts: the source names the question mentions (the product it is about).
  const context = scope ? scope.names.filter((n) => index.entries.some((e) => e.name === n && e.kind === 'source')) : [];
  let definitions: Record<string, string> | undefined;
  if (values.definitions) {
    definitions = {};
    for (const c of detectCodes(q.query)) {
      const m = unwrap(await engine.lookupCode({ text: c.raw })).matches[0];
      if (m) definitions[c.key] ??= [m.title, m.cause, m.remedy].filter(Boolean).join(' ');
    }
  }
  const plan = planQuery(q.query, { context, inheritCodes: !values['no-inherit'], definitions });
  spent = 0;
  const plain = await search(q.query);
  const msPlain = spent;
  const partLists: SearchHit[][] = [];
  for (const p of plan.parts) partLists.push(await search(p.query));
  const msPlan = spent;
  searches += 1 + plan.parts.length;
  const planned = fuse(partLists, plain);
  const scopedPlain = await scoped(q.query, scope, plain);
  const scopedParts: SearchHit[][] = [];
  for (const [i, p] of plan.parts.entries()) scopedParts.push(await scoped(p.query, scope, partLists[i] as SearchHit[]));
  const both = fuse(scopedParts, scopedPlain);
  const msBoth = spent;
  const lists: Record<Variant, SearchHit[]> = { plain, plan: planned, scope: scopedPlain, both };
  const rank = {} as Record<Variant, number | null>;
  for (const v of VARIANTS) rank[v] = await rankAt(q, lists[v]);
  rows.push({ q, group: num >= 101 ? 'new80' : 'first65', split: plan.parts.length > 0, scope: scope?.names ?? [], rank, ms: { plain: msPlain, plan: msPlan, both: msBoth } });
  if (values.verbose && (plan.parts.length > 0 || scope || VARIANTS.some((v) => (rank[v] ?? 99) <= 5 !== ((rank.plain ?? 99) <= 5)))) {
    const r = VARIANTS.map((v) => `${v}=${rank[v] ?? '-'}`).join(' ');
    console.log(`${q.id.padEnd(7)} ${r.padEnd(36)} ${q.query}`);
    if (scope) console.log(`        scope: ${scope.names.join(', ')} → ${scope.prefixes.join(',')} ${scope.files.length} files`);
    for (const [i, p] of plan.parts.entries()) {
      const rs: (number | null)[] = [];
      for (const t of targetsOf(q)) rs.push(await rankOf(partLists[i] as SearchHit[], t));
      console.log(`        part (${p.reason}) targets at ${rs.map((x) => x ?? '-').join(',')}: ${p.query}`);
    }
    if (plan.parts.length) {
      const rs: (number | null)[] = [];
      for (const t of targetsOf(q)) rs.push(await rankOf(plain, t));
      console.log(`        whole targets at ${rs.map((x) => x ?? '-').join(',')}`);
    }
  }
}

const types = [...new Set(rows.map((r) => r.q.type))];
const at5 = (rs: Row[], v: Variant) => (rs.length ? rs.filter((r) => (r.rank[v] ?? Infinity) <= 5).length / rs.length : NaN);
const at1 = (rs: Row[], v: Variant) => (rs.length ? rs.filter((r) => r.rank[v] === 1).length / rs.length : NaN);
const f = (x: number) => (Number.isNaN(x) ? '—' : x.toFixed(2));
console.log(`\nhit@5 (multi_hop: both@5) and hit@1, per type; ${searches} engine.search calls for the plan (plain: ${rows.length})`);
console.log(`| type | group | n | split | scoped | ${VARIANTS.map((v) => `${v} @5`).join(' | ')} | ${VARIANTS.map((v) => `${v} @1`).join(' | ')} |`);
console.log(`|---|---|---|---|---|${VARIANTS.map(() => '---|').join('')}${VARIANTS.map(() => '---|').join('')}`);
for (const t of types) {
  for (const g of ['first65', 'new80', 'all']) {
    const rs = rows.filter((r) => r.q.type === t && (g === 'all' || r.group === g));
    if (rs.length === 0) continue;
    console.log(
      `| ${t} | ${g} | ${rs.length} | ${rs.filter((r) => r.split).length} | ${rs.filter((r) => r.scope.length).length} | ${VARIANTS.map((v) => f(at5(rs, v))).join(' | ')} | ${VARIANTS.map((v) => f(at1(rs, v))).join(' | ')} |`,
    );
  }
}
for (const g of ['first65', 'new80', 'all']) {
  const rs = rows.filter((r) => g === 'all' || r.group === g);
  console.log(`| all answerable | ${g} | ${rs.length} | ${rs.filter((r) => r.split).length} | ${rs.filter((r) => r.scope.length).length} | ${VARIANTS.map((v) => f(at5(rs, v))).join(' | ')} | ${VARIANTS.map((v) => f(at1(rs, v))).join(' | ')} |`);
}
const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil(p * s.length) - 1))] ?? 0;
};
for (const key of ['plain', 'plan', 'both'] as const) {
  const xs = rows.map((r) => r.ms[key]);
  console.log(`engine.search time per question, ${key}: p50 ${pct(xs, 0.5).toFixed(1)} ms, p95 ${pct(xs, 0.95).toFixed(1)} ms`);
}
await engine.close();
