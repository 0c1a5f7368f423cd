/**
 * Turns a parsed document into fault-code records. Sources, in the order they are tried:
 *
 *  1. Tables (CSV, YAML, JSON, .properties, XLSX, and tables inside Markdown/AsciiDoc/HTML/PDF):
 *     the code column is recognised by its header (code, error, alarm, fault, dtc, id, key, 代码,
 *     故障码, 报警…) AND by its content (most cells normalise to codes); text columns by header
 *     words (message/title, description/text/meaning/value, cause/reason, action/remedy/solution,
 *     severity/level/type, printers/models/equipment). Settings/parameter tables are left out.
 *     Plain numbers under a code header take the family a header or the nearest heading names
 *     ("Code" under "Alarm codes": alarm 14, not error 14), when it names one.
 *  2. Headings that are codes (`E-204 Motor overload`, `Alarm 21`, `W-2001 Fan speed low` in an
 *     error section): the blocks that follow, up to
 *     the next heading of the same level, become description / cause / remedy by their labels
 *     ("Cause:", a "Remedy" sub-heading) or wording ("Check…", "Caused by…").
 *  3. Definition lists whose term is a code.
 *  4. Prose lines that start with a code and a separator (`E-204: …`, `Alarm 21 – …`, `error:9 …`,
 *     `F0023 Overcurrent…`), and in an error section (heading, or a list's lead-in sentence, names
 *     errors/faults/alarms): `32 - *name* - text`, `"43 (no position)": text`, `**97 max_power**: text`,
 *     `C-02 Low coolant flow: text` (also several run together in one PDF paragraph), `-10000：…`.
 *     Numbered lines that mix padding (`12`, `2`, `01`: a code's parts explained) give nothing.
 * Structured enumerations (`flags:` of an error type in YAML/JSON, see parse/formats/structured.ts)
 * arrive as tables: one-word identifiers count there, the type's name gives prefixed aliases
 * (`error_…`, `axis_error_…`) and a scope word; per-language columns (`en.description`,
 * `zh_CN.solution`) give one record in the entry's English (else first) language, its row text
 * keeping every translation. A merged header ("Meaning Remedy") gives each part its role.
 * UPPER_SNAKE ids count only where the document presents them as errors (an error/fault/alarm
 * word in the column header, table name or nearest heading, or in the id itself).
 *
 * One record per code per source row/passage: a code defined in several rows (e.g. for different
 * printer lists) gives several records with different scope.
 */
import type { Block, CodeRecord, Lang, ParsedDocument } from '../contract/document.js';
import { tableRowText, tableRowTexts } from '../chunk/normalize.js';
import { parseJsonDoc, parseYamlDoc } from '../parse/formats/structured.js';
import { columnLanguage, productLanguage } from '../text/lang.js';
import { detectCodes } from './detect.js';
import { normalizeCode, snakeOfPascal, type NormalizedCode } from './normalize.js';
import {
  ERROR_CONTEXT,
  cleanCell,
  firstSentence,
  isCauseSentence,
  isRemedySentence,
  keepsLabel,
  labelledParts,
  langOf,
  plainField,
  roleOfLabel,
  splitLabel,
  splitList,
  splitRemedy,
  splitSentences,
  withoutEmphasis,
  type Role,
} from './text.js';

export interface ExtractContext {
  /** Path relative to the ingested root. */
  file: string;
  /** Manual title (sidecar, document or file name). */
  manual: string;
  /** Equipment from the sidecar; becomes the scope of records whose source names none. */
  equipment: string[];
}

type ColumnRole = 'scope' | 'cause' | 'remedy' | 'title' | 'description' | 'severity';

const ROLE_HEADERS: readonly (readonly [ColumnRole, RegExp])[] = [
  ['scope', /\b(?:printers?|models?|equipment|machines?|applies to|applicable|products?|devices?|variants?)\b|机型|型号|适用/],
  ['cause', /\b(?:causes?|reasons?|why)\b|原因/],
  [
    'remedy',
    /\b(?:actions?|remed(?:y|ies)|solutions?|fix(?:es)?|corrective|countermeasures?|resolution|what to do|measures?|troubleshooting)\b|处理|措施|解决|对策|方法/,
  ],
  // "Protective function": a drive's table names each protection its code reports.
  ['title', /\b(?:message|messages|msg|title|name|short|summary|label|brief|function)\b|名称|标题|信息|消息|提示/],
  ['description', /\b(?:description|desc|text|meaning|details?|explanation|definition|value|comments?|notes?|remarks?|docs?|documentation|help)\b|说明|描述|含义|内容|解释|定义|备注|注释|附注/],
  ['severity', /\b(?:severity|level|type|class|priority|kind)\b|等级|级别|类型|类别/],
];
/** Headers that say "this column holds codes". */
const STRONG_CODE_HEADER = /\b(?:codes?|errors?|err|alarms?|alm|faults?|dtcs?)\b|代码|故障码|报警|错误|故障|代号/;
/** Headers that name only an identifier or a position: the table must be about faults as well. */
const WEAK_CODE_HEADER = /\b(?:id|ids|key|no|nr|number|num|identifier|ident)\b|^#$|编号|序号/;
const FAMILY_IN_HEADER = /\b(error|alarm|fault)s?\b|(报警|警报)|(错误)|(故障)(?!码)/;
const SETTING_HEADER = /\b(?:settings?|parameters?|params?|options?|registers?|variables?)\b|参数|设置/;
/** Words that make a table about faults (a plain "Code" column may hold G-codes or settings). */
const FAULT_CONTEXT = /\b(?:errors?|err|faults?|alarms?|dtcs?|diagnostics?|trouble|failures?|warnings?)\b|故障|报警|错误|警报/i;

function headerKey(h: string): string {
  // "ErrorID", "AlarmCode" are two words.
  return h.normalize('NFKC').replace(/([a-z])([A-Z])/g, '$1 $2').toLowerCase().replace(/[_\s]+/g, ' ').trim();
}

function roleOfHeader(h: string): ColumnRole | null {
  const k = headerKey(h);
  for (const [role, re] of ROLE_HEADERS) if (re.test(k)) return role;
  return null;
}

/** A column the parser named for want of a header ("Column 3"). */
const PLACEHOLDER_COLUMN = /^Column \d+$/;

/** The two roles of a header that holds two header words ("Meaning Remedy", "Cause Action"), or null. */
function mergedRoles(h: string): [ColumnRole, ColumnRole] | null {
  const words = headerKey(h).split(' ');
  if (words.length < 2) return null;
  for (let i = 1; i < words.length; i++) {
    const a = roleOfHeader(words.slice(0, i).join(' '));
    const b = roleOfHeader(words.slice(i).join(' '));
    if (a && b && a !== b) return [a, b];
  }
  return null;
}

/** The one code family a heading names ("Alarm codes" → alarm); none when it names two ("Alarm and error codes") or none. */
function soleFamily(heading: string): string | undefined {
  const found = new Set<string>();
  const key = headerKey(heading);
  for (const word of key.split(/[\s,/&]+/)) {
    const f = familyInText(word);
    if (f) found.add(f);
  }
  return found.size === 1 ? [...found][0] : undefined;
}

function familyInText(text: string): string | undefined {
  const m = FAMILY_IN_HEADER.exec(headerKey(text));
  if (!m) return undefined;
  if (m[1]) return m[1];
  if (m[2]) return 'alarm';
  if (m[3]) return 'error';
  return 'fault';
}

/** A table row as column name → cell (rows of one table may have different columns: YAML items). */
type Row = Map<string, string>;

interface TableLayout {
  code: string;
  family?: string;
  /** The code column holds identifiers (`DRV_FAULT`, `TIMEOUT`): one-word ones count too ('enumeration': see normalizeCode). */
  identifiers: boolean | 'enumeration';
  /** Columns under a merged header ("Meaning Remedy") whose cells hold both texts run together. */
  mergedCols: Map<string, [ColumnRole, ColumnRole]>;
  symbolAlias: string | null;
  roles: Map<ColumnRole, string[]>;
}

/** Normalises one code cell; a cell may list several codes (`E01, E02`). */
function cellCodes(cell: string, family: string | undefined, identifier: boolean | 'enumeration' = false): { raw: string; n: NormalizedCode }[] {
  const raw = cleanCell(cell);
  if (!raw) return [];
  const ctx = family || identifier ? { family, identifier } : undefined;
  const n = normalizeCode(raw, ctx);
  if (n) return [{ raw, n }];
  const parts = raw.split(/\s*[,;/、，]\s*/u).filter(Boolean);
  if (parts.length < 2) return [];
  const out: { raw: string; n: NormalizedCode }[] = [];
  for (const p of parts) {
    const pn = normalizeCode(p, ctx);
    if (!pn) return [];
    out.push({ raw: p, n: pn });
  }
  return out;
}

function isSelfIdentifying(family: string): boolean {
  return family === 'error' || family === 'alarm' || family === 'fault' || family.startsWith('obd-');
}

const ENUMERATION_CONTEXT = /\b(?:errors?|faults?|alarms?|warnings?)\s+(?:flags|codes?|enum|values)\b/i;

/** Works out which column holds codes and what the other columns mean; null = not a code table. */
export function analyzeTable(rows: Row[], context: string, headingFamily?: string): TableLayout | null {
  const columns: string[] = [];
  for (const r of rows) for (const c of r.keys()) if (!columns.includes(c)) columns.push(c);
  const roles = new Map<ColumnRole, string[]>();
  const codeHeaderCols = new Set<string>();
  const mergedCols = new Map<string, [ColumnRole, ColumnRole]>();
  for (let c = 0; c < columns.length; c++) {
    const h = columns[c] as string;
    const k = headerKey(h);
    // "Meaning Remedy" over two columns (a merged header cell, the next one unnamed): one role each.
    const merged = mergedRoles(h);
    const next = columns[c + 1];
    if (merged && next !== undefined && PLACEHOLDER_COLUMN.test(next)) {
      roles.set(merged[0], [...(roles.get(merged[0]) ?? []), h]);
      roles.set(merged[1], [...(roles.get(merged[1]) ?? []), next]);
      c++;
      continue;
    }
    if (merged) {
      // Both texts in one cell under one header: the cell is split per row (see splitMergedCell).
      mergedCols.set(h, merged);
      roles.set(merged[0], [...(roles.get(merged[0]) ?? []), h]);
      roles.set(merged[1], [...(roles.get(merged[1]) ?? []), mergedPart(h, merged[1])]);
      continue;
    }
    const role = roleOfHeader(h);
    if (role) roles.set(role, [...(roles.get(role) ?? []), h]);
    else if (STRONG_CODE_HEADER.test(k) || WEAK_CODE_HEADER.test(k)) codeHeaderCols.add(h);
  }
  const otherHeaderFamily = columns.map((h) => familyInText(h)).find(Boolean);
  const tableContext = `${columns.join(' ')} ${context}`;
  // An error enumeration ("Drive Axis error flags", a heading "Alarm codes"): its ids may be one capitalised word.
  const enumeration = ENUMERATION_CONTEXT.test(context);

  let best: { col: string; family?: string; score: number } | null = null;
  let symbolCol: string | null = null;
  for (const header of columns) {
    const byHeader = codeHeaderCols.has(header);
    // "Code" under a heading "Alarm codes": the heading says which family its numbers are.
    const family = familyInText(header) ?? otherHeaderFamily ?? headingFamily;
    let total = 0;
    let ok = 0;
    let symbols = 0;
    let selfId = 0;
    for (const r of rows) {
      const cell = r.get(header) ?? '';
      if (!cell.trim()) continue;
      total++;
      const codes = cellCodes(cell, byHeader ? family : undefined, byHeader && enumeration ? 'enumeration' : byHeader);
      if (codes.length === 0) continue;
      ok++;
      if (codes[0]?.n.family === 'symbol') symbols++;
      if (codes.every((c) => isSelfIdentifying(c.n.family))) selfId++;
    }
    if (total === 0) continue;
    const share = ok / total;
    if (symbols / total >= 0.6) {
      // A dotted column is an attribute of a nested object (`attributes.error.nullflag`), not what the row is.
      if ((byHeader || /\b(?:name|ids?)\b/.test(headerKey(header))) && !header.includes('.')) symbolCol ??= header;
      continue;
    }
    // Without a code-like header, only codes that say what they are (E-204, AL21, P0301).
    const accepted = (byHeader && share >= 0.6) || (!roleOfHeader(header) && selfId / total >= 0.8);
    if (!accepted) continue;
    const score = share + (byHeader ? 1 : 0) + selfId / total;
    if (!best || score > best.score) best = { col: header, family: byHeader ? family : undefined, score };
  }

  let code: string;
  let family: string | undefined;
  let symbolAlias: string | null = null;
  let identifiers: boolean | 'enumeration' = false;
  if (best) {
    code = best.col;
    family = best.family;
    symbolAlias = symbolCol;
  } else if (symbolCol !== null && ERROR_CONTEXT.test(tableContext)) {
    code = symbolCol;
    identifiers = codeHeaderCols.has(symbolCol) ? (enumeration ? 'enumeration' : true) : false;
  } else {
    return null;
  }
  const codeHeader = headerKey(code);
  // Settings / parameter tables ($0, $1…) are not fault codes.
  if (!familyInText(codeHeader) && columns.some((c) => SETTING_HEADER.test(headerKey(c)))) return null;
  // A table that says what to do about each row (a remedy column: "solution", "remedy") is about faults.
  const faultContext = family !== undefined || roles.has('remedy') || FAULT_CONTEXT.test(tableContext);
  let selfId = 0;
  let numbers = 0;
  let total = 0;
  for (const r of rows) {
    const c = cellCodes(r.get(code) ?? '', family, identifiers)[0];
    if (!c) continue;
    total++;
    if (isSelfIdentifying(c.n.family)) selfId++;
    else if (c.n.family === 'number') numbers++;
  }
  if (total === 0) return null;
  if (selfId / total < 0.5 && !faultContext) {
    // Plain numbers under a "Code" header may be fault codes; "ID"/"#" numbers and letter codes
    // (G17, M60, PD004) need the table to be about faults.
    const strongHeader = STRONG_CODE_HEADER.test(codeHeader);
    if (!(strongHeader && numbers / total >= 0.5)) return null;
  }
  // A table without a header ("Column 1…"): the columns after the code are its text, in order
  // (the first names it; sentences that say what to do are the remedy, see fields()).
  if (roles.size === 0 && columns.every((c) => PLACEHOLDER_COLUMN.test(c))) {
    const text = columns.filter((c) => c !== code);
    if (text.length > 0) roles.set('description', text);
  }
  // A text column headed like a code ("Fault": "Illegal Function") names the fault.
  for (const h of columns) {
    if (h === code || h === symbolAlias || roleOfHeader(h)) continue;
    if (!STRONG_CODE_HEADER.test(headerKey(h))) continue;
    const texty = rows.filter((r) => (r.get(h) ?? '').trim() !== '').every((r) => cellCodes(r.get(h) ?? '', undefined).length === 0);
    if (!texty) continue;
    const role: ColumnRole = roles.has('title') ? 'description' : 'title';
    roles.set(role, [...(roles.get(role) ?? []), h]);
  }
  return { code, family, identifiers, symbolAlias, roles, mergedCols };
}

/** "alarmController", "ODrive.Axis.Error", "motor_errors" → words a context test can see. */
export function contextWords(s: string): string {
  return s.replace(/([a-z])([A-Z])/g, '$1 $2').replace(/[._/]+/g, ' ');
}

function rowOf(b: Block): Row {
  const m: Row = new Map();
  const cols = b.columns ?? [];
  (b.cells ?? []).forEach((c, i) => m.set(cols[i] ?? `Column ${i + 1}`, c));
  return m;
}

interface Fields {
  title: string;
  description: string;
  cause: string;
  remedy: string;
}

/** Fills title/description/cause/remedy from text parts, splitting remedy sentences off descriptions. */
function fields(parts: { title?: string; description?: string | string[]; cause?: string; remedy?: string }): Fields {
  // Several description columns (Description, Note / 描述, 备注): each keeps its own line, and the
  // first one names the code; a second one is detail, not the name.
  const cols = (Array.isArray(parts.description) ? parts.description : [parts.description ?? '']).map(plainField).filter(Boolean);
  const splits = cols.map(splitRemedy);
  const rest = splits.map((x) => x.rest).filter(Boolean);
  const description = rest.join('\n');
  const remedy = [...splits.map((x) => x.remedy), plainField(parts.remedy ?? '')].filter(Boolean).join(' ');
  const cause = plainField(parts.cause ?? '');
  const title = plainField(parts.title ?? '') || firstSentence(rest[0] || cause || remedy);
  return { title, description, cause, remedy };
}

function section(b: Block): string {
  return b.headingPath.join(' > ');
}

/** A row's text as its passage shows it (chunk/normalize.ts), so a passage finds its record by its text. */
function rowText(b: Block): string {
  const shown = tableRowText(b);
  if (shown) return shown;
  if (b.text) return b.text;
  const cols = b.columns ?? [];
  return (b.cells ?? [])
    .map((c, i) => (c ? `${cols[i] ?? `Column ${i + 1}`}: ${c}` : ''))
    .filter(Boolean)
    .join('\n');
}

class RecordSink {
  readonly records: CodeRecord[] = [];
  constructor(
    private readonly ctx: ExtractContext,
    private readonly docLang: Lang | null,
  ) {}

  /** The scope a record gets when its source names none, with `extra` (a type's scope word) added. */
  defaultScope(extra: string): string[] {
    const base = this.ctx.equipment.length > 0 ? [...this.ctx.equipment] : [this.ctx.manual];
    return base.includes(extra) ? base : [...base, extra];
  }

  add(raw: string, n: NormalizedCode, f: Fields, src: Block, text: string, extra: Partial<CodeRecord> = {}): void {
    const lang = langOf(`${f.title} ${f.description} ${f.cause} ${f.remedy}`, this.docLang ?? 'en');
    const scope =
      extra.scope && extra.scope.length > 0
        ? extra.scope
        : this.ctx.equipment.length > 0
          ? [...this.ctx.equipment]
          : [this.ctx.manual];
    this.records.push({
      code: raw,
      key: n.key,
      family: n.family,
      aliases: extra.aliases ?? [],
      title: f.title,
      description: f.description,
      cause: f.cause,
      remedy: f.remedy,
      severity: extra.severity ?? null,
      scope,
      lang,
      manual: this.ctx.manual,
      file: this.ctx.file,
      page: src.page,
      section: section(src),
      text,
      ...(extra.translations ? { translations: extra.translations } : {}),
      ...(extra.flag ? { flag: extra.flag } : {}),
    });
  }
}

/** Rows of a table looked at to decide its layout. */
const ANALYSIS_SAMPLE = 200;

/**
 * `headingContext`: whether the headings above a table count towards its being about faults (an
 * example in a code block must say so itself: its keys and columns, see structuredExamples).
 * `fixedColumns`: whether every row of one table has the table's columns (all formats but YAML and
 * JSON, whose items may each have other keys): there, rows with other columns begin another table,
 * as a page's "Alarm | Description" table followed by its "Error | Message | Description" table.
 */
function extractTables(blocks: Block[], sink: RecordSink, consumed: Set<number>, headingContext = true, fixedColumns = false): void {
  let i = 0;
  while (i < blocks.length) {
    const b = blocks[i] as Block;
    if (b.kind !== 'table-row' || !b.cells) {
      i++;
      continue;
    }
    // One table = consecutive rows with the same table name (their columns may differ: YAML items).
    let j = i;
    while (j < blocks.length) {
      const c = blocks[j] as Block;
      if (c.kind !== 'table-row' || !c.cells || (c.table ?? '') !== (b.table ?? '')) break;
      if (j > i && (fixedColumns || (b.table ?? '') === '') && (c.columns ?? []).join('\u0000') !== (b.columns ?? []).join('\u0000')) break;
      j++;
    }
    const group = blocks.slice(i, j);
    const rows = group.map(rowOf);
    // The layout is decided on a sample: a 100k-row table needs no 100k-row vote.
    const step = Math.max(1, Math.floor(rows.length / ANALYSIS_SAMPLE));
    const sample = step === 1 ? rows : rows.filter((_, k) => k % step === 0);
    const headings = headingContext ? b.headingPath.slice(-2).join(' ') : '';
    const layout = analyzeTable(sample, contextWords(`${b.table ?? ''} ${headings}`), headingContext ? soleFamily(nearestHeading(b)) : undefined);
    if (layout) {
      for (let k = 0; k < group.length; k++) {
        tableRow(group[k] as Block, rows[k] as Row, layout, sink);
        consumed.add(i + k);
      }
    }
    i = j;
  }
}

/**
 * The language whose columns give a row's fields when one entry holds several translations
 * (`{"id": 16, "en": {…}, "zh_CN": {…}}`): English where it has text, else the first that has.
 * Null when the columns carry no language.
 */
function rowLanguage(row: Row, layout: TableLayout): string | null {
  const langs: string[] = [];
  for (const cols of layout.roles.values()) {
    for (const c of cols) {
      const l = columnLanguage(c);
      if (l && cleanCell(row.get(c) ?? '') !== '' && !langs.includes(l)) langs.push(l);
    }
  }
  if (langs.length === 0) return null;
  return langs.find((l) => l === 'en' || l.startsWith('en')) ?? (langs[0] as string);
}

/**
 * Splits a cell under a merged header ("Meaning Remedy": "Low coolant flow Check the pump.") where
 * the second text starts: the first word from which on the rest reads as a remedy (or a cause).
 */
function splitMergedCell(cell: string, second: ColumnRole): [string, string] | null {
  const words = cell.split(/\s+/);
  for (let i = 1; i < words.length; i++) {
    const tail = words.slice(i).join(' ');
    if (!/^[\p{Lu}\u4e00-\u9fff]/u.test(tail)) continue;
    if (second === 'remedy' ? isRemedySentence(tail) : second === 'cause' ? isCauseSentence(tail) : false) {
      return [words.slice(0, i).join(' '), tail];
    }
  }
  return null;
}

/** The virtual column that holds the second text of a merged column's cells. */
function mergedPart(col: string, role: ColumnRole): string {
  return `${col}\u0000${role}`;
}

function tableRow(b: Block, srcRow: Row, layout: TableLayout, sink: RecordSink): void {
  let row = srcRow;
  for (const [col, [, second]] of layout.mergedCols) {
    const cut = splitMergedCell(cleanCell(row.get(col) ?? ''), second);
    if (!cut) continue;
    row = new Map(row);
    row.set(col, cut[0]);
    row.set(mergedPart(col, second), cut[1]);
  }
  const lang = rowLanguage(row, layout);
  const flag = flagValue(row, b.table ?? '');
  const columnsOf = (role: ColumnRole): string[] =>
    (layout.roles.get(role) ?? []).filter((c) => c !== flag?.column && (lang === null || (columnLanguage(c) ?? lang) === lang));
  const cells = (role: ColumnRole): string[] => columnsOf(role).map((c) => cleanCell(row.get(c) ?? '')).filter(Boolean);
  const get = (role: ColumnRole): string => cells(role).join('\n');
  const codes = cellCodes(row.get(layout.code) ?? '', layout.family, layout.identifiers);
  if (codes.length === 0) return;
  // A remedy cell that starts with a label of its own ("**Fix:** …") says "Remedy" once.
  const labelled = splitLabel(get('remedy'));
  const remedyCell = labelled.role === 'remedy' ? labelled.rest : get('remedy');
  const f = fields({
    title: columnsOf('title').map((c) => cleanCell(row.get(c) ?? '')).find(Boolean),
    description: cells('description'),
    cause: get('cause'),
    remedy: remedyCell ? (isActionList(remedyCell, columnsOf('remedy')) ? actionList(remedyCell) : remedyCell) : '',
  });
  const translations = otherLanguages(row, layout, lang);
  // A per-language entry's record quotes the row in its own language, as its passage reads.
  const text = (lang !== null ? tableRowTexts(b).find((t) => t.tag === lang)?.text : undefined) ?? rowText(b);
  const scopeCell = get('scope');
  const scope = scopeCell ? splitList(scopeCell) : [];
  const severity = get('severity') || null;
  const aliasCell = layout.symbolAlias !== null ? cleanCell(row.get(layout.symbolAlias) ?? '') : '';
  const alias = aliasCell ? normalizeCode(aliasCell) : null;
  const type = n0IsSymbol(codes) ? errorType(b.table ?? '') : null;
  for (const { raw, n } of codes) {
    const aliases = alias && alias.key !== n.key ? [alias.key] : [];
    if (type && n.family === 'symbol') aliases.push(...type.prefixes.map((p) => `${p}_${n.key}`).filter((k) => k !== n.key));
    sink.add(raw, n, f, b, text, {
      scope: scope.length > 0 ? scope : type?.scope ? sink.defaultScope(type.scope) : [],
      severity,
      aliases,
      ...(translations ? { translations } : {}),
      ...(flag ? { flag: { value: flag.value, enumeration: b.table ?? '' } } : {}),
    });
  }
}

/** A column that states a flag's bit position (`bit: 6`). */
const BIT_HEADER = /^(?:bit|bit (?:no|nr|number|index|position|pos))$/;
/** A column that states a flag's value (`value: 0x40`, `mask: 1 << 6`). */
const MASK_HEADER = /^(?:value|mask|bit ?mask|bit value)$/;
/** Tables of flags: an error type's `flags:` ("Drive.Axis.Error flags"), a "Fault bits" register. */
const FLAGS_TABLE = /\b(?:flags|bits|bit ?field|bit ?mask)\b/i;

/**
 * The value an entry of an enumeration of flags states for itself: `bit: 6` → 0x40, `value: 0x40`,
 * `mask: 1 << 6` (a `value`/`mask` column counts only in a table of flags; a code list's `value`
 * is its text). Null where the entry states none: bits are never guessed from the entries' order.
 */
function flagValue(row: Row, table: string): { column: string; value: number } | null {
  for (const [column, cell] of row) {
    const h = headerKey(column);
    const s = cleanCell(cell);
    if (BIT_HEADER.test(h)) {
      if (/^\d{1,2}$/.test(s) && Number(s) < 53) return { column, value: 2 ** Number(s) };
    } else if (MASK_HEADER.test(h) && FLAGS_TABLE.test(contextWords(table))) {
      const v = maskOf(s);
      if (v !== null) return { column, value: v };
    }
  }
  return null;
}

/** `0x40`, `64`, `1 << 6`, `(1<<6)`, `0b1000000` → 64; null for anything else or zero. */
function maskOf(s: string): number | null {
  const shift = /^\(?\s*1u?\s*<<\s*(\d{1,2})\s*\)?$/i.exec(s);
  const v = shift
    ? 2 ** Number(shift[1])
    : /^0x[0-9a-f]{1,13}$/i.test(s)
      ? parseInt(s.slice(2), 16)
      : /^0b[01]{1,52}$/i.test(s)
        ? parseInt(s.slice(2), 2)
        : /^\d{1,15}$/.test(s)
          ? Number(s)
          : null;
  return v !== null && v > 0 && Number.isSafeInteger(v) ? v : null;
}

/** The fields of a per-language entry's other languages the product speaks (en, zh), by language. */
function otherLanguages(row: Row, layout: TableLayout, chosen: string | null): CodeRecord['translations'] | undefined {
  if (chosen === null) return undefined;
  const out: NonNullable<CodeRecord['translations']> = {};
  const langs = new Set<string>();
  for (const cols of layout.roles.values()) for (const c of cols) { const l = columnLanguage(c); if (l && l !== chosen) langs.add(l); }
  for (const l of langs) {
    const lang = productLanguage(l);
    if (!lang || lang === productLanguage(chosen) || out[lang]) continue;
    const cells = (role: ColumnRole): string[] =>
      (layout.roles.get(role) ?? []).filter((c) => columnLanguage(c) === l).map((c) => cleanCell(row.get(c) ?? '')).filter(Boolean);
    const get = (role: ColumnRole): string => cells(role).join('\n');
    const f = fields({ title: get('title') || undefined, description: cells('description'), cause: get('cause'), remedy: get('remedy') });
    if (f.title || f.description || f.cause || f.remedy) out[lang] = f;
  }
  return Object.keys(out).length > 0 ? out : undefined;
}

function n0IsSymbol(codes: { n: NormalizedCode }[]): boolean {
  return codes[0]?.n.family === 'symbol';
}

/** Words of an error type's name that say error (`Error`, `Fault`, `Alarm`, `Warning`). */
const ERROR_WORD = /^(?:errors?|faults?|alarms?|warnings?|err|flt)$/i;
/** Words that name an enumeration's key, not the type (`flags`, `codes`, `values`). */
const ENUM_WORD = /^(?:flags|codes?|values|enum|list|table)$/i;

/**
 * What an identifier's error type gives it: the prefixes tools print before it (the type's name and
 * its error word: `axis_error`, `error`) and the scope the type names (`Axis`). From the table name
 * of a structured enumeration ("ODrive.Axis.Error flags", "MotorError", "encoder_errors").
 */
export function errorType(table: string): { prefixes: string[]; scope: string | null } | null {
  const words = contextWords(table)
    .split(/\s+/)
    .filter((w) => w !== '' && !ENUM_WORD.test(w));
  let at = -1;
  for (let i = words.length - 1; i >= 0; i--) {
    if (ERROR_WORD.test(words[i] as string)) {
      at = i;
      break;
    }
  }
  if (at < 0) return null;
  const err = (words[at] as string).toLowerCase().replace(/s$/, '');
  const prefixes = [err];
  // The owner is the name before the error word as written (`SensorlessEstimator` in
  // "ODrive.SensorlessEstimator error flags"), printed SENSORLESS_ESTIMATOR_ERROR_… by its tools.
  const names = table.split(/[\s._/]+/).filter((w) => w !== '' && !ENUM_WORD.test(w));
  const errAt = names.findIndex((w) => ERROR_WORD.test(w));
  const owner = errAt > 0 ? (names[errAt - 1] as string) : at > 0 ? (words[at - 1] as string) : null;
  if (owner) prefixes.push(`${owner.toLowerCase()}_${err}`, `${snakeOfPascal(owner)}_${err}`);
  if (at > 1) prefixes.push(`${words.slice(0, at).join('_').toLowerCase()}_${err}`);
  return { prefixes: [...new Set(prefixes)], scope: owner ? contextWords(owner) : null };
}

/**
 * A bracketed list of actions (`[Unload, ResetMMU]`), the buttons a printer's dialog offers, reads as
 * "Actions: Unload, Reset MMU"; an empty list is no remedy. Prose remedies stay as written.
 */
function isActionList(cell: string, columns: string[]): boolean {
  if (/^\s*\[.*\]\s*$/s.test(cell)) return true;
  // An "action" column of single words or ids ("Retry, Skip"), not a sentence.
  return columns.length === 1 && /^actions?$/i.test((columns[0] ?? '').trim()) && splitList(cell).every((a) => /^[\p{L}\p{N}_-]+$/u.test(a));
}

export function actionList(cell: string): string {
  const items = splitList(cell).map((a) => (/^[A-Za-z][A-Za-z0-9]*$/.test(a) ? a.replace(/([a-z])([A-Z])/g, '$1 $2') : a));
  return items.length > 0 ? `Actions: ${items.join(', ')}` : '';
}

/** A code at the start of a heading, term or line; `rest` is what follows its separator. */
interface LeadingCode {
  raw: string;
  n: NormalizedCode;
  rest: string;
  /** The code's short name when the line gives one apart (`C-02 Low coolant flow: …`). */
  title?: string;
  /** The key of a second form of the code written beside it in brackets (`ERR_OVERCURRENT (0x04)`). */
  alias?: string;
}

/** `(0x04)`, `[E-12]`: a second form of the code in brackets, before the text (if any). */
const BRACKETED_ALIAS = /^[([]\s*([^()[\]\s]{1,20})\s*[)\]]\s*(?:[:：=–—-]\s*)?(.*)$/su;

function aliasesOf(lead: LeadingCode): Partial<CodeRecord> {
  return lead.alias ? { aliases: [lead.alias] } : {};
}

/** A lead whose text starts with another form of its code in brackets gets it as an alias, not as its text. */
function withAlias(lead: LeadingCode): LeadingCode {
  const m = BRACKETED_ALIAS.exec(lead.rest);
  const n = m ? normalizeCode(m[1] as string) : null;
  if (!m || !n || n.key === lead.n.key || n.family === 'number') return lead;
  return { ...lead, alias: n.key, rest: (m[2] ?? '').trim() };
}

/** Splits `calibration fault - the encoder was…` into a name and its text (a short name, at most 8 words). */
function nameAndText(rest: string): { title?: string; rest: string } {
  const m = NAME_DASH.exec(rest);
  if (!m || (m[1] ?? '').split(/\s+/).length > 8) return { rest };
  return { title: (m[1] ?? '').trim(), rest: (m[2] ?? '').trim() };
}

const LINE_TOKEN = /^([A-Za-z]{1,4}[-_]?\d{1,6}[A-Za-z]?|-?\d{1,6})(?:\s*[:：=–—]\s*|\s+-\s+)(.*)$/u;
/** `C-02 Low coolant flow: …`, `97 max_power: …`: a code, a short name, then a colon and the text. */
const TITLED_TOKEN = /^([A-Za-z]{1,4}[-_]?\d{1,6}[A-Za-z]?|-?\d{1,6})\s+([^\s:：.!?;][^:：.!?;]{0,58}?)\s*[:：]\s+(\S.*)$/u;
/**
 * `W-2001 Fan speed low` as a heading in an error section: a letter code written with its hyphen,
 * then its capitalised name (`STM32 DFU mode`, `RP2040 boot` are boards, written without one).
 */
const HEADING_TOKEN = /^([A-Za-z]{1,4}[-_]\d{1,6}[A-Za-z]?)\s+(\p{Lu}[^:：]{0,80})$/u;
/**
 * `SV0401 V-READY OFF The servo amplifier…`: a code, its name in capitals as the display shows it, then the
 * text from its first capitalised word (or from the next line).
 */
const CAPS_TITLED = /^([A-Za-z]{1,4}[-_]?\d{1,6}[A-Za-z]?|-?\d{1,6})\s+([+-]?\s?[A-Z0-9][A-Z0-9 ()+\-/.,&'%]{0,60}[A-Z0-9)%])(?:\s*\n\s*|\s+)(\p{Lu}\p{Ll}[\s\S]*)$/u;
/** `"43 (no position)": the most common reason…`: a code, its name in brackets, a colon, the text. */
const PAREN_TOKEN = /^([A-Za-z]{1,4}[-_]?\d{1,6}[A-Za-z]?|\d{1,6})\s*\(([^()]{1,60})\)["”]?\s*[:：]\s+(\S.*)$/u;
/** `calibration fault - the encoder was…`: a short name, a dash, then the text. */
const NAME_DASH = /^([^\s.!?:;-][^.!?:;]{0,58}?)\s+[-–—:]\s+(\S.*)$/u;
const WHOLE_TOKEN = /^([A-Za-z]{1,4}[-_]?\d{1,6}[A-Za-z]?|\d{1,6})$/u;
const SYMBOL_LEAD = /^([A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+)(?:\s*[:：=–—]\s*|\s+|$)(.*)$/u;
const GCODE_TOKEN = /^[GMTSXYZNIJKABC]-?\d+$/i;
/** `= 0x0001`, `= 4`: the value an enumeration gives the id before it. */
const ENUM_VALUE = /^\s*=\s*`?(?:0x[0-9a-f]+|\d+)\b`?/i;

type LeadMode = 'heading' | 'term' | 'line';

/**
 * Finds a code at the start of a heading, a definition term or a prose line. Lines need a
 * separator after the code (`E-204: …`), or, for codes that say what they are (E-204, F0023,
 * P0301), a capitalised word (`F0023 Overcurrent`); "Error 5 occurs when…" is a sentence.
 * `errorContext` (the nearest heading talks about errors) admits UPPER_SNAKE ids, other
 * letter codes (`H12: …`) and, with the heading's family word, plain numbers (`9: …`).
 */
function leadingCode(text: string, mode: LeadMode, errorContext: boolean, contextFamily: string | undefined): LeadingCode | null {
  const lead = codeAtStart(text, mode, errorContext, contextFamily);
  if (!lead) return null;
  const aliased = withAlias(lead);
  // `### Alarm 9 (Homing Fail)`: a name in brackets after the code is the name.
  const bracketed = /^\(([^()]{1,80})\)$/u.exec(aliased.rest);
  return bracketed ? { ...aliased, rest: (bracketed[1] as string).trim() } : aliased;
}

function codeAtStart(
  text: string,
  mode: LeadMode,
  errorContext: boolean,
  contextFamily: string | undefined,
): LeadingCode | null {
  // `**13: Hard Stop** The machine stopped…`: the bold holds the code and its name, the text follows it.
  const bold = /^\s*(?:[-*•]\s+)?\*\*([^*]{1,80})\*\*\s+([^\s:：=–—-].*)$/su.exec(text);
  if (bold) {
    const inner = codeAtStart(bold[1] as string, mode, errorContext, contextFamily);
    if (inner && inner.rest !== '' && inner.title === undefined) return { ...inner, title: inner.rest, rest: (bold[2] as string).trim() };
  }
  // Emphasis marks around the code or its name (`**97 max_power**:`, `*calibration fault*`) are not text.
  const body = text
    .replace(/^\s*(?:[-*•]\s+)?/, '')
    .replace(/\*+|`/g, '')
    .replace(/^_+/, '')
    .replace(/^["“](?=[A-Za-z0-9]{1,8}\s*\()/, '')
    .slice(0, 400);
  const first = detectCodes(body)[0];
  if (first && first.start === 0 && (isSelfIdentifying(first.family) || first.family === 'symbol')) {
    const after = body.slice(first.end).replace(/^[`*_]+/, '');
    if (first.family === 'symbol') {
      // Ids are everywhere in software manuals (SAVE_CONFIG, NO_PROBE_JOG_ERROR): only in an error section,
      // and a line only where it gives the id its value, as an enumeration does (`ERROR_X = 0x0001 …`).
      if (!errorContext || first.raw !== first.raw.toUpperCase()) return null;
      if (mode === 'line') {
        const valued = ENUM_VALUE.exec(after);
        if (!valued) return null;
        const n = normalizeCode(first.raw);
        return n ? { raw: first.raw, n, rest: after.slice(valued[0].length).replace(/^[`*_\s:：.,;–—-]+/, '').trim() } : null;
      }
    }
    const sep = /^\s*[:：=|)\]–—-]\s*|^\s+/.exec(after);
    if (after !== '' && !sep) return null;
    const rest = sep ? after.slice(sep[0].length).trim() : '';
    const hasSep = sep !== null && /[:：=|)\]–—-]/.test(sep[0]);
    if (mode === 'line' && rest !== '' && !hasSep) {
      // "error:9 G-code…" is the code as the machine prints it; "Error 5 occurs…" is a sentence.
      const worded =
        /^(?:[a-z]{3,}|[\u4e00-\u9fff])/i.test(first.raw) && !/[:：]/.test(first.raw) && !first.family.startsWith('obd-');
      if (worded || !/^[A-Z\u4e00-\u9fff]/u.test(rest)) return null;
    }
    const n = normalizeCode(first.raw);
    return n ? { raw: first.raw, n, rest } : null;
  }
  if (!errorContext) return null;
  const m = LINE_TOKEN.exec(body) ?? (mode === 'term' || mode === 'heading' ? WHOLE_TOKEN.exec(body.trim()) : null);
  const titled = m ? null : mode === 'line' ? (PAREN_TOKEN.exec(body) ?? TITLED_TOKEN.exec(body) ?? CAPS_TITLED.exec(body)) : null;
  const named = m || titled || mode !== 'heading' ? null : HEADING_TOKEN.exec(body.trim());
  if (named) {
    const n = normalizeCode(named[1] as string);
    return n ? { raw: named[1] as string, n, rest: (named[2] ?? '').trim() } : null;
  }
  const hit = m ?? titled;
  if (hit) {
    const token = hit[1] ?? '';
    // `C-02 Low coolant flow: …` under an alarm heading is a code; `C90` alone may be an axis word.
    if (GCODE_TOKEN.test(token) && !(titled && /^[A-Za-z]-0\d/.test(token))) return null;
    // A protocol's return codes are negative (-10000 command error): the sign is not a separator.
    const numeric = /^-?\d+$/.test(token);
    if (numeric && (mode === 'heading' || !contextFamily)) return null;
    const n = numeric ? normalizeCode(token, { family: contextFamily }) : normalizeCode(token);
    if (!n) return null;
    if (titled) return { raw: token, n, title: (titled[2] ?? '').trim(), rest: (titled[3] ?? '').trim() };
    return { raw: token, n, ...nameAndText((hit[2] ?? '').trim()) };
  }
  const sym = SYMBOL_LEAD.exec(body);
  if (sym) {
    const raw = sym[1] ?? '';
    const strictSep = /^\s*[:：=–—]\s+\S/.test(body.slice(raw.length));
    if (mode === 'line' && !strictSep) return null;
    const n = normalizeCode(raw);
    if (n?.family === 'symbol') return { raw, n, rest: (sym[2] ?? '').trim() };
  }
  return null;
}

function nearestHeading(b: Block): string {
  return b.headingPath[b.headingPath.length - 1] ?? '';
}

function isErrorContext(...texts: string[]): boolean {
  return texts.some((t) => ERROR_CONTEXT.test(t));
}

/** Collects the passage under a code heading and sorts its blocks into description/cause/remedy. */
function headingRecord(blocks: Block[], at: number, lead: LeadingCode, sink: RecordSink, consumed: Set<number>): void {
  const h = blocks[at] as Block;
  const level = h.level ?? 1;
  const parts: Record<Role, string[]> = { description: [], cause: [], remedy: [] };
  const texts = [h.text];
  let role: Role | null = null;
  // A sub-heading that tells one remedy from another ("Resolution 2") is said before its first text.
  let label = '';
  let chars = h.text.length;
  for (let j = at + 1; j < blocks.length && j <= at + 30 && chars < 4000; j++) {
    const b = blocks[j] as Block;
    if (b.kind === 'heading') {
      if ((b.level ?? 1) <= level) break;
      const name = withoutEmphasis(b.text).replace(/[:：]\s*$/, '').trim();
      const r = roleOfLabel(name);
      if (r === null) break; // a deeper heading that is not "Cause"/"Remedy" starts something else
      role = r;
      label = keepsLabel(name) ? `${name}: ` : '';
      texts.push(b.text);
      continue;
    }
    if (b.kind === 'table-row') break;
    if (leadingCode(b.text, 'line', false, undefined)) break; // the next definition starts
    consumed.add(j);
    texts.push(b.text);
    chars += b.text.length;
    for (const { role: labelled, rest } of labelledParts(b.text)) {
      if (labelled) role = labelled;
      const target: Role | null = labelled ?? role;
      if (target) {
        if (rest) {
          parts[target].push(labelled ? rest : `${label}${rest}`);
          label = '';
        }
        continue;
      }
      if (b.kind === 'list-item' || b.kind === 'step') {
        parts[isRemedySentence(rest) ? 'remedy' : isCauseSentence(rest) ? 'cause' : 'description'].push(rest);
        continue;
      }
      for (const s of splitSentences(rest)) {
        parts[isRemedySentence(s) ? 'remedy' : isCauseSentence(s) ? 'cause' : 'description'].push(s);
      }
    }
  }
  const description = parts.description.join(' ');
  const f: Fields = {
    title: lead.rest || firstSentence(description || parts.cause.join(' ')),
    description,
    cause: parts.cause.join(' '),
    remedy: parts.remedy.join(' '),
  };
  sink.add(lead.raw, lead.n, f, h, texts.join('\n'), aliasesOf(lead));
}

/** Where a new entry starts inside a paragraph: after a sentence end, a code, then its name and a colon. */
const ENTRY_START = /(?<=[.;!?])\s+(?=(?:[A-Za-z]{1,4}[-_]?\d{1,6}[A-Za-z]?|\d{1,6})\s+[^\s:：.!?;][^:：.!?;]{0,58}[:：]\s)/gu;

/**
 * The lines of a prose block in an error section, with entries that a PDF or a reflowed text ran
 * together ("C-01 Coolant flow low: … pump. C-02 Coolant temperature high: …") cut apart, provided
 * every piece starts with a code of the same shape as the first.
 */
function entryLines(text: string): string[] {
  const out: string[] = [];
  for (const line of text.split('\n')) {
    const parts = line.split(ENTRY_START);
    const shape = (t: string): string => (/^\S+/.exec(t.trim())?.[0] ?? '').replace(/[A-Za-z]/g, 'a').replace(/\d+/g, '9');
    if (parts.length > 1 && parts.every((p) => shape(p) === shape(parts[0] as string))) out.push(...parts.map((p) => p.trim()));
    else out.push(line);
  }
  return out;
}

/** The paragraph just before the list that block `at` belongs to, in the same section ('' when none). */
function listIntro(blocks: Block[], at: number): string {
  const section = (blocks[at] as Block).headingPath.join('\u0000');
  for (let j = at - 1; j >= 0 && j >= at - 200; j--) {
    const b = blocks[j] as Block;
    if (b.headingPath.join('\u0000') !== section) return '';
    if (b.kind === 'list-item') continue;
    return b.kind === 'paragraph' ? b.text : '';
  }
  return '';
}

function extractPassages(blocks: Block[], sink: RecordSink, consumed: Set<number>): void {
  const numbered: { at: number; raw: string; section: string }[] = [];
  passages(blocks, sink, consumed, numbered);
  dropMixedPadding(sink, numbered);
}

/**
 * Numbered lines of one section are codes of one scheme, so they share its padding: a list that mixes
 * `01` with `2` and `12` explains the parts of a code (printer 12, category 2, error 01), it does not
 * define codes. Such lines give no records.
 */
function dropMixedPadding(sink: RecordSink, numbered: { at: number; raw: string; section: string }[]): void {
  const drop = new Set<number>();
  const bySection = new Map<string, { at: number; raw: string }[]>();
  for (const n of numbered) bySection.set(n.section, [...(bySection.get(n.section) ?? []), n]);
  for (const list of bySection.values()) {
    const padded = list.filter((n) => n.raw.length > 1 && n.raw.startsWith('0'));
    if (padded.length === 0) continue;
    const width = (padded[0] as { raw: string }).raw.length;
    if (list.some((n) => n.raw.length !== width)) for (const n of list) drop.add(n.at);
  }
  if (drop.size === 0) return;
  const kept = sink.records.filter((_, i) => !drop.has(i));
  sink.records.length = 0;
  sink.records.push(...kept);
}

function passages(blocks: Block[], sink: RecordSink, consumed: Set<number>, numbered: { at: number; raw: string; section: string }[]): void {
  for (let i = 0; i < blocks.length; i++) {
    if (consumed.has(i)) continue;
    const b = blocks[i] as Block;
    if (b.kind === 'table-row') continue;
    const near = nearestHeading(b);
    const family = familyInText(near);
    if (b.kind === 'heading') {
      const lead = leadingCode(b.text, 'heading', isErrorContext(near, b.text), family);
      if (lead) headingRecord(blocks, i, lead, sink, consumed);
      continue;
    }
    if (b.kind === 'definition') {
      const lead = leadingCode(b.term ?? '', 'term', isErrorContext(near), family);
      if (!lead) continue;
      const { role, rest } = splitLabel(b.text);
      const f =
        role === 'cause'
          ? fields({ title: lead.rest, cause: rest })
          : role === 'remedy'
            ? fields({ title: lead.rest, remedy: rest })
            : fields({ title: lead.rest, description: rest });
      sink.add(lead.raw, lead.n, f, b, `${b.term ?? ''}\n${b.text}`, aliasesOf(lead));
      continue;
    }
    // A code block is program text or console output: its lines' leading numbers are line numbers,
    // counters or values (a traceback's "78  ('axis', …)"). Structured examples are read on their own.
    if (b.kind === 'code') continue;
    // Prose: one definition per line that starts with a code.
    // A list's lead-in sentence ("…reports it via the "fault" register:") says what its items are.
    const intro = b.kind === 'list-item' ? listIntro(blocks, i) : '';
    const ctx = isErrorContext(near, intro);
    const ctxFamily = family ?? (intro ? familyInText(intro) : undefined);
    for (const line of ctx ? entryLines(b.text) : b.text.split('\n')) {
      const lead = leadingCode(line, 'line', ctx, ctxFamily);
      if (lead && lead.rest === '' && lead.n.family === 'symbol' && b.kind === 'list-item') {
        // `* ERROR_X = 0x01` alone, its text in the paragraphs below it (up to the next item or heading).
        const below = followingParagraphs(blocks, i);
        if (below.length > 0) sink.add(lead.raw, lead.n, fields({ description: below.join('\n') }), b, `${line.trim()}\n${below.join('\n')}`, aliasesOf(lead));
        continue;
      }
      if (!lead || lead.rest === '') continue;
      const { role, rest } = splitLabel(lead.rest);
      const title = lead.title;
      const f =
        role === 'cause'
          ? fields({ title, cause: rest })
          : role === 'remedy'
            ? fields({ title, remedy: rest })
            : fields({ title, description: rest });
      // The entry's last line goes on in the labelled paragraphs right below it ("**Resolution 1:** …").
      const below = line === b.text.split('\n').at(-1) ? labelledBelow(blocks, i, consumed) : { parts: [], texts: [] };
      for (const p of below.parts) {
        const plain = plainField(p.rest);
        if (p.role === 'description') f.description = [f.description, plain].filter(Boolean).join('\n');
        else f[p.role] = [f[p.role], plain].filter(Boolean).join(' ');
      }
      // A one-line list item's record quotes the item as written, bullet included.
      const quoted = b.kind === 'list-item' && b.raw && !b.text.includes('\n') ? b.raw.replace(/\s+/g, ' ').trim() : line.trim();
      sink.add(lead.raw, lead.n, f, b, [quoted, ...below.texts].join('\n'), aliasesOf(lead));
      if (/^-?\d+$/.test(lead.raw)) numbered.push({ at: sink.records.length - 1, raw: lead.raw, section: section(b) });
    }
  }
}

/**
 * The paragraphs right after block `at` that start with a label ("**Resolution 2:** …", "Workaround: …"),
 * up to the first that does not; each is taken (consumed) as the entry's.
 */
function labelledBelow(blocks: Block[], at: number, consumed: Set<number>): { parts: { role: Role; rest: string }[]; texts: string[] } {
  const parts: { role: Role; rest: string }[] = [];
  const texts: string[] = [];
  for (let j = at + 1; j < blocks.length && texts.length < 8; j++) {
    const b = blocks[j] as Block;
    if (b.kind !== 'paragraph') break;
    const labelled = labelledParts(b.text);
    if (labelled[0]?.role == null) break;
    consumed.add(j);
    texts.push(b.text.trim());
    for (const p of labelled) if (p.rest.trim()) parts.push({ role: p.role ?? 'description', rest: p.rest.trim() });
  }
  return { parts, texts };
}

/** The paragraphs right after block `at`, up to the next list item, heading, table or code block (at most 3). */
function followingParagraphs(blocks: Block[], at: number): string[] {
  const out: string[] = [];
  for (let j = at + 1; j < blocks.length && out.length < 3; j++) {
    const b = blocks[j] as Block;
    if (b.kind !== 'paragraph') break;
    out.push(b.text.trim());
  }
  return out;
}

/** A code block larger than this is a listing, not an example record (and is not parsed). */
const MAX_EXAMPLE_CHARS = 20_000;

/**
 * The rows of the structured examples a document shows in its code blocks: a JSON or YAML block
 * (``` json, or a block that parses as a JSON object or array) read as a JSON/YAML file is read
 * (parse/formats/structured.ts), each row placed where the block stands. An API guide often
 * defines a code only there: the error an interface returns, shown as its example response
 * (`{"id": 1537, "description": "…", "solution": "…"}`). Whether a row is a code definition is
 * then decided as for any table (analyzeTable), from the example alone: its keys and columns must
 * say it is about faults (an `errMsg` list, a `solution` column), as a section about alarms also
 * shows positions and settings in examples. An example of another kind makes no record.
 */
function structuredExamples(blocks: Block[]): Block[] {
  const out: Block[] = [];
  for (const b of blocks) {
    if (b.kind !== 'code' || b.text.length > MAX_EXAMPLE_CHARS) continue;
    const text = b.text.trim();
    const lang = b.codeLang ?? '';
    const json = /^json/i.test(lang) || (!lang && /^[[{]/.test(text));
    if (!json && !/^ya?ml$/i.test(lang)) continue;
    let doc: ParsedDocument;
    try {
      const input = { text, fileStem: 'example' };
      doc = json ? parseJsonDoc(input) : parseYamlDoc(input);
    } catch {
      continue; // an elided or templated example ("…", <placeholders>) is not data
    }
    for (const r of doc.blocks) if (r.kind === 'table-row') out.push({ ...r, headingPath: b.headingPath, page: b.page });
  }
  return out;
}

/** Formats whose rows are items of a list, each with its own keys (one table, columns that differ). */
const VARYING_COLUMN_FORMATS: ReadonlySet<string> = new Set(['yaml', 'json']);

/** Extracts every fault-code definition from a parsed document. Pure: no I/O. */
export function extractCodes(doc: ParsedDocument, ctx: ExtractContext): CodeRecord[] {
  const sink = new RecordSink(ctx, doc.meta.language ?? null);
  const consumed = new Set<number>();
  extractTables(doc.blocks, sink, consumed, true, !VARYING_COLUMN_FORMATS.has(doc.format));
  extractPassages(doc.blocks, sink, consumed);
  extractTables(structuredExamples(doc.blocks), sink, new Set(), false);
  return sink.records;
}
