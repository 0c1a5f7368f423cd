/**
 * Reads a pack in one streaming pass: the manifest (first entry), its signature and signer key, then
 * every payload file, each hashed while it is read and — when a destination is given — written there.
 * Nothing is written before the manifest, its signature and the caller's checks (trust, disk space,
 * compatibility) have passed, and nothing outside the destination can ever be written: every entry
 * must be a plain file listed in the signed manifest with exactly the listed size.
 */
import { createHash, type Hash } from 'node:crypto';
import { createWriteStream, mkdirSync, type WriteStream } from 'node:fs';
import path from 'node:path';
import { Parser, type ReadEntry } from 'tar';
import type { PackProgress } from '../contract/packs.js';
import { EngineError } from '../contract/errors.js';
import {
  checkManifest,
  collisionKey,
  invalid,
  LIMITS,
  MANIFEST_FILE,
  SIGNATURE_FILE,
  SIGNER_FILE,
  unsafePathReason,
  canonicalJson,
  type PackFile,
  type PackManifest,
} from './format.js';
import { fingerprint, parsePublicKey, verifyBytes } from './keys.js';
import { readParts, resolveParts } from './parts.js';

export interface SignatureInfo {
  state: 'valid' | 'invalid' | 'missing';
  /** Fingerprint of the key in the pack (null when unsigned). */
  fingerprint: string | null;
}

export interface ReadOptions {
  /** Folder the payload is written into (must exist and be empty); null: verify only. */
  dest: string | null;
  /**
   * Called once the manifest is read and its signature checked, before any payload byte is read or
   * written: throw to refuse the pack. Also where the caller checks trust, space and compatibility.
   */
  onManifest?: (m: PackManifest, sig: SignatureInfo) => void;
  /** Verify mode: a checksum failure is recorded and reading goes on; otherwise the first one stops. */
  collectChecksumFailures?: boolean;
  signal?: AbortSignal;
  onProgress?: (p: PackProgress) => void;
  phase?: PackProgress['phase'];
}

export interface ReadResult {
  manifest: PackManifest;
  signature: SignatureInfo;
  /** sha256 of the manifest bytes as stored. */
  manifestSha256: string;
  /** The meta files as stored (written next to an installed pack, so it can be verified again). */
  raw: { manifest: Buffer; signature: Buffer | null; signer: Buffer | null };
  checked: number;
  failed: string[];
  /** Bytes of the pack file(s). */
  bytes: number;
}

/** Bytes between progress reports. */
const PROGRESS_EVERY = 4 * 1024 * 1024;

export async function readPack(file: string, opts: ReadOptions): Promise<ReadResult> {
  const { parts, bytes: totalIn } = resolveParts(file);
  const phase = opts.phase ?? (opts.dest ? 'stage' : 'verify');
  const parser = new Parser({ strict: true, maxMetaEntrySize: 64 * 1024 });

  let failure: Error | null = null;
  let manifest: PackManifest | null = null;
  let manifestBuf: Buffer | null = null;
  let sigBuf: Buffer | null = null;
  let pubBuf: Buffer | null = null;
  let signature: SignatureInfo = { state: 'missing', fingerprint: null };
  let metaDone = false;
  let entries = 0;
  const byPath = new Map<string, PackFile>();
  const seen = new Set<string>();
  const failed: string[] = [];
  let checked = 0;
  let bytesIn = 0;
  let filesDone = 0;
  let lastReport = 0;
  const open = new Set<WriteStream>();
  const writes: Promise<void>[] = [];

  const fail = (err: Error): void => {
    if (!failure) failure = err;
  };
  const report = (force = false): void => {
    if (!opts.onProgress || (!force && bytesIn - lastReport < PROGRESS_EVERY)) return;
    lastReport = bytesIn;
    opts.onProgress({ phase, bytesDone: bytesIn, bytesTotal: totalIn, filesDone, filesTotal: manifest?.files.length ?? 0 });
  };

  const finishMeta = (): void => {
    if (metaDone) return;
    metaDone = true;
    if (!manifestBuf) throw invalid(`it does not start with ${MANIFEST_FILE}`);
    let raw: unknown;
    try {
      raw = JSON.parse(manifestBuf.toString('utf8'));
    } catch {
      throw invalid(`${MANIFEST_FILE} is not valid JSON`);
    }
    const m = checkManifest(raw);
    if ((sigBuf === null) !== (pubBuf === null)) throw invalid('it has a signature without a signer key, or a key without a signature');
    if (sigBuf && pubBuf) {
      const key = parsePublicKey(pubBuf, `The signer key in the pack`);
      const sig = Buffer.from(sigBuf.toString('utf8').trim(), 'base64');
      const good = verifyBytes(Buffer.from(canonicalJson(raw), 'utf8'), sig, key);
      signature = { state: good ? 'valid' : 'invalid', fingerprint: fingerprint(key) };
    }
    for (const f of m.files) byPath.set(f.path, f);
    manifest = m;
    opts.onManifest?.(m, signature);
  };

  const collect = (entry: ReadEntry, cap: number, name: string, done: (b: Buffer) => void): void => {
    if (entry.size > cap) throw invalid(`${name} is ${entry.size} bytes, more than the limit of ${cap}`);
    const chunks: Buffer[] = [];
    let n = 0;
    entry.on('data', (c: Buffer) => {
      n += c.length;
      if (n > cap) return fail(invalid(`${name} is larger than declared`));
      chunks.push(c);
    });
    entry.on('end', () => done(Buffer.concat(chunks)));
  };

  const onEntry = (entry: ReadEntry): void => {
    if (failure) {
      entry.resume();
      return;
    }
    try {
      handleEntry(entry);
    } catch (err) {
      fail(err as Error);
      entry.resume();
    }
  };

  const handleEntry = (entry: ReadEntry): void => {
    entries++;
    const p = entry.path;
    if (entry.type !== 'File' && entry.type !== 'OldFile') {
      const what =
        entry.type === 'SymbolicLink' ? 'a symbolic link' : entry.type === 'Link' ? 'a hard link' : entry.type === 'Directory' ? 'a folder entry' : `a ${entry.type} entry`;
      throw invalid(`"${p}" is ${what}; a pack may hold plain files only`);
    }
    const why = unsafePathReason(p);
    if (why) throw invalid(`"${p}" has ${why}`);
    const key = collisionKey(p);
    if (seen.has(key)) throw invalid(`"${p}" appears twice`);
    seen.add(key);

    if (!metaDone) {
      if (entries === 1) {
        if (p !== MANIFEST_FILE) throw invalid(`it does not start with ${MANIFEST_FILE}`);
        collect(entry, LIMITS.manifestBytes, MANIFEST_FILE, (b) => (manifestBuf = b));
        return;
      }
      if (p === SIGNATURE_FILE) return collect(entry, LIMITS.signatureBytes, SIGNATURE_FILE, (b) => (sigBuf = b));
      if (p === SIGNER_FILE) return collect(entry, LIMITS.signerBytes, SIGNER_FILE, (b) => (pubBuf = b));
      finishMeta();
    }
    const f = byPath.get(p);
    if (!f) throw invalid(`"${p}" is not listed in the signed manifest`);
    if (entry.size !== f.size) throw invalid(`"${p}" is stored with ${entry.size} bytes but the manifest lists ${f.size}`);
    const hash = createHash('sha256');
    let n = 0;
    let ws: WriteStream | null = null;
    if (opts.dest) {
      const target = path.join(opts.dest, ...p.split('/'));
      mkdirSync(path.dirname(target), { recursive: true });
      ws = createWriteStream(target, { flags: 'wx', flush: true, highWaterMark: 1024 * 1024 });
      open.add(ws);
      const w = ws;
      writes.push(
        new Promise<void>((resolve) => {
          w.on('close', () => {
            open.delete(w);
            resolve();
          });
          w.on('error', (err) => {
            fail(err.message.includes('ENOSPC') ? diskFull() : err);
            resolve();
          });
        }),
      );
    }
    entry.on('data', (c: Buffer) => {
      n += c.length;
      hash.update(c);
      if (ws && !ws.write(c)) {
        entry.pause();
        ws.once('drain', () => entry.resume());
      }
    });
    entry.on('end', () => {
      ws?.end();
      if (failure) return;
      if (n !== f.size) return fail(invalid(`"${p}" is truncated (${n} of ${f.size} bytes)`));
      checked++;
      filesDone++;
      if (hash.digest('hex') !== f.sha256) {
        failed.push(p);
        if (!opts.collectChecksumFailures) fail(checksumError(p));
      }
      report(filesDone === byPath.size);
    });
    void (hash satisfies Hash);
  };

  parser.on('entry', onEntry);
  const ended = new Promise<void>((resolve) => {
    parser.on('end', () => resolve());
    parser.on('error', (err: Error & { code?: string }) => {
      const truncated = /truncated/i.test(err.message);
      fail(invalid(truncated ? 'it ends early (truncated); copy it again from the original' : `its archive structure is broken (${err.message})`));
      resolve();
    });
  });

  const input = readParts(parts);
  try {
    for await (const chunk of input) {
      if (failure) break;
      if (opts.signal?.aborted) {
        fail(new EngineError('CANCELLED', 'The pack operation was cancelled; nothing was changed.'));
        break;
      }
      bytesIn += (chunk as Buffer).length;
      if (!parser.write(chunk as Buffer)) {
        await new Promise<void>((resolve) => {
          const done = () => {
            parser.off('drain', done);
            clearInterval(t);
            resolve();
          };
          parser.on('drain', done);
          // A failure can stop the consumer; do not wait for a drain that never comes.
          const t = setInterval(() => (failure ? done() : undefined), 50);
        });
      }
      report();
    }
    if (!failure) {
      parser.end();
      await ended;
    }
  } catch (err) {
    fail(err instanceof EngineError ? err : invalid(`it could not be read (${(err as Error).message})`));
  } finally {
    input.destroy();
  }

  if (!failure) {
    try {
      finishMeta();
    } catch (err) {
      fail(err as Error);
    }
  }
  if (!failure && manifest) {
    const missing = [...byPath.keys()].filter((p) => !seen.has(collisionKey(p)));
    if (missing.length > 0) {
      fail(invalid(`it ends before ${missing.length} listed file(s) (e.g. "${missing[0]}"): truncated or incomplete; copy it again`));
    }
  }
  if (failure) {
    for (const ws of open) ws.destroy();
  }
  await Promise.all(writes);
  if (failure) throw failure;
  report(true);
  return {
    manifest: manifest as unknown as PackManifest,
    signature,
    manifestSha256: createHash('sha256').update(manifestBuf ?? Buffer.alloc(0)).digest('hex'),
    raw: { manifest: manifestBuf ?? Buffer.alloc(0), signature: sigBuf, signer: pubBuf },
    checked,
    failed,
    bytes: totalIn,
  };
}

/** Reads only the manifest (first entry) without checking anything else: to decide where to stage. */
export async function peekManifest(file: string): Promise<PackManifest> {
  let found: PackManifest | null = null;
  const stop = new Error('stop');
  try {
    await readPack(file, {
      dest: null,
      onManifest: (m) => {
        found = m;
        throw stop;
      },
    });
  } catch (err) {
    if (err !== stop) throw err;
  }
  if (!found) throw invalid(`it has no ${MANIFEST_FILE}`);
  return found;
}

export function checksumError(p: string): EngineError {
  return new EngineError(
    'PACK_CHECKSUM',
    `"${p}" in this pack does not match the sha256 in its signed manifest: the pack file was changed or damaged (often a bad copy to or from a USB stick). Nothing was installed or changed; copy the pack again from the original (check it with "manualdesk pack verify"), or ask the publisher for a new copy.`,
  );
}

export function diskFull(): EngineError {
  return new EngineError('DISK_FULL', 'The disk ran out of space while installing the pack. Nothing was changed; free some space and try again.');
}
