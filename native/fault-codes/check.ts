/**
 * The code check the answer gate uses, on the same rules as the lookup: which codes the question
 * names are defined (the lookup matched them, exactly or by the index's loose key: zero padding,
 * family word, prefix) and which are not, each as the technician typed it.
 */
import type { CodeLookupResponse } from '../contract/api.js';
import { detectCodes } from './detect.js';
import { familiesCompatible, looseKey, normalizeCode } from './normalize.js';

export interface CodeCheck {
  /** Detected keys that a matched record answers. */
  defined: string[];
  /** Detected keys no record answers. */
  undefined: string[];
  /** Each detected key as typed in the question (`E-199`, not `error:199`). */
  typed: Record<string, string>;
}

const WORD_KEY = /^(error|alarm|fault):/;

/** The family of a normalised key (keys normalise to themselves); one-word ids are symbols. */
function familyOfKey(key: string): string {
  return normalizeCode(key)?.family ?? 'symbol';
}

/**
 * How a record key `matched` answers the detected key `detected`: 'same' (exact, alias, or the
 * index's loose key: zero padding, prefix, a family-less number), 'other-word' (`err 43` answered
 * by `fault 43`, which the index allows only where a manual uses one family word), or null.
 */
export function answersCode(detected: string, matched: string): 'same' | 'other-word' | null {
  if (detected === matched) return 'same';
  const df = familyOfKey(detected);
  const mf = familyOfKey(matched);
  if (looseKey(detected, df) !== looseKey(matched, mf)) return null;
  if (familiesCompatible(df, mf)) return 'same';
  return WORD_KEY.test(detected) && WORD_KEY.test(matched) ? 'other-word' : null;
}

/** Splits the lookup's detected codes into defined and undefined ones, with their typed forms. */
export function checkCodes(question: string, codes: CodeLookupResponse | null): CodeCheck {
  const detected = [...new Set(codes?.detected ?? [])];
  const matches = codes?.matches ?? [];
  const defined = detected.filter((k) =>
    matches.some((m) => {
      const how = answersCode(k, m.key);
      // A record that another detected code names exactly ("alarm 9 and error 9") is that code's.
      return how === 'same' || (how === 'other-word' && !detected.some((d) => d !== k && answersCode(d, m.key) === 'same'));
    }),
  );
  const typed: Record<string, string> = { ...codes?.typed };
  for (const c of detectCodes(question, { includeWeak: true })) typed[c.key] ??= c.raw;
  return { defined, undefined: detected.filter((k) => !defined.includes(k)), typed };
}
