/**
 * What the reliability suites share: temporary folders removed after the file, Result unwrapping, the
 * "clear error" rule (a known code and a message that says what to do next) and writing fixture files.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, expect } from 'vitest';
import { ERROR_CODES, type ErrorCode, type Result } from '../../native/contract/errors.js';

/** Words by which a message tells the technician what to do next. */
export const NEXT_STEP =
  /\b(copy|save|fix|split|convert|check|open|export|close|free|choose|install|ask|remove|try|add|extract|update|restore|re-index|put|type|keep|use|delete|raise|wait)\b/i;

/** A maker of temporary folders named md-<prefix>-…, all removed after the test file. */
export function tempDirs(prefix: string): (name: string) => string {
  const made: string[] = [];
  afterAll(() => {
    for (const d of made) fs.rmSync(d, { recursive: true, force: true });
  });
  return (name) => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), `md-${prefix}-${name}-`));
    made.push(dir);
    return dir;
  };
}

export function value<T>(res: Result<T>): T {
  if (!res.ok) expect.fail(`expected ok, got ${res.error.code}: ${res.error.message}`);
  return res.value;
}

export function failure<T>(res: Result<T>): { code: ErrorCode; message: string } {
  if (res.ok) expect.fail(`expected an error, got ok: ${JSON.stringify(res.value).slice(0, 300)}`);
  return res.error;
}

/** Asserts a clear error: a known code (the one given, else not INTERNAL) and a message with a next step. */
export function expectClear(err: { code: string; message: string }, code?: ErrorCode | ErrorCode[]): void {
  expect(ERROR_CODES).toContain(err.code);
  if (code) expect(Array.isArray(code) ? code : [code]).toContain(err.code);
  else expect(err.code).not.toBe('INTERNAL');
  expect(err.message.length).toBeGreaterThan(20);
  expect(err.message).toMatch(NEXT_STEP);
  expect(err.message).not.toMatch(/^Unexpected error/);
}

/** Writes a fixture file (folders made as needed); returns its path. */
export function write(dir: string, rel: string, data: string | Buffer): string {
  const p = path.join(dir, ...rel.split('/'));
  fs.mkdirSync(path.dirname(p), { recursive: true });
  fs.writeFileSync(p, data);
  return p;
}
