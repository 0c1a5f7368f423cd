import { describe, expect, it } from 'vitest';
import { escapeRegExp } from '../../../native/text/regexp.js';

describe('escapeRegExp', () => {
  // Figures and codes as manuals write them: ranges, part numbers, fractions, versions, brackets.
  const literals = ['500-311', '3/4', 'M6x20', '1.5', 'F-0031 (a)', '[2]', 'a+b*c?', '$^|\\', '{3}'];
  it('matches each literal as itself, with and without the u flag', () => {
    for (const s of literals) {
      for (const flags of ['', 'u']) expect(new RegExp(`^${escapeRegExp(s)}$`, flags).test(s), `${s} /${flags}`).toBe(true);
    }
  });
  it('does not match other text through a syntax character', () => {
    expect(new RegExp(`^${escapeRegExp('1.5')}$`, 'u').test('125')).toBe(false);
    expect(new RegExp(`^${escapeRegExp('a+')}$`, 'u').test('aa')).toBe(false);
  });
});
