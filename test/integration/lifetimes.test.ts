/**
 * Guarded lifetimes: closing the engine, or removing a pack, while searches run. Every search either
 * completes or gets CLOSED; none crashes (a closed LanceDB table used from Rust would), and calls
 * after close get CLOSED.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Result } from '../../native/contract/errors.js';
import { createEngine } from '../../native/engine.js';
import { buildPack } from '../../native/packs/build.js';
import { generateKeys, trustKey } from '../../native/packs/keys.js';
import { Lifetime, ReaderGuard } from '../../native/base/lifetime.js';
import { cleanupTemp, tempDir, writeManuals } from './packs-helpers.js';

const QUERIES = ['hydraulic oil change', 'belt runs to one side', 'gripper vacuum low', 'E-102', 'bleed the cylinder air'];

let lib: string;
let pack: string;

beforeAll(async () => {
  const root = tempDir('life');
  const keys = await generateKeys(path.join(root, 'keys'));
  pack = path.join(root, 'plant.mdpack');
  await buildPack({ id: 'plant-manuals', name: 'Plant manuals', publisher: 'Fictional Works', embedder: { kind: 'none' }, source: writeManuals(path.join(root, 'src'), 1), out: pack, version: '1.0', keyFile: keys.privateKey });
  lib = path.join(root, 'library');
  const own = tempDir('own');
  fs.writeFileSync(path.join(own, 'notes.md'), '# Site notes\n\n## Compressor\n\nDrain the compressor tank condensate every Friday.\n');
  const e = await createEngine({ libraryDir: lib, embedder: { kind: 'none' }, create: true });
  expect((await e.ingest({ paths: [own] })).ok).toBe(true);
  await trustKey(keys.publicKey, lib);
  expect((await e.importPack({ file: pack })).ok).toBe(true);
  await e.close();
}, 120_000);

afterAll(() => cleanupTemp());

function completedOrClosed(results: Result<unknown>[]): void {
  for (const r of results) if (!r.ok) expect(r.error.code, r.error.message).toBe('CLOSED');
}

describe('closing while searches run', () => {
  it('closing the engine: every running search completes or gets CLOSED; later calls get CLOSED', async () => {
    const e = await createEngine({ libraryDir: lib, embedder: { kind: 'none' } });
    expect((await e.search({ query: 'oil' })).ok).toBe(true);
    const running = Array.from({ length: 20 }, (_, i) => e.search({ query: QUERIES[i % QUERIES.length] as string }));
    const asks = [e.ask({ question: 'how do I change the hydraulic oil' }), e.lookupCode({ text: 'E-102' })];
    const closing = e.close();
    const results = await Promise.all([...running, ...asks]);
    await closing;
    completedOrClosed(results);
    expect(results.filter((r) => r.ok).length).toBeGreaterThan(0);
    const after = await e.search({ query: 'oil' });
    expect(after.ok ? null : after.error.code).toBe('CLOSED');
    await e.close(); // safe twice
  });

  it('removing a pack: searches before, during and after it complete (from the pack or without it)', async () => {
    const e = await createEngine({ libraryDir: lib, embedder: { kind: 'none' } });
    try {
      const before = await e.search({ query: 'hydraulic oil change' });
      expect(before.ok && before.value.hits.some((h) => h.pack === 'plant-manuals')).toBe(true);
      const during = Array.from({ length: 20 }, (_, i) => e.search({ query: QUERIES[i % QUERIES.length] as string }));
      const removing = e.removePack({ id: 'plant-manuals' });
      const more = Array.from({ length: 10 }, (_, i) => e.search({ query: QUERIES[i % QUERIES.length] as string }));
      const results = await Promise.all([...during, ...more]);
      expect(await removing).toEqual({ ok: true, value: { removed: 'plant-manuals' } });
      completedOrClosed(results);
      expect(results.every((r) => r.ok)).toBe(true);
      const after = await e.search({ query: 'hydraulic oil change' });
      expect(after.ok && after.value.hits.every((h) => h.pack === undefined)).toBe(true);
    } finally {
      await e.close();
    }
  });
});

describe('Lifetime and ReaderGuard', () => {
  it('close waits for running calls, refuses new ones with CLOSED, and disposes once', async () => {
    const life = new Lifetime('The thing');
    let disposed = 0;
    let release!: () => void;
    const call = life.run(() => new Promise<string>((r) => (release = () => r('done'))));
    const closing = life.close(async () => {
      disposed++;
    });
    await expect(life.run(async () => 1)).rejects.toMatchObject({ code: 'CLOSED' });
    expect(disposed).toBe(0);
    release();
    expect(await call).toBe('done');
    await closing;
    await life.close(async () => {
      disposed++;
    });
    expect(disposed).toBe(1);
  });

  it('a writer waits for running readers; readers that come meanwhile wait for the writer', async () => {
    const guard = new ReaderGuard();
    const order: string[] = [];
    let release!: () => void;
    const r1 = guard.read(() => new Promise<void>((r) => (release = r)).then(() => order.push('r1')));
    const w = guard.write(async () => order.push('w'));
    const r2 = guard.read(async () => order.push('r2'));
    await new Promise((r) => setTimeout(r, 20));
    expect(order).toEqual([]);
    release();
    await Promise.all([r1, w, r2]);
    expect(order).toEqual(['r1', 'w', 'r2']);
  });
});
