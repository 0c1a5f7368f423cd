/**
 * The EngineApi methods that may be called from outside the engine process (HTTP in browser mode,
 * IPC in the desktop app). `close` is not among them: only the process that owns the engine ends it.
 * No runtime imports: the Electron preload bundles this file.
 */
import type { EngineApi } from '../contract/index.js';

export const REMOTE_METHODS = [
  'info',
  'ingest',
  'search',
  'lookupCode',
  'listManuals',
  'removeFiles',
  'openSource',
  'ask',
  'listModels',
  'listPacks',
  'verifyPack',
  'importPack',
  'updatePack',
  'rollbackPack',
  'removePack',
] as const;

export type RemoteMethod = (typeof REMOTE_METHODS)[number];

// Every contract method except close must be listed above, and nothing else: a new method in the
// contract fails typechecking here until it is exposed (or deliberately left out).
type Exhaustive = Exclude<keyof EngineApi, RemoteMethod | 'close'> extends never
  ? RemoteMethod extends keyof EngineApi
    ? true
    : never
  : never;
export const REMOTE_METHODS_ARE_EXHAUSTIVE: Exhaustive = true;

export function isRemoteMethod(name: string): name is RemoteMethod {
  return (REMOTE_METHODS as readonly string[]).includes(name);
}

/** IPC channel name for a method, e.g. "manualdesk:search". */
export function channelFor(method: RemoteMethod): string {
  return `manualdesk:${method}`;
}
