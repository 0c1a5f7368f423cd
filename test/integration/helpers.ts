/** Shared helpers for the engine integration tests: temp folders, a fixture corpus copy, hit checks. */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'vitest';
import type { Result } from '../../native/contract/errors.js';

export const REPO_ROOT = fileURLToPath(new URL('../..', import.meta.url));
export const FIXTURE_MANUALS = path.join(REPO_ROOT, 'test', 'fixtures', 'manuals');
export const BIN = path.join(REPO_ROOT, 'bin', 'manualdesk.js');

/** Manual files in the fixture folder (sidecars excluded), as the library names them. */
export const FIXTURE_FILES = [
  'alarms/hpb-200-alarms.csv',
  'codes/inverter-fault-codes.properties',
  'codes/inverter-fault-codes_zh.properties',
  'conveyor/belt-conveyor-errors.yaml',
  'help/coolant-pump.html',
  'lift/sl3-scissor-lift.pdf',
  'notes/shift-notes.txt',
  'press-brake/hpb-200-rev-a.md',
  'press-brake/hpb-200-rev-b.md',
  'servo/sd40-servo-drive.adoc',
  'zh/hpb-200-zh.md',
];

const made: string[] = [];

/** A fresh folder under the OS temp dir, removed by {@link cleanupTemp}. */
export function tempDir(prefix: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `md-it-${prefix}-`));
  made.push(dir);
  return dir;
}

export function cleanupTemp(): void {
  for (const d of made.splice(0)) fs.rmSync(d, { recursive: true, force: true });
}

/** A writable copy of the fixture manuals (tests change and delete files in it). */
export function copyFixtures(prefix = 'corpus'): string {
  const dir = path.join(tempDir(prefix), 'manuals');
  fs.cpSync(FIXTURE_MANUALS, dir, { recursive: true });
  return dir;
}

/** Unwraps a Result, failing the test with the error when it is not ok. */
export function value<T>(res: Result<T>): T {
  if (!res.ok) expect.fail(`expected ok, got ${res.error.code}: ${res.error.message}`);
  return res.value;
}

/** Unwraps a failed Result. */
export function failure<T>(res: Result<T>): { code: string; message: string } {
  if (res.ok) expect.fail(`expected an error, got ok: ${JSON.stringify(res.value).slice(0, 300)}`);
  return res.error;
}

/** Writes a file and moves its mtime forward so the incremental check cannot miss the change. */
export function rewrite(file: string, text: string): void {
  fs.writeFileSync(file, text);
  const t = new Date(Date.now() + 5_000);
  fs.utimesSync(file, t, t);
}
