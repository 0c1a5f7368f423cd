import type { ReactNode } from 'react';

const CJK = /[\u3400-\u9fff\uf900-\ufaff]/;
const SEPARATORS = /[\s,.;:!?()[\]{}"'“”‘’，。；：！？（）、《》]+/;

/** Words of the query worth marking; runs of Chinese characters give their two-character pieces. */
export function highlightTerms(query: string): string[] {
  const terms = new Set<string>();
  for (const part of query.toLowerCase().split(SEPARATORS)) {
    if (!part) continue;
    if (CJK.test(part)) {
      if (part.length <= 2) terms.add(part);
      for (let i = 0; i + 2 <= part.length; i++) terms.add(part.slice(i, i + 2));
    } else if (part.length >= 2) {
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
