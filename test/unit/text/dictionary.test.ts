/**
 * The English dictionary the answer gate reads (text/dictionary.ts): a technician's words, in any
 * inflection and typed without apostrophes, are words of the language; a product's coined name is not.
 */
import { describe, expect, it } from 'vitest';
import { isCommonWord, isDateWord, isLanguageWord, isProperNoun } from '../../../native/text/dictionary.js';

describe('isLanguageWord', () => {
  it('knows colloquial and trade words in any inflection and case', () => {
    for (const w of ['floppy', 'sags', 'sagged', 'sagging', 'wonky', 'cooks', 'Forklift', 'thermistor', 'extruder', 'gripper']) expect(isLanguageWord(w), w).toBe(true);
  });

  it('knows the proper nouns of the language (days, months, common brands)', () => {
    for (const w of ['monday', 'Mondays', 'january', 'bluetooth', 'usb', 'linux', 'siemens']) expect(isLanguageWord(w), w).toBe(true);
  });

  it('knows contractions typed without the apostrophe, only on a pronoun or an auxiliary', () => {
    for (const w of ['doesnt', 'isnt', 'didnt', 'thats', 'theyre', 'ive']) expect(isLanguageWord(w), w).toBe(true);
    // "hoten" is an (archaic) word, not a pronoun: "hotend" is not "hoten'd".
    expect(isLanguageWord('hotend')).toBe(false);
  });

  it('does not know names their makers coined', () => {
    for (const w of ['zentrix', 'norvex', 'fooblex', 'velkar', 'grbl']) expect(isLanguageWord(w), w).toBe(false);
  });

  it('does not judge what is not letters only', () => {
    expect(isLanguageWord('px7')).toBe(true);
    expect(isLanguageWord('moteus_tool')).toBe(true);
  });
});

describe('isCommonWord: in the dictionary in lower case only, never as a name', () => {
  it('is true of common words, in any inflection and case', () => {
    for (const w of ['Yesterday', 'After', 'threw', 'Engine', 'welder', 'forklift', 'sagged']) expect(isCommonWord(w), w).toBe(true);
  });

  it('is false of a word the dictionary also has as a proper noun, has only as one, or lacks', () => {
    // "tesla" and "siemens" are units, "ford" a river crossing: written with a capital they are brands too.
    for (const w of ['Tesla', 'Siemens', 'Ford', 'Mitsubishi', 'Monday', 'moteus', 'px7']) expect(isCommonWord(w), w).toBe(false);
  });
});

describe('isProperNoun: in the dictionary with a capital only', () => {
  it('is true of brands, places and people in any case, false of common words, units and unknown words', () => {
    for (const w of ['mitsubishi', 'Honeywell', 'lincoln']) expect(isProperNoun(w), w).toBe(true);
    for (const w of ['welder', 'tesla', 'siemens', 'moteus', 'px7', 'E4']) expect(isProperNoun(w), w).toBe(false);
  });
});

describe('isDateWord: days and months', () => {
  it('is true of the names of the days and months, in any case and plural', () => {
    for (const w of ['Monday', 'mondays', 'July', 'DECEMBER']) expect(isDateWord(w), w).toBe(true);
    for (const w of ['Mon', 'day', 'Honeywell', 'maybe']) expect(isDateWord(w), w).toBe(false);
  });
});
