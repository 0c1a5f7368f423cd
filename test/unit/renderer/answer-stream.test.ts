/** A generated draft streams while the question is answered; the final response is what stays on screen. */
import { describe, expect, it } from 'vitest';
import type { AskResponse } from '../../../native/contract/index.js';
import { withStreamed, type AskState } from '../../../renderer/src/features/answer/AnswerPage.js';

const extractive: AskResponse = {
  question: 'how often do I change the hydraulic oil',
  standaloneQuery: 'how often do I change the hydraulic oil',
  answer: 'Change the hydraulic oil every 2000 operating hours. [1]',
  mode: 'extractive',
  refused: false,
  safety: [],
  citations: [],
  fallbackReason: 'The language model wrote no answer of its own, so the answer quotes the manuals instead.',
  ms: 12,
};

describe('streamed draft, then the final answer', () => {
  it('the draft grows while asking', () => {
    let s: AskState = { kind: 'asking', question: extractive.question, streamed: '' };
    for (const t of ['The answer is: ', '[1] ', 'The answer is: [2]']) s = withStreamed(s, t);
    expect(s).toEqual({ kind: 'asking', question: extractive.question, streamed: 'The answer is: [1] The answer is: [2]' });
  });
  it('a rejected draft gives way to the extractive answer, and a late chunk does not bring it back', () => {
    const draft = withStreamed({ kind: 'asking', question: extractive.question, streamed: '' }, 'The answer is: [1]');
    expect(draft.kind).toBe('asking');
    // The engine's response arrives: it replaces the asking state whole (AnswerPage's setState).
    const done: AskState = { kind: 'done', res: extractive };
    const s = withStreamed(done, ' The answer is: [2]');
    expect(s).toEqual({ kind: 'done', res: extractive });
    expect(JSON.stringify(s)).not.toContain('The answer is:');
  });
});
