import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { IngestProgress } from '../../../native/contract/api.js';
import { createEngine, type Engine } from '../../../native/engine.js';
import { tempDir } from '../parse/helpers.js';
import { buildPdf, type TextRun } from '../pdf/helpers.js';
import { scannedPage } from '../pdf/scan.js';

let tmp: Awaited<ReturnType<typeof tempDir>>;
let engine: Engine;

beforeAll(async () => {
  tmp = await tempDir();
  const manuals = join(tmp.dir, 'manuals');
  await mkdir(manuals);
  const scanText: TextRun[] = [
    { text: 'Spindle Drive', x: 54, y: 240, size: 18 },
    { text: 'Check the spindle drive fuse F3 before opening the cabinet.', x: 54, y: 200, size: 12 },
    { text: 'The braking resistor is mounted behind the left panel.', x: 54, y: 176, size: 12 },
  ];
  // A scanned service sheet, and a text PDF whose fault-code table continues on page 2.
  await writeFile(join(manuals, 'scanned-sheet.pdf'), buildPdf([await scannedPage(scanText, [612, 300])], 'Spindle Service Sheet'));
  const row = (y: number, c: string, d: string, r: string): TextRun[] => [
    { text: c, x: 72, y, size: 10 },
    { text: d, x: 150, y, size: 10 },
    { text: r, x: 340, y, size: 10 },
  ];
  await writeFile(
    join(manuals, 'alarms.pdf'),
    buildPdf(
      [
        { text: [{ text: 'Alarm List', x: 72, y: 720, size: 18 }, ...row(120, 'Code', 'Description', 'Remedy'), ...row(104, 'E11', 'Tool clamp open', 'Check the clamp air'), ...row(88, 'E12', 'Tool not found', 'Teach the magazine')] },
        { text: [...row(720, 'E13', 'Chip conveyor jam', 'Clear the conveyor'), ...row(704, 'E14', 'Air pressure low', 'Check the compressor'), ...row(688, 'E15', 'Probe battery low', 'Replace the battery')] },
      ],
      'Mill Alarm List',
    ),
  );
  engine = await createEngine({ libraryDir: join(tmp.dir, 'lib'), create: true });
});

afterAll(async () => {
  await engine?.close();
  await tmp.cleanup();
});

describe('ingest of scanned and table PDFs', () => {
  it('OCRs the scanned PDF with page progress, reports it, and makes it and the continued code table searchable', async () => {
    const events: IngestProgress[] = [];
    const r = await engine.ingest({ paths: [join(tmp.dir, 'manuals')] }, { onProgress: (p) => events.push(p) });
    if (!r.ok) throw new Error(r.error.message);
    expect(r.value.files).toBe(2);
    expect(r.value.skipped).toEqual([]);
    expect(r.value.pagesNeedingOcr).toEqual([]);
    expect(r.value.ocrPages).toEqual([{ file: 'scanned-sheet.pdf', pages: [1], lowConfidence: [] }]);
    expect(events.some((e) => e.phase === 'parse' && e.file === 'scanned-sheet.pdf' && e.page === 1 && e.pageCount === 1)).toBe(true);

    const s = await engine.search({ query: 'braking resistor', mode: 'keyword' });
    if (!s.ok) throw new Error(s.error.message);
    expect(s.value.hits[0]).toMatchObject({ file: 'scanned-sheet.pdf', page: 1 });

    const c = await engine.lookupCode({ text: 'E14' });
    if (!c.ok) throw new Error(c.error.message);
    expect(c.value.matches[0]).toMatchObject({ code: 'E14', page: 2, title: 'Air pressure low', remedy: 'Check the compressor' });
  });
});
