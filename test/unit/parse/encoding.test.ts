import iconv from 'iconv-lite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeText, parseFile } from '../../../native/parse/index.js';
import { ofKind, tempDir } from './helpers.js';

let tmp: Awaited<ReturnType<typeof tempDir>>;
beforeAll(async () => {
  tmp = await tempDir();
});
afterAll(async () => {
  await tmp.cleanup();
});

const ZH = '警告：请先断开电源，然后再打开机箱。电机过热时请检查冷却风扇。';

describe('decodeText', () => {
  it('honours and strips byte-order marks', () => {
    const le = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('Pump – Ω', 'utf16le')]);
    expect(decodeText(le)).toEqual({ text: 'Pump – Ω', encoding: 'utf-16le' });
    const be = Buffer.concat([Buffer.from([0xfe, 0xff]), iconv.encode('泵', 'utf-16be')]);
    expect(decodeText(be)).toEqual({ text: '泵', encoding: 'utf-16be' });
    const u8 = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('abc', 'utf8')]);
    expect(decodeText(u8)).toEqual({ text: 'abc', encoding: 'utf-8' });
  });

  it('keeps valid UTF-8 and guesses GB18030 for GBK Chinese', () => {
    expect(decodeText(Buffer.from(ZH, 'utf8'))).toEqual({ text: ZH, encoding: 'utf-8' });
    const gbk = iconv.encode(ZH, 'gbk');
    expect(decodeText(gbk)).toEqual({ text: ZH, encoding: 'gb18030' });
  });

  it('detects UTF-16LE without a BOM', () => {
    expect(decodeText(Buffer.from('Hello pump manual', 'utf16le')).text).toBe('Hello pump manual');
  });

  it('falls back to a single-byte code page for Latin text', () => {
    const r = decodeText(iconv.encode('Vérifier la pompe hydraulique avant démarrage, s’il vous plaît.', 'windows-1252'));
    expect(r.text).toContain('Vérifier');
    expect(r.encoding).not.toBe('utf-8');
  });
});

describe('text files in other encodings', () => {
  it('reads a UTF-16LE (BOM) markdown file', async () => {
    const p = await tmp.file('u16.md', Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('# Überschrift\n\nText\n', 'utf16le')]));
    const doc = await parseFile(p);
    expect(ofKind(doc, 'heading')[0]?.text).toBe('Überschrift');
    expect(doc.warnings).toEqual([]);
  });

  it('reads a GBK text file and says the encoding was guessed', async () => {
    const p = await tmp.file('gbk.txt', iconv.encode(`${ZH}\n`, 'gbk'));
    const doc = await parseFile(p);
    expect(ofKind(doc, 'admonition')[0]).toMatchObject({ admonition: 'WARNING', text: ZH });
    expect(doc.warnings.join(' ')).toMatch(/GB18030/);
  });
});

describe('Chinese manuals', () => {
  it('recognises Chinese admonition labels and keeps the text as written', async () => {
    const p = await tmp.file('zh.md', '# 主轴\n\n**警告！**：更换刀具前请断电。\n\n注意：每周检查润滑油。\n\n1. 打开防护门。\n');
    const doc = await parseFile(p);
    expect(ofKind(doc, 'admonition').map((a) => [a.admonition, a.text])).toEqual([
      ['WARNING', '警告：更换刀具前请断电。'],
      ['NOTE', '注意：每周检查润滑油。'],
    ]);
    expect(ofKind(doc, 'step')[0]).toMatchObject({ stepNumber: 1, text: '打开防护门。', headingPath: ['主轴'] });
  });
});
