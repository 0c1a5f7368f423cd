/**
 * What becomes of a language model's draft: an answer shown with its citations, or a fall-back to
 * the extractive answer with the reason. The order: a draft stopped while streaming (a loop, the
 * prompt echoed) falls back; so does the model's refusal sentence, since the evidence gate has
 * already judged these passages on topic and the small models measured refused questions their
 * passages answer (scripts/answer-check-labels.jsonl), so the technician gets the quotes instead
 * of an unchecked "no answer"; a draft citing none of its passages falls back; the rest is judged
 * by the generated-answer check (generated-check.ts) against the passages it cites. Pure: the
 * answer pipeline and scripts/replay-answer-check.ts (labelled drafts, offline) both decide with it.
 */
import type { GeneratedDraft } from '../contract/answer.js';
import { checkCitations } from './citations.js';
import { checkGenerated } from './generated-check.js';
import { REFUSAL_SENTENCE } from './prompt.js';

export type DraftVerdict =
  | { kind: 'fell back'; reason: string; invalid: number[] }
  | { kind: 'accepted'; text: string; valid: number[]; invalid: number[] };

export function judgeDraft(d: Pick<GeneratedDraft, 'question' | 'text' | 'sources' | 'stopped'>): DraftVerdict {
  const text = d.text.trim();
  const checked = checkCitations(text, d.sources.length);
  const fallBack = (reason: string): DraftVerdict => ({ kind: 'fell back', reason, invalid: checked.invalid });
  if (d.stopped) return fallBack(d.stopped);
  // Only when the model cites nothing: a manual that contains the sentence (quoted by a model that
  // then answers from the sources) must not turn an answer into a refusal.
  if ((text.startsWith(REFUSAL_SENTENCE) || text === REFUSAL_SENTENCE.replace(/\.$/, '')) && checked.valid.length === 0) {
    return fallBack('The language model found no answer in passages the search judged on topic');
  }
  if (checked.valid.length === 0) return fallBack('The generated answer cited none of the passages');
  const cited = d.sources.filter((s) => checked.valid.includes(s.n));
  const verdict = checkGenerated({ text: checked.text, cited: cited.map((c) => c.text), question: d.question, sources: cited });
  if (!verdict.ok) return fallBack(verdict.reason);
  return { kind: 'accepted', text: checked.text, valid: checked.valid, invalid: checked.invalid };
}
