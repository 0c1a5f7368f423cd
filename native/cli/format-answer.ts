/**
 * The human form of an `ask` answer. Manual titles, sections and file names come from the manuals'
 * folders and contents: each is printed as one line (terminalName), so a name holding a newline or
 * an escape sequence cannot break the Sources list or drive the terminal.
 */
import type { AskResponse } from '../contract/answer.js';
import { waitedText } from '../contract/messages.js';
import { QUOTED_MARK_JOINER } from '../answer/sanitize.js';
import { terminalName } from './terminal-text.js';

export function formatAnswer(a: AskResponse): string {
  const lines: string[] = [];
  for (const s of a.safety) lines.push(`⚠ ${s.kind === 'LOCKOUT' ? 'LOCKOUT/TAGOUT' : s.kind} [${s.n}]: ${s.text}`);
  if (lines.length > 0) lines.push('');
  lines.push(plainAnswer(a.answer));
  if (a.refused && a.refusal && a.refusal.closest.length > 0) {
    lines.push('', 'Closest sections searched:');
    for (const c of a.refusal.closest) lines.push(`  ${terminalName(c.manual)} — ${terminalName(c.section || c.file)}${c.page ? ` p.${c.page}` : ''} (${terminalName(c.file)})`);
  }
  if (a.citations.length > 0) {
    lines.push('', 'Sources:');
    for (const c of a.citations) lines.push(`  [${c.n}] ${terminalName(c.manual)} — ${terminalName(c.section || '(top)')}${c.page ? `, p.${c.page}` : ''} (${terminalName(c.file)})`);
  }
  if (a.fallbackReason) lines.push('', `(${a.fallbackReason})`);
  if (a.invalidCitations?.length) lines.push(`(removed citations that pointed nowhere: ${a.invalidCitations.join(', ')})`);
  lines.push(`(${a.mode}${a.standaloneQuery !== a.question ? `, searched as "${a.standaloneQuery}"` : ''}, ${waitedText(a)})`);
  return lines.join('\n');
}

/** A fence line of a code block the answer quotes (```` ```bash ````, `~~~`). */
const FENCE = /^\s*(`{3,}|~{3,})[^`]*$/;

/**
 * Answer text as a terminal shows it: the app reads a quoted code block by its fences and a heading
 * by its `#` marks; printed, they would be markup. A code block is indented instead, a heading
 * printed as its words.
 */
export function plainAnswer(text: string): string {
  const out: string[] = [];
  let fence: string | null = null;
  for (const line of text.split('\n')) {
    const f = FENCE.exec(line);
    if (fence === null && f) {
      fence = f[1] as string;
      continue;
    }
    if (fence !== null) {
      if (f && line.trim().startsWith(fence[0] as string) && (f[1] as string).length >= fence.length && line.trim() === f[1]) fence = null;
      else out.push(`    ${line}`);
      continue;
    }
    out.push(line.replace(/^\s*#{1,6}\s+/, ''));
  }
  // A manual's own "[7]" is quoted with an invisible joiner after "[" (answer/sanitize.ts): printed, it needs none.
  return out.join('\n').replaceAll(`[${QUOTED_MARK_JOINER}`, '[');
}
