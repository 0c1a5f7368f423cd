/**
 * `npm run cli -- …` and the `manualdesk` command start the same entry: the file that runs the CLI,
 * not the module that only defines it (a script pointing at cli/main.ts printed nothing and exited 0).
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = path.resolve(__dirname, '../../..');

describe('CLI entry points', () => {
  it('npm run cli runs the file bin/manualdesk.js imports', () => {
    const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
    const bin = fs.readFileSync(path.join(root, 'bin/manualdesk.js'), 'utf8');
    const imported = /import\('\.\.\/(native\/cli\/[^']+)'\)/.exec(bin)?.[1];
    expect(imported).toBeDefined();
    expect(pkg.scripts.cli).toBe(`tsx ${imported}`);
  });

  // glibc keeps memory freed in one thread's malloc arena from the others; an ingest's peak added
  // the model's freed memory to the vector index build's (see bin/manualdesk.js).
  const arenaOf = (env: NodeJS.ProcessEnv, args: string[]) => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'md-entry-'));
    const probe = path.join(dir, 'probe.mjs');
    fs.writeFileSync(probe, 'process.stderr.write(`ARENA=${process.env.MALLOC_ARENA_MAX}\\n`);\n');
    const run = spawnSync(process.execPath, [path.join(root, 'bin/manualdesk.js'), ...args], {
      env: { ...env, NODE_OPTIONS: `--import ${pathToFileURL(probe).href}` },
      encoding: 'utf8',
      timeout: 60_000,
    });
    fs.rmSync(dir, { recursive: true, force: true });
    return { status: run.status, arenas: [...run.stderr.matchAll(/ARENA=(\S+)/g)].map((m) => m[1]) };
  };

  it.runIf(process.platform === 'linux')('the manualdesk command runs the CLI with MALLOC_ARENA_MAX=2, and its exit code', () => {
    const { MALLOC_ARENA_MAX: _unset, ...env } = process.env;
    const help = arenaOf(env, ['--help']);
    expect(help.status).toBe(0);
    expect(help.arenas.at(-1)).toBe('2');
    // A usage error still exits 2 through the relaunch.
    expect(arenaOf(env, ['--no-such-option']).status).toBe(2);
  });

  it('a MALLOC_ARENA_MAX the user set is kept', () => {
    const run = arenaOf({ ...process.env, MALLOC_ARENA_MAX: '4' }, ['--help']);
    expect(run.status).toBe(0);
    expect(run.arenas).toEqual(['4']);
  });
});
