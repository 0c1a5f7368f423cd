import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { extractCodes } from '../../../native/fault-codes/extract.js';
import { parseFile } from '../../../native/parse/index.js';
import { ofKind, tempDir } from '../parse/helpers.js';
import { buildPdf, type PageSpec, type TextRun } from './helpers.js';

let tmp: Awaited<ReturnType<typeof tempDir>>;
beforeAll(async () => {
  tmp = await tempDir();
});
afterAll(async () => {
  await tmp.cleanup();
});

const parsePdfBytes = async (name: string, pdf: Buffer) => parseFile(await tmp.file(name, pdf), { ocr: { enabled: false } });

/** Text runs of a borderless table: one run per cell at the column's x. */
function rowsAt(cols: number[], rows: string[][], top: number, pitch = 16, size = 10): TextRun[] {
  return rows.flatMap((r, i) => r.map((cell, k) => ({ text: cell, x: cols[k] as number, y: top - i * pitch, size })).filter((t) => t.text));
}

const footer = (n: number): TextRun => ({ text: `Page ${n}`, x: 290, y: 30, size: 9 });

describe('PDF tables', () => {
  it('reads a borderless code table that spans two pages, header repeated on the second, into rows with their header and codes with pages', async () => {
    const cols = [72, 150, 340];
    const header = ['Code', 'Description', 'Remedy'];
    const p1rows = [
      ['E01', 'Spindle overtemperature', 'Clean the fan filter'],
      ['E02', 'Spindle encoder lost', 'Check the encoder cable'],
      ['E03', 'Coolant level low', 'Top up the coolant tank'],
    ];
    const p2rows = [
      ['E04', 'Door interlock open', 'Close the guard door'],
      ['E05', 'Axis X following error', 'Reduce the feed rate'],
      ['E06', 'Lubrication pressure low', 'Refill the oil reservoir'],
    ];
    const page1: PageSpec = {
      text: [
        { text: 'Fault Codes', x: 72, y: 720, size: 18 },
        { text: 'The controller shows these codes on its display.', x: 72, y: 690 },
        ...rowsAt(cols, [header, ...p1rows], 400),
        footer(1),
      ],
    };
    // The rows of page 1 end at the page foot: push them down to the bottom.
    page1.text = page1.text!.map((t) => (t.y <= 400 && t.y > 300 ? { ...t, y: t.y - 300 } : t));
    const page2: PageSpec = { text: [...rowsAt(cols, [header, ...p2rows], 720), { text: 'After the table comes prose again, on page two.', x: 72, y: 600 }, footer(2)] };
    const doc = await parsePdfBytes('codes.pdf', buildPdf([page1, page2], 'Mill Fault Codes'));
    const rows = ofKind(doc, 'table-row');
    expect(rows.map((r) => [r.page, ...(r.cells ?? [])])).toEqual([...p1rows.map((r) => [1, ...r]), ...p2rows.map((r) => [2, ...r])]);
    expect(rows.every((r) => JSON.stringify(r.columns) === JSON.stringify(header))).toBe(true);
    expect(rows.every((r) => r.table === 'Fault Codes' && r.headingPath.join('/') === 'Fault Codes')).toBe(true);
    expect(rows[3]?.text).toBe('Code: E04\nDescription: Door interlock open\nRemedy: Close the guard door');
    expect(ofKind(doc, 'paragraph').map((p) => p.text)).toEqual(['The controller shows these codes on its display.', 'After the table comes prose again, on page two.']);

    const codes = extractCodes(doc, { file: 'codes.pdf', manual: 'Mill Fault Codes', equipment: [] });
    expect(codes.map((c) => [c.code, c.page, c.title, c.remedy])).toEqual([
      ['E01', 1, 'Spindle overtemperature', 'Clean the fan filter'],
      ['E02', 1, 'Spindle encoder lost', 'Check the encoder cable'],
      ['E03', 1, 'Coolant level low', 'Top up the coolant tank'],
      ['E04', 2, 'Door interlock open', 'Close the guard door'],
      ['E05', 2, 'Axis X following error', 'Reduce the feed rate'],
      ['E06', 2, 'Lubrication pressure low', 'Refill the oil reservoir'],
    ]);
  });

  it('reads a ruled table with wrapped, vertically centred cells, continued on the next page without its header', async () => {
    const xs = [72, 250, 400, 540];
    const grid = (top: number, heights: number[]): [number, number, number, number][] => {
      const ys = [top];
      for (const h of heights) ys.push((ys[ys.length - 1] as number) - h);
      return [
        ...ys.map((y): [number, number, number, number] => [72, y, 540, y]),
        ...xs.map((x): [number, number, number, number] => [x, top, x, ys[ys.length - 1] as number]),
      ];
    };
    const page1: PageSpec = {
      text: [
        { text: 'Spare Parts', x: 72, y: 720, size: 18 },
        // Header row (top 680, 20 high).
        { text: 'Part', x: 80, y: 666 },
        { text: 'Number', x: 258, y: 666 },
        { text: 'Qty', x: 408, y: 666 },
        // A row 36 high: the description wraps over two lines, the other cells are centred.
        { text: 'Spindle drive belt,', x: 80, y: 646 },
        { text: 'reinforced', x: 80, y: 632 },
        { text: 'SP-2041-', x: 258, y: 639 },
        { text: 'B', x: 258, y: 625 },
        { text: '2', x: 408, y: 639 },
        { text: 'Coolant pump', x: 80, y: 608 },
        { text: 'CP-110', x: 258, y: 608 },
        { text: '1', x: 408, y: 608 },
        footer(1),
      ],
      lines: grid(680, [20, 36, 20]),
    };
    const page2: PageSpec = {
      text: [{ text: 'Fuse 10 A slow', x: 80, y: 706 }, { text: 'F-10T', x: 258, y: 706 }, { text: '4', x: 408, y: 706 }, footer(2)],
      lines: grid(720, [20]),
    };
    const doc = await parsePdfBytes('parts.pdf', buildPdf([page1, page2]));
    const rows = ofKind(doc, 'table-row');
    expect(rows.map((r) => [r.page, ...(r.cells ?? [])])).toEqual([
      [1, 'Spindle drive belt, reinforced', 'SP-2041-B', '2'],
      [1, 'Coolant pump', 'CP-110', '1'],
      [2, 'Fuse 10 A slow', 'F-10T', '4'],
    ]);
    expect(rows.every((r) => r.columns?.join('|') === 'Part|Number|Qty' && r.table === 'Spare Parts')).toBe(true);
  });

  it('reads a two-column list without a header as terms and their meaning', async () => {
    const doc = await parsePdfBytes(
      'labels.pdf',
      buildPdf([
        {
          text: [
            { text: 'The rails are labelled as follows:', x: 72, y: 700, size: 12 },
            ...rowsAt([72, 110], [['TR', 'Top Right'], ['TL', 'Top Left'], ['TF', 'Top Front'], ['TB', 'Top Back']], 670, 17, 12),
          ],
        },
      ]),
    );
    expect(ofKind(doc, 'definition').map((d) => [d.term, d.text])).toEqual([
      ['TR', 'Top Right'],
      ['TL', 'Top Left'],
      ['TF', 'Top Front'],
      ['TB', 'Top Back'],
    ]);
  });

  it('does not read numbered steps with hanging indents as a table', async () => {
    const doc = await parsePdfBytes(
      'steps.pdf',
      buildPdf([{ text: rowsAt([72, 100], [['1.', 'Remove the cover.'], ['2.', 'Loosen the belt tensioner.'], ['3.', 'Replace the belt.']], 700, 16, 11) }]),
    );
    expect(ofKind(doc, 'table-row')).toEqual([]);
    expect(ofKind(doc, 'step').map((s) => [s.stepNumber, s.text])).toEqual([
      [1, 'Remove the cover.'],
      [2, 'Loosen the belt tensioner.'],
      [3, 'Replace the belt.'],
    ]);
  });
});

describe('PDF reading order', () => {
  it('reads a full-width title, two columns and a full-width note in order, column by column', async () => {
    const left: TextRun[] = [];
    const right: TextRun[] = [];
    for (let i = 0; i < 12; i++) {
      left.push({ text: `Left column sentence number ${i} goes here.`, x: 54, y: 660 - i * 14, size: 10 });
      right.push({ text: `Right column sentence number ${i} goes here.`, x: 320, y: 660 - i * 14, size: 10 });
    }
    const doc = await parsePdfBytes(
      'cols.pdf',
      buildPdf([
        {
          text: [
            { text: 'Installation of the spindle drive unit', x: 54, y: 720, size: 18 },
            { text: 'This introduction runs across the full width of the page, above both of the columns below it.', x: 54, y: 690, size: 10 },
            ...right,
            ...left,
            { text: 'This closing note also runs across the full width of the page, below both of the columns.', x: 54, y: 460, size: 10 },
          ],
        },
      ]),
    );
    const text = doc.blocks.map((b) => b.text).join('\n');
    const at = (s: string): number => text.indexOf(s);
    expect(at('This introduction')).toBeGreaterThan(at('Installation of the spindle'));
    expect(at('Left column sentence number 0')).toBeGreaterThan(at('This introduction'));
    expect(at('Left column sentence number 11')).toBeLessThan(at('Right column sentence number 0'));
    expect(at('Right column sentence number 11')).toBeLessThan(at('This closing note'));
    for (let i = 0; i < 11; i++) expect(at(`Left column sentence number ${i} `)).toBeLessThan(at(`Left column sentence number ${i + 1} `));
  });
});

describe('PDF figures', () => {
  it('keeps a figure caption with the labels printed on the figure, on the figure page', async () => {
    const w = 40;
    const h = 30;
    const grey = new Uint8Array(w * h).fill(230);
    const doc = await parsePdfBytes(
      'figure.pdf',
      buildPdf([
        { text: [{ text: 'Electrical', x: 72, y: 720, size: 18 }, { text: 'See the next page for the wiring.', x: 72, y: 690 }] },
        {
          images: [{ width: w, height: h, grey, x: 100, y: 400, w: 400, h: 300 }],
          text: [
            { text: 'X1', x: 120, y: 660, size: 8 },
            { text: 'PE', x: 300, y: 600, size: 8 },
            { text: 'U V W', x: 420, y: 450, size: 8 },
            { text: 'Figure 3: Wiring diagram for the spindle drive', x: 100, y: 380 },
            { text: 'Connect the motor leads in the order shown.', x: 72, y: 340 },
          ],
        },
      ]),
    );
    const p2 = doc.blocks.filter((b) => b.page === 2).map((b) => [b.kind, b.text]);
    expect(p2).toEqual([
      ['paragraph', 'Figure 3: Wiring diagram for the spindle drive — labels: X1 · PE · U V W'],
      ['paragraph', 'Connect the motor leads in the order shown.'],
    ]);
  });
});

describe('PDF in Chinese', () => {
  it('reads letter-spaced (justified) Chinese as words, in paragraphs and in an alarm table, so its codes and words are found', async () => {
    // Character spacing (Tc) of 0.3 em after every glyph: pdf.js writes each gap as a space.
    const spaced = (text: string, x: number, y: number, size = 10): TextRun => ({ text, x, y, size, charSpacing: size * 0.3 });
    const cols = [72, 150, 330];
    const table = [
      ['错误码', '描述', '处理方法'],
      ['22', '机器人无法保持静止', '检查负载是否设置正确'],
      ['23', '关节3温度过高', '降低运行速度后重新上使能'],
    ].flatMap((r, i) => r.map((cell, k) => spaced(cell, cols[k] as number, 600 - i * 18)));
    const page: PageSpec = {
      text: [
        { text: '报警说明', x: 72, y: 720, size: 18 },
        spaced('控制器报警时，请先检查抱闸是否正常打开，', 72, 690),
        spaced('再根据下表处理。', 72, 676),
        ...table,
      ],
    };
    const doc = await parsePdfBytes('alarm-zh.pdf', buildPdf([page], '报警说明'));
    expect(ofKind(doc, 'paragraph').map((p) => p.text)).toEqual(['控制器报警时，请先检查抱闸是否正常打开，再根据下表处理。']);
    const rows = ofKind(doc, 'table-row');
    expect(rows.map((r) => r.cells)).toEqual([
      ['22', '机器人无法保持静止', '检查负载是否设置正确'],
      ['23', '关节3温度过高', '降低运行速度后重新上使能'],
    ]);
    expect(rows[0]?.columns).toEqual(['错误码', '描述', '处理方法']);
    const codes = extractCodes(doc, { file: 'alarm-zh.pdf', manual: '报警说明', equipment: [] });
    expect(codes.map((c) => [c.code, c.title, c.remedy])).toEqual([
      ['22', '机器人无法保持静止', '检查负载是否设置正确'],
      ['23', '关节3温度过高', '降低运行速度后重新上使能'],
    ]);
  });

  it('keeps the spaces of English words beside Chinese ones and of a Chinese text whose runs stand a column apart', async () => {
    const page: PageSpec = {
      text: [
        { text: '报警说明', x: 72, y: 720, size: 18 },
        { text: '请检查 Brake 信号', x: 72, y: 690, size: 10 },
        { text: '注意', x: 72, y: 660, size: 10 },
        { text: '断电后再维修', x: 300, y: 660, size: 10 },
      ],
    };
    const doc = await parsePdfBytes('mixed-zh.pdf', buildPdf([page]));
    const text = [...ofKind(doc, 'paragraph'), ...ofKind(doc, 'table-row')].map((b) => b.text).join('\n');
    expect(text).toContain('请检查 Brake 信号');
    expect(text).not.toContain('注意断电后再维修');
  });
});
