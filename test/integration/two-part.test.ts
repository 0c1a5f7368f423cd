/**
 * Two-part questions and product scoping through the real engine (retriever.ts with query-plan,
 * name-index and interleave) on a small library written here: each part's passage reaches the top
 * five and the answer cites both; a question naming a product prefers that product's manuals.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEngine, type Engine } from '../../native/engine.js';
import { cleanupTemp, tempDir, value } from './helpers.js';

let engine: Engine;

const filler = (topic: string, n: number) =>
  Array.from({ length: n }, (_, i) => `## ${topic} note ${i + 1}\n\nThe ${topic} unit keeps its ${topic} panel clean and dry; inspect the ${topic} cover weekly (note ${i + 1}).\n`).join('\n');

beforeAll(async () => {
  const root = tempDir('two-part');
  const docs = path.join(root, 'docs');
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
  engine = await createEngine({ libraryDir: path.join(root, 'lib'), create: true });
  value(await engine.ingest({ paths: [docs] }));
}, 60_000);

afterAll(async () => {
  await engine?.close();
  cleanupTemp();
});

describe('two-part questions through the engine', () => {
  const q = 'how do I prime the coolant pump with the bleed screw, and what belt deflection is the right spindle belt tension?';

  it('retrieves each part, and both parts reach the top five', async () => {
    const r = value(await engine.retrieve({ query: q, k: 10 }));
    expect(r.parts?.length).toBe(2);
    const top = r.hits.slice(0, 5).map((h) => h.text);
    expect(top.some((t) => t.includes('bleed screw'))).toBe(true);
    expect(top.some((t) => t.includes('deflects 6 mm'))).toBe(true);
  });

  it('the answer cites both parts', async () => {
    const a = value(await engine.ask({ question: q, prefer: 'extractive' }));
    expect(a.refused).toBe(false);
    const cited = a.citations.map((c) => c.text).join('\n');
    expect(cited).toContain('bleed screw');
    expect(cited).toContain('deflects 6 mm');
  });

  it('a one-part question is not split', async () => {
    const r = value(await engine.retrieve({ query: 'spindle belt tension deflection', k: 5 }));
    expect(r.parts).toBeUndefined();
  });
});

describe('a question that names a product prefers its manuals', () => {
  it('ranks the named product folder first', async () => {
    const r = value(await engine.retrieve({ query: 'how do I prime the pump on the orvik', k: 5 }));
    expect(r.scope).toContain('orvik');
    expect(r.hits[0]?.file).toBe('orvik/pump.md');
    const z = value(await engine.retrieve({ query: 'zentra pump priming', k: 5 }));
    expect(z.hits[0]?.file.startsWith('zentra/')).toBe(true);
  });
});
