/**
 * Installed packs inside a library folder:
 *
 *   packs.json                  the commit point: each pack's installed versions and the active one
 *   packs/<id>/<version>/       manifest.json (+ .sig, signer.pub), library/ (a full library folder,
 *                               opened read-only), documents/ (the source manuals, for the viewer)
 *   packs/.staging/<random>/    an import in progress
 *
 * An import streams the pack into staging while verifying it, renames the staged folder into place,
 * and only then rewrites packs.json (temp + fsync + rename). A crash at any moment leaves packs.json
 * naming exactly the packs that were complete before; folders it does not name (staging, a renamed
 * but uncommitted version, a removed version not yet deleted) are invisible and deleted on the next
 * writable open ({@link cleanupPacks}). Model packs install their models into the user models folder
 * and are recorded in packs.json the same way (their folder under packs/ keeps the manifest only).
 */
import { randomBytes } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statfsSync } from 'node:fs';
import { mkdir, rename, rm, rmdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { PackInfo, PackManualSummary, PackVerifyReport } from '../contract/packs.js';
import { EngineError, toErrorData } from '../contract/errors.js';
import type { PackHooks } from '../contract/api.js';
import { writeJsonAtomic } from '../store/atomic-json.js';
import { LIBRARY_FORMAT_VERSION } from '../store/library-store.js';
import { ANALYZER_VERSION, MIN_SEARCHABLE_ANALYZER } from '../text/analyze.js';
import { loadManifest } from '../embed/models.js';
import { catalogEntry, checkAgainstCatalog } from './catalog.js';
import { compareVersions, declaredBytes, MANIFEST_FILE, modelFileName, modelIsSingleFile, SIGNATURE_FILE, SIGNER_FILE, type PackManifest } from './format.js';
import { trustedFingerprints } from './keys.js';
import { readPack, type ReadResult, type SignatureInfo } from './reader.js';
import { packFailpoints } from './failpoints.js';

export const PACKS_DIR = 'packs';
export const PACKS_FILE = 'packs.json';
export const STAGING_DIR = '.staging';
/** Installed versions kept per pack: the active one and one to roll back to. */
export const KEEP_VERSIONS = 2;
/** Head room kept free beyond the pack's own size. */
const SPACE_MARGIN = 64 * 1024 * 1024;

export interface InstalledVersion {
  version: string;
  unverified: boolean;
  signer: string | null;
  installedAt: string;
}

export interface RegistryEntry {
  id: string;
  kind: 'manuals' | 'models';
  active: string;
  /** Newest first. */
  versions: InstalledVersion[];
}

interface PacksJson {
  formatVersion: 1;
  packs: RegistryEntry[];
}

export function readRegistry(libraryDir: string): RegistryEntry[] {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(path.join(libraryDir, PACKS_FILE), 'utf8'));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw new EngineError('INTERNAL', `${PACKS_FILE} in ${libraryDir} cannot be read (${(err as Error).message}).`);
  }
  const packs = (raw as Partial<PacksJson>).packs;
  return Array.isArray(packs) ? packs : [];
}

async function writeRegistry(libraryDir: string, packs: RegistryEntry[]): Promise<void> {
  await writeJsonAtomic(path.join(libraryDir, PACKS_FILE), { formatVersion: 1, packs } satisfies PacksJson);
}

export function versionDir(libraryDir: string, id: string, version: string): string {
  return path.join(libraryDir, PACKS_DIR, id, version);
}

/** The manifest of an installed version (as stored next to it). */
export function installedManifest(libraryDir: string, id: string, version: string): PackManifest {
  return JSON.parse(readFileSync(path.join(versionDir(libraryDir, id, version), MANIFEST_FILE), 'utf8')) as PackManifest;
}

/**
 * Deletes what no committed state names: staging leftovers, versions renamed into place but never
 * committed, versions removed from packs.json but not yet deleted. Call with the library's write lock.
 */
export async function cleanupPacks(libraryDir: string, modelsDir?: string): Promise<number> {
  let removed = 0;
  const root = path.join(libraryDir, PACKS_DIR);
  if (modelsDir && existsSync(path.join(modelsDir, STAGING_DIR))) {
    await rm(path.join(modelsDir, STAGING_DIR), { recursive: true, force: true });
    removed++;
  }
  if (!existsSync(root)) return removed;
  const registry = readRegistry(libraryDir);
  for (const id of readdirSync(root)) {
    const entry = registry.find((e) => e.id === id);
    if (!entry) {
      await rm(path.join(root, id), { recursive: true, force: true });
      removed++;
      continue;
    }
    for (const v of readdirSync(path.join(root, id))) {
      if (!entry.versions.some((x) => x.version === v)) {
        await rm(path.join(root, id, v), { recursive: true, force: true });
        removed++;
      }
    }
  }
  return removed;
}

export function toPackInfo(libraryDir: string, entry: RegistryEntry, trusted: Set<string>): PackInfo {
  const m = installedManifest(libraryDir, entry.id, entry.active);
  const v = entry.versions.find((x) => x.version === entry.active);
  return {
    ...summary(m, v?.signer ? { state: 'valid', fingerprint: v.signer } : { state: 'missing', fingerprint: null }, trusted),
    unverified: v?.unverified ?? true,
    versions: entry.versions.map((x) => x.version),
    active: entry.active,
  };
}

export function summary(m: PackManifest, sig: SignatureInfo, trusted: Set<string> | null): PackVerifyReport['pack'] {
  const manuals: PackManualSummary[] = m.manuals.map((x) => ({
    title: x.title,
    revision: x.revision,
    language: x.language,
    equipment: x.equipment,
    files: x.files.length,
  }));
  return {
    id: m.id,
    name: m.name,
    version: m.version,
    publisher: m.publisher,
    created: m.created,
    kind: m.kind,
    signer: sig.fingerprint ? { fingerprint: sig.fingerprint, trusted: trusted?.has(sig.fingerprint) ?? false } : null,
    manuals,
  };
}

/** What the engine knows about the site's library, for compatibility checks. */
export interface SiteState {
  libraryDir: string;
  /** The local library's embedder (null: keyword-only). */
  embedder: { id: string; dims: number } | null;
  /** Files in the local library (an empty keyword-only library adopts a pack's embedder). */
  localFiles: number;
  /** Null when the embedder can be loaded here, else why not (MODEL_MISSING message). */
  embedderProblem: (id: string) => EngineError | null;
  modelsDir: string;
  /** Free bytes on the disk holding `dir` (injectable for tests). */
  freeBytes?: (dir: string) => number;
}

export interface InstallRequest {
  file: string;
  allowUnsigned?: boolean;
  mode: 'import' | 'update';
  /** Extra check of the staged folder before it is switched in (e.g. open its library). */
  checkStaged?: (dir: string, m: PackManifest) => Promise<void>;
}

export interface InstallOutcome {
  info: PackInfo;
  /** Set when the (empty, keyword-only) local library must adopt the pack's embedder. */
  adoptEmbedder: { id: string; dims: number } | null;
}

/** Checks a manifest against the site: signature and trust, formats, embedder, registry state, space. */
export function checkAgainstSite(
  m: PackManifest,
  sig: SignatureInfo,
  site: SiteState,
  trusted: Set<string>,
  opts: { allowUnsigned: boolean; mode: 'import' | 'update' | 'verify' },
): { adoptEmbedder: { id: string; dims: number } | null } {
  if (sig.state === 'invalid') {
    throw new EngineError(
      'PACK_SIGNATURE',
      `The signature of pack "${m.id}" does not match its manifest: the pack was changed after it was signed. Nothing was changed; ask the publisher for a new copy.`,
    );
  }
  if (!opts.allowUnsigned) {
    const untrusted = trustProblem(m, sig, trusted);
    if (untrusted) throw untrusted;
  }
  let adoptEmbedder: { id: string; dims: number } | null = null;
  if (m.kind === 'manuals' && m.library) {
    const lib = m.library;
    if (lib.formatVersion > LIBRARY_FORMAT_VERSION || lib.analyzerVersion > ANALYZER_VERSION || lib.analyzerVersion < MIN_SEARCHABLE_ANALYZER) {
      throw new EngineError(
        'PACK_FORMAT',
        `Pack "${m.id}" holds a library in format ${lib.formatVersion} / analyzer ${lib.analyzerVersion}; this ManualDesk reads format ${LIBRARY_FORMAT_VERSION} / analyzer ${MIN_SEARCHABLE_ANALYZER}–${ANALYZER_VERSION}. Update ManualDesk, or ask the publisher to rebuild the pack with this version.`,
      );
    }
    const e = lib.embedder;
    if (e) {
      const have = site.embedder;
      if (have && (have.id !== e.id || have.dims !== e.dims)) {
        throw new EngineError(
          'EMBEDDER_MISMATCH',
          `Pack "${m.id}" was indexed with "${e.id}" (${e.dims}-d) but this library uses "${have.id}" (${have.dims}-d); vectors of different models cannot be searched together. Ask for a pack built with "${have.id}" or a keyword-only pack.`,
        );
      }
      if (!have) {
        const otherVectors = readRegistry(site.libraryDir).some((x) => {
          if (x.kind !== 'manuals') return false;
          const emb = installedManifest(site.libraryDir, x.id, x.active).library?.embedder;
          return emb && (emb.id !== e.id || emb.dims !== e.dims);
        });
        if (site.localFiles > 0 || otherVectors) {
          throw new EngineError(
            'EMBEDDER_MISMATCH',
            `Pack "${m.id}" was indexed with "${e.id}", but this library is keyword-only and already holds manuals. Ask for a keyword-only pack, or give this library that model first (install it, then run manualdesk ingest <your manual folders> --embedder onnx:<its model folder>: nothing is parsed again) and import the pack again.`,
          );
        }
        adoptEmbedder = { id: e.id, dims: e.dims };
      }
      const problem = site.embedderProblem(e.id);
      if (problem) throw problem;
    }
  }
  const installed = readRegistry(site.libraryDir).find((x) => x.id === m.id);
  if (opts.mode === 'import' && installed) throw alreadyInstalled(m, installed);
  if (opts.mode === 'update') {
    if (!installed) throw new EngineError('NOT_FOUND', `Pack "${m.id}" is not installed; use "manualdesk pack import" for a first install.`);
    if (compareVersions(m.version, installed.active) <= 0) {
      throw new EngineError('INVALID_INPUT', `Pack "${m.id}" version ${m.version} is not newer than the installed ${installed.active}. To go back a version, use "manualdesk pack rollback ${m.id}".`);
    }
  }
  if (m.kind === 'models') {
    // A model this ManualDesk lists must be byte for byte the one it knows (sha256 and size), whatever the pack's own manifest says.
    const manifest = loadManifest();
    for (const mod of m.models) {
      const entry = catalogEntry(mod.id, modelIsSingleFile(mod), manifest, mod.catalog?.id);
      if (!entry) continue;
      checkAgainstCatalog(
        entry,
        mod.files.map((f) => ({ name: modelFileName(mod, f), sha256: f.sha256, size: f.size })),
        `The model ${mod.id} in pack "${m.id}"`,
        'Nothing was changed; ask the publisher for a pack built from a good copy of the model.',
        'PACK_CHECKSUM',
      );
    }
  }
  if (opts.mode !== 'verify') {
    const dir = m.kind === 'models' ? site.modelsDir : site.libraryDir;
    const free = (site.freeBytes ?? packFailpoints.freeBytes ?? diskFree)(dir);
    const need = declaredBytes(m) + SPACE_MARGIN;
    if (free < need) {
      throw new EngineError(
        'DISK_FULL',
        `Pack "${m.id}" needs ${formatBytes(need)} free on the disk of ${dir}; only ${formatBytes(free)} is free. Nothing was changed; free some space and try again.`,
      );
    }
  }
  return { adoptEmbedder };
}

/**
 * Why a pack's signature is not enough to install it without --allow-unsigned (unsigned, or signed by
 * a key the library does not trust), or null. One check for import, update and verify.
 */
export function trustProblem(m: PackManifest, sig: SignatureInfo, trusted: Set<string>): EngineError | null {
  if (sig.state === 'missing') {
    return new EngineError('PACK_UNTRUSTED', `Pack "${m.id}" is not signed. Import it only if you trust its source, with --allow-unsigned (it will be marked unverified).`);
  }
  if (sig.fingerprint && !trusted.has(sig.fingerprint)) {
    return new EngineError(
      'PACK_UNTRUSTED',
      `Pack "${m.id}" is signed by a key this library does not trust (fingerprint ${sig.fingerprint}). Compare the fingerprint with the publisher's and run "manualdesk keys trust <public.pem>", or import with --allow-unsigned (marked unverified).`,
    );
  }
  return null;
}

/** Import of a pack already installed: the advice depends on whether the file's version is newer. */
function alreadyInstalled(m: PackManifest, installed: RegistryEntry): EngineError {
  const cmp = compareVersions(m.version, installed.active);
  const head = `Pack "${m.id}" is already installed (version ${installed.active}).`;
  if (cmp > 0) return new EngineError('INVALID_INPUT', `${head} Use "manualdesk pack update" to install version ${m.version}.`);
  if (cmp === 0) return new EngineError('INVALID_INPUT', `${head} This file holds the same version; nothing to do. To reinstall it, run "manualdesk pack remove ${m.id}" first, then import it again.`);
  const kept = installed.versions.some((v) => v.version === m.version);
  return new EngineError(
    'INVALID_INPUT',
    kept
      ? `${head} This file holds the older version ${m.version}, which is still installed: run "manualdesk pack rollback ${m.id}" to make it active again.`
      : `${head} This file holds the older version ${m.version}. To go back to it, run "manualdesk pack remove ${m.id}", then import this file again.`,
  );
}

/** Free bytes on the disk of `dir` (its nearest existing ancestor). */
export function diskFree(dir: string): number {
  let d = path.resolve(dir);
  while (!existsSync(d) && path.dirname(d) !== d) d = path.dirname(d);
  const s = statfsSync(d);
  return s.bavail * s.bsize;
}

function formatBytes(n: number): string {
  return n >= 1024 ** 3 ? `${(n / 1024 ** 3).toFixed(2)} GB` : `${(n / 1024 ** 2).toFixed(1)} MB`;
}

/** Verifies a pack without installing anything; problems come back in the report, not as errors. */
export async function verifyPack(file: string, site: SiteState | null, hooks: PackHooks = {}): Promise<PackVerifyReport> {
  const trusted = site ? trustedFingerprints(site.libraryDir) : null;
  let seenManifest: PackManifest | null = null;
  let seenSig: SignatureInfo = { state: 'missing', fingerprint: null };
  let res: ReadResult | null = null;
  const problems: string[] = [];
  let error: ReturnType<typeof toErrorData> | undefined;
  let embedderCompatible: boolean | null = null;
  try {
    res = await readPack(file, {
      dest: null,
      collectChecksumFailures: true,
      signal: hooks.signal,
      onProgress: hooks.onProgress,
      onManifest: (m, sig) => {
        seenManifest = m;
        seenSig = sig;
      },
    });
  } catch (err) {
    error = toErrorData(err);
    if (error.code === 'CANCELLED') throw err;
    problems.push(error.message);
  }
  const m = res?.manifest ?? (seenManifest as PackManifest | null);
  const sig = res?.signature ?? seenSig;
  if (res && res.failed.length > 0) {
    error ??= {
      code: 'PACK_CHECKSUM',
      message: `${res.failed.length} file(s) in this pack do not match the sha256 in its signed manifest: the pack file was changed or damaged (often a bad copy). Do not import it; copy the pack again from the original, or ask the publisher for a new copy.`,
    };
    for (const f of res.failed) problems.push(`"${f}" does not match its sha256 (changed or damaged).`);
  }
  if (sig.state === 'invalid') {
    error ??= { code: 'PACK_SIGNATURE', message: 'The signature does not match the manifest.' };
    problems.push('The signature does not match the manifest (changed after signing).');
  }
  if (m && site) {
    if (m.kind === 'manuals') {
      const e = m.library?.embedder ?? null;
      embedderCompatible = e === null || (site.embedder ? site.embedder.id === e.id && site.embedder.dims === e.dims : site.localFiles === 0);
    }
    try {
      // The trust check is import's own (same code, same hint); the other checks run as if it passed.
      const untrusted = trustProblem(m, sig, trusted ?? new Set());
      if (untrusted) {
        error ??= toErrorData(untrusted);
        problems.push(untrusted.message);
      }
      checkAgainstSite(m, sig, site, trusted ?? new Set(), { allowUnsigned: true, mode: 'verify' });
    } catch (err) {
      const data = toErrorData(err);
      if (!problems.includes(data.message)) problems.push(data.message);
      error ??= data;
    }
  }
  return {
    ok: problems.length === 0 && res !== null,
    pack: m
      ? summary(m, sig, trusted)
      : { id: '', name: '', version: '', publisher: '', created: '', kind: 'manuals', signer: null, manuals: [] },
    signature: sig.state,
    trusted: site && sig.fingerprint ? (trusted?.has(sig.fingerprint) ?? false) : site ? false : null,
    checksums: { checked: res?.checked ?? 0, failed: res?.failed ?? [] },
    embedderCompatible,
    problems,
    ...(error ? { error } : {}),
  };
}

/**
 * Imports (or updates to) a pack: stream-verify into staging, switch in, commit packs.json last.
 * Refused packs change nothing: the staging folder (and any folder made for it) is removed.
 */
export async function installPack(site: SiteState, req: InstallRequest, hooks: PackHooks = {}): Promise<InstallOutcome> {
  const trusted = trustedFingerprints(site.libraryDir);
  // The manifest decides where the payload goes (library or models folder); everything is checked
  // again, with the signature, during the real read.
  const { peekManifest } = await import('./reader.js');
  const first = await peekManifest(req.file);
  const base = first.kind === 'models' ? site.modelsDir : path.join(site.libraryDir, PACKS_DIR);
  const made: string[] = [];
  for (const d of [base, path.join(base, STAGING_DIR)]) {
    if (!existsSync(d)) {
      await mkdir(d, { recursive: true });
      made.push(d);
    }
  }
  const staged = path.join(base, STAGING_DIR, randomBytes(8).toString('hex'));
  await mkdir(staged);
  let adopt: { id: string; dims: number } | null = null;
  let res: ReadResult;
  try {
    res = await readPack(req.file, {
      dest: staged,
      signal: hooks.signal,
      onProgress: hooks.onProgress,
      onManifest: (m, sig) => {
        if (m.id !== first.id || m.kind !== first.kind) throw new EngineError('PACK_INVALID', 'The pack changed while it was being read. Nothing was changed.');
        adopt = checkAgainstSite(m, sig, site, trusted, { allowUnsigned: req.allowUnsigned === true, mode: req.mode }).adoptEmbedder;
      },
    });
    await writeFile(path.join(staged, MANIFEST_FILE), res.raw.manifest);
    if (res.raw.signature && res.raw.signer) {
      await writeFile(path.join(staged, SIGNATURE_FILE), res.raw.signature);
      await writeFile(path.join(staged, SIGNER_FILE), res.raw.signer);
    }
    await req.checkStaged?.(staged, res.manifest);
  } catch (err) {
    await rm(staged, { recursive: true, force: true });
    for (const d of made.reverse()) await rmdir(d).catch(() => undefined);
    if (!made.includes(path.join(base, STAGING_DIR))) await rmdir(path.join(base, STAGING_DIR)).catch(() => undefined);
    throw err;
  }

  const m = res.manifest;
  const unverified = res.signature.state !== 'valid' || !res.signature.fingerprint || !trusted.has(res.signature.fingerprint);
  const version: InstalledVersion = {
    version: m.version,
    unverified,
    signer: res.signature.state === 'valid' ? res.signature.fingerprint : null,
    installedAt: new Date().toISOString(),
  };
  const target = versionDir(site.libraryDir, m.id, m.version);
  await rm(target, { recursive: true, force: true }); // an uncommitted leftover of an earlier crash
  await mkdir(path.dirname(target), { recursive: true });
  if (m.kind === 'models') {
    await installModels(site.modelsDir, staged, m);
    await rename(staged, target); // keeps the manifest (and an empty models/ folder)
    await rm(path.join(target, 'models'), { recursive: true, force: true });
  } else {
    await rename(staged, target);
  }
  await rmdir(path.join(base, STAGING_DIR)).catch(() => undefined);
  if (packFailpoints.beforeCommit) await packFailpoints.beforeCommit();

  const registry = readRegistry(site.libraryDir);
  const prev = registry.find((e) => e.id === m.id);
  const versions = [version, ...(prev?.versions ?? []).filter((v) => v.version !== m.version)];
  const kept = m.kind === 'models' ? versions.slice(0, 1) : versions.slice(0, KEEP_VERSIONS);
  const dropped = versions.slice(kept.length);
  const entry: RegistryEntry = { id: m.id, kind: m.kind, active: m.version, versions: kept };
  await writeRegistry(site.libraryDir, [...registry.filter((e) => e.id !== m.id), entry]);
  for (const v of dropped) await rm(versionDir(site.libraryDir, m.id, v.version), { recursive: true, force: true });
  return { info: toPackInfo(site.libraryDir, entry, trusted), adoptEmbedder: adopt };
}

/** Moves each staged model folder into the models folder, replacing an older copy of the same model. */
async function installModels(modelsDir: string, staged: string, m: PackManifest): Promise<void> {
  for (const mod of m.models) {
    const from = path.join(staged, 'models', ...mod.id.split('/'));
    const to = path.join(modelsDir, ...mod.id.split('/'));
    await mkdir(path.dirname(to), { recursive: true });
    if (existsSync(to)) {
      const old = path.join(modelsDir, STAGING_DIR, `old-${randomBytes(6).toString('hex')}`);
      await mkdir(path.dirname(old), { recursive: true });
      await rename(to, old);
      await rename(from, to);
      await rm(old, { recursive: true, force: true });
    } else {
      await rename(from, to);
    }
  }
}

/** Makes the previous installed version active again; the version rolled back from is deleted. */
export async function rollbackPack(libraryDir: string, id: string): Promise<PackInfo> {
  const registry = readRegistry(libraryDir);
  const entry = registry.find((e) => e.id === id);
  if (!entry) throw new EngineError('NOT_FOUND', `Pack "${id}" is not installed ("manualdesk pack list" shows the installed packs).`);
  if (entry.kind === 'models') throw new EngineError('INVALID_INPUT', `Pack "${id}" is a model pack; import the older model pack again instead.`);
  const older = entry.versions.filter((v) => v.version !== entry.active);
  if (older.length === 0 || !older[0]) throw new EngineError('INVALID_INPUT', `Pack "${id}" has no older version to roll back to (only ${entry.active} is installed).`);
  const next: RegistryEntry = { ...entry, active: older[0].version, versions: older };
  await writeRegistry(libraryDir, registry.map((e) => (e.id === id ? next : e)));
  await rm(versionDir(libraryDir, id, entry.active), { recursive: true, force: true });
  return toPackInfo(libraryDir, next, trustedFingerprints(libraryDir));
}

/** Uninstalls a pack for real: packs.json first, then its folders (and a model pack's models). */
export async function removePack(libraryDir: string, id: string, modelsDir: string): Promise<void> {
  const registry = readRegistry(libraryDir);
  const entry = registry.find((e) => e.id === id);
  if (!entry) throw new EngineError('NOT_FOUND', `Pack "${id}" is not installed ("manualdesk pack list" shows the installed packs).`);
  const manifest = entry.kind === 'models' ? installedManifest(libraryDir, id, entry.active) : null;
  await writeRegistry(libraryDir, registry.filter((e) => e.id !== id));
  await rm(path.join(libraryDir, PACKS_DIR, id), { recursive: true, force: true });
  for (const mod of manifest?.models ?? []) await rm(path.join(modelsDir, ...mod.id.split('/')), { recursive: true, force: true });
}

