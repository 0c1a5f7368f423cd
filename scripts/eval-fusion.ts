/**
 * Fusion (and reranking) measurement on a hybrid library, without re-running retrieval per variant:
 *
 *   npx tsx scripts/eval-fusion.ts --corpus <dir> --questions <jsonl> --library <hybrid library> [--embedder onnx:<dir>|gguf:<file>] [--cache <json>] [--rerank]
 *
 * For each question it asks the engine once for the code hits and each retriever's ranking (top 50,
 * code rows removed as retrieve() removes them), marks
 * which entries are correct (eval-lib's rule), caches that, and then replays every fusion variant
 * (native/search/rank/rrf.ts's functions) offline: hit@1 / hit@5 per type, first 65 and new 80 apart,
 * keyword-only and vector-only beside them. --rerank also re-scores the fused top passages by
 * the e5 similarity of their best sentence (needs --embedder).
 */
import fs from 'node:fs/promises';
import { parseArgs } from 'node:util';
import type { SearchHit } from '../native/contract/api.js';
import { createEngine } from '../native/engine.js';
import { createEmbedder, parseEmbedderSpec } from '../native/embed/models.js';
import { fuseChannels, placeWithin, type Channel, type FusionConfig, DEFAULT_FUSION } from '../native/search/rank/rrf.js';
import { sinkNavigation } from '../native/search/rank/navigation.js';
import { commandLine, dbsf, isCorrect, minmax, scoreFusion, zscore, type Norm, loadQuestions, NEW_IDS_FROM, idNumber, PageTexts, rankWithin10, targetsOf, type ChannelDump, type ChannelEntry, type Question } from './eval-lib.js';

const { values } = parseArgs({
  options: {
    corpus: { type: 'string' },
    questions: { type: 'string' },
    library: { type: 'string' },
    embedder: { type: 'string' },
    cache: { type: 'string' },
    rerank: { type: 'boolean', default: false },
    /** Print, per question, the rank of the gold in each channel and in each named variant. */
    'per-question': { type: 'boolean', default: false },
  },
});

type Entry = ChannelEntry;
type Dump = ChannelDump;

let targetsCount = new Map<string, number>();
console.log(`$ ${commandLine()}`);
const questions = await loadQuestions(values.questions as string);
const dumps = await loadOrDump(questions);

const variants: [string, (d: Dump) => Entry[]][] = [
  ['keyword only', (d) => [...d.codes, ...d.keyword]],
  ['vector only', (d) => [...d.codes, ...d.vector]],
  ['RRF k=60', (d) => fused(d, { ...DEFAULT_FUSION, channelTop: 0 })],
  ['RRF k=60 + top-1 of each channel in top 5', (d) => fused(d, { ...DEFAULT_FUSION, channelTop: 1 })],
  ['RRF k=60 + top-3 of each channel in top 5', (d) => fused(d, { ...DEFAULT_FUSION, channelTop: 3 })],
  ...[5, 10, 20, 30].map((k): [string, (d: Dump) => Entry[]] => [`RRF k=${k} + top-2`, (d) => fused(d, { ...DEFAULT_FUSION, k })]),
  ...[10, 20].map((depth): [string, (d: Dump) => Entry[]] => [`RRF k=60 + top-2, each channel's first ${depth} only`, (d) => fused({ ...d, keyword: d.keyword.slice(0, depth), vector: d.vector.slice(0, depth) }, DEFAULT_FUSION)]),
  ['RRF kw 1.5 / vec 1 + top-2', (d) => fused(d, { ...DEFAULT_FUSION, weights: { keyword: 1.5, vector: 1 } })],
  ['RRF kw 1 / vec 1.5 + top-2', (d) => fused(d, { ...DEFAULT_FUSION, weights: { keyword: 1, vector: 1.5 } })],
  ['shipped default (RRF k=60 + top-2 of each channel in top 5)', (d) => fused(d, DEFAULT_FUSION)],
  ["top-2 in top 5 + each channel's #1 within the first 2", (d) => firstTwo(d)],
  ['DBSF (mean ± 3σ of each channel, summed)', (d) => scoreFused(d, dbsf, 0)],
  ['DBSF + top-2', (d) => scoreFused(d, dbsf, 2)],
  ['z-score sum', (d) => scoreFused(d, zscore, 0)],
  ['z-score sum + top-2', (d) => scoreFused(d, zscore, 2)],
  ['min-max sum', (d) => scoreFused(d, minmax, 0)],
  ['min-max sum + top-2', (d) => scoreFused(d, minmax, 2)],
  ['RRF weighted by top-1 z + top-2', (d) => confidenceRrf(d)],
  ["z-score sum + top-2, each channel's first 20 only", (d) => scoreFused({ ...d, keyword: d.keyword.slice(0, 20), vector: d.vector.slice(0, 20) }, zscore, 2)],
  ["shipped + the #1 of the channel whose #1 stands further above its list (z) first", (d) => strongerFirst(d)],
];

/** How far a channel's #1 stands above its own list (its z-score there); null for a list of one or none. */
function topZ(l: Entry[]): number | null {
  return l.length > 1 ? zscore(l.map((e) => e.score))((l[0] as Entry).score) : null;
}

/** The shipped fusion, then the #1 of the channel whose #1 has the higher z-score in its own list moved to the top. */
function strongerFirst(d: Dump): Entry[] {
  const list = fused(d, DEFAULT_FUSION);
  const kw = d.keyword.filter((e) => e.score > 0);
  const lead = (topZ(kw) ?? -Infinity) >= (topZ(d.vector) ?? -Infinity) ? kw[0] : d.vector[0];
  if (!lead) return list;
  const codes = list.filter((e) => d.codes.includes(e));
  const rest = list.filter((e) => !d.codes.includes(e) && e.id !== lead.id);
  return [...codes, list.find((e) => e.id === lead.id) ?? lead, ...rest];
}

/** Each channel's scores normalised over its own list, summed (eval-lib's scoreFusion), code hits first. */
function scoreFused(d: Dump, norm: Norm, channelTop: number): Entry[] {
  return [...d.codes, ...scoreFusion([d.keyword.filter((e) => e.score > 0), d.vector], norm, channelTop)];
}

/** RRF with each channel weighted by how far its top entry stands above the rest of its list (z of its #1). */
function confidenceRrf(d: Dump): Entry[] {
  const kw = d.keyword.filter((e) => e.score > 0);
  const zk = Math.max(0.1, topZ(kw) ?? 1);
  const zv = Math.max(0.1, topZ(d.vector) ?? 1);
  const w = { keyword: (2 * zk) / (zk + zv), vector: (2 * zv) / (zk + zv) };
  return fused(d, { ...DEFAULT_FUSION, weights: w });
}

function firstTwo(d: Dump): Entry[] {
  const list = fused(d, DEFAULT_FUSION);
  const codes = list.filter((e) => d.codes.includes(e));
  const rest = list.filter((e) => !d.codes.includes(e));
  const tops = [d.keyword[0]?.id, d.vector[0]?.id].filter((x): x is string => x !== undefined);
  const placed = placeWithin(rest.map((e) => ({ id: e.id, score: 0 })), tops, 2);
  const byId = new Map(rest.map((e) => [e.id, e] as const));
  return [...codes, ...placed.map((r) => byId.get(r.id) as Entry)];
}

/**
 * What every list goes through last in the product, whatever fused it (rank/planned.ts): hub pages a few
 * places lower among the passages, code hits first. Without it the replay's "shipped" row is not the product's.
 */
function lastSteps(d: Dump, list: Entry[]): Entry[] {
  const passages = list.filter((e) => !d.codes.includes(e));
  return [...list.filter((e) => d.codes.includes(e)), ...sinkNavigation(passages, (e) => e.text ?? '')];
}

const SHIPPED = 'shipped default (RRF k=60 + top-2 of each channel in top 5)';
const byVariant = new Map<string, Map<string, number | null>>();
for (const [name, run] of variants) {
  const m = new Map<string, number | null>();
  for (const d of dumps) m.set(d.id, rankOf(d, lastSteps(d, run(d))));
  byVariant.set(name, m);
}
if (values.rerank) for (const [name, m] of await rerankRanks(dumps)) byVariant.set(`shipped default + ${name}`, m);

if (values['per-question']) printPerQuestion(dumps, byVariant);

const sets: [string, (q: Dump) => boolean][] = [
  ['first 65', (q) => (idNumber(q.id) ?? 0) < NEW_IDS_FROM],
  ['new 80', (q) => (idNumber(q.id) ?? 0) >= NEW_IDS_FROM],
];
const types = [...new Set(dumps.map((d) => d.type))].filter((t) => t !== 'out_of_scope');
for (const [setName, inSet] of sets) {
  console.log(`\n### ${setName}: hit@1 / hit@5 per type`);
  const qs = dumps.filter(inSet);
  console.log(`| variant | ${types.map((t) => `${t} (${qs.filter((q) => q.type === t).length})`).join(' | ')} | zh-question | en→zh-manual |`);
  console.log(`|---|${types.map(() => '---').join('|')}|---|---|`);
  for (const [name, m] of byVariant) {
    const cell = (sub: Dump[]) => {
      const n = sub.length || 1;
      const at = (k: number) => sub.filter((d) => (m.get(d.id) ?? Infinity) <= k).length / n;
      return `${at(1).toFixed(2)} / ${at(5).toFixed(2)}`;
    };
    const zhQ = qs.filter((d) => d.qlang === 'zh' && d.type !== 'out_of_scope');
    const enToZh = qs.filter((d) => d.qlang === 'en' && d.type !== 'out_of_scope' && targetLang(d) === 'zh');
    console.log(`| ${name} | ${types.map((t) => cell(qs.filter((q) => q.type === t))).join(' | ')} | ${cell(zhQ)} (${zhQ.length}) | ${cell(enToZh)} (${enToZh.length}) |`);
  }
}

function targetLang(d: Dump): string | null {
  const all = [...d.keyword, ...d.vector, ...d.codes];
  const hit = all.find((e) => e.ok.some(Boolean));
  return hit ? hit.lang : null;
}

function fused(d: Dump, cfg: FusionConfig): Entry[] {
  const byId = new Map<string, Entry>();
  for (const e of [...d.keyword, ...d.vector]) if (!byId.has(e.id)) byId.set(e.id, e);
  const channels: Channel[] = [
    { name: 'keyword', hits: d.keyword },
    { name: 'vector', hits: d.vector },
  ];
  const out = fuseChannels(channels, 50, cfg);
  return [...d.codes, ...out.map((r) => byId.get(r.id) as Entry)];
}

/** 1-based rank at which all of the question's targets are found (null: not within 10). */
function rankOf(d: Dump, list: Entry[]): number | null {
  return rankWithin10(list, targetsCount.get(d.id) ?? list[0]?.ok.length ?? 0);
}


async function loadOrDump(qs: Question[]): Promise<Dump[]> {
  targetsCount = new Map(qs.map((q) => [q.id, targetsOf(q).length]));
  if (values.cache) {
    const raw = await fs.readFile(values.cache, 'utf8').catch(() => null);
    if (raw) return JSON.parse(raw) as Dump[];
  }
  const pages = new PageTexts(values.corpus as string);
  const engine = await createEngine({ libraryDir: values.library as string, readOnly: true, embedder: embedderSpec() });
  const out: Dump[] = [];
  try {
    for (const q of qs) {
      const targets = targetsOf(q);
      const mark = async (hs: SearchHit[]): Promise<Entry[]> => {
        const es: Entry[] = [];
        for (const h of hs) {
          const ok: boolean[] = [];
          for (const t of targets) ok.push(await isCorrect(h, t, pages));
          es.push({ id: h.chunkId, score: h.score, lang: h.lang, ok, text: h.text, manual: h.manual, section: h.section });
        }
        return es;
      };
      const all = await engine.retrieve({ query: q.query, k: 50, rankingDepth: 50 });
      if (!all.ok) throw new Error(`${q.id}: ${all.error.message}`);
      const isCode = (h: SearchHit) => h.kind === 'code';
      const { detectLang } = await import('../native/text/lang.js');
      out.push({
        id: q.id,
        type: q.type,
        query: q.query,
        qlang: detectLang(q.query),
        codes: await mark(all.value.hits.filter(isCode)),
        keyword: await mark(all.value.rankings.keyword.filter((h) => !isCode(h))),
        vector: await mark(all.value.rankings.vector.filter((h) => !isCode(h))),
        product: await mark(all.value.hits),
      });
    }
  } finally {
    await engine.close();
  }
  if (values.cache) await fs.writeFile(values.cache, JSON.stringify(out));
  return out;
}

function embedderSpec() {
  return parseEmbedderSpec(values.embedder);
}

/**
 * The shipped fusion, then its top 20 passages re-scored by cos(query, best sentence) (code hits stay
 * first), three ways: re-ordered by that score alone; the same with the fused #1 kept first; and the
 * fused order and the re-scored order fused again by RRF.
 */
async function rerankRanks(ds: Dump[]): Promise<Map<string, Map<string, number | null>>> {
  const spec = embedderSpec();
  if (!spec) throw new Error('--rerank needs --embedder onnx:<dir>');
  const emb = await createEmbedder(spec);
  if (!emb) throw new Error('no embedder');
  const out = new Map<string, Map<string, number | null>>([
    ['rerank top 20 by e5 best sentence', new Map()],
    ['rerank top 20, fused #1 kept first', new Map()],
    ['RRF of fused order and rerank order (top 20)', new Map()],
  ]);
  const t0 = performance.now();
  try {
    for (const d of ds) {
      const list = fused(d, DEFAULT_FUSION);
      const codes = list.filter((e) => d.codes.includes(e));
      const passages = list.filter((e) => !d.codes.includes(e));
      const top = passages.slice(0, 20);
      const rest = passages.slice(20);
      const qv = await emb.embedQuery(d.query);
      const sentences = top.map((e) => splitSentences(e.text ?? '').slice(0, 6));
      const flat = sentences.flat();
      const vecs = flat.length ? await emb.embedDocuments(flat) : [];
      let j = 0;
      const scored = top.map((e, i) => {
        let best = -1;
        for (let s = 0; s < (sentences[i]?.length ?? 0); s++) best = Math.max(best, dot(qv, vecs[j++] as Float32Array));
        return { e, best };
      });
      const byScore = [...scored].sort((a, b) => b.best - a.best).map((x) => x.e);
      out.get('rerank top 20 by e5 best sentence')?.set(d.id, rankOf(d, [...codes, ...byScore, ...rest]));
      const keep = top[0] ? [top[0], ...byScore.filter((e) => e !== top[0])] : byScore;
      out.get('rerank top 20, fused #1 kept first')?.set(d.id, rankOf(d, [...codes, ...keep, ...rest]));
      const rrf = new Map<Entry, number>();
      top.forEach((e, i) => rrf.set(e, 1 / (60 + i + 1)));
      byScore.forEach((e, i) => rrf.set(e, (rrf.get(e) ?? 0) + 1 / (60 + i + 1)));
      const both = [...top].sort((a, b) => (rrf.get(b) ?? 0) - (rrf.get(a) ?? 0));
      out.get('RRF of fused order and rerank order (top 20)')?.set(d.id, rankOf(d, [...codes, ...both, ...rest]));
    }
  } finally {
    await emb.dispose();
  }
  console.log(`rerank: ${((performance.now() - t0) / ds.length).toFixed(0)} ms per question (query + up to 120 sentences embedded)`);
  return out;
}

function splitSentences(text: string): string[] {
  return text
    .split(/(?<=[.!?。！？；;])\s*|\n+/u)
    .map((s) => s.trim().slice(0, 300))
    .filter((s) => s.length >= 8);
}

function dot(a: Float32Array, b: Float32Array): number {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += (a[i] as number) * (b[i] as number);
  return s;
}

/**
 * One line per question whose keyword-only and shipped-hybrid ranks differ at 1 or 5: the gold's rank in
 * each channel (kw, vec, per-language vec), each channel's top score against its second, and the rank
 * every variant gives it.
 */
function printPerQuestion(ds: Dump[], by: Map<string, Map<string, number | null>>) {
  const names = [...by.keys()];
  const fmt = (r: number | null | undefined) => (r === null || r === undefined ? '-' : String(r));
  const rankIn = (d: Dump, list: Entry[]) => rankOf(d, [...d.codes, ...list]);
  console.log(`\n### per question (kw = keyword only, hy = shipped default)`);
  console.log(names.map((n, i) => `  v${i}: ${n}`).join('\n'));
  for (const d of ds) {
    const kw = by.get('keyword only')?.get(d.id) ?? null;
    const hy = by.get(SHIPPED)?.get(d.id) ?? null;
    const bucket = (r: number | null) => (r === null ? 3 : r <= 1 ? 1 : r <= 5 ? 2 : 3);
    if (bucket(kw) === bucket(hy)) continue;
    const ratio = (l: Entry[]) => (l.length > 1 ? ((l[0] as Entry).score / Math.max(1e-9, (l[1] as Entry).score)).toFixed(2) : '-');
    console.log(
      `${d.id.padEnd(7)} ${d.qlang} ${d.type.padEnd(12)} kw ${fmt(kw)} vec ${fmt(rankIn(d, d.vector))} ` +
        `| kw1/kw2 ${ratio(d.keyword)} vec1-vec2 ${d.vector.length > 1 ? ((d.vector[0] as Entry).score - (d.vector[1] as Entry).score).toFixed(3) : '-'} goldLang ${targetLang(d) ?? '?'} ` +
        `| ${names.map((n, i) => `v${i} ${fmt(by.get(n)?.get(d.id))}`).join(' ')} | ${d.query.slice(0, 70)}`,
    );
  }
}
