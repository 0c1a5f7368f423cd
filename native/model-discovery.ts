/**
 * Where models are looked for, and which embedder a library's recorded id names. The one place
 * that reads the models environment ($MANUALDESK_MODELS, $HOME); the stages get the folders as
 * arguments. The lookup inside a folder is native/embed/models.ts's findModel.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { sha256FileSync } from './base/file-hash.js';
import { EngineError } from './contract/errors.js';
import { modelNameOf, NEW_LIBRARY_HINT, otherWeights } from './contract/messages.js';
import { findModel, loadManifest, modelFolderName, type EmbedderSpec, type ModelEntry, type ModelManifest, type RememberedModel } from './embed/models.js';
import type { EmbedderModelInfo } from './contract/api.js';

/** The folder holding package.json above this file (the source checkout or the installed app). */
export function packageRoot(from: string = path.dirname(fileURLToPath(import.meta.url))): string {
  let dir = from;
  for (;;) {
    if (existsSync(path.join(dir, 'package.json'))) return dir;
    const up = path.dirname(dir);
    if (up === dir) return path.resolve(from, '..');
    dir = up;
  }
}

/**
 * Model folders, searched in order: $MANUALDESK_MODELS, ~/.manualdesk/models (the user's; pack
 * imports install there), then the checkout's models/local (models laid out by the fetch script) and
 * the app's own models folder. In the installed app (`root` is `<resources>/app.asar`) the models the
 * installer bundled lie beside it, in `<resources>/models/local` (electron-builder.yml extraResources).
 * With MANUALDESK_MODELS_ONLY=1, $MANUALDESK_MODELS alone.
 */
export function modelSearchDirs(env: NodeJS.ProcessEnv = process.env, root: string = packageRoot()): string[] {
  const dirs: string[] = [];
  if (env.MANUALDESK_MODELS) dirs.push(env.MANUALDESK_MODELS);
  // Only $MANUALDESK_MODELS (none when unset): a site that pins its models folder, and the test
  // suite, which must not pick up the models a developer fetched into this checkout.
  if (env.MANUALDESK_MODELS_ONLY === '1') return dirs;
  dirs.push(path.join(env.HOME ?? env.USERPROFILE ?? '.', '.manualdesk', 'models'));
  dirs.push(path.join(root, 'models', 'local'));
  if (root.endsWith('.asar')) dirs.push(path.join(path.dirname(root), 'models', 'local'));
  dirs.push(path.join(root, 'models'));
  return dirs;
}

/**
 * The embedder a NEW library gets when none is chosen: the first installed embedding model in the
 * manifest's order, which lists them strongest first (models/manifest.json's note says so; the
 * measurements are in docs/DECISIONS.md), found in the model folders; null: none installed (keyword
 * search + fault codes). A model under terms counts as installed only with its terms file beside it
 * (a required file of its entry), so it is chosen only where someone installed it accepting them.
 * The faces ask for it (CLI ingest, app start), not the engine's default; an existing library keeps
 * the model it was built with.
 */
export function installedEmbedder(dirs: string[] = modelSearchDirs(), manifest: ModelManifest = loadManifest()): EmbedderSpec | null {
  for (const m of manifest.models) {
    if (m.role !== 'embed' || m.bundled) continue;
    const dir = findModel(m.id, dirs, manifest);
    if (!dir) continue;
    if (m.backend === 'onnx') return { kind: 'onnx', dir, modelId: m.id };
    const weights = m.backend === 'gguf' ? m.files.find((f) => f.name.endsWith('.gguf')) : undefined;
    if (weights) return { kind: 'gguf', file: path.join(dir, weights.name), modelId: m.id };
  }
  return null;
}

/** The manifest entry of a recorded embedder id: "onnx:<manifest id>@…", or "gguf:<folder name>[-<dims>d]@…". */
export function entryOfRecorded(id: string, manifest: ModelManifest = loadManifest()): ModelEntry | undefined {
  const gguf = /^gguf:(.+?)(?:-\d+d)?@[0-9a-f]+$/.exec(id);
  if (gguf) return manifest.models.find((e) => e.role === 'embed' && e.backend === 'gguf' && modelFolderName(e) === gguf[1]);
  if (id.startsWith('onnx:')) return manifest.models.find((e) => e.role === 'embed' && e.id === modelNameOf(id));
  return undefined;
}

/**
 * A library's embedding model as the model list knows it: its name, licence and, for a model whose
 * licence asks that its terms travel with the weights, the terms' name, where to read them and the
 * terms file beside the installed weights (null when the model or that file is not on this computer).
 * Null for an id the model list does not know.
 */
export function embedderModelOf(
  id: string,
  dirs: string[] = modelSearchDirs(),
  remembered: RememberedModel | null = null,
  manifest: ModelManifest = loadManifest(),
): EmbedderModelInfo | null {
  const entry = entryOfRecorded(id, manifest);
  if (!entry) return null;
  const terms = entry.terms;
  if (!terms) return { name: entry.id, license: entry.license, terms: null };
  const own = remembered?.id === id ? (id.startsWith('gguf:') ? path.dirname(remembered.dir) : remembered.dir) : undefined;
  const folders = [own, findModel(entry.id, dirs, manifest)].filter((d): d is string => d !== undefined);
  const file = folders.map((d) => path.join(d, terms.file)).find((f) => existsSync(f)) ?? null;
  return { name: entry.id, license: entry.license, terms: { name: terms.name, url: terms.url, file } };
}

/**
 * True when a weights file of `dir` has the weights' sha256 prefix of the recorded id ("…@ddc7b9f6-…").
 * The rest of the model's identity (tokenizer, config) is checked once it is loaded (Library.open).
 */
export function folderMatchesId(dir: string, id: string): boolean {
  const want = /@([0-9a-f]{8,})(?:-[0-9a-f]{8,})?$/.exec(id)?.[1];
  return want !== undefined && weightsShas(dir).some((sha) => sha.startsWith(want));
}


/**
 * The sha256 of each weights file of an ONNX model folder, the int8 one first (the one an embedder
 * loads when both are there); memoised per (path, size, mtime), as every open of a library checks them.
 */
function weightsShas(dir: string): string[] {
  const out: string[] = [];
  for (const name of ['onnx/model_quantized.onnx', 'onnx/model.onnx']) {
    const file = path.join(dir, name);
    if (existsSync(file)) out.push(sha256FileSync(file));
  }
  return out;
}


/** True when a GGUF embedding model file has the weights' sha256 prefix of the recorded id ("gguf:<name>@<sha8>"). */
function fileMatchesId(file: string, id: string): boolean {
  const want = /@([0-9a-f]{8,})$/.exec(id)?.[1];
  return want !== undefined && sha256FileSync(file).startsWith(want);
}

/**
 * The installed file of a GGUF embedding model recorded as "gguf:<name>[-<dims>d]@<sha8>": the
 * manifest's gguf embedding entry of that folder name, found in the model folders.
 */
function recordedGguf(id: string, dirs: string[], manifest: ModelManifest = loadManifest()): { file: string; dims?: number } | null {
  const m = /^gguf:(.+?)(?:-(\d+)d)?@[0-9a-f]+$/.exec(id);
  if (!m) return null;
  const entry = entryOfRecorded(id, manifest);
  const weights = entry?.files.find((f) => f.name.endsWith('.gguf'));
  const dir = entry ? findModel(entry.id, dirs, manifest) : undefined;
  if (!entry || !weights || !dir) return null;
  return { file: path.join(dir, weights.name), ...(m[2] ? { dims: Number(m[2]) } : {}) };
}

/**
 * Picks the embedder a library was built with, when no embedder is configured explicitly: the folder
 * the library remembers when its weights still have the recorded sha256, else the model folders.
 */
export function specForRecorded(id: string | null, dirs: string[] = modelSearchDirs(), remembered?: RememberedModel | null): EmbedderSpec {
  if (id && remembered && remembered.id === id && id.startsWith('onnx:') && existsSync(remembered.dir) && folderMatchesId(remembered.dir, id)) {
    return { kind: 'onnx', dir: remembered.dir, modelId: modelNameOf(id) };
  }
  if (!id) return { kind: 'none' };
  if (id.startsWith('use-lite:')) return { kind: 'use-lite' };
  if (id.startsWith('static-words:')) return { kind: 'static-words' };
  if (id.startsWith('gguf:')) {
    const dims = /-(\d+)d@/.exec(id)?.[1];
    if (remembered && remembered.id === id && existsSync(remembered.dir) && fileMatchesId(remembered.dir, id)) {
      return { kind: 'gguf', file: remembered.dir, ...(dims ? { dims: Number(dims) } : {}) };
    }
    const found = recordedGguf(id, dirs);
    if (!found) {
      throw new EngineError(
        'MODEL_MISSING',
        `This library was indexed with the model ${modelNameOf(id)}, which is not installed on this computer. Install it as the library's builder did (for EmbeddingGemma: npm run models:fetch -- --with embeddinggemma --accept-gemma-terms), or copy the model folder in (manualdesk models add <folder>), or re-index the library with another model.`,
      );
    }
    if (!fileMatchesId(found.file, id)) throw new EngineError('MODEL_MISSING', otherWeights(id, found.file));
    return { kind: 'gguf', ...found };
  }
  if (id.startsWith('onnx:')) {
    const modelId = modelNameOf(id);
    const dir = findModel(modelId, dirs);
    if (!dir) {
      throw new EngineError(
        'MODEL_MISSING',
        `This library was indexed with the model ${modelId}, which is not installed on this computer. Import a model pack that carries it (manualdesk pack import <model pack> --library <this library>), or copy the model folder in (manualdesk models add <folder>), or re-index the library with another model.`,
      );
    }
    // Installed under that name with other weights (another quantisation, a newer pack): not the
    // library's model, whose vectors those weights would not match.
    if (/@[0-9a-f]{8,}(?:-[0-9a-f]{8,})?$/.test(id) && !folderMatchesId(dir, id)) {
      const installed = weightsShas(dir)[0];
      throw new EngineError('MODEL_MISSING', otherWeights(id, installed ? `onnx:${modelId}@${installed.slice(0, 8)}` : dir));
    }
    return { kind: 'onnx', dir, modelId };
  }
  throw new EngineError('EMBEDDER_MISMATCH', `This library was indexed with an unknown embedder (${id}). Open it with that model (--embedder), or ${NEW_LIBRARY_HINT}.`);
}
