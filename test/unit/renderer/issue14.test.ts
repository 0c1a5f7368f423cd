/** Issue 14's UI findings, each as the pure piece that decides it. */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Block, IngestReport, Result, SearchResponse, CodeLookupResponse } from '../../../native/contract/index.js';
import { structure, rowFields } from '../../../renderer/src/ui/structure.js';
import { groupBlocks, rowCells, shownText } from '../../../renderer/src/features/source/BlocksView.js';
import { highlightTerms } from '../../../renderer/src/features/search/highlight.js';
import { sectionRefs, sectionIs, signalOf, sourceTargetOf } from '../../../renderer/src/features/answer/SafetyBox.js';
import { ingestHeadline } from '../../../renderer/src/features/library/LibraryPage.js';
import { searchErrors, resultTargets } from '../../../renderer/src/features/search/SearchPage.js';
import { pdfScale, stepZoom } from '../../../renderer/src/features/source/PdfView.js';
import { isSampleManual, hasOwnManuals } from '../../../renderer/src/ui/sample.js';
import { filtersSummary, isNarrow, NO_FILTERS } from '../../../renderer/src/features/search/Filters.js';
import { verifyHeadline } from '../../../renderer/src/features/packs/PacksPage.js';
import type { PackVerifyReport } from '../../../native/contract/index.js';

describe('passages render structure, never markup', () => {
  it('reads headings, a lead-in and its steps, code spans without backticks', () => {
    const p = structure('### 4.2 Spindle too hot\nIf the housing is above 45 °C after warm-up, or **E-107** appears:\n1. Stop the spindle.\n2. Check `coolant` flow.');
    expect(p).toEqual([
      { kind: 'heading', level: 3, text: '4.2 Spindle too hot' },
      { kind: 'paragraph', text: 'If the housing is above 45 °C after warm-up, or E-107 appears:' },
      { kind: 'list', ordered: true, start: 1, items: ['Stop the spindle.', 'Check coolant flow.'] },
    ]);
    expect(JSON.stringify(p)).not.toMatch(/###|\*\*|`/);
  });

  it('reads a pipe table with its header, and rows quoted without a header line', () => {
    expect(structure('| Code | Message |\n|---|---|\n| E-101 | Emergency stop |')).toEqual([{ kind: 'table', header: ['Code', 'Message'], rows: [['E-101', 'Emergency stop']] }]);
    const mid = structure('Rows:\n| E-101 | Emergency stop |\n| E-102 | Door open |');
    expect(mid[1]).toEqual({ kind: 'table', header: [], rows: [['E-101', 'Emergency stop'], ['E-102', 'Door open']] });
  });

  it('keeps fenced code as a code block', () => {
    expect(structure('Send:\n```\n$H\nG28 X0\n```')).toEqual([{ kind: 'paragraph', text: 'Send:' }, { kind: 'code', text: '$H\nG28 X0' }]);
  });

  it('shows a CSV row (header line + row), a Col: val row and key=value as labelled fields', () => {
    expect(rowFields('Code,Message,Cause\nE-101,Emergency stop,"Button pressed, locked"')).toEqual([
      ['Code', 'E-101'],
      ['Message', 'Emergency stop'],
      ['Cause', 'Button pressed, locked'],
    ]);
    expect(structure('Code: E-101 | Message: Emergency stop', { tableRow: true })).toEqual([{ kind: 'fields', fields: [['Code', 'E-101'], ['Message', 'Emergency stop']] }]);
    expect(rowFields('P0301=Cylinder 1 Misfire')).toEqual([['P0301', 'Cylinder 1 Misfire']]);
    expect(rowFields('| Code | Message |\n| E-1 | Stop |')).toEqual([['Code', 'E-1'], ['Message', 'Stop']]);
  });

  it('a cited CSV row (no table-row flag) still shows as fields; prose with commas stays prose', () => {
    expect(structure('Code,Message,Cause,Remedy\nE-107,Spindle overtemperature,Housing above 55 °C.,Check the chiller.')[0]!.kind).toBe('fields');
    expect(structure('Stop the spindle, open the cover, and wait.\nThen, with gloves, remove the filter, bowl and seal.')[0]!.kind).toBe('paragraph');
  });
});

describe('the viewers keep a table together with its header', () => {
  const row = (cells: string[], extra: Partial<Block> = {}): Block => ({ kind: 'table-row', text: cells.join(' | '), headingPath: [], page: null, columns: ['Code', 'Message'], cells, raw: cells.join(','), rawHeader: 'Code,Message', table: 'codes.csv', ...extra });
  it('groups consecutive rows of one table under its columns; list items into one list', () => {
    const blocks: Block[] = [
      { kind: 'heading', text: 'Codes', headingPath: [], page: null, level: 1 },
      row(['E-101', 'Emergency stop']),
      row(['E-102', 'Door open']),
      { kind: 'list-item', text: 'one', headingPath: [], page: null },
      { kind: 'list-item', text: 'two', headingPath: [], page: null },
    ];
    expect(groupBlocks(blocks)).toEqual([
      { kind: 'single', index: 0 },
      { kind: 'table', columns: ['Code', 'Message'], rows: [1, 2] },
      { kind: 'list', items: [3, 4] },
    ]);
  });
  it('shows cells, not the pipes or the CSV line', () => {
    expect(rowCells(row(['**E-101**', 'Emergency stop'], { raw: '| **E-101** | Emergency stop |' }))).toEqual(['E-101', 'Emergency stop']);
  });
  it("shows a Markdown paragraph's words, not its link, code and emphasis marks; a step with its number", () => {
    const p = (text: string, extra: Partial<Block> = {}): Block => ({ kind: 'paragraph', text, headingPath: [], page: null, ...extra });
    expect(shownText(p('The timeout is set at [(listed in the reference)](../reference/configuration.md#timeout); use `nan` to disable it.'))).toBe(
      'The timeout is set at (listed in the reference); use nan to disable it.',
    );
    expect(shownText(p('**WARNING: Any attached motor must be able to spin freely.**', { kind: 'admonition', admonition: 'WARNING' }))).toBe('WARNING: Any attached motor must be able to spin freely.');
    expect(shownText(p('Fit the filter.', { kind: 'step', stepNumber: 3 }))).toBe('3. Fit the filter.');
    expect(shownText(p('Set motor_position.rotor_to_output_ratio to 1/8 when 2 < ratio.'))).toBe('Set motor_position.rotor_to_output_ratio to 1/8 when 2 < ratio.');
  });
});

describe('safety notices', () => {
  it('give DANGER, WARNING, CAUTION and NOTICE four different signal tones', () => {
    const tones = ['DANGER', 'WARNING', 'CAUTION', 'NOTICE'].map((k) => signalOf(k).tone);
    expect(new Set(tones).size).toBe(4);
    expect(signalOf('LOCKOUT').label).toBe('LOCKOUT / TAGOUT');
  });

  it('have four distinct Z535 colours (red, orange, yellow, blue) in every theme, high contrast included', () => {
    const css = fs.readFileSync(path.resolve(import.meta.dirname, '../../../renderer/src/styles.css'), 'utf8');
    for (const theme of ['light', 'dark', 'contrast']) {
      const block = new RegExp(`:root\\[data-theme='${theme}'\\] \\{([^}]*)\\}`).exec(css)?.[1] ?? '';
      const colour = (name: string) => new RegExp(`--sig-${name}: (#[0-9a-f]{6});`).exec(block)?.[1];
      const hue = (hex: string) => {
        const [r, g, b] = [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16) / 255) as [number, number, number];
        const max = Math.max(r, g, b), min = Math.min(r, g, b), d = max - min;
        const h = max === r ? ((g - b) / d) % 6 : max === g ? (b - r) / d + 2 : (r - g) / d + 4;
        return (h * 60 + 360) % 360;
      };
      const [danger, warning, caution, notice] = ['danger', 'warning', 'caution', 'notice'].map(colour);
      expect([danger, warning, caution, notice].every(Boolean), theme).toBe(true);
      const h = { danger: hue(danger!), warning: hue(warning!), caution: hue(caution!), notice: hue(notice!) };
      expect(h.danger < 12 || h.danger > 345, `${theme} danger is red`).toBe(true);
      expect(h.warning > 15 && h.warning < 40, `${theme} warning is orange`).toBe(true);
      expect(h.caution > 45 && h.caution < 65, `${theme} caution is yellow`).toBe(true);
      expect(h.notice > 195 && h.notice < 225, `${theme} notice is blue`).toBe(true);
    }
  });

  it('find the sections a step refers to, and recognise them among headings', () => {
    expect(sectionRefs('1. Lock out the machine (section 1.1).')).toEqual([{ label: 'section 1.1', ref: '1.1' }]);
    expect(sectionRefs('Wear gloves; see Safety.')).toEqual([{ label: 'Safety', ref: 'Safety' }]);
    expect(sectionIs('Acme CH-20 > 1 Safety > 1.1 Lockout / tagout', '1.1')).toBe(true);
    expect(sectionIs('Acme CH-20 > 1 Safety > 1.12 Gloves', '1.1')).toBe(false);
    expect(sectionIs('Acme CH-20 > 1 Safety', 'Safety')).toBe(true);
  });

  it('open a notice brought in from another section where it stands, marked; a cited passage\'s own notice has no such target', () => {
    const source = { file: 'pump-service.md', page: 4, section: 'Pump service > Safety', manual: 'Pump service', chunkId: 'c1', ref: 'Safety' };
    expect(sourceTargetOf({ kind: 'WARNING', text: 'WARNING: Disconnect the pump.', n: 1, source })).toEqual({
      target: { file: 'pump-service.md', manual: 'Pump service', page: 4, section: 'Pump service > Safety', text: 'WARNING: Disconnect the pump.' },
      label: 'Safety',
    });
    expect(sourceTargetOf({ kind: 'WARNING', text: 'WARNING: Disconnect the pump.', n: 1, source: { ...source, pack: 'acme-2026' } })?.target.pack).toBe('acme-2026');
    expect(sourceTargetOf({ kind: 'CAUTION', text: 'CAUTION: Hot surface.', n: 2 })).toBeNull();
  });
});

describe('messages for people', () => {
  const report = (r: Partial<IngestReport>): IngestReport => ({ files: 0, chunks: 0, unchanged: 0, removed: 0, skipped: [], pagesNeedingOcr: [], seconds: 0, ...r }) as IngestReport;
  it('a folder that does not exist is said plainly, not "Done in 0.0 s: 0 files"', () => {
    const h = ingestHeadline(report({ skipped: [{ file: '/media/usb/nope', reason: 'Not found: /media/usb/nope. Check the path and that the drive is connected.' }] }));
    expect(h.problem).toBe(true);
    expect(h.text).toMatch(/^Nothing was added: \/media\/usb\/nope does not exist/);
    expect(ingestHeadline(report({})).text).toMatch(/^Nothing was added: no manuals were found/);
    expect(ingestHeadline(report({ files: 2, chunks: 9, seconds: 1.2 })).text).toMatch(/^Done in 1.2 s: 2 files/);
  });

  it('a run that only computed vectors (search by meaning turned on) says so, not "Nothing was added"', () => {
    expect(ingestHeadline(report({ embedded: 652, seconds: 31.4 }))).toEqual({
      text: 'Done in 31.4 s: 652 passages indexed for meaning. Search by meaning is on for every manual.',
      problem: false,
    });
    expect(ingestHeadline(report({ files: 2, chunks: 9, embedded: 9, seconds: 1.2 })).text).toBe(
      'Done in 1.2 s: 2 files added or updated (9 passages), 0 unchanged; 9 passages indexed for meaning.',
    );
  });

  it('a pack path that does not exist leads with that cause, without signature or checksum lines', () => {
    const missing = {
      ok: false,
      pack: { id: '', name: '', version: '', publisher: null, signer: null },
      signature: 'missing',
      trusted: null,
      checksums: { checked: 0, failed: [] },
      embedderCompatible: null,
      problems: ['Pack file not found: /media/usb/site.mdpack. Check the path and that the drive is connected.'],
      error: { code: 'NOT_FOUND', message: 'Pack file not found: /media/usb/site.mdpack. Check the path and that the drive is connected.' },
    } as unknown as PackVerifyReport;
    const h = verifyHeadline(missing);
    expect(h.text).toMatch(/^Pack file not found/);
    expect(h.showChecks).toBe(false);
    const bad = { ...missing, pack: { ...missing.pack, name: 'Line 3', version: '1.0' }, checksums: { checked: 4, failed: ['a.pdf'] }, error: { code: 'PACK_INVALID', message: 'a.pdf does not match its checksum.' } } as unknown as PackVerifyReport;
    expect(verifyHeadline(bad).text).toMatch(/^a\.pdf does not match its checksum\. The pack did not pass/);
    expect(verifyHeadline(bad).showChecks).toBe(true);
  });

  it('the same input error from code lookup and search is shown once', () => {
    const fail = (method: string): Result<never> => ({ ok: false, error: { code: 'INVALID_INPUT', message: `Invalid ${method} request: field "text": must be at most 2000 characters.` } }) as Result<never>;
    expect(searchErrors(fail('lookupCode') as Result<CodeLookupResponse>, fail('search') as Result<SearchResponse>)).toHaveLength(1);
  });
});

describe('keyboard and reading', () => {
  it('↑/↓ walk the code cards first, then the passages they do not repeat', () => {
    const match = { code: 'E-107', key: 'E107', title: 'Spindle overheat', description: '', cause: '', remedy: '', severity: null, scope: [], file: 'codes.csv', manual: 'Codes', page: null, section: 'Codes', text: 'E-107,Spindle overheat', lang: 'en' };
    const hit = (id: string, kind: 'code' | 'passage') => ({ file: `${id}.md`, page: null, section: id, text: id, score: 1, kind, manual: id, lang: 'en', chunkId: id });
    const targets = resultTargets({ ok: true, value: { matches: [match], detected: ['E-107'], nearest: [], ms: 1 } } as unknown as Result<CodeLookupResponse>, {
      ok: true,
      value: { query: 'E-107', hits: [hit('dup', 'code'), hit('a', 'passage'), hit('b', 'passage')], ms: 1, mode: 'keyword' },
    } as unknown as Result<SearchResponse>);
    expect(targets.map((t) => t.file)).toEqual(['codes.csv', 'a.md', 'b.md']);
  });

  it('highlights skip stop words', () => {
    expect(highlightTerms('the spindle is not turning').sort()).toEqual(['spindle', 'turning']);
  });

  it('the PDF page grows with the text size and with zoom', () => {
    expect(pdfScale(900, 600, 1, 1)).toBeCloseTo(1.5);
    expect(pdfScale(900, 600, 24 / 18, 1)).toBeCloseTo(2);
    expect(pdfScale(900, 600, 1, 2)).toBeCloseTo(3);
    expect(stepZoom(1, 1)).toBe(1.25);
    expect(stepZoom(1, -1)).toBe(0.8);
    expect(stepZoom(3, 1)).toBe(3);
  });

  it('filters fold at 1024×700 with Larger text (24 px), not at 1280×800 normal text', () => {
    expect(isNarrow(1024, 700, 24)).toBe(true);
    expect(isNarrow(1280, 800, 18)).toBe(false);
  });

  it('folded filters say how many are on', () => {
    expect(filtersSummary(NO_FILTERS)).toBe('Filters');
    expect(filtersSummary({ ...NO_FILTERS, manual: 'X', lang: 'en' })).toBe('Filters (2 on)');
  });
});

describe('the sample library is labelled', () => {
  const sample = { source: '/repo/samples/library/acme-ch-20-chiller.pdf', publisher: 'Acme Machine Tools (fictional)' };
  const real = { source: '/media/usb/grbl/alarms.csv', publisher: null };
  it('knows sample manuals and when real manuals were added (the sample library itself: LibraryInfo.sample, engine)', () => {
    expect(isSampleManual(sample)).toBe(true);
    expect(isSampleManual(real)).toBe(false);
    expect(hasOwnManuals([sample])).toBe(false);
    expect(hasOwnManuals([sample, real])).toBe(true);
  });
});
