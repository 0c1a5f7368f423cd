/** Small text helpers shared by extraction and schemes: sentence splitting, wording roles, language. */
import type { Lang } from '../contract/document.js';

/** Sentences that tell the technician what to do (they go to `remedy`). */
const REMEDY_START =
  /^(?:try|check|replace|top up|refill|fill|drain|bleed|flush|grease|ensure|verify|increase|reduce|decrease|lower|raise|make sure|clean|reset|restart|reboot|re-?start|inspect|tighten|contact|adjust|remove|reconnect|connect|update|upgrade|let|wait|unload|re-?home|re-?calibrate|calibrate|disable|enable|repeat|power[- ]cycle|turn|please|do not|don't|avoid|confirm|call|consult|lubricate|re-?seat|secure|clear|cool|allow|swap|refer to)\b/i;
const REMEDY_ANYWHERE = /\b(?:is|are) (?:highly |strongly )?recommended\b/i;
const REMEDY_ZH = /^(?:请|检查|更换|确认|确保|尝试|增加|减少|调整|清洁|清理|重新|联系|重启|复位|降低|提高|拧紧|等待)/;

/** Blocks/sentences that explain why (they go to `cause`). */
const CAUSE_START =
  /^(?:caused by|possible causes?|likely causes?|causes?\b|reasons?\b|due to|this (?:error|alarm|fault|code|warning) (?:occurs|appears|happens|is (?:triggered|raised|shown|set|reported)) (?:when|if)|occurs (?:when|if)|原因|由于)/i;

/** Explicit labels at the start of a paragraph ("Cause:", "Remedy –", "处理："). */
const LABEL_WORDS =
  'possible causes?|likely causes?|causes?|reasons?|remed(?:y|ies)|solutions?|corrective actions?|actions?|fix(?:es)?|workarounds?|what to do|resolutions?|countermeasures?|description|meaning|原因|处理方法|处理|措施|解决方法|解决|对策|说明|描述';
/** A number after the label word tells one of several apart: "Resolution 2:", "Solution 1 –". */
const ORDINAL = '(?:\\s+\\d{1,2})?';
const LABEL = new RegExp(`^\\s*(${LABEL_WORDS})(${ORDINAL})\\s*[:：\\-–—]\\s*`, 'i');

export type Role = 'description' | 'cause' | 'remedy';

/** Role of a label word ("Cause", "Remedy", "处理"); null when it is not one. */
export function roleOfLabel(word: string): Role | null {
  const w = word
    .trim()
    .toLowerCase()
    .replace(/\s+\d{1,2}$/, '');
  if (/^(?:possible |likely )?causes?$|^reasons?$|^原因$|^可能原因$|^故障原因$/.test(w)) return 'cause';
  if (
    /^(?:remed(?:y|ies)|solutions?|corrective actions?|actions?|fix(?:es)?|workarounds?|what to do|resolutions?|countermeasures?|troubleshooting)$|^(?:处理方法|处理|措施|解决方法|解决|对策|排除方法)$/.test(
      w,
    )
  )
    return 'remedy';
  if (/^(?:description|meaning|details|说明|描述|含义)$/.test(w)) return 'description';
  return null;
}

/** Splits a leading "Cause:" style label off a paragraph (emphasis around it, `**Cause:**`, is no text). */
export function splitLabel(text: string): { role: Role | null; rest: string } {
  const plain = withoutEmphasis(text);
  const m = LABEL.exec(plain);
  if (!m) return { role: null, rest: text };
  const rest = plain.slice(m[0].length);
  const label = `${m[1] ?? ''}${m[2] ?? ''}`;
  return { role: roleOfLabel(label), rest: keepsLabel(label) ? `${label}: ${rest}` : rest };
}

/**
 * A label that tells one remedy from another ("Resolution 1", "Resolution 2"; a "Workaround" beside
 * the fix) stays in the record's text: without it, two alternatives read as one list of steps.
 */
export function keepsLabel(label: string): boolean {
  return /\s\d{1,2}$/.test(label.trim()) || /^workarounds?$/i.test(label.trim());
}

/** A later label inside a paragraph, after a sentence end: "Cause: cable damaged. Remedy: replace it." */
const LATER_LABEL = new RegExp(`(?<=[.!?。！？;；])\\s*(?=(?:${LABEL_WORDS})${ORDINAL}\\s*[:：\\-–—])`, 'giu');

/**
 * A paragraph's labelled parts, in order: "Cause: cable damaged. Remedy: replace the cable." (two
 * lines a Markdown paragraph joined) is a cause and a remedy. A part before the first label has role null.
 */
export function labelledParts(text: string): { role: Role | null; rest: string }[] {
  return withoutEmphasis(text)
    .split(LATER_LABEL)
    .filter((p) => p.trim() !== '')
    .map((p) => splitLabel(p));
}

/** Text without Markdown emphasis and inline-code marks (`**Cause:**`, `__E12__`, `` `E12` ``). */
export function withoutEmphasis(text: string): string {
  return text.replace(/(\*\*|__)(?=\S)(.+?)(?<=\S)\1/gsu, '$2').replace(/`([^`\n]+)`/gu, '$1');
}

export function splitSentences(text: string): string[] {
  return text
    .replace(/\s+/g, ' ')
    .trim()
    .split(/(?<=[.!?])\s+(?=\S)|(?<=[。！？；])/u)
    .map((s) => s.trim())
    .filter(Boolean);
}

export function isRemedySentence(s: string): boolean {
  const t = s.replace(/^[-*•\d.)\s]+/, '');
  return REMEDY_START.test(t) || REMEDY_ANYWHERE.test(t) || REMEDY_ZH.test(t);
}

export function isCauseSentence(s: string): boolean {
  return CAUSE_START.test(s.replace(/^[-*•\d.)\s]+/, ''));
}

/** A dash inside a sentence before what to do: "Random misfire detected — check the ignition coils." */
const DASH_REMEDY = new RegExp(`\\s+[—–-]\\s+(?=${REMEDY_START.source.slice(1)})`, 'iu');

/** Splits a description into what it says and what to do: `{ rest, remedy }` (both may be ''). */
export function splitRemedy(text: string): { rest: string; remedy: string } {
  const rest: string[] = [];
  const remedy: string[] = [];
  for (const s of splitSentences(text)) {
    const [said, todo] = s.split(DASH_REMEDY, 2);
    if (todo !== undefined && said && !isRemedySentence(said)) {
      rest.push(said);
      remedy.push(todo);
    } else (isRemedySentence(s) ? remedy : rest).push(s);
  }
  return { rest: joinSentences(rest), remedy: joinSentences(remedy) };
}

function joinSentences(parts: string[]): string {
  let out = '';
  for (const p of parts) out += out === '' || /[。！？；]$/.test(out) ? p : ` ${p}`;
  return out;
}

/** First sentence, at most `max` characters (cut at a word, with an ellipsis). */
export function firstSentence(text: string, max = 100): string {
  const s = splitSentences(text)[0] ?? '';
  if (s.length <= max) return s;
  const cut = s.slice(0, max);
  const sp = cut.lastIndexOf(' ');
  return `${(sp > max / 2 ? cut.slice(0, sp) : cut).trimEnd()}…`;
}

/** 'zh' when Han characters make up a fair share of the words, else 'en'. */
export function langOf(text: string, fallback: Lang = 'en'): Lang {
  let han = 0;
  let words = 0;
  let inWord = false;
  for (const ch of text) {
    const c = ch.codePointAt(0) ?? 0;
    const latin = (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a);
    if (latin) {
      if (!inWord) words++;
      inWord = true;
      continue;
    }
    inWord = false;
    if ((c >= 0x4e00 && c <= 0x9fff) || (c >= 0x3400 && c <= 0x4dbf) || (c >= 0x20000 && c <= 0x2ebef)) han++;
  }
  if (han === 0 && words === 0) return fallback;
  return han / (han + words) >= 0.3 ? 'zh' : 'en';
}

/** Splits a list cell (`[MK4, XL]`, `MK4; XL`, `MK4 / XL`) into trimmed items. */
export function splitList(cell: string): string[] {
  return cell
    .replace(/^\s*\[([\s\S]*)\]\s*$|^\s*\(([\s\S]*)\)\s*$/, '$1$2')
    .split(/\s*[,;|、，；\n]\s*|\s+\/\s+/u)
    .map((s) => s.trim().replace(/^["'`]+|["'`]+$/g, ''))
    .filter(Boolean);
}

const MARKS = /[`*~]|^[ \t]*[+-][ \t]/m;

/**
 * Removes the Markdown marks a parser may have left in a cell or a doc string: emphasis, inline-code
 * backticks, list bullets and the fence lines of a code block (whose content stays). An asterisk
 * between spaces is a multiplication (`calibration_current * phase_resistance`) and stays.
 */
export function cleanCell(cell: string): string {
  // Most cells hold no mark at all (every table cell passes here during extraction).
  if (!MARKS.test(cell)) return cell.trim();
  return cell
    .replace(/^[ \t]*(?:```|~~~)[^\n]*$/gm, '')
    .replace(/^([ \t]*)[*+-][ \t]+/gm, '$1')
    .replace(/\*\*(?=\S)([^*]*?\S)\*\*/g, '$1')
    .replace(/(^|[^\w*])\*(?=\S)([^*\n]*?[^\s*])\*(?![\w*])/g, '$1$2')
    .replace(/\*{2,}|`+/g, '')
    .replace(/\n{2,}/g, '\n')
    .trim();
}

/**
 * A record's field as a technician reads it: Markdown kept in a list item's text (`[must_home
 * item](http://…)`, `[\$H](…)`, `![](img.png)`) becomes its words (`must_home item`, `$H`).
 */
export function plainField(text: string): string {
  return text
    .replace(/!\[[^\]]*\]\([^)\s]*(?:\s+"[^"]*")?\)/g, '')
    .replace(/\[([^\]]+)\]\([^)\s]*(?:\s+"[^"]*")?\)/g, '$1')
    .replace(/\\([\\`*_{}[\]()#+\-.!$|<>~])/g, '$1')
    .replace(/[ \t]{2,}/g, ' ')
    .trim();
}

/** Words that say a heading, table or column is about errors (for symbolic ids and bare numbers). */
export const ERROR_CONTEXT = /\b(?:errors?|faults?|alarms?|failures?|warnings?|dtcs?|trouble codes?)\b|故障|报警|错误|警报/i;
