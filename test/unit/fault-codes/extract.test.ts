import { describe, expect, it } from 'vitest';
import { extractCodes } from '../../../native/fault-codes/extract.js';
import { alarmCsv, def, doc, heading, obdEn, obdZh, para, row, settingsCsv, yamlErrors } from '../../fixtures/fault-codes/docs.js';

const ctx = { file: 'm/manual.md', manual: 'Test Manual', equipment: [] as string[] };

describe('extractCodes: tables', () => {
  it('reads a CSV-like table with family from the header and splits remedy sentences', () => {
    const recs = extractCodes(alarmCsv, { ...ctx, file: 'alarm_codes.csv' });
    expect(recs.map((r) => r.key)).toEqual(['alarm:1', 'alarm:8', 'alarm:9']);
    const r8 = recs[1];
    expect(r8).toMatchObject({
      code: '8',
      family: 'alarm',
      title: 'Homing fail',
      description: 'Homing cycle could not clear the switch.',
      remedy: 'Try increasing pull-off. Check wiring.',
      cause: '',
      scope: ['Test Manual'],
      lang: 'en',
      file: 'alarm_codes.csv',
    });
    expect(r8?.text).toContain('Alarm Description: Homing cycle could not clear the switch.');
    expect(recs[0]?.remedy).toBe('Re-homing is highly recommended.');
  });

  it('keeps a prose remedy cell as written (brackets, semicolons), and reads a bracketed action list', () => {
    const cols = ['Alarm', 'Message', 'Remedy'];
    const d = doc([
      row('alarms', cols, ['AL-03', 'Pressure low', 'Check the relief valve setting (210 bar); then restart']),
      row('alarms', cols, ['AL-04', 'Filament stuck', '[Unload, Retry, ResetMMU]']),
      row('alarms', cols, ['AL-05', 'Door open', '[]']),
    ]);
    const recs = extractCodes(d, ctx);
    expect(recs.map((r) => r.remedy)).toEqual(['Check the relief valve setting (210 bar); then restart', 'Actions: Unload, Retry, Reset MMU', '']);
  });

  it('leaves settings tables out', () => {
    expect(extractCodes(settingsCsv, ctx)).toEqual([]);
  });

  it('reads YAML-like rows: printers scope, id aliases, severity, one record per row', () => {
    const recs = extractCodes(yamlErrors, ctx);
    expect(recs.map((r) => r.key)).toEqual(['xx201', 'xx202', 'xx202', 'xx301', '05101']);
    expect(recs[0]).toMatchObject({
      code: 'XX201',
      title: 'HEATER FAULT',
      description: 'Heater did not warm up.',
      remedy: 'Check the heater cable. Actions: Retry',
      scope: ['ALPHA', 'BETA'],
      aliases: ['heater_fault'],
    });
    expect(recs[1]?.scope).toEqual(['ALPHA']);
    expect(recs[2]?.scope).toEqual(['BETA']);
    expect(recs[3]).toMatchObject({ severity: 'WARNING', scope: ['Test Manual'] });
    expect(recs[4]).toMatchObject({ family: 'number', key: '05101', remedy: 'Ensure the path is clear.' });
  });

  it('uses sidecar equipment as scope when the row names none', () => {
    const recs = extractCodes(yamlErrors, { ...ctx, equipment: ['Model Z'] });
    expect(recs[3]?.scope).toEqual(['Model Z']);
    expect(recs[0]?.scope).toEqual(['ALPHA', 'BETA']);
  });

  it('reads key=value rows and keeps the raw line; Chinese rows are zh', () => {
    const en = extractCodes(obdEn, ctx);
    expect(en.map((r) => [r.key, r.family])).toEqual([['p0301', 'obd-p'], ['p0302', 'obd-p'], ['b0301', 'obd-b']]);
    expect(en[0]).toMatchObject({ title: 'Cylinder 1 Misfire Detected', text: 'P0301=Cylinder 1 Misfire Detected', lang: 'en' });
    const zh = extractCodes(obdZh, ctx);
    expect(zh[0]).toMatchObject({ key: 'p0301', lang: 'zh', title: '检测到1号气缸失火' });
  });

  it('reads a Markdown table whose family is in another column header', () => {
    const d = doc([
      heading('Response messages', 2),
      ...[['1', 'Letter was not found.'], ['2', 'Bad number format.']].map((c) =>
        row('Response messages', ['ID', 'Error Code Description'], c, ['Response messages']),
      ),
    ]);
    const recs = extractCodes(d, ctx);
    expect(recs.map((r) => r.key)).toEqual(['error:1', 'error:2']);
    expect(recs[0]).toMatchObject({ description: 'Letter was not found.', section: 'Response messages' });
  });

  it('does not take G-code or numbered tables for fault codes', () => {
    const d = doc([
      row('M-codes', ['Code', 'Description'], ['M6', 'Tool change'], ['M-Codes']),
      row('M-codes', ['Code', 'Description'], ['M19', 'Orient spindle'], ['M-Codes']),
      row('Pins', ['GPIO Num', 'Pin'], ['2', '3'], ['Usage']),
      row('Pins', ['GPIO Num', 'Pin'], ['3', '5'], ['Usage']),
    ]);
    expect(extractCodes(d, ctx)).toEqual([]);
  });

  it('reads Chinese headers', () => {
    const d = doc([row('表', ['故障码', '描述', '原因', '处理方法'], ['E-05', '电机过载', '负载过大', '减轻负载'])]);
    const [r] = extractCodes(d, ctx);
    expect(r).toMatchObject({ key: 'error:5', title: '电机过载', cause: '负载过大', remedy: '减轻负载', lang: 'zh' });
  });
});

describe('extractCodes: prose, headings, definitions', () => {
  it('reads prose lines that start with a code', () => {
    const d = doc([
      heading('Messages', 2),
      para('E-204: Motor overload. Reduce the feed rate.\nAlarm 21 – Spindle stalled\nerror:9 G-code locked out\nF0023 Overcurrent in phase U', ['Messages']),
      para('Error 5 occurs when the door opens.', ['Messages']),
      para('Tighten the M3 screw after 5 minutes, see step 3.', ['Messages']),
    ]);
    const recs = extractCodes(d, ctx);
    expect(recs.map((r) => r.key)).toEqual(['error:204', 'alarm:21', 'error:9', 'fault:23']);
    expect(recs[0]).toMatchObject({ title: 'Motor overload.', description: 'Motor overload.', remedy: 'Reduce the feed rate.', text: 'E-204: Motor overload. Reduce the feed rate.' });
    expect(recs[1]?.title).toBe('Spindle stalled');
  });

  it('reads headings that are codes and sorts the following blocks by wording', () => {
    const d = doc([
      heading('Fault codes', 1),
      heading('E-310 Encoder signal lost', 2, ['Fault codes'], 12),
      para('The drive lost the encoder signal.', ['Fault codes', 'E-310 Encoder signal lost']),
      para('Cause: a loose encoder cable.', ['Fault codes', 'E-310 Encoder signal lost']),
      heading('Remedy', 3, ['Fault codes', 'E-310 Encoder signal lost']),
      para('Reconnect the cable.', ['Fault codes', 'E-310 Encoder signal lost', 'Remedy'], 'list-item'),
      heading('E-311 Encoder overspeed', 2, ['Fault codes']),
      para('Check the motor parameters.', ['Fault codes', 'E-311 Encoder overspeed']),
      heading('Installation', 1),
      para('Mount the drive.', ['Installation']),
    ]);
    const recs = extractCodes(d, ctx);
    expect(recs).toHaveLength(2);
    expect(recs[0]).toMatchObject({
      key: 'error:310',
      title: 'Encoder signal lost',
      description: 'The drive lost the encoder signal.',
      cause: 'a loose encoder cable.',
      remedy: 'Reconnect the cable.',
      page: 12,
      section: 'Fault codes',
    });
    expect(recs[0]?.text).toContain('Reconnect the cable.');
    expect(recs[1]).toMatchObject({ key: 'error:311', remedy: 'Check the motor parameters.', description: '' });
  });

  it('reads definition lists, with bare numbers only under a family heading', () => {
    const d = doc([
      heading('Alarm codes', 2),
      def('9', 'Homing fail. Check the switch.', ['Alarm codes']),
      def('P0420', 'Catalyst efficiency below threshold', ['Alarm codes']),
      heading('Options', 2),
      def('12', 'Twelve of something', ['Options']),
      def('HX711', 'A load cell chip', ['Options']),
    ]);
    const recs = extractCodes(d, ctx);
    expect(recs.map((r) => r.key)).toEqual(['alarm:9', 'p0420']);
    expect(recs[0]).toMatchObject({ description: 'Homing fail.', remedy: 'Check the switch.', text: '9\nHoming fail. Check the switch.' });
  });

  it('takes symbolic codes only where the document presents them as errors', () => {
    const d = doc([
      heading('Drive errors', 2),
      def('DC_BUS_UNDER_VOLTAGE', 'Bus voltage below the limit. Check the supply.', ['Drive errors']),
      heading('ERROR_DRV_FAULT', 3, ['Drive errors']),
      para('Driver reported a fault.', ['Drive errors', 'ERROR_DRV_FAULT']),
      heading('Commands', 2),
      def('SAVE_CONFIG', 'Saves the configuration.', ['Commands']),
      def('NO_PROBE_JOG_ERROR', 'Allow jogging with a tripped probe.', ['Commands']),
      para('SET_VELOCITY_LIMIT: changes limits', ['Commands']),
      row('Commands', ['Name', 'Description'], ['SAVE_CONFIG', 'Saves'], ['Commands']),
      row('Drive faults', ['Error', 'Description'], ['OVER_TEMP_FAULT', 'Too hot'], ['Drive errors']),
    ]);
    const recs = extractCodes(d, ctx);
    expect(recs.map((r) => r.key).sort()).toEqual(['dc_bus_under_voltage', 'error_drv_fault', 'over_temp_fault']);
    expect(recs.find((r) => r.key === 'error_drv_fault')?.description).toBe('Driver reported a fault.');
  });
});
