/**
 * A code answer brings the manual's own page about the code: the sections whose heading names it
 * ("Troubleshooting Overvoltage Fault 34"), quoted after the record, and the page's other sections
 * (one remedy each) named and cited. A code with no such page gets the record alone. Real engine on
 * files written here.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { engineOverDocs } from './engine-fixture.js';
import { value } from './helpers.js';

const engine = engineOverDocs('code-page', (docs) => {
  fs.mkdirSync(path.join(docs, 'drive'), { recursive: true });
  fs.writeFileSync(
    path.join(docs, 'drive', 'registers.md'),
    '# Registers\n\n## Fault code\n\nA fault code is set when the drive stops:\n\n- 34 - *over voltage* - the bus voltage exceeded the limit\n- 35 - *over temperature* - the board is too hot\n',
  );
  fs.writeFileSync(
    path.join(docs, 'drive', 'overvoltage-fault-34.md'),
    [
      '# Troubleshooting Overvoltage Fault 34',
      '',
      'When the motor brakes hard, the energy it returns raises the bus voltage until fault 34 trips. Several methods resolve it.',
      '',
      '## Limit the deceleration',
      '',
      'Set a lower deceleration limit so that less energy returns at once.',
      '',
      '## Add bus capacitance',
      '',
      'A capacitor bank across the supply absorbs the returned energy.',
      '',
      '## Use a battery supply',
      '',
      'A rechargeable battery takes the energy back; a lab supply cannot.',
      '',
    ].join('\n'),
  );
  fs.writeFileSync(path.join(docs, 'drive', 'wiring.md'), '# Wiring\n\n## Supply\n\nConnect the supply with short, thick wires.\n');
});

describe("a code answer and the manual's own page about the code", () => {
  it('quotes the record, then the page about the code, and names its other sections with citations', async () => {
    const a = value(await engine().ask({ question: 'fault 34 when the motor stops', prefer: 'extractive' }));
    expect(a.refused).toBe(false);
    expect(a.mode).toBe('code');
    expect(a.answer).toMatch(/^Fault 34: over voltage/);
    const page = a.citations.filter((c) => c.file === 'drive/overvoltage-fault-34.md');
    expect(page.length).toBeGreaterThanOrEqual(2);
    expect(a.answer).toMatch(/Also in Troubleshooting Overvoltage Fault 34: .*(?:Limit the deceleration|Add bus capacitance|Use a battery supply) \[\d+\]/);
    for (const m of a.answer.matchAll(/\[(\d+)\]/g)) expect(a.citations.some((c) => c.n === Number(m[1]))).toBe(true);
  });

  it('gives a code without such a page its record alone', async () => {
    const a = value(await engine().ask({ question: 'fault 35', prefer: 'extractive' }));
    expect(a.refused).toBe(false);
    expect(a.answer).toMatch(/^Fault 35: over temperature/);
    expect(a.answer).not.toContain('Also in');
    expect(a.citations.every((c) => c.file === 'drive/registers.md')).toBe(true);
  });
});
