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
