/**
 * Finds fault-code candidates inside free text (a technician's query, a line of a manual).
 *
 * Strong candidates (a code for sure, even if no manual defines it):
 *  - a family word followed by a number or code: `alarm 9`, `err 4116`, `Error:22`, `error #13109`,
 *    `DTC P0301`, `obd p 0420`, `报警9`, `错误 22`, `故障码 P0171`;
 *  - an OBD-II code: `p0301`, `P 0420` (typed with the letter O, `PO171`, only where a manual defines `P0171`);
 *  - a letter-coded error/alarm/fault: `E-204`, `E204`, `AL021`, `F0023` (F and E only in shapes
 *    that G-code words do not take: `F1500` is a feed rate, `E20` after `G1 X10` an extrusion);
 *  - an UPPER_SNAKE id that names an error (`ERROR_DRV_FAULT`, `…_FAILED`, `…_TIMEOUT`);
 *  - the whole text being one code: a bare `13201` or `9` typed alone.
 *  - a hexadecimal value after a family word: `error 0x1A`, `fault code 0x2310`.
 * Weak candidates (kept only when the caller's `isKnown` says a manual defines them):
 *  - a number with its family word after it: `a 204 error`, `21 alarm`;
 *  - a hexadecimal value in prose (`0x1A`: a register address as often as a code);
 *  - 4–6 digit numbers in prose (`XL 17202 extruder`), never a year, a quantity with a unit
 *    (`24V`, `2 mm`, `5 minutes`) or a number after `step`/`page`/`version`…;
 *  - any other letter+digit token or UPPER_SNAKE id that the library defines (`H12`, `XX201`).
 * Small numbers in prose (`step 3`, `M3 screw`, `G28`) are never candidates.
 */
import { ONE_WORD_ID, PASCAL_ID, WORD_FAMILIES, normalizeCode, snakeOfPascal } from './normalize.js';

export interface DetectedCode {
  /** The text as written, including its family word (`alarm 9`). */
  raw: string;
  key: string;
  family: string;
  start: number;
  end: number;
  /** `weak` = a plain number or unknown token in prose that is a code only if a manual defines it. */
  strength: 'strong' | 'weak';
}

export interface DetectOptions {
  /** True when the library defines this normalised key (exactly or loosely); enables weak candidates. */
  isKnown?: (key: string, family: string) => boolean;
  /** True when the library has codes of this family (lets a lone `H13` be looked up for suggestions). */
  knownFamily?: (family: string) => boolean;
  /** True when a record defines this negative number (`-2` for "2"): a protocol's return code. */
  isKnownNegative?: (digits: string) => boolean;
  /** Return weak candidates even when nothing says they are defined (for diagnostics). */
  includeWeak?: boolean;
}

const B = '(?<![A-Za-z0-9_])'; // left boundary for ASCII tokens (CJK text around a code is fine)
const E = '(?![A-Za-z0-9_]|[.,]\\d)'; // right boundary: no glued letters/digits, no decimal part

/** Family / code words that may be followed by a space. Longest first. */
const WORDS =
  'error\\s*code|alarm\\s*code|fault\\s*code|trouble\\s*code|(?:error|alarm|fault|err)[\\s_]*id|err[\\s_]*code|error|alarm|fault|obdii|obd2|obd|dtc|err|alm|flt|code';
const CJK_WORDS = '故障代码|错误代码|报警代码|故障码|错误码|报警码|报警号|报警|警报|错误|故障|代码';
const NUMBER_WORD = '(?:(?:no\\.?|nr\\.?|number|#)\\s*)?';
const BODY =
  '(?:0x[0-9a-f]{1,8}|[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+|[pbcu]\\s?[0-3]\\s[0-9a-f]{3}|[pbcu]\\s?[0-9][0-9a-f]{0,3}|[a-z]{1,3}[-_.]?\\d{1,6}[a-z]?|\\d{1,7})';

const PREFIXED = new RegExp(
  `(?:${B}(?:${WORDS})|${CJK_WORDS})(?:\\s{0,2}[:：#＃=\\-–]?\\s{0,2})${NUMBER_WORD}${BODY}${E}`,
  'giu',
);
/** `AL021`, `ER-22`: short family letters glued to the number or joined by a separator. */
const GLUED = new RegExp(`${B}(?:al|alm|er|err|e|f)(?:(?:[-_:]|\\.\\s?)\\d{1,6}|\\s\\d{2,6}|\\d{2,6})[a-z]?${E}`, 'giu');
/** `al 4`, `alm 4`, `err 4` inside a sentence: a one-digit number after a spaced family word is a code only where a manual defines it. */
const SPACED_SHORT = new RegExp(`${B}(?:al|alm|err)\\s\\d${E}`, 'giu');
/** `P0301`, `P 0420`, and split as read off a scanner's display: `P0 171`, `P 0 171`. */
const OBD = new RegExp(`${B}[pbcu](?:[0-3][0-9a-f]{3}|\\s0[0-9a-f]{3}|\\s?[0-3]\\s[0-9a-f]{3})${E}`, 'giu');
/** `a 204 error`, `21 alarm`: the family word after the number (a code only where a record defines it). */
const NUMBER_THEN_FAMILY = /(?<![A-Za-z0-9_.,:/-])#?(\d{1,6})\s?(error|alarm|fault|err|alm|flt)(?![A-Za-z0-9_])/giu;
/** `PO171`, `po420`: an OBD-II code typed with the letter O for its first zero (a code only where a record defines the zero form). */
const OBD_LETTER_O = new RegExp(`${B}[pbcu]o[0-9]{3}${E}`, 'giu');
/** `Err16.0`, `error 16.1`: a code with a sub-number, as a drive displays it; a code only where a record defines it (else a decimal). */
const SUB_CODE = new RegExp(`${B}(?:(?:${WORDS})\\s{0,2}[:#=]?\\s{0,2}|(?:al|alm|er|err|e|f)[-_.]?)\\d{1,6}\\.\\d{1,2}${E}`, 'giu');
/** Identifier-like tokens (`INITIALIZING`, `AxisError`, `drv_fault`): codes only where a record defines them. */
const IDENT = /(?<![A-Za-z0-9_])[A-Za-z][A-Za-z0-9]*(?:_[A-Za-z0-9]+)*(?![A-Za-z0-9_])/gu;
/** A family word, then a few words, then a number: `fault register shows 101` (known codes only). */
const FAMILY_THEN_NUMBER = new RegExp(`${B}(error|err|alarm|alm|fault|flt)s?\\b((?:\\s+[A-Za-z][A-Za-z'-]*){1,3})\\s+#?(\\d{1,6})${E}`, 'giu');
const SNAKE = new RegExp(`${B}[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+${E}`, 'gu');
/** `-10000`, a protocol's negative return code in prose ("返回-20000"): a code only where a record defines it. */
const NEGATIVE = new RegExp(`(?<![A-Za-z0-9_.,:/\\-])-\\d{3,6}${E}`, 'gu');
/** `-2` in prose ("返回值 -2 表示什么"): a code only where a record defines that very negative number. */
const SHORT_NEGATIVE = new RegExp(`(?<![A-Za-z0-9_.,:/\\-])-\\d{1,2}${E}`, 'gu');
const HEX = new RegExp(`${B}0x[0-9a-f]{1,8}${E}`, 'giu');
const NUMBER = new RegExp(`(?<![A-Za-z0-9_.,:/\\-])#?\\d{4,6}${E}(?![:/]\\d)`, 'gu');
const TOKEN = new RegExp(`${B}[A-Za-z]{1,4}[-_.]?\\d{1,6}[A-Za-z]?${E}`, 'gu');
/** `C 02`, `H 12`: a letter code typed with a space, a code only where a record defines it. */
const SPACED_TOKEN = new RegExp(`${B}[A-Za-z]{1,3}\\s\\d{1,6}${E}`, 'gu');

/** Segments of an UPPER_SNAKE id that make it an error name without asking the library. */
const ERRORISH = new Set([
  'ERR', 'ERROR', 'ERRORS', 'FAULT', 'FAULTS', 'FAIL', 'FAILED', 'FAILURE', 'ALARM', 'ALM', 'ALERT', 'WARN',
  'WARNING', 'TIMEOUT', 'OVERCURRENT', 'OVERVOLTAGE', 'UNDERVOLTAGE', 'OVERHEAT', 'OVERTEMP', 'STALL',
  'OVERLOAD', 'SHORT', 'UNDER', 'OVER', 'DISCONNECTED', 'OVERSPEED',
  'STALLED', 'MINTEMP', 'MAXTEMP', 'CRASH', 'ABORT', 'EXCEPTION', 'INVALID', 'LOST', 'OVERFLOW', 'STUCK',
]);

/** Words after a number that make it a quantity, not a code. */
const UNIT =
  /^\s?(?:mm|cm|km|m|µm|um|nm|in|inch|inches|ft|"|v|vac|vdc|mv|kv|a|ma|w|kw|hz|khz|mhz|rpm|deg|degree|degrees|s|sec|secs|second|seconds|ms|min|mins|minute|minutes|h|hr|hrs|hour|hours|day|days|week|weeks|month|months|year|years|%|°|°c|°f|c|kg|g|lb|lbs|nm|bar|psi|kpa|mpa|ohm|ohms|Ω|kΩ|x|times|steps|mm\/s|mm\/min|分钟|秒|小时|毫米|伏|次|天|度|年|个|台)(?![A-Za-z0-9-])/iu;
/** A multiplier or unit written against a number ("5k", "24V", "2.5kW", "100ms", "6S"). */
const QUANTITY = /^\d+(?:[.,]\d+)?(k|m)?(.*)$/i;

/** True when a token is a quantity ("5k" rpm, "24V", "2.5kW", "100ms"), not a model or a code. */
export function isQuantity(token: string): boolean {
  const m = QUANTITY.exec(token);
  if (!m) return false;
  const [, multiplier, unit = ''] = m;
  return unit === '' ? multiplier !== undefined : UNIT.test(unit) && unit.length <= 6;
}

/** Words before a number that make it something else (a step, a page, a version, a part number…). */
const BEFORE =
  /(?:^|[^A-Za-z])(?:step|steps|page|pages|pg|p\.|chapter|section|sect|fig|fig\.|figure|table|item|items|part|pn|p\/n|s\/n|serial|version|ver|v|rev|revision|firmware|fw|model|line|lines|pin|pins|port|size|qty|quantity|year|since|from|to|and|or|第|步骤|页)\s*[:#.]?\s*$/i;
/** A G-code word just before (`G1 X10 E20`): then E/F numbers are axis words, not codes. */
const GCODE_BEFORE = /(?:^|\s)[GMTXYZIJKABCEFS]-?\d+(?:\.\d+)?\s*$/i;
/** Letter+digit tokens that are G/M-codes, screw sizes or axis words, never codes in prose. */
const GCODE_TOKEN = /^[GMTSXYZNIJKABC]-?\d+$/i;

function isYear(digits: string): boolean {
  if (digits.length !== 4) return false;
  const n = Number(digits);
  return n >= 1900 && n <= 2099;
}

/**
 * Detects code candidates in `text`, in reading order, non-overlapping. Weak candidates are kept
 * only when `isKnown` says the library defines them (or when `includeWeak` is set).
 */
export function detectCodes(text: string, opts: DetectOptions = {}): DetectedCode[] {
  const found: DetectedCode[] = [];
  const isKnown = opts.isKnown;
  const add = (raw: string, start: number, strength: 'strong' | 'weak'): void => {
    const n = normalizeCode(raw);
    if (!n) return;
    let s = strength;
    if (n.family === 'symbol' && !isErrorishKey(n.key)) s = 'weak';
    found.push({ raw, key: n.key, family: n.family, start, end: start + raw.length, strength: s });
  };
  // A typed form read as the code it stands for ("a 204 error" as "error 204"), kept only where a record defines it.
  const addAs = (raw: string, start: number, meant: string): void => {
    const n = normalizeCode(meant);
    if (n) found.push({ raw, key: n.key, family: n.family, start, end: start + raw.length, strength: 'weak' });
  };

  const whole = wholeQueryCode(text, opts);
  if (whole) return [whole];

  for (const m of text.matchAll(PREFIXED)) {
    const raw = m[0];
    const after = text.slice(m.index + raw.length, m.index + raw.length + 12);
    if (/\d$/.test(raw) && UNIT.test(after)) continue; // "fault 2 mm"
    add(raw, m.index, 'strong');
  }
  for (const m of text.matchAll(GLUED)) {
    const raw = m[0];
    const before = text.slice(Math.max(0, m.index - 16), m.index);
    const letter = raw[0]?.toLowerCase();
    if ((letter === 'e' || letter === 'f') && GCODE_BEFORE.test(before)) continue;
    // F1500 is a feed rate: a glued F code needs a leading zero (F0023) or a separator (F-23).
    if (letter === 'f' && /^f[1-9]/i.test(raw)) continue;
    if (/\s\d/.test(raw) && UNIT.test(text.slice(m.index + raw.length, m.index + raw.length + 12))) continue;
    add(raw, m.index, 'strong');
  }
  for (const m of text.matchAll(SPACED_SHORT)) {
    if (UNIT.test(text.slice(m.index + m[0].length, m.index + m[0].length + 12))) continue;
    add(m[0], m.index, 'weak');
  }
  for (const m of text.matchAll(OBD)) add(m[0], m.index, 'strong');
  for (const m of text.matchAll(SUB_CODE)) add(m[0], m.index, 'weak');
  for (const m of text.matchAll(NUMBER_THEN_FAMILY)) addAs(m[0], m.index, `${m[2]} ${m[1]}`);
  for (const m of text.matchAll(OBD_LETTER_O)) addAs(m[0], m.index, `${m[0][0]}0${m[0].slice(2)}`);
  for (const m of text.matchAll(SNAKE)) {
    if (normalizeCode(m[0])?.family === 'symbol') add(m[0], m.index, 'strong');
  }
  for (const m of text.matchAll(HEX)) add(m[0], m.index, 'weak');
  for (const m of text.matchAll(NUMBER)) {
    const raw = m[0];
    const after = text.slice(m.index + raw.length, m.index + raw.length + 12);
    const before = text.slice(Math.max(0, m.index - 16), m.index);
    if (UNIT.test(after) || BEFORE.test(before) || isYear(raw.replace('#', ''))) continue;
    add(raw, m.index, 'weak');
  }
  if (isKnown) {
    for (const m of text.matchAll(TOKEN)) {
      // A G-code word or axis word is a code only where a record defines that very token (`C-02`).
      if (GCODE_TOKEN.test(m[0]) && !isKnownExactly(m[0], isKnown)) continue;
      add(m[0], m.index, 'weak');
    }
    for (const m of text.matchAll(SPACED_TOKEN)) {
      if (isKnownExactly(m[0], isKnown) && !UNIT.test(text.slice(m.index + m[0].length, m.index + m[0].length + 12))) add(m[0], m.index, 'weak');
    }
    for (const m of text.matchAll(NEGATIVE)) add(m[0], m.index, 'weak');
    for (const m of text.matchAll(SHORT_NEGATIVE)) {
      // "set the offset to -2 mm", "from -1 to 1": a value, not a code.
      const after = text.slice(m.index + m[0].length, m.index + m[0].length + 12);
      const before = text.slice(Math.max(0, m.index - 16), m.index);
      if (UNIT.test(after) || BEFORE.test(before) || !opts.isKnownNegative?.(m[0].slice(1))) continue;
      add(m[0], m.index, 'weak');
    }
    knownIdentifiers(text, isKnown, found);
    for (const m of text.matchAll(FAMILY_THEN_NUMBER)) {
      const family = normalizeCode(`${m[1]} 1`)?.family;
      const num = m[3] as string;
      const at = m.index + m[0].length - num.length;
      if (!family || UNIT.test(text.slice(at + num.length, at + num.length + 12))) continue;
      const key = `${family}:${num.replace(/^0+(?=\d)/, '')}`;
      if (isKnown(key, family)) found.push({ raw: num, key, family, start: at, end: at + num.length, strength: 'weak' });
    }
  }
  return resolve(found, opts);
}

/**
 * A code typed as a negative number (`-2`, `code -2`, `返回-20000`), not a letter code joined by a
 * dash (`E-204`): the minus sign follows a space, a non-letter or nothing.
 */
export function typedNegative(raw: string): boolean {
  return /(?:^|[^\p{L}\p{N}_])-\d+$/u.test(raw);
}

/** Words joined into an identifier when a record defines it: `phase resistance out of range`. */
const MAX_PHRASE_WORDS = 8;

/**
 * Identifiers the library defines, as typed: one UPPER word (`INITIALIZING`), an id in any case
 * (`drv_fault`), or its words with spaces (`phase resistance out of range`, `axis error motor failed`).
 */
function knownIdentifiers(text: string, isKnown: (key: string, family: string) => boolean, found: DetectedCode[]): void {
  const words = [...text.matchAll(IDENT)].slice(0, 400);
  for (let i = 0; i < words.length; i++) {
    const w = words[i] as RegExpMatchArray;
    const start = w.index as number;
    const single = w[0].toLowerCase();
    // One plain word is an id only written as one (UPPER case or with underscores): "initializing" is a word.
    if ((ONE_WORD_ID.test(w[0]) || single.includes('_')) && isKnown(single, 'symbol')) {
      found.push({ raw: w[0], key: single, family: 'symbol', start, end: start + w[0].length, strength: 'weak' });
    }
    // …or in PascalCase, as the interface definition writes it (`InvalidState` is `INVALID_STATE`).
    if (PASCAL_ID.test(w[0]) && isKnown(snakeOfPascal(w[0]), 'symbol')) {
      found.push({ raw: w[0], key: snakeOfPascal(w[0]), family: 'symbol', start, end: start + w[0].length, strength: 'weak' });
    }
    let key = single;
    for (let j = i + 1; j < words.length && j < i + MAX_PHRASE_WORDS; j++) {
      const prev = words[j - 1] as RegExpMatchArray;
      const next = words[j] as RegExpMatchArray;
      const gap = text.slice((prev.index as number) + prev[0].length, next.index as number);
      if (!/^[\s_-]+$/.test(gap)) break;
      key = `${key}_${next[0].toLowerCase()}`;
      if (isKnown(key, 'symbol')) {
        const end = (next.index as number) + next[0].length;
        found.push({ raw: text.slice(start, end), key, family: 'symbol', start, end, strength: 'weak' });
      }
    }
  }
}

function isKnownExactly(raw: string, isKnown: (key: string, family: string) => boolean): boolean {
  const n = normalizeCode(raw);
  return n !== null && isKnown(n.key, n.family);
}

function isErrorishKey(key: string): boolean {
  return key.split('_').some((seg) => ERRORISH.has(seg.toUpperCase()));
}

/** A text that is nothing but one code (`13201`, `#9`, `ALARM:9`, `H12`, `err 20`). */
function wholeQueryCode(text: string, opts: DetectOptions): DetectedCode | null {
  const trimmed = text.trim().replace(/[?？!！。.]+$/u, '');
  if (trimmed === '' || trimmed.length > 32) return null;
  const n = normalizeCode(trimmed);
  if (!n) return null;
  const known = opts.isKnown?.(n.key, n.family) ?? false;
  const generic = !WORD_FAMILIES.has(n.family) && !/^(?:obd-|number$|symbol$)/.test(n.family);
  if (generic) {
    // "step 3" is not a code; "M3"/"G28" alone are codes only where a manual defines them.
    if (/\s/.test(trimmed)) return null;
    if (GCODE_TOKEN.test(trimmed) && !known) return null;
    if (opts.isKnown && !known && !(opts.knownFamily?.(n.family) ?? false)) return null;
  }
  if (n.family === 'symbol' && !known && !isErrorishKey(n.key) && opts.isKnown) return null;
  // `dump_errors` is a command name: an id that no record defines counts only written as a code (UPPER case).
  if (n.family === 'symbol' && !known && trimmed !== trimmed.toUpperCase()) return null;
  const start = text.indexOf(trimmed);
  return { raw: trimmed, key: n.key, family: n.family, start, end: start + trimmed.length, strength: 'strong' };
}

/** Keeps non-overlapping candidates: strong before weak, then the longer, then the earlier. */
function resolve(found: DetectedCode[], opts: DetectOptions): DetectedCode[] {
  const ranked: DetectedCode[] = [];
  for (const c of found) {
    if (c.strength === 'weak') {
      if (opts.isKnown?.(c.key, c.family)) ranked.push({ ...c, strength: 'strong' });
      else if (opts.includeWeak) ranked.push(c);
      continue;
    }
    ranked.push(c);
  }
  ranked.sort(
    (a, b) =>
      (a.strength === b.strength ? 0 : a.strength === 'strong' ? -1 : 1) ||
      b.end - b.start - (a.end - a.start) ||
      a.start - b.start,
  );
  const kept: DetectedCode[] = [];
  for (const c of ranked) {
    if (kept.some((k) => c.start < k.end && k.start < c.end)) continue;
    kept.push(c);
  }
  return kept.sort((a, b) => a.start - b.start);
}

/**
 * The query without its codes, for the text half of a hybrid search
 * (`grbl alarm 9 what do i do` → `grbl what do i do`).
 */
export function stripCodes(text: string, opts: DetectOptions = {}): string {
  const codes = detectCodes(text, opts);
  if (codes.length === 0) return text.trim().replace(/\s+/g, ' ');
  let out = '';
  let pos = 0;
  for (const c of codes) {
    out += text.slice(pos, c.start) + ' ';
    pos = c.end;
  }
  out += text.slice(pos);
  return out.replace(/\s+/g, ' ').trim();
}
