/**
 * Child process for the crash tests: runs one write on <library> and prints every progress event as
 * one JSON line, so the parent can SIGKILL it at a chosen point (the CLI prints progress only to a
 * terminal). It prints {"ready":true} once its modules are loaded, before the library is opened, so a
 * parent can time kills from there. Usage: node --import tsx ingest-child.ts <library> <corpus> [mode] [files…]
 *   mode ingest (default): ingest <corpus>; reindex: ingest <corpus> with force (every file again);
 *   remove: engine.removeFiles(files) (<corpus> unused).
 */
import { createEngine } from '../../native/engine.js';

const [libraryDir, corpus, mode = 'ingest', ...files] = process.argv.slice(2);
if (!libraryDir || !corpus || !['ingest', 'reindex', 'remove'].includes(mode)) {
  process.stderr.write('usage: ingest-child.ts <library> <corpus> [ingest|reindex|remove] [files…]\n');
  process.exit(2);
}
process.stdout.write(`${JSON.stringify({ ready: true })}\n`);
const engine = await createEngine({ libraryDir, create: true });
const onProgress = (p: unknown) => process.stdout.write(`${JSON.stringify(p)}\n`);
let res: unknown;
if (mode === 'remove') {
  // removeFiles reports no progress: say when the library is open and the removal starts.
  const info = await engine.info();
  onProgress({ phase: 'remove', files: files.length, open: info.ok });
  res = await engine.removeFiles(files);
} else {
  res = await engine.ingest({ paths: [corpus], force: mode === 'reindex' }, { onProgress });
}
await engine.close();
process.stdout.write(`${JSON.stringify({ done: res })}\n`);
