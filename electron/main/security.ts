/**
 * The Electron security checklist as pure functions, so the settings the app runs with are the ones
 * the unit tests check (no Electron needed to import this file).
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { BrowserWindowConstructorOptions } from 'electron';
import { CONTENT_SECURITY_POLICY } from '../../native/server/csp.js';

/** Where the UI comes from: the built renderer folder, or electron-vite's dev server in development. */
export interface AppLocation {
  /** Absolute path of out/renderer. */
  rendererDir: string;
  /** ELECTRON_RENDERER_URL when running `electron-vite dev`. */
  devServerUrl?: string;
}

export function windowOptions(preloadPath: string): BrowserWindowConstructorOptions {
  return {
    title: 'ManualDesk',
    width: 1280,
    height: 800,
    minWidth: 960,
    minHeight: 600,
    show: false,
    autoHideMenuBar: true,
    backgroundColor: '#f6f7f9',
    webPreferences: {
      preload: preloadPath,
      sandbox: true,
      contextIsolation: true,
      nodeIntegration: false,
      nodeIntegrationInWorker: false,
      nodeIntegrationInSubFrames: false,
      webSecurity: true,
      allowRunningInsecureContent: false,
      webviewTag: false,
      experimentalFeatures: false,
      navigateOnDragDrop: false,
      spellcheck: false,
    },
  };
}

/** The CSP header for app pages. Dev only: Vite's HMR needs an inline preamble and a websocket. */
export function contentSecurityPolicy(location: AppLocation): string {
  if (!location.devServerUrl) return CONTENT_SECURITY_POLICY;
  const dev = new URL(location.devServerUrl);
  return CONTENT_SECURITY_POLICY.replace("script-src 'self'", "script-src 'self' 'unsafe-inline'").replace(
    "connect-src 'self'",
    `connect-src 'self' ws://${dev.host}`,
  );
}

function fileInside(url: URL, dir: string): boolean {
  if (url.protocol !== 'file:') return false;
  let p: string;
  try {
    p = path.resolve(fileURLToPath(url));
  } catch {
    return false;
  }
  const root = path.resolve(dir);
  return p === root || p.startsWith(root + path.sep);
}

function sameOrigin(url: URL, base: string | undefined): boolean {
  if (!base) return false;
  const dev = new URL(base);
  return url.host === dev.host && (url.protocol === dev.protocol || url.protocol === 'ws:');
}

/** Requests the app's pages may make: their own files, the dev server, inline data, devtools. Nothing else. */
export function isAllowedUrl(raw: string, location: AppLocation): boolean {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return false;
  }
  if (url.protocol === 'data:' || url.protocol === 'devtools:') return true;
  return fileInside(url, location.rendererDir) || sameOrigin(url, location.devServerUrl);
}

/** Whether a frame at `raw` is the app's own page (and so may call the engine over IPC). */
export function isAppUrl(raw: string, location: AppLocation): boolean {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return false;
  }
  if (location.devServerUrl) {
    const dev = new URL(location.devServerUrl);
    if (url.origin === dev.origin) return true;
  }
  if (url.protocol !== 'file:') return false;
  try {
    return path.resolve(fileURLToPath(url)) === path.resolve(location.rendererDir, 'index.html');
  } catch {
    return false;
  }
}
