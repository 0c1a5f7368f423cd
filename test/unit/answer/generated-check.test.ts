import { describe, expect, it } from 'vitest';
import { checkGenerated, numbersOf, repetition } from '../../../native/answer/generated-check.js';

const OIL = 'Change the hydraulic oil every 2000 operating hours. Use ISO VG 46 oil.';
const FILTER = '## Replacing the pump filter\nWARNING: Switch off the main isolator and apply lockout before opening the tank.\n1. Remove the four cover screws.\n2. Pull the filter element straight up.\n3. Fit the new element.';
const VALVE = 'Relief valve: the relief valve opens at 210 bar. To raise the pressure, turn the adjusting screw clockwise.';
const ZH = '更换液压油：每运行 2000 小时更换一次液压油，使用 ISO VG 46 液压油。';

const ok = (text: string, cited: string[], question?: string) => checkGenerated({ text, cited, question });

describe('checkGenerated: degenerate output is rejected', () => {
  it('citation marks with boilerplate only ("The answer is: [1] The answer is: [2]")', () => {
    const r = ok('The answer is: [1] The answer is: [2] The answer is: [3]', [OIL, VALVE, FILTER]);
    expect(r).toMatchObject({ ok: false, reason: expect.stringMatching(/no answer of its own/) });
  });
  it('citation-only and near-empty lines', () => {
    expect(ok('[1]\n[2]\n[1, 2]', [OIL, VALVE]).ok).toBe(false);
    expect(ok('Answer: [1].', [OIL]).ok).toBe(false);
    expect(ok('According to the sources: see source 1 [1].', [OIL]).ok).toBe(false);
  });
  it('a loop: the same sentence over and over', () => {
    const r = ok('Change the hydraulic oil every 2000 operating hours [1].\n'.repeat(5), [OIL]);
    expect(r).toMatchObject({ ok: false, reason: expect.stringMatching(/repeated itself/) });
    const run = ok(`${'turn the adjusting screw clockwise and '.repeat(8)}[1]`, [VALVE]);
    expect(run).toMatchObject({ ok: false, reason: expect.stringMatching(/repeated itself/) });
  });
  it('a number or code that no cited passage contains', () => {
    const r = ok('The relief valve opens at 250 bar [1].', [VALVE]);
    expect(r).toMatchObject({ ok: false, reason: expect.stringMatching(/"250", which no cited passage contains/) });
    expect(ok('Fault F0031 means the relief valve opens [1].', [VALVE]).ok).toBe(false);
    // 2000 is in the passage, 200 is not (not a part of a longer number).
    expect(ok('Change the hydraulic oil every 200 operating hours [1].', [OIL]).ok).toBe(false);
  });
  it('words the cited passages do not hold (outside knowledge)', () => {
    const r = ok('Replace the coolant pump bearings and grease the spindle cartridge annually with lithium grease [1].', [OIL]);
    expect(r).toMatchObject({ ok: false, reason: expect.stringMatching(/^Only \d+% of the words .* appear in the passages it cites/) });
  });
});

describe('checkGenerated: faithful answers pass', () => {
  it('a paraphrase in the manual\'s words, cited', () => {
    expect(ok('Change the hydraulic oil every 2000 operating hours and use ISO VG 46 oil [1].', [OIL], 'how often do I change the hydraulic oil')).toMatchObject({ ok: true });
  });
  it('steps, numbered by the model, with the warning first', () => {
    const text = 'WARNING: Switch off the main isolator and apply lockout before opening the tank [1].\n1. Remove the four cover screws.\n2. Pull the filter element straight up.\n3. Fit the new element [1].';
    expect(ok(text, [FILTER], 'how do I replace the pump filter').ok).toBe(true);
  });
  it('numbers written as the manual writes them, spacing aside ("210bar")', () => {
    expect(ok('The relief valve opens at 210bar; turn the adjusting screw clockwise to raise the pressure [1].', [VALVE]).ok).toBe(true);
  });
  it('figures with a dash or a slash, as part numbers and fractions are written ("500-311", "3/4")', () => {
    const PART = 'Spare parts: coolant filter element 500-311; fit it with a 3/4 in. wrench.';
    expect(ok('Fit the coolant filter element 500-311 with a 3/4 in. wrench [1].', [PART]).ok).toBe(true);
    expect(ok('Fit the coolant filter element 500-312 with a 3/4 in. wrench [1].', [PART]).ok).toBe(false);
  });
  it('words and numbers of the question may be repeated', () => {
    expect(ok('On the HPB-200, the relief valve opens at 210 bar [1].', [VALVE], 'relief valve pressure HPB-200').ok).toBe(true);
  });
  it('Chinese answers are judged on their words and numbers too', () => {
    expect(ok('每运行 2000 小时更换一次液压油，使用 ISO VG 46 液压油 [1]。', [ZH]).ok).toBe(true);
    expect(ok('每运行 3000 小时更换一次液压油 [1]。', [ZH]).ok).toBe(false);
  });
});

describe('helpers', () => {
  it('numbersOf finds figures and codes, not words around Chinese text', () => {
    expect(numbersOf('Set 3.5 mm, code F0031, M6x20 bolts, 2,000 h')).toEqual(['3.5', 'f0031', 'm6x20', '2000']);
    expect(numbersOf('压力为210巴')).toEqual(['210']);
  });
  it('repetition is 0 for ordinary prose and high for a loop', () => {
    expect(repetition(`${OIL} ${VALVE}`)).toBe(0);
    expect(repetition('open the valve and close the valve '.repeat(6))).toBeGreaterThan(0.5);
  });
});

describe('checkGenerated: each cited sentence is judged against the passages its own marks name', () => {
  const sources = [
    { n: 1, text: OIL },
    { n: 2, text: VALVE },
  ];
  const judge = (text: string, question?: string) => checkGenerated({ text, cited: sources.map((s) => s.text), question, sources });

  it('accepts sentences that each come from the passage they cite', () => {
    expect(judge('Change the hydraulic oil every 2000 operating hours [1]. The relief valve opens at 210 bar [2].')).toMatchObject({ ok: true });
  });

  it('rejects the question written back with a mark, although the next sentence answers', () => {
    const q = 'the pump runs hot and noisy after a long shift, what oil should it get';
    const r = judge('The pump runs hot and noisy after a long shift [1]. Use ISO VG 46 hydraulic oil [1].', q);
    expect(r).toMatchObject({ ok: false, reason: expect.stringMatching(/not in the passage it cites/) });
    // Without the per-sentence check (no numbered sources), the answer as a whole passes: the question's words are free.
    expect(checkGenerated({ text: 'The pump runs hot and noisy after a long shift [1]. Use ISO VG 46 hydraulic oil [1].', cited: [OIL], question: q }).ok).toBe(true);
  });

  it("rejects one passage's words under another passage's number", () => {
    const r = judge('To raise the pressure, turn the adjusting screw clockwise [1]. Change the oil every 2000 operating hours [1].');
    expect(r).toMatchObject({ ok: false, reason: expect.stringMatching(/not in the passage it cites/) });
  });

  it('rejects a sentence cut off mid-phrase before its mark', () => {
    for (const text of [
      'Change the hydraulic oil every 2000 operating hours and use a [1].',
      'The relief valve opens at 210 bar. To raise the pressure, turn the [2].',
      'Change the hydraulic oil (every 2000 operating [1].',
    ]) {
      expect(judge(text), text).toMatchObject({ ok: false, reason: expect.stringMatching(/cut a sentence off/) });
    }
    // A sentence that ends on such a word after its full stop is complete.
    expect(judge('Use ISO VG 46 oil. [1]')).toMatchObject({ ok: true });
  });

  it('judges a Chinese answer sentence by sentence too', () => {
    const zh = [{ n: 1, text: ZH }];
    expect(checkGenerated({ text: '每运行 2000 小时更换一次液压油，使用 ISO VG 46 液压油 [1]。', cited: [ZH], sources: zh }).ok).toBe(true);
  });
});
