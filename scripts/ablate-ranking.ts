/**
 * What each ranking step earns: the dev set searched once with every step on, then once per step with
 * that step off (native/search/settings.ts, RANKING_STEPS), on a library that is already built:
 *
 *   npx tsx scripts/ablate-ranking.ts --corpus <dir> --questions <jsonl> --library <built library> [--embedder none|onnx:<dir>|gguf:<file>] [--steps a,b|none] [--json <out>]
 *
 * Prints, per step and per half of the set (ids below 101 / from 101: different sources), the change
 * in questions found at 1 and at 5 per type when the step is off (−1 means the step finds one question
 * that the list without it misses). A step pays on a half when switching it off loses more than it
 * gains there; it earns its place only when it pays on both halves. The library is opened read-only.
 */
import fs from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { parseEmbedderSpec, type EmbedderSpec } from '../native/embed/models.js';
import { createEngine } from '../native/engine.js';
import { DEFAULT_RETRIEVAL_SETTINGS, RANKING_STEPS, type RankingStep } from '../native/search/settings.js';
import { commandLine, idNumber, loadQuestions, NEW_IDS_FROM, runEval, type QuestionResult } from './eval-lib.js';

const { values } = parseArgs({
  options: {
    corpus: { type: 'string' },
    questions: { type: 'string' },
    library: { type: 'string' },
    embedder: { type: 'string' },
    steps: { type: 'string' },
    json: { type: 'string' },
  },
});
if (!values.corpus || !values.questions || !values.library) {
  console.error('usage: npx tsx scripts/ablate-ranking.ts --corpus <dir> --questions <jsonl> --library <dir> [--embedder none|onnx:<dir>|gguf:<file>] [--steps a,b] [--json <out>]');
  process.exit(2);
}
const spec: EmbedderSpec | undefined = parseEmbedderSpec(values.embedder);
const names = RANKING_STEPS.map((s) => s.name);
const steps = (values.steps === 'none' ? [] : values.steps ? values.steps.split(',') : names) as RankingStep[];
for (const s of steps) if (!names.includes(s)) throw new Error(`unknown step ${s}; steps: ${names.join(', ')}`);

console.log(`$ ${commandLine()}`);
const questions = await loadQuestions(values.questions);

/** Every question's rank (all targets found; null: not in the first 10), with `off` switched off. */
async function ranks(off: RankingStep[]): Promise<Map<string, QuestionResult>> {
  const engine = await createEngine({ libraryDir: values.library as string, readOnly: true, embedder: spec, retrieval: { ...DEFAULT_RETRIEVAL_SETTINGS, off } });
  try {
    const report = await runEval(engine, values.corpus as string, questions);
    return new Map(report.results.map((r) => [r.id, r]));
  } finally {
    await engine.close();
  }
}

const rankAt = (r: QuestionResult | undefined): number => (!r || r.ranks.length === 0 || r.ranks.some((x) => x === null) ? Infinity : Math.max(...(r.ranks as number[])));
const halves: [string, (id: string) => boolean][] = [
  [`ids < ${NEW_IDS_FROM}`, (id) => (idNumber(id) ?? 0) < NEW_IDS_FROM],
  [`ids ≥ ${NEW_IDS_FROM}`, (id) => (idNumber(id) ?? 0) >= NEW_IDS_FROM],
];
const types = [...new Set(questions.map((q) => q.type))].filter((t) => t !== 'out_of_scope');

const t0 = performance.now();
const base = await ranks([]);
const rows: { step: RankingStep; changes: Record<string, Record<string, [number, number]>>; moved: string[] }[] = [];
for (const step of steps) {
  const off = await ranks([step]);
  const changes: Record<string, Record<string, [number, number]>> = {};
  for (const [half, inHalf] of halves) {
    changes[half] = {};
    for (const t of types) {
      const qs = questions.filter((q) => q.type === t && inHalf(q.id));
      const count = (m: Map<string, QuestionResult>, k: number) => qs.filter((q) => rankAt(m.get(q.id)) <= k).length;
      (changes[half] as Record<string, [number, number]>)[t] = [count(off, 1) - count(base, 1), count(off, 5) - count(base, 5)];
    }
  }
  const moved = questions.filter((q) => rankAt(base.get(q.id)) !== rankAt(off.get(q.id))).map((q) => `${q.id} ${fmt(rankAt(base.get(q.id)))}→${fmt(rankAt(off.get(q.id)))}`);
  rows.push({ step, changes, moved });
  console.error(`${step}: ${moved.length} questions moved`);
}

function fmt(r: number): string {
  return r === Infinity ? '-' : String(r);
}
const sign = (x: number) => (x > 0 ? `+${x}` : String(x));

console.log(`\nbaseline (all steps on), questions found at 1 / at 5:`);
for (const [half, inHalf] of halves) {
  const cells = types.map((t) => {
    const qs = questions.filter((q) => q.type === t && inHalf(q.id));
    return `${t} ${qs.filter((q) => rankAt(base.get(q.id)) <= 1).length}/${qs.filter((q) => rankAt(base.get(q.id)) <= 5).length} of ${qs.length}`;
  });
  console.log(`  ${half}: ${cells.join(', ')}`);
}
for (const [half] of halves) {
  console.log(`\n### ${half}: change with the step OFF, Δfound@1 / Δfound@5 (negative: the step earns it)`);
  console.log(`| step | ${types.join(' | ')} | net |`);
  console.log(`|---|${types.map(() => '---').join('|')}|---|`);
  for (const r of rows) {
    const c = r.changes[half] as Record<string, [number, number]>;
    const net = types.reduce((s, t) => s + (c[t] as [number, number])[0] + (c[t] as [number, number])[1], 0);
    console.log(`| ${r.step} | ${types.map((t) => (c[t] as [number, number]).map(sign).join(' / ')).join(' | ')} | ${sign(net)} |`);
  }
}
console.log(`\n### verdict (pays: off loses more than it gains on that half)`);
for (const r of rows) {
  const net = halves.map(([half]) => {
    const c = r.changes[half] as Record<string, [number, number]>;
    return types.reduce((s, t) => s + (c[t] as [number, number])[0] + (c[t] as [number, number])[1], 0);
  });
  const verdict = net.every((n) => n < 0) ? 'pays on both halves' : net.some((n) => n < 0) ? `pays on one half only (${net.map(sign).join(', ')})` : net.every((n) => n === 0) ? 'changes nothing' : `costs (${net.map(sign).join(', ')})`;
  console.log(`- ${r.step}: ${verdict}${r.moved.length ? `; moved: ${r.moved.join(', ')}` : ''}`);
}
console.log(`\n${((performance.now() - t0) / 1000).toFixed(0)} s`);
if (values.json) await fs.writeFile(values.json, JSON.stringify({ steps: rows, base: [...base.values()] }, null, 1));
