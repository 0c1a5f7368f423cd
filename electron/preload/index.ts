/**
 * Exposes exactly the contract's methods as window.manualdesk, each bound to its own IPC channel.
 * Nothing generic: no ipcRenderer, no send/on, no channel names chosen by the page.
 *
 * Long calls stream: given TransportHooks, a call gets an operation id; its events come back on
 * EVENT_CHANNEL and the cancel function handed to onCancelable sends CANCEL_CHANNEL. (An AbortSignal
 * cannot cross the context bridge; functions can.)
 */
import { ipcRenderer, contextBridge } from 'electron';
import type {
  AskRequest,
  CodeLookupRequest,
  EngineEvent,
  IngestRequest,
  PackImportRequest,
  RemoteApi,
  Result,
  SearchRequest,
  SourceRequest,
  TransportHooks,
} from '../../native/contract/index.js';
import { channelFor, type RemoteMethod } from '../../native/server/methods.js';
import { CANCEL_CHANNEL, EVENT_CHANNEL } from '../channels.js';

const listeners = new Map<string, (event: EngineEvent) => void>();
let nextOp = 0;

ipcRenderer.on(EVENT_CHANNEL, (_event, op: unknown, engineEvent: unknown) => {
  if (typeof op === 'string') listeners.get(op)?.(engineEvent as EngineEvent);
});

function invoke<T>(method: RemoteMethod, arg?: unknown, hooks?: TransportHooks): Promise<Result<T>> {
  const channel = channelFor(method);
  if (!hooks?.onEvent && !hooks?.onCancelable) {
    return arg === undefined ? ipcRenderer.invoke(channel) : ipcRenderer.invoke(channel, arg);
  }
  const op = `op${++nextOp}`;
  const onEvent = hooks.onEvent;
  if (onEvent) listeners.set(op, (e) => onEvent(e));
  hooks.onCancelable?.(() => void ipcRenderer.invoke(CANCEL_CHANNEL, op));
  return (ipcRenderer.invoke(channel, arg, { op }) as Promise<Result<T>>).finally(() => listeners.delete(op));
}

const manualdesk = {
  info: () => invoke('info'),
  listManuals: () => invoke('listManuals'),
  search: (req: SearchRequest) => invoke('search', req),
  lookupCode: (req: CodeLookupRequest) => invoke('lookupCode', req),
  ingest: (req: IngestRequest, hooks?: TransportHooks) => invoke('ingest', req, hooks),
  removeFiles: (files: string[]) => invoke('removeFiles', files),
  openSource: (req: SourceRequest) => invoke('openSource', req),
  // Generated text streams as 'token' events; the cancel function stops generation.
  ask: (req: AskRequest, hooks?: TransportHooks) => invoke('ask', req, hooks),
  listModels: () => invoke('listModels'),
  // Pack progress streams as 'pack-progress' events; the cancel function stops the verify/import.
  listPacks: () => invoke('listPacks'),
  verifyPack: (req: { file: string }, hooks?: TransportHooks) => invoke('verifyPack', req, hooks),
  importPack: (req: PackImportRequest, hooks?: TransportHooks) => invoke('importPack', req, hooks),
  updatePack: (req: PackImportRequest, hooks?: TransportHooks) => invoke('updatePack', req, hooks),
  rollbackPack: (req: { id: string }) => invoke('rollbackPack', req),
  removePack: (req: { id: string }) => invoke('removePack', req),
} satisfies RemoteApi;

contextBridge.exposeInMainWorld('manualdesk', manualdesk);
