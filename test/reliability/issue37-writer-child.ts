/**
 * Writer child for the reader tests (issue37-readers.test.ts): on one library, removes the notes and
 * ingests them back, `cycles` times; each ingest and removal compacts the tables and prunes their old
 * versions. After every committed step it prints {"step":n,"present":bool} and waits for a line on
 * standard input, so the parent can check a reader's results against the library as committed.
 * Usage: node --import tsx issue37-writer-child.ts <library> <corpus> <cycles> <file>…
 */
import readline from 'node:readline';
import { createEngine } from '../../native/engine.js';

const [libraryDir, corpus, cyclesArg, ...files] = process.argv.slice(2);
if (!libraryDir || !corpus || !cyclesArg) {
  process.stderr.write('usage: issue37-writer-child.ts <library> <corpus> <cycles> <file>…\n');
  process.exit(2);
}
const input = readline.createInterface({ input: process.stdin });
const lines = input[Symbol.asyncIterator]();
const engine = await createEngine({ libraryDir });
let step = 0;
const say = async (present: boolean) => {
  process.stdout.write(`${JSON.stringify({ step: ++step, present })}\n`);
  await lines.next();
};
for (let c = 0; c < Number(cyclesArg); c++) {
  const removed = await engine.removeFiles(files);
  if (!removed.ok) throw new Error(JSON.stringify(removed.error));
  await say(false);
  const added = await engine.ingest({ paths: [corpus] });
  if (!added.ok) throw new Error(JSON.stringify(added.error));
  await say(true);
}
await engine.close();
input.close();
process.stdout.write(`${JSON.stringify({ done: true })}\n`);
