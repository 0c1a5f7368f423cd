/**
 * The safety box carries the procedure: a cited step that refers to a section ("Lock out the press
 * (section 1.1)") pulls that section's safety text in verbatim, with its level and where it is.
 * A real engine over a fixture manual (keyword search), no stand-ins.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEngine, type Engine } from '../../native/engine.js';
import { cleanupTemp, tempDir } from './helpers.js';

afterAll(cleanupTemp);

describe('safety text of referenced sections', () => {
  let engine: Engine;
  beforeAll(async () => {
    process.env.LANCE_CPU_THREADS ??= '2';
    const src = tempDir('md-safety-src-');
    fs.copyFileSync(path.resolve('test/fixtures/answers/press-manual.md'), path.join(src, 'press-manual.md'));
    engine = await createEngine({ libraryDir: tempDir('md-safety-lib-'), create: true });
    const r = await engine.ingest({ paths: [src] });
    expect(r.ok).toBe(true);
  }, 120_000);
  afterAll(async () => {
    await engine?.close();
  });

  it('pulls the lockout section\'s WARNING and CAUTION in verbatim, each with its level and source', async () => {
    const res = await engine.ask({ question: 'how do I replace the return filter', prefer: 'extractive' });
    if (!res.ok) throw new Error(res.error.message);
    const a = res.value;
    expect(a.refused).toBe(false);
    expect(a.answer).toContain('1. Lock out the press (section 1.1).');
    const pulled = a.safety.filter((s) => s.source);
    expect(pulled.map((s) => s.kind)).toEqual(['WARNING', 'CAUTION']);
    expect(pulled[0]?.text).toContain('open valve HV2 until the gauge reads 0 bar.');
    expect(pulled[0]?.source).toMatchObject({ file: 'press-manual.md', ref: '1.1', page: null });
    expect(pulled[0]?.source?.section).toMatch(/1\.1 Lockout procedure$/);
    // The step that refers is a lockout notice of the cited passage itself.
    expect(a.safety.find((s) => !s.source)?.text).toBe('1. Lock out the press (section 1.1).');
  }, 60_000);
});
