/**
 * `npm run cli -- …` and the `manualdesk` command start the same entry: the file that runs the CLI,
 * not the module that only defines it (a script pointing at cli/main.ts printed nothing and exited 0).
 */
import fs from 'node:fs';
import path from 'node:path';
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
});
