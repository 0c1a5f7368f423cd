/** Answer text with its [n] citation marks turned into buttons that open the cited passage. */
import type { ReactNode } from 'react';

const MARK = /\[(\d+(?:\s*[,–-]\s*\d+)*)\]/g;

/** Splits text into plain runs and citation numbers: "see [1, 3]" → ["see ", [1, 3]]. */
export function splitCitations(text: string): (string | number[])[] {
  const out: (string | number[])[] = [];
  let last = 0;
  for (const m of text.matchAll(MARK)) {
    if (m.index > last) out.push(text.slice(last, m.index));
    out.push(
      m[1]!
        .split(/\s*,\s*/)
        .flatMap((part) => {
          const [a, b] = part.split(/\s*[–-]\s*/).map(Number);
          if (b === undefined || a === undefined || b < a || b - a > 20) return [a ?? NaN];
          return Array.from({ length: b - a + 1 }, (_, i) => a + i);
        })
        .filter((n) => Number.isInteger(n)),
    );
    last = m.index + m[0].length;
  }
  if (last < text.length) out.push(text.slice(last));
  return out;
}

export function AnswerText({ text, known, onCite }: { text: string; known: Set<number>; onCite: (n: number) => void }) {
  const parts: ReactNode[] = splitCitations(text).map((part, i) =>
    typeof part === 'string' ? (
      part
    ) : (
      <span key={i} className="cites">
        {part.map((n) =>
          known.has(n) ? (
            <button key={n} type="button" className="cite" onClick={() => onCite(n)} aria-label={`Open source ${n}`}>
              [{n}]
            </button>
          ) : (
            <span key={n}>[{n}]</span>
          ),
        )}
      </span>
    ),
  );
  return <>{parts}</>;
}
