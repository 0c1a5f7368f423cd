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
import type { FileRecord, Lang } from '../contract/document.js';

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

/** What the other-language search needs from a store: its files and their indexed terms. */
export interface TermSource {
  getFiles(): readonly Pick<FileRecord, 'file' | 'langs' | 'chunks' | 'generation'>[];
  indexedTerms(files: string[]): Promise<Set<string>>;
}

const untranslatedTermsCache = new WeakMap<object, { key: string; terms: Promise<Set<string>> }>();

/**
 * Passages past which the untranslated manuals' terms are not read: a question's terms are then
 * nearly all among them, and reading them costs more than it saves (the 8,636 English-only passages
 * of the dev library, for its Chinese questions: 30,226 terms in 0.45 s).
 */
export const UNTRANSLATED_TERMS_MAX_PASSAGES = 2000;

/**
 * The indexed terms of `files` (a store's untranslated manuals), read once per version of those
 * files: a question's terms that none of them holds cannot find them, and leaving those out makes
 * the other-language search cheap, or unneeded (restrictPlan). Null when the files hold more than
 * UNTRANSLATED_TERMS_MAX_PASSAGES passages.
 */
export function untranslatedTerms(store: TermSource, files: ReadonlySet<string>): Promise<Set<string>> | null {
  const records = store.getFiles().filter((f) => files.has(f.file));
  if (records.reduce((n, f) => n + f.chunks, 0) > UNTRANSLATED_TERMS_MAX_PASSAGES) return null;
  const key = records
    .map((f) => `${f.file}@${f.generation}`)
    .sort()
    .join('\n');
  const known = untranslatedTermsCache.get(store);
  if (known?.key === key) return known.terms;
  const terms = store.indexedTerms([...files]);
  untranslatedTermsCache.set(store, { key, terms });
  terms.catch(() => {
    if (untranslatedTermsCache.get(store)?.terms === terms) untranslatedTermsCache.delete(store);
  });
  return terms;
}
