/** Engine configuration: where the library lives and which embedder it uses. */
import os from 'node:os';
import path from 'node:path';

import type { EmbedderSpec } from './embed/models.js';
import type { RetrievalSettings } from './search/settings.js';

export interface EngineConfig {
  /** Library folder (created on first ingest). */
  libraryDir: string;
  /** Which embedder to use; default: the library's recorded one, else none (keyword + fault codes). */
  embedder?: EmbedderSpec;
  /**
   * The embedder a library gets when it is created here (no library.json yet) and `embedder` is not
   * set: a spec, or 'installed' (the first installed embedding model, model-discovery.ts). Default:
   * none, so a bare createEngine stays keyword + codes; the CLI and the app pass 'installed'.
   */
  newLibraryEmbedder?: EmbedderSpec | 'installed';
  /** Create the library folder if missing (ingest does; search does not). */
  create?: boolean;
  /** Open without the write lock (search, lookups): several readers can share a library. */
  readOnly?: boolean;
  /** Quiet ms after the last call before one full GC gives back LanceDB's native memory (native/idle-gc.ts); 0: off. Default 2000. */
  idleGcMs?: number;
  /** Retrieval settings; default: native/search/settings.ts's, with $MANUALDESK_KEYWORD's overrides. */
  retrieval?: RetrievalSettings;
}

/** Default library folder: $MANUALDESK_LIBRARY, else ~/.manualdesk/library. */
export function defaultLibraryDir(): string {
  return process.env.MANUALDESK_LIBRARY ?? path.join(os.homedir(), '.manualdesk', 'library');
}

/**
 * CPU threads the engine uses for indexing (LanceDB) and answers (the language model):
 * $MANUALDESK_THREADS when it is a whole number from 1 to 256 (a shared PC can leave cores to other
 * programs), else one per core. Read when the engine starts.
 */
export function engineThreads(env: NodeJS.ProcessEnv = process.env): number {
  const n = Number(env.MANUALDESK_THREADS);
  return Number.isInteger(n) && n >= 1 && n <= 256 ? n : os.availableParallelism();
}

/** LanceDB deadlocks building FTS indexes on 2-core hosts unless this is set before its first call. */
export function configureNativeThreads(): void {
  if (!process.env.LANCE_CPU_THREADS) {
    process.env.LANCE_CPU_THREADS = String(Math.max(2, engineThreads()));
  }
}
