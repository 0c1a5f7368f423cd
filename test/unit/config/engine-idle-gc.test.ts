/**
 * The engine runs one full GC after a burst of calls (native/idle-gc.ts). Its own file: the GC
 * function is looked up once per process, and here it is a spy set before the engine first asks.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, it, vi } from 'vitest';

const collect = vi.fn();
(globalThis as { gc?: () => void }).gc = collect;
const { createEngine } = await import('../../../native/engine.js');

it('collects once the engine has been idle after calls, and never after close', async () => {
  const src = fs.mkdtempSync(path.join(os.tmpdir(), 'md-idlegc-src-'));
  const lib = fs.mkdtempSync(path.join(os.tmpdir(), 'md-idlegc-lib-'));
  try {
    fs.writeFileSync(path.join(src, 'pump.md'), '# Pump\n\nGrease the pump every 500 hours.\n');
    const engine = await createEngine({ libraryDir: lib, create: true, embedder: { kind: 'none' }, idleGcMs: 500 });
    expect((await engine.ingest({ paths: [src] })).ok).toBe(true);
    for (let i = 0; i < 20; i++) await engine.search({ query: 'grease pump' });
    await new Promise((r) => setTimeout(r, 1200));
    // (Not in the middle of a burst: the IdleCollector tests check that with fake timers.)
    const runs = collect.mock.calls.length;
    expect(runs).toBeGreaterThanOrEqual(1);
    await engine.search({ query: 'grease' });
    await engine.close();
    await new Promise((r) => setTimeout(r, 1200));
    expect(collect).toHaveBeenCalledTimes(runs);
  } finally {
    fs.rmSync(src, { recursive: true, force: true });
    fs.rmSync(lib, { recursive: true, force: true });
  }
});
