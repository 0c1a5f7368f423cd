import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EngineError } from '../../../native/contract/index.js';
import {
  SUPPORTED_EXTENSIONS,
  isSupportedFile,
  parseFile,
  readSidecar,
  resolveManualMeta,
  validateSidecar,
} from '../../../native/parse/index.js';
import { FIXTURES, makePdf, tempDir } from './helpers.js';

let tmp: Awaited<ReturnType<typeof tempDir>>;
beforeAll(async () => {
  tmp = await tempDir();
});
afterAll(async () => {
  await tmp.cleanup();
});

describe('isSupportedFile', () => {
  it('accepts known extensions case-insensitively and rejects sidecars and unknown types', () => {
    expect(SUPPORTED_EXTENSIONS).toEqual(expect.arrayContaining(['.pdf', '.md', '.adoc', '.rst', '.html', '.txt', '.docx', '.csv', '.yaml', '.json', '.properties', '.xlsx']));
    expect(isSupportedFile('/m/Manual.PDF')).toBe(true);
    expect(isSupportedFile('/m/errors.yml')).toBe(true);
    expect(isSupportedFile('/m/manual.pdf.meta.yaml')).toBe(false);
    expect(isSupportedFile('/m/manual.meta.json')).toBe(false);
    expect(isSupportedFile('/m/photo.jpg')).toBe(false);
    expect(isSupportedFile('/m/README')).toBe(false);
  });
});

describe('parseFile errors', () => {
  it('UNSUPPORTED_FORMAT for unknown extensions, with advice', async () => {
    const p = await tmp.file('old.doc', 'x');
    const err = await parseFile(p).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(EngineError);
    expect(err).toMatchObject({ code: 'UNSUPPORTED_FORMAT', message: expect.stringMatching(/\.docx/) });
    await expect(parseFile(await tmp.file('pic.png', 'x'))).rejects.toMatchObject({ code: 'UNSUPPORTED_FORMAT' });
  });

  it('FILE_UNREADABLE for missing, corrupt and binary files', async () => {
    await expect(parseFile(join(tmp.dir, 'missing.md'))).rejects.toMatchObject({ code: 'FILE_UNREADABLE', message: expect.stringMatching(/does not exist/) });
    await expect(parseFile(await tmp.file('fake.pdf', 'just some words'))).rejects.toMatchObject({ code: 'FILE_UNREADABLE', message: expect.stringMatching(/not a valid PDF/) });
    await expect(parseFile(await tmp.file('fake.docx', Buffer.from('PK\u0003\u0004garbage-not-a-zip', 'latin1')))).rejects.toMatchObject({ code: 'FILE_UNREADABLE' });
    await expect(parseFile(await tmp.file('fake.xlsx', Buffer.from('PK\u0003\u0004garbage', 'latin1')))).rejects.toMatchObject({ code: 'FILE_UNREADABLE' });
    await expect(parseFile(await tmp.file('bin.txt', Buffer.from([0x00, 0x01, 0x02, 0x03, 0x00, 0x9f, 0x00, 0x00, 0xff, 0x10])))).rejects.toMatchObject({ code: 'FILE_UNREADABLE' });
    await mkdir(join(tmp.dir, 'folder.md'));
    await expect(parseFile(join(tmp.dir, 'folder.md'))).rejects.toMatchObject({ code: 'FILE_UNREADABLE', message: expect.stringMatching(/is a folder/) });
  });

  it('sniffs content where the extension lies', async () => {
    const pdf = makePdf([[{ text: 'Hidden PDF text on the first page.', x: 72, y: 700 }]]);
    const doc = await parseFile(await tmp.file('really-a-pdf.txt', pdf));
    expect(doc.format).toBe('pdf');
    expect(doc.blocks[0]?.text).toBe('Hidden PDF text on the first page.');
    expect(doc.warnings.join(' ')).toMatch(/contains PDF/);
    const html = await parseFile(await tmp.file('page.txt', '<!DOCTYPE html><html><body><h1>Title</h1></body></html>'));
    expect(html.format).toBe('html');
  });

  it('treats a sidecar passed as a manual as unsupported', async () => {
    await expect(parseFile(await tmp.file('x.pdf.meta.yaml', 'title: X'))).rejects.toMatchObject({ code: 'UNSUPPORTED_FORMAT' });
  });

  it('honours an aborted signal', async () => {
    const ac = new AbortController();
    ac.abort();
    await expect(parseFile(join(FIXTURES, 'spindle.adoc'), { signal: ac.signal })).rejects.toMatchObject({ name: 'AbortError' });
  });
});

describe('sidecar', () => {
  it('reads <file>.meta.yaml next to the manual and normalises fields', async () => {
    const manual = await tmp.file('pump.pdf', 'x');
    await tmp.file('pump.pdf.meta.yaml', 'title: Pump P-1 Manual\nequipment: P-1\nrevision: 2.1\nlanguage: zh-CN\npublisher: ACME\nid: acme/pump-p1\n');
    expect(await readSidecar(manual)).toEqual({
      title: 'Pump P-1 Manual',
      equipment: ['P-1'],
      revision: '2.1',
      language: 'zh',
      publisher: 'ACME',
      id: 'acme/pump-p1',
    });
  });

  it('also finds <stem>.meta.json and returns null when there is none', async () => {
    const manual = await tmp.file('valve.md', '# V');
    await tmp.file('valve.meta.json', JSON.stringify({ equipment: ['V-2', 'V-3'] }));
    expect(await readSidecar(manual)).toEqual({ equipment: ['V-2', 'V-3'] });
    expect(await readSidecar(await tmp.file('lonely.md', '# L'))).toBeNull();
  });

  it('rejects unknown fields, bad languages and broken YAML with INVALID_INPUT naming the problem', () => {
    expect(() => validateSidecar('titel: X\n', '/m/a.pdf.meta.yaml')).toThrow(/unknown field\(s\) "titel"/);
    expect(() => validateSidecar('language: fr\n', '/m/a.pdf.meta.yaml')).toThrow(/"language" must be "en" or "zh"/);
    expect(() => validateSidecar('equipment: [1, {a: 2}]\n', '/m/a.pdf.meta.yaml')).toThrow(/equipment/);
    expect(() => validateSidecar('title: [unclosed\n', '/m/a.pdf.meta.yaml')).toThrow(/not valid YAML/);
    expect(() => validateSidecar('{"id": "has space"}', '/m/a.meta.json')).toThrow(/"id"/);
    try {
      validateSidecar('title: ""\n', '/m/a.pdf.meta.yaml');
      expect.unreachable();
    } catch (e) {
      expect(e).toMatchObject({ code: 'INVALID_INPUT', message: expect.stringContaining('/m/a.pdf.meta.yaml') });
    }
  });

  it('resolveManualMeta prefers sidecar, then document, then file name', () => {
    const doc = { meta: { title: 'Doc Title', language: 'en' as const } };
    expect(resolveManualMeta(doc, { title: 'Side' }, '/m/x.pdf')).toEqual({ title: 'Side', equipment: [], revision: null, language: 'en', publisher: null });
    expect(resolveManualMeta({ meta: {} }, null, '/m/pump_manual-v2.pdf').title).toBe('Pump manual v2');
  });
});
