/**
 * Long calls report progress through hooks (EngineHooks, AskHooks, PackHooks). Across a process or
 * network boundary those hooks become EngineEvent data and an AbortSignal; this file turns one into
 * the other, so the HTTP server, the Electron main process and the utility-process host all stream
 * the same way and validate with the same dispatcher (native/server/dispatch.ts).
 */
import type { EngineApi, EngineEvent, Result } from '../contract/index.js';
import { callEngine } from '../server/dispatch.js';
import { REMOTE_METHODS, type RemoteMethod } from '../server/methods.js';

/** What a transport hands the engine side for one call. */
export interface CallHooks {
  signal?: AbortSignal;
  onEvent?: (event: EngineEvent) => void;
}

/** Validate, call, answer Result data; never throws. The one shape every transport calls. */
export type EngineCaller = (method: RemoteMethod, arg: unknown, hooks?: CallHooks) => Promise<Result<unknown>>;

type AnyFn = (...args: unknown[]) => Promise<Result<unknown>>;

/** The hooks object each streaming method takes, built from the transport's events and signal. */
export function hooksFor(method: string, hooks: CallHooks): Record<string, unknown> | null {
  const { signal, onEvent } = hooks;
  const emit = onEvent ?? (() => {});
  switch (method) {
    case 'ingest':
      return { signal, onProgress: (progress: unknown) => emit({ type: 'ingest-progress', progress } as EngineEvent) };
    case 'ask':
      return { signal, onToken: (text: string) => emit({ type: 'token', text }) };
    case 'verifyPack':
    case 'importPack':
    case 'updatePack':
      return { signal, onProgress: (progress: unknown) => emit({ type: 'pack-progress', progress } as EngineEvent) };
    default:
      return null;
  }
}

/**
 * The engine with `hooks` attached to every streaming method (the dispatcher calls methods with their
 * request only). Methods the engine does not have stay absent.
 */
export function bindHooks(engine: EngineApi, hooks: CallHooks): EngineApi {
  const bound: Record<string, unknown> = {};
  const source = engine as unknown as Record<string, AnyFn | undefined>;
  for (const method of REMOTE_METHODS) {
    const fn = source[method];
    if (typeof fn !== 'function') continue;
    const extra = hooksFor(method, hooks);
    bound[method] = extra ? (arg: unknown) => fn.call(engine, arg, extra) : (arg?: unknown) => fn.call(engine, arg);
  }
  bound.close = () => engine.close();
  return bound as unknown as EngineApi;
}

/** Calls an engine in this process. */
export function localCaller(engine: EngineApi): EngineCaller {
  return (method, arg, hooks) => {
    if (hooks?.signal?.aborted) return Promise.resolve({ ok: false, error: { code: 'CANCELLED', message: 'The operation was cancelled.' } });
    return callEngine(hooks ? bindHooks(engine, hooks) : engine, method, arg);
  };
}

/** The remote methods this engine really has (methods still to come from later stages are absent). */
export function availableMethods(engine: EngineApi): RemoteMethod[] {
  const source = engine as unknown as Record<string, unknown>;
  return REMOTE_METHODS.filter((m) => typeof source[m] === 'function');
}
