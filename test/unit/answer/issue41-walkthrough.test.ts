/**
 * Issue 41, found on the new-user walkthrough (two invented documentation sets added through the app,
 * questions in a technician's words): a how-to question whose best section is a numbered procedure
 * after an explanation gets the procedure, not only the explanation. Invented passages.
 */
import { describe, expect, it } from 'vitest';
import { extractParts } from '../../../native/answer/extract.js';
import { hit } from './helpers.js';

const texts = (question: string, passages: ReturnType<typeof hit>[]) => extractParts(question, passages).map((p) => p.text);

describe('issue 41 walkthrough: a how-to question gets the steps', () => {
  it('quotes the numbered steps under an explanation that carries more of the question\'s words (calibrate, then save)', () => {
    const procedure = hit(
      [
        '## Homing and storing the reference',
        'Homing and storing are two separate operations. A reference that is not stored is lost when the power is cycled.',
        '1. Run `zx home`. Each joint moves slowly to its limit switch and back.',
        '2. Run `zx store` to write the result to flash. The READY lamp blinks twice when the write has finished.',
        'Do not switch the arm off while the READY lamp blinks.',
      ].join('\n'),
      { file: 'zx7/homing.md', manual: 'ZX-7 Robot Arm', section: 'Homing > Homing and storing the reference' },
    );
    // Other sections of the same chapter carry the question's words as often as the steps do.
    const chapter = hit(
      '# Homing\nThe arm must find the reference position of each joint before it can move under program control. Home the arm once after installing it, and again after changing a joint motor or its encoder.',
      { file: 'zx7/homing.md', manual: 'ZX-7 Robot Arm', section: 'Homing' },
    );
    const fails = hit(
      '## When homing fails\nIf homing stops with `limit switch not found`, the joint turned a full range without seeing its switch.\nTo fix it:\n- Check the limit switch cable of that joint.\n- Move the joint off its mechanical stop by hand, then run `zx home` again.',
      { file: 'zx7/homing.md', manual: 'ZX-7 Robot Arm', section: 'Homing > When homing fails' },
    );
    const got = texts('how do I home the arm and keep the reference after the power is cycled', [procedure, chapter, fails]);
    const first = got.findIndex((t) => t.startsWith('1. Run `zx home`'));
    const second = got.findIndex((t) => t.startsWith('2. Run `zx store`'));
    expect(first, got.join('\n')).toBeGreaterThanOrEqual(0);
    expect(second).toBeGreaterThan(first);
    // The caution written right after the steps is about doing them: it comes with them.
    expect(got[second + 1]).toBe('Do not switch the arm off while the READY lamp blinks.');
  });

  it('leaves a how-to answer alone when its steps are already quoted', () => {
    const procedure = hit(['To replace the gripper pads:', '1. Remove the two M3 screws.', '2. Fit the new pads and tighten the screws to 1 N·m.'].join('\n'), {
      file: 'zx7/gripper.md',
      manual: 'ZX-7 Robot Arm',
      section: 'Gripper > Pads',
    });
    const got = texts('how do I replace the gripper pads', [procedure]);
    expect(got).toEqual(['To replace the gripper pads:', '1. Remove the two M3 screws.', '2. Fit the new pads and tighten the screws to 1 N·m.']);
  });
});
