import { describe, expect, it } from 'vitest';
import { buildMessageIndex, messagesIn, shownMessages } from '../../../native/search/plan/messages.js';

const TROUBLESHOOTING = [
  'Most failed teach runs end with the same message on the panel:\n\n```\nTEACH stroke lost\n```\n\nor\n\n```\nstroke sensor not a multiple of the ram pitch\n```',
  'If the controller prints this at start-up (the file name may differ)...\n\n```\n[LOG:WARN: Cannot read recipe file: press.rcp]\n```',
  'Flash it:\n\n```bash\nmake flash FLASH_DEVICE=/dev/ttyACM0\n```',
  'A listing:\n\n```\nline one\nline two\n```',
  'Two blocks:\n```\nmake menuconfig\nmake\n```\nInstall Klipper by running the following commands:\n```\n./install.sh\n```',
  'The formula:\n\n```\nrotation_distance = <full_steps_per_rotation> * <microsteps> / <steps_per_mm>\n```',
  'Run:\n\n```\npython3 -m press_gui.view --devices=1\n```\n\nthen\n\n```\npress_tool --target 1 --teach\n```',
  'A register dump:\n\n```\n0x400f710c 0x00060f30\n```',
];

describe('shown messages', () => {
  it('are the one-line fenced blocks of a passage with words in them, not commands or formulas', () => {
    expect(TROUBLESHOOTING.flatMap(shownMessages)).toEqual([
      'TEACH stroke lost',
      'stroke sensor not a multiple of the ram pitch',
      '[LOG:WARN: Cannot read recipe file: press.rcp]',
    ]);
  });

  it('are found in a question that writes one whole, or three of its words in a row', () => {
    const index = buildMessageIndex(TROUBLESHOOTING);
    expect(messagesIn(index, 'teach stroke lost when running press_tool --teach')).toEqual(['TEACH stroke lost']);
    expect(messagesIn(index, 'the press says cannot read recipe file after the update')).toEqual(['[LOG:WARN: Cannot read recipe file: press.rcp]']);
    expect(messagesIn(index, 'teaching stops with stroke sensor not a multiple of the ram pitch')).toEqual(['stroke sensor not a multiple of the ram pitch']);
  });

  it('are not found from two words of a longer message, nor from filler words', () => {
    const index = buildMessageIndex(TROUBLESHOOTING);
    expect(messagesIn(index, 'how do I work out the steps per mm value for an axis')).toEqual([]);
    expect(messagesIn(index, 'which recipe file does it read')).toEqual([]);
    expect(messagesIn(index, 'the stroke is not long enough')).toEqual([]);
    expect(messagesIn(index, 'it is not a multiple of the pitch')).toEqual([]);
  });
});
