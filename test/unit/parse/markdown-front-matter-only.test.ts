/**
 * A Markdown page whose text all lives in its front matter (a command reference generated from YAML
 * fields, nothing below the closing `---`) is read, not skipped as holding no text.
 */
import { describe, expect, it } from 'vitest';
import { parseMarkdown } from '../../../native/parse/formats/markdown.js';

const PAGE = `---
tag: x0410
title: Coolant pump prime
author: jdoe
experimental: false
group: coolant
brief: Prime the coolant pump before the first run.
long: Runs the pump in short bursts until the flow switch closes, then reports the time it took.
notes:
  - Requires the flow switch to be wired to input 7.
  - Save the time with M500.
parameters:
  -
    tag: S
    optional: true
    description: Burst length in seconds. Default 2.
---
`;

describe('markdown page with only front matter', () => {
  it('reads the front matter fields as text, with the title from it', () => {
    const doc = parseMarkdown({ text: PAGE, fileStem: 'X410' });
    const text = doc.blocks.map((b) => b.text).join('\n');
    expect(doc.meta.title).toBe('Coolant pump prime');
    expect(text).toContain('Prime the coolant pump before the first run.');
    expect(text).toContain('until the flow switch closes');
    expect(text).toContain('Burst length in seconds. Default 2.');
  });

  it('leaves out the fields that file the page (one word, a number or a flag) and keeps a list of sentences a sentence a line', () => {
    const doc = parseMarkdown({ text: PAGE, fileStem: 'X410' });
    const text = doc.blocks.map((b) => b.text).join('\n');
    expect(text).not.toMatch(/jdoe|experimental|x0410|\bcoolant\b(?! pump)/);
    expect(text).toContain('Requires the flow switch to be wired to input 7.\nSave the time with M500.');
  });

  it('keeps a Chinese field, which has no spaces between its words', () => {
    const doc = parseMarkdown({ text: '---\ntag: x0410\nbrief: 在首次运行前为冷却泵排气。\n---\n', fileStem: 'X410' });
    expect(doc.blocks.map((b) => b.text).join('\n')).toContain('在首次运行前为冷却泵排气。');
  });

  it('a page with a body still reads the body only', () => {
    const doc = parseMarkdown({ text: `${PAGE}\nSave all settings to memory.\n`, fileStem: 'X410' });
    const text = doc.blocks.map((b) => b.text).join('\n');
    expect(text).toContain('Save all settings to memory.');
    expect(text).not.toContain('Prime the coolant pump');
  });

  it('front matter that is not YAML leaves the page empty, as before', () => {
    const doc = parseMarkdown({ text: '---\n: : [\n---\n', fileStem: 'broken' });
    expect(doc.blocks).toHaveLength(0);
  });
});
