/** Stands in for the engine when it could not start, so the window can still say why. */
import type { EngineApi, EngineErrorData, Result } from '../../native/contract/index.js';

export function unavailableEngine(error: EngineErrorData): EngineApi {
  const failed = async <T>(): Promise<Result<T>> => ({ ok: false, error });
  return {
    info: failed,
    ingest: failed,
    search: failed,
    lookupCode: failed,
    listManuals: failed,
    removeFiles: failed,
    openSource: failed,
    ask: failed,
    listModels: failed,
    listPacks: failed,
    verifyPack: failed,
    importPack: failed,
    updatePack: failed,
    rollbackPack: failed,
    removePack: failed,
    close: async () => {},
  };
}
