import { describe, expect, it } from 'vitest';
import { sentenceRanges } from '../../../native/chunk/sentences.js';
import { detectLang } from '../../../native/text/lang.js';
import { countTokens } from '../../../native/text/tokens.js';

const sentences = (text: string): string[] => sentenceRanges(text).map(([s, e]) => text.slice(s, e));

describe('sentenceRanges', () => {
  it('splits English at . ! ? followed by a space', () => {
    expect(sentences('Turn it off. Wait ten seconds! Is the lamp lit? Yes.')).toEqual([
      'Turn it off.',
      'Wait ten seconds!',
      'Is the lamp lit?',
      'Yes.',
    ]);
  });

  it('does not split at abbreviations, decimals, versions, settings or list numbers', () => {
    expect(sentences('Use a thin oil, e.g. SAE 10, i.e. not grease. Set 0.5 mm on v1.1 firmware. Next.')).toEqual([
      'Use a thin oil, e.g. SAE 10, i.e. not grease.',
      'Set 0.5 mm on v1.1 firmware.',
      'Next.',
    ]);
    expect(sentences('See Fig. 3 and No. 7 for details. Done.')).toEqual(['See Fig. 3 and No. 7 for details.', 'Done.']);
    expect(sentences('1. Remove the cover. Then lift it.')).toEqual(['1. Remove the cover.', 'Then lift it.']);
    expect(sentences('Send $30=1000. to set it. Then send $X. Grbl unlocks.')).toEqual([
      'Send $30=1000. to set it.',
      'Then send $X.',
      'Grbl unlocks.',
    ]);
    expect(sentences('Move with G0 X10. Y20. and stop. Done.')).toEqual(['Move with G0 X10. Y20. and stop.', 'Done.']);
  });

  it('ends a sentence at a unit of time after a number, not at the same abbreviation elsewhere', () => {
    expect(sentences('The drive stops when no command arrives within 100 ms. Send commands more often. Wait 5 min. Then restart.')).toEqual([
      'The drive stops when no command arrives within 100 ms.',
      'Send commands more often.',
      'Wait 5 min.',
      'Then restart.',
    ]);
    expect(sentences('Ask Ms. Lee about the min. Value of the setting.')).toEqual(['Ask Ms. Lee about the min. Value of the setting.']);
  });

  it('does not treat detached marks in command lists as sentence ends', () => {
    const help = '[HLP:$$ $# $G $I $N $x=val $C $X $H ~ ! ? ctrl-x]';
    expect(sentences(help)).toEqual([help]);
  });

  it('keeps closing quotes and brackets with their sentence', () => {
    expect(sentences('He said "stop." Then (it stopped.) Fine.')).toEqual(['He said "stop."', 'Then (it stopped.)', 'Fine.']);
  });

  it('splits Chinese at 。！？； with no space after', () => {
    expect(sentences('关闭电源。等待十秒！指示灯亮吗？检查风扇；然后重启')).toEqual([
      '关闭电源。',
      '等待十秒！',
      '指示灯亮吗？',
      '检查风扇；',
      '然后重启',
    ]);
    expect(sentences('运行 `ls /dev/serial/by-id/*` 命令。 它会输出“端口名。”请复制。')).toEqual([
      '运行 `ls /dev/serial/by-id/*` 命令。',
      '它会输出“端口名。”',
      '请复制。',
    ]);
  });
});

describe('countTokens', () => {
  it('counts English words at about 1.3 tokens and punctuation runs at 1', () => {
    expect(countTokens('')).toBe(0);
    expect(countTokens('   \n ')).toBe(0);
    expect(countTokens('one two three')).toBe(4); // 3.9
    expect(countTokens('Turn it off.')).toBe(5); // 3.9 + 1
    expect(countTokens('ten words '.repeat(50))).toBe(130);
  });

  it('counts each CJK character as one token', () => {
    expect(countTokens('关闭电源')).toBe(4);
    expect(countTokens('关闭电源。')).toBe(5);
    expect(countTokens('设置 step_pin 参数')).toBe(8); // 4 Han + 2 words (2.6) + "_" = 7.6
  });

  it('splits identifiers and settings into several tokens', () => {
    expect(countTokens('SET_VELOCITY_LIMIT')).toBe(6); // 3 words + 2 underscores
    expect(countTokens('$110=500.000')).toBeGreaterThanOrEqual(5);
  });

  it('is additive over whitespace', () => {
    const a = 'Check the spindle motor.';
    const b = '检查主轴电机。';
    expect(countTokens(`${a} ${b}`)).toBe(countTokens(a) + countTokens(b));
  });

  it('is fast enough for 10 MB of text', () => {
    const text = 'The quick brown fox, 快速的狐狸, jumps over $100=250.000 lazy dogs. '.repeat(160_000);
    expect(text.length).toBeGreaterThan(10_000_000);
    const t0 = performance.now();
    const n = countTokens(text);
    const ms = performance.now() - t0;
    expect(n).toBeGreaterThan(3_000_000);
    expect(ms).toBeLessThan(2000);
  });
});

describe('detectLang', () => {
  it('says zh when Han characters are a substantial share', () => {
    expect(detectLang('关闭电源后等待十秒')).toBe('zh');
    expect(detectLang('在 printer.cfg 中设置 step_pin 参数。')).toBe('zh');
    expect(detectLang('使用 SET_VELOCITY_LIMIT 命令调整速度')).toBe('zh');
  });

  it('says en for English, for code and for English with a stray Chinese word', () => {
    expect(detectLang('Disconnect power before opening the cover.')).toBe('en');
    expect(detectLang('$100=250.000\n$101=250.000')).toBe('en');
    expect(detectLang('')).toBe('en');
    expect(detectLang('The Chinese translation (中文) lives in a separate repository of documents.')).toBe('en');
  });
});
