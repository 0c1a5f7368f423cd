/**
 * The Electron executable, if one is really on disk, else null. This mirrors what
 * `require('electron')` resolves (ELECTRON_OVERRIDE_DIST_PATH, else node_modules/electron/dist, or
 * ELECTRON_EXEC_PATH) without calling it: that module tries to download the binary when it is
 * missing, which must not happen on an offline machine. Used by `npm start` and the e2e tests.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** @returns {string | null} */
export function findElectron() {
  const pkg = path.join(ROOT, 'node_modules', 'electron');
  const pathTxt = path.join(pkg, 'path.txt');
  const executable = fs.existsSync(pathTxt)
    ? fs.readFileSync(pathTxt, 'utf8').trim()
    : process.platform === 'darwin'
      ? 'Electron.app/Contents/MacOS/Electron'
      : process.platform === 'win32'
        ? 'electron.exe'
        : 'electron';
  const candidates = [];
  if (process.env.ELECTRON_OVERRIDE_DIST_PATH) candidates.push(path.join(process.env.ELECTRON_OVERRIDE_DIST_PATH, executable));
  else candidates.push(path.join(pkg, 'dist', executable));
  if (process.env.ELECTRON_EXEC_PATH) candidates.push(process.env.ELECTRON_EXEC_PATH);
  return candidates.find((p) => isFile(p)) ?? null;
}

function isFile(p) {
  try {
    return fs.statSync(p).isFile();
  } catch {
    return false;
  }
}
