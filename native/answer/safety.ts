/**
 * Safety text in cited passages: DANGER / WARNING / CAUTION admonitions (the chunker labels them
 * "WARNING: …", and manuals often write the label themselves) and lockout/tagout instructions.
 * Returned verbatim, in citation order, to be shown before the answer. Pure.
 */
import type { Citation, SafetyNotice } from '../contract/answer.js';

const LABELS: [RegExp, SafetyNotice['kind']][] = [
  [/^(?:danger|危险)\s*(?:[:：!！]|$)/i, 'DANGER'],
  [/^(?:warning|警告)\s*(?:[:：!！]|$)/i, 'WARNING'],
  [/^(?:caution|小心)\s*(?:[:：!！]|$)/i, 'CAUTION'],
];
const LOCKOUT = /\block[\s-]?out\b|\blockout\b|\btag[\s-]?out\b|\bLOTO\b|上锁挂牌|挂牌上锁/i;

/** Safety notices of the given citations, each once, in citation order. */
export function findSafety(citations: Pick<Citation, 'n' | 'text'>[]): SafetyNotice[] {
  const out: SafetyNotice[] = [];
  const seen = new Set<string>();
  for (const c of citations) {
    const lines = c.text.split('\n');
    for (let i = 0; i < lines.length; i++) {
      const line = (lines[i] ?? '').trim();
      if (!line) continue;
      const label = LABELS.find(([re]) => re.test(line));
      let notice: SafetyNotice | null = null;
      if (label) {
        // A label alone on its line heads the next line ("WARNING" / "Disconnect power…").
        const text = /^\S+\s*[:：!！]?$/.test(line) && lines[i + 1]?.trim() ? `${line} ${lines[i + 1]?.trim()}` : line;
        notice = { kind: label[1], text, n: c.n };
      } else if (LOCKOUT.test(line)) {
        notice = { kind: 'LOCKOUT', text: line, n: c.n };
      }
      if (notice && !seen.has(notice.text)) {
        seen.add(notice.text);
        out.push(notice);
      }
    }
  }
  return out;
}
