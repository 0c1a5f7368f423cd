/**
 * Browser mode in a process of its own, for the slow-connection case of hardening.test.ts (run under
 * `ulimit -n 1024`, as on a usual desktop): a keyword-only engine on a temp library, its address with
 * its key (…/?token=<key>, as `npm start` prints it) on stdout.
 */
import { createEngine } from '../../native/engine.js';
import { startServer } from '../../native/server/http.js';

const lib = process.argv[2];
if (!lib) throw new Error('usage: slow-clients-server.ts <library dir>');
const engine = await createEngine({ libraryDir: lib, embedder: { kind: 'none' }, create: true });
const server = await startServer(engine, { port: 0 });
process.stdout.write(`${server.openUrl}\n`);
process.on('SIGTERM', () => {
  void server.close().finally(() => engine.close().finally(() => process.exit(0)));
});
