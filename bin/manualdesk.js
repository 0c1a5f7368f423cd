#!/usr/bin/env node
// Runs the TypeScript engine directly (no build step): tsx registers its loader, then the CLI runs.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/**
 * On Linux the command runs with MALLOC_ARENA_MAX=2. glibc gives threads that allocate at the same
 * time malloc arenas of their own (up to eight per core), and memory freed in one arena is never
 * reused by another: an ingest frees the embedding model's memory (ONNX Runtime's threads) and
 * LanceDB's threads then build the vector index in fresh memory, so the two add up in the peak.
 * Measured (e5 q8 session used, then released, then the vector index of the dev library built):
 * peak RSS 364 → 325 MB, RSS after 364 → 266 MB. glibc reads the setting only when a process
 * starts, so the command starts itself once more with it; a value the user set is kept.
 */
if (process.platform === 'linux' && process.env.MALLOC_ARENA_MAX === undefined) {
  const child = spawn(process.execPath, [...process.execArgv, fileURLToPath(import.meta.url), ...process.argv.slice(2)], {
    // The IPC channel tells the CLI when this process is gone (killed with SIGKILL): it stops too.
    stdio: ['inherit', 'inherit', 'inherit', 'ipc'],
    env: { ...process.env, MALLOC_ARENA_MAX: '2' },
  });
  // Ctrl-C reaches both processes (one process group); a signal sent to this one alone is passed on.
  for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(sig, () => child.kill(sig));
  child.on('exit', (code, signal) => {
    if (signal) {
      for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.removeAllListeners(sig);
      process.kill(process.pid, signal);
    } else process.exitCode = code ?? 1;
  });
} else {
  if (process.channel && process.env.MALLOC_ARENA_MAX === '2') {
    // Started by the branch above: dies as abruptly as the command did, as one process would have.
    process.channel.unref();
    process.on('disconnect', () => process.kill(process.pid, 'SIGKILL'));
  }
  const { register } = await import('tsx/esm/api');
  register();
  await import('../native/cli/index.ts');
}
