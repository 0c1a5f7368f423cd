/**
 * Replays the generated-answer check (native/answer/draft.ts: citations, refusal, then
 * native/answer/generated-check.ts) on hand-labelled real drafts, offline: no model, no library.
 * Prints, per half of the dev set (ids below 101: "first 65"; from 101: "new 80"), how many drafts
 * the check accepts although they are labelled unsupported (false accepts: a wrong or
 * prompt-echoing answer shown to the technician) and rejects although labelled supported (false
 * rejects: a good answer replaced by the extractive one). The labelling rule is
 * docs/answer-check-labels.md; the drafts come from scripts/eval-generation.ts --drafts.
 *
 *   npx tsx scripts/replay-answer-check.ts [--labels scripts/answer-check-labels.jsonl] [--verbose]
 */
import fs from 'node:fs/promises';
import { parseArgs } from 'node:util';
import type { GeneratedDraft } from '../native/contract/answer.js';
import { judgeDraft } from '../native/answer/draft.js';

interface Labelled extends GeneratedDraft {
  id: string;
  type: string;
  label: 'supported' | 'unsupported';
  why: string;
}

const { values } = parseArgs({
  options: {
    labels: { type: 'string', default: 'scripts/answer-check-labels.jsonl' },
    verbose: { type: 'boolean', default: false },
  },
});

const rows: Labelled[] = (await fs.readFile(values.labels, 'utf8'))
  .split('\n')
  .filter((l) => l.trim() !== '')
  .map((l, i) => {
    const r = JSON.parse(l) as Labelled;
    if (r.label !== 'supported' && r.label !== 'unsupported') throw new Error(`${values.labels}, line ${i + 1}: label must be "supported" or "unsupported"`);
    return r;
  });

const half = (id: string) => (Number(/\d+/.exec(id)?.[0] ?? 0) < 101 ? 'ids < 101' : 'ids ≥ 101');
const table = new Map<string, { n: number; supported: number; accepted: number; falseAccepts: number; falseRejects: number }>();
const wrong: string[] = [];
for (const r of rows) {
  const v = judgeDraft(r);
  const accepted = v.kind === 'accepted';
  const supported = r.label === 'supported';
  for (const key of [half(r.id), 'all']) {
    const t = table.get(key) ?? { n: 0, supported: 0, accepted: 0, falseAccepts: 0, falseRejects: 0 };
    t.n++;
    if (supported) t.supported++;
    if (accepted) t.accepted++;
    if (accepted && !supported) t.falseAccepts++;
    if (!accepted && supported) t.falseRejects++;
    table.set(key, t);
  }
  const what = v.kind === 'fell back' ? `rejected: ${v.reason}` : 'accepted';
  if (accepted !== supported) wrong.push(`${accepted ? 'FALSE ACCEPT' : 'FALSE REJECT'} ${r.id} (${r.why}) ${what}\n    ${JSON.stringify(r.text.slice(0, 240))}`);
  else if (values.verbose) console.log(`ok ${r.id} ${r.label}: ${what}`);
}

console.log(`$ npx tsx scripts/replay-answer-check.ts --labels ${values.labels}`);
console.log('| drafts | n | labelled supported | accepted | false accepts | false rejects |');
console.log('|---|---|---|---|---|---|');
for (const key of ['ids < 101', 'ids ≥ 101', 'all']) {
  const t = table.get(key);
  if (t) console.log(`| ${key} | ${t.n} | ${t.supported} | ${t.accepted} | ${t.falseAccepts} | ${t.falseRejects} |`);
}
for (const w of wrong) console.log(w);
