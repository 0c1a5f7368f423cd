import { describe, expect, it } from 'vitest';
import { analyze, analyzeQuery } from '../../../native/text/analyze.js';
import { compileThesaurus, expandQuery } from '../../../native/text/thesaurus.js';

describe('analyze', () => {
  it('stems English words and drops stop words', () => {
    expect(analyze('The axes are homing and the switches failed')).toEqual(['ax', 'home', 'switch', 'fail']);
    expect(analyze('Homing')).toEqual(analyze('homed'));
    expect(analyze("The printer won't start")).toEqual(['printer', 'wont', 'start']);
  });

  it("drops a stop word with a clitic (there's, they're, I'm) like the stop word, and keeps a noun's possessive", () => {
    expect(analyze("there's a spark when it's plugged in, they're sure I'm right, we've tried")).toEqual(['spark', 'plug', 'sure', 'right', 'tri']);
    expect(analyze("What's the driver's limit? That'll do")).toEqual(['driver', 'limit']);
    expect(analyze("won't don't")).toEqual(['wont', 'dont']);
  });

  it('segments Chinese with jieba so a query meets a passage', () => {
    const passage = analyze('主轴过热时，请检查冷却泵并清洁散热片。');
    expect(passage).toEqual(expect.arrayContaining(['主轴', '过热', '检查', '冷却']));
    expect(passage).not.toContain('，');
    const query = analyze('主轴过热怎么办');
    expect(query).toEqual(expect.arrayContaining(['主轴', '过热']));
    expect(query).not.toContain('怎么');
    // Domain terms from the thesaurus are whole words.
    expect(analyze('回零失败')).toEqual(expect.arrayContaining(['回零', '失败']));
    expect(analyze('X轴限位开关')).toEqual(expect.arrayContaining(['x', '限位开关', '限位', '开关']));
  });

  it('keeps fault codes whole and split', () => {
    expect(analyze('ALARM:9')).toEqual(['alarm9', 'alarm', '9']);
    expect(analyze('E-204')).toEqual(['e204', 'e', '204']);
    expect(analyze('E204')).toEqual(['e204']);
    expect(analyze('P0301')).toEqual(['p0301']);
    expect(analyze('$X')).toEqual(['$x', 'x']);
    expect(analyze('$100=250.5')).toEqual(['$100', '100', '250.5']);
    expect(analyze('ERROR_DRV_FAULT')).toEqual(['errordrvfault', 'error', 'drv', 'fault']);
    expect(analyze('see printer.cfg')).toEqual(['see', 'printer.cfg', 'printer', 'cfg']);
    expect(analyze('version 2.0.3, 24V')).toEqual(['version', '2.0.3', '24v']);
  });

  it('normalises full-width characters and case', () => {
    expect(analyze('ＡＬＡＲＭ：９')).toEqual(analyze('alarm:9'));
    expect(analyze('')).toEqual([]);
    expect(analyze('…—!?')).toEqual([]);
  });
});

describe('analyzeQuery and the thesaurus', () => {
  it('expands a Chinese question with English terms and vice versa', () => {
    const zh = analyzeQuery('回零失败');
    expect(zh.terms).toEqual(expect.arrayContaining(['回零', '失败']));
    const flat = zh.expansions.flat();
    expect(flat).toEqual(expect.arrayContaining(['home', 'fail']));
    const en = analyzeQuery('spindle overheating');
    expect(en.expansions.flat()).toEqual(expect.arrayContaining(['主轴', '过热', 'overheat']));
    expect(en.expansions.flat()).not.toContain('spindl'); // own terms are not repeated
    expect(analyzeQuery('spindle overheating', { expand: false }).expansions).toEqual([]);
    // General technical words too: a Chinese question about an English manual ("software", "maximum", "safety").
    expect(analyzeQuery('软件产生的最大抖动').expansions.flat()).toEqual(expect.arrayContaining(['softwar', 'maximum', 'jitter', 'gener']));
    expect(analyzeQuery('校准之前要注意什么安全事项').expansions.flat()).toEqual(expect.arrayContaining(['calibr', 'safeti', 'warn']));
  });

  it('pulls in tight equivalents (abbreviation and spelled-out form) apart from looser expansions', () => {
    const q = analyzeQuery('lost comm with the mcu');
    expect(q.equivalents).toEqual(expect.arrayContaining([['commun'], ['microcontrol']]));
    expect(q.expansions.map((g) => g.join(' '))).not.toContain('commun');
    expect(analyzeQuery('lost comm', { expand: false }).equivalents).toEqual([]);
  });

  it('searches adjacent words also as the identifier they may name, and indexes each identifier of a dotted path', () => {
    expect(analyzeQuery('watchdog has bit').equivalents).toContainEqual(['hasbit']);
    expect(analyze('hm2_5i20.0.watchdog.has_bit')).toEqual(expect.arrayContaining(['hasbit', 'hm25i20', 'watchdog']));
    expect(analyzeQuery('has_bit').equivalents).not.toContainEqual(['hasbit']); // already the query's own token
  });

  it('also joins the words on either side of stop words, as a command name writes them (EnableRobot)', () => {
    expect(analyze('EnableRobot(load)')).toContain('enablerobot');
    expect(analyzeQuery('how do I enable the robot').equivalents).toContainEqual(['enablerobot']);
    // A contraction is one word: its pieces never join their neighbours ("can't I" is not "ti").
    const joined = analyzeQuery("why can't I jog the head").equivalents.map((g) => g.join(' '));
    expect(joined).toContain('joghead');
    expect(joined).not.toContain('ti');
    expect(joined.some((j) => j.startsWith('whycan') || j.endsWith('won'))).toBe(false);
    expect(analyzeQuery('clear the error on the arm').equivalents).toEqual(expect.arrayContaining([['clearerror'], ['errorarm']]));
  });

  it('keeps multi-word terms together as one group', () => {
    const q = analyzeQuery('endstop');
    expect(q.expansions).toContainEqual(['limit', 'switch']);
  });

  it('matches entries by token sequence, substring (Chinese) or whole token', () => {
    const th = compileThesaurus(
      [
        { en: ['lose steps'], zh: ['失步'] },
        { en: ['door'], zh: ['门'] },
      ],
      analyze,
    );
    expect(expandQuery(th, 'motor losing steps', analyze('motor losing steps'))).toEqual([['失步']]);
    expect(expandQuery(th, 'steps lose', analyze('steps lose'))).toEqual([]); // order matters
    expect(expandQuery(th, '电机失步', analyze('电机失步'))).toEqual([['lose', 'step']]);
    // A one-character Chinese term must be a whole token, not part of a word (部门 = department).
    expect(expandQuery(th, '部门', analyze('部门'))).toEqual([]);
  });

  it('matches Chinese terms longest first: a shorter term inside a longer one of another entry does not count', () => {
    const th = compileThesaurus(
      [
        { en: ['stepper'], zh: ['步进'] },
        { en: ['step pulse'], zh: ['步进脉冲'] },
      ],
      analyze,
    );
    expect(expandQuery(th, '软件产生步进脉冲', analyze('软件产生步进脉冲'))).toEqual([['step', 'puls']]);
    // Outside the longer term the shorter one still counts.
    expect(expandQuery(th, '步进电机和步进脉冲', analyze('步进电机和步进脉冲'))).toEqual([['stepper'], ['step', 'puls']]);
  });
});
