import { describe, expect, it } from 'vitest';
import { detectCodes, stripCodes } from '../../../native/fault-codes/detect.js';

const keys = (text: string, isKnown?: (k: string) => boolean): string[] =>
  detectCodes(text, isKnown ? { isKnown } : {}).map((c) => c.key);

describe('detectCodes', () => {
  it('finds codes inside sentences', () => {
    expect(keys('grbl alarm 9 what do i do')).toEqual(['alarm:9']);
    expect(keys('mmu err 4116')).toEqual(['error:4116']);
    expect(keys('obd p 0420')).toEqual(['p0420']);
    expect(keys('check engine light p0301 cyl 1')).toEqual(['p0301']);
    expect(keys('ERROR_DRV_FAULT on both motors')).toEqual(['error_drv_fault']);
    expect(keys('prusa mk4 error #13109')).toEqual(['error:13109']);
    expect(keys('Error:22 on first line')).toEqual(['error:22']);
    expect(keys('E-204')).toEqual(['error:204']);
    expect(keys('alarm8 homing')).toEqual(['alarm:8']);
    expect(keys('F0023 after restart')).toEqual(['fault:23']);
    expect(keys('AL021 and E-7 together')).toEqual(['alarm:21', 'error:7']);
  });

  it('reads a code copied from a log or an API reply as its field prints it', () => {
    expect(keys('ErrorID -2 after MovJ')).toEqual(['error:2']);
    expect(keys('ErrorID=-30001')).toEqual(['error:30001']);
    expect(keys('ErrorCode=5')).toEqual(['error:5']);
    expect(keys('errCode: 17')).toEqual(['error:17']);
    expect(keys('AlarmCode 9')).toEqual(['alarm:9']);
    expect(keys('error id 5')).toEqual(['error:5']);
    expect(keys('err_code 12')).toEqual(['error:12']);
    for (const text of ['the error identifier is shown', 'alarm ID list', 'x=5 after the error', 'errors=none']) expect(keys(text), text).toEqual([]);
  });

  it('finds Chinese codes', () => {
    expect(keys('报警9')).toEqual(['alarm:9']);
    expect(keys('机床出现报警9怎么办')).toEqual(['alarm:9']);
    expect(keys('错误 22')).toEqual(['error:22']);
    expect(keys('故障码 P0171')).toEqual(['p0171']);
  });

  it('gives positions and raw text', () => {
    const [c] = detectCodes('grbl alarm 9 what do i do');
    expect(c).toMatchObject({ raw: 'alarm 9', start: 5, end: 12, family: 'alarm', strength: 'strong' });
  });

  it('does not take numbers in prose for codes', () => {
    for (const text of ['after 5 minutes', 'M3 screw', '24V', 'step 3', 'G28', 'built in 2019', '2 mm', 'fault 2 mm',
      'G1 X10 E20 F1500', 'SET_VELOCITY_LIMIT now', 'wait 1500 rpm', 'see page 1234', 'error in step 3']) {
      expect(keys(text), text).toEqual([]);
    }
  });

  it('treats a number typed alone as a code', () => {
    expect(keys('13201')).toEqual(['13201']);
    expect(keys('9')).toEqual(['9']);
    expect(keys(' #9 ')).toEqual(['9']);
  });

  it('reads a one-digit spaced code ("al 4") in a sentence only where a manual defines it', () => {
    expect(keys('al 4 oil too hot', (k) => k === 'alarm:4')).toEqual(['alarm:4']);
    expect(keys('al 4 oil too hot')).toEqual([]);
    expect(keys('err 4 mm off', (k) => k === 'error:4')).toEqual([]); // a measurement, not a code
  });

  it('keeps weak candidates only when the library knows them', () => {
    const known = new Set(['17202', 'h12', 'dc_bus_under_voltage']);
    expect(keys('XL 17202 extruder preheat')).toEqual([]);
    expect(keys('XL 17202 extruder preheat', (k) => known.has(k))).toEqual(['17202']);
    expect(keys('inverter shows H12 again', (k) => known.has(k))).toEqual(['h12']);
    expect(keys('inverter shows H13 again', (k) => known.has(k))).toEqual([]);
    expect(keys('DC_BUS_UNDER_VOLTAGE at start', (k) => known.has(k))).toEqual(['dc_bus_under_voltage']);
    expect(keys('in 2019 the 17202 came', (k) => known.has(k))).toEqual(['17202']);
  });
});

describe('stripCodes', () => {
  it('returns the rest of the query', () => {
    expect(stripCodes('grbl alarm 9 what do i do')).toBe('grbl what do i do');
    expect(stripCodes('check engine light p0301 cyl 1')).toBe('check engine light cyl 1');
    expect(stripCodes('after 5 minutes')).toBe('after 5 minutes');
    expect(stripCodes('E-204')).toBe('');
  });
});
