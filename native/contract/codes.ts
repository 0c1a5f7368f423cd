/**
 * How a fault code is shown, written once for the answer builder and the app's code card.
 */
import type { CodeMatch } from './api.js';

/**
 * A bare number of a word family with its family word: "Alarm 8", not "8" (Grbl's error 8 is
 * another code); null for codes that say what they are (`E-204`, `P0301`, `-10000`).
 */
export function spokenCode(m: Pick<CodeMatch, 'key' | 'code'>): string | null {
  const family = /^(error|alarm|fault):(.+)$/.exec(m.key);
  if (!family || family[2]?.toUpperCase() !== m.code.toUpperCase()) return null;
  const word = family[1] as string;
  return `${word.charAt(0).toUpperCase()}${word.slice(1)} ${m.code}`;
}

/** Sentence-final marks a headline may leave off ("Motor too hot" heads "Motor too hot. Let it cool."). */
const SENTENCE_END = /^[.。!！?？:：;；]/;

/**
 * What a code's description adds to its headline: the description without a first sentence (or
 * line) that repeats the headline, as a table's meaning column or a YAML entry's `doc:` often does
 * after its `brief:`. Empty when it says nothing more. A headline cut short ("…") is not taken off.
 */
export function codeDetail(m: Pick<CodeMatch, 'title' | 'description'>): string {
  const description = m.description.trim();
  const title = m.title.trim();
  if (!title || !description) return description;
  const squeeze = (s: string) => s.replace(/\s+/g, ' ');
  if (squeeze(description) === squeeze(title)) return '';
  // Match the headline word for word, whatever the spacing and line breaks between the words.
  const words = title.split(/\s+/).map((w) => w.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
  const lead = new RegExp(`^${words.join('\\s+')}`, 'i').exec(description);
  if (!lead) return description;
  const after = description.slice(lead[0].length);
  const mark = SENTENCE_END.exec(after)?.[0] ?? '';
  const rest = after.slice(mark.length);
  // The headline is the description's whole first sentence (or line) only where one ends there: at
  // a line break, or at a sentence mark (the headline's or the next character) followed by a space,
  // or a Chinese mark, which needs none.
  const end = mark || (/[.。!！?？]$/.test(title) ? title.slice(-1) : '');
  const ended = rest === '' || /^[ \t]*\n/.test(rest) || (end !== '' && (/^\s/.test(rest) || /[。！？：；]/.test(end)));
  if (!ended) return description;
  return rest.trim();
}
