/**
 * Child process for the interrupted-ingest test: ingests <corpus> into <library> and prints every
 * progress event as one JSON line, so the parent can SIGKILL it at a chosen point of the write phase
 * (the CLI prints progress only to a terminal). Usage: node --import tsx ingest-child.ts <library> <corpus>
 */
import { createEngine } from '../../native/engine.js';

const [libraryDir, corpus] = process.argv.slice(2);
if (!libraryDir || !corpus) {
  process.stderr.write('usage: ingest-child.ts <library> <corpus>\n');
  process.exit(2);
}
const engine = await createEngine({ libraryDir, create: true });
const res = await engine.ingest({ paths: [corpus] }, { onProgress: (p) => process.stdout.write(`${JSON.stringify(p)}\n`) });
await engine.close();
process.stdout.write(`${JSON.stringify({ done: res })}\n`);
