/** Helpers for the pack tests: generated manuals, tree hashes, and hand-made (hostile) pack archives. */
import { createHash, generateKeyPairSync, sign, type KeyObject } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Header, Parser, type ReadEntry } from 'tar';
import { canonicalJson } from '../../native/packs/format.js';

const made: string[] = [];

export function tempDir(prefix: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `md-pk-${prefix}-`));
  made.push(dir);
  return dir;
}

export function cleanupTemp(): void {
  for (const d of made.splice(0)) fs.rmSync(d, { recursive: true, force: true });
}

/** Small fictional manuals; variant 2 adds a safety manual and changes one procedure. */
export function writeManuals(dir: string, variant = 1): string {
  const files: Record<string, string> = {
    'press/hx-500.md': [
      '# HX-500 Hydraulic Press Manual',
      '',
      '## Fault codes',
      '',
      '| Code | Meaning | Remedy |',
      '|---|---|---|',
      '| E-101 | Hydraulic pressure low | Check the pump coupling and the oil level |',
      '| E-102 | Oil temperature high | Clean the cooler fins and check the cooler fan |',
      '| E-205 | Ram position sensor fault | Check the linear encoder cable |',
      '',
      '## Maintenance',
      '',
      `Change the hydraulic oil every ${variant === 1 ? 2000 : 1500} operating hours. Replace the return filter element with each oil change.`,
      '',
      '## Bleeding the cylinder',
      '',
      'Open the bleed screw on the main cylinder and cycle the ram slowly until no air bubbles remain.',
    ].join('\n'),
    'conveyor/cv-20.md': [
      '# CV-20 Belt Conveyor Manual',
      '',
      '## Belt tracking',
      '',
      'If the belt runs to one side, adjust the tail pulley take-up screws a quarter turn at a time.',
      '',
      '## Drive motor',
      '',
      'The gear motor overload relay trips when the belt is jammed. Clear the jam and reset the relay.',
    ].join('\n'),
    'robot/ra-7.txt': [
      'RA-7 Palletising Robot - Quick Reference',
      '',
      'Homing: press HOME on the teach pendant with the mode switch in T1.',
      'Gripper vacuum low: clean the suction cups and check the vacuum generator silencer.',
      'Axis 3 brake release: only with the arm supported by a crane.',
    ].join('\n'),
  };
  if (variant === 2) {
    files['press/hx-500-safety.md'] = [
      '# HX-500 Safety Supplement',
      '',
      '## Light curtain',
      '',
      'Test the light curtain interlock at the start of every shift by interrupting the beam with the test rod.',
    ].join('\n');
  }
  for (const [rel, text] of Object.entries(files)) {
    const p = path.join(dir, ...rel.split('/'));
    fs.mkdirSync(path.dirname(p), { recursive: true });
    fs.writeFileSync(p, text + '\n');
  }
  return dir;
}

/** sha256 over every path (files and folders) and file content under `dir`: equal iff byte-for-byte equal. */
export function treeHash(dir: string): string {
  const h = createHash('sha256');
  const walk = (rel: string) => {
    const abs = path.join(dir, rel);
    const entries = fs.readdirSync(abs, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1));
    for (const e of entries) {
      const r = rel ? `${rel}/${e.name}` : e.name;
      if (e.isDirectory()) {
        h.update(`d:${r}\n`);
        walk(r);
      } else {
        h.update(`f:${r}\n`);
        h.update(fs.readFileSync(path.join(dir, r)));
      }
    }
  };
  if (fs.existsSync(dir)) walk('');
  return h.digest('hex');
}

export interface RawEntry {
  path: string;
  data: Buffer;
  type?: 'File' | 'SymbolicLink' | 'Link' | 'Directory';
  linkpath?: string;
  /** Size written in the header (default data.length). */
  size?: number;
}

/** Reads every entry of a (small) pack into memory, in order. */
export async function readEntries(file: string): Promise<RawEntry[]> {
  const out: RawEntry[] = [];
  const parser = new Parser();
  parser.on('entry', (e: ReadEntry) => {
    const chunks: Buffer[] = [];
    e.on('data', (c: Buffer) => chunks.push(c));
    e.on('end', () => out.push({ path: e.path, data: Buffer.concat(chunks), type: 'File' }));
  });
  await new Promise<void>((resolve, reject) => {
    parser.on('end', () => resolve());
    parser.on('error', reject);
    parser.end(fs.readFileSync(file));
  });
  return out;
}

/** Writes a tar archive exactly as described, hostile entries included. */
export function writeEntries(file: string, entries: RawEntry[], opts: { end?: boolean } = {}): void {
  const blocks: Buffer[] = [];
  for (const e of entries) {
    const header = Buffer.alloc(512);
    const size = e.type === 'File' || e.type === undefined ? (e.size ?? e.data.length) : 0;
    new Header({
      path: e.path,
      mode: 0o644,
      size,
      mtime: new Date(0),
      type: e.type ?? 'File',
      linkpath: e.linkpath ?? '',
      uid: 0,
      gid: 0,
    }).encode(header, 0);
    blocks.push(header);
    if (size > 0) {
      const body = Buffer.alloc(Math.ceil(e.data.length / 512) * 512);
      e.data.copy(body);
      blocks.push(body);
    }
  }
  if (opts.end !== false) blocks.push(Buffer.alloc(1024));
  fs.writeFileSync(file, Buffer.concat(blocks));
}

export function newKey(): { privateKey: KeyObject; publicPem: string } {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  return { privateKey, publicPem: publicKey.export({ type: 'spki', format: 'pem' }).toString() };
}

/**
 * Rewrites a pack: `edit` may change the manifest (it is re-signed with `key` unless `key` is null,
 * which keeps the old signature) and the entry list.
 */
export async function remake(
  src: string,
  dst: string,
  edit: (manifest: Record<string, unknown>, entries: RawEntry[]) => RawEntry[] | void,
  key: { privateKey: KeyObject; publicPem: string } | null,
): Promise<void> {
  const entries = await readEntries(src);
  const mEntry = entries.find((e) => e.path === 'manifest.json') as RawEntry;
  const manifest = JSON.parse(mEntry.data.toString('utf8')) as Record<string, unknown>;
  const payload = entries.filter((e) => !['manifest.json', 'manifest.sig', 'signer.pub'].includes(e.path));
  const edited = edit(manifest, payload) ?? payload;
  const bytes = Buffer.from(canonicalJson(manifest));
  const meta: RawEntry[] = [{ path: 'manifest.json', data: bytes }];
  if (key) {
    meta.push({ path: 'manifest.sig', data: Buffer.from(sign(null, bytes, key.privateKey).toString('base64')) });
    meta.push({ path: 'signer.pub', data: Buffer.from(key.publicPem) });
  } else {
    for (const n of ['manifest.sig', 'signer.pub']) {
      const e = entries.find((x) => x.path === n);
      if (e) meta.push(e);
    }
  }
  writeEntries(dst, [...meta, ...edited]);
}

/** Flips one byte of `needle`'s first occurrence inside the file. */
export function flipByteOf(file: string, needle: string | Buffer, offset = 0): void {
  const buf = fs.readFileSync(file);
  const at = buf.indexOf(needle);
  if (at < 0) throw new Error(`needle not found in ${file}`);
  buf[at + offset] = (buf[at + offset] as number) ^ 0x20;
  fs.writeFileSync(file, buf);
}

export function sha256(data: Buffer): string {
  return createHash('sha256').update(data).digest('hex');
}
