/**
 * The Chromium that the e2e specs and the network-cut flow drive, so that `npm ci && npm test` needs
 * nothing but npm:
 *
 *   1. CHROMIUM_PATH, when set;
 *   2. the system's Chromium (/usr/bin/chromium, or `chromium` / `chromium-browser` on PATH);
 *   3. the headless Chromium shipped inside the npm package @sparticuz/chromium (a devDependency):
 *      its brotli'd binary, fonts, SwiftShader and NSS libraries are unpacked once into
 *      node_modules/.cache/manualdesk-chromium/<version>/ (or $TMPDIR/manualdesk-chromium-<uid>/ when
 *      node_modules is read-only; written to a temp folder, then renamed, so
 *      two processes starting at once never see half a browser). The binary needs only glibc, NSS,
 *      NSPR and expat; the package's own NSS/NSPR/expat build goes on LD_LIBRARY_PATH, so a machine
 *      without libnss3 runs it too.
 *
 * MANUALDESK_CHROMIUM=npm skips 1 and 2 (how a fresh machine without a system browser is checked on
 * one that has it); MANUALDESK_CHROMIUM=system refuses the npm build.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import zlib from 'node:zlib';
import * as tar from 'tar';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const PACKAGE = path.join(ROOT, 'node_modules/@sparticuz/chromium');

export interface ChromiumLaunch {
  executablePath: string;
  /** Environment for the browser process (process.env plus what the npm build needs). */
  env: Record<string, string>;
  source: 'CHROMIUM_PATH' | 'system' | 'npm';
}

let found: ChromiumLaunch | undefined;

/** Finds (and on first use unpacks) the browser; throws a message that says what to do when there is none. */
export function findChromium(): ChromiumLaunch {
  found ??= locate();
  return found;
}

function baseEnv(): Record<string, string> {
  return Object.fromEntries(Object.entries(process.env).filter((e): e is [string, string] => e[1] !== undefined));
}

function locate(): ChromiumLaunch {
  const mode = process.env.MANUALDESK_CHROMIUM ?? '';
  if (mode !== 'npm') {
    const given = process.env.CHROMIUM_PATH;
    if (given) {
      if (!isExecutable(given)) throw new Error(`CHROMIUM_PATH is ${given}, which is not an executable file. Point it at a Chromium binary, or unset it to use the one npm installed.`);
      return { executablePath: given, env: baseEnv(), source: 'CHROMIUM_PATH' };
    }
    const system = systemChromium();
    if (system) return { executablePath: system, env: baseEnv(), source: 'system' };
    if (mode === 'system') throw new Error('MANUALDESK_CHROMIUM=system, but no Chromium is installed (looked for /usr/bin/chromium and chromium on PATH).');
  }
  return npmChromium();
}

function isExecutable(file: string): boolean {
  try {
    fs.accessSync(file, fs.constants.X_OK);
    return fs.statSync(file).isFile();
  } catch {
    return false;
  }
}

function systemChromium(): string | null {
  const dirs = ['/usr/bin', ...(process.env.PATH ?? '').split(path.delimiter).filter(Boolean)];
  for (const dir of dirs) {
    for (const name of ['chromium', 'chromium-browser']) {
      const file = path.join(dir, name);
      if (isExecutable(file)) return file;
    }
  }
  return null;
}

function npmChromium(): ChromiumLaunch {
  if (!fs.existsSync(path.join(PACKAGE, 'bin/chromium.br'))) {
    throw new Error('No Chromium for the browser tests: none on this system and node_modules/@sparticuz/chromium is missing. Run `npm ci`, or set CHROMIUM_PATH.');
  }
  const version = (JSON.parse(fs.readFileSync(path.join(PACKAGE, 'package.json'), 'utf8')) as { version: string }).version;
  const dir = cacheDir(version);
  if (!isExecutable(path.join(dir, 'chromium'))) unpack(dir);
  const env = baseEnv();
  env.LD_LIBRARY_PATH = [path.join(dir, 'lib'), dir, env.LD_LIBRARY_PATH].filter(Boolean).join(':');
  // A machine without fontconfig's own configuration gets the package's fonts.
  if (!fs.existsSync('/etc/fonts/fonts.conf') && !env.FONTCONFIG_FILE) env.FONTCONFIG_FILE = path.join(dir, 'fonts.conf');
  env.HOME ??= dir;
  return { executablePath: path.join(dir, 'chromium'), env, source: 'npm' };
}

/** node_modules/.cache/manualdesk-chromium/<version>, or a per-user temp folder when node_modules is read-only. */
function cacheDir(version: string): string {
  const inRepo = path.join(ROOT, 'node_modules/.cache/manualdesk-chromium', version);
  if (isExecutable(path.join(inRepo, 'chromium'))) return inRepo;
  try {
    fs.mkdirSync(path.dirname(inRepo), { recursive: true });
    fs.accessSync(path.dirname(inRepo), fs.constants.W_OK);
    return inRepo;
  } catch {
    return path.join(os.tmpdir(), `manualdesk-chromium-${process.getuid?.() ?? 'user'}`, version);
  }
}

/** Unpacks the package's brotli files into dir (via a temp folder renamed at the end). */
function unpack(dir: string): void {
  fs.mkdirSync(path.dirname(dir), { recursive: true });
  const work = `${dir}.partial-${process.pid}`;
  fs.rmSync(work, { recursive: true, force: true });
  fs.mkdirSync(work, { recursive: true });
  try {
    const bin = path.join(PACKAGE, 'bin');
    fs.writeFileSync(path.join(work, 'chromium'), zlib.brotliDecompressSync(fs.readFileSync(path.join(bin, 'chromium.br'))), { mode: 0o755 });
    for (const archive of ['fonts.tar.br', 'swiftshader.tar.br', 'al2023.tar.br']) {
      const file = path.join(bin, archive);
      if (!fs.existsSync(file)) continue;
      const tarFile = path.join(work, archive.replace(/\.br$/, ''));
      fs.writeFileSync(tarFile, zlib.brotliDecompressSync(fs.readFileSync(file)));
      tar.x({ file: tarFile, cwd: work, sync: true, preserveOwner: false });
      fs.rmSync(tarFile);
    }
    fs.writeFileSync(
      path.join(work, 'fonts.conf'),
      `<?xml version="1.0"?>\n<!DOCTYPE fontconfig SYSTEM "fonts.dtd">\n<fontconfig>\n  <dir>${path.join(dir, 'fonts')}</dir>\n  <cachedir>${path.join(dir, 'fonts-cache')}</cachedir>\n</fontconfig>\n`,
    );
    try {
      fs.renameSync(work, dir);
    } catch (err) {
      // Another process finished first: its copy is as good as ours.
      if (!isExecutable(path.join(dir, 'chromium'))) throw err;
    }
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
}

/** `<binary> --version`, for a log line that says which browser ran. */
export function chromiumVersion(launch: ChromiumLaunch): string {
  try {
    return execFileSync(launch.executablePath, ['--version'], { env: launch.env, encoding: 'utf8', timeout: 20_000 }).trim();
  } catch {
    return 'unknown version';
  }
}
