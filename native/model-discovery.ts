/**
 * Where models are looked for, and which embedder a library's recorded id names. The one place
 * that reads the models environment ($MANUALDESK_MODELS, $HOME); the stages get the folders as
 * arguments. The lookup inside a folder is native/embed/models.ts's findModel.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { EngineError } from './contract/errors.js';
import { NEW_LIBRARY_HINT } from './contract/messages.js';
import { findModel, type EmbedderSpec } from './embed/models.js';

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
 * the app's own models folder.
 */
export function modelSearchDirs(env: NodeJS.ProcessEnv = process.env): string[] {
  const dirs: string[] = [];
  if (env.MANUALDESK_MODELS) dirs.push(env.MANUALDESK_MODELS);
  dirs.push(path.join(env.HOME ?? env.USERPROFILE ?? '.', '.manualdesk', 'models'));
  const root = packageRoot();
  dirs.push(path.join(root, 'models', 'local'));
  dirs.push(path.join(root, 'models'));
  return dirs;
}

/** Picks the embedder a library was built with, when no embedder is configured explicitly. */
export function specForRecorded(id: string | null, dirs: string[] = modelSearchDirs()): EmbedderSpec {
  if (!id) return { kind: 'none' };
  if (id.startsWith('use-lite:')) return { kind: 'use-lite' };
  if (id.startsWith('static-words:')) return { kind: 'static-words' };
  if (id.startsWith('onnx:')) {
    const modelId = id.slice('onnx:'.length).replace(/@[0-9a-f]+$/, '');
    const dir = findModel(modelId, dirs);
    if (!dir) {
      throw new EngineError(
        'MODEL_MISSING',
        `This library was indexed with the model ${modelId}, which is not installed. Install it from a model pack (manualdesk models add) or re-index the library with another model.`,
      );
    }
    return { kind: 'onnx', dir, modelId };
  }
  throw new EngineError('EMBEDDER_MISMATCH', `This library was indexed with an unknown embedder (${id}). Open it with that model (--embedder), or ${NEW_LIBRARY_HINT}.`);
}
