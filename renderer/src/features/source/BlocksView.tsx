/** A non-PDF manual as parsed: headings, paragraphs, steps, rows; the cited blocks highlighted. */
import { useEffect, useRef } from 'react';
import type { Block } from '../../../../native/contract/index.js';
import { Highlighted } from '../search/highlight.js';
import { blockText } from './match.js';

export function BlocksView({ blocks, cited, query, lang }: { blocks: Block[]; cited: number[]; query?: string; lang?: string }) {
  const firstCited = useRef<HTMLElement | null>(null);
  const citedSet = new Set(cited);

  // Scroll the document box only (the app header and its Back button stay on screen).
  useEffect(() => {
    const el = firstCited.current;
    const box = el?.closest('.doc');
    if (el && box instanceof HTMLElement) box.scrollTop = el.offsetTop - box.clientHeight / 3; // .doc is the offsetParent (position: relative)
  }, [blocks, cited]);

  return (
    <div className="doc" lang={lang}>
      {blocks.map((b, i) => {
        const isCited = citedSet.has(i);
        const ref = isCited && i === cited[0] ? (el: HTMLElement | null) => void (firstCited.current = el) : undefined;
        const cls = `doc-block doc-${b.kind}${isCited ? ' is-cited' : ''}`;
        const content = query ? <Highlighted text={text(b)} query={query} /> : text(b);
        if (b.kind === 'heading') {
          const level = Math.min(6, Math.max(2, (b.level ?? 1) + 1));
          const H = `h${level}` as 'h2';
          return (
            <H key={i} ref={ref} className={cls} data-cited={isCited || undefined}>
              {content}
            </H>
          );
        }
        return (
          <p key={i} ref={ref} className={cls} data-cited={isCited || undefined}>
            {b.kind === 'admonition' && b.admonition && !b.text.toUpperCase().startsWith(b.admonition) && <strong>{b.admonition}: </strong>}
            {b.kind === 'definition' && b.term && <strong>{b.term}: </strong>}
            {content}
          </p>
        );
      })}
    </div>
  );
}

function text(b: Block): string {
  if (b.kind === 'heading') return b.text;
  if (b.kind === 'step' && b.stepNumber !== undefined && !/^\d/.test(b.text)) return `${b.stepNumber}. ${b.text}`;
  return b.kind === 'table-row' ? blockText(b) : b.text;
}
