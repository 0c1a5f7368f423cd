/**
 * Hand-written probe questions, each labelled answerable or out of scope, asked of a library:
 *
 *   npx tsx scripts/eval-probes.ts --library <dev library> [--embedder none|onnx:<dir>|gguf:<file>] [files…]
 *
 * Each file is TSV, one question a line: `ans` or `oos`, a tab, the question. Without files, every
 * `scripts/probes/*.tsv`. Those are questions about the products of the dev corpus (../shared/corpus), one file
 * a class of question the gate must tell apart (an unknown machine or brand, a code asked for another
 * product, a day or a month, a code word a product does not use, a covered product asked about what its
 * manuals never say…); they are not the dev set and were not written from its questions. Prints, per file,
 * the out-of-scope questions refused and the answerable ones refused, then each question answered wrongly
 * (refused when answerable, answered when out of scope) with the first words of what it got.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { createEngine } from '../native/engine.js';
import { parseEmbedderSpec } from '../native/embed/models.js';
import { commandLine } from './eval-lib.js';

const { values, positionals } = parseArgs({
  options: { library: { type: 'string' }, embedder: { type: 'string' } },
  allowPositionals: true,
});
if (!values.library) {
  console.error('usage: npx tsx scripts/eval-probes.ts --library <dir> [--embedder none|onnx:<dir>|gguf:<file>] [probe files…]');
  process.exit(2);
}
const dir = path.join(import.meta.dirname, 'probes');
const files = positionals.length > 0 ? positionals : (await fs.readdir(dir)).filter((f) => f.endsWith('.tsv')).sort().map((f) => path.join(dir, f));

console.log(`$ ${commandLine()}\n`);
const engine = await createEngine({ libraryDir: values.library, readOnly: true, embedder: parseEmbedderSpec(values.embedder) });
const wrong: string[] = [];
console.log('| probes | out of scope refused | answerable refused |');
console.log('|---|---|---|');
try {
  for (const file of files) {
    const rows = (await fs.readFile(file, 'utf8'))
      .split('\n')
      .filter((l) => l.trim() !== '')
      .map((l) => l.split('\t') as [string, string]);
    const count = { oos: 0, oosRefused: 0, ans: 0, ansRefused: 0 };
    for (const [label, question] of rows) {
      if (label !== 'ans' && label !== 'oos') throw new Error(`${file}: a line must start with "ans" or "oos" and a tab: ${label}`);
      const r = await engine.ask({ question, prefer: 'extractive' });
      if (!r.ok) throw new Error(`${question}: ${r.error.message}`);
      const refused = r.value.refused;
      if (label === 'oos') {
        count.oos++;
        if (refused) count.oosRefused++;
      } else {
        count.ans++;
        if (refused) count.ansRefused++;
      }
      if (refused !== (label === 'oos')) wrong.push(`${path.basename(file)}  ${label} ${refused ? 'refused ' : 'answered'}  ${question} | ${r.value.answer.replace(/\s+/g, ' ').slice(0, 110)}`);
    }
    console.log(`| ${path.basename(file)} | ${count.oosRefused}/${count.oos} | ${count.ansRefused}/${count.ans} |`);
  }
} finally {
  await engine.close();
}
console.log(`\nanswered wrongly (${wrong.length}):`);
for (const w of wrong) console.log(`- ${w}`);
