import { describe, expect, it } from 'vitest';
import { familiesCompatible, familyOfWord, looseKey, normalizeCode } from '../../../native/fault-codes/normalize.js';

const key = (raw: string, family?: string): string | undefined => normalizeCode(raw, family ? { family } : undefined)?.key;

describe('normalizeCode', () => {
  it('ignores case and separators', () => {
    for (const raw of ['E-204', 'E 204', 'E204', 'e_204', 'e204', 'E–204', 'E:204', 'E.204']) {
      expect(normalizeCode(raw)).toEqual({ key: 'error:204', family: 'error' });
    }
  });

  it('reads a dot after the letters as a separator, never one between digits', () => {
    expect(normalizeCode('AL.021')).toEqual({ key: 'alarm:21', family: 'alarm' });
    expect(normalizeCode('Er.17')).toEqual({ key: 'error:17', family: 'error' });
    expect(normalizeCode('Er. 17')).toEqual({ key: 'error:17', family: 'error' });
    expect(normalizeCode('XX.201')).toEqual({ key: 'xx201', family: 'xx' });
    for (const raw of ['AL.2.1.3', 'v1.2', 'fig.3.1']) expect(normalizeCode(raw), raw).toBeNull();
  });

  it('keeps a sub-number after one dot where a family word, family letters or the column give the family', () => {
    for (const raw of ['Err16.1', 'err 16.1', 'error 16.1', 'E16.1', 'ERROR:16.1']) expect(normalizeCode(raw), raw).toEqual({ key: 'error:16.1', family: 'error' });
    expect(key('16.1', 'Error code')).toBe('error:16.1');
    expect(key('AL 04.2')).toBe('alarm:4.2');
    // "error 16" reaches every sub-code of 16 by the loose key.
    expect(looseKey('error:16.1', 'error')).toBe(looseKey('error:16', 'error'));
  });

  it('maps prefix words to families', () => {
    expect(normalizeCode('err 20')).toEqual({ key: 'error:20', family: 'error' });
    expect(normalizeCode('Error:22')).toEqual({ key: 'error:22', family: 'error' });
    expect(normalizeCode('ER 22')).toEqual({ key: 'error:22', family: 'error' });
    expect(normalizeCode('ALARM:9')).toEqual({ key: 'alarm:9', family: 'alarm' });
    expect(normalizeCode('alm 9')).toEqual({ key: 'alarm:9', family: 'alarm' });
    expect(normalizeCode('AL021')).toEqual({ key: 'alarm:21', family: 'alarm' });
    expect(normalizeCode('fault 23')).toEqual({ key: 'fault:23', family: 'fault' });
    expect(normalizeCode('FLT-23')).toEqual({ key: 'fault:23', family: 'fault' });
    expect(normalizeCode('F0023')).toEqual({ key: 'fault:23', family: 'fault' });
    expect(normalizeCode('error code 9')).toEqual({ key: 'error:9', family: 'error' });
    expect(normalizeCode('alarm no. 5')).toEqual({ key: 'alarm:5', family: 'alarm' });
    expect(normalizeCode('error #13109')).toEqual({ key: 'error:13109', family: 'error' });
  });

  it('maps Chinese family words', () => {
    expect(key('报警9')).toBe('alarm:9');
    expect(key('警报 9')).toBe('alarm:9');
    expect(key('错误 22')).toBe('error:22');
    expect(key('故障 7')).toBe('fault:7');
    expect(normalizeCode('故障码 P0171')).toEqual({ key: 'p0171', family: 'obd-p' });
    expect(key('报警９')).toBe('alarm:9'); // full-width digit
  });

  it('ignores zero padding in word families', () => {
    expect(key('error:01')).toBe(key('error:1'));
    expect(key('AL021')).toBe(key('AL21'));
    expect(key('F0023')).toBe(key('F23'));
    expect(key('alarm 000')).toBe('alarm:0');
  });

  it('keeps OBD codes at 4 digits with their letter', () => {
    expect(normalizeCode('P0301')).toEqual({ key: 'p0301', family: 'obd-p' });
    expect(normalizeCode('b0301')).toEqual({ key: 'b0301', family: 'obd-b' });
    expect(key('P0301')).not.toBe(key('B0301'));
    expect(key('U0100')).toBe('u0100');
    expect(key('C0035')).toBe('c0035');
    expect(key('P000A')).toBe('p000a');
    expect(key('dtc p0301')).toBe('p0301');
    expect(key('obd p 0420')).toBe('p0420');
    expect(key('OBD2 P420')).toBe('p0420'); // short body after dtc/obd is padded
    // Without dtc/obd, "p300" is not an OBD code: only the loose key meets P0300.
    expect(normalizeCode('p300')).toEqual({ key: 'p300', family: 'p' });
    expect(looseKey('p300', 'p')).toBe(looseKey('p0300', 'obd-p'));
  });

  it('keeps the width of plain numbers (5-digit vendor codes)', () => {
    expect(normalizeCode('04101')).toEqual({ key: '04101', family: 'number' });
    expect(key('13201')).toBe('13201');
    expect(key('04101')).not.toBe(key('4101'));
    expect(looseKey('04101', 'number')).toBe('4101');
    expect(key('#13109')).toBe('13109');
  });

  it('applies a header family to bare numbers only', () => {
    expect(key('9', 'alarm')).toBe('alarm:9');
    expect(key('09', 'Alarm')).toBe('alarm:9');
    expect(key('E-204', 'alarm')).toBe('error:204'); // the code's own family wins
    expect(key('9', 'bogus')).toBe('9');
  });

  it('normalises symbolic ids', () => {
    expect(normalizeCode('DC_BUS_UNDER_VOLTAGE')).toEqual({ key: 'dc_bus_under_voltage', family: 'symbol' });
    expect(normalizeCode('ERROR_DRV_FAULT')).toEqual({ key: 'error_drv_fault', family: 'symbol' });
    expect(key('error_drv_fault')).toBe('error_drv_fault');
    expect(key('ERR_01')).toBe('error:1'); // one lettered segment: a code with a separator
  });

  it('keeps other letter codes as written', () => {
    expect(normalizeCode('XX201')).toEqual({ key: 'xx201', family: 'xx' });
    expect(normalizeCode('H12')).toEqual({ key: 'h12', family: 'h' });
  });

  it('rejects what is not a code', () => {
    for (const raw of ['', 'Hard limit', 'error', 'alarm code', '1.5', 'V', 'code', 'errors 5', '12v', 'v1.2', 'XX1.5', 'error 1.234']) {
      expect(normalizeCode(raw), raw).toBeNull();
    }
  });

  it('knows family words and compatibility', () => {
    expect(familyOfWord('Alarm')).toBe('alarm');
    expect(familyOfWord('E')).toBe('error');
    expect(familyOfWord('报警')).toBe('alarm');
    expect(familyOfWord('code')).toBeNull();
    expect(familiesCompatible('alarm', 'error')).toBe(false);
    expect(familiesCompatible('error', 'number')).toBe(true);
    expect(familiesCompatible('p', 'obd-p')).toBe(true);
    expect(looseKey('alarm:9', 'alarm')).toBe('9');
  });
});
