/**
 * A passage rendered by its structure (see structure.ts): headings as headings, lists, tables with
 * their header, code blocks, a table row as labelled fields. `inline` renders each run of text (the
 * search page marks the query's words in it, the answer page turns [n] into citation buttons).
 */
import type { ReactNode } from 'react';
import { structure, type Piece } from './structure.js';

export function Structured({ text, tableRow, inline, className }: { text: string; tableRow?: boolean; inline?: (s: string) => ReactNode; className?: string }) {
  const show = inline ?? ((s: string) => s);
  const pieces = structure(text, { tableRow });
  return <div className={`structured${className ? ` ${className}` : ''}`}>{pieces.map((p, i) => renderPiece(p, i, show))}</div>;
}

function renderPiece(p: Piece, key: number, show: (s: string) => ReactNode): ReactNode {
  switch (p.kind) {
    case 'heading':
      return (
        <p key={key} className={`s-heading s-h${Math.min(p.level, 4)}`} role="heading" aria-level={Math.min(6, p.level + 2)}>
          {show(p.text)}
        </p>
      );
    case 'paragraph':
      return (
        <p key={key} className="s-para">
          {show(p.text)}
        </p>
      );
    case 'list': {
      const items = p.items.map((item, i) => <li key={i}>{show(item)}</li>);
      return p.ordered ? (
        <ol key={key} className="s-list" start={p.start}>
          {items}
        </ol>
      ) : (
        <ul key={key} className="s-list">
          {items}
        </ul>
      );
    }
    case 'table':
      return (
        <table key={key} className="s-table">
          {p.header.length > 0 && (
            <thead>
              <tr>
                {p.header.map((h, i) => (
                  <th key={i} scope="col">
                    {show(h)}
                  </th>
                ))}
              </tr>
            </thead>
          )}
          <tbody>
            {p.rows.map((r, i) => (
              <tr key={i}>
                {r.map((c, j) => (
                  <td key={j}>{show(c)}</td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      );
    case 'code':
      return (
        <pre key={key} className="s-code">
          <code>{show(p.text)}</code>
        </pre>
      );
    case 'fields':
      return (
        <dl key={key} className="s-fields">
          {p.fields.map(([label, value], i) => (
            <div key={i} className="s-field">
              <dt>{show(label)}</dt>
              <dd>{show(value)}</dd>
            </div>
          ))}
        </dl>
      );
  }
}
