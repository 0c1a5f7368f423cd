/**
 * Does a pack search like the library it was built from? Ingests a corpus into a library, builds a
 * pack from the same corpus, imports it into a clean library, and compares the top-k of every
 * question (file, chunk id, kind and text of each hit, in order), against
 *   - the library inside the pack, opened on its own (the library the pack was built from, byte for byte);
 *   - a second, independent ingest of the corpus (the same files indexed again: the control, showing
 *     how far two separate ingests agree — equal-score ties may come back in another order).
 *
 *   npx tsx scripts/pack-roundtrip.ts --corpus <dir> --questions <jsonl> [--k 5] [--embedder none|use-lite|static-words|onnx:<dir>] [--json]
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import type { EmbedderSpec } from '../native/embed/models.js';
import { createEngine } from '../native/engine.js';
import { buildPack } from '../native/packs/build.js';
import { generateKeys, trustKey } from '../native/packs/keys.js';

const { values } = parseArgs({
  options: {
    corpus: { type: 'string' },
    questions: { type: 'string' },
    k: { type: 'string', default: '5' },
    embedder: { type: 'string' },
    json: { type: 'boolean' },
  },
});
if (!values.corpus || !values.questions) {
  console.error('usage: npx tsx scripts/pack-roundtrip.ts --corpus <dir> --questions <jsonl> [--k 5] [--embedder spec] [--json]');
  process.exit(2);
}
const k = Number(values.k);
const embedder: EmbedderSpec = !values.embedder
  ? { kind: 'none' }
  : values.embedder.startsWith('onnx:')
    ? { kind: 'onnx', dir: values.embedder.slice(5) }
    : ({ kind: values.embedder } as EmbedderSpec);
const questions = fs
  .readFileSync(values.questions, 'utf8')
  .split('\n')
  .filter((l) => l.trim())
  .map((l) => JSON.parse(l) as { id: string; query: string });

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'md-pack-roundtrip-'));
try {
  const t0 = performance.now();
  const built = path.join(root, 'built');
  const src = await createEngine({ libraryDir: built, embedder, create: true });
  const ing = await src.ingest({ paths: [values.corpus] });
  if (!ing.ok) throw new Error(ing.error.message);
  const keys = await generateKeys(path.join(root, 'keys'));
  const pack = path.join(root, 'corpus.mdpack');
  const b = await buildPack({ id: 'corpus', version: '1', source: values.corpus, out: pack, keyFile: keys.privateKey, embedder });
  const site = path.join(root, 'site');
  fs.mkdirSync(site);
  await trustKey(keys.publicKey, site);
  const dst = await createEngine({ libraryDir: site });
  const imp = await dst.importPack({ file: pack });
  if (!imp.ok) throw new Error(`${imp.error.code}: ${imp.error.message}`);
  const sig = (hits: { file: string; chunkId: string; kind: string; text: string }[]) => JSON.stringify(hits.map((h) => [h.file, h.chunkId, h.kind, h.text]));
  const own = await createEngine({ libraryDir: path.join(site, 'packs', 'corpus', '1', 'library'), readOnly: true });
  let same = 0;
  let sameUpToTies = 0;
  let ownRepeatSame = 0;
  let ownRepeatUpToTies = 0;
  const differingUpToTies: string[] = [];
  let sameAsSeparateIngest = 0;
  const differing: string[] = [];
  for (const q of questions) {
    const a = await own.search({ query: q.query, k });
    const c = await dst.search({ query: q.query, k });
    const s2 = await src.search({ query: q.query, k });
    if (!a.ok || !c.ok || !s2.ok) throw new Error(`search failed for ${q.id}`);
    if (sig(a.value.hits) === sig(c.value.hits)) same++;
    else differing.push(q.id);
    if (equalUpToTies(a.value.hits, c.value.hits)) sameUpToTies++;
    else differingUpToTies.push(q.id);
    const again = await own.search({ query: q.query, k });
    if (again.ok && sig(again.value.hits) === sig(a.value.hits)) ownRepeatSame++;
    if (again.ok && equalUpToTies(again.value.hits, a.value.hits)) ownRepeatUpToTies++;
    if (sig(s2.value.hits) === sig(c.value.hits)) sameAsSeparateIngest++;
  }
  await src.close();
  await dst.close();
  await own.close();
  const out = {
    questions: questions.length,
    identicalTopK: same,
    identicalUpToTies: sameUpToTies,
    builtLibraryAskedTwiceIdentical: ownRepeatSame,
    builtLibraryAskedTwiceUpToTies: ownRepeatUpToTies,
    differingUpToTies,
    identicalToSeparateIngest: sameAsSeparateIngest,
    k,
    embedder: embedder.kind,
    packMB: Math.round((b.bytes / 1024 / 1024) * 10) / 10,
    packFiles: b.manifest.files.length,
    differing,
    seconds: Math.round((performance.now() - t0) / 100) / 10,
  };
  if (values.json) console.log(JSON.stringify(out));
  else console.log(`${same}/${questions.length} questions: identical top-${k} to the library the pack was built from (${sameUpToTies} identical up to the order of equal scores; that library asked the same question twice agrees with itself on ${ownRepeatSame}); ${sameAsSeparateIngest}/${questions.length} identical to a separate ingest of the same corpus (embedder ${embedder.kind}; pack ${out.packMB} MB, ${out.packFiles} files; ${out.seconds} s)${differing.length ? `\ndiffering: ${differing.join(', ')}` : ''}${differingUpToTies.length ? `\ndiffering up to ties: ${differingUpToTies.join(', ')} (the built library asked twice agrees with itself up to ties on ${ownRepeatUpToTies})` : ''}`);
  if (sameUpToTies !== questions.length) process.exitCode = 1;
} finally {
  fs.rmSync(root, { recursive: true, force: true });
}

/**
 * Equal hit lists, except that hits with the same score may come in any order, and at the cut-off
 * score a different member of the tie may have been kept (the index returns ties in no fixed order).
 */
function equalUpToTies(a: { chunkId: string; score: number }[], b: { chunkId: string; score: number }[]): boolean {
  if (a.length !== b.length) return false;
  const key = (x: number) => x.toFixed(4);
  for (let i = 0; i < a.length; i++) if (key((a[i] as { score: number }).score) !== key((b[i] as { score: number }).score)) return false;
  const last = a.length > 0 ? key((a[a.length - 1] as { score: number }).score) : '';
  const groups = (xs: { chunkId: string; score: number }[]) => {
    const m = new Map<string, string[]>();
    for (const x of xs) if (key(x.score) !== last) m.set(key(x.score), [...(m.get(key(x.score)) ?? []), x.chunkId].sort());
    return JSON.stringify([...m]);
  };
  return groups(a) === groups(b);
}
