/**
 * History: the local audit trail of lookups and opened manual pages, exportable as CSV. A search or
 * a question runs again from its row (a button, so Tab + Enter does it); an opened page opens again.
 */
import { useMemo, useState } from 'react';
import { clearHistory, historyCsv, readHistory, type HistoryEntry } from '../../local/history.js';
import type { OpenSource } from '../../routes.js';

const ACTION: Record<HistoryEntry['action'], string> = { search: 'Searched', ask: 'Asked', open: 'Opened' };

export interface HistoryPageProps {
  version: number;
  active: boolean;
  onCleared: () => void;
  onSearch: (text: string) => void;
  onAsk: (text: string) => void;
  onOpen: OpenSource;
}

export function HistoryPage({ version, active, onCleared, onSearch, onAsk, onOpen }: HistoryPageProps) {
  const [confirm, setConfirm] = useState(false);
  // Re-read when something was recorded or the screen is shown again.
  const entries = useMemo(() => (active ? readHistory() : []), [version, active]);
  // Keys that stay with their row when an entry is recorded above it (an index would shift, React would
  // remount every row and a focused "run again" button would lose focus under the keyboard).
  const rowKeys = useMemo(() => {
    const seen = new Map<string, number>();
    return entries.map((e) => {
      const base = `${e.at}|${e.action}|${e.query ?? ''}|${e.file ?? ''}|${e.page ?? ''}`;
      const n = seen.get(base) ?? 0;
      seen.set(base, n + 1);
      return `${base}|${n}`;
    });
  }, [entries]);
  const csvHref = useMemo(() => `data:text/csv;charset=utf-8,${encodeURIComponent(historyCsv(entries))}`, [entries]);

  return (
    <section className="history-page" aria-label="History">
      <div className="history-actions">
        <h2>History on this computer</h2>
        <a className="button" href={csvHref} download={`manualdesk-history-${new Date().toISOString().slice(0, 10)}.csv`}>
          Export CSV
        </a>
        {confirm ? (
          <>
            <button
              type="button"
              className="button danger"
              onClick={() => {
                clearHistory();
                setConfirm(false);
                onCleared();
              }}
            >
              Confirm: clear all
            </button>
            <button type="button" className="button" onClick={() => setConfirm(false)}>
              Keep
            </button>
          </>
        ) : (
          <button type="button" className="button" disabled={entries.length === 0} onClick={() => setConfirm(true)}>
            Clear history
          </button>
        )}
      </div>
      {entries.length === 0 ? (
        <p className="status">Nothing yet. Searches, questions and opened pages are listed here (they never leave this computer).</p>
      ) : (
        <table className="history">
          <thead>
            <tr>
              <th scope="col">When</th>
              <th scope="col">What</th>
              <th scope="col">Manual</th>
              <th scope="col">Revision</th>
              <th scope="col">Page / section</th>
            </tr>
          </thead>
          <tbody>
            {entries.map((e, i) => (
              <tr key={rowKeys[i]}>
                <td className="num">{new Date(e.at).toLocaleString()}</td>
                <td>
                  {e.query && e.action !== 'open' ? (
                    <button
                      type="button"
                      className="link history-rerun"
                      title={e.action === 'ask' ? 'Ask this again' : 'Search for this again'}
                      onClick={() => (e.action === 'ask' ? onAsk(e.query!) : onSearch(e.query!))}
                    >
                      {ACTION[e.action]} “{e.query}”
                    </button>
                  ) : e.action === 'open' && e.file && e.manual ? (
                    <button
                      type="button"
                      className="link history-rerun"
                      title="Open this page again"
                      onClick={() => onOpen({ file: e.file!, manual: e.manual!, pack: e.pack, page: e.page ?? null, section: e.section ?? '', text: e.section ?? '' })}
                    >
                      {ACTION[e.action]}
                    </button>
                  ) : (
                    <>
                      {ACTION[e.action]} {e.query ? `“${e.query}”` : ''}
                    </>
                  )}
                </td>
                <td>{e.manual ?? ''}</td>
                <td>{e.revision ?? ''}</td>
                <td>{e.page !== undefined && e.page !== null ? `p. ${e.page}` : (e.section ?? '')}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
