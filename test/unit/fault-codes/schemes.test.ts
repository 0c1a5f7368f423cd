import { mkdtemp, rm, writeFile, copyFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import type { CodeRecord } from '../../../native/contract/document.js';
import { extractCodes } from '../../../native/fault-codes/extract.js';
import {
  applySchemes,
  learnSchemes,
  parseSchemeFile,
  readSchemeFile,
  schemeAliases,
  SCHEME_FILE_NAME,
  type CodeScheme,
} from '../../../native/fault-codes/schemes.js';
import { doc, heading, para, schemeReadme, yamlErrors } from '../../fixtures/fault-codes/docs.js';

const fixtures = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../fixtures/fault-codes');
const ctx = { file: 'vendor/yaml/errors.yaml', manual: 'errors.yaml', equipment: [] as string[] };

describe('learnSchemes', () => {
  it('learns a template, its placeholder and the prefix list from a declaring document', () => {
    const [s, ...rest] = learnSchemes(schemeReadme);
    expect(rest).toEqual([]);
    expect(s).toEqual({
      template: 'XXYZZ',
      placeholder: 'XX',
      prefixes: [
        { prefix: '05', names: ['FEEDER', 'Feeder unit'] },
        { prefix: '21', names: ['ALPHA', 'Alpha printer'] },
        { prefix: '22', names: ['BETA', 'Beta printer'] },
      ],
    });
  });

  it('learns nothing from documents that do not declare a scheme', () => {
    expect(learnSchemes(yamlErrors)).toEqual([]);
    // A template-looking word without the placeholder explained, and an MMU-like word.
    const d = doc([heading('Setup', 1), para('Use the SSID field and the MMU.'), para('12 MINI - small', [], 'list-item'), para('13 MK - big', [], 'list-item')]);
    expect(learnSchemes(d)).toEqual([]);
  });
});

describe('scheme mapping file', () => {
  let dir = '';
  afterEach(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
    dir = '';
  });

  it('parses the documented format, padding unquoted numbers', async () => {
    const text = await import('node:fs/promises').then((fs) => fs.readFile(path.join(fixtures, SCHEME_FILE_NAME), 'utf8'));
    const s = parseSchemeFile(text);
    expect(s.template).toBe('XXyzz');
    expect(s.placeholder).toBe('XX');
    expect(s.prefixes).toEqual(
      expect.arrayContaining([
        { prefix: '21', names: ['ALPHA'] },
        { prefix: '22', names: ['BETA', 'Beta printer'] },
        { prefix: '05', names: ['FEEDER'] },
      ]),
    );
  });

  it('rejects malformed files with a message naming the problem', () => {
    expect(() => parseSchemeFile('template: XXyzz\nprefixes: {}')).toThrow(/placeholder/);
    expect(() => parseSchemeFile('template: XXyzz\nplaceholder: QQ\nprefixes: {"1": A}')).toThrow(/does not occur/);
    expect(() => parseSchemeFile('template: XXyzz\nplaceholder: XX\nprefixes: {"123": A}')).toThrow(/2 characters/);
    expect(() => parseSchemeFile(': : :\n  - [')).toThrow(/not valid YAML/);
  });

  it('reads the file next to a manual, or nothing', async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'fc-scheme-'));
    const manual = path.join(dir, 'errors.yaml');
    await writeFile(manual, 'Errors: []\n');
    expect(await readSchemeFile(manual)).toEqual([]);
    await copyFile(path.join(fixtures, SCHEME_FILE_NAME), path.join(dir, SCHEME_FILE_NAME));
    const [s] = await readSchemeFile(manual);
    expect(s?.prefixes).toHaveLength(3);
  });
});

describe('schemeAliases / applySchemes', () => {
  const scheme = learnSchemes(schemeReadme)[0] as CodeScheme;
  const recs = extractCodes(yamlErrors, ctx);

  it('gives prefixed aliases for the listed printers only, scoped to them', () => {
    const xx201 = recs[0] as CodeRecord;
    expect(schemeAliases(xx201, scheme)).toEqual([
      { key: '21201', family: 'number', scope: ['ALPHA'], blanket: false },
      { key: '22201', family: 'number', scope: ['BETA'], blanket: false },
    ]);
  });

  it('gives every prefix to a record with no printers list', () => {
    const xx301 = recs[3] as CodeRecord;
    expect(schemeAliases(xx301, scheme).map((a) => [a.key, a.scope[0], a.blanket])).toEqual([
      ['05301', 'FEEDER', true],
      ['21301', 'ALPHA', true],
      ['22301', 'BETA', true],
    ]);
  });

  it('leaves literal codes alone and respects the scheme root', () => {
    expect(schemeAliases(recs[4] as CodeRecord, scheme)).toEqual([]);
    expect(schemeAliases(recs[0] as CodeRecord, { ...scheme, root: 'other' })).toEqual([]);
    expect(schemeAliases(recs[0] as CodeRecord, { ...scheme, root: 'vendor' })).toHaveLength(2);
  });

  it('adds alias keys to stored records without changing the inputs', () => {
    const out = applySchemes(recs, [scheme]);
    expect(out[0]?.aliases).toEqual(['heater_fault', '21201', '22201']);
    expect(recs[0]?.aliases).toEqual(['heater_fault']);
    expect(out[4]).toBe(recs[4]);
  });
});
