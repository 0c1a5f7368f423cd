/**
 * A table row as the index quotes it (its header line, then the row, no `|---|` line: chunk/normalize.ts
 * tableRowText) and as an answer lists it (delimiter dropped, citation mark after the closing bar) keeps
 * its header as the header: the sample chiller schedule showed "Interval | Task | Section" as a body row.
 */
import { describe, expect, it } from 'vitest';
import { structure } from '../../../renderer/src/ui/structure.js';

describe('pipe rows without a delimiter line keep their header', () => {
  it('an answer line: header line, then the row with its citation mark after the closing bar', () => {
    expect(structure('| Interval | Task | Section |\n| Every 1000 h | Replace spindle chiller filter | 4.4 | [2]')).toEqual([
      { kind: 'table', header: ['Interval', 'Task', 'Section'], rows: [['Every 1000 h', 'Replace spindle chiller filter', '4.4 [2]']] },
    ]);
  });

  it('a cited table row (no table-row flag) after steps of the same answer', () => {
    const p = structure('1. Close the valve. [1]\n| Interval | Task |\n| Every 250 h | Clean the condenser filter |');
    expect(p[1]).toEqual({ kind: 'table', header: ['Interval', 'Task'], rows: [['Every 250 h', 'Clean the condenser filter']] });
  });

  it('rows of one table cited one by one: the repeated header line is shown once', () => {
    expect(structure('| Interval | Task |\n| 8 h | Check oil | [1]\n| Interval | Task |\n| 40 h | Clean the filter | [2]')).toEqual([
      { kind: 'table', header: ['Interval', 'Task'], rows: [['8 h', 'Check oil [1]'], ['40 h', 'Clean the filter [2]']] },
    ]);
  });

  it('Chinese column names are a header too', () => {
    expect(structure('| 周期 | 项目 |\n| 每 500 小时 | 更换过滤器 |')[0]).toEqual({ kind: 'table', header: ['周期', '项目'], rows: [['每 500 小时', '更换过滤器']] });
  });

  it('rows quoted from the middle of a table (codes, figures in the first line) get no header', () => {
    expect(structure('Rows:\n| E-101 | Emergency stop |\n| E-102 | Door open |')[1]).toEqual({
      kind: 'table',
      header: [],
      rows: [['E-101', 'Emergency stop'], ['E-102', 'Door open']],
    });
    expect(structure('| 250 h | Clean the filter |')).toEqual([{ kind: 'table', header: [], rows: [['250 h', 'Clean the filter']] }]);
  });
});
