/** Paths and helpers shared by the e2e setup and fixtures (plain Node, no repo code imported). */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const RESULTS = path.join(ROOT, 'test-results');
export const SCREENS = path.join(RESULTS, 'screens');
export const PERF_FILE = path.join(RESULTS, 'perf.json');

export { findElectron } from '../../bin/find-electron.js';

export interface StartedServer {
  proc: ChildProcess;
  /** The server's origin (requests need the key: `authHeaders`, or the cookie `openUrl` sets). */
  url: string;
  /** The address `npm start` printed: url + /?token=<key>; opening it gives the browser the key's cookie. */
  openUrl: string;
  /** `Authorization: Bearer <key>` for requests made from the test itself. */
  authHeaders: Record<string, string>;
  /** ms from spawning `npm start` to the server listening. */
  listenMs: number;
  startedAt: number;
}

/** Runs bin/start.js in browser mode on MANUALDESK_HOME=home and waits for its URL. */
export function startBrowserMode(home: string, timeoutMs = 120_000): Promise<StartedServer> {
  const startedAt = performance.now();
  const proc = spawn(process.execPath, [path.join(ROOT, 'bin/start.js'), '--browser', '--port', '0'], {
    cwd: ROOT,
    // MANUALDESK_MODELS_ONLY: the app as a fresh clone shows it, whatever models this checkout has fetched.
    env: { ...process.env, MANUALDESK_HOME: home, MANUALDESK_LIBRARY: '', MANUALDESK_MODELS_ONLY: '1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let log = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      proc.kill();
      reject(new Error(`browser mode did not start within ${timeoutMs} ms:\n${log}`));
    }, timeoutMs);
    const onData = (chunk: Buffer) => {
      log += chunk.toString();
      const m = /browser mode at ((http:\/\/127\.0\.0\.1:\d+)\/\?token=([\w-]+))/i.exec(log);
      if (m) {
        clearTimeout(timer);
        proc.stdout?.off('data', onData);
        const authHeaders = { Authorization: `Bearer ${m[3]!}` };
        resolve({ proc, url: m[2]!, openUrl: m[1]!, authHeaders, listenMs: performance.now() - startedAt, startedAt });
      }
    };
    proc.stdout?.on('data', onData);
    proc.stderr?.on('data', (c: Buffer) => (log += c.toString()));
    proc.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`browser mode exited with ${code}:\n${log}`));
    });
  });
}

export function stop(proc: ChildProcess): Promise<void> {
  if (proc.exitCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    proc.once('exit', () => resolve());
    proc.kill('SIGTERM');
  });
}

/** Adds `entry` under `key` in test-results/perf.json. */
export function recordPerf(key: string, entry: unknown): void {
  fs.mkdirSync(RESULTS, { recursive: true });
  let all: Record<string, unknown> = {};
  try {
    all = JSON.parse(fs.readFileSync(PERF_FILE, 'utf8')) as Record<string, unknown>;
  } catch {
    // first entry
  }
  all[key] = entry;
  fs.writeFileSync(PERF_FILE, JSON.stringify(all, null, 2));
}

/** cpSync filter: a copied library must not carry the running server's write lock. */
export const notLock = (src: string): boolean => path.basename(src) !== 'library.lock';
