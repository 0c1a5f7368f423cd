/**
 * Exposes exactly the contract's methods as window.manualdesk, one function per entry of the method
 * table (native/contract/methods.ts), each bound to its own IPC channel. Nothing generic: no
 * ipcRenderer, no send/on, no channel names chosen by the page.
 *
 * Streaming methods (the table's 'stream' entries) also take TransportHooks: the call gets an
 * operation id; its events come back on EVENT_CHANNEL and the cancel function handed to onCancelable
 * sends CANCEL_CHANNEL. (An AbortSignal cannot cross the context bridge; functions can.) Other methods
 * take their one argument only.
 */
import { ipcRenderer, contextBridge } from 'electron';
import type { EngineEvent, Result, TransportHooks } from '../../native/contract/index.js';
import { METHODS, REMOTE_METHODS, type RemoteApi, type RemoteMethod } from '../../native/contract/methods.js';
import { CANCEL_CHANNEL, channelFor, EVENT_CHANNEL } from '../channels.js';

const listeners = new Map<string, (event: EngineEvent) => void>();
let nextOp = 0;

ipcRenderer.on(EVENT_CHANNEL, (_event, op: unknown, engineEvent: unknown) => {
  if (typeof op === 'string') listeners.get(op)?.(engineEvent as EngineEvent);
});

function invoke(method: RemoteMethod, arg?: unknown, hooks?: TransportHooks): Promise<Result<unknown>> {
  const channel = channelFor(method);
  if (!hooks?.onEvent && !hooks?.onCancelable) {
    return arg === undefined ? ipcRenderer.invoke(channel) : ipcRenderer.invoke(channel, arg);
  }
  const op = `op${++nextOp}`;
  const onEvent = hooks.onEvent;
  if (onEvent) listeners.set(op, (e) => onEvent(e));
  hooks.onCancelable?.(() => void ipcRenderer.invoke(CANCEL_CHANNEL, op));
  return (ipcRenderer.invoke(channel, arg, { op }) as Promise<Result<unknown>>).finally(() => listeners.delete(op));
}

const manualdesk = Object.fromEntries(
  REMOTE_METHODS.map((method) => [
    method,
    METHODS[method].kind === 'stream'
      ? (arg: unknown, hooks?: TransportHooks) => invoke(method, arg, hooks)
      : (arg?: unknown) => invoke(method, arg),
  ]),
) as RemoteApi;

contextBridge.exposeInMainWorld('manualdesk', manualdesk);
