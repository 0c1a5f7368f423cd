import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { RANKING_STEPS, stepOn } from '../../../native/search/settings.js';

const here = path.dirname(new URL(import.meta.url).pathname);
const searchDir = path.join(here, '../../../native/search');

describe('RANKING_STEPS: the one list of steps that re-order passages', () => {
  it('names each step once, with a reason', () => {
    const names = RANKING_STEPS.map((s) => s.name);
    expect(new Set(names).size).toBe(names.length);
    for (const s of RANKING_STEPS) expect(s.reason.length).toBeGreaterThan(20);
  });

  it('every listed step can be switched off where it runs (no listed step that nothing reads)', () => {
    for (const s of RANKING_STEPS) {
      const src = fs.readFileSync(path.join(searchDir, s.where), 'utf8');
      expect(src, `${s.name} in ${s.where}`).toContain(`on('${s.name}')`);
    }
  });

  it('stepOn: every step runs unless switched off', () => {
    expect(stepOn(undefined, 'scope')).toBe(true);
    expect(stepOn({}, 'scope')).toBe(true);
    expect(stepOn({ off: ['scope'] }, 'scope')).toBe(false);
    expect(stepOn({ off: ['scope'] }, 'channel-tops')).toBe(true);
  });
});
