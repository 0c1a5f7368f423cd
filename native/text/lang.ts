import type { Lang } from '../contract/document.js';

/**
 * Share of "word units" that must be Han ideographs for a text to count as Chinese.
 * A Han character carries about as much as a Latin word, so the share is taken over
 * (Han characters + Latin words), not over raw letters: Chinese manuals are full of
 * English identifiers (`step_pin`, `G28`) and still read as Chinese.
 */
const ZH_SHARE = 0.3;

/** True for a CJK unified ideograph in the BMP (main block, extension A, compatibility block). */
export function isHanCode(code: number): boolean {
  return (
    (code >= 0x4e00 && code <= 0x9fff) ||
    (code >= 0x3400 && code <= 0x4dbf) ||
    (code >= 0xf900 && code <= 0xfaff)
  );
}

/** High surrogates of planes 2–3 (CJK extensions B–H): each pair is one Han character. */
export function isHanHighSurrogate(code: number): boolean {
  return code >= 0xd840 && code <= 0xd8bf;
}

/** Letters that make up Latin-script words (ASCII and Latin-1/Extended letters, no digits). */
function isLatinLetter(code: number): boolean {
  return (
    (code >= 0x61 && code <= 0x7a) ||
    (code >= 0x41 && code <= 0x5a) ||
    (code >= 0xc0 && code <= 0x24f && code !== 0xd7 && code !== 0xf7)
  );
}

/**
 * 'zh' when Han ideographs are a substantial share of the text's words, else 'en'.
 * One pass over the UTF-16 code units; no allocation. Text with no letters at all is 'en'.
 */
export function detectLang(text: string): Lang {
  let han = 0;
  let latinWords = 0;
  let inWord = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (isLatinLetter(c)) {
      if (!inWord) latinWords++;
      inWord = true;
      continue;
    }
    inWord = false;
    if (isHanCode(c) || isHanHighSurrogate(c)) han++;
  }
  if (han === 0) return 'en';
  return han / (han + latinWords) >= ZH_SHARE ? 'zh' : 'en';
}

/** `en.description`, `zh_CN.solution`: a column of one language of a per-language entry. */
const LANG_COLUMN = /^(en|zh|ja|jp|kr|ko|de|fr|es|it|pt|ru|vi|pl|tr|nl|cs|th|id|ar)(?:[_-][a-z]{2,4})?[.]/i;

/** The language tag a per-language column starts with (`zh_cn` for `zh_CN.solution`), else null. */
export function columnLanguage(column: string): string | null {
  const m = LANG_COLUMN.exec(column);
  return m ? m[0].slice(0, -1).toLowerCase() : null;
}

/** The product language of a language tag (`zh_cn` → zh, `en-us` → en); null for the others. */
export function productLanguage(tag: string): Lang | null {
  return tag.startsWith('zh') ? 'zh' : tag.startsWith('en') ? 'en' : null;
}

/** The column's name without its language prefix (`zh_CN.solution` → `solution`). */
export function columnWithoutLanguage(column: string): string {
  const m = LANG_COLUMN.exec(column);
  return m ? column.slice(m[0].length) : column;
}
