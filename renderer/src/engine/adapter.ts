/**
 * One adapter from a transport (Electron preload or HTTP) to the UI's engine: AbortSignal and the
 * contract's hooks become TransportHooks, events come back to onProgress / onToken. A method the
 * engine lacks answers with a clear message instead of a transport error.
 */
import type { EngineEvent, Result, TransportHooks } from '../../../native/contract/index.js';
import type { UiEngine, UiMethod } from './types.js';

export type Call = (method: UiMethod, arg: unknown, hooks?: TransportHooks) => Promise<Result<unknown>>;

const FEATURE: Partial<Record<UiMethod, string>> = {
  ask: 'Answers are',
  listModels: 'The model list is',
  listPacks: 'Packs are',
  verifyPack: 'Pack verification is',
  importPack: 'Pack import is',
  updatePack: 'Pack update is',
  rollbackPack: 'Pack rollback is',
  removePack: 'Pack removal is',
  openSource: 'The source viewer is',
};

export function notAvailableMessage(method: UiMethod): string {
  return `${FEATURE[method] ?? `"${method}" is`} not available in this build of ManualDesk (its engine has no "${method}" yet). Search and fault codes work; install a newer ManualDesk to get it.`;
}

function transportHooks(signal: AbortSignal | undefined, onEvent?: (e: EngineEvent) => void): TransportHooks | undefined {
  if (!signal && !onEvent) return undefined;
  return {
    onEvent,
    onCancelable: signal
      ? (cancel) => {
          if (signal.aborted) cancel();
          else signal.addEventListener('abort', cancel, { once: true });
        }
      : undefined,
  };
}

export function engineOver(rawCall: Call, has: (m: UiMethod) => boolean): UiEngine {
  const call = <T>(method: UiMethod, arg?: unknown, hooks?: TransportHooks): Promise<Result<T>> => {
    if (!has(method)) return Promise.resolve({ ok: false, error: { code: 'NOT_FOUND', message: notAvailableMessage(method) } });
    return rawCall(method, arg, hooks) as Promise<Result<T>>;
  };
  return {
    info: () => call('info'),
    listManuals: () => call('listManuals'),
    search: (req) => call('search', req),
    lookupCode: (req) => call('lookupCode', req),
    ingest: (req, hooks) =>
      call('ingest', req, transportHooks(hooks?.signal, hooks?.onProgress && ((e) => e.type === 'ingest-progress' && hooks.onProgress?.(e.progress)))),
    removeFiles: (files) => call('removeFiles', files),
    openSource: (req) => call('openSource', req),
    ask: (req, hooks) => call('ask', req, transportHooks(hooks?.signal, hooks?.onToken && ((e) => e.type === 'token' && hooks.onToken?.(e.text)))),
    listModels: () => call('listModels'),
    listPacks: () => call('listPacks'),
    verifyPack: (req, hooks) => call('verifyPack', req, packHooks(hooks)),
    importPack: (req, hooks) => call('importPack', req, packHooks(hooks)),
    updatePack: (req, hooks) => call('updatePack', req, packHooks(hooks)),
    rollbackPack: (req) => call('rollbackPack', req),
    removePack: (req) => call('removePack', req),
    // The engine belongs to the process that started it; nothing to release on this side.
    close: async () => {},
  };
}

function packHooks(hooks: Parameters<UiEngine['importPack']>[1]): TransportHooks | undefined {
  return transportHooks(hooks?.signal, hooks?.onProgress && ((e) => e.type === 'pack-progress' && hooks.onProgress?.(e.progress)));
}
