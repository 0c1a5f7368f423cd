import { type Document as YamlDocument, parseAllDocuments } from 'yaml';
import { EngineError, type ParsedDocument } from '../../contract/index.js';
import { DocBuilder, rowText } from '../builder.js';
import { assertNesting, parseLimits } from '../limits.js';
import { indentNestingDepth } from '../nesting.js';
import type { TextAdapterInput } from './types.js';

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };
type Obj = { [k: string]: Json };

const META_KEYS: Record<string, 'title' | 'revision' | 'language' | 'publisher'> = {
  title: 'title',
  name: 'title',
  version: 'revision',
  revision: 'revision',
  language: 'language',
  lang: 'language',
  publisher: 'publisher',
  manufacturer: 'publisher',
  vendor: 'publisher',
};

/** Keeps alias expansion tiny so a "billion laughs" file cannot exhaust memory. */
const MAX_ALIAS_COUNT = 50;

/** YAML via `yaml` (aliases capped): records found anywhere become table rows; leading comments a paragraph. */
export function parseYamlDoc({ text, fileStem, limits = parseLimits(), name = 'This YAML file' }: TextAdapterInput, opts: { frontMatter?: boolean } = {}): ParsedDocument {
  // The YAML reader recurses once per block level (a stack overflow past about 900). Flow nesting
  // (`[[[…]]]`) is read without harm, as JSON's is: only the data's first levels become passages.
  assertNesting(name, 'indented blocks', indentNestingDepth(text), limits);
  const b = new DocBuilder('yaml');
  const meta: ParsedDocument['meta'] = {};
  let list = parseYaml(text);
  if (list.some((d) => d.errors.length)) {
    // PyYAML accepts quoted strings whose continuation lines are indented less than the key;
    // the YAML spec (and this parser) do not. Such files are common, so mend and retry once.
    const mended = mendQuotedContinuations(text);
    let mendedList = mended !== text ? parseYaml(mended) : list;
    if (mended !== text && !mendedList.some((d) => d.errors.length)) {
      b.warn('Some quoted texts in this YAML file continue on lines that are not indented enough; they were read as PyYAML reads them.');
    }
    // What still does not parse is left out, a few lines at a time, so one bad entry does not cost the file.
    const firstError = mendedList.flatMap((d) => d.errors)[0];
    const kept = firstError ? leaveOutBadLines(mended) : { docs: mendedList, text: mended, lines: [] };
    if (kept) {
      mendedList = kept.docs;
      if (kept.lines.length > 0) {
        b.warn(
          `${lineList(kept.lines)} of this YAML file ${kept.lines.length === 1 ? 'has' : 'have'} a syntax error and ${kept.lines.length === 1 ? 'was' : 'were'} left out; the rest of the file was read. Fix ${kept.lines.length === 1 ? 'it' : 'them'} and add the file again to read ${kept.lines.length === 1 ? 'it' : 'them'} too.`,
        );
      }
      list = mendedList;
    }
  }
  for (const doc of list) {
    const err = doc.errors[0];
    if (err) {
      throw new EngineError(
        'FILE_UNREADABLE',
        `This YAML file has a syntax error: ${err.message.split('\n')[0]}. Fix the file (or restore it from its source) and add it again.`,
      );
    }
    const comment = doc.commentBefore ?? doc.contents?.commentBefore ?? '';
    if (comment.trim()) b.add('paragraph', comment.replace(/^ ?/gm, '').trim());
    let value: Json;
    try {
      value = doc.toJS({ maxAliasCount: MAX_ALIAS_COUNT }) as Json;
    } catch (e) {
      throw new EngineError('FILE_UNREADABLE', `This YAML file could not be read: ${(e as Error).message}. Fix the file and add it again.`, { cause: e });
    }
    walkRoot(value, b, meta, fileStem, opts.frontMatter === true);
  }
  return b.finish(meta);
}

/** Syntax errors mended by leaving lines out before a YAML file is refused as unreadable. */
const MAX_LEFT_OUT_ERRORS = 20;

/**
 * Leaves out, one syntax error at a time, the lines the parser cannot place, so that one malformed
 * entry of a hand-edited file (`power: float32` followed by an indented `doc:`) does not cost the
 * whole file. At an error on a `key: value` line with more-indented lines under it, those lines go
 * (a scalar cannot have children); otherwise the error's own line. Lines become comments of the same
 * length, so every other node keeps its offsets. Null when the errors do not go away.
 */
function leaveOutBadLines(text: string): { docs: YamlDocument.Parsed[]; text: string; lines: number[] } | null {
  const lines = text.split('\n');
  const left = new Set<number>();
  for (let n = 0; n <= MAX_LEFT_OUT_ERRORS; n++) {
    const joined = lines.join('\n');
    const docs = parseYaml(joined);
    const err = docs.flatMap((d) => d.errors)[0];
    if (!err) return { docs, text: joined, lines: [...left].sort((a, b) => a - b).map((i) => i + 1) };
    if (n === MAX_LEFT_OUT_ERRORS) return null;
    const at = (err.linePos?.[0]?.line ?? 0) - 1;
    const line = lines[at];
    if (line === undefined) return null;
    const under = blockUnder(lines, at);
    const targets = under.length > 0 && /^\s*(?:-\s+)?[^\s#][^:#]*:\s+[^\s#|>]/.test(line) ? under : [at];
    if (targets.every((i) => left.has(i))) return null;
    for (const i of targets) {
      const l = lines[i] ?? '';
      if (!l.trim() || left.has(i)) continue;
      const j = l.length - l.trimStart().length;
      lines[i] = `${l.slice(0, j)}#${l.slice(j + 1)}`;
      left.add(i);
    }
  }
  return null;
}

/** Indices of the lines indented deeper than line `at` that follow it (blank lines within included). */
function blockUnder(lines: string[], at: number): number[] {
  const indent = (l: string) => l.length - l.trimStart().length;
  const own = indent(lines[at] ?? '');
  const out: number[] = [];
  for (let i = at + 1; i < lines.length; i++) {
    const l = lines[i] ?? '';
    if (!l.trim()) continue;
    if (indent(l) <= own) break;
    out.push(i);
  }
  return out;
}

/** "Line 726", "Lines 726–727", "Lines 12, 726–727". */
function lineList(lines: number[]): string {
  const runs: string[] = [];
  for (let i = 0; i < lines.length; ) {
    let j = i;
    while (j + 1 < lines.length && lines[j + 1] === (lines[j] ?? 0) + 1) j++;
    runs.push(j > i ? `${lines[i]}–${lines[j]}` : String(lines[i]));
    i = j + 1;
  }
  return `${lines.length === 1 ? 'Line' : 'Lines'} ${runs.join(', ')}`;
}

function parseYaml(text: string): YamlDocument.Parsed[] {
  const docs = parseAllDocuments(text, { prettyErrors: true, uniqueKeys: false });
  return Array.from(docs as Iterable<YamlDocument.Parsed>);
}

/**
 * Indents the continuation lines of multi-line double-quoted values ("key: \"text…" spanning lines)
 * so that they sit deeper than their key, as the YAML spec requires.
 */
export function mendQuotedContinuations(text: string): string {
  const lines = text.split('\n');
  let minIndent = -1;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] ?? '';
    if (minIndent >= 0) {
      if (line.trim() && line.length - line.trimStart().length < minIndent) lines[i] = ' '.repeat(minIndent) + line.trimStart();
      if (unescapedQuotes(line) % 2 === 1) minIndent = -1;
      continue;
    }
    const m = /^(\s*)(-\s+)?([^\s#"'][^:#]*):\s+"(.*)$/.exec(line);
    if (m && unescapedQuotes(m[4] ?? '') % 2 === 0) minIndent = (m[1] ?? '').length + (m[2] ?? '').length + 1;
  }
  return lines.join('\n');
}

function unescapedQuotes(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    if (s[i] === '\\') i++;
    else if (s[i] === '"') n++;
  }
  return n;
}

/** JSON: same mapping as YAML. */
export function parseJsonDoc({ text, fileStem }: TextAdapterInput): ParsedDocument {
  const b = new DocBuilder('json');
  const meta: ParsedDocument['meta'] = {};
  let value: Json;
  try {
    value = JSON.parse(text) as Json;
  } catch (e) {
    // A hand-edited table often ends an entry with a trailing comma: as YAML (a superset of JSON,
    // with trailing commas allowed in flow collections) it reads; anything else is still refused.
    const lenient = parseYaml(text);
    if (lenient.length !== 1 || lenient.some((d) => d.errors.length > 0)) {
      throw new EngineError('FILE_UNREADABLE', `This JSON file is not valid JSON (${(e as Error).message}). Fix the file and add it again.`, { cause: e });
    }
    value = (lenient[0] as YamlDocument.Parsed).toJS({ maxAliasCount: MAX_ALIAS_COUNT }) as Json;
    b.warn(`This file is not strict JSON (${(e as Error).message}); it was read as most tools read it (a trailing comma, for instance, is ignored).`);
  }
  walkRoot(value, b, meta, fileStem);
  return b.finish(meta);
}

const isObj = (v: Json | undefined): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const isScalar = (v: Json | undefined): v is string | number | boolean | null => v === null || typeof v !== 'object';

/**
 * A row of a YAML or JSON file is shown as its labelled fields, never as the file's source: a YAML
 * item's block markers (`doc: |`), indentation and quotes are syntax, not what the manual says. A
 * multi-line text keeps its lines: one field a line, the text's lines under its label.
 */
function row(b: DocBuilder, table: string, columns: string[], cells: string[]): void {
  b.row(table, columns, cells, cells.some((c) => c.includes('\n')) ? { raw: rowText(columns, cells) } : {});
}

/**
 * A page's front matter describes the page as well as the machine: a field whose value is one word, a
 * number or a flag (`tag: m0303`, `author: …`, `experimental: false`, `group: thermal`) files the
 * page; the fields that say something are written in words (`brief:`, `long:`, lists, parameters).
 */
function filesThePage(v: Json): boolean {
  if (!isScalar(v)) return false;
  const text = String(v ?? '').trim();
  // Chinese is written without spaces: a run of Han characters is words.
  return /^\S*$/u.test(text) && !/\p{Script=Han}{2}/u.test(text);
}

function walkRoot(value: Json, b: DocBuilder, meta: ParsedDocument['meta'], fileStem: string, frontMatter = false): void {
  if (Array.isArray(value)) {
    walk(value, fileStem, b, 0, []);
    return;
  }
  if (!isObj(value)) {
    if (value !== null && String(value).trim()) b.add('paragraph', String(value));
    return;
  }
  const scalars = Object.entries(value).filter(([, v]) => isScalar(v));
  const others = Object.entries(value).filter(([, v]) => !isScalar(v));
  const rest: [string, Json][] = [];
  for (const [k, v] of scalars) {
    const mk = META_KEYS[k.toLowerCase()];
    const s = v === null ? '' : String(v).trim();
    if (mk && s && meta[mk] === undefined) {
      if (mk === 'language') {
        if (/^en\b/i.test(s)) meta.language = 'en';
        else if (/^zh\b/i.test(s)) meta.language = 'zh';
      } else meta[mk] = s;
    } else if (!(frontMatter && filesThePage(v))) rest.push([k, v]);
  }
  // A root made mostly of scalars is a key/value table (message catalogue, code → text map).
  if (rest.length >= 5 && others.length === 0) {
    for (const [k, v] of rest) row(b, fileStem, ['key', 'value'], [k, scalarText(v)]);
  } else {
    for (const [k, v] of rest) if (scalarText(v)) b.add('definition', scalarText(v), { term: k });
  }
  // A top-level list of plain texts (`notes: [Requires X., Saved with M500.]`) is one labelled field, as
  // it is below the top level: walked as records, its texts were dropped.
  for (const [k, v] of others) {
    if (isScalarArray(v)) {
      const s = scalarText(v);
      if (s) b.add('definition', s, { term: k });
    } else walk(v, k, b, 1, [k]);
  }
}

function walk(value: Json, name: string, b: DocBuilder, depth: number, path: (string | number)[]): void {
  if (depth > 20) return;
  if (Array.isArray(value)) {
    const objects = value.filter(isObj).length;
    value.forEach((o, i) => {
      if (objects > 0 && objects >= value.length / 2) {
        if (!isObj(o)) return;
        const { columns, cells, nested } = flatten(o);
        row(b, name, columns, cells);
        for (const [k, v, p] of nested) walk(v, k, b, depth + 1, [...path, i, ...p]);
      } else if (!isScalar(o)) walk(o, name, b, depth + 1, [...path, i]);
    });
    return;
  }
  if (!isObj(value)) return;
  const entries = Object.entries(value);
  if (entries.length === 0) return;
  if (isEnumeration(name, entries, path[path.length - 2])) {
    // An error enumeration: `flags: { SOME_FAULT: { brief: …, doc: … }, … }` under an error type.
    // One row per identifier, named after the enclosing type ("ODrive.Axis.Error flags").
    entryRows(entries, enumerationName(path, name), 'description', b, depth, path);
    return;
  }
  if (isDocumentedMap(value)) {
    // An interface's attributes or functions, each documented (`vbus_voltage: {type, unit, brief}`),
    // some bare (`serial_number: readonly uint64`): one row each, named after the owning type.
    entryRows(entries, ownedName(path, name), 'value', b, depth, path);
    return;
  }
  if (entries.length >= 2 && entries.every(([, v]) => isObj(v))) {
    // A map of records: { "E01": { title: …, cause: … }, … }.
    for (const [k, v] of entries) {
      const { columns, cells, nested } = flatten(v as Obj);
      row(b, name, ['key', ...columns], [k, ...cells]);
      for (const [nk, nv, p] of nested) walk(nv, nk, b, depth + 1, [...path, k, ...p]);
    }
    return;
  }
  if (entries.every(([, v]) => isScalar(v) || isScalarArray(v))) {
    for (const [k, v] of entries) row(b, name, ['key', 'value'], [k, scalarText(v)]);
    return;
  }
  for (const [k, v] of entries) {
    if (isScalar(v) || isScalarArray(v)) {
      const s = scalarText(v);
      if (s) b.add('definition', s, { term: k });
    } else walk(v, k, b, depth + 1, [...path, k]);
  }
}

const isScalarArray = (v: Json): v is Json[] => Array.isArray(v) && v.every(isScalar);

/** One row per entry of a map under `table`, keyed by the entry's name: an object flattened, a scalar in `scalarColumn`. */
function entryRows(entries: [string, Json][], table: string, scalarColumn: string, b: DocBuilder, depth: number, path: (string | number)[]): void {
  for (const [k, v] of entries) {
    if (isObj(v)) {
      const { columns, cells, nested } = flatten(v);
      row(b, table, ['key', ...columns], [k, ...cells]);
      for (const [nk, nv, p] of nested) walk(nv, nk, b, depth + 1, [...path, k, ...p]);
    } else if (isScalar(v) || isScalarArray(v)) row(b, table, ['key', scalarColumn], [k, scalarText(v)]);
    else walk(v, k, b, depth + 1, [...path, k]);
  }
}

/** Documented entries that make a map a table of its own rather than columns of its parent's row. */
const MIN_DOCUMENTED = 3;

/**
 * True for a map of named things that document themselves (an interface's attributes: at least
 * three entries are objects with a description-like child): read as one row per entry, not
 * flattened into its parent's row (which made one 300-column row of a whole interface).
 */
function isDocumentedMap(v: Obj): boolean {
  let documented = 0;
  for (const x of Object.values(v)) if (isObj(x) && Object.keys(x).some((c) => DESCRIPTIVE.test(c)) && ++documented >= MIN_DOCUMENTED) return true;
  return false;
}

/** "ODrive.Axis config" for the attributes at interfaces › ODrive.Axis › attributes › config › attributes. */
function ownedName(path: (string | number)[], name: string): string {
  const keys = path.filter((p): p is string => typeof p === 'string');
  const at = keys.map((k) => /^[A-Z]|\./.test(k)).lastIndexOf(true);
  if (at < 0) return name;
  const parts = [keys[at] as string, ...keys.slice(at + 1).filter((k) => k !== 'attributes')];
  return parts.join(' ');
}

/** Keys that hold an enumeration of error identifiers (`flags:` of an error type, `errors:`, `alarm_codes:`). */
const ENUM_KEY = /^(?:flags|codes|values|enum|(?:[a-z]+[_-]?)?(?:errors?|faults?|alarms?|warnings?)(?:[_-]?(?:codes?|flags|list|table))?)$/i;
/** Type names that say their values are errors (`ODrive.Axis.Error`, `MotorError`, `alarm_codes`). */
const ERROR_NAME = /(?:errors?|faults?|alarms?|warnings?)(?:[_-]?(?:codes?|flags))?$|^(?:errors?|faults?|alarms?)\b/i;
/**
 * An identifier as firmware writes one: UPPER_SNAKE (`PHASE_RESISTANCE_OUT_OF_RANGE`, `DRV_FAULT`,
 * `TIMEOUT`) or PascalCase (`PhaseResistanceOutOfRange`, `Overspeed`, `ADCFailed`).
 */
const IDENT_KEY = /^[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)*$|^[A-Z][A-Za-z0-9]*[a-z][A-Za-z0-9]*$/;
/** Children that describe an entry (its meaning or what to do). */
const DESCRIPTIVE = /^(?:brief|doc|docs|description|desc|message|msg|text|title|remedy|action|actions|solution|cause|meaning|help|summary)$/i;

/**
 * True for a map of error identifiers: the map's own key (or its type's name) says it lists errors
 * or flags, and most of its keys are identifiers (UPPER_SNAKE or PascalCase). Where neither the key
 * nor its parent (`error: flags:`) says error, half of them must also describe themselves (a
 * description-like child or a plain text): identifiers that nothing presents as errors stay
 * ordinary data. Under an error key, entries without a description are errors all the same.
 */
function isEnumeration(name: string, entries: [string, Json][], parent?: string | number): boolean {
  const key = name.split(/[.:/]/).pop() ?? name;
  if (!ENUM_KEY.test(key)) return false;
  const errorKey = ERROR_NAME.test(key) || (typeof parent === 'string' && ERROR_NAME.test(parent.split(/[.:/]/).pop() ?? parent));
  // A type with one error flag (`error: flags: {DuplicateCanIds: }`) lists it all the same.
  if (entries.length < (errorKey ? 1 : 2)) return false;
  let idents = 0;
  let described = 0;
  for (const [k, v] of entries) {
    if (!IDENT_KEY.test(k)) continue;
    idents++;
    if ((typeof v === 'string' && v.trim() !== '') || (isObj(v) && Object.keys(v).some((c) => DESCRIPTIVE.test(c)))) described++;
  }
  return idents >= entries.length * 0.8 && (errorKey || described >= idents * 0.5);
}

/** The table name of an enumeration: its enclosing type and its key ("ODrive.Axis.Error flags"). */
function enumerationName(path: (string | number)[], name: string): string {
  const keys = path.filter((p): p is string => typeof p === 'string');
  const own = keys[keys.length - 1] ?? name;
  const above = keys.slice(0, -1);
  const at = above.map((k) => ERROR_NAME.test(k.split('.').pop() ?? k)).lastIndexOf(true);
  const parent = at >= 0 ? above[at] : above[above.length - 1];
  if (!parent || parent === own) return own;
  // An `error:` attribute of a type (`ODrive.Motor: attributes: error: flags:`) is that type's error.
  const owner = at > 0 && !/[.A-Z]/.test(parent) ? [...above.slice(0, at)].reverse().find((k) => /^[A-Z]|\./.test(k)) : undefined;
  return owner ? `${owner} ${parent} ${own}` : `${parent} ${own}`;
}

function scalarText(v: Json): string {
  if (v === null) return '';
  // A list of sentences stays a sentence a line ("Requires X." / "Saved with M500."); a list of words is one line.
  if (Array.isArray(v)) {
    const items = v.map(scalarText).filter(Boolean);
    return items.join(items.length > 1 && items.every((x) => /[.!?。！？]$/u.test(x)) ? '\n' : ', ');
  }
  if (typeof v === 'object') return '';
  return String(v).trim();
}

/** Flattens nested objects into "a.b" columns; arrays of scalars are joined; arrays of records are returned apart. */
function flatten(o: Obj): { columns: string[]; cells: string[]; nested: [string, Json, string[]][] } {
  const columns: string[] = [];
  const cells: string[] = [];
  const nested: [string, Json, string[]][] = [];
  const visit = (obj: Obj, prefix: string, keys: string[], depth: number): void => {
    for (const [k, v] of Object.entries(obj)) {
      const key = prefix ? `${prefix}.${k}` : k;
      if (isScalar(v) || isScalarArray(v)) {
        columns.push(key);
        cells.push(scalarText(v));
      } else if (isObj(v) && depth < 5 && !isEnumeration(k, Object.entries(v), keys[keys.length - 1]) && !isDocumentedMap(v)) visit(v, key, [...keys, k], depth + 1);
      else nested.push([k, v, [...keys, k]]);
    }
  };
  visit(o, '', [], 0);
  return { columns, cells, nested };
}
