/**
 * Installed models: which manifest models are present in the models folders, their checksums, and
 * adding a model file the user already has (copy + sha256 check). Nothing is ever downloaded.
 *
 * A GGUF language model is a single file: `<models dir>/<file>` or `<models dir>/<id>/<file>`.
 * A `.gguf` in the user's models folder that the manifest does not list is offered too (unverified).
 * `MANUALDESK_LLM=<path.gguf>` picks a model file directly; `MANUALDESK_LLM=none` turns generation off.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { ModelRole, ModelStatus } from '../contract/answer.js';
import { sha256File } from '../base/file-hash.js';
import { EngineError } from '../contract/errors.js';
import { passedAnswerCheck, readAnswerCheck } from './answer-check.js';
import { findModel, loadManifest, modelFolderName, type ModelEntry, type ModelManifest } from '../embed/models.js';

export interface FoundModel {
  id: string;
  role: ModelRole;
  /** The file (GGUF) or folder (ONNX) found. */
  path: string;
  entry: ModelEntry | null;
}

function isFile(p: string): boolean {
  return fs.statSync(p, { throwIfNoEntry: false })?.isFile() === true;
}

/** Where a single-file model of an entry lies, if installed. */
function findSingleFile(entry: ModelEntry, dirs: string[]): string | undefined {
  const file = entry.files[0];
  if (!file) return undefined;
  const name = entry.id.split('/').pop() ?? entry.id;
  for (const base of dirs) {
    for (const candidate of [path.join(base, file.name), path.join(base, ...entry.id.split('/'), file.name), path.join(base, name, file.name)]) {
      if (isFile(candidate)) return candidate;
    }
  }
  return undefined;
}

/**
 * The language model to use: MANUALDESK_LLM; else the first installed manifest LLM (the manifest's
 * order is the preference) that passed its answer check, else the first installed one; else any .gguf
 * in the first models folder. So a larger model installed beside the default writes answers only when
 * it passed the check and the default did not.
 */
export function findLlm(dirs: string[], manifest: ModelManifest = loadManifest(), env = process.env): FoundModel | null {
  const override = env.MANUALDESK_LLM?.trim();
  if (override === 'none' || override === 'off') return null;
  if (override) {
    if (!isFile(override)) {
      throw new EngineError('MODEL_MISSING', `MANUALDESK_LLM names ${override}, which is not a file. Point it at a .gguf model or unset it.`);
    }
    return { id: path.basename(override), role: 'llm', path: override, entry: null };
  }
  const installed = installedLlms(dirs, manifest);
  const chosen = installed.find((m) => passedAnswerCheck(m.path)) ?? installed[0];
  if (chosen) return chosen;
  const user = dirs[0];
  if (user && fs.existsSync(user)) {
    const gguf = fs.readdirSync(user).filter((f) => f.toLowerCase().endsWith('.gguf')).sort()[0];
    if (gguf) return { id: gguf, role: 'llm', path: path.join(user, gguf), entry: null };
  }
  return null;
}

/** Every manifest language model installed in these folders, in the manifest's order. */
export function installedLlms(dirs: string[], manifest: ModelManifest = loadManifest()): FoundModel[] {
  return manifest.models
    .filter((m) => m.role === 'llm' && m.backend === 'gguf')
    .flatMap((entry) => {
      const p = findSingleFile(entry, dirs);
      return p ? [{ id: entry.id, role: 'llm' as const, path: p, entry }] : [];
    });
}

/** The installed cross-encoder reranker folder, if any. */
export function findReranker(dirs: string[], manifest: ModelManifest = loadManifest()): FoundModel | null {
  for (const entry of manifest.models.filter((m) => m.role === 'rerank')) {
    const dir = findModel(entry.id, dirs, manifest);
    if (dir) return { id: entry.id, role: 'rerank', path: dir, entry };
  }
  return null;
}

export { sha256File };

/** Compares an installed model's files with the manifest's sha256: true all match, false one differs, null nothing to check. */
export async function verifyInstalled(found: string, entry: ModelEntry): Promise<boolean | null> {
  let checked = 0;
  for (const f of entry.files) {
    if (!f.sha256) continue;
    const p = isFile(found) ? found : path.join(found, f.name);
    if (!isFile(p)) {
      if (f.optional) continue;
      return false;
    }
    if ((await sha256File(p)) !== f.sha256) return false;
    checked++;
    if (isFile(found)) break;
  }
  return checked > 0 ? true : null;
}

function sizeOf(p: string): number | null {
  const st = fs.statSync(p, { throwIfNoEntry: false });
  if (!st) return null;
  if (st.isFile()) return st.size;
  let total = 0;
  const stack = [p];
  while (stack.length > 0) {
    const d = stack.pop() as string;
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const q = path.join(d, e.name);
      if (e.isDirectory()) stack.push(q);
      else if (e.isFile()) total += fs.statSync(q).size;
    }
  }
  return total;
}

export interface ListOptions {
  dirs: string[];
  manifest?: ModelManifest;
  /** Ids in use by the running engine (embedder, LLM, reranker). */
  inUse?: string[];
  /** Compute sha256 of installed files (slow for large models). */
  verify?: boolean;
}

/** Every manifest model with where it is installed, plus a user GGUF not in the manifest. */
export async function listModelStatus(opts: ListOptions): Promise<ModelStatus[]> {
  const manifest = opts.manifest ?? loadManifest();
  const inUse = new Set(opts.inUse ?? []);
  const out: ModelStatus[] = [];
  for (const entry of manifest.models) {
    let found: string | undefined;
    if (entry.bundled) found = undefined;
    else if (entry.backend === 'gguf' && entry.role === 'llm') found = findSingleFile(entry, opts.dirs);
    else found = findModel(entry.id, opts.dirs, manifest);
    out.push({
      id: entry.id,
      role: entry.role,
      installed: entry.bundled === true || found !== undefined,
      path: found ?? null,
      verified: found && opts.verify ? await verifyInstalled(found, entry) : null,
      license: entry.license,
      sizeBytes: found ? sizeOf(found) : null,
      inUse: inUse.has(entry.id),
      ...(entry.role === 'llm' ? { answerCheck: found ? answerCheckOf(found) : null } : {}),
    });
  }
  const llm = (() => {
    try {
      return findLlm(opts.dirs, manifest);
    } catch {
      return null;
    }
  })();
  if (llm && !llm.entry) {
    out.push({ id: llm.id, role: 'llm', installed: true, path: llm.path, verified: null, license: 'unknown', sizeBytes: sizeOf(llm.path), inUse: inUse.has(llm.id), answerCheck: answerCheckOf(llm.path) });
  }
  return out;
}

function answerCheckOf(modelPath: string): ModelStatus['answerCheck'] {
  const r = readAnswerCheck(modelPath);
  return r ? { passed: r.passed, checkedAt: r.checkedAt, summary: r.summary } : null;
}

export interface AddResult {
  id: string;
  role: ModelRole;
  path: string;
  /** true: sha256 matches the manifest; null: the manifest has no checksum for it (or it is not listed). */
  verified: boolean | null;
  sha256: string;
}

/**
 * Copies a model the user has (a .gguf file, or a model folder in the Hugging Face layout) into the
 * user's models folder. A file the manifest lists with a sha256 must match it, or nothing is copied.
 */
export async function addModel(source: string, destDir: string, manifest: ModelManifest = loadManifest()): Promise<AddResult> {
  const st = fs.statSync(source, { throwIfNoEntry: false });
  if (!st) throw new EngineError('NOT_FOUND', `No such file or folder: ${source}.`);
  await fs.promises.mkdir(destDir, { recursive: true });
  if (st.isFile()) {
    const base = path.basename(source);
    const entry = manifest.models.find((m) => m.files.length === 1 && m.files[0]?.name === base) ?? null;
    if (!entry && !base.toLowerCase().endsWith('.gguf')) {
      throw new EngineError('UNSUPPORTED_FORMAT', `${base} is not a model ManualDesk knows (a .gguf language model, or a model folder). See models/manifest.json.`);
    }
    const sha = await sha256File(source);
    const want = entry?.files[0]?.sha256 ?? null;
    if (want && want !== sha) {
      throw new EngineError('INVALID_INPUT', `${base} does not match the known checksum of ${entry?.id} (sha256 ${sha}, expected ${want}). The file is damaged or a different build; nothing was copied.`);
    }
    const dest = path.join(destDir, base);
    const tmp = `${dest}.part`;
    await fs.promises.copyFile(source, tmp);
    await fs.promises.rename(tmp, dest);
    return { id: entry?.id ?? base, role: entry?.role ?? 'llm', path: dest, verified: want ? true : null, sha256: sha };
  }
  // A folder: named like the model (…/multilingual-e5-small or …/Xenova/multilingual-e5-small).
  const name = path.basename(path.resolve(source));
  const entry = manifest.models.find((m) => !m.bundled && m.backend === 'onnx' && modelFolderName(m) === name);
  if (!entry) throw new EngineError('UNSUPPORTED_FORMAT', `The folder ${name} is not named like a known model (see models/manifest.json).`);
  for (const f of entry.files) {
    const p = path.join(source, f.name);
    if (!isFile(p)) {
      if (f.optional) continue;
      throw new EngineError('INVALID_INPUT', `${entry.id} is incomplete: ${f.name} is missing from ${source}.`);
    }
    if (f.sha256 && (await sha256File(p)) !== f.sha256) {
      throw new EngineError('INVALID_INPUT', `${entry.id}: ${f.name} does not match its known checksum; nothing was copied.`);
    }
  }
  const dest = path.join(destDir, ...entry.id.split('/'));
  const tmp = `${dest}.part`;
  await fs.promises.rm(tmp, { recursive: true, force: true });
  await fs.promises.cp(source, tmp, { recursive: true });
  await fs.promises.rm(dest, { recursive: true, force: true });
  await fs.promises.rename(tmp, dest);
  const verified = await verifyInstalled(dest, entry);
  return { id: entry.id, role: entry.role, path: dest, verified, sha256: '' };
}
