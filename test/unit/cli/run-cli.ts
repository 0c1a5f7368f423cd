/** Runs the CLI in-process with captured stdout/stderr and the given stdin lines (shared by the CLI tests). */
import { PassThrough, Readable } from 'node:stream';
import { runCli } from '../../../native/cli/main.js';

export async function runCliCaptured(argv: string[], stdinLines: string[] = []): Promise<{ code: number; out: string; err: string }> {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let out = '';
  let err = '';
  stdout.on('data', (d: Buffer) => (out += d.toString()));
  stderr.on('data', (d: Buffer) => (err += d.toString()));
  const code = await runCli(argv, { stdout, stderr, stdin: Readable.from(stdinLines.map((l) => `${l}\n`)) });
  return { code, out, err };
}
