import os from 'node:os';
import { describe, expect, it } from 'vitest';
import { engineThreads } from '../../../native/config.js';

describe('engineThreads', () => {
  it('takes MANUALDESK_THREADS when it is a whole number from 1 to 256, else one per core', () => {
    expect(engineThreads({ MANUALDESK_THREADS: '3' })).toBe(3);
    expect(engineThreads({ MANUALDESK_THREADS: '1' })).toBe(1);
    for (const bad of [undefined, '', '0', '-2', '2.5', 'many', '257']) {
      expect(engineThreads({ MANUALDESK_THREADS: bad })).toBe(os.availableParallelism());
    }
  });
});
