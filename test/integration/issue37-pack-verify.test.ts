/**
 * Issue 37 item 12 (pack verify part): `pack verify --library <dir>` where no library exists yet
 * judges trust as the first import there would: an unknown signer is PACK_UNTRUSTED (never ok:true
 * with trusted: null); a key trusted in that folder (keys trust before any library) is trusted; the
 * folder is left as it was.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../native/cli/main.js';
import { buildPack } from '../../native/packs/build.js';
import { generateKeys, trustKey } from '../../native/packs/keys.js';
import { cleanupTemp, tempDir, writeManuals } from './packs-helpers.js';

let keys: Awaited<ReturnType<typeof generateKeys>>;
let pack: string;
let unsigned: string;

async function run(args: string[]): Promise<{ code: number; out: string }> {
  let out = '';
  const code = await runCli(args, {
    stdout: { write: (s: string) => ((out += s), true) } as unknown as NodeJS.WritableStream,
    stderr: { write: () => true } as unknown as NodeJS.WritableStream,
    stdin: process.stdin,
  });
  return { code, out };
}

beforeAll(async () => {
  const root = tempDir('verify-nolib');
  keys = await generateKeys(path.join(root, 'keys'));
  const source = writeManuals(path.join(root, 'src'), 1);
  pack = path.join(root, 'plant.mdpack');
  unsigned = path.join(root, 'plant-unsigned.mdpack');
  const common = { id: 'plant-manuals', name: 'Plant manuals', publisher: 'Fictional Works', source, version: '1.0', embedder: { kind: 'none' as const } };
  await buildPack({ ...common, out: pack, keyFile: keys.privateKey });
  await buildPack({ ...common, out: unsigned });
}, 60_000);

afterAll(() => cleanupTemp());

describe('pack verify against a folder with no library yet', () => {
  it.each([
    ['an empty folder', (dir: string) => fs.mkdirSync(dir, { recursive: true })],
    ['a folder not there', () => {}],
  ])('%s: an unknown signer is PACK_UNTRUSTED, with what to do; nothing is written', async (_, make) => {
    const lib = path.join(tempDir('verify-nolib-lib'), 'library');
    make(lib);
    const before = fs.existsSync(lib) ? fs.readdirSync(lib) : null;
    const res = await run(['pack', 'verify', pack, '--library', lib, '--json']);
    expect(res.code).toBe(1);
    const report = JSON.parse(res.out) as { ok: boolean; error: { code: string; message: string }; report?: { trusted: boolean | null } };
    expect(report.ok).toBe(false);
    expect(report.error.code).toBe('PACK_UNTRUSTED');
    expect(report.error.message).toMatch(/keys trust/);
    if (report.report) expect(report.report.trusted).toBe(false);
    expect(fs.existsSync(lib) ? fs.readdirSync(lib) : null).toEqual(before);
  });

  it('an unsigned pack is PACK_UNTRUSTED', async () => {
    const lib = path.join(tempDir('verify-nolib-unsigned'), 'library');
    const res = await run(['pack', 'verify', unsigned, '--library', lib, '--json']);
    expect(res.code).toBe(1);
    expect(JSON.parse(res.out)).toMatchObject({ ok: false, error: { code: 'PACK_UNTRUSTED' } });
  });

  it('a key trusted in that folder before any library: ok, trusted', async () => {
    const lib = path.join(tempDir('verify-nolib-trusted'), 'library');
    await trustKey(keys.publicKey, lib);
    const res = await run(['pack', 'verify', pack, '--library', lib, '--json']);
    expect(res.code).toBe(0);
    expect(JSON.parse(res.out)).toMatchObject({ ok: true, signature: 'valid', trusted: true });
  });
});
