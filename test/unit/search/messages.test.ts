import { describe, expect, it } from 'vitest';
import { buildMessageIndex, messagesIn, shownMessages } from '../../../native/search/messages.js';

const TROUBLESHOOTING = [
  'Unfortunately, most calibration failures present the same final symptom, an error like:\n\n```\nCAL timeout\n```\n\nor\n\n```\nencoder not an integral multiple of phase\n```',
  'If you get a message like this (filename may be different)...\n\n```\n[MSG:WARN: Cannot open configuration file: config.yaml]\n```',
  'Flash it:\n\n```bash\nmake flash FLASH_DEVICE=/dev/ttyACM0\n```',
  'A listing:\n\n```\nline one\nline two\n```',
  'Two blocks:\n```\nmake menuconfig\nmake\n```\nInstall Klipper by running the following commands:\n```\n./install.sh\n```',
  'The formula:\n\n```\nrotation_distance = <full_steps_per_rotation> * <microsteps> / <steps_per_mm>\n```',
  'Run:\n\n```\npython3 -m moteus_gui.tview --devices=1\n```\n\nthen\n\n```\nmoteus_tool --target 1 --calibrate\n```',
  'A register dump:\n\n```\n0x400f710c 0x00060f30\n```',
];

describe('shown messages', () => {
  it('are the one-line fenced blocks of a passage with words in them, not commands or formulas', () => {
    expect(TROUBLESHOOTING.flatMap(shownMessages)).toEqual([
      'CAL timeout',
      'encoder not an integral multiple of phase',
      '[MSG:WARN: Cannot open configuration file: config.yaml]',
    ]);
  });

  it('are found in a question that writes one whole, or three of its words in a row', () => {
    const index = buildMessageIndex(TROUBLESHOOTING);
    expect(messagesIn(index, 'cal timeout when running moteus_tool --calibrate')).toEqual(['CAL timeout']);
    expect(messagesIn(index, 'fluidnc says cannot open configuration file after flashing')).toEqual(['[MSG:WARN: Cannot open configuration file: config.yaml]']);
    expect(messagesIn(index, 'calibration stops with encoder not an integral multiple of phase')).toEqual(['encoder not an integral multiple of phase']);
  });

  it('are not found from two words of a longer message, nor from filler words', () => {
    const index = buildMessageIndex(TROUBLESHOOTING);
    expect(messagesIn(index, 'how do I work out the steps per mm value for an axis')).toEqual([]);
    expect(messagesIn(index, 'which configuration file does it open')).toEqual([]);
    expect(messagesIn(index, 'the timeout is not long enough')).toEqual([]);
    expect(messagesIn(index, 'it is not an integral part of the phase')).toEqual([]);
  });
});
