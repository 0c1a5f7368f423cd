/**
 * Once per run: a temp MANUALDESK_HOME with the sample library built (by `npm start` itself, which
 * also builds the UI when it is stale), so each test run measures a warm start; the desktop app is
 * built when an Electron binary exists.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { findElectron, PERF_FILE, ROOT, SCREENS, startBrowserMode, stop } from './env.js';

export default async function globalSetup(): Promise<() => void> {
  fs.mkdirSync(SCREENS, { recursive: true });
  fs.rmSync(PERF_FILE, { force: true });
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'md-e2e-'));
  const cold = await startBrowserMode(home, 300_000);
  await stop(cold.proc);
  process.env.MANUALDESK_E2E_HOME = home;
  if (findElectron()) {
    const res = spawnSync(process.execPath, [path.join(ROOT, 'node_modules/electron-vite/bin/electron-vite.js'), 'build'], { cwd: ROOT, stdio: 'inherit' });
    if (res.status !== 0) throw new Error('electron-vite build failed');
  }
  return () => fs.rmSync(home, { recursive: true, force: true });
}
