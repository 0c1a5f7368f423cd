/**
 * Two-part questions and product scoping through the real engine (retriever.ts with query-plan,
 * name-index and interleave) on a small library written here: each part's passage reaches the top
 * five and the answer cites both; a question naming a product prefers that product's manuals.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { engineOverDocs } from './engine-fixture.js';
import { value } from './helpers.js';

const filler = (topic: string, n: number) =>
  Array.from({ length: n }, (_, i) => `## ${topic} note ${i + 1}\n\nThe ${topic} unit keeps its ${topic} panel clean and dry; inspect the ${topic} cover weekly (note ${i + 1}).\n`).join('\n');

const engine = engineOverDocs('two-part', (docs) => {
  fs.mkdirSync(path.join(docs, 'zentra'), { recursive: true });
  fs.mkdirSync(path.join(docs, 'orvik'), { recursive: true });
  fs.writeFileSync(
    path.join(docs, 'zentra', 'coolant.md'),
    `# Zentra coolant system\n\n## Coolant pump priming\n\nTo prime the coolant pump, open the bleed screw and run the pump until bubble-free coolant flows.\n\n${filler('coolant', 6)}`,
  );
  fs.writeFileSync(
    path.join(docs, 'zentra', 'spindle.md'),
    `# Zentra spindle\n\n## Spindle belt tension\n\nThe spindle belt tension is correct when the belt deflects 6 mm under thumb pressure at mid-span.\n\n${filler('spindle', 6)}`,
  );
  fs.writeFileSync(
    path.join(docs, 'orvik', 'pump.md'),
    `# Orvik pump manual\n\n## Pump priming\n\nTo prime the pump on this machine, fill the housing with water through the top plug before the first start.\n`,
  );
  fs.writeFileSync(
    path.join(docs, 'zentra', 'pump-notes.md'),
    `# Zentra pump notes\n\n## Priming the pump\n\nZentra pumps prime by themselves once the suction hose is below the tank level.\n`,
  );
  // A code table whose rows share their words ("Clamp fail"), the settings page its remedy points
  // to, and another product's page with the same setting words.
  const rows = Array.from({ length: 8 }, (_, i) => `"${i + 1}","Clamp fail","Clamp fail. ${['Clamp sensor did not switch in time. Raise the clamp timeout setting.', 'Clamp pressure dropped. Raise the clamp pressure setting.', 'Reset during an active clamp cycle. Check what the reset setting does.', 'Clamp travel failed to release the part sensor. Try increasing the clamp release travel setting or check the sensor wiring.', 'Clamp door opened. Raise the door delay setting.', 'Clamp valve did not answer. Raise the valve setting.', 'Clamp cycle aborted by the operator.', 'Clamp sensor stuck on during the clamp cycle.'][i]}"`).join('\n');
  fs.writeFileSync(path.join(docs, 'zentra', 'alarm_codes.csv'), `"Alarm","Message","Description"\n${rows}\n`);
  fs.writeFileSync(
    path.join(docs, 'zentra', 'settings.md'),
    `# Zentra settings\n\n## $41 - Clamp release travel, mm\n\nAfter the clamp opens, it moves back by this distance so that the part sensor is free again.\n\n## $42 - Clamp timeout, s\n\nHow long the clamp waits for its sensor.\n`,
  );
  fs.writeFileSync(
    path.join(docs, 'orvik', 'setup.md'),
    `# Orvik setup\n\n## Release travel setting\n\nThe release travel setting of the Orvik gripper is raised in the setup menu when the part sensor stays on after release.\n`,
  );
  // Another maker's pages that say "accumulator precharge pressure" more often than the named product's own page.
  fs.mkdirSync(path.join(docs, 'brakta'), { recursive: true });
  for (let i = 1; i <= 12; i++) {
    fs.writeFileSync(
      path.join(docs, 'brakta', `hydraulic-${i}.md`),
      `# Brakta press ${i}\n\n## Accumulator precharge pressure\n\nCheck the accumulator precharge pressure monthly: the accumulator precharge pressure of press ${i} is ${60 + i} bar.\n`,
    );
  }
  fs.writeFileSync(
    path.join(docs, 'zentra', 'hydraulics.md'),
    `# Zentra hydraulics\n\n## Hydraulic unit service\n\nDrain the hydraulic tank, replace the return filter and refill with ISO VG 46 oil. The accumulator is filled with nitrogen; its precharge is 45 bar, measured with the unit depressurised. Bleed the lines after refilling and check every fitting for leaks at full pressure.\n`,
  );
});

describe('two-part questions through the engine', () => {
  const q = 'how do I prime the coolant pump with the bleed screw, and what belt deflection is the right spindle belt tension?';

  it('retrieves each part, and both parts reach the top five', async () => {
    const r = value(await engine().retrieve({ query: q, k: 10 }));
    expect(r.parts?.length).toBe(2);
    const top = r.hits.slice(0, 5).map((h) => h.text);
    expect(top.some((t) => t.includes('bleed screw'))).toBe(true);
    expect(top.some((t) => t.includes('deflects 6 mm'))).toBe(true);
  });

  it('the answer cites both parts', async () => {
    const a = value(await engine().ask({ question: q, prefer: 'extractive' }));
    expect(a.refused).toBe(false);
    const cited = a.citations.map((c) => c.text).join('\n');
    expect(cited).toContain('bleed screw');
    expect(cited).toContain('deflects 6 mm');
  });

  it('a one-part question is not split', async () => {
    const r = value(await engine().retrieve({ query: 'spindle belt tension deflection', k: 5 }));
    expect(r.parts).toBeUndefined();
  });
});

describe('a code question with a second part', () => {
  const q = 'machine stops with alarm 4 - which setting do I raise and what does it do?';

  it('finds the setting the remedy names, not the other rows of the code table', async () => {
    const r = value(await engine().retrieve({ query: q, k: 10 }));
    const top = r.hits.slice(0, 5);
    expect(top[0]?.kind).toBe('code');
    expect(top.some((h) => h.text.includes('$41 - Clamp release travel'))).toBe(true);
    // The other alarms' rows (same words, other codes) come after the passages that explain alarm 4.
    const sibling = r.hits.findIndex((h) => h.kind === 'table-row' && h.file === 'zentra/alarm_codes.csv');
    const setting = r.hits.findIndex((h) => h.text.includes('$41 - Clamp release travel'));
    expect(sibling === -1 || sibling > setting).toBe(true);
  });

  it('prefers the manuals of the product that defines the code, though the question names none', async () => {
    const r = value(await engine().retrieve({ query: q, k: 10 }));
    const zentra = r.hits.findIndex((h) => h.file === 'zentra/settings.md');
    const orvik = r.hits.findIndex((h) => h.file === 'orvik/setup.md');
    expect(zentra).toBeGreaterThanOrEqual(0);
    expect(orvik === -1 || zentra < orvik).toBe(true);
  });
});

describe('a question that names a product prefers its manuals', () => {
  it('ranks the named product folder first', async () => {
    const r = value(await engine().retrieve({ query: 'how do I prime the pump on the orvik', k: 5 }));
    expect(r.scope).toContain('orvik');
    expect(r.hits[0]?.file).toBe('orvik/pump.md');
    const z = value(await engine().retrieve({ query: 'zentra pump priming', k: 5 }));
    expect(z.hits[0]?.file.startsWith('zentra/')).toBe(true);
  });

  it("lifts the named product's page that other makers' pages outscore below the first k", async () => {
    const kw = value(await engine().search({ query: 'accumulator precharge pressure', k: 10 }));
    expect(kw.hits.map((h) => h.file)).not.toContain('zentra/hydraulics.md');
    const r = value(await engine().retrieve({ query: 'zentra accumulator precharge pressure', k: 5 }));
    expect(r.scope).toContain('zentra');
    expect(r.hits.slice(0, 5).map((h) => h.file)).toContain('zentra/hydraulics.md');
  });
});
