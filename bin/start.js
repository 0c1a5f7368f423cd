#!/usr/bin/env node
/**
 * `npm start`: the desktop app when an Electron binary is on this machine, otherwise browser mode (the
 * same UI served on 127.0.0.1 by native/server/http.ts). Either way the library is the one given with
 * --library, else $MANUALDESK_LIBRARY, else a sample library built once from samples/library.
 *
 *   npm start                         desktop app, or browser mode without Electron
 *   npm start -- --library <dir>      open another library
 *   npm start -- --browser --open     browser mode even with Electron; open the default browser
 *   npm start -- --port 8080          browser mode port (default 4317, or a free one if taken)
 *
 * Browser mode prints its address with a random key (…/?token=<key>): only whoever can read that
 * line can use it (native/server/auth.ts). $MANUALDESK_TOKEN sets the key instead (tests, scripts).
 */
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { findElectron } from './find-electron.js';
import { ensureSampleLibrary } from './sample-library.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const OUT = path.join(ROOT, 'out');
const SAMPLES = path.join(ROOT, 'samples', 'library');
const DEFAULT_PORT = 4317;

const USAGE = `Usage: npm start -- [--library <dir>] [--browser] [--open] [--port <n>]

  --library <dir>  library folder to open (default: $MANUALDESK_LIBRARY, else the sample library)
  --browser        browser mode even when Electron is available
  --open           open the default browser (browser mode)
  --port <n>       browser mode port (default ${DEFAULT_PORT}; 0 = any free port)`;

function parseCli() {
  try {
    const { values } = parseArgs({
      options: {
        library: { type: 'string' },
        browser: { type: 'boolean', default: false },
        open: { type: 'boolean', default: false },
        port: { type: 'string' },
        help: { type: 'boolean', short: 'h', default: false },
      },
    });
    if (values.help) {
      console.log(USAGE);
      process.exit(0);
    }
    const port = values.port === undefined ? undefined : Number(values.port);
    if (port !== undefined && !(Number.isInteger(port) && port >= 0 && port < 65536)) {
      throw new Error(`--port must be a number from 0 to 65535, not "${values.port}"`);
    }
    return { ...values, port };
  } catch (err) {
    console.error(`${err instanceof Error ? err.message : String(err)}\n\n${USAGE}`);
    process.exit(2);
  }
}

function isFile(p) {
  try {
    return fs.statSync(p).isFile();
  } catch {
    return false;
  }
}

/** Newest modification time of the files under `dirs` (0 when none). */
function newestMtime(dirs) {
  let newest = 0;
  const walk = (p) => {
    let stat;
    try {
      stat = fs.statSync(p);
    } catch {
      return;
    }
    if (stat.isDirectory()) {
      for (const name of fs.readdirSync(p)) if (name !== 'node_modules') walk(path.join(p, name));
    } else {
      newest = Math.max(newest, stat.mtimeMs);
    }
  };
  for (const d of dirs) walk(d);
  return newest;
}

/** True when an output is missing or older than its sources. */
function isStale(outputs, sources) {
  const times = outputs.map((f) => (isFile(f) ? fs.statSync(f).mtimeMs : 0));
  const oldest = Math.min(...times);
  return oldest === 0 || oldest < newestMtime(sources);
}

/** The whole app (main, preload, renderer) with electron-vite. */
function buildApp() {
  console.log('Building the app…');
  const cli = path.join(ROOT, 'node_modules', 'electron-vite', 'bin', 'electron-vite.js');
  const res = spawnSync(process.execPath, [cli, 'build'], { cwd: ROOT, stdio: ['ignore', 'ignore', 'inherit'] });
  if (res.status !== 0) {
    console.error('The build failed (see the errors above). Run "npx electron-vite build" to reproduce it.');
    process.exit(1);
  }
}

/** Only the UI, with the renderer section of electron.vite.config.ts (browser mode needs no main/preload). */
async function buildRenderer() {
  console.log('Building the UI…');
  const { loadConfigFromFile } = await import('electron-vite');
  const { build } = await import('vite');
  const { config } = await loadConfigFromFile({ command: 'build', mode: 'production' }, undefined, ROOT, 'silent');
  const renderer = typeof config.renderer === 'function' ? await config.renderer({ command: 'build', mode: 'production' }) : config.renderer;
  await build({ ...renderer, configFile: false, logLevel: 'warn', mode: 'production' });
}

/**
 * The server module first (small), the engine after (it loads parsers, LanceDB and model runtimes:
 * most of the start-up time), so browser mode can serve the page while the engine loads.
 */
async function loadModules() {
  const { register } = await import('tsx/esm/api');
  register();
  const load = (rel) => import(pathToFileURL(path.join(ROOT, rel)).href);
  const [{ startServer }, { REMOTE_METHODS }] = await Promise.all([load('native/server/http.ts'), load('native/contract/methods.ts')]);
  let engineModule = null;
  const createEngine = async (config) => {
    engineModule ??= load('native/engine.ts');
    return (await engineModule).createEngine(config);
  };
  return { startServer, REMOTE_METHODS, createEngine };
}

/** An EngineApi whose calls wait for the real engine (still loading while the page is served). */
function lazyEngine(ready, methods) {
  const lazy = { close: () => ready.then((e) => e.close()) };
  for (const m of methods) lazy[m] = (arg, hooks) => ready.then((e) => e[m](arg, hooks));
  return lazy;
}

function dataHome() {
  return process.env.MANUALDESK_HOME ?? path.join(os.homedir(), '.manualdesk');
}

async function chooseLibrary(args, createEngine) {
  if (args.library) return path.resolve(args.library);
  if (process.env.MANUALDESK_LIBRARY) return path.resolve(process.env.MANUALDESK_LIBRARY);
  const dir = path.join(dataHome(), 'sample-library');
  await ensureSampleLibrary(createEngine, dir, SAMPLES);
  return dir;
}

function openBrowser(url) {
  const [cmd, args] =
    process.platform === 'darwin'
      ? ['open', [url]]
      : process.platform === 'win32'
        ? ['cmd', ['/c', 'start', '""', url]]
        : ['xdg-open', [url]];
  const child = spawn(cmd, args, { detached: true, stdio: 'ignore' });
  child.on('error', () => console.log(`Could not open a browser; open ${url} yourself.`));
  child.unref();
}

async function listen(startServer, engine, port) {
  const staticDir = path.join(OUT, 'renderer');
  const token = process.env.MANUALDESK_TOKEN || undefined;
  try {
    return await startServer(engine, { port, staticDir, token });
  } catch (err) {
    if (err && err.code === 'EADDRINUSE' && port !== 0) {
      console.log(`Port ${port} is in use; using a free port instead.`);
      return startServer(engine, { port: 0, staticDir, token });
    }
    throw err;
  }
}

async function runBrowserMode(args, modules, libraryDir, noElectron) {
  // A library created by "add manuals" gets the installed embedding model (hybrid search).
  const ready = modules.createEngine({ libraryDir, newLibraryEmbedder: 'installed' });
  ready.catch((err) => {
    console.error(`ManualDesk could not open the engine: ${err instanceof Error ? err.message : String(err)}`);
    process.exit(1);
  });
  const engine = lazyEngine(ready, modules.REMOTE_METHODS);
  const server = await listen(modules.startServer, engine, args.port ?? DEFAULT_PORT);
  console.log(
    noElectron
      ? `No Electron binary on this machine; opening browser mode at ${server.openUrl}`
      : `Browser mode at ${server.openUrl}`,
  );
  console.log('Open that address (it carries this session\'s key); other users of this computer cannot. Press Ctrl+C to stop.');
  if (args.open) openBrowser(server.openUrl);
  void engine.info().then((info) => {
    console.log(`Library: ${libraryDir}${info.ok ? ` (${info.value.files} files, ${info.value.chunks} passages)` : ` — ${info.error.message}`}`);
    // Warm the search path (index files, analyzers) while the browser loads the page, so the first
    // keystroke is as fast as the rest.
    if (info.ok) void Promise.all([engine.search({ query: 'warm up' }), engine.lookupCode({ text: 'E-1' })]).catch(() => {});
  });

  let stopping = false;
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    await server.close().catch(() => {});
    await engine.close().catch(() => {});
    process.exit(0);
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}

function runElectron(electron, libraryDir) {
  const child = spawn(electron, [ROOT], {
    cwd: ROOT,
    stdio: 'inherit',
    env: { ...process.env, MANUALDESK_LIBRARY: libraryDir },
  });
  for (const sig of ['SIGINT', 'SIGTERM']) process.on(sig, () => child.kill(sig));
  child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
}

async function main() {
  const args = parseCli();
  const electron = args.browser ? null : findElectron();

  if (electron) {
    const outputs = ['main/index.js', 'preload/index.cjs', 'renderer/index.html'].map((p) => path.join(OUT, p));
    const sources = ['electron', 'renderer', 'native', 'electron.vite.config.ts'].map((p) => path.join(ROOT, p));
    if (isStale(outputs, sources)) buildApp();
  } else {
    const sources = ['renderer', 'native/contract', 'native/server/csp.ts', 'electron.vite.config.ts'].map((p) => path.join(ROOT, p));
    if (isStale([path.join(OUT, 'renderer', 'index.html')], sources)) await buildRenderer();
  }

  const modules = await loadModules();
  const libraryDir = await chooseLibrary(args, modules.createEngine);

  if (electron) runElectron(electron, libraryDir);
  else await runBrowserMode(args, modules, libraryDir, !args.browser);
}

main().catch((err) => {
  console.error(`ManualDesk could not start: ${err instanceof Error ? err.message : String(err)}`);
  process.exit(1);
});
