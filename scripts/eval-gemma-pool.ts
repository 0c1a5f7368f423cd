/**
 * Issue 40: does EmbeddingGemma re-ranking a candidate pool pay on the dev set? Offline, on the channel
 * rankings that scripts/eval-fusion.ts caches (run it first with --cache on an e5 library):
 *
 *   npx tsx scripts/eval-gemma-pool.ts --dump <eval-fusion cache.json> --vectors <folder> [--shard 0/2] [--budget-s 1500]
 *       [--file models/local/embeddinggemma-300m/embeddinggemma-300m-q8_0.gguf] [--pool 30] [--max-tokens 256] [--dims 256]
 *
 * Pool per answerable question: keyword top `pool` ∪ e5 top `pool` ∪ the product's fused top 20. Each passage
 * is embedded once as the product embeds it (passage-text.ts's embeddingText, the manifest's document
 * prompt, cut at --max-tokens, one llama.cpp thread) and appended to <folder>/vectors-<shard>.jsonl, so
 * reruns are free and --shard i/n processes can fill the cache side by side (a shard only embeds, then
 * exits). Without --shard: embeds what is missing (at most --budget-s seconds), then prints hit@1 / hit@5
 * per type and per half for the questions whose pool is complete: keyword, e5, the product's fused list,
 * gemma alone over the pool, and fusions that weigh gemma higher (fixed weights, chosen on neither half).
 */
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { GgufEmbedder } from '../native/embed/gguf.js';
import { DEFAULT_FUSION, fuseChannels, type FusionConfig } from '../native/search/rank/rrf.js';
import { loadManifest } from '../native/embed/models.js';
import { embeddingKey, embeddingText } from '../native/embed/passage-text.js';
import { commandLine, dbsf, idNumber, scoreFusion, NEW_IDS_FROM, rankWithin10, type ChannelDump, type ChannelEntry } from './eval-lib.js';

const { values: args } = parseArgs({
  options: {
    dump: { type: 'string' },
    vectors: { type: 'string' },
    shard: { type: 'string' },
    'budget-s': { type: 'string', default: '100000' },
    file: { type: 'string', default: 'models/local/embeddinggemma-300m/embeddinggemma-300m-q8_0.gguf' },
    pool: { type: 'string', default: '30' },
    'max-tokens': { type: 'string', default: '256' },
    /** Score with the first N dimensions of each vector, renormalised (Matryoshka: 512, 256, 128); default all. */
    dims: { type: 'string' },
  },
});

type Entry = ChannelEntry;
type Dump = ChannelDump;

// The prompts the gguf embedder adds (models/manifest.json): applied here so the vector cache is keyed by the text embedded.
const GEMMA = loadManifest().models.find((m) => m.role === 'embed' && m.backend === 'gguf');
const QUERY_PREFIX = GEMMA?.queryPrefix ?? '';
const PASSAGE_PREFIX = GEMMA?.passagePrefix ?? '';
const POOL = Number(args.pool);
const MAX_TOKENS = Number(args['max-tokens']);
const dir = args.vectors as string;
fs.mkdirSync(dir, { recursive: true });

const dumps = (JSON.parse(fs.readFileSync(args.dump as string, 'utf8')) as Dump[]).filter((d) => d.type !== 'out_of_scope');
const isCode = (d: Dump, e: Entry) => d.codes.some((c) => c.id === e.id);
const productPassages = (d: Dump) => (d.product ?? []).filter((e) => !isCode(d, e));
function poolOf(d: Dump): Entry[] {
  const byId = new Map<string, Entry>();
  for (const e of [...d.keyword.slice(0, POOL), ...d.vector.slice(0, POOL), ...productPassages(d).slice(0, 20)]) if (!byId.has(e.id)) byId.set(e.id, e);
  return [...byId.values()];
}
const docText = (e: Entry) => PASSAGE_PREFIX + embeddingText({ manual: e.manual ?? '', section: e.section ?? '', text: e.text ?? '' });
const keyOf = (text: string) => `${embeddingKey(text)}:${MAX_TOKENS}`;

// Questions round-robin over (half, type), so a partial cache covers every row evenly.
const groups = new Map<string, Dump[]>();
for (const d of dumps) {
  const g = `${(idNumber(d.id) ?? 0) < NEW_IDS_FROM}/${d.type}`;
  groups.set(g, [...(groups.get(g) ?? []), d]);
}
const ordered: Dump[] = [];
for (let i = 0; ordered.length < dumps.length; i++) for (const g of groups.values()) if (g[i]) ordered.push(g[i] as Dump);

const known = new Map<string, Float32Array>();
for (const f of fs.readdirSync(dir).filter((n) => n.endsWith('.jsonl'))) {
  for (const line of fs.readFileSync(path.join(dir, f), 'utf8').split('\n')) {
    if (!line.trim()) continue;
    try {
      const r = JSON.parse(line) as { k: string; v: number[] };
      known.set(r.k, Float32Array.from(r.v));
    } catch {
      // a line cut by a killed shard
    }
  }
}

const todo: string[] = [];
const seen = new Set<string>();
for (const d of ordered) {
  for (const t of [QUERY_PREFIX + d.query, ...poolOf(d).map(docText)]) {
    const k = keyOf(t);
    if (!known.has(k) && !seen.has(k)) {
      seen.add(k);
      todo.push(t);
    }
  }
}
const [shard, shards] = (args.shard ?? '0/1').split('/').map(Number) as [number, number];
const mine = todo.filter((_, i) => i % shards === shard);
console.log(`$ ${commandLine()}\n${dumps.length} answerable questions; ${known.size} vectors cached, ${todo.length} missing (${mine.length} for this process)`);

if (mine.length) {
  const emb = await GgufEmbedder.load({ file: args.file as string, threads: 1, maxTokens: MAX_TOKENS });
  const out = fs.openSync(path.join(dir, `vectors-${shard}of${shards}-${process.pid}.jsonl`), 'a');
  const t0 = performance.now();
  const cpu0 = process.cpuUsage();
  let nDoc = 0;
  let docCpu = 0;
  const qCpu: number[] = [];
  try {
    for (const t of mine) {
      if (performance.now() - t0 > Number(args['budget-s']) * 1000) break;
      const c0 = process.cpuUsage();
      // Prompts are already in the text: embedDocuments adds none (no prefix configured).
      const [v] = await emb.embedDocuments([t]);
      const c = process.cpuUsage(c0);
      const ms = (c.user + c.system) / 1000;
      if (t.startsWith(QUERY_PREFIX)) qCpu.push(ms);
      else {
        nDoc++;
        docCpu += ms;
      }
      known.set(keyOf(t), v as Float32Array);
      fs.writeSync(out, `${JSON.stringify({ k: keyOf(t), v: Array.from(v as Float32Array, (x) => Number(x.toFixed(6))) })}\n`);
    }
  } finally {
    fs.closeSync(out);
    await emb.dispose();
  }
  const cpu = process.cpuUsage(cpu0);
  qCpu.sort((a, b) => a - b);
  console.log(
    `embedded ${nDoc} passages: ${(docCpu / Math.max(1, nDoc)).toFixed(0)} ms CPU each; ${qCpu.length} queries: p50 ${(qCpu[qCpu.length >> 1] ?? 0).toFixed(0)} ms CPU; ` +
      `process ${((cpu.user + cpu.system) / 1e6).toFixed(0)} CPU-s in ${((performance.now() - t0) / 1000).toFixed(0)} s wall`,
  );
}
if (args.shard !== undefined) process.exit(0);

const dims = args.dims ? Number(args.dims) : null;
/** Cosine of two unit vectors, or of their first `dims` dimensions (a Matryoshka prefix, renormalised). */
const dot = (a: Float32Array, b: Float32Array) => {
  const n = dims ?? a.length;
  let ab = 0;
  let aa = 0;
  let bb = 0;
  for (let i = 0; i < n; i++) {
    const x = a[i] as number;
    const y = b[i] as number;
    ab += x * y;
    aa += x * x;
    bb += y * y;
  }
  return dims ? ab / Math.sqrt(aa * bb || 1) : ab;
};
const ready = dumps.filter((d) => known.has(keyOf(QUERY_PREFIX + d.query)) && poolOf(d).every((e) => known.has(keyOf(docText(e)))));
const poolSizes = ready.map((d) => poolOf(d).length);
console.log(`${ready.length} of ${dumps.length} questions have their pool embedded; pool size mean ${(poolSizes.reduce((a, b) => a + b, 0) / Math.max(1, ready.length)).toFixed(1)}`);

/** Pool passages by gemma cosine, best first. */
function gemmaOrder(d: Dump, among: Entry[]): Entry[] {
  const q = known.get(keyOf(QUERY_PREFIX + d.query)) as Float32Array;
  const s = new Map(among.map((e) => [e, dot(q, known.get(keyOf(docText(e))) as Float32Array)] as const));
  return [...among].sort((a, b) => (s.get(b) as number) - (s.get(a) as number));
}
/** Weighted RRF (k = 60) of ranked lists; an entry absent from a list gets nothing from it. */
function rrf(lists: [Entry[], number][]): Entry[] {
  const score = new Map<string, number>();
  const byId = new Map<string, Entry>();
  for (const [list, w] of lists)
    list.forEach((e, i) => {
      byId.set(e.id, byId.get(e.id) ?? e);
      score.set(e.id, (score.get(e.id) ?? 0) + w / (60 + i + 1));
    });
  return [...byId.values()].sort((a, b) => (score.get(b.id) as number) - (score.get(a.id) as number));
}

/** The pool by gemma cosine, with the cosine as each entry's score (the product's vector channel over the pool). */
function gemmaScored(d: Dump): Entry[] {
  const q = known.get(keyOf(QUERY_PREFIX + d.query)) as Float32Array;
  return poolOf(d)
    .map((e) => ({ ...e, score: dot(q, known.get(keyOf(docText(e))) as Float32Array) }))
    .sort((a, b) => b.score - a.score);
}
/** The shipped fusion (rrf.ts) of the keyword list and gemma's order of the pool. */
function shippedWith(d: Dump, cfg: FusionConfig): Entry[] {
  const g = gemmaScored(d);
  const kw = d.keyword.slice(0, POOL);
  const byId = new Map<string, Entry>();
  for (const e of [...kw, ...g]) if (!byId.has(e.id)) byId.set(e.id, e);
  const out = fuseChannels([{ name: 'keyword', hits: kw }, { name: 'vector', hits: g }], 50, cfg);
  return [...d.codes, ...out.map((r) => byId.get(r.id) as Entry)];
}
/** Each channel's scores mapped by its own mean ± 3σ to 0..1 and summed (eval-lib's scoreFusion), code hits first. */
function dbsfWith(d: Dump, channelTop: number): Entry[] {
  return [...d.codes, ...scoreFusion([d.keyword.slice(0, POOL).filter((e) => e.score > 0), gemmaScored(d)], dbsf, channelTop)];
}

const variants: [string, (d: Dump) => Entry[]][] = [
  ['keyword alone', (d) => [...d.codes, ...d.keyword]],
  ['e5 alone', (d) => [...d.codes, ...d.vector]],
  ["product's fused list (default)", (d) => d.product ?? []],
  ['gemma alone over the pool', (d) => [...d.codes, ...gemmaOrder(d, poolOf(d))]],
  ...[2, 3].map((w): [string, (d: Dump) => Entry[]] => [`RRF gemma ×${w} + keyword ×1 (pool)`, (d) => [...d.codes, ...rrf([[gemmaOrder(d, poolOf(d)), w], [d.keyword.slice(0, POOL), 1]])]]),
  ['RRF gemma ×2 + keyword ×1 + e5 ×1 (pool)', (d) => [...d.codes, ...rrf([[gemmaOrder(d, poolOf(d)), 2], [d.keyword.slice(0, POOL), 1], [d.vector.slice(0, POOL), 1]])]],
  ['ceiling: the pool with its right passages first', (d) => [...d.codes, ...[...poolOf(d)].sort((a, b) => Number(b.ok.some(Boolean)) - Number(a.ok.some(Boolean)))]],
  ['shipped fusion, gemma as the vector channel (pool)', (d) => shippedWith(d, DEFAULT_FUSION)],
  ['plain RRF k=60, gemma as the vector channel (pool)', (d) => shippedWith(d, { ...DEFAULT_FUSION, channelTop: 0 })],
  ['DBSF keyword + gemma (pool)', (d) => dbsfWith(d, 0)],
  ['DBSF keyword + gemma + top-2 (pool)', (d) => dbsfWith(d, 2)],
  ...[10, 20].map((n): [string, (d: Dump) => Entry[]] => [
    `gemma re-ranks the product's top ${n}`,
    (d) => {
      const ps = productPassages(d);
      return [...d.codes, ...gemmaOrder(d, ps.slice(0, n)), ...ps.slice(n)];
    },
  ]),
];


const types = ['symptom', 'procedure', 'zh', 'multi_hop', 'code_exact', 'code_variant'];
for (const [half, inHalf] of [
  ['ids < 101', (d: Dump) => (idNumber(d.id) ?? 0) < NEW_IDS_FROM],
  ['ids ≥ 101', (d: Dump) => (idNumber(d.id) ?? 0) >= NEW_IDS_FROM],
] as const) {
  const qs = ready.filter(inHalf);
  console.log(`\n### ${half}: hit@1 / hit@5 (multi_hop: both targets; code rows: read hit@1)`);
  console.log(`| variant | ${types.map((t) => `${t} (${qs.filter((q) => q.type === t).length})`).join(' | ')} |`);
  console.log(`|---|${types.map(() => '---').join('|')}|`);
  for (const [name, run] of variants) {
    const cells = types.map((t) => {
      const sub = qs.filter((q) => q.type === t);
      const ranks = sub.map((d) => rankWithin10(run(d)) ?? Infinity);
      const at = (k: number) => ranks.filter((r) => r <= k).length;
      return `${at(1)} / ${at(5)}`;
    });
    console.log(`| ${name} | ${cells.join(' | ')} |`);
  }
}
