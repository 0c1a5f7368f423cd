/**
 * scripts/eval-loso.ts on three invented documentation sets: each set is left out in turn, its
 * questions become out of scope, and the counts per column come out as the questions say.
 * Keyword only (no model), a few seconds.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEngine } from '../../native/engine.js';
import type { Question } from '../../scripts/eval-lib.js';
import { corpusWithout, countLoso, formatLoso, isBareCode, kindOf, NONE_LEFT_OUT, questionSetsOf, runLoso, type LosoRow } from '../../scripts/eval-loso.js';
import { writeTinyBertModel } from '../../scripts/make-tiny-onnx.js';
import { cleanupTemp, tempDir, value } from './helpers.js';

const MANUALS: Record<string, string> = {
  'zentrix-pump/zentrix-p40.md': `# Zentrix P40 Dosing Pump Manual

## Priming the pump

Open the bleed screw on the dosing head, run the Zentrix P40 at full stroke until liquid without bubbles comes out, then close the bleed screw.

## Fault codes

| Code | Message | Remedy |
|------|---------|--------|
| F-417 | Diaphragm rupture detected | Stop the pump and replace the diaphragm |
| F-418 | Suction valve blocked | Clean the suction valve |
`,
  'orvalo-lift/orvalo-l2.md': `# Orvalo L2 Pallet Lift Manual

## Lubricating the lift chain

Lubricate the lift chain of the Orvalo L2 every 200 operating hours with chain oil.

## Alarms

| Alarm | Message | Remedy |
|-------|---------|--------|
| AL-52 | Platform overload | Remove load from the platform |
`,
  'kestrel-saw/kestrel-b9.md': `# Kestrel B9 Band Saw Manual

## Blade tension

Turn the tension handwheel of the Kestrel B9 until the tension gauge reads 20000 psi, then run the saw for two minutes and check again.
`,
};

const QUESTIONS: Question[] = [
  { id: 'ZP-001', type: 'procedure', query: 'how do I prime the Zentrix P40 dosing pump', expect_file: 'zentrix-pump/zentrix-p40.md', expect_contains: 'Open the bleed screw' },
  { id: 'ZP-102', type: 'code_exact', query: 'F-417', expect_file: 'zentrix-pump/zentrix-p40.md', expect_contains: 'Diaphragm rupture detected' },
  { id: 'OL-003', type: 'procedure', query: 'how often should the Orvalo L2 lift chain be lubricated', expect_file: 'orvalo-lift/orvalo-l2.md', expect_contains: 'every 200 operating hours' },
  { id: 'KS-104', type: 'procedure', query: 'how do I set the blade tension on the Kestrel B9 band saw', expect_file: 'kestrel-saw/kestrel-b9.md', expect_contains: 'tension handwheel' },
  { id: 'OOS-005', type: 'out_of_scope', query: 'Varnex T7 conveyor error 88 meaning', expect_file: null, expect_contains: null },
];

let corpus: string;
let work: string;
let rows: LosoRow[];

beforeAll(async () => {
  const root = tempDir('loso');
  corpus = path.join(root, 'corpus');
  work = path.join(root, 'work');
  for (const [file, text] of Object.entries(MANUALS)) {
    fs.mkdirSync(path.dirname(path.join(corpus, file)), { recursive: true });
    fs.writeFileSync(path.join(corpus, file), text);
  }
  // An inventory at the top names every set: it must not stay in a corpus that leaves one out.
  fs.writeFileSync(path.join(corpus, 'MANIFEST.md'), '# Sets\n\nZentrix P40 dosing pump, Orvalo L2 pallet lift, Kestrel B9 band saw.\n');
  ({ rows } = await runLoso({ corpus, questions: QUESTIONS, work }));
}, 60_000);

afterAll(cleanupTemp);

describe('leave one set out', () => {
  it('leaves out every set a question points into, and only those sets', () => {
    expect(questionSetsOf(QUESTIONS)).toEqual(['kestrel-saw', 'orvalo-lift', 'zentrix-pump']);
    expect(kindOf(QUESTIONS[0] as Question, 'zentrix-pump')).toBe('left-out');
    expect(kindOf(QUESTIONS[0] as Question, 'orvalo-lift')).toBe('answerable');
    expect(kindOf(QUESTIONS[4] as Question, 'orvalo-lift')).toBe('out_of_scope');
  });

  it('an alternate passage in another set keeps a question answerable', () => {
    const q: Question = { ...(QUESTIONS[0] as Question), notes: 'ALT: zentrix-pump-zh/p40.md :: 打开排气螺钉' };
    expect(kindOf(q, 'zentrix-pump')).toBe('answerable');
  });

  it('a code without a product name is a bare code; a named product or a coined name is not', () => {
    expect(isBareCode('F-417')).toBe(true);
    expect(isBareCode('error 88 after a power cut')).toBe(true);
    expect(isBareCode('Zentrix P40 F-417')).toBe(false);
    expect(isBareCode('zentrix error 88')).toBe(false);
    expect(isBareCode('how do I prime the pump')).toBe(false);
  });

  it('builds the corpus without the set and without the top-level files', async () => {
    const dest = path.join(work, 'probe');
    await corpusWithout(corpus, 'orvalo-lift', dest);
    expect(fs.readdirSync(dest).sort()).toEqual(['kestrel-saw', 'zentrix-pump']);
    await expect(corpusWithout(corpus, 'no-such-set', dest)).rejects.toThrow(/not a folder of .*name one of: /);
  });

  it('asks the whole corpus first, as the reference', () => {
    const reference = countLoso(rows.filter((r) => r.set === NONE_LEFT_OUT));
    expect(reference.leftOut).toEqual([0, 0]);
    expect(reference.answerable).toEqual([0, 4]);
    expect(reference.outOfScope).toEqual([1, 1]);
    expect(rows.filter((r) => r.set !== NONE_LEFT_OUT).every((r) => r.refusedWithAll === (r.kind === 'out_of_scope'))).toBe(true);
  });

  it('refuses the left-out questions and answers the others', () => {
    const total = countLoso(rows.filter((r) => r.set !== NONE_LEFT_OUT));
    expect(total.leftOut).toEqual([4, 4]);
    expect(total.bare).toEqual([1, 1]);
    expect(total.named).toEqual([3, 3]);
    expect(total.answerable).toEqual([0, 8]);
    expect(total.answerableNew).toEqual([0, 8]);
    expect(total.outOfScope).toEqual([3, 3]);
    const zentrix = countLoso(rows.filter((r) => r.set === 'zentrix-pump'));
    expect(zentrix.leftOut).toEqual([2, 2]);
    expect(rows.filter((r) => r.refused).every((r) => r.reason !== null && r.reason.length > 0)).toBe(true);
  });

  it('prints a table per half with a totals row', () => {
    const text = formatLoso(rows);
    expect(text).toContain('leave one set out, ids < 101');
    expect(text).toContain('leave one set out, ids ≥ 101');
    expect(text).toContain('| none (reference) | — | — | — | 0/4 | 0/4 | 1/1 |');
    expect(text).toContain('| **total** (sets left out) | 4/4 | 1/1 | 3/3 | 0/8 | 0/8 | 3/3 |');
  });

  it('reuses a built library: a second run ingests nothing new', async () => {
    const again = await runLoso({ corpus, questions: QUESTIONS, work, sets: ['kestrel-saw'] });
    expect(again.libraries.map((l) => [l.set, l.unchanged])).toEqual([[NONE_LEFT_OUT, 3], ['kestrel-saw', 2]]);
    expect(again.rows.filter((r) => r.set === 'kestrel-saw').map((r) => r.refused)).toEqual(rows.filter((r) => r.set === 'kestrel-saw').map((r) => r.refused));
  });
});

describe('leave one set out with an embedder', () => {
  it('seeds each new library with the embedding cache of --cache-from, so nothing is embedded again', async () => {
    const model = path.join(tempDir('loso-model'), 'tiny-bert');
    writeTinyBertModel(model, { dims: 32, seed: 7 });
    const embedder = { kind: 'onnx' as const, dir: model };
    const full = path.join(tempDir('loso-full'), 'library');
    const build = await createEngine({ libraryDir: full, create: true, embedder });
    try {
      value(await build.ingest({ paths: [corpus] }));
    } finally {
      await build.close();
    }
    const cache = fs.readdirSync(full).filter((n) => /^embeddings-.*\.bin$/.test(n));
    expect(cache).toHaveLength(1);
    const seeded = path.join(tempDir('loso-e'), 'work');
    const run = await runLoso({ corpus, questions: QUESTIONS, work: seeded, sets: ['orvalo-lift'], embedder, cacheFrom: full });
    // Every passage of each new library was in the cache: the file did not grow.
    for (const set of [NONE_LEFT_OUT, 'orvalo-lift']) {
      const copied = path.join(seeded, set, 'library', cache[0] as string);
      expect(fs.statSync(copied).size).toBe(fs.statSync(path.join(full, cache[0] as string)).size);
    }
    expect(countLoso(run.rows.filter((r) => r.set === 'orvalo-lift')).leftOut).toEqual([1, 1]);
  });

  it('says what to do when --cache-from holds no embedding cache', async () => {
    const empty = tempDir('loso-nocache');
    await expect(runLoso({ corpus, questions: QUESTIONS, work: path.join(empty, 'work'), sets: ['orvalo-lift'], cacheFrom: empty })).rejects.toThrow(
      /holds no embeddings-\*\.bin; name a library built with the same --embedder/,
    );
  });
});
