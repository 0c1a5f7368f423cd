/**
 * Issue 41 (clean text), found on the new-user walkthrough: the paragraph after a list ("After each
 * change, run `kcfg save`…") showed inside the list's last item, in the answer and on the source card,
 * because the index holds a block a line and Markdown reads the next line as the item's continuation.
 */
import { describe, expect, it } from 'vitest';
import { structure } from '../../../renderer/src/ui/structure.js';

describe('the line after a list', () => {
  it('a sentence after a finished item is a paragraph after the list, not part of the item', () => {
    expect(structure('Check these causes in order:\n1. Gain too high. Lower `pos.kp`.\n2. Noisy encoder. Use a shielded cable.\nAfter each change, save the settings.')).toEqual([
      { kind: 'paragraph', text: 'Check these causes in order:' },
      { kind: 'list', ordered: true, start: 1, items: ['Gain too high. Lower pos.kp.', 'Noisy encoder. Use a shielded cable.'] },
      { kind: 'paragraph', text: 'After each change, save the settings.' },
    ]);
  });

  it('also with citation marks after the item (an answer), and after bullets and Chinese text', () => {
    const p = structure('- Clean the sensor windows. [1]\n- Teach again. [1]\nIf the LED still flashes red, replace the sensor. [2]');
    expect(p[0]).toEqual({ kind: 'list', ordered: false, start: 1, items: ['Clean the sensor windows. [1]', 'Teach again. [1]'] });
    expect(p[1]).toEqual({ kind: 'paragraph', text: 'If the LED still flashes red, replace the sensor. [2]' });
    expect(structure('1. 检查电机散热片。\n2. 等电机冷却后按复位按钮。\n如果报警仍然存在，请联系服务部门。').at(-1)).toEqual({ kind: 'paragraph', text: '如果报警仍然存在，请联系服务部门。' });
  });

  it('an item that goes on mid-sentence on the next line, or an indented line, stays one item', () => {
    expect(structure('- Check the cable between the drive and\nthe motor for damage.\n- Replace it.')).toEqual([
      { kind: 'list', ordered: false, start: 1, items: ['Check the cable between the drive and\nthe motor for damage.', 'Replace it.'] },
    ]);
    expect(structure('1. Run the command:\n   Then wait.')[0]).toMatchObject({ kind: 'list' });
  });
});
