/**
 * A cross-language question set from a corpus that holds a manual in two languages (an English
 * manual and its Chinese translation): English questions whose answer is in the English manual
 * are asked of a copy of the corpus without it, and score where they find its translation.
 *
 *   npx tsx scripts/make-twin-set.ts --corpus <dir> --questions <jsonl> --twin <from>=<to> [--twin …] --out <dir>
 *
 * `--twin klipper/docs/=klipper-translations-zh/docs/locales/zh_Hans/` maps every expected file under
 * the first prefix to the same path under the second (a file: `a/B_EN.md=a/B.md`). Writes
 * `<out>/corpus` (the corpus without the mapped English files) and `<out>/questions.jsonl` (the
 * questions of other languages than the twin's whose every expected file has a twin, expected files
 * mapped, matched by file: the passage text is in the other language, so `expect_contains` is "").
 * Then: `npm run eval -- --corpus <out>/corpus --questions <out>/questions.jsonl …`; the language
 * table's row "English question → Chinese manual" is this set.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { detectLang } from '../native/text/lang.js';
import { loadQuestions, type Question } from './eval-lib.js';

const { values } = parseArgs({
  options: {
    corpus: { type: 'string' },
    questions: { type: 'string' },
    twin: { type: 'string', multiple: true },
    out: { type: 'string' },
  },
});
if (!values.corpus || !values.questions || !values.twin?.length || !values.out) {
  console.error('usage: npx tsx scripts/make-twin-set.ts --corpus <dir> --questions <jsonl> --twin <from>=<to> [--twin …] --out <dir>');
  process.exit(2);
}
const corpus = path.resolve(values.corpus);
const out = path.resolve(values.out);
const twins = values.twin.map((t) => {
  const [from, to] = t.split('=');
  if (!from || !to) throw new Error(`--twin ${t}: expected <from>=<to>`);
  return { from, to };
});

const exists = async (p: string) => fs.stat(p).then(() => true, () => false);
const twinOf = async (file: string): Promise<string | null> => {
  for (const { from, to } of twins) {
    if (file === from || (from.endsWith('/') && file.startsWith(from))) {
      const mapped = file === from ? to : to + file.slice(from.length);
      return (await exists(path.join(corpus, mapped))) ? mapped : null;
    }
  }
  return null;
};
const removed = (file: string) => twins.some(({ from }) => file === from || (from.endsWith('/') && file.startsWith(from)));

const kept: Question[] = [];
for (const q of await loadQuestions(values.questions)) {
  if (q.expect_file === null || detectLang(q.query) === 'zh') continue;
  const files = Array.isArray(q.expect_file) ? q.expect_file : [q.expect_file];
  const mapped = await Promise.all(files.map(twinOf));
  if (mapped.some((m) => m === null)) continue;
  const m = mapped as string[];
  kept.push({ ...q, expect_file: m.length === 1 ? (m[0] as string) : m, expect_contains: m.length === 1 ? '' : m.map(() => ''), notes: `twin of ${files.join(', ')}` });
}

await fs.rm(out, { recursive: true, force: true });
await fs.mkdir(out, { recursive: true });
let copied = 0;
for (const entry of await fs.readdir(corpus, { recursive: true, withFileTypes: true })) {
  if (!entry.isFile()) continue;
  const abs = path.join(entry.parentPath, entry.name);
  const rel = path.relative(corpus, abs).split(path.sep).join('/');
  if (removed(rel)) continue;
  await fs.mkdir(path.join(out, 'corpus', path.dirname(rel)), { recursive: true });
  await fs.copyFile(abs, path.join(out, 'corpus', rel));
  copied++;
}
await fs.writeFile(path.join(out, 'questions.jsonl'), kept.map((q) => JSON.stringify(q)).join('\n') + '\n');
console.log(`${kept.length} questions → ${path.join(out, 'questions.jsonl')}; corpus of ${copied} files (mapped English files left out) → ${path.join(out, 'corpus')}`);
for (const type of [...new Set(kept.map((q) => q.type))]) console.log(`  ${type}: ${kept.filter((q) => q.type === type).length}`);
