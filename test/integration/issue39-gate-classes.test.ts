/**
 * Issue 39, item 4: out-of-scope questions by class, through the real engine (name index → retrieval
 * scope → code lookup → library vocabulary and term spread → gate) over invented manuals of four
 * products, each in its own folder:
 * - a code asked for a named product that only another product's manual defines;
 * - an unknown brand or machine, with a code or a task;
 * - a task whose words are generic ("adjust", "pressure", "switch", "replace", "fuse") on equipment no
 *   manual covers.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { gate } from '../../native/answer/evidence.js';
import { engineOverDocs } from './engine-fixture.js';
import { value } from './helpers.js';

const COVERS = 'The installed manuals cover: kesta, lumo, orvan, torvald, velar.';

const engine = engineOverDocs('issue39-gate', (docs) => {
  const write = (folder: string, file: string, text: string) => {
    fs.mkdirSync(path.join(docs, folder), { recursive: true });
    fs.writeFileSync(path.join(docs, folder, file), text);
  };
  write(
    'torvald',
    'lathe-alarms.md',
    [
      '# Torvald lathe alarms',
      '',
      '## Alarm list',
      '',
      '- Alarm 412 - *spindle overload* - the spindle motor drew more than its rated current for five seconds; reduce the feed.',
      '- Alarm 413 - *chuck open* - the chuck opened while the spindle turned.',
      '',
      '## Coolant pump',
      '',
      'Adjust the pressure switch of the coolant pump so that it opens at 2 bar. Replace the pump fuse with a 4 A slow-blow fuse.',
      '',
    ].join('\n'),
  );
  write(
    'orvan',
    'press-maintenance.md',
    [
      '# Orvan press maintenance',
      '',
      '## Ram pressure',
      '',
      'To adjust the ram pressure, turn the relief valve until the gauge reads 180 bar, then lock the pressure switch.',
      '',
      '## Guard interlock',
      '',
      'The press stops when the guard opens. Replace the interlock switch when its contacts are worn; the control fuse is 2 A.',
      '',
    ].join('\n'),
  );
  write(
    'lumo',
    'printer-service.md',
    [
      '# Lumo printer service',
      '',
      '## Filament sensor',
      '',
      'The filament sensor switch needs no adjustment. Replace it when the pressure arm is worn.',
      '',
      '## Heater fuse',
      '',
      'Adjust the bed heater limit in the menu. Replace a blown heater fuse only with the same rating.',
      '',
      'The LX200 board drives the heaters.',
      '',
    ].join('\n'),
  );
  write(
    'kesta',
    'arm-commissioning.md',
    [
      '# Kesta arm commissioning',
      '',
      '## Homing',
      '',
      'Each joint homes against its index mark. Jog joint 3 to its mark before homing.',
      '',
      '## Tools',
      '',
      'A plasma cutter torch mounts on the joint 6 flange; clamp its ground lead to the base.',
      '',
      '## Fault list',
      '',
      '- Fault 412 - *joint 2 overheat* - let the joint cool for ten minutes before enabling the arm again.',
      '',
      '## 工具',
      '',
      '等离子切割头安装在第 6 轴法兰上，接地线接到底座。',
      '',
    ].join('\n'),
  );
  // A product whose folder name its manuals' titles repeat in capitals (a title name as well as a folder name).
  write('velar', 'spindle-guide.md', ['# VELAR spindle guide', '', '## Belt', '', 'Tension the spindle belt until it deflects 5 mm.', ''].join('\n'));
  write('velar', 'tool-changer.md', ['# VELAR tool changer', '', '## Carousel', '', 'Index the carousel by hand before the first tool change.', ''].join('\n'));
});

describe('a code asked for a named product that only another product defines', () => {
  it('says the named product’s manuals do not define it and shows the other definition as the other product’s', async () => {
    const a = value(await engine().ask({ question: 'Orvan alarm 412 what does it mean', prefer: 'extractive' }));
    expect(a.refused).toBe(true);
    expect(a.answer).toMatch(/The manuals of "Orvan" do not define/i);
    expect(a.answer).toContain('Torvald lathe alarms');
    expect(a.answer.toLowerCase()).toContain('spindle overload');
    expect(a.answer).toContain('not an answer for this one');
  });

  it('says so too when the product is named by its folder and by its manuals\' titles (velar, "VELAR spindle guide")', async () => {
    const a = value(await engine().ask({ question: 'velar alarm 412 what does it mean', prefer: 'extractive' }));
    expect(a.refused).toBe(true);
    expect(a.answer).toMatch(/The manuals of "velar" do not define alarm 412/i);
    expect(a.answer).toContain('Torvald lathe alarms');
    expect(a.answer).toContain('not an answer for this one');
  });

  it('without a code, a product named by its folder and titles keeps answering beside another product\'s name', async () => {
    const a = value(await engine().ask({ question: 'how do I index the carousel on the velar with the LX200 board', prefer: 'extractive' }));
    expect(a.refused).toBe(false);
    expect(a.answer).toContain('Index the carousel by hand');
  });

  it('answers the code for the product whose manual defines it, and with no product named', async () => {
    for (const question of ['Torvald alarm 412 what does it mean', 'alarm 412 what does it mean']) {
      const a = value(await engine().ask({ question, prefer: 'extractive' }));
      expect(a.refused, question).toBe(false);
      expect(a.answer.toLowerCase()).toContain('spindle overload');
    }
  });
});

describe('a code asked for a named product by another word than its manuals use', () => {
  it('answers the product\'s own code, though another product defines the number under the word typed', async () => {
    // Kesta calls its codes faults; Torvald has an alarm 412.
    const a = value(await engine().ask({ question: 'kesta alarm 412 what does it mean', prefer: 'extractive' }));
    expect(a.refused).toBe(false);
    expect(a.answer.split('\n')[0]).toContain('joint 2 overheat');
  });
});

describe('an unknown brand or machine', () => {
  it('with a task: refuses and says which folders the library covers', async () => {
    const a = value(await engine().ask({ question: 'Norvex arm joint 3 will not home', prefer: 'extractive' }));
    expect(a.refused).toBe(true);
    expect(a.answer).toContain('"Norvex"');
    expect(a.answer).toContain(COVERS);
  });

  it('with a code a manual defines: refuses and says which folders the library covers', async () => {
    const a = value(await engine().ask({ question: 'Norvex alarm 412', prefer: 'extractive' }));
    expect(a.refused).toBe(true);
    expect(a.answer).toContain(COVERS);
  });
});

describe('a code asked for a machine, in plain words, that the code\'s manuals never mention', () => {
  it('refuses though another manual uses the words (the code is not that machine\'s)', async () => {
    const a = value(await engine().ask({ question: 'plasma cutter alarm 412', prefer: 'extractive' }));
    expect(a.refused).toBe(true);
    expect(a.answer).toMatch(/Alarm 412 is defined only in manuals that do not mention "plasma", "cutter"|"cutter", "plasma"/);
  });

  it('refuses when the name given with it is another manual\'s, though the first passages hold it (LX200: the Lumo printer\'s board)', async () => {
    const a = value(await engine().ask({ question: 'alarm 412 on the LX200 board', prefer: 'extractive' }));
    expect(a.refused).toBe(true);
    expect(a.answer).toMatch(/Alarm 412 is defined only in manuals that do not mention "LX200"/);
  });

  it('answers when the code\'s manuals use a word of it', async () => {
    const a = value(await engine().ask({ question: 'spindle alarm 412', prefer: 'extractive' }));
    expect(a.refused).toBe(false);
    expect(a.answer.toLowerCase()).toContain('spindle overload');
  });
});

describe('a model of a product the library covers that its manuals never mention', () => {
  it('refuses, listing the manuals the library holds for that product', async () => {
    const a = value(await engine().ask({ question: 'Orvan OV9 ram will not return', prefer: 'extractive' }));
    expect(a.refused).toBe(true);
    expect(a.answer).toContain('The installed manuals do not mention "OV9". The installed manuals for "Orvan" are: Orvan press maintenance.');
  });
});

describe('a Chinese question naming a kind of machine no manual covers', () => {
  it('with a code a manual defines: refuses, though the manuals use the compound\'s first word (等离子)', async () => {
    const a = value(await engine().ask({ question: '等离子切割机 报警 412 怎么处理', prefer: 'extractive' }));
    expect(a.refused).toBe(true);
    expect(a.answer).toContain('"切割机"');
    expect(a.answer).toContain(COVERS);
  });
});

describe('a brand or model typed in lower case', () => {
  it('with a model and a code a manual defines: refuses, naming the brand', async () => {
    const a = value(await engine().ask({ question: 'norvex px7 alarm 412', prefer: 'extractive' }));
    expect(a.refused).toBe(true);
    expect(a.answer).toContain('"norvex"');
    expect(a.answer).toContain(COVERS);
  });

  it('with a model number and a task: refuses, naming it', async () => {
    const a = value(await engine().ask({ question: 'velka 3 pressure switch needs adjusting', prefer: 'extractive' }));
    expect(a.refused).toBe(true);
    expect(a.answer).toContain('"velka"');
  });

  it('answers a code the named product defines on a machine the library does not know, saying so', async () => {
    const a = value(await engine().ask({ question: 'norvex px7 torvald alarm 412', prefer: 'extractive' }));
    expect(a.refused).toBe(false);
    expect(a.answer).toContain('do not mention');
    expect(a.answer.toLowerCase()).toContain('spindle overload');
  });
});

describe('a brand the dictionary has as a proper noun, typed in lower case before a code', () => {
  it('refuses as it does the capitalised brand: the code is not that brand\'s', async () => {
    for (const question of ['lincoln spindle alarm 412', 'Lincoln spindle alarm 412']) {
      const a = value(await engine().ask({ question, prefer: 'extractive' }));
      expect(a.refused, question).toBe(true);
      expect(a.answer).toMatch(/Alarm 412 is defined only in manuals that do not mention "[Ll]incoln"/);
    }
  });
});

describe('a day or a month in the question', () => {
  it('is when it happens, not a product the named product\'s manuals lack', async () => {
    for (const question of ['every Monday the Kesta arm will not home', 'Since July the Kesta arm will not home']) {
      const a = value(await engine().ask({ question, prefer: 'extractive' }));
      expect(a.refused, question).toBe(false);
      expect(a.answer).toContain('index mark');
    }
  });
});

describe('a question about a product the library covers, on something its manuals never say', () => {
  it('refuses when the first passages share only the product\'s name with it (a price, a warranty)', async () => {
    for (const [question, words] of [['what does the Kesta cost', '"cost"'], ['who designed the Kesta', '"designed"']] as const) {
      const a = value(await engine().ask({ question, prefer: 'extractive' }));
      expect(a.refused, question).toBe(true);
      expect(a.answer).toContain(`The closest passages of the manuals of "Kesta" say nothing about ${words}.`);
    }
  });

  it('answers what its manuals do say, asked the same way', async () => {
    const a = value(await engine().ask({ question: 'what does the Kesta do before homing', prefer: 'extractive' }));
    expect(a.refused).toBe(false);
    expect(a.answer).toContain('index mark');
  });
});

describe('a task in generic words on equipment no manual covers', () => {
  it('refuses when the passages share only the generic words', async () => {
    const a = value(await engine().ask({ question: 'how do I adjust the pressure switch on my air compressor', prefer: 'extractive' }));
    expect(a.refused).toBe(true);
    expect(a.answer).toContain('"compressor"');
    expect(a.answer).toContain(COVERS);
  });

  it('answers the same task on equipment a manual covers', async () => {
    const a = value(await engine().ask({ question: 'how do I adjust the pressure switch of the coolant pump', prefer: 'extractive' }));
    expect(a.refused).toBe(false);
    expect(a.answer).toContain('2 bar');
  });
});

describe('a product name no dictionary has, typed in lower case anywhere', () => {
  it('with a task: refuses, naming it and saying which folders the library covers', async () => {
    const a = value(await engine().ask({ question: 'the pressure switch on my zentrix doesnt hold the setting', prefer: 'extractive' }));
    expect(a.refused).toBe(true);
    expect(a.answer).toContain('"zentrix"');
    expect(a.answer).toContain(COVERS);
  });

  it('with a code a manual defines: refuses, the code being another machine\'s', async () => {
    const a = value(await engine().ask({ question: 'brand new zentrix board reports alarm 412', prefer: 'extractive' }));
    expect(a.refused).toBe(true);
    expect(a.answer).toContain('"zentrix"');
  });

  it('answers the technician\'s own words the manuals never use (words of the language)', async () => {
    const a = value(await engine().ask({ question: 'the coolant pump pressure switch is wonky, how do I adjust it', prefer: 'extractive' }));
    expect(a.refused).toBe(false);
    expect(a.answer).toContain('2 bar');
  });
});

describe('the gate replayed (scripts/calibrate-gate.ts): engine.gateEvidence is the evidence ask judges', () => {
  it('decides every class above as ask does, with the spread of words and the named products gathered', async () => {
    const questions = [
      'Orvan alarm 412 what does it mean',
      'how do I adjust the pressure switch on my air compressor',
      'how do I adjust the pressure switch of the coolant pump',
      'the pressure switch on my zentrix doesnt hold the setting',
      'velar alarm 412 what does it mean',
    ];
    for (const question of questions) {
      const r = value(await engine().gateEvidence(question));
      const a = value(await engine().ask({ question, prefer: 'extractive' }));
      expect(!gate(r.evidence, r.passages).answer, question).toBe(a.refused);
    }
    const generic = value(await engine().gateEvidence('how do I adjust the pressure switch on my air compressor'));
    expect(generic.evidence.docSets.length).toBeGreaterThan(0);
    expect(value(await engine().gateEvidence('velar alarm 412 what does it mean')).evidence.products.length).toBeGreaterThan(0);
  });
});
