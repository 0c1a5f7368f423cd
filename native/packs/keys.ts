/**
 * Publisher keys (ed25519, node:crypto): generate a pair, sign a manifest, verify a signature, and the
 * library's trusted-keys folder (`<library>/trusted-keys/<fingerprint>.pem`).
 */
import { createHash, createPrivateKey, createPublicKey, generateKeyPairSync, sign, verify, type KeyObject } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { chmod, open, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { EngineError } from '../contract/errors.js';
import { readJson } from '../store/atomic-json.js';
import { assertLibraryVersions, LIBRARY_FILE } from '../store/library-store.js';
import type { LibraryMeta } from '../store/types.js';

export const TRUSTED_KEYS_DIR = 'trusted-keys';
export const PRIVATE_KEY_FILE = 'private.pem';
export const PUBLIC_KEY_FILE = 'public.pem';

/** sha256 (hex) of the key's DER SubjectPublicKeyInfo: what a publisher reads out to a site to compare. */
export function fingerprint(key: KeyObject): string {
  return createHash('sha256').update(key.export({ type: 'spki', format: 'der' })).digest('hex');
}

/** Parses a PEM public key, accepting ed25519 only. */
export function parsePublicKey(pem: string | Buffer, what = 'The public key'): KeyObject {
  let key: KeyObject;
  try {
    key = createPublicKey(pem);
  } catch {
    throw new EngineError('INVALID_INPUT', `${what} is not a PEM public key. Use the public.pem written by "manualdesk keys generate".`);
  }
  if (key.asymmetricKeyType !== 'ed25519') {
    throw new EngineError('INVALID_INPUT', `${what} is a ${key.asymmetricKeyType ?? 'unknown'} key; ManualDesk packs are signed with ed25519 keys.`);
  }
  return key;
}

export function loadPrivateKey(file: string): KeyObject {
  let key: KeyObject;
  try {
    key = createPrivateKey(readFileSync(file));
  } catch (err) {
    throw new EngineError(
      'INVALID_INPUT',
      `The signing key ${file} could not be read (${(err as Error).message}). Use the private.pem written by "manualdesk keys generate".`,
    );
  }
  if (key.asymmetricKeyType !== 'ed25519') throw new EngineError('INVALID_INPUT', `The signing key ${file} is not an ed25519 key.`);
  return key;
}

/** Writes private.pem (mode 0600) and public.pem into `dir`; refuses to overwrite an existing key. */
export async function generateKeys(dir: string): Promise<{ privateKey: string; publicKey: string; fingerprint: string }> {
  const privFile = path.join(dir, PRIVATE_KEY_FILE);
  const pubFile = path.join(dir, PUBLIC_KEY_FILE);
  for (const f of [privFile, pubFile]) {
    if (existsSync(f)) throw new EngineError('INVALID_INPUT', `${f} already exists; choose another folder (an existing key is never overwritten).`);
  }
  mkdirSync(dir, { recursive: true });
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  const fh = await open(privFile, 'wx', 0o600);
  try {
    await fh.writeFile(privateKey.export({ type: 'pkcs8', format: 'pem' }));
    await fh.sync();
  } finally {
    await fh.close();
  }
  await chmod(privFile, 0o600); // the umask may have narrowed it further, never widened; be explicit
  await writeFile(pubFile, publicKey.export({ type: 'spki', format: 'pem' }), { flag: 'wx' });
  return { privateKey: privFile, publicKey: pubFile, fingerprint: fingerprint(publicKey) };
}

/** Copies a public key into the library's trusted-keys folder under its fingerprint. */
export async function trustKey(publicKeyFile: string, libraryDir: string): Promise<{ fingerprint: string; file: string }> {
  let pem: Buffer;
  try {
    pem = readFileSync(publicKeyFile);
  } catch {
    throw new EngineError('INVALID_INPUT', `Cannot read ${publicKeyFile}. Give the publisher's public.pem.`);
  }
  const key = parsePublicKey(pem, `${publicKeyFile}`);
  const fp = fingerprint(key);
  // Never into a library of a newer format. No library lock: a trusted key is one new file, named by
  // its fingerprint and renamed into place whole, so two writers can only write the same bytes, and a
  // technician can trust a publisher while the app holds the library open (the pack screen tells them to).
  mkdirSync(libraryDir, { recursive: true });
  const meta = (await readJson(path.join(libraryDir, LIBRARY_FILE))) as LibraryMeta | undefined;
  if (meta !== undefined) assertLibraryVersions(meta, libraryDir);
  const dir = path.join(libraryDir, TRUSTED_KEYS_DIR);
  mkdirSync(dir, { recursive: true });
  const file = path.join(dir, `${fp}.pem`);
  const tmp = `${file}.${process.pid}.tmp`;
  await writeFile(tmp, key.export({ type: 'spki', format: 'pem' }));
  await rename(tmp, file);
  return { fingerprint: fp, file };
}

/** Fingerprints of the keys trusted by a library (each file's content is checked, not just its name). */
export function trustedFingerprints(libraryDir: string): Set<string> {
  const out = new Set<string>();
  const dir = path.join(libraryDir, TRUSTED_KEYS_DIR);
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return out;
  }
  for (const n of names) {
    if (!n.endsWith('.pem')) continue;
    try {
      const key = parsePublicKey(readFileSync(path.join(dir, n)));
      out.add(fingerprint(key));
    } catch {
      // an unreadable file trusts nobody
    }
  }
  return out;
}

export function signBytes(data: Buffer, key: KeyObject): Buffer {
  return sign(null, data, key);
}

export function verifyBytes(data: Buffer, signature: Buffer, key: KeyObject): boolean {
  try {
    return verify(null, data, key, signature);
  } catch {
    return false;
  }
}
