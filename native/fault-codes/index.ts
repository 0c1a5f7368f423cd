/**
 * In-memory fault-code index, built from the library's CodeRecord[] (and prefix schemes) when the
 * library opens, rebuilt when it changes. Lookups detect the codes in a text and return every
 * definition of each, with its scope; unknown codes get the nearest defined codes of the same
 * family as suggestions (other codes, never a guessed meaning). Rendered results sit in an LRU.
 */
import { LRUCache } from 'lru-cache';
import type { CodeLookupResponse, CodeMatch } from '../contract/api.js';
import type { CodeRecord, Lang } from '../contract/document.js';
import { detectCodes, typedNegative, type DetectedCode } from './detect.js';
import { boundedDistance } from './distance.js';
import { WORD_FAMILIES, familiesCompatible, looseKey, normalizeCode } from './normalize.js';
import { schemeAliases, type CodeScheme } from './schemes.js';
import { escapeRegExp } from '../text/regexp.js';

export interface CodeLookupFilters {
  /** Manual titles to keep. */
  manuals?: string[];
  /** Equipment / product names to keep (compared with each match's scope, case-insensitively). */
  equipment?: string[];
}

export interface CodeIndexOptions {
  /** Rendered lookups kept in the LRU (default 1000). */
  cacheSize?: number;
  /** Suggestions returned for an unknown code (default 5). */
  nearest?: number;
}

/** One way to reach a record: its own key, or an alias with the alias's own scope. */
interface Hit {
  rec: number;
  key: string;
  family: string;
  /** Scope of this way in (a scheme alias stands for some products only); null = the record's. */
  scope: string[] | null;
}

function push<K, V>(map: Map<K, V[]>, key: K, value: V): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}

const HAN = /[\u3400-\u9fff]/;

export class CodeIndex {
  private records: CodeRecord[] = [];
  /** The digits of every negative code a record defines (`2` for `-2`). */
  private negatives = new Set<string>();
  /** Records by file, for the record a table row shows (recordOfRow). */
  private byFile = new Map<string, number[]>();
  private exact = new Map<string, Hit[]>();
  private loose = new Map<string, Hit[]>();
  /** Per family, for nearest-code suggestions. */
  private byFamily = new Map<string, FamilyKeys>();
  /** Word families (error/alarm/fault) each documentation set defines, for cross-family fallbacks. */
  private setFamilies = new Map<string, Set<string>>();
  /** The flags of each enumeration that states its flags' values, by file and enumeration. */
  private flagSets = new Map<string, number[]>();
  private readonly cache: LRUCache<string, CodeLookupResponse>;
  private readonly nearestLimit: number;

  constructor(records: CodeRecord[] = [], schemes: CodeScheme[] = [], opts: CodeIndexOptions = {}) {
    this.cache = new LRUCache({ max: opts.cacheSize ?? 1000 });
    this.nearestLimit = opts.nearest ?? 5;
    this.rebuild(records, schemes);
  }

  /** Number of records indexed. */
  get size(): number {
    return this.records.length;
  }

  /** Replaces the contents (the library changed) and drops every cached result. */
  rebuild(records: CodeRecord[], schemes: CodeScheme[] = []): void {
    this.records = records;
    this.negatives = new Set(records.flatMap((r) => (/^-\d+$/.test(r.code) ? [r.code.slice(1).replace(/^0+(?=\d)/, '')] : [])));
    this.byFile = new Map();
    records.forEach((r, i) => push(this.byFile, r.file, i));
    this.flagSets = new Map();
    records.forEach((r, i) => {
      if (r.flag) push(this.flagSets, `${r.file}\u0000${r.flag.enumeration}`, i);
    });
    this.exact = new Map();
    this.loose = new Map();
    this.byFamily = new Map();
    this.setFamilies = new Map();
    for (const r of records) {
      if (!WORD_FAMILIES.has(r.family)) continue;
      const set = docSet(r.file);
      let fams = this.setFamilies.get(set);
      if (!fams) this.setFamilies.set(set, (fams = new Set()));
      fams.add(r.family);
    }
    const uniqueSchemes = dedupeSchemes(schemes);
    const familyKeys = new Map<string, Set<string>>();
    const addKey = (hit: Hit): void => {
      push(this.exact, hit.key, hit);
      push(this.loose, looseKey(hit.key, hit.family), hit);
      let set = familyKeys.get(hit.family);
      if (!set) familyKeys.set(hit.family, (set = new Set()));
      set.add(hit.key);
    };
    // Blanket scheme aliases (a placeholder code with no product list gets every prefix) yield to
    // codes that some record defines explicitly: its own key, a listed product, a stored alias.
    const perRecord: { explicit: Hit[]; blanket: Hit[] }[] = [];
    const explicitKeys = new Set<string>();
    for (let i = 0; i < records.length; i++) {
      const r = records[i] as CodeRecord;
      const explicit: Hit[] = [{ rec: i, key: r.key, family: r.family, scope: null }];
      const blanket: Hit[] = [];
      const seen = new Set<string>([r.key]);
      for (const s of uniqueSchemes) {
        for (const a of schemeAliases(r, s)) {
          if (seen.has(a.key)) continue;
          seen.add(a.key);
          (a.blanket ? blanket : explicit).push({ rec: i, key: a.key, family: a.family, scope: a.scope });
        }
      }
      for (const alias of r.aliases) {
        if (seen.has(alias)) continue;
        seen.add(alias);
        explicit.push({ rec: i, key: alias, family: normalizeCode(alias)?.family ?? r.family, scope: null });
      }
      for (const h of explicit) explicitKeys.add(h.key);
      perRecord.push({ explicit, blanket });
    }
    for (const { explicit, blanket } of perRecord) {
      for (const h of explicit) addKey(h);
      for (const h of blanket) if (!explicitKeys.has(h.key)) addKey(h);
    }
    for (const [family, keys] of familyKeys) {
      const fk: FamilyKeys = { byComparable: new Map(), byLen: keys.size <= SCAN_LIMIT ? new Map() : null, alphabet: '' };
      const chars = new Set<string>();
      for (const k of keys) {
        const cmp = comparable(k, family);
        fk.byComparable.set(cmp, k);
        for (const ch of cmp) chars.add(ch);
        if (fk.byLen) push(fk.byLen, cmp.length, cmp);
      }
      fk.alphabet = [...chars].sort().join('');
      this.byFamily.set(family, fk);
    }
    this.invalidate();
  }

  /** Drops cached lookups (call when records change without a rebuild, e.g. filters' meaning changed). */
  invalidate(): void {
    this.cache.clear();
  }

  /** True when a key (exact or loose) is defined. */
  has(key: string, family: string): boolean {
    return this.exact.has(key) || this.loose.has(looseKey(key, family));
  }

  /** Detects the codes in `text` and returns their definitions (contract shape, with `ms`). */
  lookup(text: string, filters: CodeLookupFilters = {}): CodeLookupResponse {
    const t0 = performance.now();
    const cacheKey = `${text.trim().toLowerCase()}\u0000${filterKey(filters.manuals)}\u0000${filterKey(filters.equipment)}`;
    const cached = this.cache.get(cacheKey);
    if (cached) return { ...cached, query: text, ms: round2(performance.now() - t0) };

    const detected = detectCodes(text, {
      isKnown: (key, family) => this.has(key, family),
      // A hexadecimal value is a code where an enumeration states its flags' values.
      knownFamily: (family) => this.byFamily.has(family) || (family === 'hex' && this.flagSets.size > 0),
      isKnownNegative: (digits) => this.negatives.has(digits),
    });
    const zhFirst = HAN.test(text);
    const words = otherWords(text, detected);
    const matches: CodeMatch[] = [];
    const nearest: CodeLookupResponse['nearest'] = [];
    const seen = new Set<number>();
    for (const c of detected) {
      const hits = this.signed(c, this.hitsFor(c, words).filter((h) => this.passes(h, filters)));
      // A value no code is written as (`axis error 0x41`): the named flags it is made of.
      const flags = hits.length === 0 ? this.flagsOf(c, words, filters, zhFirst) : [];
      for (const m of flags) matches.push(m);
      if (flags.length > 0) continue;
      if (hits.length === 0) {
        for (const s of this.nearestFor(c, filters)) {
          if (!nearest.some((n) => n.code === s.code && n.manual === s.manual)) nearest.push(s);
        }
        continue;
      }
      // The definitions of a documentation set the question names come first ("servo error 43": the servo's fault 43).
      const ordered = hits
        .map((h, order) => ({ h, order, r: this.records[h.rec] as CodeRecord }))
        .map((x) => ({ ...x, fit: wordsFound(words, x.r), named: namesSet(words, docSet(x.r.file)) ? 0 : 1 }))
        .sort(
          (a, b) =>
            a.named - b.named ||
            (a.h.key < b.h.key ? -1 : a.h.key > b.h.key ? 1 : 0) ||
            langRank(a.r.lang, zhFirst) - langRank(b.r.lang, zhFirst) ||
            b.fit - a.fit ||
            fullness(b.r) - fullness(a.r) ||
            a.order - b.order,
        );
      for (const { h, r } of ordered) {
        if (seen.has(h.rec)) continue;
        seen.add(h.rec);
        matches.push(render(r, h, zhFirst));
      }
    }
    const typed: Record<string, string> = {};
    for (const d of detected) typed[d.key] ??= d.raw;
    const res: CodeLookupResponse = {
      query: text,
      detected: [...new Set(detected.map((d) => d.key))],
      typed,
      matches,
      nearest: nearest.slice(0, this.nearestLimit),
      ms: 0,
    };
    this.cache.set(cacheKey, res);
    return { ...res, ms: round2(performance.now() - t0) };
  }

  /**
   * The record a table-row passage of `file` shows (the row holds the record's source text), in the
   * passage's language where the record has that translation; null when no record, or records of
   * more than one code, are in it (a passage of several rows is not one code).
   */
  recordOfRow(file: string, text: string, lang?: Lang): CodeMatch | null {
    const found = (this.byFile.get(file) ?? []).filter((i) => {
      const r = this.records[i] as CodeRecord;
      const own = r.text.trim().replace(/^[*+-]\s+/, '');
      if (own.length > 0 && text.includes(own)) return true;
      // The row of one of its translations (an alarm object's `zh_CN` row): its code and its words in that language.
      const t = lang ? r.translations?.[lang] : undefined;
      const words = t ? [t.description || t.title, t.remedy].filter((w) => w.length > 0) : [];
      return words.length > 0 && words.every((w) => text.includes(w)) && new RegExp(`(?<![\\p{L}\\p{N}])${escapeRegExp(r.code)}(?![\\p{L}\\p{N}])`, 'u').test(text);
    });
    const first = found[0];
    if (first === undefined || found.some((i) => (this.records[i] as CodeRecord).key !== (this.records[first] as CodeRecord).key)) return null;
    const r = this.records[first] as CodeRecord;
    return render(r, { rec: first, key: r.key, family: r.family, scope: null }, lang === 'zh');
  }

  /**
   * A code typed with a minus sign is the negative code where a record defines one (a protocol's
   * `-2` "robot in alarm state", not alarm 2 of another manual). Keys carry no sign (`-2` and `2`
   * are one key), so the records' own code text decides; typed without a sign, every record shows.
   */
  private signed(c: DetectedCode, hits: Hit[]): Hit[] {
    if (!typedNegative(c.raw)) return hits;
    const negative = hits.filter((h) => /^-\d/.test((this.records[h.rec] as CodeRecord).code));
    return negative.length > 0 ? negative : hits;
  }

  /**
   * The flags a typed value is made of, in each enumeration whose stated flag values add up to it
   * exactly (every set bit a named flag); the enumeration the question's other words name first.
   */
  private flagsOf(c: DetectedCode, words: string[], filters: CodeLookupFilters, zhFirst: boolean): CodeMatch[] {
    if (this.flagSets.size === 0) return [];
    const value = typedValue(c);
    if (value === null) return [];
    const sets: { parts: number[]; fit: number }[] = [];
    for (const recs of this.flagSets.values()) {
      const parts: number[] = recs.filter((i) => {
        const r = this.records[i] as CodeRecord;
        return r.flag !== undefined && (value & BigInt(r.flag.value)) === BigInt(r.flag.value) && this.passes({ rec: i, key: r.key, family: r.family, scope: null }, filters);
      });
      if (parts.length === 0 || parts.reduce<bigint>((acc, i) => acc | BigInt((this.records[i] as CodeRecord).flag?.value ?? 0), 0n) !== value) continue;
      const r0 = this.records[parts[0] as number] as CodeRecord;
      sets.push({ parts, fit: wordsFound(words, { ...r0, section: `${r0.section} ${contextWords(r0.flag?.enumeration ?? '')}` }) });
    }
    sets.sort((a, b) => b.fit - a.fit);
    const out: CodeMatch[] = [];
    for (const { parts } of sets) {
      const flags = parts.map((i) => this.records[i] as CodeRecord).sort((a, b) => (a.flag?.value ?? 0) - (b.flag?.value ?? 0));
      const decoded = `${c.raw.match(/(?:0x[0-9a-f]+|\d+)$/i)?.[0] ?? c.raw} = ${flags.map((r) => `${r.code} (${flagLabel(r.flag?.value ?? 0)})`).join(' + ')}`;
      for (const r of flags) out.push({ ...render(r, { rec: this.records.indexOf(r), key: r.key, family: r.family, scope: null }, zhFirst), decoded });
    }
    return out;
  }

  /**
   * Exact key (or alias) first; the loose key only when nothing is exact and families agree, or, beside
   * an exact key, for a documentation set the question names (`words`) that calls its codes by another
   * word: "servo error 43" is the servo's fault 43 as much as "servo alarm 43" is, though the mill's manual
   * defines an error 43 (which is listed after it).
   */
  private hitsFor(c: DetectedCode, words: string[]): Hit[] {
    const exact = this.exact.get(c.key) ?? [];
    const loose = (this.loose.get(looseKey(c.key, c.family)) ?? []).filter(
      (h) => familiesCompatible(c.family, h.family) || this.onlyWordFamily(c.family, h),
    );
    if (exact.length === 0) return loose;
    // A bare number says nothing about its family: "9" means alarm 9, error 9 and code 9 alike.
    if (c.family === 'number') return [...exact, ...loose.filter((h) => !exact.includes(h))];
    const setOf = (h: Hit) => docSet((this.records[h.rec] as CodeRecord).file);
    const exactSets = new Set(exact.map(setOf));
    return [...exact, ...loose.filter((h) => this.onlyWordFamily(c.family, h) && !exactSets.has(setOf(h)) && namesSet(words, setOf(h)))];
  }

  /**
   * "err 43" for a record `fault 43`: family words contradict each other only where a manual uses
   * both (Grbl's alarm 9 and error 9). A documentation set that defines no code of the typed word's
   * family calls all its codes by its own word, and technicians call them by theirs.
   */
  private onlyWordFamily(queryFamily: string, h: Hit): boolean {
    if (!WORD_FAMILIES.has(queryFamily) || !WORD_FAMILIES.has(h.family)) return false;
    const fams = this.setFamilies.get(docSet((this.records[h.rec] as CodeRecord).file));
    return fams !== undefined && !fams.has(queryFamily);
  }

  private passes(h: Hit, filters: CodeLookupFilters): boolean {
    const r = this.records[h.rec] as CodeRecord;
    if (filters.manuals && filters.manuals.length > 0) {
      const m = r.manual.toLowerCase();
      if (!filters.manuals.some((x) => x.toLowerCase() === m)) return false;
    }
    if (filters.equipment && filters.equipment.length > 0) {
      const scope = (h.scope ?? r.scope).map((s) => s.toLowerCase());
      if (!filters.equipment.some((e) => scope.includes(e.toLowerCase()))) return false;
    }
    return true;
  }

  /** Defined codes of the same family within a small edit distance of the unknown one. */
  private nearestFor(c: DetectedCode, filters: CodeLookupFilters): CodeLookupResponse['nearest'] {
    if (c.strength !== 'strong') return [];
    const fk = this.byFamily.get(c.family);
    if (!fk) return [];
    const q = comparable(c.key, c.family);
    const max = q.length <= 3 ? 1 : 2;
    const found: { key: string; d: number }[] = [];
    if (fk.byLen) {
      // Small family (a manual's table): compare with every key of a near length.
      for (let len = q.length - max; len <= q.length + max; len++) {
        for (const cmp of fk.byLen.get(len) ?? []) {
          const d = boundedDistance(q, cmp, max);
          if (d <= max && d > 0) found.push({ key: fk.byComparable.get(cmp) as string, d });
        }
      }
    } else {
      // Large family: generate the query's edit neighbourhood over the family's alphabet and look
      // it up (distance 1; distance 2 only while the neighbourhood stays small).
      const seen = new Set<string>([q]);
      const level1 = neighbours(q, fk.alphabet);
      for (const v of level1) {
        if (seen.has(v)) continue;
        seen.add(v);
        const k = fk.byComparable.get(v);
        if (k) found.push({ key: k, d: 1 });
      }
      if (max >= 2 && found.length < this.nearestLimit && level1.length <= NEIGHBOURHOOD_LIMIT) {
        for (const v1 of level1) {
          for (const v of neighbours(v1, fk.alphabet)) {
            if (seen.has(v)) continue;
            seen.add(v);
            const k = fk.byComparable.get(v);
            if (k) found.push({ key: k, d: 2 });
          }
        }
      }
    }
    found.sort((a, b) => a.d - b.d || Math.abs(a.key.length - c.key.length) - Math.abs(b.key.length - c.key.length) || (a.key < b.key ? -1 : 1));
    const out: CodeLookupResponse['nearest'] = [];
    for (const { key } of found) {
      const hit = (this.exact.get(key) ?? []).find((h) => h.family === c.family && this.passes(h, filters));
      if (!hit) continue;
      const r = this.records[hit.rec] as CodeRecord;
      out.push({ code: displayCode(r, hit), title: r.title, manual: r.manual });
      if (out.length >= this.nearestLimit) break;
    }
    return out;
  }
}

/** Families up to this size are scanned for suggestions; larger ones use edit neighbourhoods. */
const SCAN_LIMIT = 5000;
/** Distance-2 neighbourhoods are generated only from distance-1 sets at most this large. */
const NEIGHBOURHOOD_LIMIT = 100;

interface FamilyKeys {
  /** Compared part (`9` of `alarm:9`) → key. */
  byComparable: Map<string, string>;
  /** Compared parts by length, for small families only (null = use neighbourhoods). */
  byLen: Map<number, string[]> | null;
  /** Characters used by the family's keys. */
  alphabet: string;
}

/** Every string one edit (delete, substitute, insert, swap neighbours) away from `s`. */
function neighbours(s: string, alphabet: string): string[] {
  const out: string[] = [];
  for (let i = 0; i < s.length; i++) {
    const head = s.slice(0, i);
    const tail = s.slice(i + 1);
    out.push(head + tail);
    for (const ch of alphabet) if (ch !== s[i]) out.push(head + ch + tail);
    if (i + 1 < s.length) out.push(head + (s[i + 1] as string) + (s[i] as string) + s.slice(i + 2));
  }
  for (let i = 0; i <= s.length; i++) {
    const head = s.slice(0, i);
    const tail = s.slice(i);
    for (const ch of alphabet) out.push(head + ch + tail);
  }
  return out;
}

/** The number a detected code is typed as (`0x41`, `error 65`), or null for other codes. */
function typedValue(c: DetectedCode): bigint | null {
  if (c.family === 'hex') return BigInt(`0x${c.key.slice(2)}`);
  // A bare number says nothing of being a value of errors ("65" may be a page, a speed); "error 65" does.
  if (!WORD_FAMILIES.has(c.family)) return null;
  const digits = comparable(c.key, c.family);
  return /^\d{1,15}$/.test(digits) && Number(digits) > 0 ? BigInt(digits) : null;
}

/** `bit 6` for a one-bit flag, its hexadecimal mask (`0x30`) for a wider one. */
function flagLabel(value: number): string {
  const bit = Math.log2(value);
  return Number.isInteger(bit) ? `bit ${bit}` : `0x${value.toString(16).toUpperCase()}`;
}

/** "Drive.Axis.Error flags" → "Drive Axis Error flags": the words a question can name an enumeration by. */
function contextWords(s: string): string {
  return s.replace(/([a-z])([A-Z])/g, '$1 $2').replace(/[._/]+/g, ' ');
}

/** The documentation set a file belongs to: its top folder (the machine's or vendor's manuals). */
function docSet(file: string): string {
  const at = file.indexOf('/');
  return at > 0 ? file.slice(0, at) : file;
}

/** Whether the question's words (otherWords) name a documentation set: a word of three letters or more of its folder's name ("servo", "acme" of "acme-error-codes"). */
function namesSet(words: string[], set: string): boolean {
  const own = set.toLowerCase().match(/[a-z][a-z0-9]{2,}/g) ?? [];
  return own.some((w) => words.includes(w));
}

/** A match in the question's language where the record has that translation (a Chinese question: 中文). */
function render(r: CodeRecord, h: Hit, zhFirst = false): CodeMatch {
  const want = zhFirst ? 'zh' : 'en';
  const t = r.lang !== want ? r.translations?.[want] : undefined;
  const words = t ?? r;
  return {
    code: r.code,
    key: h.key,
    title: words.title,
    description: words.description,
    cause: words.cause,
    remedy: words.remedy,
    severity: r.severity,
    scope: h.scope ?? r.scope,
    manual: r.manual,
    file: r.file,
    page: r.page,
    section: r.section,
    text: r.text,
    lang: t ? want : r.lang,
  };
}

/** The part of a key that edit distance compares: the number of `alarm:9`, the whole of others. */
function comparable(key: string, family: string): string {
  return WORD_FAMILIES.has(family) && key.startsWith(`${family}:`) ? key.slice(family.length + 1) : key;
}

/** A suggested code as the technician would type it: `13201` for an alias, `alarm:9` for a bare "9". */
function displayCode(r: CodeRecord, h: Hit): string {
  if (h.key !== r.key) return h.key.toUpperCase();
  if (WORD_FAMILIES.has(r.family) && /^\d+$/.test(r.code)) return r.key;
  return r.code;
}

/** The query's words besides its codes (`uvlo` of "flt 33 uvlo=true"), lower-cased, 3+ letters. */
function otherWords(text: string, detected: DetectedCode[]): string[] {
  let rest = text;
  for (const d of [...detected].sort((a, b) => b.start - a.start)) rest = rest.slice(0, d.start) + ' ' + rest.slice(d.end);
  return [...new Set((rest.toLowerCase().match(/[a-z][a-z0-9_]{2,}/g) ?? []))];
}

/**
 * How many of those words a definition holds: where a code is defined twice (a register table and
 * a troubleshooting page), the one about what the technician also wrote comes first.
 */
function wordsFound(words: string[], r: CodeRecord): number {
  if (words.length === 0) return 0;
  const hay = `${r.title} ${r.description} ${r.cause} ${r.remedy} ${r.text} ${r.section} ${r.file}`.toLowerCase();
  return words.filter((w) => new RegExp(`(?<![a-z0-9])${w}`).test(hay)).length;
}

/** How much a definition explains (meaning, cause, remedy), in steps of 40 characters: the fuller comes first. */
function fullness(r: CodeRecord): number {
  return Math.floor((r.description.length + r.cause.length + r.remedy.length) / 40);
}

function langRank(lang: string, zhFirst: boolean): number {
  return (lang === 'zh') === zhFirst ? 0 : 1;
}

function filterKey(list: string[] | undefined): string {
  return list && list.length > 0 ? [...list].map((s) => s.toLowerCase()).sort().join('\u0001') : '';
}

function round2(n: number): number {
  return Math.round(n * 100) / 100;
}

function dedupeSchemes(schemes: CodeScheme[]): CodeScheme[] {
  const seen = new Set<string>();
  return schemes.filter((s) => {
    const k = JSON.stringify([s.template, s.placeholder, s.prefixes, s.root ?? '']);
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
}
