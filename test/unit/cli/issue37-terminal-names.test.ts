/**
 * Issue 37 item 12: `ask` printed a raw newline from a file name in its Sources line. Every name,
 * title and section the answer prints is one line, control characters escaped (terminalName).
 */
import { describe, expect, it } from 'vitest';
import type { AskResponse } from '../../../native/contract/answer.js';
import { formatAnswer } from '../../../native/cli/format-answer.js';
import { terminalText } from '../../../native/cli/terminal-text.js';

const HOSTILE_FILE = 'evil\nFAKE SOURCE LINE\x1b[2J.md';
const HOSTILE_TITLE = 'Pump\r\x1b]0;owned\x07 manual';

function answer(over: Partial<AskResponse> = {}): AskResponse {
  return {
    question: 'pump pressure',
    standaloneQuery: 'pump pressure',
    answer: 'Set the pressure to 4 bar [1].',
    mode: 'extractive',
    refused: false,
    safety: [],
    citations: [
      { n: 1, file: HOSTILE_FILE, page: 3, section: 'Setup\nInjected', text: 'Set 4 bar.', manual: HOSTILE_TITLE, chunkId: 'c1', kind: 'passage' },
    ],
    ms: 5,
    ...over,
  };
}

/** What the CLI writes: the human form, then terminalText over the whole output (shared.ts emit). */
const printed = (a: AskResponse): string => terminalText(formatAnswer(a));

describe('ask output: names from the manuals stay on their line', () => {
  it('the Sources line escapes newlines, CR and escape sequences of file, manual and section', () => {
    const out = printed(answer());
    const lines = out.split('\n');
    const at = lines.indexOf('Sources:');
    expect(at).toBeGreaterThan(0);
    expect(lines[at + 1]).toBe('  [1] Pump\\r\\x1b]0;owned\\x07 manual — Setup\\nInjected, p.3 (evil\\nFAKE SOURCE LINE\\x1b[2J.md)');
    expect(lines.some((l) => l.startsWith('FAKE SOURCE LINE'))).toBe(false);
    for (const ch of ['\r', '\x1b', '\x07']) expect(out).not.toContain(ch);
  });

  it('the closest sections of a refusal are escaped the same way', () => {
    const out = printed(
      answer({
        refused: true,
        citations: [],
        refusal: { reason: 'Nothing found.', searched: 'pump pressure', closest: [{ file: HOSTILE_FILE, manual: HOSTILE_TITLE, section: '', page: null }] },
      }),
    );
    expect(out).toContain('(evil\\nFAKE SOURCE LINE\\x1b[2J.md)');
    expect(out.split('\n').some((l) => l.startsWith('FAKE SOURCE LINE'))).toBe(false);
  });
});
