/**
 * The engine end to end on the fixture manuals (test/fixtures/manuals): ingest, search, fault codes,
 * filters, revisions, incremental re-ingest, true deletes, unreadable files and the write lock.
 * Every library lives in a temp folder removed afterwards.
 */
import fs from 'node:fs';
import { hostname } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { SearchHit } from '../../native/contract/api.js';
import { createEngine, type Engine } from '../../native/engine.js';
import { LibraryStore } from '../../native/store/library-store.js';
import { CodeIndex } from '../../native/fault-codes/index.js';
import { LOCK_FILE } from '../../native/store/lock.js';
import { FIXTURE_FILES, cleanupTemp, copyFixtures, failure, rewrite, tempDir, value } from './helpers.js';

afterAll(cleanupTemp);

const files = (hits: SearchHit[]) => hits.map((h) => h.file);

/** Every LanceDB data file under the library, concatenated: what is physically on disk. */
function lanceBytes(libraryDir: string): Buffer {
  const parts: Buffer[] = [];
  const walk = (d: string): void => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else parts.push(fs.readFileSync(p));
    }
  };
  walk(path.join(libraryDir, 'lance'));
  return Buffer.concat(parts);
}

async function versionCounts(libraryDir: string): Promise<{ chunks: number; codes: number }> {
  const store = await LibraryStore.open(libraryDir, { embedder: null, readOnly: true });
  try {
    return await store.versionCounts();
  } finally {
    await store.close();
  }
}

describe('a library of the fixture manuals', () => {
  let lib: string;
  let engine: Engine;
  let firstReport: Awaited<ReturnType<Engine['ingest']>>;

  beforeAll(async () => {
    lib = tempDir('lib');
    engine = await createEngine({ libraryDir: lib, create: true });
    firstReport = await engine.ingest({ paths: [copyFixtures()] });
  });
  afterAll(async () => {
    await engine?.close();
  });

  it('ingests every fixture file, counts files and chunks, skips nothing', async () => {
    const r = value(firstReport);
    expect(r.skipped).toEqual([]);
    expect(r.files).toBe(FIXTURE_FILES.length);
    expect(r.unchanged).toBe(0);
    expect(r.removed).toBe(0);
    expect(r.chunks).toBeGreaterThanOrEqual(FIXTURE_FILES.length);
    const info = value(await engine.info());
    expect(info.files).toBe(FIXTURE_FILES.length);
    expect(info.chunks).toBe(r.chunks);
    expect(info.embedder).toBeNull();
    // 5 alarms (CSV) + 4 faults (AsciiDoc) + 3 errors (YAML) + 3 + 3 inverter codes (EN, 中文) + 1 (rev A table)
    expect(info.codes).toBe(19);
    const listed = value(await engine.listManuals());
    expect(listed.map((m) => m.file).sort()).toEqual(FIXTURE_FILES);
  });

  it('reads the sidecar: title, equipment, revision, publisher; only the newest revision is current', async () => {
    const listed = value(await engine.listManuals());
    const revB = listed.find((m) => m.file === 'press-brake/hpb-200-rev-b.md');
    const revA = listed.find((m) => m.file === 'press-brake/hpb-200-rev-a.md');
    expect(revB).toMatchObject({
      title: 'Fictional HPB-200 Press Brake Operator Manual',
      equipment: ['HPB-200'],
      revision: 'B',
      publisher: 'Fictional Machine Works',
      current: true,
      format: 'markdown',
    });
    expect(revA).toMatchObject({ revision: 'A', current: false });
    expect(listed.filter((m) => !m.current).map((m) => m.file)).toEqual(['press-brake/hpb-200-rev-a.md']);
  });

  it.each([
    ['how do I change the hydraulic oil', 'press-brake/hpb-200-rev-b.md', 'Changing the hydraulic oil', '4000 operating hours'],
    ['ram creeps down when the pump is stopped', 'press-brake/hpb-200-rev-b.md', 'Ram creeps down when stopped', 'prefill valve seal'],
    ['pump makes a gravel noise', 'help/coolant-pump.html', 'Noise and vibration', 'cavitation'],
    ['DC bus capacitors charged after power off', 'servo/sd40-servo-drive.adoc', 'Wiring the motor', 'WARNING: The DC bus capacitors'],
    ['foot pedal cable chafed', 'notes/shift-notes.txt', '', 'cable sleeve'],
    ['lockout tagout before working in the tooling area', 'press-brake/hpb-200-rev-b.md', 'Safety', 'DANGER:'],
  ])('search %j → %s § %s', async (query, file, section, contains) => {
    const res = value(await engine.search({ query, k: 5 }));
    expect(res.mode).toBe('keyword');
    const top = res.hits[0];
    expect(top, `no hits for ${query}`).toBeDefined();
    expect(top?.file).toBe(file);
    expect(top?.section.endsWith(section)).toBe(true);
    expect(top?.text).toContain(contains);
    expect(top?.page).toBeNull();
    expect(top?.kind).toBe('passage');
  });

  it('cites the PDF page that holds the passage', async () => {
    const top = value(await engine.search({ query: 'scissor lift daily checks tyres', k: 3 })).hits[0];
    expect(top?.file).toBe('lift/sl3-scissor-lift.pdf');
    expect(top?.page).toBe(1);
  });

  it('cites page 2 for text that is only on page 2 of the PDF', async () => {
    const hits = value(await engine.search({ query: 'emergency lowering knob platform', k: 3 })).hits;
    const top = hits[0];
    expect(top?.file).toBe('lift/sl3-scissor-lift.pdf');
    expect(top?.text).toContain('emergency lowering knob');
    expect(top?.page).toBe(2);
    expect(top?.text).not.toContain('Daily checks');
  });

  it('answers a Chinese query with the Chinese passage', async () => {
    const res = value(await engine.search({ query: '怎么更换液压油', k: 5 }));
    expect(res.hits[0]?.file).toBe('zh/hpb-200-zh.md');
    expect(res.hits[0]?.lang).toBe('zh');
    expect(res.hits[0]?.section).toContain('更换液压油');
    expect(res.hits[0]?.text).toContain('放油螺塞');
    // Each file records its passages' languages (hybrid search reads them to know whether to look across languages).
    const files = (JSON.parse(fs.readFileSync(path.join(lib, 'files.json'), 'utf8')) as { files: { file: string; langs?: string[] }[] }).files;
    expect(files.find((f) => f.file === 'zh/hpb-200-zh.md')?.langs).toEqual(['zh']);
    expect(files.filter((f) => f.langs?.includes('en')).length).toBeGreaterThan(0);
  });

  it('looks up a code in every written form the normaliser treats as equal', async () => {
    for (const q of ['AL-01', 'al 1', 'AL01', 'alarm 1', 'ALM-001', '报警 1']) {
      const r = value(await engine.lookupCode({ text: q }));
      expect(r.detected, q).toEqual(['alarm:1']);
      expect(r.matches, q).toHaveLength(1);
      expect(r.matches[0]).toMatchObject({
        code: 'AL-01',
        title: 'Light curtain interrupted',
        file: 'alarms/hpb-200-alarms.csv',
        page: null,
      });
      expect(r.matches[0]?.cause).toContain('light curtain');
      expect(r.matches[0]?.remedy).toContain('press RESET');
    }
    for (const q of ['F0023', 'f 23', 'fault 23', 'F-0023', 'flt 23']) {
      const r = value(await engine.lookupCode({ text: q }));
      expect(r.matches.map((m) => m.code), q).toEqual(['F0023']);
      expect(r.matches[0]?.remedy).toContain('braking resistor');
      expect(r.matches[0]?.section).toContain('Fault Codes');
    }
  });

  it('gives both language definitions of a translated code table, Chinese first for a Chinese query', async () => {
    const en = value(await engine.lookupCode({ text: 'E07' }));
    expect(en.matches.map((m) => [m.file, m.lang])).toEqual([
      ['codes/inverter-fault-codes.properties', 'en'],
      ['codes/inverter-fault-codes_zh.properties', 'zh'],
    ]);
    const zh = value(await engine.lookupCode({ text: '错误 7' }));
    expect(zh.matches[0]?.lang).toBe('zh');
    expect(zh.matches[0]?.text).toContain('减速时过电压');
  });

  it('answers an unknown code with no match and the nearest defined codes of its family', async () => {
    const r = value(await engine.lookupCode({ text: 'F0024' }));
    expect(r.detected).toEqual(['fault:24']);
    expect(r.matches).toEqual([]);
    expect(r.nearest.map((n) => n.code)).toContain('F0023');
    expect(r.nearest.every((n) => n.code.startsWith('F'))).toBe(true);
    const none = value(await engine.search({ query: 'AL-77', k: 5 }));
    expect(none.hits.some((h) => h.kind === 'code')).toBe(false);
  });

  it('puts the code record first when the query is a code', async () => {
    for (const [q, file] of [
      ['AL-03', 'alarms/hpb-200-alarms.csv'],
      ['alarm 4 oil temperature', 'alarms/hpb-200-alarms.csv'],
      ['E-205', 'conveyor/belt-conveyor-errors.yaml'],
      ['F0031', 'servo/sd40-servo-drive.adoc'],
    ] as const) {
      const hits = value(await engine.search({ query: q, k: 5 })).hits;
      expect(hits[0]?.kind, q).toBe('code');
      expect(hits[0]?.file, q).toBe(file);
      // The code's own table row is not repeated as a passage.
      expect(hits.filter((h) => h.file === file && h.text === hits[0]?.text)).toHaveLength(1);
    }
  });

  it('answers with one code lookup and one retrieval (counted on the index and the store)', async () => {
    const lookup = vi.spyOn(CodeIndex.prototype, 'lookup');
    const fullText = vi.spyOn(LibraryStore.prototype, 'fullTextSearch');
    try {
      // What one search of the question costs the store…
      value(await engine.search({ query: 'how do I replace the pump filter', k: 10 }));
      const perSearch = fullText.mock.calls.length;
      expect(lookup).toHaveBeenCalledTimes(1);
      lookup.mockClear();
      fullText.mockClear();
      // …is what the whole answer costs: one code lookup, one retrieval.
      const a = value(await engine.ask({ question: 'how do I replace the pump filter' }));
      expect(a.refused).toBe(false);
      expect(lookup).toHaveBeenCalledTimes(1);
      expect(fullText).toHaveBeenCalledTimes(perSearch);
    } finally {
      lookup.mockRestore();
      fullText.mockRestore();
    }
  });

  it('filters by manual title, language and path prefix', async () => {
    const byManual = value(
      await engine.search({ query: 'motor cable', k: 10, filters: { manuals: ['Fictional SD-40 Servo Drive Manual'] } }),
    ).hits;
    expect(byManual.length).toBeGreaterThan(0);
    expect(new Set(files(byManual))).toEqual(new Set(['servo/sd40-servo-drive.adoc']));

    const zhOnly = value(await engine.search({ query: 'HPB-200 液压油', k: 10, filters: { lang: ['zh'] } })).hits;
    expect(zhOnly.length).toBeGreaterThan(0);
    expect(zhOnly.every((h) => h.lang === 'zh')).toBe(true);

    const help = value(await engine.search({ query: 'pump', k: 10, filters: { pathPrefix: 'help/' } })).hits;
    expect(help.length).toBeGreaterThan(0);
    expect(help.every((h) => h.file.startsWith('help/'))).toBe(true);

    const nothing = value(await engine.search({ query: 'pump', k: 10, filters: { manuals: ['No Such Manual'] } })).hits;
    expect(nothing).toEqual([]);
  });

  // Caught a bug: code hits were filtered by manual and equipment only (native/engine.ts).
  it('applies the path and language filters to code hits too', async () => {
    const hits = value(await engine.search({ query: 'AL-01', k: 10, filters: { pathPrefix: 'servo/' } })).hits;
    expect(hits.every((h) => h.file.startsWith('servo/'))).toBe(true);
    const zh = value(await engine.search({ query: 'E08', k: 10, filters: { lang: ['zh'] } })).hits;
    expect(zh[0]?.kind).toBe('code');
    expect(zh.every((h) => h.lang === 'zh')).toBe(true);
  });

  it('searches the newest revision by default and older ones with allRevisions', async () => {
    const q = 'bleed the hydraulic circuit through the bleed valve';
    const current = value(await engine.search({ query: q, k: 10 })).hits;
    expect(files(current)).toContain('press-brake/hpb-200-rev-b.md');
    expect(files(current)).not.toContain('press-brake/hpb-200-rev-a.md');
    expect(current.some((h) => h.text.includes('bleed valve V3'))).toBe(false);

    const all = value(await engine.search({ query: q, k: 10, filters: { allRevisions: true } })).hits;
    expect(all.some((h) => h.file === 'press-brake/hpb-200-rev-a.md' && h.text.includes('bleed valve V3'))).toBe(true);
    expect(all.some((h) => h.file === 'press-brake/hpb-200-rev-b.md' && h.text.includes('bleed valve V7'))).toBe(true);

    const revA = value(await engine.search({ query: q, k: 10, filters: { revision: 'A' } })).hits;
    expect(new Set(files(revA))).toEqual(new Set(['press-brake/hpb-200-rev-a.md']));
  });

  it('does not answer a code from an older revision unless asked for all revisions', async () => {
    // AL-09 is defined only in the table of revision A, which revision B replaced.
    const def = value(await engine.search({ query: 'AL-09', k: 5 })).hits;
    expect(def.some((h) => h.file === 'press-brake/hpb-200-rev-a.md')).toBe(false);
    const all = value(await engine.search({ query: 'AL-09', k: 5, filters: { allRevisions: true } })).hits;
    expect(all[0]).toMatchObject({ kind: 'code', file: 'press-brake/hpb-200-rev-a.md' });
    const lookedUp = value(await engine.lookupCode({ text: 'AL-09', filters: { allRevisions: true } }));
    expect(lookedUp.matches.map((m) => m.file)).toEqual(['press-brake/hpb-200-rev-a.md']);
    const lookedUpDefault = value(await engine.lookupCode({ text: 'AL-09' }));
    expect(lookedUpDefault.matches).toEqual([]);
  });

  it('rejects empty queries and bad k with INVALID_INPUT', async () => {
    expect(failure(await engine.search({ query: '   ' })).code).toBe('INVALID_INPUT');
    expect(failure(await engine.search({ query: 'pump', k: 0 })).code).toBe('INVALID_INPUT');
    expect(failure(await engine.search({ query: 'pump', k: 1.5 })).code).toBe('INVALID_INPUT');
    expect(failure(await engine.lookupCode({ text: '' })).code).toBe('INVALID_INPUT');
  });
});

describe('files that give no searchable text', () => {
  it('are indexed, and the report names them so the technician can check them', async () => {
    const src = tempDir('notext');
    fs.writeFileSync(path.join(src, 'headings.md'), '# Hydraulic unit\n\n## Pump\n');
    fs.writeFileSync(path.join(src, 'empty-table.csv'), 'Code,Message,Remedy\n');
    fs.writeFileSync(path.join(src, 'pump.md'), '# Pump\n\nBleed the pump at screw B1 after a filter change.\n');
    const engine = await createEngine({ libraryDir: tempDir('notext-lib'), create: true, embedder: { kind: 'none' } });
    try {
      const r = value(await engine.ingest({ paths: [src] }));
      expect(r.skipped).toEqual([]);
      expect([...(r.withoutText ?? [])].sort()).toEqual(['empty-table.csv', 'headings.md']);
      expect(value(await engine.search({ query: 'bleed pump' })).hits[0]?.file).toBe('pump.md');
      const again = value(await engine.ingest({ paths: [src] }));
      expect(again.withoutText).toBeUndefined(); // unchanged files are not re-read
    } finally {
      await engine.close();
    }
  });
});

describe('files read with a problem', () => {
  it('are indexed as far as they can be read, and the report says what was left out and what to do', async () => {
    const src = tempDir('warned');
    fs.writeFileSync(path.join(src, 'interface.yaml'), 'errors:\n  - code: E7\n    text: Coolant pump overload.\n  - code: E8\n    text: Coolant level low.\nsettings:\n  pump: bool\n    doc: Enables the pump.\n');
    const engine = await createEngine({ libraryDir: tempDir('warned-lib'), create: true, embedder: { kind: 'none' } });
    try {
      const r = value(await engine.ingest({ paths: [src] }));
      expect(r.skipped).toEqual([]);
      expect(r.warnings).toEqual([{ file: 'interface.yaml', messages: [expect.stringMatching(/^Line 8 of this YAML file has a syntax error and was left out; the rest of the file was read\. Fix it/)] }]);
      expect(value(await engine.lookupCode({ text: 'E8' })).matches[0]?.title).toBe('Coolant level low.');
    } finally {
      await engine.close();
    }
  });
});

describe('incremental re-ingest and true deletes', () => {
  let lib: string;
  let corpus: string;
  let engine: Engine;
  /** What a delete left on disk, checked by the last tests. */
  const disk: { after: string; versions: { chunks: number; codes: number }; stillOnDisk: boolean }[] = [];

  beforeAll(async () => {
    lib = tempDir('incr');
    corpus = copyFixtures('incr-corpus');
    engine = await createEngine({ libraryDir: lib, create: true });
    value(await engine.ingest({ paths: [corpus] }));
  });
  afterAll(async () => {
    await engine?.close();
  });

  it('re-ingests nothing when nothing changed', async () => {
    const r = value(await engine.ingest({ paths: [corpus] }));
    expect(r).toMatchObject({ files: 0, chunks: 0, unchanged: FIXTURE_FILES.length, removed: 0, skipped: [] });
  });

  it('re-ingests only a changed file: its old text is gone, its new text is found', async () => {
    const before = value(await engine.info());
    const file = path.join(corpus, 'help', 'coolant-pump.html');
    const html = fs.readFileSync(file, 'utf8').replace(
      'A rattling noise like gravel in the housing means cavitation',
      'A squealing whistle from the housing means the impeller is rubbing the wear ring',
    );
    rewrite(file, html);
    const r = value(await engine.ingest({ paths: [corpus] }));
    expect(r.files).toBe(1);
    expect(r.unchanged).toBe(FIXTURE_FILES.length - 1);
    expect(r.removed).toBe(0);

    const oldHits = value(await engine.search({ query: 'rattling gravel cavitation', k: 10 })).hits;
    expect(oldHits.some((h) => h.text.includes('gravel'))).toBe(false);
    const newHits = value(await engine.search({ query: 'squealing whistle impeller wear ring', k: 5 })).hits;
    expect(newHits[0]?.file).toBe('help/coolant-pump.html');
    expect(newHits[0]?.text).toContain('impeller is rubbing');
    // Same number of passages: the old ones were replaced, not kept next to the new ones.
    const after = value(await engine.info());
    expect(after.chunks).toBe(before.chunks);
    expect(after.files).toBe(before.files);
  });

  it('answers a code from the new definition after its table changed (the lookup cache is invalidated)', async () => {
    const warm = value(await engine.lookupCode({ text: 'AL-03' }));
    expect(warm.matches[0]?.remedy).toContain('relief valve setting (210 bar)');
    const csv = fs.readdirSync(path.join(corpus, 'alarms')).find((f) => f.endsWith('.csv')) as string;
    const file = path.join(corpus, 'alarms', csv);
    rewrite(file, fs.readFileSync(file, 'utf8').replace('relief valve setting (210 bar)', 'relief valve setting (190 bar)'));
    expect(value(await engine.ingest({ paths: [corpus] })).files).toBe(1);
    const fresh = value(await engine.lookupCode({ text: 'AL-03' }));
    expect(fresh.matches).toHaveLength(1);
    expect(fresh.matches[0]?.remedy).toContain('(190 bar)');
    const hit = value(await engine.search({ query: 'AL-03', k: 3 })).hits[0];
    expect(hit?.kind).toBe('code');
    expect(hit?.text).toContain('(190 bar)');
  });

  it('re-ingests a manual when only its sidecar changed', async () => {
    const side = path.join(corpus, 'press-brake', 'hpb-200-rev-b.meta.yaml');
    rewrite(side, fs.readFileSync(side, 'utf8').replace('equipment: [HPB-200]', 'equipment: [HPB-200, HPB-250]'));
    const r = value(await engine.ingest({ paths: [corpus] }));
    expect(r.files).toBe(1);
    const m = value(await engine.listManuals()).find((x) => x.file === 'press-brake/hpb-200-rev-b.md');
    expect(m?.equipment).toEqual(['HPB-200', 'HPB-250']);
  });

  it('deletes a file removed from the folder: its text and codes are gone, from disk too', async () => {
    expect(lanceBytes(lib).includes('Light curtain interrupted')).toBe(true); // the probe can see stored text
    fs.rmSync(path.join(corpus, 'alarms', 'hpb-200-alarms.csv'));
    const r = value(await engine.ingest({ paths: [corpus] }));
    expect(r).toMatchObject({ files: 0, removed: 1, unchanged: FIXTURE_FILES.length - 1 });

    const hits = value(await engine.search({ query: 'light curtain interrupted', k: 10 })).hits;
    expect(files(hits)).not.toContain('alarms/hpb-200-alarms.csv');
    const code = value(await engine.lookupCode({ text: 'AL-01' }));
    expect(code.matches).toEqual([]);
    expect(value(await engine.search({ query: 'AL-01', k: 5 })).hits.some((h) => h.kind === 'code')).toBe(false);
    expect(value(await engine.listManuals()).map((m) => m.file)).not.toContain('alarms/hpb-200-alarms.csv');
    expect(value(await engine.info()).codes).toBe(14);

    await engine.close();
    disk.push({ after: 'folder delete', versions: await versionCounts(lib), stillOnDisk: lanceBytes(lib).includes('Light curtain interrupted') });
    engine = await createEngine({ libraryDir: lib });
  });

  it('removeFiles deletes for real and refuses names the library does not hold', async () => {
    const r = value(await engine.removeFiles(['servo/sd40-servo-drive.adoc']));
    expect(r.removed).toBe(1);
    expect(value(await engine.lookupCode({ text: 'F0023' })).matches).toEqual([]);
    const hits = value(await engine.search({ query: 'encoder signal lost', k: 10 })).hits;
    expect(files(hits)).not.toContain('servo/sd40-servo-drive.adoc');
    const err = failure(await engine.removeFiles(['servo/sd40-servo-drive.adoc']));
    expect(err.code).toBe('NOT_FOUND');
    expect(err.message).toContain('manualdesk list');

    await engine.close();
    disk.push({ after: 'removeFiles', versions: await versionCounts(lib), stillOnDisk: lanceBytes(lib).includes('Encoder signal lost') });
    engine = await createEngine({ libraryDir: lib });
    // Ingesting the folder again brings the removed file back (it is still on disk).
    const again = value(await engine.ingest({ paths: [corpus] }));
    expect(again.files).toBe(1);
    expect(value(await engine.lookupCode({ text: 'F0023' })).matches).toHaveLength(1);
  });

  it('chunks table: old versions pruned after each delete', () => {
    expect(disk.map((d) => d.versions.chunks)).toEqual([1, 1]);
  });

  // Caught a bug (fixed in 4e015db): compact() built cleanupOlderThan once, before the chunks table was
  // optimised; LanceDB reads the Date as "older than (now − date)", so the codes table kept its
  // pre-compaction version, with the deleted rows still on disk.
  it('codes table: old versions pruned, deleted rows gone from disk', () => {
    expect(disk.map((d) => d.versions.codes)).toEqual([1, 1]);
    expect(disk.map((d) => d.stillOnDisk)).toEqual([false, false]);
  });
});

describe('unreadable files, locks and read-only engines', () => {
  it('reports an unreadable file in skipped with a reason and ingests the rest', async () => {
    const corpus = tempDir('bad');
    fs.writeFileSync(path.join(corpus, 'good.md'), '# Good manual\n\nReplace the drive belt every 500 hours.\n');
    fs.writeFileSync(path.join(corpus, 'corrupt.pdf'), '%PDF-1.7\nthis is not really a pdf\n%%EOF\n');
    fs.writeFileSync(path.join(corpus, 'not-a-zip.docx'), 'plain text pretending to be a Word file');
    const engine = await createEngine({ libraryDir: path.join(tempDir('bad-lib'), 'lib'), create: true });
    try {
      const r = value(await engine.ingest({ paths: [corpus] }));
      expect(r.files).toBe(1);
      expect(r.skipped.map((s) => s.file).sort()).toEqual(['corrupt.pdf', 'not-a-zip.docx']);
      for (const s of r.skipped) {
        expect(s.reason.length).toBeGreaterThan(10);
        expect(s.reason).not.toMatch(/^Unexpected error/);
      }
      const hit = value(await engine.search({ query: 'drive belt', k: 3 })).hits[0];
      expect(hit?.file).toBe('good.md');
      // A second run tries the bad files again (they were never recorded) and still skips them.
      const again = value(await engine.ingest({ paths: [corpus] }));
      expect(again).toMatchObject({ files: 0, unchanged: 1 });
      expect(again.skipped).toHaveLength(2);
    } finally {
      await engine.close();
    }
  });

  it('reports a missing path in skipped and a missing library as LIBRARY_NOT_FOUND', async () => {
    const dir = tempDir('missing');
    const reader = await createEngine({ libraryDir: path.join(dir, 'nope'), readOnly: true });
    const err = failure(await reader.search({ query: 'pump' }));
    expect(err.code).toBe('LIBRARY_NOT_FOUND');
    expect(err.message).toContain('manualdesk ingest');
    await reader.close();
    expect(fs.existsSync(path.join(dir, 'nope'))).toBe(false);

    const writer = await createEngine({ libraryDir: path.join(dir, 'lib'), create: true });
    try {
      const r = value(await writer.ingest({ paths: [path.join(dir, 'no-such-folder')] }));
      expect(r.files).toBe(0);
      expect(r.skipped).toHaveLength(1);
      expect(r.skipped[0]?.reason).toMatch(/^Not found/);
    } finally {
      await writer.close();
    }
  });

  it('lets one writer in; a second writer gets LIBRARY_LOCKED; readers search meanwhile', async () => {
    const lib = path.join(tempDir('lock'), 'lib');
    const corpus = tempDir('lock-corpus');
    fs.writeFileSync(path.join(corpus, 'a.md'), '# Gearbox\n\nCheck the gearbox oil level every week.\n');
    const writer = await createEngine({ libraryDir: lib, create: true });
    try {
      value(await writer.ingest({ paths: [corpus] }));
      // The writer still holds the library open.
      const second = await createEngine({ libraryDir: lib });
      const err = failure(await second.ingest({ paths: [corpus] }));
      expect(err.code).toBe('LIBRARY_LOCKED');
      expect(err.message).toMatch(/in use/);
      await second.close();

      const reader = await createEngine({ libraryDir: lib, readOnly: true });
      const hit = value(await reader.search({ query: 'gearbox oil', k: 1 })).hits[0];
      expect(hit?.file).toBe('a.md');
      const ro = failure(await reader.removeFiles(['a.md']));
      expect(ro.code).toBe('LIBRARY_READ_ONLY');
      expect(ro.message).toMatch(/read-only/);
      await reader.close();
    } finally {
      await writer.close();
    }
    // Closed: the lock is released and a new writer may open.
    expect(fs.existsSync(path.join(lib, LOCK_FILE))).toBe(false);
    const next = await createEngine({ libraryDir: lib });
    expect(value(await next.ingest({ paths: [corpus] })).unchanged).toBe(1);
    await next.close();
  });

  it('refuses a library locked by another live process, and takes over a stale lock', async () => {
    const lib = path.join(tempDir('lock2'), 'lib');
    const corpus = tempDir('lock2-corpus');
    fs.writeFileSync(path.join(corpus, 'a.md'), '# Chain\n\nLubricate the drive chain.\n');
    const first = await createEngine({ libraryDir: lib, create: true });
    value(await first.ingest({ paths: [corpus] }));
    await first.close();

    // The parent of this test worker is alive: a lock naming it belongs to a running program.
    fs.writeFileSync(path.join(lib, LOCK_FILE), JSON.stringify({ pid: process.ppid, host: hostname(), at: new Date().toISOString() }));
    const blocked = await createEngine({ libraryDir: lib });
    const err = failure(await blocked.ingest({ paths: [corpus] }));
    expect(err.code).toBe('LIBRARY_LOCKED');
    expect(err.message).toContain(`pid ${process.ppid}`);
    await blocked.close();
    // Readers are not blocked by a writer.
    const reader = await createEngine({ libraryDir: lib, readOnly: true });
    expect(value(await reader.search({ query: 'drive chain', k: 1 })).hits[0]?.file).toBe('a.md');
    await reader.close();

    // A lock left by a process that no longer runs is taken over.
    fs.writeFileSync(path.join(lib, LOCK_FILE), JSON.stringify({ pid: 2 ** 22 + 12345, host: hostname(), at: '' }));
    const taker = await createEngine({ libraryDir: lib });
    expect(value(await taker.ingest({ paths: [corpus] })).unchanged).toBe(1);
    await taker.close();
  });
});
