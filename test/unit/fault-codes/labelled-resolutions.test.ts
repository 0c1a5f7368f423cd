/**
 * A fault-code entry whose remedy comes as several bold-labelled resolutions ("**Resolution 1:** …
 * **Resolution 2:** …", "**Fix:** … **Workaround:** …", or sub-headings "Resolution 1", "Resolution 2")
 * keeps every one of them in its record, in order and with its label, so the code answer does not stop
 * after the first. The fixtures are written here; their content is invented.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CodeRecord } from '../../../native/contract/document.js';
import { codeAnswerLines } from '../../../native/answer/extract.js';
import { extractCodes } from '../../../native/fault-codes/extract.js';
import { parseFile } from '../../../native/parse/index.js';
import { tempDir } from '../parse/helpers.js';

let tmp: Awaited<ReturnType<typeof tempDir>>;
beforeAll(async () => {
  tmp = await tempDir();
});
afterAll(() => tmp.cleanup());

async function recordOf(code: string, data: string): Promise<CodeRecord> {
  const doc = await parseFile(await tmp.file(`faults-${code}.md`, data));
  const records = extractCodes(doc, { file: 'pk9/faults.md', manual: 'PK-9 Stretch Wrapper', equipment: [] });
  const r = records.find((x) => x.code === code);
  if (!r) throw new Error(`no record for ${code}: ${records.map((x) => x.code).join(', ')}`);
  return r;
}

/** The code answer's text, as codeAnswer() joins it. */
function answerOf(r: CodeRecord): string {
  return codeAnswerLines({ ...r, key: r.code, score: 1, scope: [] } as unknown as Parameters<typeof codeAnswerLines>[0]).join('\n');
}

function inOrder(text: string, parts: string[]): void {
  let at = -1;
  for (const p of parts) {
    const i = text.indexOf(p);
    expect(i, `${p} in ${text}`).toBeGreaterThan(at);
    at = i;
  }
}

describe('a code entry with several labelled resolutions keeps them all', () => {
  it('a code line followed by "**Resolution 1:**" and "**Resolution 2:**" paragraphs', async () => {
    const r = await recordOf(
      'E-201',
      [
        '# Alarms',
        '',
        '## Alarm list',
        '',
        'E-201 Seal bar cold: The seal bar stayed below 120 °C for 30 s.',
        '',
        '**Resolution 1:** Check the heater fuse F4 and replace it if it is open.',
        '',
        '**Resolution 2:** Replace the thermocouple TC-2 when its reading jumps by more than 10 °C.',
        '',
        'The seal bar heats again on its own once the fault is cleared.',
        '',
        'E-202 Film low: The film roll diameter is below 40 mm.',
        '',
      ].join('\n'),
    );
    inOrder(r.remedy, ['Resolution 1: Check the heater fuse F4', 'Resolution 2: Replace the thermocouple TC-2']);
    expect(r.remedy).not.toContain('heats again');
    const answer = answerOf(r);
    inOrder(answer, ['Seal bar cold', 'Resolution 1: Check the heater fuse F4', 'Resolution 2: Replace the thermocouple TC-2']);
    expect(answer).not.toContain('**');
    expect(answer).not.toContain('Film low');
  });

  it('"**Fix:**" then "**Workaround:**" after the code line', async () => {
    const r = await recordOf(
      'E-302',
      [
        '# Faults',
        '',
        '## Fault list',
        '',
        'E-302 Air pressure low: The supply pressure fell below 5 bar.',
        '',
        '**Fix:** Check the compressor and the main air valve.',
        '',
        '**Workaround:** Lower `air.min` to 4.5 bar for the rest of the shift.',
        '',
      ].join('\n'),
    );
    inOrder(answerOf(r), ['Check the compressor and the main air valve.', 'Workaround: Lower air.min to 4.5 bar']);
  });

  it('a code heading with sub-headings "Resolution 1" and "Resolution 2"', async () => {
    const r = await recordOf(
      'E-303',
      [
        '# Faults',
        '',
        '## Fault list',
        '',
        '### E-303 Photo eye blocked',
        '',
        'The pallet photo eye saw an object for longer than 10 s.',
        '',
        '#### Resolution 1',
        '',
        'Remove the object and clean the photo eye lens.',
        '',
        '#### Resolution 2',
        '',
        'Realign the photo eye with its reflector.',
        '',
        '### E-304 Turntable stalled',
        '',
        'The turntable did not reach its home position.',
        '',
      ].join('\n'),
    );
    expect(r.description).toContain('photo eye saw an object');
    inOrder(r.remedy, ['Resolution 1: Remove the object', 'Resolution 2: Realign the photo eye']);
    expect(r.remedy).not.toContain('turntable');
  });

  it('labelled resolutions inside the entry\'s own paragraph stay as they were, each with its label', async () => {
    const r = await recordOf(
      'E-101',
      ['# Faults', '', '### E-101 Film break', '', 'The film roll tore.', '', '**Resolution 1:** Re-thread the film.', '', '**Resolution 2:** Lower the pre-stretch ratio.', ''].join('\n'),
    );
    inOrder(answerOf(r), ['The film roll tore.', 'Resolution 1: Re-thread the film.', 'Resolution 2: Lower the pre-stretch ratio.']);
  });

  it('a remedy cell that starts with its own "**Fix:**" label is not said twice ("Remedy: Fix: …"), its workaround kept', async () => {
    const r = await recordOf(
      'F-12',
      ['# Faults', '', '## Fault codes', '', '| Code | Name | Meaning | Remedy |', '|---|---|---|---|', '| F-12 | OVERVOLTAGE | The DC bus rose above 56 V. | **Fix:** fit the braking resistor kit. **Workaround:** lower the deceleration. |', ''].join('\n'),
    );
    const answer = answerOf(r);
    expect(answer).toContain('Remedy: fit the braking resistor kit. Workaround: lower the deceleration.');
    expect(answer).not.toContain('Fix:');
  });
});
