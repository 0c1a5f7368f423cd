/**
 * The one shape every transport calls the engine through (the HTTP server, the Electron main process
 * and the engine host): validate, call, answer Result data. Across a process or network boundary a
 * streaming method's hooks become EngineEvent data and an AbortSignal; the contract's method table
 * says which hook each method has (native/contract/methods.ts) and native/server/dispatch.ts binds it.
 */
import type { CallHooks, EngineApi, RemoteMethod, Result } from '../contract/index.js';
import { callEngine } from '../server/dispatch.js';

export type { CallHooks };

/** Validate, call, answer Result data; never throws. */
export type EngineCaller = (method: RemoteMethod, arg: unknown, hooks?: CallHooks) => Promise<Result<unknown>>;

/** Calls an engine in this process. */
export function localCaller(engine: EngineApi): EngineCaller {
  return (method, arg, hooks) => {
    if (hooks?.signal?.aborted) return Promise.resolve({ ok: false, error: { code: 'CANCELLED', message: 'The operation was cancelled.' } });
    return callEngine(engine, method, arg, hooks);
  };
}
