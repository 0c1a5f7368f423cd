/**
 * npx tsx scripts/bench-ab.ts --a <library> --b <library> --questions <jsonl> [--rounds 3] [--modes hybrid,keyword,vector]
 *
 * Search time of two libraries compared on a busy machine: the two are searched in one process,
 * question by question, A and B in turns (the first of the pair alternating), so a load that comes and
 * goes weighs on both alike. Each round opens fresh engines, so every timed search embeds its
 * question as a new one (as scripts/bench.ts does). Per question the median over the rounds; then
 * p50/p95 per side, one-part and two-part questions apart and each half of the dev set (ids below 101
 * and from 101), and the load average at the start and end.
 * For a change of the library's files (an index) with the search code unchanged.
 */
import os from 'node:os';
import { parseArgs } from 'node:util';
import type { SearchMode } from '../native/contract/api.js';
import { createEngine, type Engine } from '../native/engine.js';
import { planQuery } from '../native/search/plan/query-plan.js';
import { commandLine, idNumber, loadQuestions, NEW_IDS_FROM, percentile } from './eval-lib.js';

const { values } = parseArgs({
  options: {
    a: { type: 'string' },
    b: { type: 'string' },
    questions: { type: 'string' },
    rounds: { type: 'string', default: '3' },
    modes: { type: 'string', default: 'hybrid,keyword,vector' },
  },
});
if (!values.a || !values.b || !values.questions) {
  console.error('usage: npx tsx scripts/bench-ab.ts --a <library> --b <library> --questions <jsonl> [--rounds 3] [--modes hybrid,keyword,vector]');
  process.exit(2);
}
console.log(`$ ${commandLine()}`);
console.log(`load average at start: ${os.loadavg().map((x) => x.toFixed(2)).join(' ')}`);
const questions = await loadQuestions(values.questions);
const queries = questions.map((q) => q.query);
const twoPart = new Set(queries.filter((q) => planQuery(q).parts.length > 1));
/** The dev set's two halves (different sources): ids below NEW_IDS_FROM and from it on. */
const older = new Set(questions.filter((q) => (idNumber(q.id) ?? 0) < NEW_IDS_FROM).map((q) => q.query));
const WARM_UP = ['how do I check the oil level', 'machine stops without a message', 'alarm 1', 'replace the drive belt', 'sensor reading drifts'];
const rounds = Number(values.rounds);

async function timeOne(engine: Engine, query: string, mode: SearchMode): Promise<number> {
  const t = performance.now();
  const r = await engine.search({ query, k: 10, mode });
  if (!r.ok) throw new Error(r.error.message);
  return performance.now() - t;
}

const median = (xs: number[]) => percentile([...xs].sort((x, y) => x - y), 0.5);

for (const mode of (values.modes ?? '').split(',') as SearchMode[]) {
  const times = { a: queries.map(() => [] as number[]), b: queries.map(() => [] as number[]) };
  for (let round = 0; round < rounds; round++) {
    const engines = { a: await createEngine({ libraryDir: values.a, readOnly: true }), b: await createEngine({ libraryDir: values.b, readOnly: true }) };
    try {
      for (const q of WARM_UP) for (const side of ['a', 'b'] as const) await engines[side].search({ query: q, mode });
      for (const [i, q] of queries.entries()) {
        const order = (i + round) % 2 === 0 ? (['a', 'b'] as const) : (['b', 'a'] as const);
        for (const side of order) times[side][i]?.push(await timeOne(engines[side], q, mode));
      }
    } finally {
      await Promise.all([engines.a.close(), engines.b.close()]);
    }
  }
  const groups: [string, (q: string) => boolean][] = [
    ['one-part', (q) => !twoPart.has(q)],
    ['two-part', (q) => twoPart.has(q)],
    ['all', () => true],
    [`ids < ${NEW_IDS_FROM}`, (q) => older.has(q)],
    [`ids ≥ ${NEW_IDS_FROM}`, (q) => !older.has(q)],
    [`ids < ${NEW_IDS_FROM} one-part`, (q) => older.has(q) && !twoPart.has(q)],
    [`ids ≥ ${NEW_IDS_FROM} one-part`, (q) => !older.has(q) && !twoPart.has(q)],
  ];
  for (const [kind, inKind] of groups) {
    const line = (['a', 'b'] as const).map((side) => {
      const xs = queries.flatMap((q, i) => (inKind(q) ? [median(times[side][i] ?? [])] : [])).sort((x, y) => x - y);
      return `${side} p50 ${percentile(xs, 0.5).toFixed(1)} p95 ${percentile(xs, 0.95).toFixed(1)}`;
    });
    const n = queries.filter(inKind).length;
    if (n === 0) continue;
    console.log(`${mode} ${kind} (${n} questions, median of ${rounds} rounds each): ${line.join(' | ')}`);
  }
}
console.log(`load average at end: ${os.loadavg().map((x) => x.toFixed(2)).join(' ')}`);
