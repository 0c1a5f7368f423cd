/**
 * The safety box carries a procedure's own warning when the manual writes it in a section of its own beside
 * the steps ("Pump service > Safety" beside "Pump service > Replacing the impeller"), not only when a cited
 * line points to it: verbatim, with where it is. A safety section under another heading of the same file, or
 * in another manual, is not this procedure's. Real engine, keyword search, manuals written here.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { engineOverDocs } from './engine-fixture.js';
import { value } from './helpers.js';

const engine = engineOverDocs('safety-beside', (docs) => {
  fs.writeFileSync(
    path.join(docs, 'pump-service.md'),
    [
      '# Pump service',
      '',
      '## Safety',
      '',
      'WARNING: Disconnect the pump from the mains and wait five minutes for the capacitor to discharge before you open the cover.',
      '',
      '## Replacing the impeller',
      '',
      '1. Remove the four cover screws.',
      '2. Pull the impeller off the shaft.',
      '3. Fit the new impeller and refit the cover.',
      '',
      '# Motor service',
      '',
      '## Safety',
      '',
      'DANGER: The motor brake holds the load; block the axis before you release it.',
      '',
      '## Greasing the bearings',
      '',
      'Grease the motor bearings every 2000 hours with lithium grease.',
      '',
    ].join('\n'),
  );
  fs.writeFileSync(path.join(docs, 'mixer.md'), ['# Mixer', '', '## Safety', '', 'CAUTION: Keep hands out of the bowl while the impeller turns.', ''].join('\n'));
});

describe('a safety section beside the cited steps', () => {
  it('is in the safety box word for word, with the section it comes from', async () => {
    const a = value(await engine().ask({ question: 'how do I replace the impeller of the pump', prefer: 'extractive' }));
    expect(a.refused).toBe(false);
    expect(a.answer).toContain('Pull the impeller off the shaft.');
    const beside = a.safety.filter((s) => s.source);
    expect(beside.map((s) => [s.kind, s.text])).toEqual([
      ['WARNING', 'WARNING: Disconnect the pump from the mains and wait five minutes for the capacitor to discharge before you open the cover.'],
    ]);
    expect(beside[0]?.source).toMatchObject({ file: 'pump-service.md', section: 'Pump service > Safety', ref: 'Safety' });
    // Another heading's safety section of the same file, and another manual's, are not this procedure's.
    expect(a.safety.map((s) => s.text).join('\n')).not.toMatch(/motor brake|Keep hands out/);
  });
});
