import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { CHUNKER_VERSION, chunkDocument, LIMITS } from '../../../native/chunk/index.js';
import type { Block, Chunk } from '../../../native/contract/document.js';
import { countTokens } from '../../../native/text/tokens.js';
import {
  chineseSentences,
  code,
  doc,
  englishSentences,
  heading,
  para,
  row,
  step,
  warning,
} from './helpers.js';

const ctx = { file: 'manuals/pump.md', manual: 'Pump X200 Service Manual' };
const P = ['Maintenance', 'Filter'];
const chunk = (blocks: Block[]): Chunk[] => chunkDocument(doc(blocks), ctx);
const sha256 = (s: string): string => createHash('sha256').update(s, 'utf8').digest('hex');

/** The sentences a chunk holds, as indexes into `all` (each must be found whole, in order). */
function sentenceIndexes(text: string, all: string[], sep: string): number[] {
  const out: number[] = [];
  let rest = text;
  while (rest.length > 0) {
    const i = all.findIndex((s) => rest.startsWith(s));
    expect(i, `chunk text does not start with a whole sentence: ${rest.slice(0, 60)}`).toBeGreaterThanOrEqual(0);
    out.push(i);
    rest = rest.slice(all[i]!.length);
    if (rest.startsWith(sep)) rest = rest.slice(sep.length);
  }
  return out;
}

describe('chunkDocument: prose', () => {
  it('splits a long English paragraph at sentence ends only, with a one-sentence overlap', () => {
    const all = englishSentences(60); // ≈ 20 tokens each, ≈ 1200 in all
    const chunks = chunk([para(all.join(' '), P)]);
    expect(chunks.length).toBeGreaterThanOrEqual(3);
    const seen: number[][] = chunks.map((c) => sentenceIndexes(c.text, all, ' '));
    for (const idx of seen) {
      // consecutive sentences
      idx.forEach((v, k) => k > 0 && expect(v).toBe(idx[k - 1]! + 1));
    }
    for (let k = 1; k < seen.length; k++) {
      // the next piece starts with the last sentence of the previous one (overlap of exactly one)
      expect(seen[k]![0]).toBe(seen[k - 1]![seen[k - 1]!.length - 1]);
    }
    expect(seen[0]![0]).toBe(0);
    expect(seen[seen.length - 1]!.at(-1)).toBe(59);
  });

  it('splits a long Chinese paragraph at 。！？； only', () => {
    const all = chineseSentences(50); // ≈ 31 tokens each
    const chunks = chunk([para(all.join(''), ['维护', '滤网'])]);
    expect(chunks.length).toBeGreaterThanOrEqual(3);
    const seen = chunks.map((c) => sentenceIndexes(c.text, all, ''));
    for (let k = 1; k < seen.length; k++) expect(seen[k]![0]).toBe(seen[k - 1]!.at(-1));
    for (const c of chunks) {
      expect(c.lang).toBe('zh');
      expect(c.text).toMatch(/[。！？；]$/);
    }
    const ends = chunks.slice(0, -1).map((c) => c.text.at(-1));
    expect(new Set(ends).size).toBeGreaterThan(1); // it split at more than one kind of mark
  });

  it('keeps chunks within 200–500 tokens for a long section of paragraphs', () => {
    const blocks = Array.from({ length: 20 }, (_, i) => para(englishSentences(5).map((s) => `P${i} ${s}`).join(' '), P));
    const chunks = chunk(blocks);
    expect(chunks.length).toBeGreaterThan(3);
    for (const c of chunks) {
      expect(countTokens(c.text)).toBeLessThanOrEqual(LIMITS.targetMax);
      expect(countTokens(c.text)).toBeGreaterThanOrEqual(LIMITS.targetMin);
    }
    // Paragraphs fit whole, so no paragraph is split and nothing is repeated.
    const all = chunks.flatMap((c) => c.text.split('\n'));
    expect(all).toEqual(blocks.map((b) => b.text));
  });

  it('keeps a sentence longer than the max whole, and cuts one beyond the hard cap only at spaces', () => {
    const long = `${Array.from({ length: 450 }, (_, i) => `w${i}`).join(' ')}.`; // ≈ 585 tokens
    const chunks = chunk([para(`Short intro here. ${long} Short outro here.`, P)]);
    expect(chunks.some((c) => c.text.includes(long))).toBe(true);

    const huge = `${Array.from({ length: 1400 }, (_, i) => `ALARM:${i}`).join(' ')}.`; // ≈ 4200 tokens
    const pieces = chunk([para(huge, P)]);
    expect(pieces.length).toBeGreaterThan(1);
    for (const c of pieces) expect(countTokens(c.text)).toBeLessThanOrEqual(LIMITS.targetMax);
    // No code cut: every piece is whole "ALARM:n" words, and together they are the sentence.
    expect(pieces.map((c) => c.text).join(' ')).toBe(huge);
    for (const c of pieces) expect(c.text).toMatch(/^ALARM:\d+( ALARM:\d+)*\.?$/);
  });

  it('cuts a Chinese run beyond the hard cap between characters', () => {
    const huge = '检查主轴电机温度'.repeat(200); // 1600 Han, no terminator
    const pieces = chunk([para(huge, ['维护'])]);
    expect(pieces.length).toBe(4);
    expect(pieces.map((c) => c.text).join('')).toBe(huge);
    for (const c of pieces) expect(countTokens(c.text)).toBeLessThanOrEqual(LIMITS.targetMax);
  });

  it('adds no overlap when a section splits between paragraphs', () => {
    const a = para(englishSentences(16).join(' '), P); // ≈ 300 tokens
    const b = para(englishSentences(16, 15).map((s) => `B ${s}`).join(' '), P);
    const c = para(englishSentences(16, 13).map((s) => `C ${s}`).join(' '), P);
    const chunks = chunk([a, b, c]);
    expect(chunks.length).toBe(3);
    expect(chunks.map((x) => x.text)).toEqual([a.text, b.text, c.text]);
  });

  it('keeps a code block with the paragraph that introduces it', () => {
    const intro = para(englishSentences(15).join(' '), P); // ≈ 300 tokens
    const lead = para('Send this to unlock the machine:', P);
    const snippet = code('$X\n$H\n  G0 X10 Y10', P);
    const after = para(englishSentences(10).join(' '), P);
    const chunks = chunk([intro, lead, snippet, after]);
    const withCode = chunks.find((c) => c.text.includes('$X'))!;
    expect(withCode.text).toContain('Send this to unlock the machine:\n```\n$X\n$H\n  G0 X10 Y10');
  });

  it('keeps a lower-case paragraph that finishes the sentence around a code block with it', () => {
    const before = para(englishSentences(18).join(' '), P); // ≈ 350 tokens
    const lead = para('To compile it, run:', P);
    const snippet = code('make menuconfig', P);
    const rest = para('and select the AVR target before you save.', P);
    const after = para(englishSentences(10).join(' '), P);
    const chunks = chunk([before, lead, snippet, rest, after]);
    expect(chunks.length).toBeGreaterThan(1);
    expect(chunks.some((c) => c.text.includes('make menuconfig\n```\nand select the AVR target'))).toBe(true);
  });
});

describe('chunkDocument: procedures and admonitions', () => {
  it('keeps a short procedure whole, numbered, one step per line, with its intro', () => {
    const chunks = chunk([
      para('To replace the filter:', P),
      step(1, 'Open the cover.', P),
      step(2, 'Pull out the old   filter.', P),
      step(3, 'Insert the new filter.', P),
    ]);
    expect(chunks).toHaveLength(1);
    expect(chunks[0]!.text).toBe(
      'To replace the filter:\n1. Open the cover.\n2. Pull out the old filter.\n3. Insert the new filter.',
    );
  });

  it('splits a long procedure between steps and repeats the intro line in each continuation', () => {
    const steps = Array.from({ length: 14 }, (_, i) =>
      step(i + 1, `Turn screw ${i + 1} a quarter turn. ${englishSentences(3).join(' ')}`, P),
    );
    const chunks = chunk([para(englishSentences(2).join(' ') + ' To replace the filter:', P), ...steps]);
    expect(chunks.length).toBeGreaterThanOrEqual(2);
    for (const c of chunks) expect(countTokens(c.text)).toBeLessThanOrEqual(LIMITS.targetMax);
    for (const c of chunks.slice(1)) expect(c.text.split('\n')[0]).toBe('To replace the filter:');
    // Every step appears whole, exactly once, in order.
    const stepLines = chunks.flatMap((c) => c.text.split('\n').filter((l) => /^\d+\. Turn screw/.test(l)));
    expect(stepLines).toEqual(steps.map((s) => `${s.stepNumber}. ${s.text}`));
  });

  it('repeats the heading when a split procedure has no intro paragraph', () => {
    const steps = Array.from({ length: 14 }, (_, i) => step(i + 1, `Check valve ${i + 1}. ${englishSentences(3).join(' ')}`, P));
    const chunks = chunk(steps);
    expect(chunks.length).toBeGreaterThanOrEqual(2);
    expect(chunks[0]!.text.startsWith('1. Check valve 1.')).toBe(true);
    for (const c of chunks.slice(1)) expect(c.text.split('\n')[0]).toBe('Filter');
  });

  it('attaches a warning, verbatim and labelled, to the step after it', () => {
    const steps = Array.from({ length: 14 }, (_, i) => step(i + 1, `Loosen bolt ${i + 1}. ${englishSentences(3).join(' ')}`, P));
    // Put the warning in front of every step, so one necessarily falls at a chunk boundary.
    const blocks = steps.flatMap((s) => [warning('Disconnect power  before\nopening the cover.', P), s]);
    const chunks = chunk(blocks);
    expect(chunks.length).toBeGreaterThanOrEqual(2);
    for (const c of chunks) {
      const lines = c.text.split('\n');
      expect(lines.at(-1)).not.toMatch(/^WARNING/);
      lines.forEach((line, i) => {
        if (line.startsWith('WARNING')) {
          expect(line).toBe('WARNING: Disconnect power before');
          expect(lines[i + 1]).toBe('opening the cover.');
          expect(lines[i + 2]).toMatch(/^\d+\. Loosen bolt/);
        }
      });
    }
  });

  it('does not repeat a label the manual already wrote', () => {
    const chunks = chunk([warning('Caution: hot surface.', P, 'CAUTION'), para('Let it cool.', P)]);
    expect(chunks[0]!.text).toBe('Caution: hot surface.\nLet it cool.');
    const danger = chunk([warning('High voltage inside.', P, 'DANGER'), para('Call service.', P)]);
    expect(danger[0]!.text).toBe('DANGER: High voltage inside.\nCall service.');
    const zh = chunk([warning('注意：断电后再打开外壳。', ['维护'], 'NOTE'), para('然后取出滤网。', ['维护'])]);
    expect(zh[0]!.text).toBe('注意：断电后再打开外壳。\n然后取出滤网。');
    const noteThat = chunk([warning('Note that the lamp stays lit.', P, 'NOTE')]);
    expect(noteThat[0]!.text).toBe('NOTE: Note that the lamp stays lit.');
  });
});

describe('chunkDocument: tables', () => {
  it('makes one table-row chunk per row, with column names and no empty cells', () => {
    const T = ['Troubleshooting', 'Alarm codes'];
    const cols = ['Code', 'Description', 'Remedy'];
    const chunks = chunk([
      para('The controller shows these alarms:', T),
      row(cols, ['ALARM:1', 'Hard limit triggered.', 'Re-home the machine.'], T, 12),
      row(cols, ['ALARM:2', 'Soft limit.', ''], T, 12),
      row(cols, ['', '', ''], T, 13),
      row(cols, ['ALARM:3', 'Reset while in motion.', 'Re-home.'], T, 13),
    ]);
    expect(chunks.map((c) => [c.kind, c.text, c.page])).toEqual([
      ['passage', 'The controller shows these alarms:', null],
      ['table-row', 'Code: ALARM:1 | Description: Hard limit triggered. | Remedy: Re-home the machine.', 12],
      ['table-row', 'Code: ALARM:2 | Description: Soft limit.', 12],
      ['table-row', 'Code: ALARM:3 | Description: Reset while in motion. | Remedy: Re-home.', 13],
    ]);
    for (const c of chunks) expect(c.section).toBe('Troubleshooting > Alarm codes');
  });

  it('shows a row read from a text table as the manual writes it, under its header line', () => {
    const cols = ['Code', 'Message'];
    const csvRow: Block = { ...row(cols, ['9', 'Homing fail'], [], null), raw: '"9","Homing fail"\n', rawHeader: '"Code","Message"' };
    const propRow: Block = { ...row(['key', 'value'], ['P0301', 'Cylinder 1 Misfire'], [], null), raw: 'P0301=Cylinder 1 Misfire' };
    expect(chunk([csvRow, propRow]).map((c) => c.text)).toEqual([
      '"Code","Message"\n"9","Homing fail"',
      'P0301=Cylinder 1 Misfire',
    ]);
  });
  it('gives an entry with its translations side by side one passage per product language, each in that language', () => {
    const cols = ['id', 'level', 'en.description', 'en.solution', 'zh_CN.description', 'zh_CN.solution', 'es.description', 'zh_TW.description'];
    const chunks = chunk([
      row(cols, ['77', '2', 'Gripper cannot hold the part', 'Check the air supply', '夹爪无法夹持工件', '检查气源', 'La pinza no sujeta', '夾爪無法夾持'], [], null),
      // English empty: only the Chinese passage.
      row(cols, ['78', '1', '', '', '急停', '松开急停', '', ''], [], null),
      // One language only: an ordinary row, read as it is.
      row(['id', 'en.description'], ['79', 'Door open'], [], null),
    ]);
    expect(chunks.map((c) => [c.kind, c.lang, c.text])).toEqual([
      ['table-row', 'en', 'id: 77 | level: 2 | description: Gripper cannot hold the part | solution: Check the air supply'],
      ['table-row', 'zh', 'id: 77 | level: 2 | description: 夹爪无法夹持工件 | solution: 检查气源'],
      ['table-row', 'zh', 'id: 78 | level: 1 | description: 急停 | solution: 松开急停'],
      ['table-row', 'en', 'id: 79 | en.description: Door open'],
    ]);
  });

  it('keeps a per-language row whole when none of its languages is English or Chinese', () => {
    const chunks = chunk([row(['id', 'de.text', 'fr.text'], ['5', 'Tür offen', 'Porte ouverte'], [], null)]);
    expect(chunks.map((c) => c.text)).toEqual(['id: 5 | de.text: Tür offen | fr.text: Porte ouverte']);
  });
});

describe('chunkDocument: structure and metadata', () => {
  it('never merges two sections, opens each with its heading line, and folds an empty heading into the next path', () => {
    const chunks = chunkDocument(
      doc([
        heading('Maintenance', [], 1),
        heading('Filter', ['Maintenance'], 1),
        para('Replace the filter every 500 hours.', P, 2),
        heading('Belt', ['Maintenance'], 3),
        para('Check the belt tension monthly.', ['Maintenance', 'Belt'], 3),
        heading('Empty', ['Maintenance'], 4),
      ]),
      ctx,
    );
    expect(chunks.map((c) => [c.section, c.text, c.page])).toEqual([
      ['Maintenance > Filter', '## Filter\nReplace the filter every 500 hours.', 2],
      ['Maintenance > Belt', '## Belt\nCheck the belt tension monthly.', 3],
    ]);
  });

  it('opens the first subsection with a lead-in (a heading and a short line before it), and leaves every other section alone', () => {
    const F = ['Timeout', 'Fixes'];
    const D = [...F, 'Disable the timeout'];
    const chunks = chunkDocument(
      doc([
        heading('Fixes', ['Timeout']),
        para('If you get the timeout here are ways to resolve it:', F),
        heading('Disable the timeout', F),
        para('The length of time it waits is set by servo.default_timeout_s.', D),
        heading('Send commands regularly', F),
        para('Keep sending the same command while the application waits.', [...F, 'Send commands regularly']),
      ]),
      ctx,
    );
    expect(chunks.map((c) => [c.section, c.text])).toEqual([
      ['Timeout > Fixes > Disable the timeout', '## Fixes\nIf you get the timeout here are ways to resolve it:\n### Disable the timeout\nThe length of time it waits is set by servo.default_timeout_s.'],
      ['Timeout > Fixes > Send commands regularly', '### Send commands regularly\nKeep sending the same command while the application waits.'],
    ]);

    // Not a lead-in: a section with a body of its own (long, or a warning), one followed by a sibling,
    // by a table, or by a subsection on the next page.
    const L = ['Lube'];
    const S = [...L, 'Schedule'];
    const cases: Block[][] = [
      [heading('Lube', []), para(englishSentences(4).join(' '), L), heading('Schedule', L), para('Grease weekly.', S)],
      [heading('Lube', []), warning('Lock out the machine first.', L), heading('Schedule', L), para('Grease weekly.', S)],
      [heading('Lube', []), para('Grease the ways.', L), heading('Spindle', []), para('Oil the spindle.', ['Spindle'])],
      [heading('Lube', []), para('The intervals:', L), heading('Schedule', L), row(['Part', 'Interval'], ['Ways', 'weekly'], S)],
      [heading('Lube', [], 1), para('The intervals follow.', L, 1), heading('Schedule', L, 2), para('Grease weekly.', S, 2)],
    ];
    for (const blocks of cases) {
      const texts = chunkDocument(doc(blocks), ctx).map((c) => c.text);
      expect(texts.length, blocks.map((b) => b.text).join(' / ')).toBe(blocks.filter((b) => b.kind !== 'heading').length);
    }
  });

  it('never lets a passage span two PDF pages', () => {
    const chunks = chunkDocument(doc([para('Lower the ram slowly.', P, 1), para('Use the emergency lowering knob.', P, 2)]), ctx);
    expect(chunks.map((c) => [c.text, c.page])).toEqual([
      ['Lower the ram slowly.', 1],
      ['Use the emergency lowering knob.', 2],
    ]);
  });

  it('opens a section with its heading line as written when the parser kept it', () => {
    const h: Block = { ...heading('$27 - Homing pull-off, mm', [], 1), raw: '#### $27 - Homing pull-off, mm' };
    const chunks = chunkDocument(doc([h, para('Sets the pull-off distance.', ['$27 - Homing pull-off, mm'], 1)]), ctx);
    expect(chunks.map((c) => c.text)).toEqual(['#### $27 - Homing pull-off, mm\nSets the pull-off distance.']);
  });

  it('fills every metadata field', () => {
    const chunks = chunk([
      para('Replace the filter every 500 hours.', P, 7),
      row(['Code', 'Meaning'], ['E1', 'Overheat'], P, 8),
      para('每运行五百小时更换一次滤网。', ['维护'], 9),
    ]);
    expect(chunks).toHaveLength(3);
    chunks.forEach((c, i) => {
      expect(c.ordinal).toBe(i);
      expect(c.file).toBe(ctx.file);
      expect(c.manual).toBe(ctx.manual);
      expect(c.chunkerVersion).toBe(CHUNKER_VERSION);
      expect(c.contentHash).toBe(sha256(c.text));
      expect(c.id).toBe(sha256(`${ctx.file}\n${i}\n${c.contentHash}`).slice(0, 32));
      expect(c.id).toMatch(/^[0-9a-f]{32}$/);
    });
    expect(chunks.map((c) => [c.kind, c.page, c.lang, c.section])).toEqual([
      ['passage', 7, 'en', 'Maintenance > Filter'],
      ['table-row', 8, 'en', 'Maintenance > Filter'],
      ['passage', 9, 'zh', '维护'],
    ]);
    expect(chunks[0]!.headingPath).toEqual(P);
    expect(CHUNKER_VERSION).toBe(18);
  });

  it('is deterministic, and ids depend on the file', () => {
    const blocks = [para(englishSentences(60).join(' '), P), row(['A'], ['1'], P)];
    const a = chunkDocument(doc(blocks), ctx);
    const b = chunkDocument(doc(structuredClone(blocks)), ctx);
    expect(b).toEqual(a);
    expect(new Set(a.map((c) => c.id)).size).toBe(a.length);
    const other = chunkDocument(doc(blocks), { ...ctx, file: 'manuals/other.md' });
    expect(other.map((c) => c.text)).toEqual(a.map((c) => c.text));
    expect(other.map((c) => c.id)).not.toEqual(a.map((c) => c.id));
  });

  it('returns [] for empty documents and documents with only headings or blank text', () => {
    expect(chunk([])).toEqual([]);
    expect(chunk([heading('Title', []), heading('Sub', ['Title'])])).toEqual([]);
    expect(chunk([para('   \n ', P), code('\n\n', P), row(['A'], [''], P)])).toEqual([]);
  });

  it('normalises whitespace within lines and keeps code indentation', () => {
    const chunks = chunk([
      para('Grbl  should\n respond\twith:', P),
      code('[mcu]\n  serial: /dev/ttyUSB0   \n\n\n\nbaud: 250000\n', P),
      { kind: 'list-item', text: 'Check   the fuse.', headingPath: P, page: null },
      { kind: 'definition', term: 'max_velocity', text: 'Maximum   velocity.', headingPath: P, page: null },
    ]);
    expect(chunks[0]!.text).toBe(
      'Grbl should respond with:\n```\n[mcu]\n  serial: /dev/ttyUSB0\n\nbaud: 250000\n```\n- Check the fuse.\nmax_velocity: Maximum velocity.',
    );
  });
});
