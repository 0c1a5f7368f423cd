import { Parser } from 'htmlparser2';
import type { AdmonitionKind } from '../contract/index.js';

const LABELS: Record<string, AdmonitionKind> = {
  note: 'NOTE',
  notice: 'NOTE',
  info: 'NOTE',
  tip: 'TIP',
  hint: 'TIP',
  important: 'IMPORTANT',
  caution: 'CAUTION',
  attention: 'CAUTION',
  warning: 'WARNING',
  danger: 'DANGER',
  error: 'DANGER',
  注意: 'NOTE',
  提示: 'TIP',
  重要: 'IMPORTANT',
  小心: 'CAUTION',
  警告: 'WARNING',
  危险: 'DANGER',
};

/** Maps a label such as "Warning", "caution", "警告" to its kind; null when it is no admonition label. */
export function admonitionKind(label: string): AdmonitionKind | null {
  return LABELS[label.trim().toLowerCase()] ?? null;
}

/** Labels recognised at the start of plain text (not "info"/"error", which start ordinary sentences). */
const LEAD_RE =
  /^(WARNING|DANGER|CAUTION|NOTE|IMPORTANT|TIP|ATTENTION|NOTICE|Warning|Danger|Caution|Note|Important|Tip|Attention|Notice|警告|危险|注意|小心|提示|重要)(?:\s*[:：！!]+|\s*\n|\s*$)\s*/;
const LEAD_UPPER_RE = /^(WARNING|DANGER|CAUTION|NOTE|IMPORTANT|ATTENTION|NOTICE)\s+(?=\S)/;

export interface AdmonitionMatch {
  kind: AdmonitionKind;
  /** The label as written in the source. */
  label: string;
  /** The text after the label, verbatim. */
  body: string;
}

/**
 * Detects text that starts with an admonition label: "WARNING: …", "Note: …", "警告：…", or the
 * label alone on the first line followed by the body. A bare upper-case label followed by text
 * ("CAUTION Hot surface") counts only when `allowBareUpper` is set (PDF and plain text).
 */
export function matchAdmonition(text: string, allowBareUpper = false): AdmonitionMatch | null {
  const m = LEAD_RE.exec(text) ?? (allowBareUpper ? LEAD_UPPER_RE.exec(text) : null);
  if (!m || !m[1]) return null;
  const kind = admonitionKind(m[1]);
  if (!kind) return null;
  return { kind, label: m[1], body: text.slice(m[0].length) };
}

/** Text of an admonition block: the label (as written, or the kind) then the body verbatim. */
export function admonitionText(label: string, body: string): string {
  const b = body.trim();
  if (!b) return label;
  return /^[\u4e00-\u9fff]/.test(label) ? `${label}：${b}` : `${label}: ${b}`;
}

const BLOCK_TAGS = new Set([
  'p', 'div', 'br', 'li', 'tr', 'table', 'ul', 'ol', 'dl', 'dt', 'dd', 'pre', 'blockquote',
  'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'section', 'hr',
]);

/**
 * Converts an HTML fragment (e.g. Asciidoctor's converted inline text) to plain text: tags removed,
 * entities decoded, block-level tags turned into line breaks.
 */
export function htmlToText(html: string): string {
  if (!/[<&]/.test(html)) return html;
  let out = '';
  let skip = 0;
  const parser = new Parser(
    {
      onopentag(name) {
        if (name === 'script' || name === 'style') skip++;
        else if (BLOCK_TAGS.has(name)) out += '\n';
      },
      onclosetag(name) {
        if (name === 'script' || name === 'style') skip = Math.max(0, skip - 1);
        else if (BLOCK_TAGS.has(name)) out += '\n';
        else if (name === 'td' || name === 'th') out += ' ';
      },
      ontext(text) {
        if (!skip) out += text;
      },
    },
    { decodeEntities: true, lowerCaseTags: true },
  );
  parser.write(html);
  parser.end();
  return out;
}

/** "pump_manual-v2.pdf" → "Pump manual v2" (for callers that fall back to the file name). */
export function titleFromFileName(fileName: string): string {
  const base = fileName.replace(/^.*[\\/]/, '').replace(/\.[^.]+$/, '');
  const spaced = base.replace(/[_\-.]+/g, ' ').replace(/\s+/g, ' ').trim();
  if (!spaced) return fileName;
  return spaced.charAt(0).toUpperCase() + spaced.slice(1);
}

/** Throws the standard AbortError when the signal has fired. */
export function checkAbort(signal: AbortSignal | undefined): void {
  if (signal?.aborted) {
    const err = new Error('The operation was cancelled.');
    err.name = 'AbortError';
    throw err;
  }
}
