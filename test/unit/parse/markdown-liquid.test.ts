/**
 * Jekyll documentation sites (a printer firmware's docs) write notes as Liquid tags: the warning box
 * is a safety notice, other tags alone on a line are template markup; code blocks keep their tags.
 */
import { describe, expect, it } from 'vitest';
import { jekyllToMarkdown, parseMarkdown } from '../../../native/parse/formats/markdown.js';

describe('Liquid tags in Markdown', () => {
  const page = [
    '# EEPROM',
    '',
    '{% alert warning %}',
    '  Disconnect the heater before flashing.',
    '{% endalert %}',
    '',
    '{% alert info %}Requires `EEPROM_SETTINGS`.{% endalert %}',
    '',
    '{% include gcode_params.html %}',
    '',
    'Send M500 to save.',
    '',
    '```',
    '[gcode_macro START]',
    'gcode:',
    '  {% set t = params.T|default(200) %}',
    '```',
  ].join('\n');

  it('reads the warning box as a safety notice and an info box as a note, word for word', () => {
    const doc = parseMarkdown({ text: page, fileStem: 'eeprom' });
    const admonitions = doc.blocks.filter((b) => b.kind === 'admonition');
    expect(admonitions.map((b) => [b.admonition, b.text])).toEqual([
      ['WARNING', 'WARNING: Disconnect the heater before flashing.'],
      ['NOTE', 'NOTE: Requires EEPROM_SETTINGS.'],
    ]);
  });

  it('drops a tag alone on its line and keeps code blocks as written', () => {
    const doc = parseMarkdown({ text: page, fileStem: 'eeprom' });
    const all = doc.blocks.map((b) => b.text).join('\n');
    expect(all).not.toContain('{% include');
    expect(all).not.toContain('{% alert');
    expect(all).toContain('{% set t = params.T|default(200) %}');
    expect(jekyllToMarkdown('Use `{% raw %}` in a sentence.')).toBe('Use `{% raw %}` in a sentence.');
  });
});

describe('kramdown attribute lists in Markdown', () => {
  it('drops them after an image, below a paragraph and as a TOC marker; code keeps its format strings', () => {
    const page = [
      '# Troubleshooting',
      '',
      '![LCD glitches](/img/glitch.jpg){: .floater} After a new install the LCD shows glitches.',
      '',
      'Define custom delays.',
      '{: #delays .lead width="50%"}',
      '',
      '* TOC',
      '{:toc}',
      '',
      'Print it with `{:.2f}` or `{:?}`.',
      '',
      '```',
      'println!("{:?}", x); // {: .kept}',
      '```',
    ].join('\n');
    const blocks = parseMarkdown({ text: page, fileStem: 'troubleshooting' }).blocks;
    const all = blocks.map((b) => b.text).join('\n');
    expect(all).toContain('After a new install the LCD shows glitches.');
    const prose = blocks.filter((b) => b.kind !== 'code').map((b) => b.text).join('\n');
    expect(prose).not.toMatch(/\{: ?[.#][A-Za-z]|\{:toc\}|width=/);
    expect(all).toContain('{:.2f}');
    expect(all).toContain('println!("{:?}", x); // {: .kept}');
  });
});
