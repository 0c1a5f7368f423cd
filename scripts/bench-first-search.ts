/** Times the first and second searches after a new library is filled (no assertions): `LANCE_CPU_THREADS=2 npx tsx scripts/bench-first-search.ts [folder]`. */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createEngine } from '../native/engine.js';

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'md-first-'));
const docs = path.resolve(process.argv[2] ?? 'test/fixtures/manuals');
const engine = await createEngine({ libraryDir: path.join(root, 'lib'), create: true });
let t = performance.now();
const ing = await engine.ingest({ paths: [docs] });
console.log('ingest', ing.ok, Math.round(performance.now() - t), 'ms');
for (const q of ['motor overheats during operation', 'how do I reset the conveyor belt', 'alarm 9', 'hydraulic pressure low']) {
  t = performance.now();
  const r = await engine.search({ query: q });
  console.log(JSON.stringify(q), r.ok ? r.value.hits.length : r.error, Math.round(performance.now() - t), 'ms');
}
await engine.close();
fs.rmSync(root, { recursive: true, force: true });
