/**
 * Which models/manifest.json entry a model in a model pack is, and whether its files match what the
 * manifest lists. Used when a pack is built (to record provenance and refuse a damaged local copy)
 * and when it is imported (to refuse a pack whose known model has other bytes). Pure: no file access.
 *
 * A pack model is either a folder (`models/<id>/…`, e.g. `multilingual-e5-small`) or a single file
 * straight under models/ (`models/<id>`, e.g. `SmolLM2-135M-Instruct.Q4_1.gguf`), the layout of a
 * models folder as `npm run models:fetch` lays it out and as the model lookup searches it.
 */
import { EngineError } from '../contract/errors.js';
import { modelFolderName, type ModelEntry, type ModelManifest } from '../embed/models.js';

/** File extensions that make a loose file a model of its own (a GGUF language model). */
export const SINGLE_FILE_MODEL_EXTS = ['.gguf'];

export interface CatalogFile {
  /** Path inside the model (folder models) or the file name (single-file models). */
  name: string;
  sha256: string;
  size: number;
}

/** True when a loose file at the top of a models folder is a model of its own. */
export function isSingleFileModel(name: string, manifest: ModelManifest): boolean {
  const lower = name.toLowerCase();
  return SINGLE_FILE_MODEL_EXTS.some((e) => lower.endsWith(e)) || singleFileEntry(name, manifest) !== undefined;
}

function singleFileEntry(name: string, manifest: ModelManifest): ModelEntry | undefined {
  return manifest.models.find((m) => !m.bundled && m.files.length === 1 && m.files[0]?.name === name);
}

/**
 * The manifest entry of a pack model: a single file by its file name, a folder by the entry's id
 * (`Xenova/bge-m3`) or its folder name (`multilingual-e5-small`). `recorded` (the id the pack
 * names) wins when this ManualDesk lists it.
 */
export function catalogEntry(id: string, single: boolean, manifest: ModelManifest, recorded?: string): ModelEntry | undefined {
  if (recorded) {
    const named = manifest.models.find((m) => m.id === recorded && !m.bundled);
    if (named) return named;
  }
  if (single) return singleFileEntry(id, manifest);
  const base = id.split('/').pop() ?? id;
  return manifest.models.find((m) => !m.bundled && m.files.length > 0 && m.backend !== 'gguf' && (m.id === id || modelFolderName(m) === base))
    ?? manifest.models.find((m) => !m.bundled && m.backend === 'gguf' && (m.id === id || modelFolderName(m) === base));
}

/**
 * Checks a model's files against its manifest entry: every file the entry lists with a sha256 or a
 * size must have them, and every required file must be there. `where` names the model for the
 * message; `next` is what the technician does about a mismatch.
 */
export function checkAgainstCatalog(entry: ModelEntry, files: CatalogFile[], where: string, next: string, code: 'INVALID_INPUT' | 'PACK_CHECKSUM'): void {
  const byName = new Map(files.map((f) => [f.name, f]));
  const single = files.length === 1 && entry.files.length === 1;
  // Said first: a model under terms never travels without them, whatever else is wrong with the copy.
  if (entry.terms && !byName.has(entry.terms.file)) throw new EngineError(code, termsMissing(entry, entry.terms, where, next));
  for (const want of entry.files) {
    const have = single ? files[0] : byName.get(want.name);
    if (!have) {
      if (want.optional) continue;
      throw new EngineError(code, `${where} is incomplete: ${want.name}, which ${entry.id} needs, is missing. ${next}`);
    }
    if ((want.sha256 && have.sha256 !== want.sha256) || (want.size !== null && have.size !== want.size)) {
      throw new EngineError(
        code,
        `${where}: ${have.name} is not the file ManualDesk knows for ${entry.id} (sha256 ${have.sha256}, ${have.size} bytes; expected ${want.sha256 ?? 'any'}, ${want.size ?? 'any'} bytes): it is damaged or a different build. ${next}`,
      );
    }
  }
  const weights = entry.files.filter((f) => f.dtype && f.name.endsWith('.onnx'));
  if (!single && weights.length > 0 && !weights.some((f) => byName.has(f.name))) {
    throw new EngineError(code, `${where} is incomplete: it has none of the weights files of ${entry.id} (${weights.map((f) => f.name).join(' or ')}). ${next}`);
  }
}

/** A model under terms without its terms file: it never travels so (a pack refuses to carry or install it). */
function termsMissing(entry: ModelEntry, terms: NonNullable<ModelEntry['terms']>, where: string, next: string): string {
  return (
    `${where} has no ${terms.file}: ${entry.id} is under the ${terms.name} (${terms.url}), which must travel with its weights, so it is never packed or installed without that file. ` +
    `Put ${terms.file} back beside the weights (npm run models:fetch lays it out with the model), or leave the model out. ${next}`
  );
}

/**
 * The manifest entry under terms whose weights a loose file at the top of a models folder is (the
 * model's folder holds its terms file beside the weights): such a file is refused alone.
 */
export function looseWeightsUnderTerms(name: string, manifest: ModelManifest): ModelEntry | undefined {
  return manifest.models.find((m) => m.terms && m.files.length > 1 && m.files.some((f) => f.name === name));
}

/** Provenance recorded in the pack for a known model. */
export function catalogRecord(entry: ModelEntry): { id: string; license: string; source: string; upstream?: string; upstreamLicense?: string } {
  return {
    id: entry.id,
    license: entry.license,
    source: entry.source,
    ...(entry.provenance ? { upstream: entry.provenance.upstream, upstreamLicense: entry.provenance.upstreamLicense } : {}),
  };
}
