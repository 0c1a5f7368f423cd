/**
 * Starts the engine in an Electron utility process (native/worker/entry.ts, built as out/main/worker.js)
 * and returns the client that the IPC handlers call: ingest, embedding and generation never run on
 * the main process, whose event loop keeps the window responsive.
 */
import { utilityProcess } from 'electron';
import { connectWorker, type WorkerClient } from '../../native/worker/client.js';
import type { Port, ToHost } from '../../native/worker/protocol.js';

export function startEngineHost(modulePath: string, libraryDir: string): WorkerClient {
  const child = utilityProcess.fork(modulePath, [], {
    serviceName: 'ManualDesk engine',
    // MALLOC_ARENA_MAX=2 on Linux, as bin/manualdesk.js sets for the command (why: see there); a value the user set is kept.
    env: { ...process.env, MANUALDESK_LIBRARY: libraryDir, ...(process.platform === 'linux' ? { MALLOC_ARENA_MAX: process.env.MALLOC_ARENA_MAX ?? '2' } : {}) },
    stdio: 'inherit',
  });
  const port: Port<unknown, ToHost> = {
    post: (message) => child.postMessage(message),
    onMessage: (listener) => child.on('message', listener),
  };
  const client = connectWorker(port);
  child.on('exit', (code) => {
    client.hostExited(
      `The ManualDesk engine stopped (exit code ${code}). Close ManualDesk and open it again; if this repeats, check that the library folder ${libraryDir} is readable and not used by another program.`,
    );
  });
  return client;
}
