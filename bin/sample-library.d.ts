import type { EngineApi } from '../native/contract/api.js';

/** Builds or refreshes the sample library in `dir` from `samples`, and gives it an installed search model (see sample-library.js). */
export function ensureSampleLibrary(
  createEngine: (opts: { libraryDir: string; create: boolean }) => Promise<EngineApi & { close(): Promise<void> }>,
  dir: string,
  samples: string,
): Promise<void>;
