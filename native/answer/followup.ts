/**
 * Follow-up questions: "and how do I reset it?" means nothing to a search engine on its own.
 * By rules: a question that leans on the conversation (a pronoun, an opening "and / what about",
 * or no subject of its own) gets the previous question's codes, or else its subject words,
 * appended. Pure; the LLM rewrite (when a model is installed) lives with the answer pipeline.
 */
import type { ConversationTurn } from '../contract/answer.js';
import { detectCodes } from '../fault-codes/detect.js';
import { contentTerms } from './evidence.js';

/** Turns kept from a conversation. */
export const MAX_TURNS = 4;

const LEANING = /^(?:and|also|then|so|but|what about|how about|ok(?:ay)?,?|now)\b/i;
const PRONOUN = /\b(?:it|its|it's|this|that|these|those|they|them|there|one|same)\b|它|这个|那个|这些|那些|该/giu;
/** "Is there…", "there are…": an existential "there" points at nothing. */
const EXISTENTIAL_THERE = /^there$/i;
const BE = /^(?:is|are|was|were|isn't|aren't|be)$/i;
const GENERIC_ONLY = 3;
/** Content terms a question names before a pronoun for the pronoun to point inside it ("the anticogging calibration … make it stay"). */
const OWN_ANTECEDENT_TERMS = 2;

/**
 * A pronoun that points back into the conversation: one before which the question has not yet named
 * a subject of its own ("and how do I reset it?", "how do I clear that alarm?"). After "My motor
 * buzzes while it's holding" or "run the anticogging calibration and make it stay", the pronoun points
 * at the question's own words, and the question stands alone.
 */
function pointsBack(q: string): boolean {
  for (const m of q.matchAll(PRONOUN)) {
    const before = q.slice(0, m.index);
    if (EXISTENTIAL_THERE.test(m[0])) {
      const prevWord = /(\S+)\s*$/.exec(before)?.[1] ?? '';
      const nextWord = /^\s*(\S+)/.exec(q.slice((m.index ?? 0) + m[0].length))?.[1] ?? '';
      if (BE.test(prevWord) || BE.test(nextWord.replace(/[^\p{L}']/gu, ''))) continue;
    }
    if (contentTerms(before).length < OWN_ANTECEDENT_TERMS) return true;
  }
  return false;
}

export interface Rewrite {
  standalone: string;
  rewritten: boolean;
}

/** The last turns of a conversation that matter for the next question. */
export function recentTurns(conversation: ConversationTurn[] | undefined): ConversationTurn[] {
  return (conversation ?? []).slice(-MAX_TURNS);
}

export function rewriteFollowUp(question: string, conversation: ConversationTurn[] | undefined): Rewrite {
  const turns = recentTurns(conversation);
  const q = question.trim();
  if (turns.length === 0) return { standalone: q, rewritten: false };
  const ownCodes = detectCodes(q);
  const ownTerms = contentTerms(q);
  const leans = LEANING.test(q) || pointsBack(q) || ownTerms.length <= 1;
  if (!leans || ownCodes.length > 0) return { standalone: q, rewritten: false };
  // The most recent earlier question that names a code, else the most recent one with a subject.
  for (let i = turns.length - 1; i >= 0; i--) {
    const prev = (turns[i] as ConversationTurn).question;
    const codes = detectCodes(prev).map((c) => c.raw);
    if (codes.length > 0) return { standalone: `${q} ${[...new Set(codes)].join(' ')}`, rewritten: true };
  }
  for (let i = turns.length - 1; i >= 0; i--) {
    const prev = (turns[i] as ConversationTurn).question;
    const prevTerms = contentTerms(prev).filter((t) => !ownTerms.includes(t));
    if (prevTerms.length > 0) {
      // Carry the earlier question's own words (not stems), minus those the follow-up repeats.
      const words = prev
        .split(/\s+/)
        .map((w) => w.replace(/^[^\p{L}\p{N}]+|[^\p{L}\p{N}]+$/gu, ''))
        .filter((w) => contentTerms(w).some((t) => prevTerms.includes(t)))
        .slice(0, GENERIC_ONLY * 3);
      return { standalone: `${q} ${words.join(' ')}`.trim(), rewritten: true };
    }
  }
  return { standalone: q, rewritten: false };
}
