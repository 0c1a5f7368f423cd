/**
 * Which manuals exist in one language only. A library often holds a manual and its translation
 * (`Guide.md` and `locales/zh/Guide.md`, `README_EN.md` and `README.md`, an alarm table with an
 * `en` and a `zh_CN` text per entry); a question in either language finds its own language's copy.
 * A manual that exists only in the other language (a Chinese protocol manual in an English
 * technician's library) is found by no same-language passage, and its passages match an English
 * question only through translated words, at a fraction of the weight of the question's own words
 * (fts-query.ts): hybrid.ts gives its best passage a place of its own. Pure.
 *
 * Two files are one manual in two languages when their names are the same once the language
 * markers are taken out (`GetError_README_EN.md` ~ `GetError_README.md`, `zh_Hans/G-Codes.md` ~
 * `docs/G-Codes.md`); a file with passages in both languages is its own translation. When in doubt
 * (a name many manuals share, such as `README.md`) a file counts as translated: the cost of a wrong
 * "untranslated" is a place in every other-language question's first results.
 */
import type { FileRecord, Lang } from '../../contract/document.js';

/** Name parts that say a file's language, not its subject. */
const LANGUAGE_MARKERS = new Set([
  'en', 'eng', 'english', 'us', 'gb', 'uk',
  'zh', 'cn', 'chs', 'cht', 'hans', 'hant', 'tw', 'hk', 'chinese', 'zhcn', 'zhtw', '中文', '英文', '简体', '繁体',
]);

/** A file's name without its folder, extension and language markers, lower case (`geterror readme`). */
export function languageNeutralName(file: string): string {
  const base = file.replace(/\\/g, '/').split('/').pop() ?? file;
  const stem = base.replace(/\.[^.]+$/, '').normalize('NFKC').toLowerCase();
  return stem
    .split(/[\s._\-()[\]（）]+/u)
    .filter((p) => p !== '' && !LANGUAGE_MARKERS.has(p))
    .join(' ');
}

/**
 * Files whose passages are all in `lang` and that no file with passages in another language
 * translates (same language-neutral name). Files from before languages were recorded are left out.
 */
export function untranslatedFiles(files: readonly Pick<FileRecord, 'file' | 'langs' | 'chunks'>[], lang: Lang): Set<string> {
  const otherNames = new Set<string>();
  for (const f of files) if (f.chunks > 0 && f.langs?.some((l) => l !== lang)) otherNames.add(languageNeutralName(f.file));
  const out = new Set<string>();
  for (const f of files) {
    if (f.chunks === 0 || !f.langs || f.langs.length !== 1 || f.langs[0] !== lang) continue;
    const name = languageNeutralName(f.file);
    if (name !== '' && !otherNames.has(name)) out.add(f.file);
  }
  return out;
}

/** What the other-language search needs from a store: its files, their version and their indexed terms. */
export interface UntranslatedSource {
  /** Changes whenever the store's file records do. */
  readonly filesRevision: number;
  getFiles(): readonly Pick<FileRecord, 'file' | 'langs' | 'chunks'>[];
  indexedTerms(files: string[]): Promise<Set<string>>;
}

/** A store's manuals in one language that no file translates, and their indexed terms. */
export interface UntranslatedManuals {
  files: ReadonlySet<string>;
  /** Null when there are none, or more than UNTRANSLATED_TERMS_MAX_PASSAGES passages. */
  terms: Promise<Set<string>> | null;
}

/**
 * Passages past which the untranslated manuals' terms are not read: a question's terms are then
 * nearly all among them, and reading them costs more than it saves (the 8,636 English-only passages
 * of the dev library, for its Chinese questions: 30,226 terms in 0.45 s).
 */
export const UNTRANSLATED_TERMS_MAX_PASSAGES = 2000;

const known = new WeakMap<object, { revision: number; byLang: Map<Lang, UntranslatedManuals> }>();

/**
 * The untranslated manuals of `lang` and their indexed terms, worked out once per version of the
 * store's files (every search call asks; reading the file list costs 1.5 ms on the dev library): a
 * question's terms that none of them holds cannot find them, and leaving those out makes the
 * other-language search cheap, or unneeded (restrictPlan).
 */
export function untranslatedManuals(store: UntranslatedSource, lang: Lang): UntranslatedManuals {
  let entry = known.get(store);
  if (entry?.revision !== store.filesRevision) {
    entry = { revision: store.filesRevision, byLang: new Map() };
    known.set(store, entry);
  }
  const cached = entry.byLang.get(lang);
  if (cached) return cached;
  const records = store.getFiles();
  const files = untranslatedFiles(records, lang);
  const passages = records.reduce((n, f) => n + (files.has(f.file) ? f.chunks : 0), 0);
  const terms = files.size > 0 && passages <= UNTRANSLATED_TERMS_MAX_PASSAGES ? store.indexedTerms([...files]) : null;
  const out: UntranslatedManuals = { files, terms };
  const byLang = entry.byLang;
  byLang.set(lang, out);
  // A failed read is tried again by the next search.
  terms?.catch(() => {
    if (byLang.get(lang) === out) byLang.delete(lang);
  });
  return out;
}
