/**
 * Fault-code normalisation: ONE pure function, used at ingest (table cells, prose) and at query
 * time (what the technician types), so that both sides meet on the same key.
 *
 * Input is NFKC-folded (full-width ９／：→ 9 / :), lower-cased and trimmed. Separators
 * (space, `-`, `–`, `_`, `:`, `#`; a `.` after the letters: `AL.021`) between the parts of a code are ignored. Then:
 *
 * | raw form (examples)                                  | family          | key                | zero padding                      |
 * |------------------------------------------------------|-----------------|--------------------|-----------------------------------|
 * | `ERROR_DRV_FAULT`, `DC_BUS_UNDER_VOLTAGE`            | `symbol`        | `error_drv_fault`  | n/a (≥ 2 segments with letters)   |
 * | `error 9`, `err 9`, `Er:09`, `E-204`, `e_204`, `错误9` | `error`         | `error:204`        | ignored (`error:01` = `error:1`)  |
 * | `ALARM:9`, `alm 9`, `AL021`, `报警 9`, `警报9`          | `alarm`         | `alarm:21`         | ignored (`AL021` = `AL21`)        |
 * | `fault 23`, `flt 23`, `F0023`, `故障 23`                | `fault`         | `fault:23`         | ignored                           |
 * | `Err16.0`, `error 16.1` (a sub-number after one dot)  | `error` …       | `error:16.1`       | ignored in the main number        |
 * | `P0301`, `b0301`, `dtc p0301`, `obd p 0420`           | `obd-p` … `obd-u` | `p0301`          | fixed: 4 hex digits, kept; after `dtc`/`obd` a short body is left-padded (`obd p420` = `p0420`) |
 * | `13201`, `04101`, `9` (digits, no family word)        | `number`        | `04101`            | kept (width may be meaningful)    |
 * | `XX201`, `H12`, `oC3` (other letters + digits)        | the letters     | `xx201`            | kept                              |
 * | `0x1A`, `0x0001`, `error 0x2310` (hexadecimal)        | `hex`           | `0x1a`             | ignored (a value: `0x001A` = `0x1A`); a family word does not change it |
 *
 * Prefix words: `code`, `error code`, `fault code`, `alarm code`, `trouble code`, `no.`, `number`,
 * `#`, `代码`, `故障码`, `错误码`, `报警号`, `编号` name a code without saying its family (the
 * family words inside them do: `error code 9` → `error:9`). `dtc`/`obd`/`obd2`/`obdii` mark an OBD
 * code (the P/B/C/U letter is kept). The optional `ctx.family` (from a table header such as
 * "Alarm Code") applies when the raw text carries no family of its own.
 *
 * {@link looseKey} gives the second, looser key used when the exact key finds nothing: family word
 * dropped and leading zeros stripped, so `err 4116` can still reach `04116` and `p300` reaches
 * `P0300`. The index only accepts such a loose match when the families do not contradict each
 * other (an `alarm` query never lands on an `error` record).
 */

export interface NormalizedCode {
  key: string;
  family: string;
}

/** Families whose number is a plain count: zero padding is meaningless. */
export const WORD_FAMILIES: ReadonlySet<string> = new Set(['error', 'alarm', 'fault']);

/** Prefix words → family. `''` = names a code but says nothing about its family; `obd` = OBD hint. */
const PREFIX_WORDS: readonly (readonly [string, string])[] = [
  ['error code', 'error'],
  ['alarm code', 'alarm'],
  ['fault code', 'fault'],
  // A log or API field as printed: `ErrorCode=5`, `errCode: 5`, `ErrorID -2` (an "id" after the word: NUMBER_WORD).
  ['errorcode', 'error'],
  ['alarmcode', 'alarm'],
  ['faultcode', 'fault'],
  ['errcode', 'error'],
  ['errorid', 'error'],
  ['alarmid', 'alarm'],
  ['faultid', 'fault'],
  ['errid', 'error'],
  ['trouble code', 'obd'],
  ['error', 'error'],
  ['alarm', 'alarm'],
  ['fault', 'fault'],
  ['obdii', 'obd'],
  ['obd2', 'obd'],
  ['code', ''],
  ['err', 'error'],
  ['alm', 'alarm'],
  ['flt', 'fault'],
  ['dtc', 'obd'],
  ['obd', 'obd'],
  ['故障代码', ''],
  ['错误代码', 'error'],
  ['报警代码', 'alarm'],
  ['故障码', ''],
  ['错误码', 'error'],
  ['报警码', 'alarm'],
  ['报警号', 'alarm'],
  ['报警', 'alarm'],
  ['警报', 'alarm'],
  ['错误', 'error'],
  ['故障', 'fault'],
  ['代码', ''],
  ['编号', ''],
];

/** Letter prefixes glued to the number (`E204`, `AL21`, `F0023`) that mean a family word. */
const LETTER_FAMILIES: Readonly<Record<string, string>> = {
  e: 'error',
  er: 'error',
  err: 'error',
  al: 'alarm',
  alm: 'alarm',
  f: 'fault',
  flt: 'fault',
};

const SEPARATORS = /[\s\-‐‑–—_:#]+/g;
const SYMBOLIC = /^[a-z][a-z0-9]*(?:_[a-z0-9]+)+$/;
const OBD_STRICT = /^([pbcu])([0-3][0-9a-f]{3})$/;
const OBD_SHORT = /^([pbcu])([0-9][0-9a-f]{0,3})$/;
const DIGITS = /^\d{1,9}$/;
const HEX = /^0x([0-9a-f]{1,8})$/;
const LETTERS_DIGITS = /^([a-z]{1,4})(\d{1,9})([a-z]?)$/;
const NUMBER_WORD = /^(?:no\.?|nr\.?|number|num\.?|id)(?![a-z])/;
/** An UPPER-case one-word identifier of at least three characters. */
export const ONE_WORD_ID = /^[A-Z][A-Z0-9]{2,47}$/;
/** A PascalCase identifier of two or more words (`InvalidState`, `ADCFailed`): firmware's other way to write an id. */
export const PASCAL_ID = /^(?=[A-Z0-9]*[a-z])(?=(?:[^A-Z]*[A-Z]){2})[A-Z][A-Za-z0-9]{2,47}$/;

/**
 * The UPPER_SNAKE key of a PascalCase id, as its tools print it: `InvalidState` → `invalid_state`,
 * `ADCFailed` → `adc_failed`, `FetLowCOvercurrent` → `fet_low_c_overcurrent`.
 */
export function snakeOfPascal(id: string): string {
  return id
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1_$2')
    .toLowerCase();
}

/** Maps a family word (`error`, `Alarm`, `报警`, `flt`, `E`) to its family, or null. */
export function familyOfWord(word: string): string | null {
  const w = word.normalize('NFKC').trim().toLowerCase();
  const fromLetters = LETTER_FAMILIES[w];
  if (fromLetters) return fromLetters;
  for (const [prefix, family] of PREFIX_WORDS) {
    if (w === prefix && WORD_FAMILIES.has(family)) return family;
  }
  return null;
}

/** True when `s` is an UPPER_SNAKE-like id: ≥ 2 underscore-separated segments that contain letters. */
function isSymbolic(s: string): boolean {
  if (!SYMBOLIC.test(s)) return false;
  let lettered = 0;
  for (const seg of s.split('_')) if (/[a-z]/.test(seg)) lettered++;
  return lettered >= 2;
}

function stripZeros(digits: string): string {
  const t = digits.replace(/^0+/, '');
  return t === '' ? '0' : t;
}

function wordKey(family: string, digits: string, suffix = ''): NormalizedCode {
  return { key: `${family}:${stripZeros(digits)}${suffix}`, family };
}

/**
 * Normalises a code as written in a manual or typed in a query. Returns null when `raw` is not a
 * code (no number, prose, a decimal…). Pure and allocation-light: it runs on every table cell.
 */
/**
 * `identifier`: the text is a cell of an identifier column (one-word and PascalCase ids count);
 * 'enumeration': of an error enumeration (`error flags`), where one capitalised word is an id too.
 */
export function normalizeCode(raw: string, ctx?: { family?: string; identifier?: boolean | 'enumeration' }): NormalizedCode | null {
  const n = normalizeCodeShape(raw, ctx);
  if (n || !ctx?.identifier) return n;
  // A one-word identifier (`INITIALIZING`, `TIMEOUT`) or a PascalCase one of two words or more
  // (`InvalidState`) is a code only where a document lists it as one; one capitalised word
  // (`Overspeed`) only in an error enumeration (a "Steady State Error" column says `Decrease`).
  const folded = raw.normalize('NFKC').trim();
  if (ONE_WORD_ID.test(folded) && /[A-Z]{3}/.test(folded)) return { key: folded.toLowerCase(), family: 'symbol' };
  const pascal = PASCAL_ID.test(folded) || (ctx.identifier === 'enumeration' && /^[A-Z][a-z0-9]{3,47}$/.test(folded));
  return pascal ? { key: snakeOfPascal(folded), family: 'symbol' } : null;
}

function normalizeCodeShape(raw: string, ctx?: { family?: string }): NormalizedCode | null {
  let s = raw.normalize('NFKC').trim().toLowerCase();
  if (s === '' || s.length > 64) return null;
  if (isSymbolic(s)) return { key: s, family: 'symbol' };

  let family = '';
  let obdHint = false;
  // Strip family / "code" words, repeatedly ("error code no. 5", "dtc code p0301").
  for (let guard = 0; guard < 3; guard++) {
    let matched = false;
    for (const [prefix, fam] of PREFIX_WORDS) {
      if (!s.startsWith(prefix)) continue;
      const next = s.charCodeAt(prefix.length);
      // ASCII words need a boundary ("errors" is not "error" + "s"); CJK words do not.
      if (/[a-z]/.test(prefix) && next >= 0x61 && next <= 0x7a) continue;
      if (fam === 'obd') obdHint = true;
      else if (fam && !family) family = fam;
      s = s.slice(prefix.length).replace(/^[\s\-–—_:#.=]+/, '');
      matched = true;
      break;
    }
    const num = NUMBER_WORD.exec(s);
    if (num) {
      s = s.slice(num[0].length).replace(/^[\s\-–—_:#.=]+/, '');
      matched = true;
    }
    if (!matched) break;
  }
  if (s.endsWith('.')) s = s.slice(0, -1);
  // A dot between a code's letters and its number separates them as a dash does ("AL.021", "Er.17").
  s = s.replace(/^([a-z]{1,4})\.\s*(?=\d)/, '$1');
  // A code with a sub-number, as a drive displays it ("Err16.0", "error 16.1", "16.1" in an error code
  // column): the main number, one dot, one or two digits, and a family word or letters. Otherwise a decimal.
  const body = s.replace(SEPARATORS, '');
  const sub = /^([a-z]{0,4})(\d{1,6})\.(\d{1,2})$/.exec(body);
  if (sub) {
    const letters = sub[1] as string;
    const fam = letters ? (LETTER_FAMILIES[letters] ?? '') : family || wordFamily(ctx?.family);
    return WORD_FAMILIES.has(fam) ? { key: `${fam}:${stripZeros(sub[2] as string)}.${sub[3] as string}`, family: fam } : null;
  }
  if (/\d[.,]\d/.test(s)) return null; // a decimal, not a code
  if (body === '') return null;
  if (isSymbolic(s)) return { key: s, family: 'symbol' };

  // A hexadecimal code (a protocol's or drive's error value) is its value, whatever word stands before it.
  const hex = HEX.exec(body);
  if (hex) return { key: `0x${stripZeros(hex[1] as string)}`, family: 'hex' };

  const obd = OBD_STRICT.exec(body) ?? (obdHint ? OBD_SHORT.exec(body) : null);
  if (obd) {
    const letter = obd[1] as string;
    return { key: letter + (obd[2] as string).padStart(4, '0'), family: `obd-${letter}` };
  }

  if (DIGITS.test(body)) {
    const fam = family || wordFamily(ctx?.family);
    if (fam) return wordKey(fam, body);
    return { key: body, family: 'number' };
  }

  const ld = LETTERS_DIGITS.exec(body);
  if (ld) {
    const letters = ld[1] as string;
    const digits = ld[2] as string;
    const suffix = ld[3] ?? '';
    const fam = LETTER_FAMILIES[letters];
    if (fam) return wordKey(fam, digits, suffix);
    return { key: body, family: letters };
  }
  return null;
}

function wordFamily(family: string | undefined): string {
  if (!family) return '';
  if (WORD_FAMILIES.has(family)) return family;
  return familyOfWord(family) ?? '';
}

/**
 * The loose key of a normalised key: family word dropped (and a sub-number: `error:16.1` → `16`, so
 * "error 16" finds 16.0 and 16.1), leading zeros of every digit run stripped, letters kept (`alarm:9` →
 * `9`, `04116` → `4116`, `p0300` → `p300`, `xx020` → `xx20`).
 */
export function looseKey(key: string, family: string): string {
  if (family === 'symbol') return key;
  const colon = key.indexOf(':');
  const body = colon >= 0 && WORD_FAMILIES.has(family) ? key.slice(colon + 1).replace(/\.\d+$/, '') : key;
  return body.replace(/\d+/g, (d) => stripZeros(d));
}

/** Whether a loose match between a query family and a record family is acceptable. */
export function familiesCompatible(queryFamily: string, recordFamily: string): boolean {
  if (queryFamily === recordFamily) return true;
  // Two explicit family words that differ contradict each other (alarm 9 is not error 9).
  if (WORD_FAMILIES.has(queryFamily) && WORD_FAMILIES.has(recordFamily)) return false;
  if (queryFamily === 'symbol' || recordFamily === 'symbol') return false;
  return true;
}
