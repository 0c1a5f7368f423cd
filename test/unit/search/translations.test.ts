import { describe, expect, it } from 'vitest';
import { languageNeutralName, untranslatedFiles } from '../../../native/search/translations.js';

describe('languageNeutralName', () => {
  it('takes out the folder, the extension and the language markers', () => {
    expect(languageNeutralName('dobot/GetError_README_EN.md')).toBe('geterror readme');
    expect(languageNeutralName('dobot/GetError_README.md')).toBe('geterror readme');
    expect(languageNeutralName('klipper-translations-zh/docs/locales/zh_Hans/G-Codes.md')).toBe('g codes');
    expect(languageNeutralName('klipper/docs/G-Codes.md')).toBe('g codes');
    expect(languageNeutralName('manuals/Protocol (中文).pdf')).toBe('protocol');
    expect(languageNeutralName('手册/远程控制接口.pdf')).toBe('远程控制接口');
  });
});

describe('untranslatedFiles', () => {
  const files = [
    { file: 'docs/G-Codes.md', langs: ['en' as const], chunks: 4 },
    { file: 'zh/locales/zh_Hans/G-Codes.md', langs: ['zh' as const], chunks: 4 },
    { file: 'robot/GetError_README_EN.md', langs: ['en' as const], chunks: 2 },
    { file: 'robot/GetError_README.md', langs: ['zh' as const], chunks: 2 },
    { file: 'robot/alarms.json', langs: ['en' as const, 'zh' as const], chunks: 30 },
    { file: 'robot/远程控制接口.pdf', langs: ['zh' as const], chunks: 40 },
    { file: 'old/legacy.md', chunks: 3 },
    { file: 'zh/empty.md', langs: ['zh' as const], chunks: 0 },
  ];

  it('are the files in one language only that no file in another language translates', () => {
    expect([...untranslatedFiles(files, 'zh')]).toEqual(['robot/远程控制接口.pdf']);
  });

  it('leave out a file with passages in both languages, and one recorded before languages were', () => {
    const en = untranslatedFiles(files, 'en');
    expect(en.has('robot/alarms.json')).toBe(false);
    expect(en.has('old/legacy.md')).toBe(false);
    expect(en.has('docs/G-Codes.md')).toBe(false);
    expect(en.size).toBe(0);
  });
});
