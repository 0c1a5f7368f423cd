import { describe, expect, it } from 'vitest';
import type { CodeRecord } from '../../../native/contract/document.js';
import { extractCodes } from '../../../native/fault-codes/extract.js';
import { CodeIndex } from '../../../native/fault-codes/index.js';
import { learnSchemes } from '../../../native/fault-codes/schemes.js';
import { alarmCsv, doc, obdEn, obdZh, row, schemeReadme, yamlErrors } from '../../fixtures/fault-codes/docs.js';

const ex = (d: Parameters<typeof extractCodes>[0], file: string, manual: string, equipment: string[] = []): CodeRecord[] =>
  extractCodes(d, { file, manual, equipment });

const errorCsv = doc(
  [['9', 'Locked', 'Commands are locked out.'], ['22', 'No feed rate', 'Feed rate has not been set.']].map((c) =>
    row('error_codes', ['Error Code', 'Error Message', 'Error Description'], c),
  ),
);

function library(): CodeIndex {
  const records = [
    ...ex(alarmCsv, 'cnc/alarm_codes.csv', 'CNC Alarms'),
    ...ex(errorCsv, 'cnc/error_codes.csv', 'CNC Errors'),
    ...ex(yamlErrors, 'vendor/yaml/errors.yaml', 'Printer Errors'),
    ...ex(obdEn, 'obd/codes.properties', 'OBD Codes'),
    ...ex(obdZh, 'obd/codes_zh.properties', 'OBD Codes'),
  ];
  return new CodeIndex(records, learnSchemes(schemeReadme));
}

describe('CodeIndex.lookup', () => {
  const idx = library();

  it('finds a code written in any variant', () => {
    for (const q of ['ALARM:9', 'alarm 9', 'alm09', 'grbl alarm 9 what do i do', '报警9']) {
      const r = idx.lookup(q);
      expect(r.detected, q).toEqual(['alarm:9']);
      expect(r.matches.map((m) => [m.key, m.title]), q).toEqual([['alarm:9', 'Homing fail']]);
    }
    expect(idx.lookup('Error:22 on first line').matches[0]).toMatchObject({ key: 'error:22', title: 'No feed rate', manual: 'CNC Errors' });
  });

  it('returns every definition of a bare number across families', () => {
    const r = idx.lookup('9');
    expect(r.matches.map((m) => m.key)).toEqual(['alarm:9', 'error:9']);
  });

  it('never answers an alarm query with an error record', () => {
    const r = idx.lookup('alarm 22');
    expect(r.matches).toEqual([]);
  });

  it('maps printer-prefixed codes through the learned scheme and labels the scope', () => {
    const r = idx.lookup('alpha error #21201');
    expect(r.matches).toHaveLength(1);
    expect(r.matches[0]).toMatchObject({ code: 'XX201', key: '21201', title: 'HEATER FAULT', scope: ['ALPHA'] });
    // XX202 is defined twice, for different printers: each prefix finds its own row.
    expect(idx.lookup('21202').matches.map((m) => [m.scope, m.description])).toEqual([[['ALPHA'], 'Sensor reading lost.']]);
    expect(idx.lookup('22202').matches.map((m) => [m.scope, m.description])).toEqual([[['BETA'], 'Sensor reading lost on the tool head.']]);
    expect(idx.lookup('XX202').matches).toHaveLength(2);
    // No printers list: every prefix, each labelled with its product.
    expect(idx.lookup('22301').matches[0]).toMatchObject({ code: 'XX301', scope: ['BETA'] });
  });

  it('lets an explicit code win over a blanket scheme alias', () => {
    // 05101 is defined literally; XX101 (no printers list) would otherwise also claim it.
    const extra = doc([row('Errors', ['code', 'title', 'text'], ['XX101', 'GENERIC', 'Generic fault.'])]);
    const records = [...ex(yamlErrors, 'v/errors.yaml', 'E'), ...ex(extra, 'v/more.yaml', 'E')];
    const i2 = new CodeIndex(records, learnSchemes(schemeReadme));
    expect(i2.lookup('05101').matches.map((m) => m.title)).toEqual(['FEEDER STUCK']);
    expect(i2.lookup('21101').matches.map((m) => m.title)).toEqual(['GENERIC']);
  });

  it('finds symbolic ids stored as aliases', () => {
    expect(idx.lookup('HEATER_FAULT on both heads').matches[0]).toMatchObject({ code: 'XX201' });
  });

  it('reaches 5-digit codes from a typed 4-digit number after a family word', () => {
    expect(idx.lookup('feeder err 5101').matches.map((m) => m.code)).toEqual(['05101']);
  });

  it('groups English and Chinese definitions of one key', () => {
    const r = idx.lookup('check engine light p0301 cyl 1');
    expect(r.matches.map((m) => [m.key, m.lang])).toEqual([['p0301', 'en'], ['p0301', 'zh']]);
    const zh = idx.lookup('故障码 P0301 是什么');
    expect(zh.matches.map((m) => m.lang)).toEqual(['zh', 'en']);
    expect(idx.lookup('P0301').matches).toHaveLength(2);
    expect(idx.lookup('B0301').matches.map((m) => m.title)).toEqual(['Body circuit example']);
    expect(idx.lookup('p301').matches.map((m) => m.key)).toEqual(['p0301', 'p0301']);
  });

  it('filters by manual and by equipment (scope)', () => {
    expect(idx.lookup('9', { manuals: ['CNC Errors'] }).matches.map((m) => m.key)).toEqual(['error:9']);
    expect(idx.lookup('XX202', { equipment: ['beta'] }).matches.map((m) => m.scope)).toEqual([['BETA']]);
    expect(idx.lookup('21201', { equipment: ['BETA'] }).matches).toEqual([]);
    expect(idx.lookup('22201', { equipment: ['BETA'] }).matches).toHaveLength(1);
  });

  it('suggests the nearest defined codes of the same family for an unknown code, never a meaning', () => {
    const r = idx.lookup('alarm 7');
    expect(r.detected).toEqual(['alarm:7']);
    expect(r.matches).toEqual([]);
    expect(r.nearest).toEqual([
      { code: 'alarm:1', title: 'Hard stop', manual: 'CNC Alarms' },
      { code: 'alarm:8', title: 'Homing fail', manual: 'CNC Alarms' },
      { code: 'alarm:9', title: 'Homing fail', manual: 'CNC Alarms' },
    ]);
    const obd = idx.lookup('P0303');
    expect(obd.matches).toEqual([]);
    expect(obd.nearest.map((n) => n.code)).toEqual(['P0301', 'P0302']);
    // Other families are never suggested: B0301 is not near P0303.
    expect(idx.lookup('how do I fix it').nearest).toEqual([]);
  });

  it('reports detection and timing', () => {
    const r = idx.lookup('nothing here');
    expect(r).toMatchObject({ query: 'nothing here', detected: [], matches: [], nearest: [] });
    expect(typeof r.ms).toBe('number');
  });
});

describe('CodeIndex cache', () => {
  it('serves repeated lookups from the LRU and drops them on rebuild', () => {
    const records = ex(alarmCsv, 'cnc/alarm_codes.csv', 'CNC Alarms');
    const idx = new CodeIndex(records);
    const first = idx.lookup('alarm 9');
    const again = idx.lookup('alarm 9');
    expect(again.matches).toBe(first.matches); // same rendered result, from the cache
    // Library changes: the record is gone after a rebuild.
    idx.rebuild(records.filter((r) => r.key !== 'alarm:9'));
    const after = idx.lookup('alarm 9');
    expect(after.matches).toEqual([]);
    expect(after.nearest.map((n) => n.code)).toContain('alarm:8');
  });

  it('invalidate() drops cached results', () => {
    const records = ex(alarmCsv, 'cnc/alarm_codes.csv', 'CNC Alarms');
    const idx = new CodeIndex(records, [], { cacheSize: 2 });
    const first = idx.lookup('alarm 1');
    idx.invalidate();
    const second = idx.lookup('alarm 1');
    expect(second.matches).not.toBe(first.matches);
    expect(second.matches).toEqual(first.matches);
  });
});

describe('CodeIndex.recordOfRow', () => {
  const idx = library();

  it('gives the record a table-row passage shows, and none for a passage of several codes or another file', () => {
    const rec = idx.lookup('error 22').matches.find((m) => m.file === 'cnc/error_codes.csv');
    expect(rec).toBeDefined();
    const rowText = `Error Code, Error Message, Error Description\n${rec?.text}`;
    expect(idx.recordOfRow('cnc/error_codes.csv', rowText)).toMatchObject({ code: '22', title: 'No feed rate', remedy: rec?.remedy });
    const other = idx.lookup('error 9').matches.find((m) => m.file === 'cnc/error_codes.csv');
    expect(idx.recordOfRow('cnc/error_codes.csv', `${rec?.text}\n${other?.text}`)).toBeNull();
    expect(idx.recordOfRow('cnc/alarm_codes.csv', rowText)).toBeNull();
    expect(idx.recordOfRow('cnc/error_codes.csv', 'Feed rate is explained in the guide.')).toBeNull();
  });
});
