/**
 * npx tsx scripts/dump-top10.ts --library <built library> --questions <jsonl> [--modes hybrid,keyword,vector]
 *
 * Prints, per question and mode, the top-10 chunk ids a search returns (one line each), so two
 * versions of the search code can be compared on the same library with diff: a change meant to cost
 * less time must leave every line as it was. The library is opened read-only.
 */
import { parseArgs } from 'node:util';
import type { SearchMode } from '../native/contract/api.js';
import { createEngine } from '../native/engine.js';
import { loadQuestions } from './eval-lib.js';

const { values } = parseArgs({ options: { library: { type: 'string' }, questions: { type: 'string' }, modes: { type: 'string', default: 'hybrid,keyword,vector' } } });
if (!values.library || !values.questions) {
  console.error('usage: npx tsx scripts/dump-top10.ts --library <dir> --questions <jsonl> [--modes hybrid,keyword,vector]');
  process.exit(2);
}
const questions = await loadQuestions(values.questions);
for (const mode of (values.modes ?? '').split(',') as SearchMode[]) {
  const engine = await createEngine({ libraryDir: values.library, readOnly: true });
  try {
    for (const q of questions) {
      const r = await engine.search({ query: q.query, k: 10, mode });
      if (!r.ok) throw new Error(r.error.message);
      console.log(`${mode}\t${q.id}\t${r.value.hits.map((h) => h.chunkId).join(' ')}`);
    }
  } finally {
    await engine.close();
  }
}
