/**
 * Child process for the pack crash test: imports or updates a pack and prints progress as JSON lines,
 * so the parent can SIGKILL it mid-import. With PAUSE=commit it stops right after the staged pack is
 * renamed into place and before packs.json names it (prints {"paused":true}) and waits to be killed.
 * Usage: node --import tsx packs-child.ts <library> <pack> <import|update>
 */
import { createEngine } from '../../native/engine.js';
import { packFailpoints } from '../../native/packs/failpoints.js';

const [libraryDir, file, mode] = process.argv.slice(2);
if (!libraryDir || !file || (mode !== 'import' && mode !== 'update')) {
  process.stderr.write('usage: packs-child.ts <library> <pack> <import|update>\n');
  process.exit(2);
}
if (process.env.PAUSE === 'commit') {
  packFailpoints.beforeCommit = async () => {
    process.stdout.write(`${JSON.stringify({ paused: true })}\n`);
    await new Promise(() => setInterval(() => {}, 1000));
  };
}
const engine = await createEngine({ libraryDir, embedder: { kind: 'none' } });
process.stdout.write(`${JSON.stringify({ started: true })}\n`);
const onProgress = (p: unknown) => process.stdout.write(`${JSON.stringify(p)}\n`);
const res = mode === 'import' ? await engine.importPack({ file }, { onProgress }) : await engine.updatePack({ file }, { onProgress });
await engine.close();
process.stdout.write(`${JSON.stringify({ done: res })}\n`);
