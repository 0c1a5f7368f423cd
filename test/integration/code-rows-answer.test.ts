/**
 * A question in a technician's own words whose best passage is a row of an error table: the answer
 * quotes the row as its fault-code record (code and title, meaning, remedy), not as the file's raw
 * fields, and the citation keeps the row as the file writes it. Real engine on files written here.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { engineOverDocs } from './engine-fixture.js';
import { value } from './helpers.js';

const engine = engineOverDocs('code-rows', (docs) => {
  fs.mkdirSync(path.join(docs, 'feeder'), { recursive: true });
  fs.writeFileSync(
    path.join(docs, 'feeder', 'feeder-errors.yaml'),
    [
      'Errors:',
      '  - code: "04201"',
      '    title: "WARNING DRIVER TOO HOT"',
      '    text: "The driver chip of the pulley motor is almost overheating. Make sure air flows past the feeder board."',
      '    text_short: "More details online."',
      '    action: [Continue,ResetFeeder]',
      '    id: "WARNING_DRIVER_PULLEY_TOO_HOT"',
      '    approved: true',
      '    gui_layout: "feeder_dialog"',
      '  - code: "04301"',
      '    title: "SELECTOR JAMMED"',
      '    text: "The selector cannot reach its position. Remove the filament stuck in the selector."',
      '    action: [Retry]',
      '    id: "SELECTOR_JAMMED"',
      '    approved: true',
      '    gui_layout: "feeder_dialog"',
      '',
    ].join('\n'),
  );
  fs.mkdirSync(path.join(docs, 'arm'), { recursive: true });
  const alarm = (id: number, en: [string, string], zh: [string, string]) => ({
    id,
    level: 1,
    en: { description: en[0], cause: '', solution: en[1] },
    zh_CN: { description: zh[0], cause: '', solution: zh[1] },
  });
  fs.writeFileSync(
    path.join(docs, 'arm', 'alarmServo.json'),
    JSON.stringify([
      alarm(17168, ['Driver temperature is too high', 'Lower the ambient temperature'], ['驱动器温度过高', '降低环境温度']),
      alarm(29577, ['The lock power supply is abnormal', 'Check whether the brake lock is connected'], ['抱闸电源异常', '检查抱闸是否连接']),
    ]),
  );
  fs.writeFileSync(
    path.join(docs, 'feeder', 'guide.md'),
    '# Feeder guide\n\n## Loading\n\nPush the filament into the feeder until the gears grip it, then press Load.\n\n## Cleaning\n\nBlow the dust off the board every month.\n',
  );
});

describe('answers that quote an error table row', () => {
  it('reads the row as its record: title, meaning and remedy, without the raw fields', async () => {
    const a = value(await engine().ask({ question: 'feeder says the pulley driver chip is getting close to overheating', prefer: 'extractive' }));
    expect(a.refused).toBe(false);
    expect(a.answer).toContain('04201: WARNING DRIVER TOO HOT');
    expect(a.answer).toContain('The driver chip of the pulley motor is almost overheating.');
    expect(a.answer).toMatch(/Remedy: .*Make sure air flows past the feeder board/);
    expect(a.answer).not.toMatch(/gui_layout|approved|text_short/);
    const cited = a.citations.find((c) => c.file === 'feeder/feeder-errors.yaml');
    expect(cited?.text).toContain('gui_layout: feeder_dialog');
  });

  it('reads a translated row of an alarm object as the record in that language', async () => {
    const a = value(await engine().ask({ question: '机械臂驱动器温度过高怎么办', prefer: 'extractive' }));
    expect(a.refused).toBe(false);
    expect(a.answer).toContain('17168: 驱动器温度过高');
    expect(a.answer).toContain('Remedy: 降低环境温度');
    expect(a.answer).not.toMatch(/\| level: /);
  });

  it('looks the rows\' records up only when asked to (an answer does, a search does not)', async () => {
    const q = { query: 'feeder says the pulley driver chip is getting close to overheating', k: 5 };
    const row = (r: { hits: { kind: string; file: string; chunkId: string }[] }) => r.hits.find((h) => h.kind === 'table-row' && h.file === 'feeder/feeder-errors.yaml');
    const plain = value(await engine().retrieve(q));
    expect(row(plain)).toBeDefined();
    expect(plain.rowCodes).toBeUndefined();
    const asked = value(await engine().retrieve({ ...q, rowRecords: true }));
    expect(asked.rowCodes?.[row(asked)?.chunkId ?? '']).toMatchObject({ code: '04201', title: 'WARNING DRIVER TOO HOT' });
  });

  it('keeps other passages as the manual writes them', async () => {
    const a = value(await engine().ask({ question: 'how do I load filament into the feeder', prefer: 'extractive' }));
    expect(a.refused).toBe(false);
    expect(a.answer).toContain('Push the filament into the feeder until the gears grip it, then press Load.');
  });
});
