import { describe, expect, it } from 'vitest';
import { languageNeutralName, untranslatedFiles, untranslatedManuals, UNTRANSLATED_TERMS_MAX_PASSAGES } from '../../../native/search/plan/translations.js';

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

describe('untranslatedManuals', () => {
  const source = (chunks: number) => {
    let reads = 0;
    let filesRevision = 1;
    return {
      get filesRevision() {
        return filesRevision;
      },
      getFiles: () => [{ file: 'zh/proto.md', langs: ['zh' as const], chunks }],
      indexedTerms: async () => (reads++, new Set(['端口', 'feedback'])),
      bump: () => filesRevision++,
      reads: () => reads,
    };
  };
  it('reads the terms once per version of the files', async () => {
    const s = source(10);
    expect(untranslatedManuals(s, 'zh').files).toEqual(new Set(['zh/proto.md']));
    expect(await untranslatedManuals(s, 'zh').terms).toEqual(new Set(['端口', 'feedback']));
    await untranslatedManuals(s, 'zh').terms;
    expect(s.reads()).toBe(1);
    s.bump();
    await untranslatedManuals(s, 'zh').terms;
    expect(s.reads()).toBe(2);
    // No manual is English-only here: nothing to read.
    expect(untranslatedManuals(s, 'en')).toEqual({ files: new Set(), terms: null });
    expect(s.reads()).toBe(2);
  });
  it('does not read them for manuals past the passage cap (a question shares most of their terms)', () => {
    const s = source(UNTRANSLATED_TERMS_MAX_PASSAGES + 1);
    expect(untranslatedManuals(s, 'zh').terms).toBeNull();
    expect(s.reads()).toBe(0);
  });
});
