/**
 * Issue 41 item 4 (times that tell the truth), found on the new-user walkthrough: the first answer
 * showed "157 ms" where the technician waited 1.07 s from Enter to the answer on screen (the engine's
 * own time leaves out the way there and back and the search still running before it).
 */
import { describe, expect, it } from 'vitest';
import { waitedLine } from '../../../renderer/src/features/answer/AnswerPage.js';

describe('the time shown with an answer', () => {
  it('is the time waited in the window when that is longer than the engine says', () => {
    expect(waitedLine({ ms: 157 }, 1073.4)).toBe('1.1 s');
    expect(waitedLine({ ms: 27_140, modelMs: 26_900 }, 27_600)).toBe('27.6 s, of which the language model 26.9 s');
  });

  it("is the engine's time when nothing was measured in the window (a restored answer)", () => {
    expect(waitedLine({ ms: 172.53 })).toBe('173 ms');
    expect(waitedLine({ ms: 900 }, 850)).toBe('900 ms');
  });
});
