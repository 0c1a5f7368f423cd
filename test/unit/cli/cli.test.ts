/**
 * The manualdesk CLI through runCli with in-memory streams: JSON shapes, batch mode, exit codes
 * (0 ok, 1 failed, 2 usage) and error output. The library is built from test/fixtures/manuals.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCliCaptured } from './run-cli.js';

const FIXTURES = fileURLToPath(new URL('../../fixtures/manuals', import.meta.url));

interface Run {
  code: number;
  out: string;
  err: string;
  /** stdout parsed as JSON lines. */
  lines: unknown[];
}

async function cli(argv: string[], stdinLines: string[] = []): Promise<Run> {
  const { code, out, err } = await runCliCaptured(argv, stdinLines);
  const lines = out
    .split('\n')
    .filter((l) => /^[[{]/.test(l.trim()))
    .map((l) => JSON.parse(l) as unknown);
  return { code, out, err, lines };
}

let tmp: string;
let lib: string;
let ingest: Run;

beforeAll(async () => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'md-cli-'));
  lib = path.join(tmp, 'lib');
  ingest = await cli(['ingest', FIXTURES, '--library', lib, '--json']);
});
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

describe('manualdesk ingest', () => {
  it('--json prints exactly the report fields', () => {
    expect(ingest.code).toBe(0);
    expect(ingest.err).toBe('');
    expect(ingest.lines).toHaveLength(1);
    const r = ingest.lines[0] as Record<string, unknown>;
    expect(Object.keys(r).sort()).toEqual(['chunks', 'files', 'pagesNeedingOcr', 'removed', 'seconds', 'skipped', 'unchanged']);
    expect(r).toMatchObject({ files: 11, unchanged: 0, removed: 0, skipped: [], pagesNeedingOcr: [] });
    expect(r.chunks).toEqual(expect.any(Number));
    expect(r.chunks as number).toBeGreaterThan(11);
    expect(r.seconds).toEqual(expect.any(Number));
  });

  it('prints a human summary without --json and counts unchanged files', async () => {
    const r = await cli(['ingest', FIXTURES, '--library', lib]);
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/^Indexed 0 file\(s\), 0 passage\(s\) in [\d.]+ s; 11 unchanged, 0 removed\.\n$/);
  });

  it('lists a missing path as skipped, still exit 0', async () => {
    const r = await cli(['ingest', path.join(tmp, 'no-such-dir'), '--library', lib, '--json']);
    expect(r.code).toBe(0);
    const rep = r.lines[0] as { files: number; skipped: { file: string; reason: string }[] };
    expect(rep.files).toBe(0);
    expect(rep.skipped).toHaveLength(1);
    expect(rep.skipped[0]?.reason).toMatch(/Not found/);
  });

  it('rejects an unknown --embedder as a usage error', async () => {
    const r = await cli(['ingest', FIXTURES, '--library', lib, '--embedder', 'gpt']);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/Unknown --embedder "gpt"/);
    expect(r.out).toBe('');
  });
});

describe('manualdesk search', () => {
  it('--json prints {query, hits:[{file,page,section,text,score,kind,…}], ms, mode}', async () => {
    const r = await cli(['search', 'how do I change the hydraulic oil', '--library', lib, '--json', '--k', '3']);
    expect(r.code).toBe(0);
    expect(r.lines).toHaveLength(1);
    const res = r.lines[0] as { query: string; hits: Record<string, unknown>[]; ms: number; mode: string };
    expect(Object.keys(res).sort()).toEqual(['hits', 'mode', 'ms', 'query']);
    expect(res.query).toBe('how do I change the hydraulic oil');
    expect(res.mode).toBe('keyword');
    expect(res.ms).toEqual(expect.any(Number));
    expect(res.hits.length).toBeGreaterThan(0);
    expect(res.hits.length).toBeLessThanOrEqual(3);
    for (const h of res.hits) {
      expect(Object.keys(h).sort()).toEqual(['chunkId', 'file', 'kind', 'lang', 'manual', 'page', 'score', 'section', 'text']);
      expect(['passage', 'table-row', 'code']).toContain(h.kind);
    }
    expect(res.hits[0]).toMatchObject({ file: 'press-brake/hpb-200-rev-b.md', page: null, kind: 'passage' });
    expect(res.hits[0]?.section).toMatch(/Changing the hydraulic oil$/);
  });

  it('passes filters through (--path, --lang, --manual, --all-revisions)', async () => {
    const byPath = (await cli(['search', 'pump', '--library', lib, '--json', '--path', 'help/'])).lines[0] as { hits: { file: string }[] };
    expect(byPath.hits.length).toBeGreaterThan(0);
    expect(byPath.hits.every((h) => h.file.startsWith('help/'))).toBe(true);

    const zh = (await cli(['search', '液压油', '--library', lib, '--json', '--lang', 'zh'])).lines[0] as { hits: { lang: string }[] };
    expect(zh.hits.length).toBeGreaterThan(0);
    expect(zh.hits.every((h) => h.lang === 'zh')).toBe(true);

    const manual = (await cli(['search', 'motor', '--library', lib, '--json', '--manual', 'Fictional SD-40 Servo Drive Manual'])).lines[0] as {
      hits: { file: string }[];
    };
    expect(new Set(manual.hits.map((h) => h.file))).toEqual(new Set(['servo/sd40-servo-drive.adoc']));

    const q = 'bleed valve V3';
    const current = (await cli(['search', q, '--library', lib, '--json'])).lines[0] as { hits: { file: string }[] };
    expect(current.hits.map((h) => h.file)).not.toContain('press-brake/hpb-200-rev-a.md');
    const all = (await cli(['search', q, '--library', lib, '--json', '--all-revisions'])).lines[0] as { hits: { file: string }[] };
    expect(all.hits.map((h) => h.file)).toContain('press-brake/hpb-200-rev-a.md');
  });

  it('prints numbered human results, code first, with the mode', async () => {
    const r = await cli(['search', 'F0031', '--library', lib, '--k', '2']);
    expect(r.code).toBe(0);
    const lines = r.out.split('\n');
    expect(lines[0]).toMatch(/^1\. \[code\] servo\/sd40-servo-drive\.adoc — .*Fault Codes$/);
    expect(r.out).toContain('Encoder signal lost');
    expect(r.out).toMatch(/\(\d+ results, [\d.]+ ms, keyword\)\n$/);
  });

  it('--batch - reads JSON lines from stdin and writes one result line per query, with its id', async () => {
    const input = [
      JSON.stringify({ id: 'q1', query: 'AL-02' }),
      '',
      JSON.stringify({ id: 7, query: 'coolant pump priming' }),
      JSON.stringify({ id: 'zh', query: '后挡料校准' }),
    ];
    const r = await cli(['search', '--batch', '-', '--library', lib, '--k', '2'], input);
    expect(r.code).toBe(0);
    expect(r.lines).toHaveLength(3);
    const [a, b, c] = r.lines as { id: unknown; query: string; hits: { file: string; kind: string }[] }[];
    expect(a).toMatchObject({ id: 'q1', query: 'AL-02' });
    expect(a?.hits[0]).toMatchObject({ kind: 'code', file: 'alarms/hpb-200-alarms.csv' });
    expect(b).toMatchObject({ id: 7, query: 'coolant pump priming' });
    expect(b?.hits[0]?.file).toBe('help/coolant-pump.html');
    expect(c?.id).toBe('zh');
    expect(c?.hits[0]?.file).toBe('zh/hpb-200-zh.md');
    for (const l of r.lines as { hits: unknown[] }[]) expect(l.hits.length).toBeLessThanOrEqual(2);
  });

  it('--batch reports a bad line and an empty query in place, and exits 1', async () => {
    const input = ['{not json', JSON.stringify({ id: 'empty', query: '  ' }), JSON.stringify({ id: 'ok', query: 'belt slip' })];
    const r = await cli(['search', '--batch', '-', '--library', lib], input);
    expect(r.code).toBe(1);
    expect(r.lines).toHaveLength(3);
    expect(r.lines[0]).toMatchObject({ id: null, line: 1, error: { code: 'INVALID_INPUT' } });
    expect(r.lines[1]).toMatchObject({ id: 'empty', error: { code: 'INVALID_INPUT' } });
    expect((r.lines[2] as { id: string; hits: { file: string }[] }).hits[0]?.file).toBe('conveyor/belt-conveyor-errors.yaml');
  });

  it('--batch <file> reads a file; a missing batch file is a usage error', async () => {
    const file = path.join(tmp, 'batch.jsonl');
    fs.writeFileSync(file, `${JSON.stringify({ id: 'f', query: 'E-102' })}\n`);
    const ok = await cli(['search', '--batch', file, '--library', lib]);
    expect(ok.code).toBe(0);
    const line = ok.lines[0] as { id: string; hits: { kind: string; file: string }[] };
    expect(line.id).toBe('f');
    expect(line.hits[0]).toMatchObject({ kind: 'code', file: 'conveyor/belt-conveyor-errors.yaml' });
    const missing = await cli(['search', '--batch', path.join(tmp, 'nope.jsonl'), '--library', lib]);
    expect(missing.code).toBe(2);
    expect(missing.err).toMatch(/Batch file not found/);
  });
});

describe('manualdesk code', () => {
  it('--json prints the lookup with cause, remedy and source', async () => {
    const r = await cli(['code', 'al 3', '--library', lib, '--json']);
    expect(r.code).toBe(0);
    const res = r.lines[0] as { query: string; detected: string[]; matches: Record<string, unknown>[]; nearest: unknown[]; ms: number };
    expect(Object.keys(res).sort()).toEqual(['detected', 'matches', 'ms', 'nearest', 'query', 'typed']);
    expect(res.detected).toEqual(['alarm:3']);
    expect(res.matches).toHaveLength(1);
    expect(res.matches[0]).toMatchObject({
      code: 'AL-03',
      title: 'Hydraulic pressure low',
      file: 'alarms/hpb-200-alarms.csv',
      page: null,
    });
    expect(res.matches[0]?.remedy).toContain('210 bar');
  });

  it('prints cause and remedy for people, and the nearest codes for an unknown one', async () => {
    const known = await cli(['code', 'E-205', '--library', lib]);
    expect(known.code).toBe(0);
    expect(known.out).toContain('E-205 — Gear motor overload');
    expect(known.out).toContain('Cause: Motor current above 130 %');
    expect(known.out).toContain('Remedy: Clear the jam');
    const unknown = await cli(['code', 'E-206', '--library', lib]);
    expect(unknown.code).toBe(0);
    expect(unknown.out).toMatch(/E-206: not defined in the installed manuals\./);
    expect(unknown.out).toContain('E-205 (Gear motor overload');
    const none = await cli(['code', 'the pump is noisy', '--library', lib]);
    expect(none.out).toBe('No fault code recognised in "the pump is noisy".\n');
  });

  it('--batch - answers each line with its id', async () => {
    const r = await cli(['code', '--batch', '-', '--library', lib], [JSON.stringify({ id: 'a', query: 'F0050' }), JSON.stringify({ id: 'b', query: '错误 8' })]);
    expect(r.code).toBe(0);
    expect(r.lines).toHaveLength(2);
    expect(r.lines[0]).toMatchObject({ id: 'a', matches: [{ code: 'F0050', title: 'Ground fault' }] });
    const b = r.lines[1] as { id: string; matches: { lang: string; file: string }[] };
    expect(b.id).toBe('b');
    expect(b.matches.map((m) => m.lang)).toEqual(['zh', 'en']);
  });
});

describe('list, info and remove', () => {
  it('list --json and info --json', async () => {
    const list = await cli(['list', '--library', lib, '--json']);
    expect(list.code).toBe(0);
    const manuals = list.lines[0] as { file: string; current: boolean }[];
    expect(manuals).toHaveLength(11);
    expect(manuals.filter((m) => !m.current).map((m) => m.file)).toEqual(['press-brake/hpb-200-rev-a.md']);
    const info = await cli(['info', '--library', lib, '--json']);
    expect(info.lines[0]).toMatchObject({ dir: lib, files: 11, codes: 19, embedder: null });
    const human = await cli(['list', '--library', lib]);
    expect(human.out).toMatch(/press-brake\/hpb-200-rev-a\.md {2}"Fictional HPB-200 Press Brake Operator Manual" rev A \(older revision\)/);
  });

  it('remove of a file the library does not hold fails with NOT_FOUND (exit 1)', async () => {
    const r = await cli(['remove', 'nope.md', '--library', lib, '--json']);
    expect(r.code).toBe(1);
    expect(r.lines[0]).toMatchObject({ ok: false, error: { code: 'NOT_FOUND' } });
    expect(r.err).toMatch(/^manualdesk: Not in the library: nope\.md\..*\(NOT_FOUND\)\n$/);
  });

  it('remove deletes a file for real', async () => {
    const copy = path.join(tmp, 'lib-copy');
    const ing = await cli(['ingest', path.join(FIXTURES, 'conveyor'), '--library', copy, '--json']);
    expect(ing.lines[0]).toMatchObject({ files: 1 });
    const r = await cli(['remove', 'belt-conveyor-errors.yaml', '--library', copy]);
    expect(r.code).toBe(0);
    expect(r.out).toBe('Removed 1 file(s).\n');
    const code = await cli(['code', 'E-101', '--library', copy, '--json']);
    expect((code.lines[0] as { matches: unknown[] }).matches).toEqual([]);
  });
});

describe('exit codes and errors', () => {
  it.each([
    [['search', '--library', 'x']],
    [['search', '   ', '--library', 'x']],
    [['search', 'pump', '--k', 'abc', '--library', 'x']],
    [['search', 'pump', '--k', '0', '--library', 'x']],
    [['search', 'pump', '--k', '201', '--library', 'x']],
    [['search', 'pump', '--mode', 'fuzzy', '--library', 'x']],
    [['code', '--library', 'x']],
    [['frobnicate']],
    [['search', 'pump', '--no-such-option']],
    [['ingest']],
  ])('usage error %j → exit 2 with a message on stderr', async (argv) => {
    const r = await cli(argv);
    expect(r.code).toBe(2);
    expect(r.err.length).toBeGreaterThan(10);
    expect(r.out).toBe('');
  });

  it('--help exits 0 and lists the commands', async () => {
    const r = await cli(['--help']);
    expect(r.code).toBe(0);
    for (const c of ['ingest', 'search', 'code', 'list', 'info', 'remove']) expect(r.out).toContain(c);
  });

  it('a missing library → exit 1, message on stderr, {"ok":false,"error"} on stdout with --json', async () => {
    const missing = path.join(tmp, 'no-library');
    const json = await cli(['search', 'pump', '--library', missing, '--json']);
    expect(json.code).toBe(1);
    expect(json.lines).toEqual([{ ok: false, error: { code: 'LIBRARY_NOT_FOUND', message: expect.stringContaining('manualdesk ingest') } }]);
    expect(json.err).toMatch(/^manualdesk: No ManualDesk library at .*\(LIBRARY_NOT_FOUND\)\n$/);

    const human = await cli(['code', 'AL-01', '--library', missing]);
    expect(human.code).toBe(1);
    expect(human.out).toBe('');
    expect(human.err).toContain('LIBRARY_NOT_FOUND');
    for (const cmd of ['list', 'info']) {
      const r = await cli([cmd, '--library', missing, '--json']);
      expect(r.code).toBe(1);
      expect(r.lines[0]).toMatchObject({ ok: false, error: { code: 'LIBRARY_NOT_FOUND' } });
    }
    // A read must never create the library folder.
    expect(fs.existsSync(missing)).toBe(false);
  });

  it('an engine error during search (bad query length) → exit 1 with INVALID_INPUT', async () => {
    const r = await cli(['search', 'x'.repeat(2500), '--library', lib, '--json']);
    expect(r.code).toBe(1);
    expect(r.lines[0]).toMatchObject({ ok: false, error: { code: 'INVALID_INPUT' } });
  });
});
