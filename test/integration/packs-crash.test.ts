/**
 * Crash during import: a child process updates a pack and is SIGKILLed at random moments (and once
 * exactly between "renamed into place" and "committed"). After each kill the library must show the
 * previous state or the complete new one — never a half pack — and the next writable open removes
 * the leftovers. Runs: MANUALDESK_PACK_CRASH_RUNS (default 10; raise it for a reliability run).
 */
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEngine } from '../../native/engine.js';
import { buildPack } from '../../native/packs/build.js';
import type { PackManifest } from '../../native/packs/format.js';
import { trustKey } from '../../native/packs/keys.js';
import { cleanupTemp, newKey, remake, sha256, tempDir, writeManuals } from './packs-helpers.js';

const REPO_ROOT = fileURLToPath(new URL('../..', import.meta.url));
const RUNS = Number(process.env.MANUALDESK_PACK_CRASH_RUNS ?? 10);

let lib: string;
let packV2: string;

beforeAll(async () => {
  const root = tempDir('crash');
  const key = newKey();
  const pub = path.join(root, 'public.pem');
  fs.writeFileSync(pub, key.publicPem);
  const keyFile = path.join(root, 'private.pem');
  fs.writeFileSync(keyFile, key.privateKey.export({ type: 'pkcs8', format: 'pem' }));
  const v1 = path.join(root, 'v1.mdpack');
  const v2small = path.join(root, 'v2-small.mdpack');
  packV2 = path.join(root, 'v2.mdpack');
  await buildPack({ id: 'plant', version: '1.0', source: writeManuals(path.join(root, 's1'), 1), out: v1, keyFile });
  await buildPack({ id: 'plant', version: '1.1', source: writeManuals(path.join(root, 's2'), 2), out: v2small, keyFile });
  // Bulk documents (scanned drawings, say) make the import long enough to be killed in the middle.
  await remake(
    v2small,
    packV2,
    (m, entries) => {
      const extra = Array.from({ length: 12 }, (_, i) => {
        const data = Buffer.alloc(2 * 1024 * 1024, i + 1);
        return { path: `documents/drawings/sheet-${i}.bin`, data };
      });
      for (const e of extra) (m.files as unknown[]).push({ path: e.path, size: e.data.length, sha256: sha256(e.data) });
      return [...entries, ...extra];
    },
    key,
  );
  lib = path.join(root, 'library');
  fs.mkdirSync(lib);
  await trustKey(pub, lib);
  const e = await createEngine({ libraryDir: lib, embedder: { kind: 'none' } });
  const r = await e.importPack({ file: v1 });
  await e.close();
  expect(r.ok).toBe(true);
});

afterAll(() => cleanupTemp());

function runChild(env: Record<string, string>, killAfterMs: number | null): Promise<{ killed: boolean; lines: string[] }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', path.join(REPO_ROOT, 'test', 'integration', 'packs-child.ts'), lib, packV2, 'update'], {
      cwd: REPO_ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, ...env },
    });
    const lines: string[] = [];
    let buf = '';
    let killed = false;
    const kill = () => {
      if (!killed && child.exitCode === null) {
        killed = true;
        child.kill('SIGKILL');
      }
    };
    child.stdout.on('data', (c: Buffer) => {
      buf += c.toString();
      let i: number;
      while ((i = buf.indexOf('\n')) >= 0) {
        const line = buf.slice(0, i);
        buf = buf.slice(i + 1);
        lines.push(line);
        if (line.includes('"paused"')) kill();
        if (line.includes('"started"') && killAfterMs !== null) setTimeout(kill, killAfterMs);
      }
    });
    child.on('error', reject);
    child.on('exit', () => resolve({ killed, lines }));
  });
}

function hashFile(file: string): string {
  return createHash('sha256').update(fs.readFileSync(file)).digest('hex');
}

/** The committed state: the active version, complete and intact, and nothing half-made visible. */
function checkCommitted(): string {
  const registry = JSON.parse(fs.readFileSync(path.join(lib, 'packs.json'), 'utf8')) as { packs: { id: string; active: string; versions: { version: string }[] }[] };
  expect(registry.packs).toHaveLength(1);
  const entry = registry.packs[0] as { id: string; active: string; versions: { version: string }[] };
  expect(['1.0', '1.1']).toContain(entry.active);
  for (const v of entry.versions) {
    const dir = path.join(lib, 'packs', 'plant', v.version);
    const m = JSON.parse(fs.readFileSync(path.join(dir, 'manifest.json'), 'utf8')) as PackManifest;
    for (const f of m.files) expect(hashFile(path.join(dir, ...f.path.split('/'))), f.path).toBe(f.sha256);
  }
  return entry.active;
}

describe('crash during import', () => {
  it(`SIGKILL at random points (${RUNS} runs) and between rename and commit leaves the previous or the new state`, async () => {
    // Calibrate: how long does a whole update take here?
    const t0 = Date.now();
    const full = await runChild({}, null);
    const took = Date.now() - t0;
    expect(full.lines.some((l) => l.includes('"done"'))).toBe(true);
    const outcomes = new Map<string, number>();
    const delays = [
      -1, // pause exactly before the commit
      ...Array.from({ length: RUNS }, () => Math.floor(Math.random() * Math.max(50, took * 0.8))),
    ];
    for (const [i, delay] of delays.entries()) {
      // Back to v1 before each run (a completed run committed v1.1).
      const e = await createEngine({ libraryDir: lib, embedder: { kind: 'none' } });
      const list = await e.listPacks();
      if (list.ok && list.value[0]?.active === '1.1') expect((await e.rollbackPack({ id: 'plant' })).ok).toBe(true);
      await e.close();
      expect(checkCommitted()).toBe('1.0');

      const res = await runChild(delay < 0 ? { PAUSE: 'commit' } : {}, delay < 0 ? null : delay);
      if (delay < 0) expect(res.killed).toBe(true);
      const active = checkCommitted();
      if (delay < 0) expect(active).toBe('1.0');
      outcomes.set(active, (outcomes.get(active) ?? 0) + 1);

      // The next writable open cleans up and everything works.
      const again = await createEngine({ libraryDir: lib, embedder: { kind: 'none' } });
      const hits = await again.search({ query: 'hydraulic oil', k: 3 });
      expect(hits.ok && hits.value.hits.some((h) => h.pack === 'plant'), `run ${i}`).toBe(true);
      await again.close();
      expect(fs.existsSync(path.join(lib, 'packs', '.staging')), `run ${i}: staging left`).toBe(false);
      const versions = fs.readdirSync(path.join(lib, 'packs', 'plant')).sort();
      const registered = (JSON.parse(fs.readFileSync(path.join(lib, 'packs.json'), 'utf8')) as { packs: { versions: { version: string }[] }[] }).packs[0]?.versions.map((v) => v.version).sort();
      expect(versions, `run ${i}: unregistered version folders`).toEqual(registered);
    }
    expect(outcomes.get('1.0')).toBeGreaterThan(0);
  }, 300_000);
});
