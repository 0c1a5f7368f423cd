/**
 * Calibrates the evidence gate (native/answer/evidence.ts) on a question set: for each question it
 * gathers the evidence exactly as `ask` does (one retrieval: codes, passages, the two retrievers' lists, the
 * library's vocabulary), then replays the pure gate while one threshold moves, and prints for each
 * value the refusal rate of out-of-scope questions against the false-refusal rate of answerable
 * ones, per type and per source (the expected file's top folder), so the chosen point is visible.
 *
 *   npx tsx scripts/calibrate-gate.ts --library <dir> --questions <jsonl> [--dump] [--json out] [--set key=value …]
 * (build the library first: npm run eval -- --corpus … --library <dir>)
 *
 * --set moves the base point of the sweeps (e.g. --set nameWeight=0.5), for a second dimension.
 * --dump prints each question's evidence (terms, which the top passages hold, library counts) and
 * the rule that decided it. The replay is checked against engine.ask at the shipped thresholds: a
 * question where the two disagree is listed (a reranker or a follow-up rewrite would do that).
 */
import fs from 'node:fs/promises';
import { parseArgs } from 'node:util';
import type { SearchHit } from '../native/contract/api.js';
import { createEngine } from '../native/engine.js';
import { gate, GATE, passageTokens, termAlternatives, weightedCoverage, type Evidence, type GateThresholds } from '../native/answer/evidence.js';
import { commandLine, loadQuestions, questionSets, ratio, type Question } from './eval-lib.js';

const { values } = parseArgs({
  options: {
    library: { type: 'string' },
    questions: { type: 'string' },
    dump: { type: 'boolean', default: false },
    json: { type: 'string' },
    set: { type: 'string', multiple: true, default: [] },
  },
});

/** The point the sweeps start from: the shipped thresholds, moved by --set. */
const BASE: GateThresholds = { ...GATE };
for (const kv of values.set ?? []) {
  const [k, v] = kv.split('=');
  if (!k || !(k in GATE) || v === undefined || !Number.isFinite(Number(v))) {
    console.error(`--set ${kv}: expected one of ${Object.keys(GATE).join(', ')} = a number`);
    process.exit(2);
  }
  BASE[k as keyof GateThresholds] = Number(v);
}
if (!values.library || !values.questions) {
  console.error('usage: npx tsx scripts/calibrate-gate.ts --library <dir> --questions <jsonl> [--dump] [--json out]');
  process.exit(2);
}


interface Case {
  q: Question;
  ev: Evidence;
  hits: number;
  /** What engine.ask decided (the product path), to check the replay. */
  askRefused: boolean;
  /** For --json: the top passages (0-based) that hold each term, and their files. */
  cover: Record<string, number[]>;
  files: string[];
}

/** The values each threshold takes in the sweep (the shipped value is always among them). */
const SWEEPS: { key: keyof GateThresholds; values: number[] }[] = [
  { key: 'minBestCoverage', values: [0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5, 0.6, 0.8] },
  { key: 'minUnionCoverage', values: [0.4, 0.5, 0.6, 0.7, 0.75, 0.8, 0.9, 1.01] },
  { key: 'maxMissingTerms', values: [1, 2, 3, 4, 5, 99] },
  { key: 'maxMissingShare', values: [0.2, 0.3, 0.4, 0.5, 0.6, 1.01] },
  { key: 'unknownWordWeight', values: [0, 0.25, 0.5, 0.75, 1] },
  { key: 'maxUnknownShare', values: [0.3, 0.4, 0.5, 0.6, 0.8, 1.01] },
  { key: 'nameWeight', values: [0.5, 1, 2, 3] },
];

console.log(`$ ${commandLine()}`);
const engine = await createEngine({ libraryDir: values.library, readOnly: true });
const cases: Case[] = [];
try {
  const questions = await loadQuestions(values.questions);
  for (const q of questions) {
    const ev = await evidenceOf(q.query);
    const asked = await engine.ask({ question: q.query, prefer: 'extractive' });
    if (!asked.ok) throw new Error(`${q.id}: ${asked.error.code} ${asked.error.message}`);
    cases.push({ q, ev: ev.evidence, hits: ev.hits, askRefused: asked.value.refused, cover: ev.cover, files: ev.files });
  }

  if (values.dump) for (const c of cases) console.log(dumpLine(c));

  const mismatches = cases.filter((c) => !gate(c.ev, c.hits).answer !== c.askRefused);
  console.log(`\nreplay vs engine.ask at the shipped thresholds: ${mismatches.length} of ${cases.length} differ${mismatches.length ? `: ${mismatches.map((c) => c.q.id).join(' ')}` : ''}`);

  const sets = questionSets(questions);
  console.log(`\nrules at the base point (${JSON.stringify(BASE)}):`);
  console.log(ruleTable(cases, sets));

  for (const sweep of SWEEPS) {
    console.log(`\n${sweep.key} (base: ${BASE[sweep.key]}, shipped: ${GATE[sweep.key]}), combined set:`);
    console.log(sweepTable(cases, sweep.key, sweep.values));
  }
  if (values.json) {
    await fs.writeFile(values.json, JSON.stringify(cases.map((c) => ({ id: c.q.id, type: c.q.type, source: sourceOf(c.q), hits: c.hits, rule: gate(c.ev, c.hits).rule, evidence: c.ev, cover: c.cover, files: c.files })), null, 1));
  }
} finally {
  await engine.close();
}

/** The evidence ask gathers for a question (engine.gateEvidence: the same retrieval and gathering; no reranker or follow-up rewrite). */
async function evidenceOf(question: string): Promise<{ evidence: Evidence; hits: number; cover: Record<string, number[]>; files: string[] }> {
  const r = await engine.gateEvidence(question);
  if (!r.ok) throw new Error(`${r.error.code}: ${r.error.message}`);
  const { retrieval: res, evidence } = r.value;
  // The passages the gate judged: in hybrid mode the keyword channel's own (pipelines/answer.ts gateEvidence).
  const fused: SearchHit[] = res.hits.filter((h) => h.kind !== 'code');
  const keywordPassages = res.mode === 'hybrid' ? res.rankings.keyword.filter((h) => h.kind !== 'code') : [];
  const passages = keywordPassages.length > 0 ? keywordPassages : fused;
  const sets = passages.slice(0, 10).map(passageTokens);
  const cover: Record<string, number[]> = {};
  for (const [t, alts] of termAlternatives(question)) {
    cover[t] = sets.flatMap((set, i) => (set.has(t) || alts.some((g) => g.length > 0 && g.every((x) => set.has(x))) ? [i] : []));
  }
  return { evidence, hits: fused.length, cover, files: passages.slice(0, 10).map((h) => h.file) };
}

/** Where a question's answer lives: the top folder of its (first) expected file. */
function sourceOf(q: Question): string {
  const f = Array.isArray(q.expect_file) ? q.expect_file[0] : q.expect_file;
  return f ? (f.split('/')[0] ?? f) : 'out_of_scope';
}

function dumpLine(c: Case): string {
  const d = gate(c.ev, c.hits, BASE);
  const ok = c.q.type === 'out_of_scope' ? !d.answer : d.answer;
  const counts = c.ev.libraryCounts ?? {};
  const terms = c.ev.terms.map((t) => `${t}${c.ev.missing.includes(t) ? '✗' : ''}${counts[t] === undefined ? '' : `:${counts[t]}`}`).join(' ');
  const cov = weightedCoverage(c.ev, BASE);
  return `${ok ? '  ' : '!!'} ${c.q.id.padEnd(8)} ${d.rule.padEnd(16)} best ${cov.best.toFixed(2)} source ${cov.source.toFixed(2)} | ${terms}${c.ev.missingNames.length ? ` | names✗ ${c.ev.missingNames.join(',')}` : ''}\n            ${c.q.query}`;
}

/** How many questions each rule decided, out-of-scope and answerable apart, per set. */
function ruleTable(cs: Case[], sets: ReturnType<typeof questionSets>): string {
  const rules = [...new Set(cs.map((c) => gate(c.ev, c.hits, BASE).rule))].sort();
  const head = `| rule | ${sets.map((s) => `${s.name}: out_of_scope / answerable`).join(' | ')} |\n|---|${sets.map(() => '---').join('|')}|`;
  const lines = rules.map((rule) => {
    const cells = sets.map((s) => {
      const mine = cs.filter((c) => s.ids.has(c.q.id) && gate(c.ev, c.hits, BASE).rule === rule);
      return `${mine.filter((c) => c.q.type === 'out_of_scope').length} / ${mine.filter((c) => c.q.type !== 'out_of_scope').length}`;
    });
    return `| ${rule} | ${cells.join(' | ')} |`;
  });
  return [head, ...lines].join('\n');
}

/** One row per threshold value: out-of-scope refused, answerable refused, per type and per source. */
function sweepTable(cs: Case[], key: keyof GateThresholds, vals: number[]): string {
  const answerable = cs.filter((c) => c.q.type !== 'out_of_scope');
  const oos = cs.filter((c) => c.q.type === 'out_of_scope');
  const types = [...new Set(answerable.map((c) => c.q.type))];
  const sources = [...new Set(answerable.map((c) => sourceOf(c.q)))].sort();
  const head = `| ${key} | out_of_scope refused | answerable refused | of them not for a code | ${types.join(' | ')} | ${sources.join(' | ')} |\n|---|---|---|---|${types.map(() => '---').join('|')}|${sources.map(() => '---').join('|')}|`;
  const rate = (xs: Case[], t: GateThresholds) => {
    const k = xs.filter((c) => !gate(c.ev, c.hits, t).answer).length;
    return xs.length === 0 ? '—' : (k / xs.length).toFixed(2);
  };
  const lines = [...new Set([...vals, BASE[key]])]
    .sort((a, b) => a - b)
    .map((v) => {
      const t = { ...BASE, [key]: v };
      const mark = v === BASE[key] ? ' ◀' : '';
      const refusedOos = oos.filter((c) => !gate(c.ev, c.hits, t).answer).length;
      const refusedAns = answerable.filter((c) => !gate(c.ev, c.hits, t).answer).length;
      // Refusals the code check makes (code-undefined, code-other-scope) do not move with these thresholds.
      const notCode = answerable.filter((c) => !gate(c.ev, c.hits, t).answer && !gate(c.ev, c.hits, t).rule.startsWith('code-')).length;
      return `| ${v}${mark} | ${ratio(refusedOos, oos.length)} | ${ratio(refusedAns, answerable.length)} | ${notCode} | ${types.map((ty) => rate(answerable.filter((c) => c.q.type === ty), t)).join(' | ')} | ${sources.map((s) => rate(answerable.filter((c) => sourceOf(c.q) === s), t)).join(' | ')} |`;
    });
  return [head, ...lines].join('\n');
}
