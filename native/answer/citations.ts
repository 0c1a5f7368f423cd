/**
 * Checks the citations in a generated answer: every `[n]` (also `[1, 3]`, `[2][4]`) must name one
 * of the sources given to the model. Numbers that point nowhere are removed from the text and
 * reported; the answer is usable only if at least one valid citation remains. Pure.
 */
export interface CitationCheck {
  /** The answer with invalid citation numbers removed (valid ones kept as written). */
  text: string;
  /** Source numbers the answer cites, ascending. */
  valid: number[];
  /** Numbers that pointed nowhere, ascending, each once. */
  invalid: number[];
}

const GROUP = /\[\s*(\d{1,4}(?:\s*[,;]\s*\d{1,4})*)\s*\]/g;

export function checkCitations(answer: string, sourceCount: number): CitationCheck {
  const valid = new Set<number>();
  const invalid = new Set<number>();
  const text = answer.replace(GROUP, (_m, list: string) => {
    const nums = list.split(/\s*[,;]\s*/).map(Number);
    const ok = nums.filter((n) => Number.isInteger(n) && n >= 1 && n <= sourceCount);
    for (const n of nums) (ok.includes(n) ? valid : invalid).add(n);
    return ok.length > 0 ? `[${ok.join(', ')}]` : '';
  });
  return {
    text: text.replace(/[ \t]+([.,;:!?])/g, '$1').replace(/[ \t]{2,}/g, ' ').trim(),
    valid: [...valid].sort((a, b) => a - b),
    invalid: [...invalid].sort((a, b) => a - b),
  };
}
