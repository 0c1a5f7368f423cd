/**
 * What a search reads: the local library and the active installed manual packs, each a Library
 * (packs read-only). One close, and one reader guard: pack operations replace pack libraries only
 * when no search is using them, and searches wait while they do.
 */
import path from 'node:path';
import { EngineError } from '../contract/errors.js';
import type { Embedder } from '../embed/types.js';
import { ReaderGuard } from '../base/lifetime.js';
import { Library } from '../library/library.js';
import type { RetrievalSource } from '../search/retriever.js';
import { LOCAL_ID } from './format.js';
import { installedManifest, readRegistry, versionDir } from './install.js';

export interface PackSource {
  /** Pack id. */
  pack: string;
  version: string;
  unverified: boolean;
  library: Library;
}

export class Sources {
  private packList: PackSource[] = [];
  /** Installed packs that could not be opened, with the reason (shown by listPacks). */
  readonly problems = new Map<string, string>();
  private readonly guard = new ReaderGuard();

  constructor(private readonly libraryDir: string) {}

  get packs(): readonly PackSource[] {
    return this.packList;
  }

  /** Runs a search or lookup: pack libraries stay open until it is done. */
  read<T>(fn: () => Promise<T>): Promise<T> {
    return this.guard.read(fn);
  }

  /** Runs `fn` once no search is using these sources, holding new ones back meanwhile (the library switch). */
  exclusive<T>(fn: () => Promise<T>): Promise<T> {
    return this.guard.write(fn);
  }

  /** Runs a pack operation with the pack libraries closed (no search uses them meanwhile), then reopens them. */
  withPacksClosed<T>(embedder: () => Embedder | null, fn: () => Promise<T>): Promise<T> {
    return this.guard.write(async () => {
      await this.closePacks();
      try {
        return await fn();
      } finally {
        await this.openPacks(embedder());
      }
    });
  }

  /**
   * Opens every active manual pack read-only. A pack that cannot be opened (damaged on disk) is
   * skipped and its reason kept, so the site's other manuals keep answering.
   */
  async openPacks(embedder: Embedder | null): Promise<void> {
    await this.closePacks();
    this.problems.clear();
    for (const entry of readRegistry(this.libraryDir)) {
      if (entry.kind !== 'manuals') continue;
      try {
        const root = versionDir(this.libraryDir, entry.id, entry.active);
        const m = installedManifest(this.libraryDir, entry.id, entry.active);
        const library = await Library.openPack(path.join(root, 'library'), embedder, m.library?.embedder ?? null);
        this.packList.push({
          pack: entry.id,
          version: entry.active,
          unverified: entry.versions.find((v) => v.version === entry.active)?.unverified ?? true,
          library,
        });
      } catch (err) {
        this.problems.set(
          entry.id,
          `Pack ${entry.id} ${entry.active} could not be opened (${err instanceof Error ? err.message : String(err)}); it is left out of search. Import the pack again, or roll it back.`,
        );
      }
    }
  }

  async closePacks(): Promise<void> {
    for (const s of this.packList.splice(0)) await s.library.close();
  }

  /** The local library and the active packs the filter selects (`local` names the site's own library). */
  select(local: Library, packs: string[] | undefined): RetrievalSource[] {
    const unknown = (packs ?? []).filter((id) => id !== LOCAL_ID && !this.packList.some((p) => p.pack === id));
    if (unknown.length > 0) {
      throw new EngineError(
        'INVALID_INPUT',
        `No installed pack named ${unknown.join(', ')}. "manualdesk pack list" shows the installed packs ("${LOCAL_ID}" is this library's own manuals).`,
      );
    }
    return [
      ...(sourceSelected(packs, null) ? [local.source(null)] : []),
      ...this.packList.filter((p) => sourceSelected(packs, p.pack)).map((p) => p.library.source(p.pack)),
    ];
  }
}

/** Whether the filters let a source answer (`local` names the site's own library). */
export function sourceSelected(packs: string[] | undefined, id: string | null): boolean {
  if (!packs || packs.length === 0) return true;
  return packs.includes(id ?? LOCAL_ID);
}
