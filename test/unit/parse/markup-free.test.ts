/** Passage text free of markup: RST directives and MyST directives never leak; code blocks are fenced; headings read as headings. */
import { describe, expect, it } from 'vitest';
import { chunkDocument } from '../../../native/chunk/index.js';
import { parseMarkdown } from '../../../native/parse/formats/markdown.js';
import { parseRst } from '../../../native/parse/formats/rst.js';

const RST = `Homing
======

To home the axis, enter
:attr:\`AXIS_STATE_HOMING <ODrive.Axis.AxisState.HOMING>\` and wait.
.. note:: The speed is in turns/s.

.. dropdown:: Why does my motor not home?
   :animate: fade-in

   Check the endstop wiring.

To enable homing at start-up, set the flag::

    odrv0.axis0.config.startup_homing = True

.. code-block:: python

   odrv0.save_configuration()
`;

const texts = (doc: ReturnType<typeof parseRst>) => chunkDocument(doc, { file: 'x', manual: 'x' }).map((c) => c.text).join('\n');

describe('RST passages', () => {
  const text = texts(parseRst({ text: RST, fileStem: 'homing' }));
  it('keeps no directive markup and no lost spaces', () => {
    expect(text).not.toMatch(/\.\.\s+[\w-]+::|:animate:|:attr:/);
    expect(text).toContain('enter AXIS_STATE_HOMING and wait.');
    expect(text).toContain('NOTE: The speed is in turns/s.');
    expect(text).toContain('Check the endstop wiring.');
  });
  it('reads a role typed against the word before it, or with a space before its text, as the words a reader sees', () => {
    // Real manuals have both typos: "working over USB with:code:`odrivetool` first", ":ref: `PWM input <pwm>`".
    const typo = texts(parseRst({ text: 'Setup\n=====\n\nCheck the board with:code:`pumptool` first, then see the :ref: `PWM input <pwm-input>` page.\n', fileStem: 'setup' }));
    expect(typo).toContain('Check the board with pumptool first, then see the PWM input page.');
    const domain = texts(parseRst({ text: 'Setup\n=====\n\nCall :py:func:`pump.start` to begin.\n', fileStem: 'setup' }));
    expect(domain).toContain('Call pump.start to begin.');
  });
  it('writes the heading as a heading and fences literal and code blocks, with the language a directive names', () => {
    expect(text.startsWith('# Homing\n')).toBe(true);
    expect(text).toContain('To enable homing at start-up, set the flag:\n```\nodrv0.axis0.config.startup_homing = True\n```');
    expect(text).toContain('```python\nodrv0.save_configuration()\n```');
  });
});

describe('Markdown passages', () => {
  it('reads MyST directives as what they are, not as code', () => {
    const md = '# Setup\n\n```{warning}\nDisconnect the motor first.\n```\n\n```{dropdown} Details\n:open:\n\nThe bus runs at 5 Mbps.\n```\n';
    const text = texts(parseMarkdown({ text: md, fileStem: 'setup' }));
    expect(text).toContain('WARNING: Disconnect the motor first.');
    expect(text).toContain('The bus runs at 5 Mbps.');
    expect(text).not.toMatch(/\{warning\}|\{dropdown\}|:open:/);
  });
  it('keeps a lead-in with its list and fences a code block, a longer fence when the code holds one', () => {
    const md = '## Flashing\n\nBefore flashing, check:\n\n- the bus is powered\n- the board is idle\n\n````\n```\nnested\n```\n````\n';
    const text = texts(parseMarkdown({ text: md, fileStem: 'flash' }));
    expect(text).toContain('## Flashing\nBefore flashing, check:\n- the bus is powered\n- the board is idle\n````\n```\nnested\n```\n````');
  });
  it('fences a code block with the language its fence, a MyST directive or a tab body names', () => {
    const md = '# Flash\n\n```bash\nmoteus_tool --flash fw.elf\n```\n\n```{code-block} python\nc.set_stop()\n```\n\n=== "C++"\n\n    ```cpp\n    c.SetStop();\n    ```\nThen run:\n\n    make flash\n';
    const text = texts(parseMarkdown({ text: md, fileStem: 'flash' }));
    expect(text).toContain('```bash\nmoteus_tool --flash fw.elf\n```');
    expect(text).toContain('```python\nc.set_stop()\n```');
    expect(text).toContain('C++:\n```cpp\nc.SetStop();\n```');
    expect(text).toContain('Then run:\n```\nmake flash\n```');
  });
});
