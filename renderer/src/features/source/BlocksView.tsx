/**
 * A non-PDF manual as parsed: headings, paragraphs, steps, lists, tables (with their header row),
 * code blocks; the cited blocks highlighted. Markup is never shown: table rows are cells, not the
 * CSV line or the `| a | b |` pipes.
 */
import { useEffect, useRef, type ReactNode } from 'react';
import type { Block } from '../../../../native/contract/index.js';
import { Highlighted } from '../search/highlight.js';
import { inlineText } from '../../ui/structure.js';

/** Consecutive blocks shown as one element: a table's rows (same columns), or a run of list items. */
export type BlockGroup = { kind: 'single'; index: number } | { kind: 'table'; columns: string[]; rows: number[] } | { kind: 'list'; items: number[] };

/** Groups blocks for display: table rows under one header, list items in one list. Pure. */
export function groupBlocks(blocks: Block[]): BlockGroup[] {
  const out: BlockGroup[] = [];
  blocks.forEach((b, i) => {
    const last = out[out.length - 1];
    if (b.kind === 'table-row') {
      const columns = b.columns ?? [];
      const prev = i > 0 ? blocks[i - 1] : undefined;
      const same = last?.kind === 'table' && prev?.kind === 'table-row' && (prev.table ?? '') === (b.table ?? '') && sameColumns(last.columns, columns);
      if (same) last.rows.push(i);
      else out.push({ kind: 'table', columns, rows: [i] });
    } else if (b.kind === 'list-item') {
      if (last?.kind === 'list' && blocks[i - 1]?.kind === 'list-item') last.items.push(i);
      else out.push({ kind: 'list', items: [i] });
    } else out.push({ kind: 'single', index: i });
  });
  return out;
}

function sameColumns(a: string[], b: string[]): boolean {
  return a.length === b.length && a.every((c, i) => c === b[i]);
}

/** A row's cells as shown: its cells, else its text split on pipes, never the raw line. */
export function rowCells(b: Block): string[] {
  if (b.cells && b.cells.length > 0) return b.cells.map((c) => inlineText(c));
  return [inlineText(b.text)];
}

export function BlocksView({ blocks, cited, query, lang }: { blocks: Block[]; cited: number[]; query?: string; lang?: string }) {
  const firstCited = useRef<HTMLElement | null>(null);
  const citedSet = new Set(cited);

  // Scroll the document box only (the app header and its Back button stay on screen).
  useEffect(() => {
    const el = firstCited.current;
    const box = el?.closest('.doc');
    if (el && box instanceof HTMLElement) box.scrollTop += el.getBoundingClientRect().top - box.getBoundingClientRect().top - box.clientHeight / 3;
  }, [blocks, cited]);

  const show = (s: string): ReactNode => (query ? <Highlighted text={s} query={query} /> : s);
  const refFor = (i: number) => (citedSet.has(i) && i === cited[0] ? (el: HTMLElement | null) => void (firstCited.current = el) : undefined);
  const cls = (b: Block, i: number) => `doc-block doc-${b.kind}${citedSet.has(i) ? ' is-cited' : ''}`;

  return (
    <div className="doc" lang={lang}>
      {groupBlocks(blocks).map((g) => {
        if (g.kind === 'table') {
          const first = g.rows[0]!;
          return (
            <table key={`t${first}`} className="doc-table">
              {g.columns.length > 0 && (
                <thead>
                  <tr>
                    {g.columns.map((c, j) => (
                      <th key={j} scope="col">
                        {inlineText(c)}
                      </th>
                    ))}
                  </tr>
                </thead>
              )}
              <tbody>
                {g.rows.map((i) => (
                  <tr key={i} ref={refFor(i)} className={cls(blocks[i]!, i)} data-cited={citedSet.has(i) || undefined}>
                    {rowCells(blocks[i]!).map((c, j) => (
                      <td key={j}>{show(c)}</td>
                    ))}
                  </tr>
                ))}
              </tbody>
            </table>
          );
        }
        if (g.kind === 'list') {
          return (
            <ul key={`l${g.items[0]}`} className="doc-list">
              {g.items.map((i) => (
                <li key={i} ref={refFor(i)} className={cls(blocks[i]!, i)} data-cited={citedSet.has(i) || undefined}>
                  {show(shownText(blocks[i]!))}
                </li>
              ))}
            </ul>
          );
        }
        const i = g.index;
        const b = blocks[i]!;
        const isCited = citedSet.has(i);
        if (b.kind === 'heading') {
          const level = Math.min(6, Math.max(2, (b.level ?? 1) + 1));
          const H = `h${level}` as 'h2';
          return (
            <H key={i} ref={refFor(i)} className={cls(b, i)} data-cited={isCited || undefined}>
              {show(shownText(b))}
            </H>
          );
        }
        if (b.kind === 'code') {
          return (
            <pre key={i} ref={refFor(i)} className={`${cls(b, i)} doc-code`} data-cited={isCited || undefined}>
              <code>{show(b.text)}</code>
            </pre>
          );
        }
        const signal = b.kind === 'admonition' ? admonitionTone(b) : null;
        const shown = shownText(b);
        return (
          <p key={i} ref={refFor(i)} className={`${cls(b, i)}${signal ? ` doc-signal-${signal}` : ''}`} data-cited={isCited || undefined}>
            {b.kind === 'admonition' && b.admonition && !shown.toUpperCase().startsWith(b.admonition) && <strong>{b.admonition}: </strong>}
            {b.kind === 'definition' && b.term && <strong>{b.term}: </strong>}
            {show(shown)}
          </p>
        );
      })}
    </div>
  );
}

/** DANGER / WARNING / CAUTION / NOTICE of an admonition block (its kind, else the word it starts with). */
function admonitionTone(b: Block): 'danger' | 'warning' | 'caution' | 'notice' | null {
  const word = (b.admonition ?? /^\s*(DANGER|WARNING|CAUTION|NOTICE)\b/i.exec(b.text)?.[1] ?? '').toUpperCase();
  if (word === 'DANGER') return 'danger';
  if (word === 'WARNING') return 'warning';
  if (word === 'CAUTION') return 'caution';
  if (word === 'NOTICE' || word === 'IMPORTANT') return 'notice';
  return null;
}

/**
 * A prose block's text as shown: inline marks as the manual wrote them (`**bold**`, `` `code` ``,
 * `[text](link)`) rendered as their words, like table cells; a step with its number. Code blocks
 * are shown as they are.
 */
export function shownText(b: Block): string {
  const t = inlineText(b.text);
  if (b.kind === 'step' && b.stepNumber !== undefined && !/^\d/.test(t)) return `${b.stepNumber}. ${t}`;
  return t;
}
