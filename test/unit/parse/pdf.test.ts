import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseFile } from '../../../native/parse/index.js';
import { makePdf, ofKind, tempDir, type PdfLine } from './helpers.js';

let tmp: Awaited<ReturnType<typeof tempDir>>;
beforeAll(async () => {
  tmp = await tempDir();
});
afterAll(async () => {
  await tmp.cleanup();
});

/** A running header and a page-number footer on every page with text. */
const furniture = (n: number): PdfLine[] => [
  { text: 'ACME Robotics - R5 Service Manual', x: 72, y: 760, size: 9 },
  { text: String(n), x: 300, y: 30, size: 9 },
];

describe('pdf', () => {
  it('reads text per page, strips running headers/footers, guesses headings and reports pages without text', async () => {
    const pdf = makePdf(
      [
        [
          ...furniture(1),
          { text: 'Maintenance', x: 72, y: 700, size: 20 },
          { text: 'Lubricate the joints every 500 hours of', x: 72, y: 670 },
          { text: 'operation using the grease listed below.', x: 72, y: 656 },
          { text: 'Check the cables at the same time.', x: 72, y: 620 },
          { text: 'WARNING: Switch off the controller before opening the arm.', x: 72, y: 590 },
          { text: '1. Remove the cover.', x: 72, y: 560 },
          { text: '2. Clean the gear.', x: 72, y: 546 },
        ],
        [...furniture(2), { text: 'Troubleshooting', x: 72, y: 700, size: 20 }, { text: 'Error E7 means the encoder cable is loose.', x: 72, y: 670 }],
        [],
        [...furniture(4), { text: 'The last page has a short paragraph.', x: 72, y: 700 }],
      ],
      'R5 Service Manual',
    );
    const doc = await parseFile(await tmp.file('r5.pdf', pdf));
    expect(doc.format).toBe('pdf');
    expect(doc.pageCount).toBe(4);
    expect(doc.pagesWithoutText).toEqual([3]);
    expect(doc.warnings.join(' ')).toMatch(/no text layer.*: 3\b/);
    expect(doc.meta.title).toBe('R5 Service Manual');

    const texts = doc.blocks.map((b) => b.text);
    expect(texts.some((t) => t.includes('ACME Robotics'))).toBe(false);
    expect(texts.some((t) => /^\d+$/.test(t))).toBe(false);

    expect(ofKind(doc, 'heading').map((h) => [h.text, h.page])).toEqual([
      ['Maintenance', 1],
      ['Troubleshooting', 2],
    ]);
    const paras = ofKind(doc, 'paragraph');
    expect(paras[0]).toMatchObject({
      text: 'Lubricate the joints every 500 hours of operation using the grease listed below.',
      page: 1,
      headingPath: ['Maintenance'],
    });
    expect(paras[1]?.text).toBe('Check the cables at the same time.');
    expect(ofKind(doc, 'admonition')[0]).toMatchObject({
      admonition: 'WARNING',
      text: 'WARNING: Switch off the controller before opening the arm.',
      page: 1,
    });
    expect(ofKind(doc, 'step').map((s) => [s.stepNumber, s.text])).toEqual([
      [1, 'Remove the cover.'],
      [2, 'Clean the gear.'],
    ]);
    expect(paras.find((p) => p.text.startsWith('Error E7'))).toMatchObject({ page: 2, headingPath: ['Troubleshooting'] });
    expect(paras.at(-1)).toMatchObject({ text: 'The last page has a short paragraph.', page: 4 });
  });

  it('does not take a generator placeholder for the manual title', async () => {
    // PDF writers fill the Info title with a placeholder when the author gave none; such a PDF is read
    // as an untitled one (its manual named by its file), not "(anonymous)" on every hit and code card.
    const page = [{ text: 'Pump P4 Manual', x: 72, y: 700, size: 20 }, { text: 'Prime the pump before the first start.', x: 72, y: 670 }];
    const titles: string[] = [];
    for (const placeholder of ['(anonymous)', '[Untitled]', 'Document1']) {
      const doc = await parseFile(await tmp.file(`p4-${titles.length}.pdf`, makePdf([page], placeholder)));
      titles.push(String(doc.meta.title));
    }
    const untitled = await parseFile(await tmp.file('p4-untitled.pdf', makePdf([page])));
    expect(untitled.meta.title).toBeUndefined();
    expect(titles).toEqual(Array(3).fill('undefined'));
    const named = await parseFile(await tmp.file('p4-named.pdf', makePdf([page], 'P4 (2019 edition)')));
    expect(named.meta.title).toBe('P4 (2019 edition)');
  });

  it('reads a two-column page column by column', async () => {
    const left: PdfLine[] = [];
    const right: PdfLine[] = [];
    for (let i = 0; i < 14; i++) {
      left.push({ text: `Left column line number ${i} of text here`, x: 50, y: 700 - i * 14 });
      right.push({ text: `Right column line number ${i} of text here`, x: 330, y: 700 - i * 14 });
    }
    const doc = await parseFile(await tmp.file('cols.pdf', makePdf([[...left, ...right]])));
    const text = doc.blocks.map((b) => b.text).join(' ');
    expect(text.indexOf('Left column line number 13')).toBeLessThan(text.indexOf('Right column line number 0'));
  });

  it('reports a damaged PDF as FILE_UNREADABLE', async () => {
    const p = await tmp.file('broken.pdf', Buffer.from('%PDF-1.4\n1 0 obj garbage\n'));
    await expect(parseFile(p)).rejects.toMatchObject({ code: 'FILE_UNREADABLE' });
  });
});
