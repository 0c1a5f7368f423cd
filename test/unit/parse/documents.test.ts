import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { blockText } from '../../../native/chunk/normalize.js';
import { parseFile } from '../../../native/parse/index.js';
import { FIXTURES, ofKind, tempDir } from './helpers.js';

describe('markdown', () => {
  it('keeps headings, steps, admonitions, code and table rows', async () => {
    const doc = await parseFile(join(FIXTURES, 'pump-manual.md'));
    expect(doc.format).toBe('markdown');
    expect(doc.meta.title).toBe('Coolant Pump CP-200 Service Manual');

    const headings = ofKind(doc, 'heading');
    expect(headings.map((h) => [h.text, h.level])).toEqual([
      ['Coolant Pump CP-200', 1],
      ['Maintenance', 2],
      ['Replacing the seal', 3],
      ['Fault codes', 2],
    ]);
    expect(headings[2]?.headingPath).toEqual(['Coolant Pump CP-200', 'Maintenance']);

    const intro = ofKind(doc, 'paragraph')[0];
    // Body text keeps its Markdown as written, so a passage quotes the manual exactly.
    expect(intro?.text).toMatch(/^Intro with \*\*bold\*\*, `inline code`, and a \[link text\]/);

    const steps = ofKind(doc, 'step');
    expect(steps.map((s) => [s.stepNumber, s.text])).toEqual([
      [1, 'Switch off the **main** breaker.'],
      [2, 'Remove the `M6` screws.'],
      [3, 'Lift the cover.'],
    ]);
    expect(steps[0]?.headingPath).toEqual(['Coolant Pump CP-200', 'Maintenance', 'Replacing the seal']);
    expect(ofKind(doc, 'list-item').map((b) => b.text)).toEqual(['Keep the washers.', 'Gloves', 'Goggles']);

    const adm = ofKind(doc, 'admonition');
    expect(adm.map((a) => a.admonition)).toEqual(['WARNING', 'CAUTION', 'NOTE', 'DANGER']);
    expect(adm[0]?.text).toBe('Warning: Hot coolant can scald. Let the pump cool for 30 minutes.');
    expect(adm[1]?.text).toBe('CAUTION: Do not run the pump dry.');
    expect(adm[2]?.text).toContain('Order kit CP-200-S from your dealer.');
    expect(adm[3]?.text).toBe('DANGER: 400 V inside. Lock out before opening.');

    expect(ofKind(doc, 'code')[0]?.text).toBe('G28 X0');

    const rows = ofKind(doc, 'table-row');
    expect(rows).toHaveLength(2);
    expect(rows[0]?.columns).toEqual(['Code', 'Meaning', 'Remedy']);
    expect(rows[0]?.cells).toEqual(['E01', 'Overheat', 'Clean the filter']);
    expect(rows[0]?.table).toBe('Fault codes');
    expect(rows[1]?.text).toBe('Code: E02\nMeaning: Low flow\nRemedy: Check the valve');
    expect(rows[0]).toMatchObject({ raw: '| E01  | Overheat | Clean the *filter* |', rawHeader: '| Code | Meaning | Remedy |' });
    expect(doc.blocks.every((b) => b.page === null)).toBe(true);
  });
});

describe('asciidoc', () => {
  it('walks sections, lists, admonitions, tables and description lists', async () => {
    const doc = await parseFile(join(FIXTURES, 'spindle.adoc'));
    expect(doc.format).toBe('asciidoc');
    expect(doc.meta).toMatchObject({ title: 'Spindle Guide', language: 'en' });
    expect(ofKind(doc, 'heading').map((h) => h.text)).toEqual(['Spindle Guide', 'Installation', 'Mounting', 'Reference']);
    expect(ofKind(doc, 'paragraph')[0]?.text).toBe('Preamble paragraph with bold and code and a link.');

    const steps = ofKind(doc, 'step');
    expect(steps.map((s) => s.stepNumber)).toEqual([1, 2, 3]);
    expect(steps[2]?.text).toBe('Tighten the drawbar to 25 Nm.');
    expect(steps[0]?.headingPath).toEqual(['Spindle Guide', 'Installation', 'Mounting']);
    expect(ofKind(doc, 'list-item').map((b) => b.text)).toEqual(['Torque wrench', 'Rag']);

    const adm = ofKind(doc, 'admonition');
    expect(adm.map((a) => [a.admonition, a.text])).toEqual([
      ['WARNING', 'WARNING: Never start the spindle without a tool holder.'],
      ['CAUTION', 'CAUTION: Bearings are preloaded. Do not hammer the shaft.'],
    ]);

    const rows = ofKind(doc, 'table-row');
    expect(rows.map((r) => r.cells)).toEqual([
      ['S10', 'Drawbar open'],
      ['S11', 'Overspeed'],
    ]);
    expect(rows[0]?.columns).toEqual(['Code', 'Meaning']);
    expect(rows[0]?.table).toBe('Fault table');

    expect(ofKind(doc, 'definition').map((d) => [d.term, d.text])).toEqual([
      ['RPM', 'Revolutions per minute.'],
      ['Taper', 'The cone that centres the tool.'],
    ]);
    expect(ofKind(doc, 'code').map((c) => c.text)).toEqual(['M3 S12000']);
    // include:: is never resolved and leaves no trace.
    expect(doc.blocks.some((b) => b.text.includes('other-file'))).toBe(false);
  });
});

/** Parses a document written inline (through a temporary file, as ingest reads one). */
async function parseInline(name: string, text: string) {
  const tmp = await tempDir();
  try {
    return await parseFile(await tmp.file(name, text));
  } finally {
    await tmp.cleanup();
  }
}

describe('markdown admonitions as written', () => {
  it('keeps a line that writes its own label, emphasis included, and adds no second label in the passage', async () => {
    const doc = await parseInline('cal.md', '# Calibration\n\n**WARNING: Any attached motor must be able to spin freely.**\n\n**Note:** Calibration takes a minute.\n');
    const adm = ofKind(doc, 'admonition');
    expect(adm.map((a) => [a.admonition, a.text])).toEqual([
      ['WARNING', '**WARNING: Any attached motor must be able to spin freely.**'],
      ['NOTE', '**Note:** Calibration takes a minute.'],
    ]);
    expect(adm.map((a) => blockText(a))).toEqual(['**WARNING: Any attached motor must be able to spin freely.**', '**Note:** Calibration takes a minute.']);
  });
});

describe('Wiki.js callouts', () => {
  it('reads a blockquote closed by {.is-warning} / {.is-danger} / {.is-info} as a warning, danger or note, without the marker', async () => {
    const md = [
      '# Upgrading',
      '',
      '> Be careful when upgrading firmware. A full install erases all files.',
      '{.is-warning}',
      '',
      '> Disconnect mains power before you open the case.',
      '{.is-danger}',
      '',
      '> You can list the files with `$LocalFS/List`.',
      '{.is-info}',
      '',
      '> A quote that is only a quote.',
    ].join('\n');
    const doc = await parseInline('upgrade.md', md);
    expect(ofKind(doc, 'admonition').map((a) => [a.admonition, a.text])).toEqual([
      ['WARNING', 'WARNING: Be careful when upgrading firmware. A full install erases all files.'],
      ['DANGER', 'DANGER: Disconnect mains power before you open the case.'],
      ['NOTE', 'NOTE: You can list the files with $LocalFS/List.'],
    ]);
    expect(doc.blocks.some((b) => b.text.includes('{.is-'))).toBe(false);
    expect(ofKind(doc, 'paragraph').map((b) => b.text)).toEqual(['A quote that is only a quote.']);
  });

  it('keeps a heading attribute list ({#id}, {.tabset}) out of the heading, and a brace that is words in it', async () => {
    const doc = await parseInline('setup.md', '# Setup {.tabset}\n\n## Windows {#win}\n\nInstall the driver.\n\n## Linux {#linux .tab lang=en}\n\nAdd the udev rule.\n\n## Needs {Pulloff2?}\n\nText.\n');
    expect(ofKind(doc, 'heading').map((b) => b.text)).toEqual(['Setup', 'Windows', 'Linux', 'Needs {Pulloff2?}']);
    expect(doc.meta.title).toBe('Setup');
  });

  it('reads an image sized the Wiki.js way (`![alt](img.png =x450)`) as an image, not as text', async () => {
    const doc = await parseInline('startup.md', '# Startup\n\nHere is a problem free example.\n\n![fluidterm.png](/support/fluidterm.png =x450)\n\n![wide](/a.png =600x)\n');
    expect(ofKind(doc, 'paragraph').map((b) => b.text)).toEqual(['Here is a problem free example.']);
  });
});

describe('code blocks keep the language the manual names', () => {
  it('AsciiDoc [source,lang] and HTML language-x classes', async () => {
    const adoc = await parseInline('hal.adoc', '= HAL\n\n[source,tcl]\n----\nloadrt hm2_eth\n----\n\n----\nplain listing\n----\n');
    expect(ofKind(adoc, 'code').map((b) => [b.text, b.codeLang])).toEqual([
      ['loadrt hm2_eth', 'tcl'],
      ['plain listing', undefined],
    ]);
    const html = await parseInline('flash.html', '<h1>Flash</h1><pre><code class="hljs language-bash">make flash</code></pre><pre>plain</pre>');
    expect(ofKind(html, 'code').map((b) => [b.text, b.codeLang])).toEqual([
      ['make flash', 'bash'],
      ['plain', undefined],
    ]);
  });
});

describe('markdown content tabs (MkDocs Material)', () => {
  it('reads a tab as its label leading in to its body, the body read as Markdown (code keeps no fence)', async () => {
    const md = [
      '# Watchdog',
      '',
      'Keep sending commands while the application waits.',
      '',
      '=== "Python"',
      '',
      '    ```python',
      '    while waiting:',
      '        await c.set_stop()',
      '    ```',
      '',
      '=== "C++"',
      '    ```cpp',
      '    c.SetStop();',
      '    ```',
      '',
      'Then the controller stays out of timeout.',
      '',
    ].join('\n');
    const doc = await parseInline('watchdog.md', md);
    const body = doc.blocks.filter((b) => b.kind !== 'heading').map((b) => [b.kind, b.text]);
    expect(body).toEqual([
      ['paragraph', 'Keep sending commands while the application waits.'],
      ['paragraph', 'Python:'],
      ['code', 'while waiting:\n    await c.set_stop()'],
      ['paragraph', 'C++:'],
      ['code', 'c.SetStop();'],
      ['paragraph', 'Then the controller stays out of timeout.'],
    ]);
  });
});

describe('reStructuredText', () => {
  it('reads titles, lists, directives, list-tables and grid tables', async () => {
    const doc = await parseFile(join(FIXTURES, 'conveyor.rst'));
    expect(doc.format).toBe('rst');
    expect(doc.meta.title).toBe('Conveyor Manual');
    expect(ofKind(doc, 'heading').map((h) => [h.text, h.level])).toEqual([
      ['Conveyor Manual', 1],
      ['Introduction', 2],
      ['Cleaning', 3],
    ]);
    expect(ofKind(doc, 'paragraph')[0]?.text).toBe('The conveyor moves parts between stations. See the site.');
    expect(ofKind(doc, 'step').map((s) => [s.stepNumber, s.text])).toEqual([
      [1, 'Stop the belt.'],
      [2, 'Wipe the rollers.'],
      [1, 'Auto one'],
      [2, 'Auto two'],
    ]);
    expect(ofKind(doc, 'step')[0]?.headingPath).toEqual(['Conveyor Manual', 'Introduction', 'Cleaning']);
    expect(ofKind(doc, 'admonition').map((a) => [a.admonition, a.text])).toEqual([
      ['WARNING', 'WARNING: Keep hands clear of the rollers.'],
      ['NOTE', 'NOTE: The belt is food safe.'],
    ]);
    expect(ofKind(doc, 'code').map((c) => c.text)).toEqual(['belt.speed = 2']);
    const rows = ofKind(doc, 'table-row');
    expect(rows.map((r) => r.cells)).toEqual([
      ['C1', 'Belt slip'],
      ['C2', 'Motor stall'],
      ['a', 'b'],
    ]);
    expect(rows[0]?.columns).toEqual(['Code', 'Meaning']);
    expect(rows[0]?.table).toBe('Fault codes');
    // A grid table without a header row: its cells under numbered columns, named after its section.
    expect(rows[2]).toMatchObject({ columns: ['Column 1', 'Column 2'], table: 'Cleaning' });
    expect(ofKind(doc, 'definition')[0]).toMatchObject({ term: 'Tension', text: 'How tight the belt is.' });
    expect(doc.warnings).toEqual([]);
  });
  it('keeps a code block inside a note out of the note text, and reads a titled admonition as "Title: text"', async () => {
    const rst = [
      'Install',
      '=======',
      '',
      '.. note:: The rules are added for you. If this fails, add them by hand:',
      '',
      '    .. code-block:: Bash',
      '',
      '        sudo udevadm control --reload-rules',
      '',
      '.. admonition:: **Ubuntu**, **Raspbian**',
      '',
      '    If the tool is not found, add ~/.local/bin to your PATH.',
    ].join('\n');
    const doc = await parseInline('install.rst', rst);
    expect(ofKind(doc, 'admonition').map((a) => a.text)).toEqual([
      'NOTE: The rules are added for you. If this fails, add them by hand:',
      'Ubuntu, Raspbian: If the tool is not found, add ~/.local/bin to your PATH.',
    ]);
    expect(ofKind(doc, 'code').map((c) => c.text)).toEqual(['sudo udevadm control --reload-rules']);
  });

  it('reads grid tables with spanning and wrapped cells, simple tables with continuation lines, and titled tables', async () => {
    const rst = [
      'Faults',
      '======',
      '',
      '.. table:: Drive faults',
      '',
      '   +-------+------------------+-------------------+',
      '   | Code  | Meaning          | Remedy            |',
      '   +=======+==================+===================+',
      '   | E-101 | Over voltage on  | Check the brake   |',
      '   |       | the DC bus       | resistor.         |',
      '   +-------+------------------+-------------------+',
      '   | E-103 | One cell over two columns            |',
      '   +-------+------------------+-------------------+',
      '',
      '=====  ==============  ==================',
      'Code   Meaning         Action',
      '=====  ==============  ==================',
      'A-2    Coolant low     Refill the tank;',
      '       (float switch)  check the float.',
      '=====  ==============  ==================',
      '',
      'After the tables.',
    ].join('\n');
    const doc = await parseInline('faults.rst', rst);
    const rows = ofKind(doc, 'table-row');
    expect(rows.map((r) => [r.table, r.columns, r.cells])).toEqual([
      ['Drive faults', ['Code', 'Meaning', 'Remedy'], ['E-101', 'Over voltage on the DC bus', 'Check the brake resistor.']],
      ['Drive faults', ['Code', 'Meaning', 'Remedy'], ['E-103', 'One cell over two columns', '']],
      ['Faults', ['Code', 'Meaning', 'Action'], ['A-2', 'Coolant low (float switch)', 'Refill the tank; check the float.']],
    ]);
    expect(ofKind(doc, 'paragraph').map((p) => p.text)).toEqual(['After the tables.']);
  });
});

describe('html', () => {
  it('maps headings, ol steps, tables, dl, pre and admonition classes; ignores nav/script/style', async () => {
    const doc = await parseFile(join(FIXTURES, 'lathe.html'));
    expect(doc.format).toBe('html');
    expect(doc.meta).toMatchObject({ title: 'Lathe L-90', language: 'en' });
    const all = doc.blocks.map((b) => b.text).join('\n');
    expect(all).not.toMatch(/Home|MENU ENTRY|var x|color: red/);
    expect(ofKind(doc, 'paragraph')[0]?.text).toBe('Read this & keep it near the machine.');
    expect(ofKind(doc, 'step').map((s) => [s.stepNumber, s.text, s.headingPath])).toEqual([
      [1, 'Level the bed.', ['Lathe L-90', 'Setup']],
      [2, 'Fill the oil reservoir.', ['Lathe L-90', 'Setup']],
    ]);
    expect(ofKind(doc, 'admonition').map((a) => [a.admonition, a.text])).toEqual([
      ['WARNING', 'Warning: Remove the chuck key before starting.'],
      ['NOTE', 'NOTE: Use ISO VG 68 oil.'],
    ]);
    const rows = ofKind(doc, 'table-row');
    expect(rows.map((r) => [r.table, r.columns, r.cells])).toEqual([
      ['Alarm list', ['Alarm', 'Text'], ['A1', 'Door open']],
      ['Alarm list', ['Alarm', 'Text'], ['A2', 'Chuck unclamped']],
    ]);
    expect(ofKind(doc, 'definition')[0]).toMatchObject({ term: 'Swing', text: 'Largest diameter that fits.' });
    expect(ofKind(doc, 'code')[0]?.text).toBe('G0 X10\nG1 Z-5');
  });
});

describe('html admonitions', () => {
  it('keeps a label the text already carries instead of adding another', async () => {
    const { parseHtml } = await import('../../../native/parse/formats/html.js');
    const doc = parseHtml({ text: '<p class="note">Note: check oil.</p><div class="warning"><p>Disconnect power.</p></div>', fileStem: 'x' } as never);
    expect(doc.blocks.map((b) => [b.admonition, b.text])).toEqual([
      ['NOTE', 'Note: check oil.'],
      ['WARNING', 'WARNING: Disconnect power.'],
    ]);
  });
});

describe('plain text', () => {
  it('finds headings, steps, admonitions and list items', async () => {
    const doc = await parseFile(join(FIXTURES, 'press.txt'));
    expect(doc.format).toBe('text');
    expect(ofKind(doc, 'heading').map((h) => [h.text, h.level])).toEqual([
      ['PRESS P-5 OPERATING NOTES', 1],
      ['1.2 Daily Checks', 2],
    ]);
    expect(ofKind(doc, 'paragraph')[0]).toMatchObject({
      text: 'Check the oil level every morning. Top up when low.',
      headingPath: ['PRESS P-5 OPERATING NOTES', '1.2 Daily Checks'],
    });
    expect(ofKind(doc, 'step').map((s) => [s.stepNumber, s.text])).toEqual([
      [1, 'Open the guard.'],
      [2, 'Inspect the die.'],
      [4, 'Step 4: Close the guard.'],
    ]);
    expect(ofKind(doc, 'admonition').map((a) => [a.admonition, a.text])).toEqual([
      ['WARNING', 'WARNING: Never reach into the die area.'],
      ['CAUTION', 'CAUTION: The ram may drift when the pump is off.'],
    ]);
    expect(ofKind(doc, 'list-item').map((b) => b.text)).toEqual(['Gloves', 'Ear plugs']);
  });
});
