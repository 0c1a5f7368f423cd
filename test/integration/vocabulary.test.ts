/**
 * The library's vocabulary (store/vocabulary.ts through Engine.termCounts): term presence in the
 * whole full-text index and in the files' labels, which the evidence gate asks instead of the top
 * passages. Real store over the fixture manuals.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import path from 'node:path';
import { createEngine, type Engine } from '../../native/engine.js';
import { VOCABULARY_COUNT_CAP } from '../../native/store/vocabulary.js';
import { analyze } from '../../native/text/analyze.js';
import { FIXTURE_MANUALS, cleanupTemp, tempDir, value } from './helpers.js';

let engine: Engine;

beforeAll(async () => {
  engine = await createEngine({ libraryDir: path.join(tempDir('vocab'), 'lib'), create: true });
  value(await engine.ingest({ paths: [FIXTURE_MANUALS] }));
});
afterAll(async () => {
  await engine?.close();
  cleanupTemp();
});

describe('library vocabulary', () => {
  it('counts passages holding a term anywhere in the library, 0 for a word no manual uses', async () => {
    const [hydraulic] = analyze('hydraulic');
    const counts = value(await engine.termCounts([hydraulic as string, 'refractomet', 'floppi']));
    expect(counts[hydraulic as string]).toBeGreaterThan(1);
    expect(counts[hydraulic as string]).toBeLessThanOrEqual(VOCABULARY_COUNT_CAP);
    expect(counts.refractomet).toBe(0);
    expect(counts.floppi).toBe(0);
  });

  it('knows Chinese words as jieba cut them at indexing', async () => {
    const counts = value(await engine.termCounts(['液压油']));
    expect(counts['液压油']).toBeGreaterThan(0);
  });

  it('knows a model name from the files\' labels (path, title) as well as from passage text', async () => {
    const model = analyze('SL3')[0] as string; // the scissor lift's file name: lift/sl3-scissor-lift.pdf
    const counts = value(await engine.termCounts([model, 'scissor']));
    expect(counts[model]).toBeGreaterThan(0);
    expect(counts.scissor).toBeGreaterThan(0);
  });

  it('counts every token of a compound model name (HPB-200: hpb200, hpb, 200)', async () => {
    const counts = value(await engine.termCounts(analyze('HPB-200')));
    expect(Object.values(counts).every((n) => n > 0)).toBe(true);
  });
});
