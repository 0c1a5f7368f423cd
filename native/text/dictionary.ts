/**
 * Whether a word is a word of the English language (a spelling dictionary has it, in any inflection:
 * "floppy", "sags", "forklift", "monday", "bluetooth"), as against a name someone coined ("moteus",
 * "grbl", "creality"): the signal beyond the library's own vocabulary that tells a technician's
 * colloquial word from a product the library has no manual for. The dictionary is Hunspell's en_US
 * from the npm package dictionary-en (49,000 stems with proper nouns: days, months, common brands),
 * kept as the set of its words' stems (the analyzer's stemmer), built once on first use.
 */
import fs from 'node:fs';
import dictionary from 'dictionary-en';
import { stemmer } from 'stemmer';
import wordListPath from 'word-list';
import { analyze } from './analyze.js';

/** How the dictionary writes a word: in lower case (a common word), with a capital (a proper noun), or both. */
const LOWER = 1;
const CAPITAL = 2;

/** Each word's stem, with how the dictionary writes it (LOWER | CAPITAL). */
let stems: Map<string, number> | null = null;

function dictionaryStems(): Map<string, number> {
  if (stems) return stems;
  const out = new Map<string, number>();
  const add = (word: string, lower: boolean) => {
    const stem = stemmer(word.toLowerCase());
    out.set(stem, (out.get(stem) ?? 0) | (lower ? LOWER : CAPITAL));
  };
  // One entry a line ("word/FLAGS"); the first line is the count. A capital: a proper noun ("Monday", "Siemens").
  for (const line of new TextDecoder().decode(dictionary.dic).split('\n').slice(1)) {
    const word = (line.split('/')[0] ?? '').trim();
    if (/^\p{L}+$/u.test(word)) add(word, !/^\p{Lu}/u.test(word));
  }
  // SCOWL's larger list (lower case, inflected), for the trade words Hunspell leaves out ("thermistor", "printhead").
  for (const word of fs.readFileSync(wordListPath, 'utf8').split('\n')) if (word) add(word, true);
  stems = out;
  return out;
}

/** Endings a technician types without the apostrophe ("doesnt", "thats", "theyre", "ive"). */
const CONTRACTION = /(?:n?t|s|re|ve|ll|d|m)$/;

/**
 * True when the dictionary has the word in some inflection (case ignored), or it is a stop word (or
 * "i") with a contraction's ending typed without the apostrophe ("doesnt" → does, "ive" → i). A word
 * that is not letters only is not judged (true).
 */
export function isLanguageWord(word: string): boolean {
  const w = word.toLowerCase();
  if (!/^\p{L}+$/u.test(w)) return true;
  const known = dictionaryStems();
  if (known.has(stemmer(w))) return true;
  const m = CONTRACTION.exec(w);
  if (m === null || m.index === 0) return false;
  const base = w.slice(0, m.index);
  // The ending stands on a pronoun or an auxiliary: a word the analyzer drops as a stop word.
  return base === 'i' || analyze(base).length === 0;
}

/**
 * True when the dictionary has the word, in some inflection, in lower case only: a common word of the
 * language and never a name ("yesterday", "threw", "engine", "welder"), as against one it has as a proper
 * noun too ("Tesla", "Siemens", "Ford": a unit or a word, and a brand), only as one ("Mitsubishi") or not
 * at all ("moteus"). A word that is not letters only is not one.
 */
export function isCommonWord(word: string): boolean {
  return /^\p{L}+$/u.test(word) && dictionaryStems().get(stemmer(word.toLowerCase())) === LOWER;
}

/**
 * True when the dictionary has the word only as a proper noun, in some inflection ("mitsubishi",
 * "honeywell", "lincoln": a brand, a place or a person), whatever case it is typed in. A word that is not
 * letters only is not one.
 */
export function isProperNoun(word: string): boolean {
  return /^\p{L}+$/u.test(word) && dictionaryStems().get(stemmer(word.toLowerCase())) === CAPITAL;
}

/** The names of the days and months in English, lower case, from the runtime's calendar data (ICU). */
let dateWords: Set<string> | null = null;

/**
 * True when the word names a day of the week or a month ("Monday", "Mondays", "July"): the dictionary
 * writes them as proper nouns, but they say when, never which machine.
 */
export function isDateWord(word: string): boolean {
  if (!dateWords) {
    const names = (opts: Intl.DateTimeFormatOptions, dates: Date[]) => dates.map((d) => new Intl.DateTimeFormat('en', { ...opts, timeZone: 'UTC' }).format(d).toLowerCase());
    const days = Array.from({ length: 7 }, (_, i) => new Date(Date.UTC(2024, 0, 1 + i)));
    const months = Array.from({ length: 12 }, (_, i) => new Date(Date.UTC(2024, i, 1)));
    dateWords = new Set([...names({ weekday: 'long' }, days), ...names({ month: 'long' }, months)]);
  }
  const w = word.toLowerCase();
  return dateWords.has(w) || (w.endsWith('s') && dateWords.has(w.slice(0, -1)));
}

/** Builds the dictionary now (about half a second), so that the first question does not wait for it. */
export function prepareDictionary(): void {
  dictionaryStems();
}
