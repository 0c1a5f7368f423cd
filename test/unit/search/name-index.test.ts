import { describe, expect, it } from 'vitest';
import { buildNameIndex, inScope, matchNames, nameKey, type NameRecord } from '../../../native/search/plan/name-index.js';

/** A small library: three sources, one with sidecar equipment, headings with product and generic words. */
const RECORDS: NameRecord[] = [
  { file: 'acme-servo/docs/setup.md', title: 'Setup', headings: ['Wiring the AX200-R2', 'Power and ground', 'CAN bus'] },
  { file: 'acme-servo/docs/faults.md', title: 'Faults', headings: ['AX200 fault table', 'CAN bus errors'] },
  { file: 'acme-servo/docs/tuning.md', title: 'Tuning with ServoLab', headings: ['ServoLab basics'] },
  { file: 'acme-servo/docs/tools.md', title: 'Tools', headings: ['ServoLab console'] },
  { file: 'zeta-mill/manual/start.md', title: 'Zeta Mill start-up', headings: ['Homing', 'CAN bus', 'G28 homing'] },
  { file: 'zeta-mill/manual/codes.yaml', title: 'Error codes', headings: ['G28 moves', 'SPINDLE', 'Spindle LOAD meter'] },
  { file: 'zeta-mill/manual/spindle.md', title: 'Spindle', headings: ['SPINDLE LOAD', 'Reading the LOAD', 'Belt load and speed'] },
  { file: 'printers/ZX3/guide.md', title: 'ZX3 guide', equipment: ['Kappa MK4S', 'Kappa MK3.9'] },
  { file: 'printers/ZX3/cn.md', title: '卡帕打印机手册', equipment: ['卡帕'] },
  { file: 'loose-file.md', title: 'Loose notes' },
];

describe('buildNameIndex', () => {
  const index = buildNameIndex(RECORDS);
  const names = (kind: string) => index.entries.filter((e) => e.kind === kind).map((e) => e.name).sort();

  it('source folders and their name parts scope by prefix; generic parts are left out', () => {
    expect(names('source')).toEqual(['acme', 'acme-servo', 'mill', 'printers', 'servo', 'zeta', 'zeta-mill']);
    expect(index.entries.find((e) => e.key === 'acme')?.prefixes).toEqual(['acme-servo']);
  });

  it('sidecar equipment, whole and by name-shaped part, scopes to its files', () => {
    const eq = index.entries.filter((e) => e.kind === 'equipment');
    expect(eq.map((e) => e.key).sort()).toEqual(['kappa', 'kappamk39', 'kappamk4s', 'mk39', 'mk4s', '卡帕']);
    expect(eq.find((e) => e.key === 'mk4s')?.files).toEqual(['printers/ZX3/guide.md']);
  });

  it('name-shaped title/heading words concentrated in one source are names; shared words, G-codes and one-file words are not', () => {
    const keys = index.entries.filter((e) => e.kind === 'title' || e.kind === 'heading').map((e) => e.key).sort();
    expect(keys).toContain('ax200');
    expect(keys).toContain('servolab');
    expect(keys).not.toContain('can'); // in two sources
    expect(keys).not.toContain('g28'); // a G-code
    expect(keys).not.toContain('zx3'); // one file only
    expect(keys).not.toContain('homing'); // a plain word
    expect(keys).not.toContain('load'); // in capitals, but the library also writes it in lower case
  });

  it('is plain JSON', () => {
    expect(JSON.parse(JSON.stringify(index))).toEqual(index);
  });
});

describe('matchNames', () => {
  const index = buildNameIndex(RECORDS);

  it('ignores case, spaces and hyphens', () => {
    expect(matchNames(index, 'how do I home the ZETA mill')?.prefixes).toEqual(['zeta-mill']);
    expect(matchNames(index, 'servo lab console will not connect')?.files.sort()).toEqual([
      'acme-servo/docs/tools.md',
      'acme-servo/docs/tuning.md',
    ]);
    expect(matchNames(index, 'Kappa MK 4S nozzle')?.files).toEqual(['printers/ZX3/guide.md']);
  });

  it('a model variant matches its product, a short model matches the longer one', () => {
    expect(matchNames(index, 'our acme-r4 trips on braking')?.prefixes).toEqual(['acme-servo']);
    expect(matchNames(index, 'ax200r2 wiring')?.names).toContain('AX200');
    expect(matchNames(index, 'mk4 heater fault')?.names).toContain('MK4S');
  });

  it('Chinese names match inside the sentence', () => {
    expect(matchNames(index, '卡帕打印机喷嘴堵了怎么办')?.files).toContain('printers/ZX3/cn.md');
  });

  it('unknown products and plain words scope nothing', () => {
    expect(matchNames(index, 'Omega 9000 spindle will not start')).toBeNull();
    expect(matchNames(index, 'homing fails on the can bus')).toBeNull();
    expect(matchNames(index, 'G28 does nothing')).toBeNull();
  });

  it('inScope: by file or by folder prefix, never by a prefix of a folder name', () => {
    const scope = { names: ['acme'], files: ['printers/ZX3/guide.md'], prefixes: ['acme-servo'] };
    expect(inScope(scope, 'acme-servo/docs/setup.md')).toBe(true);
    expect(inScope(scope, 'printers/ZX3/guide.md')).toBe(true);
    expect(inScope(scope, 'acme-servo-old/docs/setup.md')).toBe(false);
    expect(inScope(scope, 'zeta-mill/manual/start.md')).toBe(false);
  });

  it('nameKey', () => {
    expect(nameKey('Moteus-R4 ')).toBe('moteusr4');
    expect(nameKey('卡帕 MK3.9')).toBe('卡帕mk39');
  });
});
