/**
 * Vendor prefix schemes: a manual writes a code once with a placeholder (`XX201`) and the product
 * shows it with a product number in its place (`13201` on one printer, `17201` on another).
 *
 * A scheme comes from either
 *  - a document that declares it ({@link learnSchemes}): a code template such as `XXYZZ`/`XXyzz`,
 *    a line that explains the placeholder (`XX - number of printer…`), and a list or table that
 *    maps numbers of the placeholder's width to product names (`13 MK4 - Original Prusa MK4`); or
 *  - a small mapping file next to the manual ({@link SCHEME_FILE_NAME}, {@link parseSchemeFile}):
 *
 *    ```yaml
 *    # codes.scheme.yaml
 *    template: XXyzz          # the code shape; the placeholder is written literally in the manual
 *    placeholder: XX          # the part replaced by a product number
 *    prefixes:                # product number → name (or list of names; the first is the label)
 *      "13": MK4              # quote the numbers: YAML reads 04 as 4
 *      "17": [XL, Original Prusa XL]
 *    ```
 *
 * {@link schemeAliases} applies a scheme to one record: `XX201` with scope [MK4, XL] gets alias keys
 * `13201` (scope MK4) and `17201` (scope XL); `XX201` whose scope names no product of the table
 * (no printers list: the manual title) gets one alias per prefix. Nothing here knows any vendor.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';
import type { Block, CodeRecord, ParsedDocument } from '../contract/document.js';
import { EngineError } from '../contract/errors.js';
import { normalizeCode } from './normalize.js';

export interface SchemePrefix {
  /** The digits that replace the placeholder, e.g. "13". */
  prefix: string;
  /** Product names; the first is the label shown as the scope. */
  names: string[];
}

export interface CodeScheme {
  /** Code shape as the manual writes it, e.g. "XXyzz". */
  template: string;
  /** The replaced part of the template, e.g. "XX". */
  placeholder: string;
  prefixes: SchemePrefix[];
  /** Folder (relative to the ingested root, forward slashes) whose records it applies to; absent = all. */
  root?: string;
  /** Where it was declared (for the user: "learned from README.md"). */
  source?: string;
}

/** File name of the per-manual mapping file, looked up next to the manual. */
export const SCHEME_FILE_NAME = 'codes.scheme.yaml';

/** A template: a repeated capital (the placeholder) then ≥ 2 more letters; 4–8 letters in all. */
const TEMPLATE = /(?<![A-Za-z0-9])(([A-Z])\2{1,3})([A-Za-z]{2,6})(?![A-Za-z0-9])/g;

function templateCandidates(text: string): { template: string; placeholder: string }[] {
  const out: { template: string; placeholder: string }[] = [];
  for (const m of text.matchAll(TEMPLATE)) {
    const template = m[0];
    if (template.length < 4 || template.length > 8) continue;
    const placeholder = m[1] ?? '';
    // The rest are slot letters (Y, ZZ / y, zz), never the placeholder letter again.
    if ((m[3] ?? '').toUpperCase().includes(placeholder[0] ?? '')) continue;
    out.push({ template, placeholder });
  }
  return out;
}

function lines(b: Block): string[] {
  if (b.kind === 'table-row' && b.cells) return [b.cells.join(' - ')];
  if (b.kind === 'definition' && b.term) return [`${b.term} - ${b.text}`];
  return b.text.split('\n');
}

/** Splits "MK4 - Original Prusa MK4" / "`MK4` Original…" into names, label first. */
function namesOf(rest: string): string[] {
  const cleaned = rest.replace(/[`*"]/g, '').trim();
  const parts = cleaned
    .split(/\s+[-–—:]\s+|:\s+|\s*[|]\s*/)
    .map((s) => s.trim())
    .filter(Boolean);
  return [...new Set(parts)];
}

/**
 * Detects the prefix schemes a document declares (usually none). Needs all three: a template
 * token, the placeholder explained on a line of its own, and ≥ 2 prefix entries in one list/table.
 */
export function learnSchemes(doc: ParsedDocument): CodeScheme[] {
  const allText = doc.blocks.map((b) => `${b.term ?? ''} ${b.text} ${(b.cells ?? []).join(' ')}`).join('\n');
  const schemes: CodeScheme[] = [];
  const seen = new Set<string>();
  for (const { template, placeholder } of templateCandidates(allText)) {
    if (seen.has(template)) continue;
    seen.add(template);
    const explained = doc.blocks.some((b) =>
      lines(b).some((l) => new RegExp(`^\\s*[\`*]*${placeholder}[\`*]*\\s*(?:[-–—:=]|means|is)\\s+\\S`).test(l)),
    );
    if (!explained) continue;
    const width = placeholder.length;
    const entry = new RegExp(`^\\s*[\`*]*(\\d{${width}})[\`*]*\\s*(?:[-–—:=|)]\\s*)?(\\S.{0,80})$`);
    // Runs of consecutive blocks that are entries; the longest run is the prefix table.
    let best: SchemePrefix[] = [];
    let run: SchemePrefix[] = [];
    const flush = (): void => {
      if (run.length > best.length) best = run;
      run = [];
    };
    for (const b of doc.blocks) {
      if (b.kind !== 'list-item' && b.kind !== 'table-row' && b.kind !== 'paragraph' && b.kind !== 'definition') {
        flush();
        continue;
      }
      const entries = lines(b)
        .map((l) => entry.exec(l))
        .filter((m): m is RegExpExecArray => m !== null)
        .map((m) => ({ prefix: m[1] ?? '', names: namesOf(m[2] ?? '') }))
        .filter((e) => e.names.length > 0);
      if (entries.length === 0) {
        flush();
        continue;
      }
      run.push(...entries);
    }
    flush();
    const prefixes = dedupePrefixes(best);
    if (prefixes.length < 2) continue;
    schemes.push({ template, placeholder, prefixes });
  }
  return schemes;
}

function dedupePrefixes(entries: SchemePrefix[]): SchemePrefix[] {
  const byPrefix = new Map<string, string[]>();
  for (const e of entries) byPrefix.set(e.prefix, [...new Set([...(byPrefix.get(e.prefix) ?? []), ...e.names])]);
  return [...byPrefix].map(([prefix, names]) => ({ prefix, names }));
}

const SchemeFileSchema = z.object({
  template: z.string().min(2).max(16),
  placeholder: z.string().min(1).max(8),
  prefixes: z.record(z.string(), z.union([z.string().min(1), z.array(z.string().min(1)).min(1)])),
});

/**
 * Parses a mapping file (see the format in this file's header). Throws EngineError INVALID_INPUT
 * with a message that names the file and the problem.
 */
export function parseSchemeFile(text: string, source = SCHEME_FILE_NAME): CodeScheme {
  let data: unknown;
  try {
    data = parseYaml(text);
  } catch (err) {
    throw new EngineError('INVALID_INPUT', `${source} is not valid YAML: ${(err as Error).message}. Fix the file and ingest again.`);
  }
  const parsed = SchemeFileSchema.safeParse(data);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new EngineError(
      'INVALID_INPUT',
      `${source} must have template, placeholder and prefixes (${issue ? `${issue.path.join('.') || 'file'}: ${issue.message}` : 'wrong shape'}). Fix the file and ingest again.`,
    );
  }
  const { template, placeholder, prefixes } = parsed.data;
  if (!template.includes(placeholder)) {
    throw new EngineError('INVALID_INPUT', `${source}: the placeholder "${placeholder}" does not occur in the template "${template}".`);
  }
  const out: SchemePrefix[] = [];
  for (const [key, value] of Object.entries(prefixes)) {
    // YAML reads an unquoted 04 as 4: pad numbers back to the placeholder's width.
    const prefix = /^\d+$/.test(key) ? key.padStart(placeholder.length, '0') : key;
    if (prefix.length !== placeholder.length) {
      throw new EngineError('INVALID_INPUT', `${source}: prefix "${key}" must be ${placeholder.length} characters wide, like the placeholder "${placeholder}".`);
    }
    out.push({ prefix, names: Array.isArray(value) ? value : [value] });
  }
  return { template, placeholder, prefixes: out, source };
}

/**
 * Reads the mapping file next to a manual (`<dir>/codes.scheme.yaml`); [] when there is none.
 * `manualPath` is the manual's absolute path.
 */
export async function readSchemeFile(manualPath: string): Promise<CodeScheme[]> {
  const file = path.join(path.dirname(manualPath), SCHEME_FILE_NAME);
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw err;
  }
  return [parseSchemeFile(text, file)];
}

export interface SchemeAlias {
  key: string;
  family: string;
  /** Products this alias stands for (shown as the match's scope). */
  scope: string[];
  /**
   * True when the record names no product of the scheme (no printers list) and so got every
   * prefix: such an alias yields to a record that defines the same code explicitly.
   */
  blanket: boolean;
}

function appliesTo(scheme: CodeScheme, record: CodeRecord): boolean {
  if (scheme.root === undefined || scheme.root === '' || scheme.root === '.') return true;
  const root = scheme.root.replace(/\/+$/, '');
  return record.file === root || record.file.startsWith(`${root}/`);
}

/**
 * The alias keys a scheme gives one record (none when the record's code does not carry the
 * placeholder where the template has it).
 */
export function schemeAliases(record: CodeRecord, scheme: CodeScheme): SchemeAlias[] {
  if (!appliesTo(scheme, record)) return [];
  const code = record.code.replace(/[\s\-_:#]/g, '');
  const at = scheme.template.indexOf(scheme.placeholder);
  if (at < 0 || code.length !== scheme.template.length) return [];
  if (code.slice(at, at + scheme.placeholder.length).toUpperCase() !== scheme.placeholder.toUpperCase()) return [];
  const head = code.slice(0, at);
  const tail = code.slice(at + scheme.placeholder.length);
  if (!/^[0-9A-Za-z]*$/.test(head + tail) || !/\d/.test(head + tail)) return [];

  const scopeLower = record.scope.map((s) => s.toLowerCase());
  const named = scheme.prefixes.filter((p) => p.names.some((n) => scopeLower.includes(n.toLowerCase())));
  // A scope that names products of the table restricts the aliases to them; a scope that is just
  // the manual's title (no printers list) means "all products of the scheme".
  const targets = named.length > 0 ? named : record.scope.every((s) => s === record.manual) ? scheme.prefixes : [];
  const out: SchemeAlias[] = [];
  for (const p of targets) {
    const n = normalizeCode(head + p.prefix + tail);
    if (!n) continue;
    const matched = record.scope.filter((s) => p.names.some((name) => name.toLowerCase() === s.toLowerCase()));
    out.push({
      key: n.key,
      family: n.family,
      scope: matched.length > 0 ? matched : [p.names[0] ?? p.prefix],
      blanket: named.length === 0,
    });
  }
  return out;
}

/** Records with their scheme aliases added to `aliases` (new objects; inputs are not changed). */
export function applySchemes(records: CodeRecord[], schemes: CodeScheme[]): CodeRecord[] {
  if (schemes.length === 0) return records;
  return records.map((r) => {
    const keys = schemes.flatMap((s) => schemeAliases(r, s)).map((a) => a.key);
    if (keys.length === 0) return r;
    return { ...r, aliases: [...new Set([...r.aliases, ...keys])] };
  });
}
