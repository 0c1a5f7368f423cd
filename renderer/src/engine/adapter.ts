/**
 * One adapter from a transport (Electron preload or HTTP) to the UI's engine, built from the
 * contract's method table: a call method passes its argument; a streaming method's AbortSignal and
 * hook (onProgress, onToken…) become TransportHooks, and its events come back to that hook.
 */
import {
  eventSinkFor,
  METHODS,
  REMOTE_METHODS,
  type EngineEvent,
  type RemoteMethod,
  type Result,
  type TransportHooks,
} from '../../../native/contract/index.js';
import type { UiEngine } from './types.js';

export type Call = (method: RemoteMethod, arg: unknown, hooks?: TransportHooks) => Promise<Result<unknown>>;

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

export function engineOver(call: Call): UiEngine {
  const engine: Record<string, unknown> = {};
  for (const method of REMOTE_METHODS) {
    engine[method] =
      METHODS[method].kind === 'stream'
        ? (arg: unknown, hooks?: { signal?: AbortSignal }) => call(method, arg, transportHooks(hooks?.signal, eventSinkFor(method, hooks)))
        : (arg?: unknown) => call(method, arg);
  }
  // The engine belongs to the process that started it; nothing to release on this side.
  engine.close = async () => {};
  return engine as unknown as UiEngine;
}
