/**
 * Desktop app lifecycle: one hardened window; the engine in a utility process (engine-host.ts) behind
 * IPC, so ingest, embedding and generation never block this process.
 * Everything with a decision in it lives in security.ts / ipc.ts / native/worker and is unit-tested
 * without Electron.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { app, BrowserWindow, ipcMain, session, type Session } from 'electron';
import { toErrorData } from '../../native/contract/index.js';
import { defaultLibraryDir } from '../../native/config.js';
import type { WorkerClient } from '../../native/worker/client.js';
import { localCaller, type EngineCaller } from '../../native/worker/streaming.js';
import { startEngineHost } from './engine-host.js';
import { registerIpc } from './ipc.js';
import { contentSecurityPolicy, isAllowedUrl, isAppUrl, windowOptions, type AppLocation } from './security.js';
import { unavailableEngine } from './unavailable-engine.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const location: AppLocation = {
  rendererDir: path.join(here, '../renderer'),
  devServerUrl: !app.isPackaged ? process.env.ELECTRON_RENDERER_URL : undefined,
};
const preloadPath = path.join(here, '../preload/index.cjs');
const workerPath = path.join(here, 'worker.js');

let mainWindow: BrowserWindow | null = null;
let engine: WorkerClient | null = null;
let engineClosed = false;

app.enableSandbox();

// Every web contents: no navigation away from the app, no new windows, no <webview>.
app.on('web-contents-created', (_event, contents) => {
  contents.on('will-navigate', (event) => event.preventDefault());
  contents.on('will-attach-webview', (event) => event.preventDefault());
  contents.setWindowOpenHandler(() => ({ action: 'deny' }));
});

function hardenSession(ses: Session): void {
  const csp = contentSecurityPolicy(location);
  ses.setPermissionRequestHandler((_contents, _permission, callback) => callback(false));
  ses.setPermissionCheckHandler(() => false);
  ses.webRequest.onBeforeRequest((details, callback) => callback({ cancel: !isAllowedUrl(details.url, location) }));
  ses.webRequest.onHeadersReceived((details, callback) =>
    callback({ responseHeaders: { ...details.responseHeaders, 'Content-Security-Policy': [csp] } }),
  );
}

function createWindow(): BrowserWindow {
  const win = new BrowserWindow(windowOptions(preloadPath));
  win.once('ready-to-show', () => win.show());
  win.on('closed', () => {
    mainWindow = null;
  });
  if (location.devServerUrl) void win.loadURL(location.devServerUrl);
  else void win.loadFile(path.join(location.rendererDir, 'index.html'));
  return win;
}

function startEngine(): EngineCaller {
  try {
    engine = startEngineHost(workerPath, defaultLibraryDir());
    void engine.ready.then((r) => {
      if (r.error) console.error('ManualDesk library:', r.error.message);
    });
    return engine.call;
  } catch (err) {
    console.error('ManualDesk engine failed to start:', err);
    return localCaller(unavailableEngine(toErrorData(err)));
  }
}

if (!app.requestSingleInstanceLock()) {
  // The library is opened by one process at a time; the running window takes over.
  app.quit();
} else {
  app.on('second-instance', () => {
    if (mainWindow) {
      if (mainWindow.isMinimized()) mainWindow.restore();
      mainWindow.focus();
    }
  });

  void app.whenReady().then(async () => {
    hardenSession(session.defaultSession);
    registerIpc(ipcMain, startEngine(), (url) => isAppUrl(url, location));
    mainWindow = createWindow();
  });

  app.on('window-all-closed', () => app.quit());

  app.on('before-quit', (event) => {
    if (!engine || engineClosed) return;
    event.preventDefault();
    const closing = engine;
    engine = null;
    void closing
      .close()
      .catch((err: unknown) => console.error('Closing the library failed:', err))
      .finally(() => {
        engineClosed = true;
        app.quit();
      });
  });
}
