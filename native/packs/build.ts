/**
 * Builds a pack: a manual pack ingests a folder into a fresh library (with the chosen embedder, so
 * sites never re-embed) and packs that library with the source documents; a model pack packs model
 * folders. The manifest lists every file with its sha256 and size and is signed with ed25519.
 *
 * Work happens in a temporary folder; the payload is linked there (symlinks followed when archiving),
 * so large documents are read once for hashing and once for the archive, never copied.
 */
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { copyFile, mkdir, mkdtemp, readdir, readFile, rm, stat, symlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { create as tarCreate } from 'tar';
import type { PackProgress } from '../contract/packs.js';
import type { FileRecord } from '../contract/document.js';
import { EngineError } from '../contract/errors.js';
import type { EmbedderSpec, ModelManifest } from '../embed/models.js';
import { loadManifest, modelFolderName } from '../embed/models.js';
import type { LibraryMeta } from '../store/types.js';
import { Library } from '../library/library.js';
import { INDEX_DIRS, INDEX_FILES, LIBRARY_FILE } from '../library/layout.js';
import { ingestIntoLibrary } from '../pipelines/ingest.js';
import {
  canonicalJson,
  checkManifest,
  DEFAULT_SPLIT_SIZE,
  DOCUMENTS_PREFIX,
  LIBRARY_PREFIX,
  MANIFEST_FILE,
  MODELS_PREFIX,
  PACK_FORMAT_NAME,
  PACK_FORMAT_VERSION,
  PACK_ID_RE,
  PACK_VERSION_RE,
  SIGNATURE_FILE,
  SIGNER_FILE,
  unsafePathReason,
  type PackFile,
  type PackManifest,
} from './format.js';
import { catalogEntry, catalogRecord, checkAgainstCatalog, isSingleFileModel, looseWeightsUnderTerms } from './catalog.js';
import { loadPrivateKey, signBytes } from './keys.js';
import { SplitWriter } from './parts.js';

export interface BuildOptions {
  /** Folder of manuals (kind manuals) or of model folders (kind models). */
  source: string;
  /** Output file; split packs become `<out>.001`, `<out>.002`, … */
  out: string;
  kind?: 'manuals' | 'models';
  id: string;
  name?: string;
  version: string;
  publisher?: string;
  description?: string;
  /** private.pem; without it the pack is unsigned (sites refuse it unless they allow unsigned packs). */
  keyFile?: string;
  /** Embedder for manual packs (default none: keyword search and fault codes only). */
  embedder?: EmbedderSpec;
  /** Part size in bytes (default just under 4 GB, for FAT32 sticks). */
  splitSize?: number;
  /**
   * A folder of files carried under documents/ without being indexed (drawings, scans, videos):
   * listed, hashed and verified like every other file. Names must not collide with the manuals'.
   */
  attachments?: string;
  /** Where the temporary library is built (default the OS temp folder). */
  workDir?: string;
  signal?: AbortSignal;
  onProgress?: (p: PackProgress) => void;
}

export interface BuildResult {
  parts: string[];
  bytes: number;
  manifest: PackManifest;
  signed: boolean;
}

/** Files of a built library that travel in a pack (never the lock, temp files or the embedding cache). */
const LIBRARY_FILES = new Set(INDEX_FILES);
const LIBRARY_DIRS = INDEX_DIRS;

export async function buildPack(opts: BuildOptions): Promise<BuildResult> {
  const kind = opts.kind ?? 'manuals';
  if (!PACK_ID_RE.test(opts.id) || opts.id === 'local') {
    throw new EngineError('INVALID_INPUT', `Pack id "${opts.id}" is not allowed: use 1–64 lower-case letters, digits, ".", "-" or "_" (not "local").`);
  }
  if (!PACK_VERSION_RE.test(opts.version)) {
    throw new EngineError('INVALID_INPUT', `Pack version "${opts.version}" is not allowed: use letters, digits, ".", "+", "-" or "_".`);
  }
  const st = await stat(opts.source).catch(() => null);
  if (!st?.isDirectory()) throw new EngineError('NOT_FOUND', `${opts.source} is not a folder.`);
  const key = opts.keyFile ? loadPrivateKey(opts.keyFile) : null;
  const work = await mkdtemp(path.join(opts.workDir ?? os.tmpdir(), 'manualdesk-pack-'));
  const progress = (p: Omit<PackProgress, 'phase'>) => opts.onProgress?.({ phase: 'build', ...p });
  try {
    const created = new Date().toISOString();
    const payload: PackFile[] = [];
    let library: PackManifest['library'] = null;
    let manuals: PackManifest['manuals'] = [];
    let models: PackManifest['models'] = [];
    if (kind === 'manuals') {
      ({ library, manuals } = await stageManuals(opts, work, payload));
    } else {
      models = await stageModels(opts.source, work, payload, opts.signal);
    }
    payload.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
    const manifest: PackManifest = {
      format: PACK_FORMAT_NAME,
      formatVersion: PACK_FORMAT_VERSION,
      id: opts.id,
      name: opts.name ?? opts.id,
      version: opts.version,
      publisher: opts.publisher ?? '',
      created,
      ...(opts.description ? { description: opts.description } : {}),
      kind,
      library,
      manuals,
      models,
      files: payload,
    };
    checkManifest(JSON.parse(JSON.stringify(manifest))); // what we write must be what sites accept
    const canonical = Buffer.from(canonicalJson(manifest), 'utf8');
    await writeFile(path.join(work, MANIFEST_FILE), canonical);
    const meta = [MANIFEST_FILE];
    if (key) {
      await writeFile(path.join(work, SIGNATURE_FILE), signBytes(canonical, key).toString('base64') + '\n');
      const { createPublicKey } = await import('node:crypto');
      await writeFile(path.join(work, SIGNER_FILE), createPublicKey(key).export({ type: 'spki', format: 'pem' }));
      meta.push(SIGNATURE_FILE, SIGNER_FILE);
    }
    opts.signal?.throwIfAborted();

    const total = payload.reduce((s, f) => s + f.size, 0);
    const writer = new SplitWriter(opts.out, opts.splitSize ?? DEFAULT_SPLIT_SIZE);
    const noLinks = new (class extends Map<string, string> {
      override set(): this {
        return this; // a file linked twice must be stored twice, never as a hard-link entry
      }
    })();
    const archive = tarCreate(
      { cwd: work, portable: true, follow: true, noDirRecurse: true, mtime: new Date(created), linkCache: noLinks as never },
      [...meta, ...payload.map((f) => f.path)],
    );
    let filesDone = 0;
    const tick = setInterval(() => progress({ bytesDone: writer.bytes, bytesTotal: total, filesDone, filesTotal: payload.length }), 500);
    try {
      await pipeline(archive as unknown as NodeJS.ReadableStream, writer, { signal: opts.signal });
      filesDone = payload.length;
    } catch (err) {
      await writer.discard();
      throw err;
    } finally {
      clearInterval(tick);
    }
    progress({ bytesDone: writer.bytes, bytesTotal: total, filesDone, filesTotal: payload.length });
    let parts = writer.parts;
    if (parts.length === 1 && parts[0] !== undefined) {
      const { rename } = await import('node:fs/promises');
      await rename(parts[0], opts.out);
      parts = [opts.out];
    }
    return { parts, bytes: writer.bytes, manifest, signed: key !== null };
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

async function stageManuals(
  opts: BuildOptions,
  work: string,
  payload: PackFile[],
): Promise<{ library: NonNullable<PackManifest['library']>; manuals: PackManifest['manuals'] }> {
  const libDir = path.join(work, 'library');
  const library = await Library.open(libDir, { embedder: opts.embedder ?? { kind: 'none' }, resolveRecorded: () => ({ kind: 'none' }), create: true });
  const docs = new Map<string, FileRecord>();
  let meta: LibraryMeta;
  try {
    const report = await ingestIntoLibrary(
      library,
      { paths: [opts.source] },
      { signal: opts.signal, onProgress: (p) => opts.onProgress?.({ phase: 'build', bytesDone: 0, bytesTotal: 0, filesDone: p.done, filesTotal: p.total }) },
    );
    if (report.files === 0) {
      const why = report.skipped.map((s) => `${s.file}: ${s.reason}`).slice(0, 5).join('; ');
      throw new EngineError('INVALID_INPUT', `No manuals could be indexed in ${opts.source}${why ? ` (${why})` : ''}.`);
    }
    // The pack names documents by their place in the pack, never by the publisher's own folders.
    for (const rec of library.store.getFiles()) {
      const rel = `${DOCUMENTS_PREFIX}${rec.file}`;
      const why = unsafePathReason(rel);
      if (why) throw new EngineError('INVALID_INPUT', `${rec.file} cannot go into a pack: its name has ${why}. Rename it and build again.`);
      docs.set(rel, rec);
    }
    await library.store.relocateSources((r) => `${DOCUMENTS_PREFIX}${r.file}`);
    meta = library.info;
  } finally {
    await library.close();
  }

  for (const [rel, rec] of docs) {
    opts.signal?.throwIfAborted();
    const link = path.join(work, ...rel.split('/'));
    await mkdir(path.dirname(link), { recursive: true });
    await linkOrCopy(rec.source, link);
    const f = await hashFile(link, rel);
    if (f.sha256 !== rec.sha256) throw new EngineError('INVALID_INPUT', `${rec.source} changed while the pack was being built; build again.`);
    payload.push(f);
  }
  if (opts.attachments) {
    for (const rel of await walk(opts.attachments)) {
      opts.signal?.throwIfAborted();
      const packPath = `${DOCUMENTS_PREFIX}${rel}`;
      const why = unsafePathReason(packPath);
      if (why) throw new EngineError('INVALID_INPUT', `${rel} cannot go into a pack: its name has ${why}.`);
      if (docs.has(packPath)) throw new EngineError('INVALID_INPUT', `${rel} is both a manual and an attachment; rename one.`);
      const link = path.join(work, ...packPath.split('/'));
      await mkdir(path.dirname(link), { recursive: true });
      await linkOrCopy(path.join(opts.attachments, ...rel.split('/')), link);
      payload.push(await hashFile(link, packPath));
    }
  }
  for (const rel of await walk(libDir)) {
    const top = rel.split('/')[0] as string;
    if (!(LIBRARY_FILES.has(rel) || LIBRARY_DIRS.includes(top))) continue;
    if (rel.endsWith('.tmp')) continue;
    payload.push(await hashFile(path.join(libDir, ...rel.split('/')), `${LIBRARY_PREFIX}${rel}`));
  }

  const groups = new Map<string, PackManifest['manuals'][number]>();
  const byRel = new Map(payload.map((f) => [f.path, f]));
  for (const [rel, rec] of docs) {
    const key = `${rec.manualKey}\u0000${rec.meta.revision ?? ''}`;
    let g = groups.get(key);
    if (!g) {
      g = { title: rec.meta.title, revision: rec.meta.revision, language: rec.meta.language, equipment: [...rec.meta.equipment], files: [] };
      groups.set(key, g);
    }
    g.files.push(byRel.get(rel) as PackFile);
  }
  let modelFiles: { name: string; sha256: string; size: number }[] = [];
  if (meta.embedder && opts.embedder?.kind === 'onnx') {
    const dir = opts.embedder.dir;
    modelFiles = await Promise.all((await walk(dir)).map(async (rel) => {
      const f = await hashFile(path.join(dir, ...rel.split('/')), rel);
      return { name: rel, sha256: f.sha256, size: f.size };
    }));
  }
  return {
    library: {
      formatVersion: meta.formatVersion,
      chunkerVersion: meta.chunkerVersion,
      analyzerVersion: meta.analyzerVersion,
      embedder: meta.embedder ? { id: meta.embedder.id, dims: meta.embedder.dims, files: modelFiles } : null,
    },
    manuals: [...groups.values()],
  };
}

/**
 * The models of a models folder (the layout `npm run models:fetch` writes and the model lookup
 * searches): a loose single-file model at the top (a .gguf) is one model, its id the file name; any
 * other folder that holds files is one model, its id its path under the source folder (its own
 * subfolders, e.g. onnx/, belong to it). Hidden files and folders (.staging, .DS_Store) are left out.
 * A model models/manifest.json knows (by folder or file name) must match the sha256 and size listed
 * there, with every required file present; the pack records its manifest id and provenance.
 */
async function stageModels(source: string, work: string, payload: PackFile[], signal?: AbortSignal, manifest: ModelManifest = loadManifest()): Promise<PackManifest['models']> {
  const byModel = new Map<string, { single: boolean; files: PackFile[] }>();
  const files = (await walk(source)).filter((rel) => !rel.split('/').some((seg) => seg.startsWith('.')));
  const dirs = new Set(files.map((f) => path.posix.dirname(f)));
  for (const rel of files) {
    signal?.throwIfAborted();
    const dir = path.posix.dirname(rel);
    let id = dir;
    for (let d = dir; d !== '.'; d = path.posix.dirname(d)) if (dirs.has(d)) id = d;
    const single = id === '.';
    if (single) {
      const underTerms = looseWeightsUnderTerms(rel, manifest);
      if (underTerms?.terms) {
        throw new EngineError(
          'INVALID_INPUT',
          `${rel} lies loose in ${source}: it is the weights of ${underTerms.id}, under the ${underTerms.terms.name} (${underTerms.terms.url}), which must travel with them. ` +
            `Put it in its folder ${modelFolderName(underTerms)}/ beside ${underTerms.terms.file} (the layout npm run models:fetch writes), then build again. Nothing was written.`,
        );
      }
      if (!isSingleFileModel(rel, manifest)) {
        throw new EngineError(
          'INVALID_INPUT',
          `${rel} lies loose in ${source} and is not a model file (a loose file must be a .gguf language model or a file models/manifest.json lists). Put each model folder's files in their own folder (e.g. <source>/Xenova/bge-m3/), or move ${rel} out, then build again.`,
        );
      }
      id = rel;
    }
    const packPath = `${MODELS_PREFIX}${rel}`;
    const why = unsafePathReason(packPath);
    if (why) throw new EngineError('INVALID_INPUT', `${rel} cannot go into a pack: its name has ${why}.`);
    const link = path.join(work, ...packPath.split('/'));
    await mkdir(path.dirname(link), { recursive: true });
    await linkOrCopy(path.join(source, ...rel.split('/')), link);
    const f = await hashFile(link, packPath);
    payload.push(f);
    const m = byModel.get(id) ?? { single, files: [] };
    m.files.push(f);
    byModel.set(id, m);
  }
  if (byModel.size === 0) throw new EngineError('INVALID_INPUT', `No model files in ${source}.`);
  return [...byModel].map(([id, { single, files: list }]) => {
    const entry = catalogEntry(id, single, manifest);
    if (!entry) return { id, role: single ? ('llm' as const) : null, files: list };
    const named = list.map((f) => ({ name: single ? id : f.path.slice(`${MODELS_PREFIX}${id}/`.length), sha256: f.sha256, size: f.size }));
    checkAgainstCatalog(
      entry,
      named,
      `The model ${id} in ${source}`,
      'Nothing was written. Fetch the model again (npm run models:fetch in a source checkout, or copy it from the original), then build again.',
      'INVALID_INPUT',
    );
    return { id, role: entry.role, files: list, catalog: catalogRecord(entry) };
  });
}

async function walk(root: string, rel = ''): Promise<string[]> {
  const out: string[] = [];
  const entries = await readdir(path.join(root, rel), { withFileTypes: true });
  entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const e of entries) {
    const r = rel ? `${rel}/${e.name}` : e.name;
    if (e.isDirectory()) out.push(...(await walk(root, r)));
    else if (e.isFile()) out.push(r);
  }
  return out;
}

export async function hashFile(file: string, packPath: string): Promise<PackFile> {
  const hash = createHash('sha256');
  let size = 0;
  for await (const c of createReadStream(file, { highWaterMark: 1024 * 1024 })) {
    hash.update(c as Buffer);
    size += (c as Buffer).length;
  }
  return { path: packPath, size, sha256: hash.digest('hex') };
}

/** Reads a library's recorded embedder id (to build packs with the same model as a site's library). */
export async function recordedEmbedder(libraryDir: string): Promise<string | null> {
  try {
    const meta = JSON.parse(await readFile(path.join(libraryDir, LIBRARY_FILE), 'utf8')) as LibraryMeta;
    return meta.embedder?.id ?? null;
  } catch {
    return null;
  }
}

/** A symbolic link to the source file (followed when archiving); a copy where links are not allowed (Windows without the right). */
async function linkOrCopy(target: string, link: string): Promise<void> {
  try {
    await symlink(path.resolve(target), link);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EPERM') throw err;
    await copyFile(target, link);
  }
}
