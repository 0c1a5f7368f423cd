import type { ReactNode } from 'react';

const CJK = /[\u3400-\u9fff\uf900-\ufaff]/;
const SEPARATORS = /[\s,.;:!?()[\]{}"'“”‘’，。；：！？（）、《》]+/;

/** Words that carry no meaning of their own: never marked (every passage has them). */
const STOP_WORDS = new Set(
  'a an and are as at be been but by can could do does did for from had has have how i if in into is it its may might must no nor not of on or our shall should so than that the their them then there these they this those to too was we were what when where which while who why will with would you your after before after again all any each how also only very up down out off over under'.split(
    ' ',
  ),
);

/** Words of the query worth marking (stop words skipped); runs of Chinese characters give their two-character pieces. */
export function highlightTerms(query: string): string[] {
  const terms = new Set<string>();
  for (const part of query.toLowerCase().split(SEPARATORS)) {
    if (!part) continue;
    if (CJK.test(part)) {
      if (part.length <= 2) terms.add(part);
      for (let i = 0; i + 2 <= part.length; i++) terms.add(part.slice(i, i + 2));
    } else if (part.length >= 2 && !STOP_WORDS.has(part)) {
      terms.add(part);
    }
  }
  return [...terms].sort((a, b) => b.length - a.length);
}

/** The text with each occurrence of the query's terms wrapped in <mark> (no HTML is injected). */
export function Highlighted({ text, query }: { text: string; query: string }) {
  const terms = highlightTerms(query);
  if (terms.length === 0) return <>{text}</>;
  const pattern = new RegExp(`(${terms.map(escapeRegExp).join('|')})`, 'giu');
  const parts: ReactNode[] = text.split(pattern).map((part, i) => (i % 2 === 1 ? <mark key={i}>{part}</mark> : part));
  return <>{parts}</>;
}

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
