/**
 * Code records from every enumeration / table shape a manual uses, read through the real parsers
 * (YAML, JSON, Markdown, HTML, AsciiDoc, PDF), and the forms a technician types them in. The
 * fixtures are written here; their content is invented.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CodeRecord } from '../../../native/contract/document.js';
import { collectEvidence, gate } from '../../../native/answer/evidence.js';
import { checkCodes } from '../../../native/fault-codes/check.js';
import { detectCodes } from '../../../native/fault-codes/detect.js';
import { extractCodes } from '../../../native/fault-codes/extract.js';
import { CodeIndex } from '../../../native/fault-codes/index.js';
import { splitMergedHeader } from '../../../native/parse/pdf/tables.js';
import { parseFile } from '../../../native/parse/index.js';
import { makePdf, tempDir } from '../parse/helpers.js';

let tmp: Awaited<ReturnType<typeof tempDir>>;
beforeAll(async () => {
  tmp = await tempDir();
});
afterAll(() => tmp.cleanup());

async function recordsOf(name: string, data: string | Buffer, file = `set/${name}`): Promise<CodeRecord[]> {
  const doc = await parseFile(await tmp.file(name, data));
  return extractCodes(doc, { file, manual: 'Test Manual', equipment: [] });
}

const INTERFACE_YAML = `name: Drive interface
interfaces:
  Drive:
    attributes:
      dump_errors:
        doc: Prints every error of the drive and its axes.
valuetypes:
  Drive.Error:
    flags:
      INITIALIZING:
        brief: The drive is still starting up.
        doc: Wait until start-up finishes before you enable an axis.
      DC_BUS_OVER_VOLTAGE:
        brief: The DC bus voltage rose above the limit.
        doc: Check the brake resistor. Reduce the deceleration.
  Drive.Axis.Error:
    flags:
      WATCHDOG_EXPIRED:
        brief: The axis watchdog expired.
        doc: Feed the watchdog more often, or disable it.
      MOTOR_FAILED:
        doc: The motor reported an error; read the motor's error flags.
  Drive.Axis.State:
    values:
      IDLE: {brief: The axis is idle.}
      CLOSED_LOOP: {brief: The axis holds position.}
`;

describe('structured enumerations', () => {
  it('turns a nested flags map of an error type into records: brief → title, doc → meaning/remedy, type → scope and prefixes', async () => {
    const recs = await recordsOf('drive-interface.yaml', INTERFACE_YAML);
    expect(recs.map((r) => r.code)).toEqual(['INITIALIZING', 'DC_BUS_OVER_VOLTAGE', 'WATCHDOG_EXPIRED', 'MOTOR_FAILED']);
    const ov = recs[1] as CodeRecord;
    expect(ov).toMatchObject({
      key: 'dc_bus_over_voltage',
      family: 'symbol',
      title: 'The DC bus voltage rose above the limit.',
      remedy: 'Check the brake resistor. Reduce the deceleration.',
    });
    expect(ov.aliases).toContain('error_dc_bus_over_voltage');
    expect(ov.text).toContain('key: DC_BUS_OVER_VOLTAGE');
    const wd = recs[2] as CodeRecord;
    expect(wd.scope).toContain('Axis');
    expect(wd.aliases).toEqual(expect.arrayContaining(['error_watchdog_expired', 'axis_error_watchdog_expired']));
    // A command name and the values of a non-error type are not codes.
    expect(recs.some((r) => /dump|idle|closed/i.test(r.code))).toBe(false);
  });

  it('reads an error attribute of a type (`Drive.Motor: attributes: error: flags:`) with inline entries', async () => {
    const yaml = [
      'interfaces:',
      '  Drive.Motor:',
      '    attributes:',
      '      error:',
      '        type: flags',
      '        flags:',
      '          PHASE_RESISTANCE_OUT_OF_RANGE: {bit: 0, doc: "The measured phase resistance is implausible."}',
      '          DRV_FAULT: {bit: 3, doc: "The gate driver chip reported an error."}',
      '      config:',
      '        pole_pairs: {type: int32, doc: Number of pole pairs.}',
      '        current_lim: {type: float32, doc: Current limit.}',
    ].join('\n');
    const recs = await recordsOf('motor.yaml', yaml);
    expect(recs.map((r) => r.code)).toEqual(['PHASE_RESISTANCE_OUT_OF_RANGE', 'DRV_FAULT']);
    expect(recs[1]?.aliases).toEqual(expect.arrayContaining(['error_drv_fault', 'motor_error_drv_fault']));
    expect(recs[1]?.scope).toContain('Motor');
    const index = new CodeIndex(recs);
    for (const typed of ['MOTOR_ERROR_DRV_FAULT', 'MotorError.DRV_FAULT', 'motor error drv fault', 'drv fault']) {
      expect(index.lookup(typed).matches.map((m) => m.code), typed).toEqual(['DRV_FAULT']);
    }
  });

  it('reads PascalCase error flags of several interfaces (`Drive.Axis: attributes: error: flags: InvalidState:`)', async () => {
    // A map of interfaces is a map of records, each flattened into one row: the error flags inside
    // each must still be an enumeration of their own, and PascalCase ids are the same ids tools print
    // in UPPER_SNAKE (`AXIS_ERROR_INVALID_STATE`).
    const yaml = [
      'interfaces:',
      '  Drive:',
      '    attributes:',
      '      vbus_voltage: {type: float32, brief: Voltage on the DC bus.}',
      '  Drive.Axis:',
      '    attributes:',
      '      error:',
      '        nullflag: None',
      '        flags:',
      '          InvalidState:',
      '            brief: An invalid state was requested.',
      '            doc: Calibrate the motor before you request closed loop control.',
      '          DcBusOverVoltage:',
      '            brief: The DC voltage exceeded the limit.',
      '            doc: Connect a brake resistor of the right value.',
      '          WatchdogTimerExpired:',
      '      config:',
      '        watchdog_timeout: {type: float32, doc: 0 disables the watchdog.}',
      '  Drive.Motor:',
      '    attributes:',
      '      error:',
      '        flags:',
      '          PhaseResistanceOutOfRange: {brief: The measured phase resistance is implausible.}',
      '          ADCFailed: {doc: The current sense ADC failed.}',
    ].join('\n');
    const recs = await recordsOf('interfaces.yaml', yaml);
    expect(recs.map((r) => r.code)).toEqual(['InvalidState', 'DcBusOverVoltage', 'WatchdogTimerExpired', 'PhaseResistanceOutOfRange', 'ADCFailed']);
    expect(recs[0]).toMatchObject({ key: 'invalid_state', title: 'An invalid state was requested.' });
    expect(recs[0]?.scope).toContain('Axis');
    expect(recs[4]?.key).toBe('adc_failed');
    const index = new CodeIndex(recs);
    const known = (key: string, family: string) => index.has(key, family);
    for (const typed of ['InvalidState', 'INVALID_STATE', 'AXIS_ERROR_INVALID_STATE', 'AxisError.INVALID_STATE', 'axis error invalid state']) {
      expect(index.lookup(typed).matches.map((m) => m.code), typed).toEqual(['InvalidState']);
    }
    expect(detectCodes('axis shows DcBusOverVoltage when braking', { isKnown: known }).map((c) => c.key)).toEqual(['dc_bus_over_voltage']);
    expect(index.lookup('MOTOR_ERROR_PHASE_RESISTANCE_OUT_OF_RANGE').matches.map((m) => m.code)).toEqual(['PhaseResistanceOutOfRange']);
  });

  it('keeps a doc string as written but for its Markdown: a multiplication stays, fence lines go, code lines stay', async () => {
    const yaml = [
      'interfaces:',
      '  Drive.Motor:',
      '    attributes:',
      '      error:',
      '        flags:',
      '          PhaseResistanceOutOfRange:',
      '            brief: The measured phase resistance is implausible.',
      '            doc: |',
      '              Check that all motor leads are **connected securely**. In general, you need',
      '              ```text',
      '              max_voltage > calibration_current * phase_resistance',
      '              ```',
    ].join('\n');
    const [rec] = await recordsOf('motor-doc.yaml', yaml);
    const text = `${rec?.description ?? ''} ${rec?.remedy ?? ''}`;
    expect(text).toContain('max_voltage > calibration_current * phase_resistance');
    expect(text).toContain('connected securely');
    expect(text).not.toMatch(/```|\*\*|\btext max_voltage/);
  });

  it('names a PascalCase owner as its tools print it: SensorlessEstimator → SENSORLESS_ESTIMATOR_ERROR_…', async () => {
    const yaml = [
      'interfaces:',
      '  Drive.Controller:',
      '    attributes:',
      '      error:',
      '        flags:',
      '          UnstableGain: {doc: Lower the velocity gain.}',
      '          Overspeed: {doc: Raise the velocity limit.}',
      '  Drive.SensorlessEstimator:',
      '    attributes:',
      '      error:',
      '        flags:',
      '          UnstableGain: {doc: Lower the observer gain.}',
      '          UnknownCurrentMeasurement: {doc: Check the current sensors.}',
      '  Drive.Can:',
      '    attributes:',
      '      error:',
      '        flags: {DuplicateCanIds: {doc: Give each node its own id.}}',
    ].join('\n');
    const recs = await recordsOf('estimator.yaml', yaml);
    // One capitalised word is an id in an error enumeration too (`Overspeed`).
    expect(recs.map((r) => [r.key, r.scope?.at(-1)])).toEqual([
      ['unstable_gain', 'Controller'],
      ['overspeed', 'Controller'],
      ['unstable_gain', 'Sensorless Estimator'],
      ['unknown_current_measurement', 'Sensorless Estimator'],
      // One error flag is an enumeration of one.
      ['duplicate_can_ids', 'Can'],
    ]);
    const index = new CodeIndex(recs);
    for (const typed of ['SENSORLESS_ESTIMATOR_ERROR_UNSTABLE_GAIN', 'sensorless estimator error unstable gain']) {
      expect(index.lookup(typed).matches.map((m) => m.title), typed).toEqual(['Lower the observer gain.']);
    }
  });

  it('makes one record per entry of a JSON alarm table with one object per language, searchable in both', async () => {
    const json = JSON.stringify([
      { id: 1201, level: 2, en: { description: 'Joint 3 brake fault', cause: 'Brake wire loose', solution: 'Check the brake cable' }, zh_CN: { description: '关节3抱闸故障', cause: '抱闸线松动', solution: '检查抱闸线缆' }, ja: { description: '', cause: '', solution: '' } },
      { id: 1202, level: 1, en: { description: '', cause: '', solution: '' }, zh_CN: { description: '急停按钮被按下', cause: '', solution: '松开急停按钮并清错' } },
      { id: 1203, level: 1, en: { description: 'Safety plane exceeded', cause: '', solution: 'Clear the alarm and jog back' }, zh_CN: { description: '超出安全平面', cause: '', solution: '清除报警后点动返回' } },
    ]);
    const recs = await recordsOf('alarmController.json', json);
    expect(recs.map((r) => r.key)).toEqual(['1201', '1202', '1203']);
    expect(recs[0]).toMatchObject({ description: 'Joint 3 brake fault', cause: 'Brake wire loose', remedy: 'Check the brake cable', lang: 'en', severity: '2' });
    // The record quotes its row in its own language, as the row's English passage reads.
    expect(recs[0]?.text).toBe('id: 1201 | level: 2 | description: Joint 3 brake fault | cause: Brake wire loose | solution: Check the brake cable');
    expect(recs[1]?.text).toBe('id: 1202 | level: 1 | description: 急停按钮被按下 | solution: 松开急停按钮并清错');
    // English empty: the entry's Chinese text gives its fields.
    expect(recs[1]).toMatchObject({ description: '急停按钮被按下', remedy: '松开急停按钮并清错', lang: 'zh' });
  });

  it('keeps the other language of a per-language entry and answers a Chinese question in Chinese', async () => {
    const json = JSON.stringify([
      { id: 1201, level: 2, en: { description: 'Joint 3 brake fault', cause: 'Brake wire loose', solution: 'Check the brake cable' }, zh_CN: { description: '关节3抱闸故障', cause: '抱闸线松动', solution: '检查抱闸线缆' } },
      { id: 1204, level: 1, en: { description: 'Joint 4 overheated', cause: 'Load too high', solution: 'Reduce the load' }, zh_CN: { description: '关节4过热', cause: '负载过大', solution: '减小负载' } },
      { id: 1205, level: 1, en: { description: 'Collision detected', cause: 'Obstacle in the path', solution: 'Clear the path' }, zh_CN: { description: '检测到碰撞', cause: '路径有障碍', solution: '清除障碍' } },
    ]);
    const recs = await recordsOf('alarmController.json', json);
    expect(recs[0]?.translations?.zh).toMatchObject({ description: '关节3抱闸故障', cause: '抱闸线松动', remedy: '检查抱闸线缆' });
    const index = new CodeIndex(recs);
    const zh = index.lookup('报警1201是什么意思').matches[0];
    expect(zh).toMatchObject({ description: '关节3抱闸故障', remedy: '检查抱闸线缆', lang: 'zh' });
    const en = index.lookup('alarm 1201 meaning').matches[0];
    expect(en).toMatchObject({ description: 'Joint 3 brake fault', lang: 'en' });
  });
});

const TABLE_ROWS = [
  ['C-02', 'Low coolant flow', 'Check the pump and the strainer.'],
  ['C-03', 'Coolant too hot', 'Clean the condenser filter.'],
  ['C-04', 'Tank level low', 'Top up the tank.'],
];

describe('tables whose first column holds codes', () => {
  const md = `# Chiller\n\n## Alarm codes\n\n| Code | Meaning | Remedy |\n|---|---|---|\n${TABLE_ROWS.map((r) => `| ${r.join(' | ')} |`).join('\n')}\n`;
  const html = `<html><body><h1>Chiller</h1><h2>Alarm codes</h2><table><tr><th>Code</th><th>Meaning</th><th>Remedy</th></tr>${TABLE_ROWS.map((r) => `<tr>${r.map((c) => `<td>${c}</td>`).join('')}</tr>`).join('')}</table></body></html>`;
  const adoc = `= Chiller\n\n== Alarm codes\n\n[cols="1,2,3",options="header"]\n|===\n|Code |Meaning |Remedy\n${TABLE_ROWS.map((r) => r.map((c) => `|${c}`).join(' ')).join('\n')}\n|===\n`;
  // reStructuredText: a grid table (a cell wrapped over two lines), a simple table and a csv-table.
  const pad = (c: string, w: number) => c.padEnd(w);
  const widths = [6, 20, 34];
  const border = (ch: string) => `+${widths.map((w) => ch.repeat(w + 2)).join('+')}+`;
  const gridLine = (cells: string[]) => `| ${cells.map((c, i) => pad(c, widths[i] as number)).join(' | ')} |`;
  const [first, ...rest] = TABLE_ROWS as string[][];
  const wrapped = (first as string[])[2] as string;
  const cut = wrapped.lastIndexOf(' ', 20);
  const grid = [
    border('-'), gridLine(['Code', 'Meaning', 'Remedy']), border('='),
    gridLine([(first as string[])[0] as string, (first as string[])[1] as string, wrapped.slice(0, cut)]), gridLine(['', '', wrapped.slice(cut + 1)]), border('-'),
    ...rest.flatMap((r) => [gridLine(r), border('-')]),
  ].join('\n');
  const simpleBorder = widths.map((w) => '='.repeat(w)).join('  ');
  const simpleLine = (cells: string[]) => cells.map((c, i) => pad(c, widths[i] as number)).join('  ').trimEnd();
  const simple = [simpleBorder, simpleLine(['Code', 'Meaning', 'Remedy']), simpleBorder, ...TABLE_ROWS.map(simpleLine), simpleBorder].join('\n');
  const csv = `.. csv-table:: Alarm codes\n   :header: "Code", "Meaning", "Remedy"\n\n${TABLE_ROWS.map((r) => `   ${r.map((c) => `"${c}"`).join(', ')}`).join('\n')}`;
  for (const [name, data] of [
    ['chiller.md', md],
    ['chiller.html', html],
    ['chiller.adoc', adoc],
    ['chiller-grid.rst', `Chiller\n=======\n\nAlarm codes\n-----------\n\n${grid}\n`],
    ['chiller-simple.rst', `Chiller\n=======\n\nAlarm codes\n-----------\n\n${simple}\n\nAfter the table.\n`],
    ['chiller-csv.rst', `Chiller\n=======\n\n${csv}\n`],
  ] as const) {
    it(`reads ${name.split('.')[1]} tables (${name})`, async () => {
      const recs = await recordsOf(name, data);
      expect(recs.map((r) => [r.key, r.description, r.remedy])).toEqual([
        ['c02', 'Low coolant flow', 'Check the pump and the strainer.'],
        ['c03', 'Coolant too hot', 'Clean the condenser filter.'],
        ['c04', 'Tank level low', 'Top up the tank.'],
      ]);
    });
  }

  it('reads codes written with a dot after their letters ("AL.021"), found as a technician types them', async () => {
    const recs = await recordsOf('alarms.md', '# Drive alarms\n\n| Alarm | Meaning | Remedy |\n|---|---|---|\n| AL.021 | Spindle overload | Reduce the feed rate. |\n| AL.104 | Encoder signal lost | Check the encoder cable. |\n');
    expect(recs.map((r) => [r.key, r.description])).toEqual([
      ['alarm:21', 'Spindle overload'],
      ['alarm:104', 'Encoder signal lost'],
    ]);
    const index = new CodeIndex(recs);
    for (const q of ['AL.021', 'al.21', 'AL021', 'alarm 21', 'what does AL.104 mean']) expect(index.lookup(q).matches.length, q).toBe(1);
  });

  it('reads codes with a sub-number ("Err16.0", "Err16.1"): each found as displayed, and all of them by the main number', async () => {
    const recs = await recordsOf('protective.md', '# Servo amplifier\n\n| Error code | Protective function | Cause |\n|---|---|---|\n| Err16.0 | Overload protection | The torque command exceeded the overload level. |\n| Err16.1 | Torque saturation | Torque stayed saturated. |\n| Err11.0 | Control power undervoltage | The control voltage fell. |\n');
    expect(recs.map((r) => r.key)).toEqual(['error:16.0', 'error:16.1', 'error:11.0']);
    // The "Protective function" column names each one: its title, not a cause said twice.
    expect(recs.map((r) => r.title)).toEqual(['Overload protection', 'Torque saturation', 'Control power undervoltage']);
    const index = new CodeIndex(recs);
    const codes = (q: string) => index.lookup(q).matches.map((m) => m.code);
    expect(codes('Err16.1')).toEqual(['Err16.1']);
    expect(codes('the drive shows err 16.0 when it accelerates')).toEqual(['Err16.0']);
    expect(codes('error 16')).toEqual(['Err16.0', 'Err16.1']);
    // A decimal with no code of its shape is no code.
    expect(codes('error 1.5')).toEqual([]);
  });

  it('recovers a header that OCR or a narrow gap merged ("Meaning Remedy" over two columns)', async () => {
    const grid = [['Code', 'Meaning Remedy', ''], ...TABLE_ROWS];
    splitMergedHeader(grid);
    expect(grid[0]).toEqual(['Code', 'Meaning', 'Remedy']);
    const lines = [
      { text: 'Alarm codes', x: 72, y: 740, size: 16 },
      { text: 'Code', x: 72, y: 700 },
      { text: 'Meaning Remedy', x: 150, y: 700 },
      ...TABLE_ROWS.flatMap((r, i) => [
        { text: r[0] as string, x: 72, y: 680 - i * 18 },
        { text: r[1] as string, x: 150, y: 680 - i * 18 },
        { text: r[2] as string, x: 330, y: 680 - i * 18 },
      ]),
    ];
    const recs = await recordsOf('chiller-table.pdf', makePdf([lines]));
    expect(recs.map((r) => [r.key, r.description, r.remedy])).toEqual([
      ['c02', 'Low coolant flow', 'Check the pump and the strainer.'],
      ['c03', 'Coolant too hot', 'Clean the condenser filter.'],
      ['c04', 'Tank level low', 'Top up the tank.'],
    ]);
  });
});

describe('a code table with a note column', () => {
  it('keeps the note (Note, Remarks, 备注) as detail, and names the code by its meaning column alone', async () => {
    const en = '# Interface\n\n## Error codes\n\n| Error code | Description | Note |\n|---|---|---|\n| -10000 | Command error | The command does not exist |\n| -20000 | Parameter number error | Remarks: count the parameters |\n';
    const zh = '# 接口\n\n## 通用错误码\n\n| 错误码 | 描述 | 备注 |\n|---|---|---|\n| -1 | 没有执行成功 | 命令接收成功，但执行失败 |\n| -10000 | 命令错误 | 下发的命令不存在 |\n';
    const enRecs = await recordsOf('interface_en.md', en);
    expect(enRecs.map((r) => [r.code, r.title, r.description])).toEqual([
      ['-10000', 'Command error', 'Command error\nThe command does not exist'],
      ['-20000', 'Parameter number error', 'Parameter number error\nRemarks: count the parameters'],
    ]);
    const zhRecs = await recordsOf('interface_zh.md', zh);
    expect(zhRecs.map((r) => [r.code, r.title, r.description])).toEqual([
      ['-1', '没有执行成功', '没有执行成功\n命令接收成功，但执行失败'],
      ['-10000', '命令错误', '命令错误\n下发的命令不存在'],
    ]);
  });
});

describe('records shown only as an example in a code block', () => {
  const guide = (lang: string, body: string) =>
    `# Status interface\n\n## Reading the alarm\n\nCall \`ReadAlarm()\`.\n\n### Response\n\n\`\`\`${lang}\n${body}\n\`\`\`\n`;
  const jsonAlarm = JSON.stringify({ alarms: [{ id: 2210, level: 1, description: 'Door interlock open', solution: 'Close the guard door and reset.', time: '10:30:15' }] }, null, 2);

  it('reads the error record of an example response (JSON in a fenced block) and finds it as typed', async () => {
    const recs = await recordsOf('status.md', guide('json', jsonAlarm));
    expect(recs.map((r) => [r.key, r.title || r.description, r.remedy, r.section])).toEqual([
      ['2210', 'Door interlock open', 'Close the guard door and reset.', 'Status interface > Reading the alarm > Response'],
    ]);
    const index = new CodeIndex(recs);
    expect(index.lookup('got Alarm ID: 2210 from ReadAlarm').matches.map((m) => m.code)).toEqual(['2210']);
  });

  it('reads a YAML example, and an unlabelled block that parses as JSON', async () => {
    const yaml = 'faults:\n  - code: E-71\n    message: Encoder cable open\n    remedy: Reseat the encoder plug.';
    expect((await recordsOf('yaml-example.md', guide('yaml', yaml))).map((r) => [r.key, r.remedy])).toEqual([['error:71', 'Reseat the encoder plug.']]);
    expect((await recordsOf('bare-example.md', guide('', jsonAlarm))).map((r) => r.key)).toEqual(['2210']);
    // What makes an example about faults: an error word in its keys (`errMsg`), or a remedy column.
    const errMsg = JSON.stringify({ errMsg: [{ id: 2210, description: 'Door interlock open' }] });
    const remedyOnly = JSON.stringify({ items: [{ id: 2210, description: 'Door interlock open', solution: 'Close the guard door.' }] });
    expect((await recordsOf('errmsg.md', guide('json', errMsg))).map((r) => r.key)).toEqual(['2210']);
    expect((await recordsOf('remedy.md', guide('json', remedyOnly))).map((r) => r.key)).toEqual(['2210']);
  });

  it('makes no record of an example that is not about faults, nor of one that is not valid data', async () => {
    const position = JSON.stringify({ joints: [{ id: 3, name: 'wrist', position: 1.5 }] }, null, 2);
    expect(await recordsOf('position.md', guide('json', position))).toEqual([]);
    expect(await recordsOf('elided.md', guide('json', '{ "id": 2210, "description": "Door interlock open", … }'))).toEqual([]);
    expect(await recordsOf('python.md', guide('python', 'alarm = {"id": 2210, "description": "Door interlock open", "solution": "Close it."}'))).toEqual([]);
  });

  it('makes no record of a numbered line of a code block in an error section (a traceback, a listing)', async () => {
    const md = [
      '## Error codes',
      '',
      'If the tool prints a traceback instead of the errors, update it:',
      '',
      '```py',
      '~/.local/lib/python3.6/site-packages/drive/utils.py in dump_errors(drv, clear)',
      "     78             ('axis', axis, {k: v for k, v in enums.items()}),",
      "---> 80             ('motor', axis.motor, {k: v for k, v in enums.items()}),",
      '```',
      '',
      '- 12: Overheat - let the drive cool down.',
    ].join('\n');
    expect((await recordsOf('troubleshooting.md', md)).map((r) => r.key)).toEqual(['error:12']);
  });
});

describe('code lines in PDF and prose', () => {
  it('reads a code line whose name is in capitals, as the display shows it, and whose text follows (SV0401 V-READY OFF The…)', async () => {
    const md = '# Alarms\n\n## Servo alarms\n\nSV0401 V-READY OFF\nThe servo amplifier ready signal went off. Check the amplifier power supply.\n\nOT0500 + OVERTRAVEL (SOFT 1)\nThe axis passed its stored stroke limit.\n\n## Setup\n\nSV0401 READY The word after a code outside an alarm section is no record.\n';
    const recs = await recordsOf('alarms.md', md);
    expect(recs.map((r) => [r.code, r.title, r.description.split('.')[0]])).toEqual([
      ['SV0401', 'V-READY OFF', 'The servo amplifier ready signal went off'],
      ['OT0500', '+ OVERTRAVEL (SOFT 1)', 'The axis passed its stored stroke limit'],
    ]);
  });

  it('reads "C-02 Low coolant flow: …" lines of a PDF, also when they run together in one paragraph', async () => {
    const lines = [
      { text: '5 Alarm codes', x: 72, y: 740, size: 15 },
      { text: 'C-01 Coolant flow low: the flow switch opened. Check the tank level and', x: 72, y: 716 },
      { text: 'the pump. C-02 Coolant too hot: outlet above 30 C. Clean the condenser', x: 72, y: 702 },
      { text: 'filter and check that the fan turns.', x: 72, y: 688 },
    ];
    const recs = await recordsOf('chiller.pdf', makePdf([lines]));
    expect(recs.map((r) => [r.code, r.title, r.page])).toEqual([
      ['C-01', 'Coolant flow low', 1],
      ['C-02', 'Coolant too hot', 1],
    ]);
    expect(recs[1]?.remedy).toBe('Clean the condenser filter and check that the fan turns.');
  });

  it('reads list items of an error section that give an id its value ("ERROR_X = 0x0001 text", or the text in the paragraph below), and no id a line merely names', async () => {
    const md = [
      '# Troubleshooting',
      '',
      '## Common Drive Errors',
      '',
      '- ERROR_COIL_OPEN = 0x0001 During start-up the coil is measured. Check that the coil leads are connected.',
      '- `ERROR_OVER_TEMP = 0x0004` The heat sink is too hot. Let the drive cool down.',
      '- `ERROR_NO_FEEDBACK = 0x0010`',
      '',
      'The encoder did not answer. Check its cable.',
      '',
      '- SAVE_CONFIG writes the settings; it is not an error.',
      '',
      '## Setup',
      '',
      '- MODE_IDLE = 1 puts the drive at rest.',
    ].join('\n');
    const recs = await recordsOf('troubleshooting.md', md);
    expect(recs.map((r) => r.code)).toEqual(['ERROR_COIL_OPEN', 'ERROR_OVER_TEMP', 'ERROR_NO_FEEDBACK']);
    expect([recs[2]?.description, recs[2]?.remedy]).toEqual(['The encoder did not answer.', 'Check its cable.']);
    expect(recs[0]?.description).toContain('During start-up the coil is measured.');
    expect(recs[1]?.description).toContain('The heat sink is too hot.');
  });

  it('reads "**N: name** text" list items of an alarm section when a link anchor sits inside the bold', async () => {
    // Wikis put an anchor before the code so other pages can link to it: `**<a id="Alarm14"></a>14: Unhomed**`.
    const md = [
      '# Alarm Codes',
      '',
      '  - **13: Hard Stop** The machine stopped at a hard stop.',
      '  - **<a id="Alarm14"></a>14: Unhomed** Your machine needs to be homed. Home it with $H.',
      '  - <a id="alarm_15"></a>**15: Door open** Close the door.',
    ].join('\n');
    const recs = await recordsOf('alarms.md', md);
    expect(recs.map((r) => [r.key, r.title])).toEqual([
      ['alarm:13', 'Hard Stop'],
      ['alarm:14', 'Unhomed'],
      ['alarm:15', 'Door open'],
    ]);
    expect(recs[1]?.description).toBe('Your machine needs to be homed. Home it with $H.');
    // Links and escapes of the wiki's Markdown are the words they show, in what the technician reads.
    const linked = await recordsOf('linked.md', ['# Alarm Codes', '', '- **14: Unhomed** See the [must_home item](http://wiki.example/start) in the config. Clear it with [\\$X](http://wiki.example/x).'].join('\n'));
    expect(linked[0]).toMatchObject({ title: 'Unhomed', description: 'See the must_home item in the config.', remedy: 'Clear it with $X.' });
  });

  it('takes a name in brackets after the code of a heading as its name: "### Alarm 9 (Homing Fail)"', async () => {
    const md = ['# Troubleshooting', '', '### **Alarm 9 (Homing Fail)**', '', 'The homing switch was not found. Check the switch wiring.'].join('\n');
    const recs = await recordsOf('troubleshooting.md', md);
    expect(recs.map((r) => [r.key, r.title])).toEqual([['alarm:9', 'Homing Fail']]);
  });

  it('reads list items of a register or fault section: "N - name - text", "\\"N (name)\\": text", "**N name**: text"', async () => {
    const md = [
      '# Reference',
      '',
      '### 0x00f - Fault code',
      '',
      'A fault code which is set when the mode is 1.',
      '',
      '* 32 - *calibration fault* - the encoder did not sense a magnet',
      '* 33 - *driver fault* - the supply could not deliver the current',
      '',
      '## Using the console',
      '',
      'Look at the fault status. Common problems are:',
      '',
      ' - "43 (no position)": the controller has not been calibrated yet.',
      '',
      '### Output limits',
      '',
      'The firmware reports a limiting factor through the "fault" register:',
      '',
      '- **97 max_power**: Maximum power: the output power is limited by the board.',
      '',
      '## Steps',
      '',
      '- 3 - turn the knob',
    ].join('\n');
    const recs = await recordsOf('registers.md', md);
    expect(recs.map((r) => [r.key, r.title])).toEqual([
      ['fault:32', 'calibration fault'],
      ['fault:33', 'driver fault'],
      ['fault:43', 'no position'],
      ['fault:97', 'max_power'],
    ]);
    expect(recs[0]?.description).toBe('the encoder did not sense a magnet');
  });

  it('gives no records for a list that explains the parts of a code (mixed padding: 12, 2, 01)', async () => {
    const md = '# Error codes\n\nExample: 12201\n\n* 12 - printer number 12: Model A\n* 2 - error category: temperature error\n* 01 - specific error code: Heatbed heating failed\n';
    expect(await recordsOf('readme.md', md)).toEqual([]);
  });
});

describe('a Chinese protocol manual: negative return codes in lines and an ErrorID table', () => {
  it('makes records of "-10000：…" lines and an "ErrorID" column, and finds them as typed in prose', async () => {
    const md = '# 协议\n\n## 错误码\n\n-10000：命令错误，请检查命令格式\n\n-20000：参数数量错误\n\n| ErrorID | 描述 |\n|---|---|\n| -30001 | 第一个参数类型错误 |\n| -30002 | 第二个参数类型错误 |\n';
    const recs = await recordsOf('protocol_zh.md', md);
    expect(recs.map((r) => r.code).sort()).toEqual(['-10000', '-20000', '-30001', '-30002']);
    const index = new CodeIndex(recs);
    expect(index.lookup('返回-20000是什么意思').matches.map((m) => m.code)).toEqual(['-20000']);
    expect(index.lookup('错误码-30002').matches.map((m) => m.code)).toEqual(['-30002']);
    expect(index.lookup('the arm replied ErrorID=-30002 to MovJ').matches.map((m) => m.code)).toEqual(['-30002']);
    expect(index.lookup('-10000').matches[0]?.lang).toBe('zh');
  });

  it('finds a short negative code typed in prose, and a minus sign means the negative code, not an alarm of another manual', async () => {
    const protocol = '# 协议\n\n## 错误码\n\n| 错误码 | 描述 | 备注 |\n|---|---|---|\n| -1 | 指令执行失败 | 已收到指令，但执行失败 |\n| -2 | 机器人处于报警状态 | 清除报警后重新下发 |\n';
    const alarms = 'Alarm code,Message,Remedy\n2,Soft limit,Jog back inside the travel.\n3,Reset while in motion,Re-home the machine.\n';
    const index = new CodeIndex([...(await recordsOf('protocol_zh.md', protocol)), ...(await recordsOf('alarms.csv', alarms, 'mill/alarms.csv'))]);
    const codes = (q: string) => index.lookup(q).matches.map((m) => m.code);
    expect(codes('返回值 -2 表示什么')).toEqual(['-2']);
    expect(codes('what does return code -2 mean')).toEqual(['-2']);
    expect(codes('the dashboard answers -1 to MovJ')).toEqual(['-1']);
    expect(codes('-2')).toEqual(['-2']);
    // Without a sign, every record of the number; with a family word, that family's.
    expect(codes('2').sort()).toEqual(['-2', '2']);
    expect(codes('alarm 2')).toEqual(['2']);
    // A negative value is not a code, nor a number no record defines as negative.
    expect(codes('set the offset to -2 mm')).toEqual([]);
    expect(codes('what happens if I set max_velocity to -1')).toEqual([]);
    expect(codes('cooling to -3 degrees')).toEqual([]);
    expect(codes('the reply was -3')).toEqual([]);
  });
});

describe('one code path: the forms a technician types', () => {
  let index: CodeIndex;
  beforeAll(async () => {
    const recs = [
      ...(await recordsOf('drive-interface.yaml', INTERFACE_YAML, 'drive/drive-interface.yaml')),
      ...(await recordsOf('codes.csv', 'Error code,Message,Remedy\n04105,Spindle drive not ready,Check the drive enable.\n', 'mill/codes.csv')),
      ...(await recordsOf('obd.csv', 'Code,Description\nP0171,System too lean (bank 1)\nP0301,Cylinder 1 misfire detected\n', 'car/obd.csv')),
      ...(await recordsOf('faults.md', '# Faults\n\n## Fault codes\n\n* 43 - *no position* - no valid encoder\n', 'servo/faults.md')),
      ...(await recordsOf('alarms.csv', 'Alarm,Description\n15,Hard limit\n', 'cnc/alarms.csv')),
      ...(await recordsOf('errors.csv', 'Error,Description\n16,Jog target exceeds travel\n', 'cnc/errors.csv')),
    ];
    index = new CodeIndex(recs);
  });
  const codesOf = (q: string) => index.lookup(q).matches.map((m) => m.code);

  it.each([
    ['err 4105', '04105'],
    ['error 04105 on startup', '04105'],
    ['p301', 'P0301'],
    ['code P0 171 lean', 'P0171'],
    ['dtc P0 171', 'P0171'],
    ['PO171 lean at idle', 'P0171'],
    ['po171', 'P0171'],
    ['DC_BUS_OVER_VOLTAGE', 'DC_BUS_OVER_VOLTAGE'],
    ['ERROR_DC_BUS_OVER_VOLTAGE after braking', 'DC_BUS_OVER_VOLTAGE'],
    ['dc bus over voltage', 'DC_BUS_OVER_VOLTAGE'],
    ['AXIS_ERROR_MOTOR_FAILED', 'MOTOR_FAILED'],
    ['AxisError.WATCHDOG_EXPIRED', 'WATCHDOG_EXPIRED'],
    ['drive shows INITIALIZING forever', 'INITIALIZING'],
    ['err 43 motor will not move', '43'],
    ['fault register shows 43', '43'],
    ['I get a 43 fault when braking', '43'],
    ['16 error on jog', '16'],
  ])('%s → %s', (typed, code) => {
    expect(codesOf(typed)).toContain(code);
  });

  it('keeps family words apart where a manual uses both, and plain words and command names are not codes', () => {
    expect(codesOf('alarm 16')).toEqual([]);
    expect(codesOf('error 15')).toEqual([]);
    expect(detectCodes('dump_errors', { isKnown: (k, f) => index.has(k, f) })).toEqual([]);
    expect(codesOf('the motor is initializing slowly')).toEqual([]);
    // The letter O for a zero is read only into a code a record defines; so is a number before a family word.
    expect(codesOf('PO999 after the update')).toEqual([]);
    expect(codesOf('2 errors in the log')).toEqual([]);
    expect(codesOf('a 99 fault')).toEqual([]);
  });

  it('gives the named documentation set\'s code under its own word beside another set\'s exact word ("servo error 43": the servo\'s fault 43)', async () => {
    const own = new CodeIndex([
      ...(await recordsOf('faults.md', '# Faults\n\n## Fault codes\n\n* 43 - *no position* - no valid encoder\n', 'servo/faults.md')),
      ...(await recordsOf('codes.csv', 'Error code,Message,Remedy\n43,Coolant low,Top up the coolant.\n', 'mill/codes.csv')),
    ]);
    const files = (q: string) => own.lookup(q).matches.map((m) => m.file);
    expect(files('servo error 43')).toEqual(['servo/faults.md', 'mill/codes.csv']);
    expect(files('error 43 on the servo')).toEqual(['servo/faults.md', 'mill/codes.csv']);
    // Unnamed, or the named set uses the word: the exact word's code alone.
    expect(files('error 43')).toEqual(['mill/codes.csv']);
    expect(files('mill error 43')).toEqual(['mill/codes.csv']);
  });

  it('tells the gate which named codes are defined, with unknown ones as typed', () => {
    for (const q of ['err 4105', 'p301', 'code P0 171 lean', 'dc bus over voltage', 'err 43']) {
      const check = checkCodes(q, index.lookup(q));
      expect(check.undefined, q).toEqual([]);
      expect(check.defined.length, q).toBe(1);
    }
    const unknown = checkCodes('what is E-199', index.lookup('what is E-199'));
    expect(unknown.undefined).toEqual(['error:199']);
    expect(unknown.typed['error:199']).toBe('E-199');
    // The gate answers what the lookup found and refuses an unknown code in the technician's spelling.
    for (const q of ['err 4105', 'p301', 'code P0 171 lean']) {
      expect(gate(collectEvidence({ question: q, hits: [], codes: index.lookup(q) }), 0).rule, q).toBe('code-defined');
    }
    const refused = gate(collectEvidence({ question: 'what is E-199', hits: [], codes: index.lookup('what is E-199') }), 0);
    expect(refused).toMatchObject({ answer: false, rule: 'code-undefined', reason: 'No installed manual defines E-199.' });
  });
});

describe('hexadecimal codes', () => {
  it('reads a hex code column and a JSON map keyed by hex values, keeps the name column as an alias, and finds them as typed', async () => {
    const md = await recordsOf(
      'errors.md',
      '# Error list\n\n| Error | Name | Description |\n|---|---|---|\n| `0x1A` | `ERR_TIMEOUT` | Command timed out. Resend the command. |\n| `0x1B` | `ERR_CRC` | Checksum mismatch. Check the cable shielding. |\n',
    );
    expect(md.map((r) => [r.code, r.key, r.family, r.aliases, r.title])).toEqual([
      ['0x1A', '0x1a', 'hex', ['err_timeout'], 'ERR_TIMEOUT'],
      ['0x1B', '0x1b', 'hex', ['err_crc'], 'ERR_CRC'],
    ]);
    const json = await recordsOf(
      'faults.json',
      JSON.stringify({ faults: { '0x0001': { name: 'Overcurrent', help: 'Reduce acceleration' }, '0x0002': { name: 'Overvoltage', help: 'Check the braking resistor' } } }),
    );
    expect(json.map((r) => [r.code, r.key, r.title, r.remedy])).toEqual([
      ['0x0001', '0x1', 'Overcurrent', 'Reduce acceleration'],
      ['0x0002', '0x2', 'Overvoltage', 'Check the braking resistor'],
    ]);
    const index = new CodeIndex([...md, ...json]);
    for (const typed of ['0x1a', 'error 0x1A', 'what does 0x001A mean', 'fault code 0x1 after start']) {
      expect(index.lookup(typed).matches.map((m) => m.code), typed).toEqual([typed.includes('0x1a') || typed.includes('1A') ? '0x1A' : '0x0001']);
    }
  });

  it('takes a hex value in prose for a code only where a record defines it (registers are written so too)', () => {
    expect(detectCodes('register 0x00f holds the fault code')).toEqual([]);
    expect(detectCodes('drive shows error 0x2310').map((c) => c.key)).toEqual(['0x2310']);
    expect(detectCodes('register 0x00f holds the fault code', { isKnown: (k) => k === '0xf' }).map((c) => c.key)).toEqual(['0xf']);
  });

  it('takes a second form of a code in brackets for an alias, not for its name ("ERR_OVERCURRENT (0x04)")', async () => {
    const recs = await recordsOf(
      'errors.rst',
      'Errors\n======\n\nERR_OVERCURRENT (0x04)\n   Phase current exceeded the limit. Lower the current limit.\n\nERR_UNDERVOLTAGE (0x08)\n   Bus voltage too low. Check the supply.\n',
    );
    expect(recs.map((r) => [r.code, r.aliases, r.title, r.remedy])).toEqual([
      ['ERR_OVERCURRENT', ['0x4'], 'Phase current exceeded the limit.', 'Lower the current limit.'],
      ['ERR_UNDERVOLTAGE', ['0x8'], 'Bus voltage too low.', 'Check the supply.'],
    ]);
    expect(new CodeIndex(recs).lookup('error 0x04').matches.map((m) => m.code)).toEqual(['ERR_OVERCURRENT']);
  });
});

describe('code sections written with Markdown emphasis and plain-text tables', () => {
  it('reads **Cause:** / **Remedy:** paragraphs, two labels in one paragraph, and **P0300** list items with a dashed remedy', async () => {
    const recs = await recordsOf(
      'trouble.md',
      [
        '# Troubleshooting',
        '',
        '### E-204 Spindle overload',
        '',
        '**Cause:** The spindle load exceeded 120 % for 5 s.',
        '',
        '**Remedy:** Reduce the depth of cut. Check the belt tension.',
        '',
        '### E-205: Spindle encoder fault',
        'Cause: encoder cable damaged.',
        'Remedy: replace the cable.',
        '',
        '## Engine codes',
        '',
        '1. **P0300** Random misfire detected — check the ignition coils.',
        '2. **P0301** Cylinder 1 misfire — swap the coil.',
        '',
      ].join('\n'),
    );
    expect(recs.map((r) => [r.code, r.title, r.cause, r.remedy])).toEqual([
      ['E-204', 'Spindle overload', 'The spindle load exceeded 120 % for 5 s.', 'Reduce the depth of cut. Check the belt tension.'],
      ['E-205', 'Spindle encoder fault', 'encoder cable damaged.', 'replace the cable.'],
      ['P0300', 'Random misfire detected', '', 'check the ignition coils.'],
      ['P0301', 'Cylinder 1 misfire', '', 'swap the coil.'],
    ]);
  });

  it('reads a plain-text table whose columns line up (two or more spaces), with or without a header line', async () => {
    const recs = await recordsOf(
      'codes.txt',
      'ERROR CODES\n\nE01  Overheat           Let the unit cool down\nE02  Low pressure       Check the pump\nE03  Sensor fault       Replace the sensor\n\nALARMS\n\nCode   Message          Remedy\nA-11   Door open        Close the door\nA-12   Air low          Check the compressor\n\nThis sentence has  two spaces  but is prose.\nIt does not line up with  the next line at all.\n',
    );
    expect(recs.map((r) => [r.code, r.title, r.remedy])).toEqual([
      ['E01', 'Overheat', 'Let the unit cool down'],
      ['E02', 'Low pressure', 'Check the pump'],
      ['E03', 'Sensor fault', 'Replace the sensor'],
      ['A-11', 'Door open', 'Close the door'],
      ['A-12', 'Air low', 'Check the compressor'],
    ]);
    const doc = await parseFile(await tmp.file('prose.txt', 'This sentence has  two spaces  but is prose.\nIt does not line up with  the next line at all.\n'));
    expect(doc.blocks.map((b) => b.kind)).toEqual(['paragraph']);
  });
});

describe('the heading above a code table or a code heading', () => {
  it('gives a numbered table the family its heading names, so alarm 14 and error 14 stay apart', async () => {
    const recs = await recordsOf(
      'codes.md',
      [
        '# Alarm and error codes',
        '',
        '## Alarm codes',
        '',
        '| Code | Message | Description |',
        '|------|---------|-------------|',
        '| 1 | Hard limit | Hard limit has been triggered. |',
        '| 14 | Spindle at speed timeout | Spindle did not reach speed. Check the spindle encoder. |',
        '',
        '## Error codes',
        '',
        '| Code | Message | Description |',
        '|------|---------|-------------|',
        '| 14 | Line overflow | Max characters per line exceeded. |',
        '',
      ].join('\n'),
    );
    expect(recs.map((r) => [r.key, r.title])).toEqual([
      ['alarm:1', 'Hard limit'],
      ['alarm:14', 'Spindle at speed timeout'],
      ['error:14', 'Line overflow'],
    ]);
    const index = new CodeIndex(recs);
    expect(index.lookup('alarm 14').matches.map((m) => m.title)).toEqual(['Spindle at speed timeout']);
    expect(index.lookup('error:14').matches.map((m) => m.title)).toEqual(['Line overflow']);
  });

  it('reads two tables of one section (or of a page without headings) as two tables, each with its own columns', async () => {
    const alarms = '| Alarm | Description |\n|---|---|\n| 1 | Hard limit triggered. Re-home the machine. |\n| 2 | Soft limit alarm. |';
    const errors = '| Error | Message | Description |\n|---|---|---|\n| 1 | Expected command letter | A word has no letter. |\n| 2 | Bad number format | The value is not a number. |';
    const expected = [
      ['alarm:1', 'Hard limit triggered.'],
      ['alarm:2', 'Soft limit alarm.'],
      ['error:1', 'Expected command letter'],
      ['error:2', 'Bad number format'],
    ];
    for (const [name, text] of [
      ['Codes-wiki.md', `${alarms}\n\n${errors}\n`],
      ['codes.md', `# Alarm and error codes\n\n${alarms}\n\n${errors}\n`],
      [
        'codes.html',
        '<table><tr><th>Alarm</th><th>Description</th></tr><tr><td>1</td><td>Hard limit triggered. Re-home the machine.</td></tr><tr><td>2</td><td>Soft limit alarm.</td></tr></table>' +
          '<table><tr><th>Error</th><th>Message</th><th>Description</th></tr><tr><td>1</td><td>Expected command letter</td><td>A word has no letter.</td></tr><tr><td>2</td><td>Bad number format</td><td>The value is not a number.</td></tr></table>',
      ],
    ] as const) {
      const recs = await recordsOf(name, text);
      expect(recs.map((r) => [r.key, r.title]), name).toEqual(expected);
    }
  });

  it('reads "W-2001 Fan speed low" headings of a fault section, not board names such as "STM32 DFU mode"', async () => {
    const recs = await recordsOf(
      'faults.html',
      '<h2>Fault codes</h2><h3>W-2001 Fan speed low</h3><p>Clean the fan filter.</p><h2>Errors while flashing</h2><h3>STM32 DFU mode</h3><p>Hold the BOOT0 button while resetting the board.</p>',
    );
    expect(recs.map((r) => [r.code, r.title, r.remedy])).toEqual([['W-2001', 'Fan speed low', 'Clean the fan filter.']]);
  });
});
