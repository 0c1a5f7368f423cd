/** Answers a technician can follow: a lead-in brings what it introduces, whole; code stays a fenced block. */
import { describe, expect, it } from 'vitest';
import { extractParts, passageUnits, renderParts } from '../../../native/answer/extract.js';
import { findSafety, sectionReferences } from '../../../native/answer/safety.js';
import { hit } from './helpers.js';

const WARMUP = hit('### 4.1 Spindle warm-up\nRun the warm-up program O9000 before the first job. Skipping warm-up can raise E-107 (spindle overtemperature) when the spindle is too hot.');
const OVERHEAT = hit(
  '### 4.2 Spindle overheating\nIf the spindle housing is too hot after warm-up, or E-107 appears:\n1. Check that the chiller is running.\n2. Check the chiller oil level and the filter.\n3. Check the hoses are not kinked.\n4. Reduce spindle load.\n5. If the temperature still rises, stop the spindle and call service.',
);

describe('lead-ins and their lists', () => {
  it('a lead-in from a passage other than the primary brings all its steps, never ends the answer on ":"', () => {
    const parts = extractParts('spindle too hot after warm-up', [WARMUP, OVERHEAT]);
    const texts = parts.map((p) => p.text);
    const at = texts.indexOf('If the spindle housing is too hot after warm-up, or E-107 appears:');
    expect(at).toBeGreaterThanOrEqual(0);
    expect(texts.slice(at + 1, at + 6)).toEqual([
      '1. Check that the chiller is running.',
      '2. Check the chiller oil level and the filter.',
      '3. Check the hoses are not kinked.',
      '4. Reduce spindle load.',
      '5. If the temperature still rises, stop the spindle and call service.',
    ]);
    expect(texts[texts.length - 1]).not.toMatch(/:$/);
  });

  it('keeps the list whole even past the unit budget, and drops a lead-in it cannot complete', () => {
    const p = hit('Things to check when the pump is noisy:\n- Inlet strainer.\n- Coupling.\n- Bearings.\n- Mounting bolts.\n- Hose clamps.');
    expect(extractParts('pump is noisy', [p], { maxUnits: 2 }).map((x) => x.text)).toHaveLength(6);
  });

  it('a list item is never cut from the sentence that introduces it', () => {
    const p = hit('Calibration is required when:\n- Using a new board.\n- Changing to a different motor.\nOther text about firmware.');
    const texts = extractParts('changing to a different motor', [p]).map((x) => x.text);
    expect(texts.slice(0, 1)).toEqual(['Calibration is required when:']);
    expect(texts).toContain('- Changing to a different motor.');
  });
});

describe('code blocks', () => {
  const FAULT = hit('## Clearing faults\nOnce the cause of the fault has been identified, it can be cleared by sending:\n```\nd stop\n```\nThen retry the command.');

  it('reads a fenced code block as one unit', () => {
    expect(passageUnits(FAULT, 0).map((u) => [u.kind, u.text])).toEqual([
      ['heading', '## Clearing faults'],
      ['sentence', 'Once the cause of the fault has been identified, it can be cleared by sending:'],
      ['code', '```\nd stop\n```'],
      ['sentence', 'Then retry the command.'],
    ]);
  });

  it('a lead-in brings the code block that follows it, and the rendered block stays a valid fence', () => {
    const parts = extractParts('clear a fault once I know the cause', [FAULT]);
    expect(parts.map((p) => p.text)).toContain('```\nd stop\n```');
    const text = renderParts(parts, () => 1);
    expect(text).toContain('it can be cleared by sending: [1]\n```\nd stop\n```');
    expect(text).not.toMatch(/```\s*\[1\]/);
  });

  it('a how-to answer brings the section\'s configuration line even when its words are not the question\'s', () => {
    const p = hit('## Homing at start-up\nThe axis can home itself each time the controller boots, which saves a manual step after power loss. To enable it, set the flag:\n```\nodrv0.axis0.config.startup_homing = True\n```');
    const texts = extractParts('how do I make the axis home itself after boot', [p]).map((x) => x.text);
    expect(texts).toContain('```\nodrv0.axis0.config.startup_homing = True\n```');
  });

  it('a cited code block with no lead-in of its passage gets its citation on the line before the fence', () => {
    expect(renderParts([{ text: 'Intro.', passage: 0 }, { text: '```\nM112\n```', passage: 1 }], (i) => i + 1)).toBe('Intro. [1]\n[2]\n```\nM112\n```');
  });
});

describe('safety levels and references', () => {
  it('gives NOTICE its own level and reads a label inside Markdown emphasis', () => {
    expect(findSafety([{ n: 1, text: 'NOTICE: Use only ISO VG 32 oil.\n**DANGER:** Crush zone.' }]).map((s) => s.kind)).toEqual(['NOTICE', 'DANGER']);
  });

  it('a lockout section heading brings its text, never a bare heading', () => {
    const notices = findSafety([{ n: 1, text: '### 1.1 Lockout / tagout\nSwitch the isolator off and padlock it.\nWARNING: Stored energy.' }]);
    expect(notices).toEqual([
      { kind: 'LOCKOUT', text: 'Switch the isolator off and padlock it.', n: 1 },
      { kind: 'WARNING', text: 'WARNING: Stored energy.', n: 1 },
    ]);
  });

  it('finds references to sections by number and by title', () => {
    const refs = sectionReferences([{ n: 2, text: '1. Lock out the machine (section 1.1).\n2. Bleed the air, see Safety.\n3. Check the level (see 4.4).' }]);
    expect(refs.map((r) => [r.n, r.target, r.byNumber])).toEqual([
      [2, '1.1', true],
      [2, 'Safety', false],
      [2, '4.4', true],
    ]);
  });
});
