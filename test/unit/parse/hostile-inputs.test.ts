/** Parse-stage defences found by the bad-input suite (test/reliability/bad-inputs.test.ts). */
import iconv from 'iconv-lite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EngineError } from '../../../native/contract/index.js';
import { decodeText, parseFile } from '../../../native/parse/index.js';
import { MAX_CSV_COLUMNS, parseCsv, widestLine } from '../../../native/parse/formats/csv.js';
import { MAX_HTML_DEPTH, htmlNestingDepth, parseHtml } from '../../../native/parse/formats/html.js';
import { tempDir } from './helpers.js';

let tmp: Awaited<ReturnType<typeof tempDir>>;
beforeAll(async () => {
  tmp = await tempDir();
});
afterAll(async () => {
  await tmp.cleanup();
});

async function rejection(p: Promise<unknown>): Promise<EngineError> {
  const err = await p.then(
    () => expect.fail('expected a rejection'),
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(EngineError);
  return err as EngineError;
}

describe('empty files', () => {
  it.each(['empty.md', 'empty.csv', 'empty.pdf', 'empty.html'])('%s is FILE_UNREADABLE, saying it is empty and what to do', async (name) => {
    const err = await rejection(parseFile(await tmp.file(name, '')));
    expect(err.code).toBe('FILE_UNREADABLE');
    expect(err.message).toMatch(/empty \(0 bytes\).*copy it again/);
  });
});

describe('parseFile with the bytes given', () => {
  it('parses the bytes passed in, not what is on disk now (ingest hashes and parses one read)', async () => {
    const p = await tmp.file('given.md', '# On disk\n\nDisk text.\n');
    const doc = await parseFile(p, { data: Buffer.from('# Given\n\nThe bytes that were hashed.\n') });
    expect(doc.blocks.map((b) => b.text).join(' ')).toContain('bytes that were hashed');
    expect(doc.blocks.map((b) => b.text).join(' ')).not.toContain('Disk text');
  });
});

describe('deeply nested HTML', () => {
  it('counts nesting on the raw text, ignoring void and optional-end elements', () => {
    expect(htmlNestingDepth('<html><body><div><p>a<p>b<br><img src=x><li>c</div></body></html>')).toBe(3);
    expect(htmlNestingDepth(`${'<div>'.repeat(50)}${'</div>'.repeat(50)}<div></div>`)).toBe(50);
    expect(htmlNestingDepth('<div/><span a="<b>">x</span>')).toBeGreaterThanOrEqual(1);
  });

  it('refuses 100,000 levels fast with FILE_UNREADABLE and a next step', () => {
    const t0 = performance.now();
    let err: unknown;
    try {
      parseHtml({ text: `<html><body>${'<div>'.repeat(100_000)}x${'</div>'.repeat(100_000)}</body></html>`, fileStem: 'deep' });
    } catch (e) {
      err = e;
    }
    expect(performance.now() - t0).toBeLessThan(3000);
    expect(err).toBeInstanceOf(EngineError);
    expect((err as EngineError).code).toBe('FILE_UNREADABLE');
    expect((err as EngineError).message).toMatch(/levels deep.*save or print it as PDF/);
  });

  it(`reads a page nested ${MAX_HTML_DEPTH} levels deep`, () => {
    const doc = parseHtml({ text: `<html><body>${'<div>'.repeat(MAX_HTML_DEPTH - 2)}Deep but fine${'</div>'.repeat(MAX_HTML_DEPTH - 2)}</body></html>`, fileStem: 'ok' });
    expect(doc.blocks.map((b) => b.text)).toContain('Deep but fine');
  });
});

describe('CSV limits', () => {
  it('widestLine counts the cells of the widest line', () => {
    expect(widestLine('a,b\nc,d,e,f\ng', ',')).toBe(4);
    expect(widestLine('', ',')).toBe(1);
  });

  it(`refuses more than ${MAX_CSV_COLUMNS} columns with FILE_UNREADABLE, before csv-parse`, () => {
    const wide = Array.from({ length: 200_000 }, (_, i) => `c${i}`).join(',');
    const t0 = performance.now();
    expect(() => parseCsv({ text: `${wide}\n${wide}\n`, fileStem: 'wide' })).toThrow(/200,000 columns/);
    expect(performance.now() - t0).toBeLessThan(3000);
  });

  it('reads a file whose last quote is never closed without quoting, with a warning, keeping its rows', () => {
    const doc = parseCsv({ text: 'code,text\nE1,Pump low\nE2,"Belt slip\nE3,Fan\n', fileStem: 'q' });
    expect(doc.blocks.filter((b) => b.kind === 'table-row')).toHaveLength(3);
    expect(doc.warnings.join(' ')).toMatch(/never closed/);
  });
});

describe('mixed encodings', () => {
  const utf8 = '液压泵手册：检查液压泵的压力。';
  const gb = '更换密封圈';

  it('reads UTF-8 text with a GB18030 passage: both parts come out right', () => {
    const buf = Buffer.concat([Buffer.from(`${utf8}\n`), iconv.encode(gb, 'gb18030'), Buffer.from(' after 500 hours.\n')]);
    const r = decodeText(buf);
    expect(r.text).toBe(`${utf8}\n${gb} after 500 hours.\n`);
    expect(r.encoding).toBe('utf-8+gb18030');
  });

  it('leaves files that are all GB18030, or Latin with stray bytes, to the whole-file guess', () => {
    const all = decodeText(iconv.encode(`${utf8}${gb}警告：请先断开电源，然后再打开机箱。`, 'gb18030'));
    expect(all.encoding).toBe('gb18030');
    expect(all.text).toContain(gb);
    const latin = decodeText(Buffer.concat([Buffer.from('Relief valve at 200 bar '), Buffer.from([0xff, 0xfe, 0xe9]), Buffer.from(' end')]));
    expect(latin.encoding).not.toMatch(/^utf-8/);
    expect(latin.text).toContain('Relief valve at 200 bar');
  });
});
