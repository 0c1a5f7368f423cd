/**
 * What every command shares: an engine opened for the command and closed after it (withEngine), and
 * one way to print a result (emit): the value (JSON with --json) on stdout and exit 0, or the error on
 * stderr (and {"ok":false,"error"} on stdout with --json) and exit 1.
 */
import type { EngineErrorData, Result } from '../contract/errors.js';
import type { EngineConfig } from '../config.js';
import { createEngine, type Engine } from '../engine.js';
import { terminalText } from './terminal-text.js';

export interface CliOut {
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream & { isTTY?: boolean };
}

/** Opens an engine for one command; always closed after it. */
export async function withEngine<T>(config: EngineConfig, fn: (engine: Engine) => Promise<T>): Promise<T> {
  const engine = await createEngine(config);
  try {
    return await fn(engine);
  } finally {
    await engine.close();
  }
}

/** Prints a result; returns the exit code (0 ok, 1 failed). */
export function emit<T>(io: CliOut, res: Result<T>, json: boolean | undefined, human: (v: T) => string): number {
  if (res.ok) {
    io.stdout.write((json ? JSON.stringify(res.value) : terminalText(human(res.value))) + '\n');
    return 0;
  }
  reportError(io, res.error, json);
  return 1;
}

export function reportError(io: CliOut, error: EngineErrorData, json: boolean | undefined, extra: Record<string, unknown> = {}): void {
  io.stderr.write(`manualdesk: ${terminalText(error.message)} (${error.code})\n`);
  if (json) io.stdout.write(JSON.stringify({ ok: false, error, ...extra }) + '\n');
}
