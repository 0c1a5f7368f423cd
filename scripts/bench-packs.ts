/**
 * Pack import throughput against the plain-copy baseline, on the same file in the same run:
 *   import      = stream-verify (sha256 of every file) + write into staging (fsync) + switch in + commit
 *   verify      = stream-verify only
 *   cp+sha256sum = `cp <pack> <dir>` then `sha256sum <pack>` (what a careful technician would do by hand)
 * The pack is made from a few small manuals plus large dummy documents (not committed), in a temp dir.
 *
 *   npx tsx scripts/bench-packs.ts [--size-mb 1024] [--dir /tmp] [--json]
 */
import { execFileSync } from 'node:child_process';
import { randomFillSync } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { createEngine } from '../native/engine.js';
import { buildPack } from '../native/packs/build.js';
import { generateKeys, trustKey } from '../native/packs/keys.js';
import { verifyPack } from '../native/packs/install.js';

const { values } = parseArgs({
  options: { 'size-mb': { type: 'string', default: '1024' }, dir: { type: 'string' }, json: { type: 'boolean' } },
});
const sizeMb = Number(values['size-mb']);
const root = fs.mkdtempSync(path.join(values.dir ?? os.tmpdir(), 'md-bench-packs-'));

function dropCaches(): void {
  // Not possible without root everywhere; every step reads a file the previous step just wrote or read,
  // so all three figures are measured with the pack in the page cache alike.
}

async function main(): Promise<void> {
  const src = path.join(root, 'src');
  fs.mkdirSync(path.join(src, 'drawings'), { recursive: true });
  fs.writeFileSync(path.join(src, 'press.md'), '# Press\n\n## Fault codes\n\n| Code | Meaning |\n|---|---|\n| E-101 | Pressure low |\n');
  // Large documents in 64 MB files (PDF scans in real packs); random bytes, so nothing compresses.
  const chunk = Buffer.alloc(64 * 1024 * 1024);
  let left = sizeMb * 1024 * 1024;
  for (let i = 0; left > 0; i++) {
    const n = Math.min(chunk.length, left);
    randomFillSync(chunk, 0, n);
    // Attachments: carried under documents/ next to the manuals, not indexed (see BuildOptions).
    fs.writeFileSync(path.join(src, 'drawings', `sheet-${String(i).padStart(3, '0')}.bin`), chunk.subarray(0, n));
    left -= n;
  }
  const keys = await generateKeys(path.join(root, 'keys'));
  const pack = path.join(root, 'bench.mdpack');
  const t0 = performance.now();
  const built = await buildPackWithDrawings(src, pack, keys.privateKey);
  const buildS = (performance.now() - t0) / 1000;
  const bytes = fs.statSync(pack).size;

  // Baseline: cp + sha256sum of the same file.
  const cpDir = path.join(root, 'cp');
  fs.mkdirSync(cpDir);
  dropCaches();
  let t = performance.now();
  execFileSync('cp', [pack, cpDir]);
  execFileSync('sha256sum', [pack]);
  const baselineS = (performance.now() - t) / 1000;
  fs.rmSync(cpDir, { recursive: true, force: true });

  dropCaches();
  t = performance.now();
  const report = await verifyPack(pack, null);
  const verifyS = (performance.now() - t) / 1000;
  if (!report.ok && report.problems.some((p) => !p.includes('trusted'))) throw new Error(report.problems.join('; '));

  const lib = path.join(root, 'library');
  fs.mkdirSync(lib);
  await trustKey(keys.publicKey, lib);
  const engine = await createEngine({ libraryDir: lib, embedder: { kind: 'none' }, create: true });
  dropCaches();
  t = performance.now();
  const res = await engine.importPack({ file: pack });
  const importS = (performance.now() - t) / 1000;
  await engine.close();
  if (!res.ok) throw new Error(`${res.error.code}: ${res.error.message}`);

  const mb = bytes / 1024 / 1024;
  const rows = {
    packMB: Math.round(mb),
    files: built,
    buildS: round(buildS),
    baselineCpSha256sumS: round(baselineS),
    baselineMBps: round(mb / baselineS),
    verifyS: round(verifyS),
    verifyMBps: round(mb / verifyS),
    importS: round(importS),
    importMBps: round(mb / importS),
    importVsBaseline: round(importS / baselineS),
  };
  if (values.json) console.log(JSON.stringify(rows));
  else for (const [k, v] of Object.entries(rows)) console.log(`${k.padEnd(24)} ${v}`);
}

/** A manual pack whose documents/ also carries the large drawings (listed and hashed like any file). */
async function buildPackWithDrawings(src: string, out: string, keyFile: string): Promise<number> {
  const manuals = path.join(root, 'manuals');
  fs.mkdirSync(manuals);
  fs.copyFileSync(path.join(src, 'press.md'), path.join(manuals, 'press.md'));
  const res = await buildPack({
    id: 'bench',
    version: '1',
    source: manuals,
    out,
    keyFile,
    embedder: { kind: 'none' },
    attachments: path.join(src, 'drawings'),
  });
  return res.manifest.files.length;
}

function round(x: number): number {
  return Math.round(x * 100) / 100;
}

try {
  await main();
} finally {
  fs.rmSync(root, { recursive: true, force: true });
}
