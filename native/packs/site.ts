/**
 * Pack operations on a site (the local library and its installed packs): import, update, roll back,
 * remove, verify, list. Pack libraries are closed while their files change (Windows refuses to replace
 * open files) and reopened after, under the sources' reader guard so no search uses them meanwhile.
 */
import path from 'node:path';
import { EngineError } from '../contract/errors.js';
import type { PackHooks } from '../contract/api.js';
import type { PackImportRequest, PackInfo, PackVerifyReport } from '../contract/packs.js';
import type { Embedder } from '../embed/types.js';
import { createEmbedder, findModel, getModelEntry, type EmbedderSpec } from '../embed/models.js';
import type { PackManifest } from './format.js';
import { peekManifest } from './reader.js';
import { Library } from '../library/library.js';
import { installedManifest, installPack, readRegistry, removePack, rollbackPack, toPackInfo, verifyPack, type SiteState } from './install.js';
import { trustedFingerprints } from './keys.js';
import type { Sources } from './sources.js';

export interface PackSite {
  libraryDir: string;
  /** Where packs of models are installed (the user's models folder). */
  modelsDir: string;
  sources: Sources;
  /** The embedder the local library searches with (packs of the same model share it). */
  embedder(): Embedder | null;
  /**
   * Opens the local library for writing (created when missing). modelOptional: also when its
   * recorded model is not installed (no embedder), to install the model pack that brings it.
   */
  openLocal(create: boolean, opts?: { modelOptional?: boolean }): Promise<Library>;
  /** Closes the local library, so it can be reopened (with another embedder). */
  closeLocal(): Promise<void>;
  /** Why a recorded embedder cannot be used here (model not installed, unknown), or null. */
  embedderProblem(id: string): EngineError | null;
}

function siteState(site: PackSite, local: Library): SiteState {
  return {
    libraryDir: site.libraryDir,
    embedder: local.info.embedder,
    localFiles: local.store.getFiles().length,
    embedderProblem: (id) => site.embedderProblem(id),
    modelsDir: site.modelsDir,
  };
}

/** Imports a new pack or updates an installed one; the first import creates the (empty) local library. */
export async function installPackFile(site: PackSite, req: PackImportRequest, mode: 'import' | 'update', hooks: PackHooks): Promise<PackInfo> {
  // A model pack may be what a library indexed with a missing model needs: it installs without the model.
  const models = (await peekManifest(req.file)).kind === 'models';
  const local = await site.openLocal(true, { modelOptional: models });
  if (models && local.info.embedder && !local.embedder) {
    // Opened without its model: closed after the install, so the next call opens it with the model just installed.
    try {
      return await installWith(site, req, mode, hooks, local);
    } finally {
      await site.closeLocal();
    }
  }
  return installWith(site, req, mode, hooks, local);
}

async function installWith(site: PackSite, req: PackImportRequest, mode: 'import' | 'update', hooks: PackHooks, opened: Library): Promise<PackInfo> {
  let local = opened;
  return site.sources.withPacksClosed(site.embedder, async () => {
    const outcome = await installPack(
      siteState(site, local),
      {
        file: req.file,
        allowUnsigned: req.allowUnsigned,
        mode,
        checkStaged: async (dir, m) => {
          if (m.kind !== 'manuals') return;
          const emb = m.library?.embedder ?? null;
          await Library.probe(path.join(dir, 'library'), emb ? { id: emb.id, dims: emb.dims } : null);
          if (emb && !local.info.embedder) {
            // The empty keyword-only library adopts the pack's model, so queries embed alike.
            await site.closeLocal();
            await Library.adoptEmbedder(site.libraryDir, { id: emb.id, dims: emb.dims });
            local = await site.openLocal(true);
          }
        },
      },
      hooks,
    );
    if (outcome.info.kind === 'models' && !local.info.embedder && local.store.getFiles().length === 0) {
      const spec = packEmbedderSpec(installedManifest(site.libraryDir, outcome.info.id, outcome.info.active), site.modelsDir);
      if (spec) {
        // An empty keyword-only library takes the pack's embedding model, as a new library takes the
        // installed one: manuals ingested next get semantic search without --embedder.
        const emb = await createEmbedder(spec);
        const identity = emb ? { id: emb.id, dims: emb.dims } : null;
        await emb?.dispose();
        if (identity) {
          await site.closeLocal();
          await Library.adoptEmbedder(site.libraryDir, identity);
          local = await site.openLocal(true);
        }
      }
    }
    return outcome.info;
  });
}

/** The first embedding model of a model pack, as installed in the models folder (null: none it lists). */
function packEmbedderSpec(m: PackManifest, modelsDir: string): EmbedderSpec | null {
  for (const mod of m.models) {
    if (mod.role !== 'embed' || !mod.catalog) continue;
    const entry = getModelEntry(mod.catalog.id);
    if (!entry || entry.backend !== 'onnx') continue;
    const dir = findModel(entry.id, [modelsDir]);
    if (dir) return { kind: 'onnx', dir, modelId: entry.id };
  }
  return null;
}

export async function rollbackInstalled(site: PackSite, id: string): Promise<PackInfo> {
  await site.openLocal(false);
  return site.sources.withPacksClosed(site.embedder, () => rollbackPack(site.libraryDir, id));
}

export async function removeInstalled(site: PackSite, id: string): Promise<{ removed: string }> {
  await site.openLocal(false);
  return site.sources.withPacksClosed(site.embedder, async () => {
    await removePack(site.libraryDir, id, site.modelsDir);
    return { removed: id };
  });
}

export function listInstalled(site: Pick<PackSite, 'libraryDir' | 'sources'>): PackInfo[] {
  const trusted = trustedFingerprints(site.libraryDir);
  return readRegistry(site.libraryDir).map((e) => {
    const info = toPackInfo(site.libraryDir, e, trusted);
    const problem = site.sources.problems.get(e.id);
    return problem ? { ...info, problem } : info;
  });
}

/** Checks a pack file against this site (or alone, when there is no library yet). */
/**
 * Verifies a pack against the site. With no library there yet, against the empty library its first
 * import would create: trust is judged by the folder's trusted keys (none, unless `keys trust` put one
 * there), exactly as that import would judge it; never left unjudged.
 */
export function verifyPackFile(site: PackSite, local: Library | null, file: string, hooks: PackHooks): Promise<PackVerifyReport> {
  return verifyPack(file, local ? siteState(site, local) : emptySiteState(site), hooks);
}

/** The site of a library not created yet: no model, no files. */
function emptySiteState(site: PackSite): SiteState {
  return { libraryDir: site.libraryDir, embedder: null, localFiles: 0, embedderProblem: (id) => site.embedderProblem(id), modelsDir: site.modelsDir };
}
