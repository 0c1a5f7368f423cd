import { describe, expect, it } from 'vitest';
import { codeAnswerLines, extractParts, passageUnits, termGroups } from '../../../native/answer/extract.js';
import { findSafety } from '../../../native/answer/safety.js';
import { checkCitations } from '../../../native/answer/citations.js';
import { rewriteFollowUp } from '../../../native/answer/followup.js';
import { budgetPrompt, EXAMPLE_TURN, systemPrompt, userPrompt } from '../../../native/answer/prompt.js';
import { hit } from './helpers.js';

const PROCEDURE = hit(
  [
    '## Replacing the pump filter',
    'WARNING: Switch off the main isolator and apply lockout before opening the tank.',
    'The filter sits under the tank cover.',
    '1. Remove the four cover screws.',
    '2. Pull the filter element straight up.',
    '3. Fit the new element and torque the screws to 8 Nm.',
    'Dispose of the old element as oily waste.',
  ].join('\n'),
);
const OTHER = hit('The back gauge fingers can be adjusted in height. Loosen the clamp lever first.');
const ROW = hit('"3","Oil temperature high","Oil above 60 °C. Check the cooler fan."', { kind: 'table-row' });

describe('passage units', () => {
  it('keeps steps, headings and rows whole and splits prose into sentences', () => {
    const units = passageUnits(PROCEDURE, 0).map((u) => [u.kind, u.text]);
    expect(units).toEqual([
      ['heading', '## Replacing the pump filter'],
      ['sentence', 'WARNING: Switch off the main isolator and apply lockout before opening the tank.'],
      ['sentence', 'The filter sits under the tank cover.'],
      ['step', '1. Remove the four cover screws.'],
      ['step', '2. Pull the filter element straight up.'],
      ['step', '3. Fit the new element and torque the screws to 8 Nm.'],
      ['sentence', 'Dispose of the old element as oily waste.'],
    ]);
    expect(passageUnits(ROW, 2)).toHaveLength(1);
  });
});

describe('extractive selection', () => {
  it('quotes a passage without holes: a short run under the same heading between two chosen units comes too', () => {
    const tuning = hit(
      ['#### Not stiff enough', 'The drive holds position with its PID gains.', '', 'The gains act at the output, so a gearbox lowers the stiffness at the rotor by its ratio squared.', '', 'Retune, or raise kp and kd by the square of the ratio.', '', 'A drive with a gearbox barely holds position with the old gains.'].join('\n'),
      { file: 'zx9/troubleshooting/tuning.md', manual: 'ZX9 Tuning', section: 'Tuning > Not stiff enough' },
    );
    const other = hit('The encoder reports its position over SPI.', { file: 'zx9/reference/encoder.md', manual: 'ZX9 Encoder', section: 'Encoder > Interface' });
    const text = extractParts('since I fitted a gearbox the drive barely holds position', [tuning, other]).map((p) => p.text);
    expect(text).toContain('Retune, or raise kp and kd by the square of the ratio.');
  });

  it('quotes a paragraph without holes: the sentences between two chosen ones of it come too', () => {
    const para = hit(
      'Second, the encoder magnet must be rigidly fixed to the shaft. No slip is allowed. In practice that means adhesive at every joint. Common adhesives are cyanoacrylate gel and epoxy. A printed spacer is glued to the rotor as well. A press fit around the magnet rarely holds.',
      { file: 'zx9/troubleshooting/encoder.md', manual: 'ZX9 Encoder', section: 'Encoder > Magnet' },
    );
    const other = hit('The encoder reports its position over SPI.', { file: 'zx9/reference/encoder.md', manual: 'ZX9 Encoder', section: 'Encoder > Interface' });
    const text = extractParts('encoder calibration fails, the magnet is held by a press fit and may slip on the shaft', [para, other]).map((p) => p.text).join(' ');
    expect(text).toContain('magnet must be rigidly fixed to the shaft');
    expect(text).toContain('A press fit around the magnet rarely holds.');
    expect(text).toContain('Common adhesives are cyanoacrylate gel and epoxy.');
  });

  it("a how-to question whose best passage has no command gets the next one's from the same documentation set, never another product's", () => {
    const overview = hit(['# Calibration', 'A new drive must be calibrated for its motor before it can run.', 'Calibration is required when:', '- the drive is new', '- the motor was changed'].join('\n'), { file: 'zx9/guides/calibration.md', manual: 'ZX9 Calibration', section: 'Calibration' });
    const other = hit(['## Calibrating the spindle', 'Calibrate the spindle with:', '```', 'spindlectl --calibrate', '```'].join('\n'), { file: 'acme/spindle.md', manual: 'Acme Spindle', section: 'Calibrating the spindle' });
    const command = hit(['## Calibration', 'With the firmware installed, calibrate the drive with:', '```', 'zx9tool --target 1 --calibrate', '```'].join('\n'), { file: 'zx9/reference/tools.md', manual: 'ZX9 Tools', section: 'Calibration' });
    const text = extractParts('how do I calibrate a new motor on a ZX9 drive', [overview, other, command]).map((p) => p.text).join('\n');
    expect(text).toContain('Calibration is required when:');
    expect(text).toContain('zx9tool --target 1 --calibrate');
    expect(text).not.toContain('spindlectl');
  });

  it("the product's name does not lead to a passage that merely repeats it (its manual's passages all are about the product)", () => {
    const manual = { file: 'zx9/zx9-build-guide.pdf', manual: 'ZX9 Build Guide' };
    const answer = hit(['#### Print settings', 'Use a layer height of half the nozzle width, 4 perimeters and 40% infill.'].join('\n'), { ...manual, section: 'Printed parts > Print settings' });
    const material = hit('#### Material\nPrint the frame parts in ABS or ASA.', { ...manual, section: 'Printed parts > Material' });
    const download = hit('The ZX9 slicer profile is for an old slicer release; newer settings may not load it.', { ...manual, section: 'Software > Slicer' });
    const parts = extractParts('what print settings should I use for the ZX9 parts', [answer, material, download]);
    expect(parts[0]?.passage).toBe(0);
    expect(parts.map((p) => p.text).join(' ')).toContain('40% infill');
  });

  it('a question matching a section heading gets the section, steps numbered as written', () => {
    const parts = extractParts('how do I replace the pump filter', [PROCEDURE, OTHER]);
    expect(parts.map((p) => p.text)).toEqual(PROCEDURE.text.split('\n'));
    expect(parts.every((p) => p.passage === 0)).toBe(true);
  });
  it('picks the sentences that carry the question\'s words and a whole step run, in manual order', () => {
    const parts = extractParts('what torque for the cover screws', [PROCEDURE, OTHER]);
    expect(parts.map((p) => p.text)).toEqual([
      'The filter sits under the tank cover.',
      '1. Remove the four cover screws.',
      '2. Pull the filter element straight up.',
      '3. Fit the new element and torque the screws to 8 Nm.',
    ]);
  });
  it('takes from a lower-ranked passage when it is the one about the question', () => {
    const parts = extractParts('adjust back gauge finger height', [PROCEDURE, OTHER]);
    expect(parts).toEqual([
      { text: 'The back gauge fingers can be adjusted in height.', passage: 1 },
      { text: 'Loosen the clamp lever first.', passage: 1 },
    ]);
  });
  it('a lead-in sentence brings the list it introduces', () => {
    const p = hit('## Print settings\nPrint the brackets with these minimum slicer settings:\n- Layer height 50% of the nozzle\n- 5 top and bottom layers\n- 40% infill\nPLA is fine for covers.');
    expect(extractParts('what slicer settings for the brackets', [p]).map((x) => x.text)).toEqual([
      'Print the brackets with these minimum slicer settings:',
      '- Layer height 50% of the nozzle',
      '- 5 top and bottom layers',
      '- 40% infill',
    ]);
  });
  it('a lead-in among the sentences after the best one brings its list', () => {
    const p = hit('Counter errors on the bus mean reordered frames. If seen, make sure to:\n- Update the adapter firmware to v2.0.\n- Use kernel 6.6 or later.\nOther text.');
    expect(extractParts('bus counter errors', [p]).map((x) => x.text)).toEqual([
      'Counter errors on the bus mean reordered frames.',
      'If seen, make sure to:',
      '- Update the adapter firmware to v2.0.',
      '- Use kernel 6.6 or later.',
    ]);
  });
  it('the best sentence brings the caveats that follow it; a matching inner heading brings its subsection', () => {
    const p = hit(
      '#### Unlock\nAlarm mode locks all commands. To move the axes off the switches, send the unlock command to clear the alarm lock.\nBe careful. The position may be lost. Home the machine again.\n#### Homing cycle\nStarts at the switches and sets zero.',
    );
    // The best sentence is read from its paragraph's start (issue 41): why the unlock is needed comes first.
    expect(extractParts('clear the alarm lock to move off the switches', [p]).map((x) => x.text)).toEqual([
      'Alarm mode locks all commands.',
      'To move the axes off the switches, send the unlock command to clear the alarm lock.',
      'Be careful.',
      'The position may be lost.',
      'Home the machine again.',
    ]);
    expect(extractParts('what does the homing cycle do', [p]).map((x) => x.text)).toEqual(['Home the machine again.', '#### Homing cycle', 'Starts at the switches and sets zero.']);
  });
  it('the best-ranked passage about the question leads; a hyphenated word counts once', () => {
    const faq = hit('## Why can\'t I move before homing?\nThe controller checks each head move against the travel limits only after homing.');
    const psu = hit('Power supply: a power supply must be rated for the power of all motors. Power-on the PSU last.');
    const parts = extractParts('why can\'t I jog the head after power-on', [faq, psu]);
    expect(parts[0]).toEqual({ text: 'The controller checks each head move against the travel limits only after homing.', passage: 0 });
    expect(termGroups('power-on head 电源接线', ['poweron', 'power', 'head', '电源', '接线', 'extra'])).toEqual([['poweron', 'power'], ['head'], ['电源'], ['接线'], ['extra']]);
  });
  it('a lower-ranked passage that covers much more of the question leads; one that covers a little more does not', () => {
    const first = hit('1. Wait for the nozzle to heat up (M109 S140).\n2. Home the machine.');
    const faq = hit('## How do I cancel an M109 wait for temperature?\nSend M112 to shut down, then FIRMWARE_RESTART.');
    expect(extractParts('cancel an M109 temperature wait', [first, faq])[0]?.passage).toBe(1);
    const near = hit('The nozzle heats to the M109 temperature before printing.');
    expect(extractParts('M109 nozzle heat', [first, near])[0]?.passage).toBe(0);
  });
  it('an example alone is no answer: a passage whose only match is its code block brings the prose that explains it', () => {
    const p = hit(
      [
        '### Keep the watchdog fed',
        'The drive stops when no command arrives for a tenth of a second. Your program must keep sending commands, also while it waits.',
        'Python:',
        '```python',
        '# not: time.sleep(5)',
        'for _ in range(250):',
        '    drive.hold()',
        '    time.sleep(0.02)',
        '```',
      ].join('\n'),
    );
    const parts = extractParts('my python program sleeps and the drive goes dead', [p]).map((x) => x.text);
    expect(parts[0]).toBe('The drive stops when no command arrives for a tenth of a second.');
    expect(parts).toContain('Your program must keep sending commands, also while it waits.');
    expect(parts.at(-1)).toMatch(/^```python\n# not: time\.sleep\(5\)/);
    // A passage whose prose carries the question's words is quoted as before (the code is not the only match).
    const direct = extractParts('what happens when no command arrives for a tenth of a second', [p]).map((x) => x.text);
    expect(direct[0]).toBe('The drive stops when no command arrives for a tenth of a second.');
  });
  it('nothing in common → nothing extracted', () => {
    expect(extractParts('spindle encoder', [OTHER])).toEqual([]);
  });
  it('a code record reads as code, title, meaning, cause, remedy', () => {
    expect(
      codeAnswerLines({
        code: 'AL-03', key: 'al:3', title: 'Oil temperature high', description: 'Oil above 60 °C.', cause: 'Cooler fan stopped',
        remedy: 'Check the cooler fan.', severity: null, scope: ['HPB-200'], manual: 'm', file: 'f', page: 4, section: '', text: '',
      }),
    ).toEqual(['AL-03: Oil temperature high', 'Oil above 60 °C.', 'Cause: Cooler fan stopped', 'Remedy: Check the cooler fan.', 'Applies to: HPB-200']);
  });
  it('a code found through a prefix scheme shows as typed, then as the manual writes it', () => {
    const lines = codeAnswerLines({
      code: 'XX110', key: '31110', title: 'DOOR OPEN', description: '', cause: '', remedy: 'Close the door.', severity: null,
      scope: ['COREONE'], manual: 'm', file: 'f', page: null, section: '', text: '',
    });
    expect(lines[0]).toBe('31110 (XX110): DOOR OPEN');
  });
  it('a hexadecimal code shows as the manual writes it, not as its value', () => {
    const rec = { code: '0x0001', key: '0x1', title: 'Overcurrent', description: '', cause: '', remedy: '', severity: null, scope: [], manual: 'm', file: 'f', page: null, section: '', text: '' };
    expect(codeAnswerLines(rec)[0]).toBe('0x0001: Overcurrent');
  });
  it('a bare number of a word family names the family (a manual with alarm 8 and error 8)', () => {
    const rec = { code: '8', key: 'alarm:8', title: 'Homing fail', description: '', cause: '', remedy: 'Check wiring.', severity: null, scope: [], manual: 'm', file: 'f', page: null, section: '', text: '' };
    expect(codeAnswerLines(rec)[0]).toBe('Alarm 8: Homing fail');
    expect(codeAnswerLines({ ...rec, key: 'error:8', title: 'Not idle' })[0]).toBe('Error 8: Not idle');
    expect(codeAnswerLines({ ...rec, code: '1430', key: '1430', title: 'Power off' })[0]).toBe('1430: Power off');
  });
  it('a record whose only text is what to do says it once, as the remedy', () => {
    const rec = { code: 'MotorFailed', key: 'motor_failed', title: 'Check motor.error for more information.', description: '', cause: '', remedy: 'Check motor.error for more information.', severity: null, scope: ['Axis'], manual: 'm', file: 'f', page: null, section: '', text: '' };
    expect(codeAnswerLines(rec)).toEqual(['MotorFailed', 'Remedy: Check motor.error for more information.', 'Applies to: Axis']);
  });
  it('a description that opens with the title line (a meaning column, then a note column) adds only the note', () => {
    const rec = { code: '-10000', key: 'error:10000', title: '命令错误', description: '命令错误\n下发的命令不存在', cause: '', remedy: '', severity: null, scope: [], manual: 'm', file: 'f', page: null, section: '', text: '' };
    expect(codeAnswerLines(rec)).toEqual(['-10000: 命令错误', '下发的命令不存在']);
  });
});

describe('safety text', () => {
  it('finds admonitions and lockout text verbatim, in citation order, once each', () => {
    const notices = findSafety([
      { n: 1, text: PROCEDURE.text },
      { n: 2, text: 'CAUTION: Hot surface.\nDANGER\nHigh voltage inside.\nWARNING TMC TOO HOT is a title, not a warning' },
      { n: 3, text: PROCEDURE.text },
      { n: 4, text: 'Apply the tag-out procedure of your site.\n警告：断电后再打开。' },
    ]);
    expect(notices).toEqual([
      { kind: 'WARNING', text: 'WARNING: Switch off the main isolator and apply lockout before opening the tank.', n: 1 },
      { kind: 'CAUTION', text: 'CAUTION: Hot surface.', n: 2 },
      { kind: 'DANGER', text: 'DANGER High voltage inside.', n: 2 },
      { kind: 'LOCKOUT', text: 'Apply the tag-out procedure of your site.', n: 4 },
      { kind: 'WARNING', text: '警告：断电后再打开。', n: 4 },
    ]);
  });
});

describe('citation check', () => {
  it('keeps valid numbers, removes and reports the others', () => {
    expect(checkCitations('Send $X [1]. Then home [2, 7]. Reset [9].', 3)).toEqual({
      text: 'Send $X [1]. Then home [2]. Reset.',
      valid: [1, 2],
      invalid: [7, 9],
    });
  });
  it('no valid citation at all', () => {
    expect(checkCitations('Just text [0] and [4]', 3)).toMatchObject({ valid: [], invalid: [0, 4] });
  });
});

describe('follow-ups', () => {
  const conv = [{ question: 'what does alarm 9 mean on grbl', answer: 'Homing fail [1]' }];
  it('carries the previous question\'s code into a follow-up with a pronoun', () => {
    expect(rewriteFollowUp('and how do I reset it?', conv)).toEqual({ standalone: 'and how do I reset it? alarm 9', rewritten: true });
  });
  it('carries the subject when there is no code', () => {
    expect(rewriteFollowUp('how often?', [{ question: 'change the hydraulic oil', answer: '…' }])).toEqual({
      standalone: 'how often? change hydraulic oil',
      rewritten: true,
    });
  });
  it('leaves a standalone question and a first question alone', () => {
    expect(rewriteFollowUp('how do I replace the pump filter', conv).rewritten).toBe(false);
    expect(rewriteFollowUp('and how do I reset it?', []).rewritten).toBe(false);
    expect(rewriteFollowUp('what about error 22', conv)).toEqual({ standalone: 'what about error 22', rewritten: false });
  });
  it('a new question whose pronoun points at its own words stands alone; a pronoun with no subject before it still points back', () => {
    const prev = [{ question: 'Motor calibration fails with phase resistance out of range, how do I fix it?', answer: '…' }];
    expect(rewriteFollowUp("My spindle buzzes and shakes while it's just holding position, what's wrong?", prev).rewritten).toBe(false);
    expect(rewriteFollowUp('How do I run the anticogging calibration and make it stay after a reboot?', prev).rewritten).toBe(false);
    expect(rewriteFollowUp('is there a fault code for low oil pressure?', prev).rewritten).toBe(false);
    expect(rewriteFollowUp('how do I clear that alarm?', conv)).toEqual({ standalone: 'how do I clear that alarm? alarm 9', rewritten: true });
    expect(rewriteFollowUp('where is it?', prev)).toEqual({ standalone: 'where is it? Motor calibration fails phase resistance out range', rewritten: true });
  });
});

describe('prompt and token budget', () => {
  const words = (s: string) => s.split(/\s+/).filter(Boolean).length;
  const sources = [1, 2, 3].map((n) => ({ n, manual: 'M', section: `S${n}`, page: n, text: Array(50).fill(`w${n}`).join(' ') }));
  it('has role, the only-from-sources rule and a citation example', () => {
    const s = systemPrompt();
    expect(s).toContain('You are ManualDesk');
    expect(s).toContain('using only the sources');
    expect(s).toMatch(/\[1\]/);
  });
  it('keeps the best-ranked passages that fit and drops the rest by rank', () => {
    const fixed = words(systemPrompt()) + words(EXAMPLE_TURN.user) + words(EXAMPLE_TURN.answer) + words(userPrompt('q', [])) + 64;
    const b = budgetPrompt({ question: 'q', sources, countTokens: words, contextSize: fixed + 130 + 20, answerTokens: 20, maxSources: 3 });
    expect(b.included).toEqual([1, 2]);
    expect(b.dropped).toEqual([3]);
    expect(b.user).toContain('Source [1] (M | Section: S1 | Page: 1):');
    expect(b.user).not.toContain('w3');
  });
  it('cuts the best passage when even it does not fit', () => {
    const fixed = words(systemPrompt()) + words(EXAMPLE_TURN.user) + words(EXAMPLE_TURN.answer) + words(userPrompt('q', [])) + 64;
    const b = budgetPrompt({ question: 'q', sources, countTokens: words, contextSize: fixed + 30 + 20, answerTokens: 20, maxSources: 3 });
    expect(b.included).toEqual([1]);
    expect(b.truncated).toEqual([1]);
    expect(b.dropped).toEqual([2, 3]);
    expect(b.promptTokens).toBeLessThanOrEqual(fixed + 30);
  });
});
