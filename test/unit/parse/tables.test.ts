import { join } from 'node:path';
import ExcelJS from 'exceljs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { extractCodes } from '../../../native/fault-codes/extract.js';
import { parseFile } from '../../../native/parse/index.js';
import { FIXTURES, makeDocx, ofKind, tempDir } from './helpers.js';

let tmp: Awaited<ReturnType<typeof tempDir>>;
beforeAll(async () => {
  tmp = await tempDir();
});
afterAll(async () => {
  await tmp.cleanup();
});

describe('csv', () => {
  it('takes the first row as header and pads/names ragged rows', async () => {
    const doc = await parseFile(join(FIXTURES, 'faults.csv'));
    const rows = ofKind(doc, 'table-row');
    expect(rows.map((r) => r.cells)).toEqual([
      ['E1', 'Low pressure, check pump', 'Refill'],
      ['E2', 'Overheat', ''],
      ['E3', 'Sensor fault', 'Replace sensor', 'extra'],
    ]);
    expect(rows[0]?.columns).toEqual(['Code', 'Message', 'Remedy']);
    expect(rows[2]?.columns).toEqual(['Code', 'Message', 'Remedy', 'Column 4']);
    expect(rows.every((r) => r.table === 'faults' && r.columns?.length === r.cells?.length)).toBe(true);
    expect(rows[0]).toMatchObject({ raw: 'E1,"Low pressure, check pump",Refill', rawHeader: 'Code,Message,Remedy' });
  });

  it('sniffs semicolons, strips a BOM and reads TSV', async () => {
    const semi = await tmp.file('semi.csv', '\ufeffCode;Text\nA;Alpha\n');
    const doc = await parseFile(semi);
    expect(ofKind(doc, 'table-row')[0]).toMatchObject({ columns: ['Code', 'Text'], cells: ['A', 'Alpha'] });
    const tsv = await tmp.file('list.tsv', 'k\tv\nx\t"quoted"\n');
    const t = await parseFile(tsv);
    expect(ofKind(t, 'table-row')[0]?.cells).toEqual(['x', '"quoted"']);
  });
});

describe('yaml and json', () => {
  it('turns an array of objects into rows, keeps leading comments and top-level meta', async () => {
    const doc = await parseFile(join(FIXTURES, 'faults.yaml'));
    expect(doc.meta).toMatchObject({ title: 'X100 fault codes', revision: '3' });
    expect(ofKind(doc, 'paragraph')[0]?.text).toBe('Fault list for the X100 press.\nCodes are shown on the HMI.');
    const rows = ofKind(doc, 'table-row');
    expect(rows).toHaveLength(2);
    expect(rows[0]?.table).toBe('Errors');
    expect(rows[0]?.columns).toEqual(['code', 'title', 'text', 'action', 'limits.force']);
    expect(rows[0]?.cells).toEqual(['X1', 'RAM STALL', 'The ram stopped before the bottom.', 'Retry, Abort', '50']);
    expect(rows[1]?.cells).toEqual(['X2', 'OIL LOW']);
    // A YAML item reads as its labelled fields (issue 41), not its source lines.
    expect(rows[1]?.raw).toBeUndefined();
    expect(rows[1]?.text).toBe('code: X2\ntitle: OIL LOW');
  });

  it('turns a JSON map of records into rows with a key column', async () => {
    const doc = await parseFile(join(FIXTURES, 'faults.json'));
    expect(doc.meta).toMatchObject({ title: 'Mixer fault table', language: 'en' });
    expect(ofKind(doc, 'table-row').map((r) => [r.table, r.columns, r.cells])).toEqual([
      ['faults', ['key', 'message', 'fix.step'], ['M1', 'Bowl not locked', 'Lock the bowl']],
      ['faults', ['key', 'message', 'fix.step'], ['M2', 'Overload', 'Reduce the load']],
    ]);
  });

  it('reads multi-line quoted values indented less than their key (as PyYAML does)', async () => {
    const p = await tmp.file('loose.yaml', 'Errors:\n\n- code: "1"\n  text: "First line.\n\n  Second line."\n  id: "A"\n');
    const doc = await parseFile(p);
    const row = ofKind(doc, 'table-row')[0];
    expect(row?.cells).toEqual(['1', 'First line.\nSecond line.', 'A']);
    expect(doc.warnings.join(' ')).toMatch(/quoted texts/);
  });

  it('reads the documented attributes of an interface as rows of their own, named after the interface', async () => {
    // Flattened into the interface's row, a firmware interface definition was one row of hundreds of
    // columns per interface: no passage about one setting, and a model reads only its first tokens.
    const yaml = [
      'interfaces:',
      '  Drive.Axis:',
      '    c_is_class: True',
      '    attributes:',
      '      is_homed: readonly bool',
      '      config:',
      '        attributes:',
      '          watchdog_timeout: {type: float32, unit: s, doc: 0 disables the watchdog.}',
      '          enable_watchdog: bool',
      '          startup_homing: {type: bool, doc: Home the axis after start-up.}',
      '          can_node_id: {type: uint32, doc: Both axes start with the same id.}',
      '  Drive.Endpoint:',
      '    attributes:',
      '      endpoint: endpoint_ref',
    ].join('\n');
    const rows = ofKind(await parseFile(await tmp.file('interface.yaml', yaml)), 'table-row');
    const setting = rows.find((r) => r.cells?.[0] === 'watchdog_timeout');
    expect(setting).toMatchObject({ table: 'Drive.Axis config', columns: ['key', 'type', 'unit', 'doc'], cells: ['watchdog_timeout', 'float32', 's', '0 disables the watchdog.'] });
    expect(setting?.raw).toBeUndefined();
    expect(rows.find((r) => r.cells?.[0] === 'enable_watchdog')).toMatchObject({ table: 'Drive.Axis config', cells: ['enable_watchdog', 'bool'] });
    expect(Math.max(...rows.map((r) => r.columns?.length ?? 0))).toBeLessThanOrEqual(5);
  });

  it('leaves out the lines of a syntax error and reads the rest, saying which lines', async () => {
    // `power: float32` with an indented `doc:` under it: a scalar cannot have children. One such slip
    // in a hand-edited interface file must not cost the file's other entries.
    const yaml = [
      'Errors:',
      '  - code: "E1"',
      '    text: "Low oil pressure."',
      '  - code: "E2"',
      '    text: "Filter blocked."',
      'attributes:',
      '  power: float32',
      '    doc: "A filtered measure of',
      '          torque * speed."',
      '  speed: float32',
    ].join('\n');
    const doc = await parseFile(await tmp.file('slip.yaml', yaml));
    expect(ofKind(doc, 'table-row').map((r) => r.cells?.[0])).toEqual(['E1', 'E2', 'power', 'speed']);
    expect(doc.warnings.join(' ')).toMatch(/Lines 8–9 of this YAML file have a syntax error and were left out; the rest of the file was read/);
    // A file that no left-out line mends is still refused, with the parser's reason.
    const hopeless = await tmp.file('hopeless.yaml', Array.from({ length: 30 }, (_, i) => `k${i}: [unclosed ${i}`).join('\n'));
    await expect(parseFile(hopeless)).rejects.toMatchObject({ code: 'FILE_UNREADABLE', message: expect.stringMatching(/syntax error/) });
  });

  it('quotes every record from its own first character after a mended value', async () => {
    // The mend indents continuation lines, so the mended text is longer than the file: the rows'
    // source text must come from the text that was parsed, or it starts a few characters late ("ode: …").
    const p = await tmp.file('loose2.yaml', '- code: "1"\n  text: "First line.\n\n  Second line."\n- code: "2"\n  text: "Resin sensor not triggered."\n');
    const rows = ofKind(await parseFile(p), 'table-row');
    expect(rows.map((r) => r.text)).toEqual(['code: 1\ntext: First line.\nSecond line.', 'code: 2\ntext: Resin sensor not triggered.']);
  });

  it('stops alias bombs and reports broken files as FILE_UNREADABLE', async () => {
    const lines = ['a: &a ["x","x","x","x","x","x","x","x","x"]'];
    for (let i = 0; i < 8; i++) lines.push(`${'bcdefghi'[i]}: &${'bcdefghi'[i]} [${Array(9).fill(`*${i === 0 ? 'a' : 'bcdefghi'[i - 1]}`).join(',')}]`);
    const bomb = await tmp.file('bomb.yaml', lines.join('\n') + '\n');
    await expect(parseFile(bomb)).rejects.toMatchObject({ code: 'FILE_UNREADABLE' });
    const bad = await tmp.file('bad.json', '{"a": [1, 2');
    await expect(parseFile(bad)).rejects.toMatchObject({ code: 'FILE_UNREADABLE', message: expect.stringMatching(/not valid JSON/) });
    const missingComma = await tmp.file('comma.json', '{"a": 1 "b": 2}');
    await expect(parseFile(missingComma)).rejects.toMatchObject({ code: 'FILE_UNREADABLE', message: expect.stringMatching(/not valid JSON/) });
  });

  it('reads a JSON alarm table with trailing commas, and says it is not strict JSON', async () => {
    const p = await tmp.file('alarms.json', '[\n  {"id": 4101, "description": "Joint 1 brake fault", "solution": "Check the brake cable",},\n  {"id": 4102, "description": "Joint 2 overload", "solution": "Reduce the load",},\n]\n');
    const doc = await parseFile(p);
    expect(ofKind(doc, 'table-row').map((r) => r.cells)).toEqual([
      ['4101', 'Joint 1 brake fault', 'Check the brake cable'],
      ['4102', 'Joint 2 overload', 'Reduce the load'],
    ]);
    expect(doc.warnings.join(' ')).toMatch(/not strict JSON/);
  });
});

describe('properties', () => {
  it('gives one key/value row per entry with escapes and continuations resolved', async () => {
    const doc = await parseFile(join(FIXTURES, 'codes.properties'));
    expect(ofKind(doc, 'table-row').map((r) => r.cells)).toEqual([
      ['P0100', 'Mass air flow circuit'],
      ['P0101', 'MAF range/performance'],
      ['P0102', 'Café sensor'],
    ]);
    expect(ofKind(doc, 'table-row')[0]?.columns).toEqual(['key', 'value']);
    expect(ofKind(doc, 'table-row')[1]?.raw).toBe('P0101 = MAF range\\\n    /performance');
    expect(doc.blocks.some((b) => b.text.includes('comment'))).toBe(false);
  });

  it('reads UTF-8 Chinese as UTF-8 and other bytes as ISO-8859-1', async () => {
    const zh = await tmp.file('codes_zh.properties', Buffer.from('P0100=空气流量传感器电路\n', 'utf8'));
    expect(ofKind(await parseFile(zh), 'table-row')[0]?.cells).toEqual(['P0100', '空气流量传感器电路']);
    const latin = await tmp.file('codes_de.properties', Buffer.from('P0100=Luftmassenmesser gest\xf6rt\n', 'latin1'));
    expect(ofKind(await parseFile(latin), 'table-row')[0]?.cells).toEqual(['P0100', 'Luftmassenmesser gestört']);
  });

  it('parses a few thousand lines quickly', async () => {
    const lines = Array.from({ length: 4000 }, (_, i) => `P${String(i).padStart(4, '0')}=故障 ${i} 传感器电路`);
    const p = await tmp.file('big.properties', lines.join('\n'));
    const t = performance.now();
    const doc = await parseFile(p);
    expect(ofKind(doc, 'table-row')).toHaveLength(4000);
    expect(performance.now() - t).toBeLessThan(1500);
  });
});

describe('xlsx', () => {
  it('reads each sheet: first non-empty row is the header, later rows are table rows', async () => {
    const wb = new ExcelJS.Workbook();
    const s1 = wb.addWorksheet('Alarms');
    s1.addRow([]);
    s1.addRow(['Code', 'Text', 'Remedy']);
    s1.addRow(['AL1', 'Door open', 'Close the door']);
    s1.addRow(['AL2', { richText: [{ text: 'Low ' }, { text: 'air' }] }, null]);
    const s2 = wb.addWorksheet('Parts');
    s2.addRow(['Part', 'Qty']);
    s2.addRow(['Filter', 2]);
    const p = await tmp.file('alarms.xlsx', Buffer.from(await wb.xlsx.writeBuffer()));
    const doc = await parseFile(p);
    expect(doc.format).toBe('xlsx');
    expect(ofKind(doc, 'table-row').map((r) => [r.table, r.columns, r.cells])).toEqual([
      ['Alarms', ['Code', 'Text', 'Remedy'], ['AL1', 'Door open', 'Close the door']],
      ['Alarms', ['Code', 'Text', 'Remedy'], ['AL2', 'Low air', '']],
      ['Parts', ['Part', 'Qty'], ['Filter', '2']],
    ]);
  });
});

describe('docx', () => {
  it('goes through mammoth and the HTML adapter: headings, paragraphs, table rows', async () => {
    const buf = await makeDocx(
      [
        { style: 'Heading1', text: 'Hoist H-3' },
        { text: 'Inspect the hook daily.' },
        { style: 'Heading2', text: 'Faults' },
        { text: 'WARNING: Never stand under the load.' },
      ],
      [
        ['Code', 'Meaning'],
        ['H1', 'Overload'],
      ],
    );
    const p = await tmp.file('hoist.docx', buf);
    const doc = await parseFile(p);
    expect(doc.format).toBe('docx');
    expect(doc.meta.title).toBe('Hoist H-3');
    expect(ofKind(doc, 'heading').map((h) => [h.text, h.level])).toEqual([
      ['Hoist H-3', 1],
      ['Faults', 2],
    ]);
    expect(ofKind(doc, 'paragraph')[0]).toMatchObject({ text: 'Inspect the hook daily.', headingPath: ['Hoist H-3'] });
    expect(ofKind(doc, 'admonition')[0]).toMatchObject({ admonition: 'WARNING', text: 'WARNING: Never stand under the load.' });
    expect(ofKind(doc, 'table-row')[0]).toMatchObject({ columns: ['Code', 'Meaning'], cells: ['H1', 'Overload'], headingPath: ['Hoist H-3', 'Faults'] });
  });
});

describe('tables whose header row is not marked as one', () => {
  const codesOf = async (name: string, text: string) => {
    const doc = await parseFile(await tmp.file(name, text));
    return { rows: ofKind(doc, 'table-row'), codes: extractCodes(doc, { file: name, manual: 'x', equipment: [] }) };
  };

  it('reads a first row of header words as the header in AsciiDoc, HTML and reStructuredText', async () => {
    const adoc = await codesOf('servo.adoc', '= Faults\n\n.Servo faults\n|===\n|No. |Name |Action\n|S01 |Overcurrent |Reduce acceleration\n|S02 |Overload |Check the mechanics for binding\n|===\n');
    const html = await codesOf('alarms.html', '<h1>Alarms</h1><table><tr><td>Alarm No.</td><td>Message</td><td>Remedy</td></tr><tr><td>1001</td><td>Lubrication low</td><td>Fill the lubricant tank</td></tr></table>');
    const rst = await codesOf('drive.rst', 'Faults\n======\n\n.. list-table:: Drive faults\n\n   * - 错误码\n     - 描述\n     - 处理方法\n   * - F12\n     - 编码器断线\n     - 检查编码器电缆\n');
    expect(adoc.rows.map((r) => [r.columns, r.cells])).toEqual([
      [['No.', 'Name', 'Action'], ['S01', 'Overcurrent', 'Reduce acceleration']],
      [['No.', 'Name', 'Action'], ['S02', 'Overload', 'Check the mechanics for binding']],
    ]);
    expect(adoc.codes.map((c) => [c.code, c.title, c.remedy])).toEqual([
      ['S01', 'Overcurrent', 'Reduce acceleration'],
      ['S02', 'Overload', 'Check the mechanics for binding'],
    ]);
    expect(html.rows.map((r) => r.columns)).toEqual([['Alarm No.', 'Message', 'Remedy']]);
    expect(html.codes.map((c) => [c.code, c.title, c.remedy])).toEqual([['1001', 'Lubrication low', 'Fill the lubricant tank']]);
    expect(rst.rows.map((r) => r.columns)).toEqual([['错误码', '描述', '处理方法']]);
    expect(rst.codes.map((c) => [c.code, c.title, c.remedy])).toEqual([['F12', '编码器断线', '检查编码器电缆']]);
  });

  it('keeps a first row of values as a row', async () => {
    const adoc = await codesOf('plain.adoc', '= Faults\n\n|===\n|S01 |Overcurrent |Reduce acceleration\n|S02 |Overload |Check the mechanics\n|===\n');
    const html = await codesOf('plain.html', '<table><tr><td>Feed</td><td>Slow</td></tr><tr><td>Speed</td><td>1200</td></tr></table>');
    expect(adoc.rows.map((r) => r.cells?.[0])).toEqual(['S01', 'S02']);
    expect(html.rows.map((r) => r.cells)).toEqual([['Feed', 'Slow'], ['Speed', '1200']]);
  });
});
