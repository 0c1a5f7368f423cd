/**
 * The local audit trail: what was looked up and which manual revision and page was opened. Kept in
 * localStorage (newest first, capped), exportable as CSV.
 */
import { load, save } from './storage.js';

export interface HistoryEntry {
  /** ISO time. */
  at: string;
  action: 'search' | 'ask' | 'open';
  /** What was typed (search, ask). */
  query?: string;
  manual?: string;
  file?: string;
  /** Installed pack the opened file comes from (absent: the site's own library). */
  pack?: string;
  revision?: string | null;
  page?: number | null;
  section?: string;
}

const KEY = 'manualdesk.history.v1';
const MAX = 2000;

function isEntries(v: unknown): v is HistoryEntry[] {
  return Array.isArray(v) && v.every((e) => typeof e === 'object' && e !== null && typeof (e as HistoryEntry).at === 'string');
}

export function readHistory(): HistoryEntry[] {
  return load(KEY, [], isEntries);
}

/** Adds an entry (a repeat of the newest one is not added twice). Returns the new list. */
export function addHistory(entry: Omit<HistoryEntry, 'at'>, now = new Date()): HistoryEntry[] {
  const list = readHistory();
  const top = list[0];
  if (top && top.action === entry.action && top.query === entry.query && top.file === entry.file && top.pack === entry.pack && top.page === entry.page) return list;
  const next = [{ at: now.toISOString(), ...entry }, ...list].slice(0, MAX);
  save(KEY, next);
  return next;
}

export function clearHistory(): void {
  save(KEY, []);
}

const COLUMNS: (keyof HistoryEntry)[] = ['at', 'action', 'query', 'manual', 'revision', 'file', 'page', 'section'];

/**
 * A text cell that a spreadsheet would run as a formula (it starts with = + - @, a tab or a carriage
 * return: a manual titled `=HYPERLINK(…)`, a typed query) gets a leading apostrophe, so Excel and
 * LibreOffice show it as text (OWASP "CSV injection"). Numbers (page) stay numbers.
 */
export function neutraliseFormula(text: string): string {
  return /^[=+\-@\t\r]/.test(text) ? `'${text}` : text;
}

/** RFC 4180 CSV, one row per entry, with a header row; text cells cannot start a formula. */
export function historyCsv(entries: HistoryEntry[]): string {
  const cell = (v: unknown) => {
    const s = v === undefined || v === null ? '' : typeof v === 'number' ? String(v) : neutraliseFormula(String(v));
    return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
  };
  return [COLUMNS.join(','), ...entries.map((e) => COLUMNS.map((c) => cell(e[c])).join(','))].join('\r\n') + '\r\n';
}
