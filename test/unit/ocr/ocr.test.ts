import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { Worker } from 'node:worker_threads';
import { OCR_WORKER_ENTRY, OcrSession } from '../../../native/ocr/tesseract.js';
import { parseFile } from '../../../native/parse/index.js';
import { tempDir } from '../parse/helpers.js';
import { buildPdf, cer, type TextRun } from '../pdf/helpers.js';
import { scannedPage } from '../pdf/scan.js';

/** The scanned fixture: a short page of a service manual (612×300 pt, rendered at 200 dpi). */
const SCAN_LINES = [
  'Spindle Drive Service',
  'Check the spindle drive fuse F3 before you open the cabinet.',
  'Disconnect the mains supply and wait five minutes for the',
  'capacitors to discharge. Measure the DC bus voltage at X1.',
  'Replace the encoder cable if alarm 214 returns after restart.',
];
const SCAN_TEXT: TextRun[] = SCAN_LINES.map((t, i) => ({ text: t, x: 54, y: 250 - i * 24 - (i > 0 ? 12 : 0), size: i === 0 ? 18 : 12 }));
const SCAN_SIZE: [number, number] = [612, 300];
/** Stated tolerance: character error rate on the scanned fixture. */
const MAX_CER = 0.03;

let tmp: Awaited<ReturnType<typeof tempDir>>;
let session: OcrSession;
let scanPath: string;
let mixedPath: string;

beforeAll(async () => {
  tmp = await tempDir();
  session = new OcrSession();
  const scan = await scannedPage(SCAN_TEXT, SCAN_SIZE);
  scanPath = await tmp.file('scan.pdf', buildPdf([scan], 'Scanned Service Sheet'));
  const textPage = { text: [{ text: 'Introduction', x: 72, y: 700, size: 18 }, { text: 'This page has a real text layer and is not OCR read.', x: 72, y: 670 }] };
  mixedPath = await tmp.file('mixed.pdf', buildPdf([textPage, scan]));
});
afterAll(async () => {
  await session.dispose();
  await tmp.cleanup();
});

describe('OCR of scanned PDF pages (tesseract.js, offline)', () => {
  it(`reads a scanned page within ${MAX_CER * 100} % character error rate, with per-page confidence and no network use`, async () => {
    const fetchSpy = vi.spyOn(globalThis, 'fetch');
    const httpSpy = vi.spyOn(http, 'request');
    const httpsSpy = vi.spyOn(https, 'request');
    const netSpy = vi.spyOn(net, 'connect');
    try {
      const pages: number[] = [];
      const doc = await parseFile(scanPath, { ocr: { session, onPage: (p) => pages.push(p.page) } });
      expect(pages).toEqual([1]);
      expect(doc.pagesWithoutText).toEqual([]);
      expect(doc.ocrPages).toHaveLength(1);
      expect(doc.ocrPages?.[0]).toMatchObject({ page: 1, lowConfidence: false });
      expect(doc.ocrPages?.[0]?.confidence).toBeGreaterThanOrEqual(80);
      expect(doc.warnings.join(' ')).toMatch(/read by OCR: 1\b/);
      const text = doc.blocks.map((b) => b.text).join(' ');
      expect(cer(SCAN_LINES.join(' '), text)).toBeLessThanOrEqual(MAX_CER);
      // The larger first line is a heading, as on a text page.
      expect(doc.blocks[0]).toMatchObject({ kind: 'heading', text: 'Spindle Drive Service', page: 1 });
      expect(doc.blocks.every((b) => b.ocr && b.ocr.confidence === doc.ocrPages?.[0]?.confidence)).toBe(true);
      expect(fetchSpy).not.toHaveBeenCalled();
      expect(httpSpy).not.toHaveBeenCalled();
      expect(httpsSpy).not.toHaveBeenCalled();
      expect(netSpy).not.toHaveBeenCalled();
    } finally {
      vi.restoreAllMocks();
    }
  });

  it('reads a mixed PDF page by page: the text page keeps its text layer, the scanned page is OCR read', async () => {
    const pages: number[] = [];
    const doc = await parseFile(mixedPath, { ocr: { session, onPage: (p) => pages.push(p.page) } });
    expect(pages).toEqual([2]);
    expect(doc.pageCount).toBe(2);
    expect(doc.ocrPages?.map((p) => p.page)).toEqual([2]);
    const p1 = doc.blocks.filter((b) => b.page === 1);
    expect(p1.map((b) => b.text)).toEqual(['Introduction', 'This page has a real text layer and is not OCR read.']);
    expect(p1.some((b) => b.ocr)).toBe(false);
    const p2 = doc.blocks.filter((b) => b.page === 2);
    expect(p2.every((b) => b.ocr)).toBe(true);
    expect(p2.map((b) => b.text).join(' ')).toMatch(/fuse F3/);
    expect(session.started).toBe(true);
  });

  it('flags pages under the confidence threshold: "OCR text, check the page"', async () => {
    const doc = await parseFile(scanPath, { ocr: { session, lowConfidence: 101 } });
    expect(doc.ocrPages?.[0]?.lowConfidence).toBe(true);
    expect(doc.warnings.join(' ')).toMatch(/OCR text, check the page.*page 1: \d+ %/);
  });

  it('reports scanned pages, with the reason, when OCR is off', async () => {
    const doc = await parseFile(mixedPath, { ocr: { enabled: false } });
    expect(doc.pagesWithoutText).toEqual([2]);
    expect(doc.ocrPages).toBeUndefined();
    expect(doc.warnings.join(' ')).toMatch(/no text layer.*: 2\. OCR is switched off/);
  });

  it('stops at once when cancelled during a page', async () => {
    const ac = new AbortController();
    const own = new OcrSession();
    try {
      const started = Date.now();
      const p = parseFile(scanPath, { signal: ac.signal, ocr: { session: own } });
      setTimeout(() => ac.abort(), 300);
      await expect(p).rejects.toMatchObject({ name: 'AbortError' });
      expect(Date.now() - started).toBeLessThan(5000);
    } finally {
      await own.dispose();
      await own.dispose();
    }
  });

  it('never fetches language data: a URL as language folder is refused before any worker starts', async () => {
    const s = new OcrSession({ languages: ['eng'], langPath: 'https://cdn.example.invalid/tessdata' });
    await expect(s.recognize(new Uint8Array(16))).rejects.toThrow(/offline/);
    await s.dispose();
    const missing = new OcrSession({ languages: ['xyz'] });
    await expect(missing.recognize(new Uint8Array(16))).rejects.toThrow(/not installed/);
    await missing.dispose();
  });

  it('the worker thread itself cannot reach the network: fetch is disabled there', async () => {
    const worker = new Worker(OCR_WORKER_ENTRY);
    try {
      const reply = new Promise<{ status: string; data: unknown }>((resolve) => worker.on('message', (m: { status: string; data: unknown }) => m.status !== 'progress' && resolve(m)));
      worker.postMessage({
        workerId: 'w',
        jobId: 'j',
        action: 'loadLanguage',
        payload: { langs: ['eng'], options: { langPath: 'https://cdn.example.invalid/tessdata', gzip: true, cacheMethod: 'none' } },
      });
      const m = await reply;
      expect(m.status).toBe('reject');
      expect(String(m.data)).toMatch(/offline.*cdn\.example\.invalid/);
    } finally {
      await worker.terminate();
    }
  });
});
