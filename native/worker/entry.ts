/**
 * The engine host process: opens the library named by $MANUALDESK_LIBRARY and serves the engine over
 * the worker protocol, so ingest, embedding and generation never block the app's main process.
 * Runs as an Electron utilityProcess (process.parentPort) or a Node child process (process.send).
 */
import type { EngineApi } from '../contract/index.js';
import { toErrorData } from '../contract/index.js';
import { configureNativeThreads, defaultLibraryDir } from '../config.js';
import { createEngine } from '../engine.js';
import { serveEngine } from './host.js';
import type { FromHost, Port } from './protocol.js';
import { localCaller } from './streaming.js';

interface ParentPort {
  postMessage(message: unknown): void;
  on(event: 'message', listener: (e: { data: unknown }) => void): void;
}

function parentPort(): Port<unknown, FromHost> {
  const electronPort = (process as unknown as { parentPort?: ParentPort }).parentPort;
  if (electronPort) {
    return { post: (m) => electronPort.postMessage(m), onMessage: (fn) => electronPort.on('message', (e) => fn(e.data)) };
  }
  if (process.send) {
    return { post: (m) => process.send!(m), onMessage: (fn) => process.on('message', fn) };
  }
  throw new Error('The engine host must be started by ManualDesk (no parent port).');
}

async function main(): Promise<void> {
  const port = parentPort();
  configureNativeThreads();
  let engine: EngineApi;
  try {
    engine = await createEngine({ libraryDir: defaultLibraryDir(), newLibraryEmbedder: 'installed', create: process.env.MANUALDESK_CREATE === '1' });
  } catch (err) {
    const error = toErrorData(err);
    serveEngine(async () => ({ ok: false, error }), port, { close: async () => {}, onClosed: () => process.exit(0) });
    port.post({ type: 'ready', error });
    return;
  }
  const opened: EngineApi = engine;
  serveEngine(localCaller(opened), port, { close: () => opened.close(), onClosed: () => process.exit(0) });
  // Open the library now so the first search does not pay for it (info also reports a broken library).
  const info = await opened.info();
  port.post({ type: 'ready', ...(info.ok ? {} : { error: info.error }) });
}

void main();
