/**
 * Query expansion with the maintenance thesaurus (./thesaurus-data.ts). Pure: the analyzer is passed in,
 * so this module has no dependency on the tokenizer's native parts.
 *
 * Matching: an English term matches when its analyzed tokens occur contiguously in the analyzed query
 * (so "overheating" matches the entry written "overheat"); a Chinese term of two or more characters
 * matches as a substring of the normalised query; a one-character Chinese term must be a whole token.
 * A matching entry contributes all its terms (and its `also` terms), each as a group of analyzed tokens.
 */
import type { ThesaurusEntry } from './thesaurus-data.js';

export interface CompiledThesaurus {
  entries: CompiledEntry[];
}

interface CompiledEntry {
  /** Token sequences (English triggers). */
  tokenTriggers: string[][];
  /** Substrings (Chinese triggers of 2+ characters), normalised. */
  textTriggers: string[];
  /** Single-token Chinese triggers. */
  tokenEquals: string[];
  /** Token groups added when the entry matches (one group per term; a group's tokens belong together). */
  expansion: string[][];
}

const CJK = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/u;

export function normalizeForMatch(text: string): string {
  return text.normalize('NFKC').toLowerCase();
}

export function compileThesaurus(
  entries: readonly ThesaurusEntry[],
  analyze: (text: string) => string[],
): CompiledThesaurus {
  const compiled: CompiledEntry[] = [];
  for (const e of entries) {
    const tokenTriggers: string[][] = [];
    const textTriggers: string[] = [];
    const tokenEquals: string[] = [];
    for (const term of [...e.en, ...e.zh]) {
      const norm = normalizeForMatch(term);
      if (CJK.test(norm)) {
        if ([...norm].length >= 2) textTriggers.push(norm);
        else tokenEquals.push(norm);
      } else {
        const toks = analyze(term);
        if (toks.length > 0) tokenTriggers.push(toks);
      }
    }
    const expansion = uniqueGroups([...e.en, ...e.zh, ...(e.also ?? [])].map((t) => unique(analyze(t))));
    compiled.push({ tokenTriggers, textTriggers, tokenEquals, expansion });
  }
  return { entries: compiled };
}

/**
 * Token groups to add to a query: the terms of every entry the query matches, each as the group of its
 * analyzed tokens (a multi-word term such as "limit switch" should be matched as a whole, not word by
 * word). Groups made only of the query's own tokens are left out.
 */
export function expandQuery(th: CompiledThesaurus, queryText: string, queryTokens: string[]): string[][] {
  const norm = normalizeForMatch(queryText);
  const own = new Set(queryTokens);
  const out: string[][] = [];
  const seen = new Set<string>();
  const textHits = chineseMatches(th, norm);
  th.entries.forEach((e, i) => {
    const hit =
      textHits.has(i) ||
      e.tokenEquals.some((t) => own.has(t)) ||
      e.tokenTriggers.some((seq) => containsSequence(queryTokens, seq));
    if (!hit) return;
    for (const group of e.expansion) {
      const key = group.join(' ');
      if (group.every((t) => own.has(t)) || seen.has(key)) continue;
      seen.add(key);
      out.push(group);
    }
  });
  return out;
}

/**
 * The entries whose Chinese terms occur in the query, longest match first: a term found only inside
 * a longer term of another entry does not count (步进 "stepper" inside 步进脉冲 "step pulse", 温度 inside
 * 温度传感器), since Chinese writes compounds without spaces and the shorter word there is not the
 * concept the longer one names.
 */
function chineseMatches(th: CompiledThesaurus, norm: string): Set<number> {
  const found: { entry: number; start: number; end: number }[] = [];
  th.entries.forEach((e, entry) => {
    for (const t of e.textTriggers) {
      for (let at = norm.indexOf(t); at >= 0; at = norm.indexOf(t, at + 1)) found.push({ entry, start: at, end: at + t.length });
    }
  });
  const hits = new Set<number>();
  for (const m of found) {
    const inside = found.some((o) => o.entry !== m.entry && o.start <= m.start && o.end >= m.end && o.end - o.start > m.end - m.start);
    if (!inside) hits.add(m.entry);
  }
  return hits;
}

function containsSequence(haystack: string[], needle: string[]): boolean {
  if (needle.length === 0 || needle.length > haystack.length) return false;
  outer: for (let i = 0; i + needle.length <= haystack.length; i++) {
    for (let j = 0; j < needle.length; j++) {
      if (haystack[i + j] !== needle[j]) continue outer;
    }
    return true;
  }
  return false;
}

function unique(xs: string[]): string[] {
  return [...new Set(xs)];
}

function uniqueGroups(groups: string[][]): string[][] {
  const seen = new Set<string>();
  return groups.filter((g) => {
    const key = g.join(' ');
    if (g.length === 0 || seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
