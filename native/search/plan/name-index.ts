/**
 * The library's known names (products, machines, firmware, manuals) and which files they scope to,
 * so that a question naming one ("flash <firmware X> onto the ESP32", "moteus-r4", "our CR5") can
 * prefer that product's manuals without asking every passage to contain the name. Pure: built from
 * plain records (what the store already keeps per file: path, manual title, sidecar equipment, and
 * the section headings of its chunks), serialisable as JSON, matched without a store.
 *
 * Where names come from, and why each is trusted:
 * - the top folder of a file (the source a site copied in: `moteus/…`, `dobot-tcpip-v4/…`) and its
 *   hyphen/underscore parts: the whole folder is the scope (a prefix);
 * - sidecar equipment values (docs/SIDECAR.md), whole and by name-shaped part: the files that carry them;
 * - name-shaped words of manual titles and section headings: letters with digits (`MK4`, `ESP32`,
 *   `CR5`), an inner capital (`LinuxCNC`, `GetError`), or all capitals in a heading that is not all
 *   capitals itself (`MMU`, `TMC`), unless the library also writes the word in lower case (then it is
 *   an ordinary word set in capitals: `AXIS`, `LOAD`); kept only when they are concentrated (at least
 *   {@link MIN_FILES} files, {@link MIN_SHARE} of them in one source), so a word many sources use
 *   (`API`, `CAN`) scopes nothing.
 * Generic documentation words (`docs`, `manual`, `error`, `codes`, `en`…) and version numbers are never names.
 */

export const NAME_INDEX_VERSION = 1;
/** A title/heading word must name at least this many files… */
export const MIN_FILES = 2;
/** …and this share of them must be in one source. */
export const MIN_SHARE = 0.9;

export interface NameRecord {
  /** Library-relative path, forward slashes. */
  file: string;
  /** Manual title. */
  title: string;
  /** Sidecar equipment / model / product names. */
  equipment?: string[];
  /** Section headings of the file (distinct heading texts of its chunks). */
  headings?: string[];
}

export type NameKind = 'source' | 'equipment' | 'title' | 'heading';

export interface NameEntry {
  /** The name as first seen. */
  name: string;
  /** Lower case, letters and digits only (Han kept): what a question is compared with. */
  key: string;
  kind: NameKind;
  /** Files the name scopes to (empty for a source name, which scopes by prefix). */
  files: string[];
  /** Folder prefixes the name scopes to (`moteus`), for source names. */
  prefixes: string[];
}

export interface NameIndex {
  version: number;
  entries: NameEntry[];
}

export interface NameScope {
  /** Names the question mentions (as the index writes them). */
  names: string[];
  files: string[];
  prefixes: string[];
}

const GENERIC_WORDS = new Set(
  (
    'doc docs documentation manual manuals guide guides readme index src source sources lib library files file ' +
    'data error errors code codes alarm alarms fault faults translation translations lang language en us zh cn ' +
    'hans hant tw de fr es ja ko main master config configs example examples test tests sample samples misc ' +
    'the and for with of a an to in on by v vs rev version draft release new old'
  ).split(' '),
);

/** `v1.1`, `2.0.3`, `r2`… are versions, not names. */
const VERSION = /^(?:v|ver|rev|r)?\d+(?:\.\d+)*[a-z]?$/;

/** Lower case, letters and digits only (Han kept). */
export function nameKey(text: string): string {
  return text
    .normalize('NFKC')
    .toLowerCase()
    .replace(/[^\p{L}\p{Nd}]+/gu, '');
}

const WORD = /[\p{L}\p{Nd}]+(?:[-_.][\p{L}\p{Nd}]+)*/gu;

function sourceOf(file: string): string | null {
  const i = file.indexOf('/');
  return i > 0 ? file.slice(0, i) : null;
}

/** A word a writer spells like a name: letters with digits, an inner capital, or capitals in mixed text. */
function nameShaped(word: string, allCapsContext: boolean): boolean {
  const key = nameKey(word);
  if (key.length < 2 || GENERIC_WORDS.has(key) || VERSION.test(key) || /^\d+$/.test(key)) return false;
  if (/\p{Script=Han}/u.test(word)) return false;
  // Identifiers (`fnct_01_read_coils`) and one letter with a number (G-/M-codes `G10`, `M61`) are not names.
  if (word.includes('_') || /^\p{L}\d+(?:\.\d+)?$/u.test(word)) return false;
  if (/\p{L}/u.test(key) && /\d/.test(key) && key.length >= 3) return true;
  if (/\p{Ll}\p{Lu}/u.test(word)) return true;
  if (!allCapsContext && /^\p{Lu}{2,}$/u.test(word) && key.length >= 3) return true;
  return false;
}

/** Name parts of a folder name or equipment value: `dobot-tcpip-v4` → dobot, tcpip; `Kappa MK3.9` → Kappa, MK3.9. */
function nameParts(value: string): string[] {
  return value
    .split(/[\s\-_/,;:()[\]]+/u)
    .filter((p) => {
      const k = nameKey(p);
      return k.length >= 3 && !GENERIC_WORDS.has(k) && !VERSION.test(k) && !/^\d+$/.test(k);
    });
}

/** Builds the name index of a library from one record per file. Pure; linear in the records' text. */
export function buildNameIndex(records: NameRecord[]): NameIndex {
  const entries = new Map<string, NameEntry>();
  const add = (name: string, kind: NameKind, files: string[], prefixes: string[]): void => {
    const key = nameKey(name);
    if (key.length < 2) return;
    const id = `${kind}\u0000${key}`;
    const cur = entries.get(id);
    if (cur) {
      for (const f of files) if (!cur.files.includes(f)) cur.files.push(f);
      for (const p of prefixes) if (!cur.prefixes.includes(p)) cur.prefixes.push(p);
    } else {
      entries.set(id, { name, key, kind, files: [...files], prefixes: [...prefixes] });
    }
  };

  const sources = new Set<string>();
  // Words the library writes in lower case somewhere in its titles and headings: ordinary words.
  const lowerWords = new Set<string>();
  for (const r of records) {
    for (const text of [r.title, ...(r.headings ?? [])]) {
      for (const m of text.matchAll(/(?<![\p{L}\p{Nd}])\p{Ll}+(?![\p{L}\p{Nd}])/gu)) lowerWords.add(m[0]);
    }
  }
  // Title/heading words: key → files, per source.
  const shaped = new Map<string, { name: string; kind: NameKind; files: Set<string> }>();
  for (const r of records) {
    const src = sourceOf(r.file);
    if (src) sources.add(src);
    for (const eq of r.equipment ?? []) {
      add(eq, 'equipment', [r.file], []);
      for (const p of nameParts(eq)) add(p, 'equipment', [r.file], []);
    }
    const texts: { text: string; kind: NameKind }[] = [
      { text: r.title, kind: 'title' },
      ...(r.headings ?? []).map((h) => ({ text: h, kind: 'heading' as const })),
    ];
    for (const { text, kind } of texts) {
      const allCaps = !/\p{Ll}/u.test(text);
      for (const m of text.matchAll(WORD)) {
        const words = [m[0], ...m[0].split(/[-.]/)];
        for (const w of new Set(words)) {
          if (!nameShaped(w, allCaps)) continue;
          const key = nameKey(w);
          let s = shaped.get(key);
          if (!s) shaped.set(key, (s = { name: w, kind, files: new Set() }));
          if (kind === 'title') s.kind = 'title';
          s.files.add(r.file);
        }
      }
    }
  }
  for (const src of sources) {
    add(src, 'source', [], [src]);
    for (const p of nameParts(src)) add(p, 'source', [], [src]);
  }
  for (const [key, s] of shaped) {
    if (s.files.size < MIN_FILES) continue;
    if (/^\p{L}+$/u.test(key) && lowerWords.has(key)) continue;
    const bySource = new Map<string, number>();
    for (const f of s.files) bySource.set(sourceOf(f) ?? '', (bySource.get(sourceOf(f) ?? '') ?? 0) + 1);
    const top = Math.max(...bySource.values());
    if (top / s.files.size < MIN_SHARE) continue;
    add(s.name, s.kind, [...s.files].sort(), []);
  }
  return { version: NAME_INDEX_VERSION, entries: [...entries.values()].sort((a, b) => a.key.localeCompare(b.key) || a.kind.localeCompare(b.kind)) };
}

/** Word windows of a question (1–3 adjacent words joined), as keys: "moteus-r4" → moteus, r4, moteusr4. */
function questionKeys(question: string): Set<string> {
  const words = [...question.normalize('NFKC').toLowerCase().matchAll(/[\p{Script=Latin}\p{Nd}]+/gu)].map((m) => m[0]);
  const out = new Set<string>();
  for (let i = 0; i < words.length; i++) {
    let joined = '';
    for (let j = i; j < Math.min(words.length, i + 3); j++) {
      joined += words[j];
      out.add(joined);
    }
  }
  return out;
}

/** A model suffix after a name: `r4`, `4`, `v2`, `mk3` (the rest of `moteusr4` after `moteus`). */
const MODEL_SUFFIX = /^[a-z]{0,3}\d[a-z0-9]{0,3}$/;

function mentions(entry: NameEntry, keys: Set<string>, han: string): boolean {
  const k = entry.key;
  if (/\p{Script=Han}/u.test(k)) return k.length >= 2 && han.includes(k);
  if (keys.has(k)) return k.length >= 3 || /\d/.test(k);
  for (const q of keys) {
    // The question names a variant of a known name: moteus-r4 → moteus.
    if (k.length >= 4 && q.startsWith(k) && MODEL_SUFFIX.test(q.slice(k.length))) return true;
    // The question names a model shorter than the library writes it: CR5 → CR5A, MK4 → MK4S.
    if (q.length >= 3 && /\d/.test(q) && /\p{L}/u.test(q) && k.startsWith(q) && k.length - q.length <= 2 && !/\d/.test(k[q.length] ?? '')) return true;
  }
  return false;
}

/**
 * The names of the index that a question mentions (case, space and hyphen do not matter; a model
 * variant or a short model name matches), and the files and folder prefixes they scope to. Null
 * when it names none.
 */
export function matchNames(index: NameIndex, question: string): NameScope | null {
  const keys = questionKeys(question);
  const han = question.normalize('NFKC').toLowerCase().replace(/\s+/g, '');
  const names: string[] = [];
  const files = new Set<string>();
  const prefixes = new Set<string>();
  for (const e of index.entries) {
    if (!mentions(e, keys, han)) continue;
    if (!names.includes(e.name)) names.push(e.name);
    for (const f of e.files) files.add(f);
    for (const p of e.prefixes) prefixes.add(p);
  }
  if (names.length === 0) return null;
  return { names, files: [...files].sort(), prefixes: [...prefixes].sort() };
}

/** True when a library file is inside the scope. */
export function inScope(scope: NameScope, file: string): boolean {
  if (scope.files.includes(file)) return true;
  return scope.prefixes.some((p) => file === p || file.startsWith(`${p}/`));
}
