/**
 * Measures the PDF stage (issue 7): OCR throughput and character accuracy on generated scans,
 * table rows recovered on generated table PDFs, reading order and parse time of real PDFs.
 *
 *   npx tsx scripts/ocr-bench.ts [--pages 4] [--dpi 200] [--langs eng+chi_sim] [--pdf-dir ../shared/corpus/voron-2/Documentation]
 *
 * The scans are made here: manual-like text typeset with pdf.js's Helvetica, rendered to a grey
 * image with speckle, wrapped as an image-only PDF (no text layer), then parsed with OCR on.
 */
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { OcrSession } from '../native/ocr/tesseract.js';
import { parseFile } from '../native/parse/index.js';
import { buildPdf, cer, type TextRun } from '../test/unit/pdf/helpers.js';
import { scannedPage } from '../test/unit/pdf/scan.js';

const { values: args } = parseArgs({
  options: {
    pages: { type: 'string', default: '4' },
    dpi: { type: 'string', default: '200' },
    langs: { type: 'string', default: 'eng+chi_sim' },
    'pdf-dir': { type: 'string', default: '../shared/corpus/voron-2/Documentation' },
  },
});

const SENTENCES = [
  'Switch off the main disconnect and lock it before opening the cabinet.',
  'Check the spindle drive fuse F3 and the encoder cable for damage.',
  'Measure the DC bus voltage at terminal X1; it must be below 50 V.',
  'Replace the belt if the tension gauge reads less than 120 Hz.',
  'Lubricate the linear guides every 500 hours with the grease listed.',
  'Alarm 214 means the coolant pump motor is overloaded; reset it.',
  'Tighten the M8 screws to 25 Nm in a crosswise sequence.',
  'The axis reference switch is mounted behind the left cover plate.',
];

/** A full page of body text (11 pt, 40 lines) with a heading. */
function pageText(seed: number): { runs: TextRun[]; text: string } {
  const runs: TextRun[] = [{ text: `Maintenance Procedure ${seed + 1}`, x: 72, y: 720, size: 16 }];
  const lines: string[] = [runs[0]!.text];
  for (let i = 0; i < 40; i++) {
    const t = SENTENCES[(i + seed * 3) % SENTENCES.length] as string;
    runs.push({ text: t, x: 72, y: 690 - i * 15, size: 11 });
    lines.push(t);
  }
  return { runs, text: lines.join(' ') };
}

async function ocrBench(dir: string): Promise<void> {
  const n = Number(args.pages);
  const dpi = Number(args.dpi);
  const pages = [];
  const truth: string[] = [];
  for (let p = 0; p < n; p++) {
    const { runs, text } = pageText(p);
    pages.push(await scannedPage(runs, [612, 792], dpi));
    truth.push(text);
  }
  const file = join(dir, 'scan.pdf');
  await writeFile(file, buildPdf(pages));
  const session = new OcrSession({ languages: args.langs.split('+') });
  try {
    const t0 = performance.now();
    const perPage: number[] = [];
    const doc = await parseFile(file, { ocr: { session, onPage: (p) => perPage.push(p.ms) } });
    const secs = (performance.now() - t0) / 1000;
    const rates = truth.map((t, k) => cer(t, doc.blocks.filter((b) => b.page === k + 1).map((b) => b.text).join(' ')));
    const mean = rates.reduce((a, b) => a + b, 0) / rates.length;
    console.log(`OCR (${args.langs}): ${n} scanned letter pages (40 lines of 11 pt each, ${dpi} dpi, speckled), one worker, cold start included`);
    console.log(`  wall ${secs.toFixed(1)} s  → ${((n / secs) * 60).toFixed(1)} pages/min; per page (recognise only): ${perPage.map((ms) => (ms / 1000).toFixed(1)).join(', ')} s`);
    console.log(`  character accuracy ${((1 - mean) * 100).toFixed(2)} % (CER ${(mean * 100).toFixed(2)} %; worst page ${(Math.max(...rates) * 100).toFixed(2)} %)`);
    console.log(`  confidence per page: ${(doc.ocrPages ?? []).map((p) => p.confidence).join(', ')}`);
  } finally {
    await session.dispose();
  }
}

/** Generated tables: a borderless code table across two pages, a ruled parts table across two pages. */
async function tableBench(dir: string): Promise<void> {
  const cols = [72, 150, 340];
  const header = ['Code', 'Description', 'Remedy'];
  const codeRows = Array.from({ length: 30 }, (_, i) => [`E${String(i + 1).padStart(2, '0')}`, `Fault number ${i + 1} of the drive`, `Do remedy ${i + 1}`]);
  const runs = (rows: string[][], top: number): TextRun[] => rows.flatMap((r, i) => r.map((c, k) => ({ text: c, x: cols[k] as number, y: top - i * 16, size: 10 })));
  const pdf = buildPdf([
    { text: [{ text: 'Fault Codes', x: 72, y: 720, size: 18 }, ...runs([header, ...codeRows.slice(0, 20)], 400)] },
    { text: runs([header, ...codeRows.slice(20)], 720) },
  ]);
  const file = join(dir, 'codes.pdf');
  await writeFile(file, pdf);
  const doc = await parseFile(file, { ocr: { enabled: false } });
  const got = doc.blocks.filter((b) => b.kind === 'table-row' && b.columns?.join('|') === header.join('|'));
  const exact = codeRows.filter((r) => got.some((b) => b.cells?.join('|') === r.join('|'))).length;
  console.log(`Tables: borderless code table over 2 pages (header repeated): ${exact}/${codeRows.length} rows exact with header`);

  const xs = [72, 250, 400, 540];
  const parts = Array.from({ length: 24 }, (_, i) => [`Part ${i + 1} spare`, `SP-${1000 + i}`, String((i % 5) + 1)]);
  const ruled = (rows: string[][], top: number, withHeader: boolean): { text: TextRun[]; lines: [number, number, number, number][] } => {
    const all = withHeader ? [['Part', 'Number', 'Qty'], ...rows] : rows;
    const text = all.flatMap((r, i) => r.map((c, k) => ({ text: c, x: (xs[k] as number) + 8, y: top - i * 20 - 14, size: 10 })));
    const ys = all.map((_, i) => top - i * 20).concat(top - all.length * 20);
    const lines: [number, number, number, number][] = [
      ...ys.map((y): [number, number, number, number] => [72, y, 540, y]),
      ...xs.map((x): [number, number, number, number] => [x, top, x, ys[ys.length - 1] as number]),
    ];
    return { text, lines };
  };
  const p1 = ruled(parts.slice(0, 15), 500, true);
  const p2 = ruled(parts.slice(15), 720, false);
  await writeFile(join(dir, 'parts.pdf'), buildPdf([{ text: [{ text: 'Spare Parts', x: 72, y: 720, size: 18 }, ...p1.text], lines: p1.lines }, p2]));
  const pd = await parseFile(join(dir, 'parts.pdf'), { ocr: { enabled: false } });
  const prow = pd.blocks.filter((b) => b.kind === 'table-row' && b.columns?.join('|') === 'Part|Number|Qty');
  const pexact = parts.filter((r) => prow.some((b) => b.cells?.join('|') === r.join('|'))).length;
  console.log(`Tables: ruled parts table over 2 pages (header not repeated): ${pexact}/${parts.length} rows exact with header`);
}

/** Parse time of the real PDFs, and the reading order of the VORON B manual on pages 2 and 4. */
async function corpusBench(): Promise<void> {
  const dir = resolve(args['pdf-dir']);
  if (!existsSync(dir)) {
    console.log(`(no ${dir}: corpus timing skipped)`);
    return;
  }
  for (const name of (await readdir(dir)).filter((f) => f.toLowerCase().endsWith('.pdf'))) {
    const cpu0 = process.cpuUsage();
    const t0 = performance.now();
    const doc = await parseFile(join(dir, name), { ocr: { enabled: false } });
    const ms = performance.now() - t0;
    const cpu = process.cpuUsage(cpu0);
    const rows = doc.blocks.filter((b) => b.kind === 'table-row').length;
    console.log(`${name}: ${doc.pageCount} pages, ${doc.blocks.length} blocks, ${rows} table rows; wall ${ms.toFixed(0)} ms, CPU ${((cpu.user + cpu.system) / 1000).toFixed(0)} ms`);
    if (name.startsWith('VORON B')) {
      const text = doc.blocks.map((b) => b.text).join('\n');
      const order = [
        'Print settings',
        'In my experience the minimum settings',
        'Layer height 50% of the nozzle width',
        '5 layers for top and bottom',
        '3 shells',
        '40% infill',
        'TIP: Put a piece of tape',
        'Step 1: Pre-assemble 4 lengths of bottom square',
        'Start with the bottom square',
        'Step 2: Insert bottom T nuts',
      ];
      const at = order.map((s) => text.indexOf(s));
      const ok = at.every((p, k) => p >= 0 && (k === 0 || p > (at[k - 1] as number)));
      console.log(`  reading order (page 2 "Print settings" list, page 4 text beside the picture): ${ok ? 'in order' : `OUT OF ORDER ${JSON.stringify(at)}`}`);
    }
  }
}

const dir = await mkdtemp(join(tmpdir(), 'manualdesk-ocr-bench-'));
try {
  await ocrBench(dir);
  await tableBench(dir);
  await corpusBench();
} finally {
  await rm(dir, { recursive: true, force: true });
}
