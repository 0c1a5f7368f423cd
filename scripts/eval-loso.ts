/**
 * Out-of-scope questions measured by leaving a documentation set out ("leave one set out").
 *
 *   npx tsx scripts/eval-loso.ts --corpus <dir> --questions <jsonl> [--sets a,b] [--embedder none|onnx:<dir>]
 *                                [--cache-from <built library with the same embedder>] [--work <dir>] [--json out]
 *
 * A question set's own out-of-scope questions were written knowing what the library lacks. A more
 * honest proxy: build the library WITHOUT one top folder of the corpus (a documentation set) and ask
 * every question; that set's questions are then out of scope, written by people who did not know it
 * would be missing. For each set the questions' expected files point into (or each of --sets):
 *  - <work>/<set>/corpus: the corpus without that folder and without the top-level files (inventories
 *    such as MANIFEST.tsv / SOURCES.md name every folder), as hard links (copies across file systems);
 *    ingest does not follow symbolic links;
 *  - <work>/<set>/library: that corpus ingested (incrementally: a second run reuses it). With
 *    --cache-from, the embedding cache files (embeddings-*.bin) of that library are copied into the new
 *    one before its first ingest, so only passages it has never seen are embedded. Never a copy of the
 *    full library itself: its files would get a second root and its passages twice;
 *  - every question asked (extractive answers, as scripts/eval.ts). The gate's rule is not part of
 *    the answer (the contract gives the refusal's reason, which says it in words): rows carry the reason.
 *
 * The whole corpus (without its top-level files) is asked first, as the reference. Reported per
 * left-out set and per half (ids < 101 / ≥ 101): the left-out questions refused (all, then the bare
 * codes apart: a code and no product name, fairly answered by another set's code of that number, and
 * the named ones), the other sets' answerable questions refused (and of those the reference answers,
 * how many: what leaving the set out cost), the question set's own out-of-scope questions refused;
 * a totals row. Markdown to stdout, per-question rows to --json.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { coinedNames, questionNames, termAlternatives } from '../native/answer/evidence.js';
import { createEngine } from '../native/engine.js';
import { EMBEDDER_SPELLINGS, parseEmbedderSpec, type EmbedderSpec } from '../native/embed/models.js';
import { detectCodes } from '../native/fault-codes/detect.js';
import { commandLine, idNumber, loadQuestions, NEW_IDS_FROM, ratio, targetsOf, type Question } from './eval-lib.js';

/** How a question stands when one set is left out. */
export type LosoKind = 'left-out' | 'answerable' | 'partial' | 'out_of_scope';

/** The name of the reference run: the whole corpus (without its top-level files), no set left out. */
export const NONE_LEFT_OUT = '(none)';

export interface LosoRow {
  /** The documentation set left out of the library the question was asked of. */
  set: string;
  id: string;
  type: string;
  kind: LosoKind;
  /** ids below NEW_IDS_FROM ("first") or from it on ("newer"). */
  half: 'first' | 'newer';
  /** A code and no product name: another set's code of that number answers it fairly. */
  bareCode: boolean;
  refused: boolean;
  /** Whether the library with every set in (the reference run) refused it too. */
  refusedWithAll: boolean;
  /** Why it was refused (the evidence gate's reason, as the technician reads it); null when answered. */
  reason: string | null;
  /** First line of the answer (or of the refusal). */
  answer: string;
}

export interface LosoLibrary {
  set: string;
  dir: string;
  files: number;
  chunks: number;
  unchanged: number;
  seconds: number;
}

export interface LosoOptions {
  corpus: string;
  questions: Question[];
  /** Sets to leave out; default: every top folder a question's expected file points into. */
  sets?: string[];
  embedder?: EmbedderSpec;
  /** A built library with the same embedder whose embedding cache seeds each new library. */
  cacheFrom?: string;
  /** Where the per-set corpora and libraries go. */
  work: string;
  log?: (line: string) => void;
}

/** Top folder of a corpus-relative path. */
const topOf = (file: string): string => file.split('/')[0] ?? file;

/** The top folders the questions' expected files (not their alternates) point into, sorted. */
export function questionSetsOf(questions: Question[]): string[] {
  const out = new Set<string>();
  for (const q of questions) {
    if (q.expect_file === null) continue;
    for (const f of Array.isArray(q.expect_file) ? q.expect_file : [q.expect_file]) out.add(topOf(f));
  }
  return [...out].sort();
}

/**
 * How a question stands when `set` is left out: out_of_scope (the question set says so), left-out
 * (every expected passage, alternates included, lies only in that set), answerable (each has a file
 * elsewhere), partial (some do).
 */
export function kindOf(q: Question, set: string): LosoKind {
  const targets = targetsOf(q);
  if (targets.length === 0) return 'out_of_scope';
  const elsewhere = targets.map((t) => t.files.some((f) => topOf(f.file) !== set));
  if (elsewhere.every(Boolean)) return 'answerable';
  if (elsewhere.some(Boolean)) return 'partial';
  return 'left-out';
}

/**
 * A bare code: the question has a code and names no product — no Capitalised name, acronym or model
 * number (evidence.ts questionNames), and no coined name such as a lower-case brand (evidence.ts
 * coinedNames, every word taken as one the library lacks). Such a question is fairly answered by another
 * set's code.
 */
export function isBareCode(question: string): boolean {
  if (detectCodes(question).length === 0) return false;
  if (questionNames(question).length > 0) return false;
  return coinedNames(question, () => true, termAlternatives(question)).length === 0;
}

/**
 * The corpus without `set` and without its top-level files, as hard links under `dest` (copied, with
 * their times, where a link cannot be made). Rebuilt on each call; links keep the files' times, so an
 * incremental ingest sees them unchanged.
 */
export async function corpusWithout(corpus: string, set: string | null, dest: string): Promise<void> {
  await fs.rm(dest, { recursive: true, force: true });
  await fs.mkdir(dest, { recursive: true });
  const top = await fs.readdir(corpus, { withFileTypes: true });
  if (set !== null && !top.some((e) => e.isDirectory() && e.name === set)) {
    throw new Error(`${set} is not a folder of ${corpus}; name one of: ${top.filter((e) => e.isDirectory()).map((e) => e.name).join(', ')}`);
  }
  const linkTree = async (from: string, to: string): Promise<void> => {
    await fs.mkdir(to, { recursive: true });
    for (const e of await fs.readdir(from, { withFileTypes: true })) {
      const a = path.join(from, e.name);
      const b = path.join(to, e.name);
      if (e.isDirectory()) await linkTree(a, b);
      else if (e.isFile()) {
        try {
          await fs.link(a, b);
        } catch {
          await fs.copyFile(a, b);
          const st = await fs.stat(a);
          await fs.utimes(b, st.atime, st.mtime);
        }
      }
    }
  };
  for (const e of top) if (e.isDirectory() && e.name !== set) await linkTree(path.join(corpus, e.name), path.join(dest, e.name));
}

/** Creates the library (when new), seeds its embedding cache from `cacheFrom`, and ingests `corpus` into it. */
async function buildLibrary(set: string, corpus: string, dir: string, embedder: EmbedderSpec | undefined, cacheFrom: string | undefined): Promise<LosoLibrary> {
  const isNew = !(await fs.stat(path.join(dir, 'library.json')).then(() => true, () => false));
  if (isNew && cacheFrom) {
    const caches = (await fs.readdir(cacheFrom)).filter((n) => /^embeddings-.*\.bin$/.test(n));
    if (caches.length === 0) throw new Error(`--cache-from ${cacheFrom} holds no embeddings-*.bin; name a library built with the same --embedder, or leave --cache-from out (every passage is then embedded).`);
    // A new library is made by its first ingest; the cache is in its folder before that.
    await fs.mkdir(dir, { recursive: true });
    for (const n of caches) await fs.copyFile(path.join(cacheFrom, n), path.join(dir, n));
  }
  const engine = await createEngine({ libraryDir: dir, embedder, create: true });
  try {
    const ing = await engine.ingest({ paths: [corpus] });
    if (!ing.ok) throw new Error(`${set}: ${ing.error.code}: ${ing.error.message}`);
    return { set, dir, files: ing.value.files, chunks: ing.value.chunks, unchanged: ing.value.unchanged, seconds: ing.value.seconds };
  } finally {
    await engine.close();
  }
}

/**
 * Asks every question of the whole corpus first (the reference: what a left-out library refuses that
 * it answers is the removal's doing), then leaves each set out in turn and asks every question of the
 * rest. One row per (set, question); the reference's rows are set {@link NONE_LEFT_OUT}.
 */
export async function runLoso(opts: LosoOptions): Promise<{ rows: LosoRow[]; libraries: LosoLibrary[] }> {
  const log = opts.log ?? (() => {});
  const sets = opts.sets ?? questionSetsOf(opts.questions);
  const rows: LosoRow[] = [];
  const libraries: LosoLibrary[] = [];
  const bare = new Map(opts.questions.map((q) => [q.id, isBareCode(q.query)]));
  const withAll = new Map<string, boolean>();
  for (const set of [NONE_LEFT_OUT, ...sets]) {
    const out = set === NONE_LEFT_OUT ? null : set;
    const corpus = path.join(opts.work, set, 'corpus');
    await corpusWithout(opts.corpus, out, corpus);
    const lib = await buildLibrary(set, corpus, path.join(opts.work, set, 'library'), opts.embedder, opts.cacheFrom);
    libraries.push(lib);
    log(`${out ?? 'no set'} left out: library ${lib.dir}, ${lib.files} files (${lib.chunks} chunks), ${lib.unchanged} unchanged, ingest ${lib.seconds} s`);
    const engine = await createEngine({ libraryDir: lib.dir, readOnly: true });
    try {
      for (const q of opts.questions) {
        const res = await engine.ask({ question: q.query, prefer: 'extractive' });
        if (!res.ok) throw new Error(`${set} / ${q.id}: ${res.error.code} ${res.error.message}`);
        const a = res.value;
        if (out === null) withAll.set(q.id, a.refused);
        rows.push({
          set,
          id: q.id,
          type: q.type,
          kind: out === null ? kindOf(q, '') : kindOf(q, out),
          half: (idNumber(q.id) ?? 0) < NEW_IDS_FROM ? 'first' : 'newer',
          bareCode: bare.get(q.id) ?? false,
          refused: a.refused,
          refusedWithAll: withAll.get(q.id) ?? a.refused,
          reason: a.refused ? (a.refusal?.reason ?? a.answer) : null,
          answer: (a.answer.split('\n').find((l) => l.trim() !== '') ?? '').trim().slice(0, 200),
        });
      }
    } finally {
      await engine.close();
    }
  }
  return { rows, libraries };
}

export interface LosoCounts {
  leftOut: [number, number];
  bare: [number, number];
  named: [number, number];
  answerable: [number, number];
  /** Answerable questions refused here that the library with every set in answers. */
  answerableNew: [number, number];
  outOfScope: [number, number];
}

/** Refused / asked for each column of the table, over some rows. */
export function countLoso(rows: LosoRow[]): LosoCounts {
  const c = (rs: LosoRow[]): [number, number] => [rs.filter((r) => r.refused).length, rs.length];
  const left = rows.filter((r) => r.kind === 'left-out');
  return {
    leftOut: c(left),
    bare: c(left.filter((r) => r.bareCode)),
    named: c(left.filter((r) => !r.bareCode)),
    answerable: c(rows.filter((r) => r.kind === 'answerable')),
    answerableNew: c(rows.filter((r) => r.kind === 'answerable' && !r.refusedWithAll)),
    outOfScope: c(rows.filter((r) => r.kind === 'out_of_scope')),
  };
}

/**
 * One table per half (all, ids < NEW_IDS_FROM, ids ≥ NEW_IDS_FROM): the reference row (no set left
 * out), a row per left-out set and their totals.
 */
export function formatLoso(rows: LosoRow[]): string {
  const sets = [...new Set(rows.map((r) => r.set))].filter((s) => s !== NONE_LEFT_OUT);
  const halves: { name: string; keep: (r: LosoRow) => boolean }[] = [
    { name: 'all questions', keep: () => true },
    { name: `ids < ${NEW_IDS_FROM}`, keep: (r) => r.half === 'first' },
    { name: `ids ≥ ${NEW_IDS_FROM}`, keep: (r) => r.half === 'newer' },
  ];
  const cell = ([k, n]: [number, number]) => (n === 0 ? '—' : `${k}/${n}`);
  const line = (label: string, c: LosoCounts) =>
    `| ${label} | ${cell(c.leftOut)} | ${cell(c.bare)} | ${cell(c.named)} | ${cell(c.answerable)} | ${cell(c.answerableNew)} | ${cell(c.outOfScope)} |`;
  return halves
    .map((h) => {
      const mine = rows.filter(h.keep);
      return [
        `leave one set out, ${h.name}: refused / asked`,
        '| left out | its questions refused | of them bare codes | of them named | other sets\' answerable refused | refused of those the whole corpus answers | own out_of_scope refused |',
        '|---|---|---|---|---|---|---|',
        ...(rows.some((r) => r.set === NONE_LEFT_OUT) ? [line('none (reference)', countLoso(mine.filter((r) => r.set === NONE_LEFT_OUT)))] : []),
        ...sets.map((s) => line(s, countLoso(mine.filter((r) => r.set === s)))),
        line('**total** (sets left out)', countLoso(mine.filter((r) => r.set !== NONE_LEFT_OUT))),
      ].join('\n');
    })
    .join('\n\n');
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      corpus: { type: 'string' },
      questions: { type: 'string' },
      sets: { type: 'string' },
      embedder: { type: 'string' },
      'cache-from': { type: 'string' },
      work: { type: 'string' },
      json: { type: 'string' },
    },
  });
  const usage = `usage: npx tsx scripts/eval-loso.ts --corpus <dir> --questions <jsonl> [--sets a,b] [--embedder ${EMBEDDER_SPELLINGS.replace(/ /g, '')}] [--cache-from <library built with that embedder>] [--work <dir>] [--json out]`;
  if (!values.corpus || !values.questions) {
    console.error(usage);
    process.exit(2);
  }
  console.log(`$ ${commandLine()}`);
  const corpus = path.resolve(values.corpus);
  const embedder = parseEmbedderSpec(values.embedder);
  const work = path.resolve(
    values.work ?? path.join('.eval', `loso-${createHash('sha256').update(`${corpus}|${values.embedder ?? 'default'}`).digest('hex').slice(0, 10)}`),
  );
  const questions = await loadQuestions(values.questions);
  const sets = values.sets?.split(',').map((s) => s.trim()).filter(Boolean);
  const started = performance.now();
  const { rows, libraries } = await runLoso({ corpus, questions, sets, embedder, cacheFrom: values['cache-from'] && path.resolve(values['cache-from']), work, log: (l) => console.log(l) });
  console.log(`\n${libraries.length} libraries (the whole corpus, then each set left out), ${questions.length} questions each, ${Math.round((performance.now() - started) / 1000)} s\n`);
  console.log(formatLoso(rows));
  const leftOut = countLoso(rows.filter((r) => r.set !== NONE_LEFT_OUT)).leftOut;
  console.log(`\nleft-out questions refused: ${ratio(leftOut[0], leftOut[1])}`);
  if (values.json) {
    await fs.mkdir(path.dirname(path.resolve(values.json)), { recursive: true });
    await fs.writeFile(values.json, JSON.stringify({ command: commandLine(), libraries, rows }, null, 1));
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
  main().catch((err: unknown) => {
    console.error(err instanceof Error ? err.message : String(err));
    process.exit(1);
  });
}
