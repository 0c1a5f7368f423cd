/**
 * The one method table: every EngineApi method a transport exposes (close belongs to the process that
 * owns the engine), whether it answers once ('call') or reports events while it runs ('stream'), and,
 * for a stream, which event it sends and which of its hooks receives that event.
 *
 * `satisfies MethodTable` checks it against EngineApi: a method added to the contract fails typechecking
 * here until it is listed, a listed method must exist, and a method that takes hooks cannot be listed as
 * a plain call (its events would be lost) nor with an event whose payload its hook does not take.
 *
 * Everything that crosses a boundary is built from it: the dispatcher shared by the HTTP server, the
 * engine host and Electron's IPC handlers (native/server/dispatch.ts), the IPC channels, the preload's
 * window.manualdesk and the renderer's adapter. Plain data and two small functions, no runtime imports:
 * the preload and the renderer bundle this file.
 */
import type { EngineApi } from './api.js';
import type { EngineEvent, TransportHooks } from './events.js';

export type EventType = EngineEvent['type'];

/** The field of each event that carries what the method's hook receives. */
export const EVENT_PAYLOAD = {
  'ingest-progress': 'progress',
  'pack-progress': 'progress',
  token: 'text',
} as const satisfies { [T in EventType]: Exclude<keyof Extract<EngineEvent, { type: T }>, 'type'> };

/** What an event of type T carries to its hook (IngestProgress for 'ingest-progress'…). */
export type EventPayload<T extends EventType> = Extract<EngineEvent, { type: T }> extends infer E
  ? E[(typeof EVENT_PAYLOAD)[T] & keyof E]
  : never;

/** A method answered with one Result. */
export interface CallMethod {
  readonly kind: 'call';
}

/** A method that takes hooks: each `event` it sends is handed to `hooks[hook]` (and an AbortSignal to hooks.signal). */
export interface StreamMethod<E extends EventType = EventType, H extends string = string> {
  readonly kind: 'stream';
  readonly event: E;
  readonly hook: H;
}

export type MethodSpec = CallMethod | StreamMethod;

/** The methods a transport exposes: all of EngineApi but close. */
export type RemoteMethod = Exclude<keyof EngineApi, 'close'>;

type ParamsOf<M extends RemoteMethod> = Parameters<EngineApi[M]>;

/** A method's hooks object (its optional second parameter); never for a method without hooks. */
export type HooksOf<M extends RemoteMethod> = 2 extends ParamsOf<M>['length'] ? NonNullable<ParamsOf<M>[1]> : never;

/** The one argument a transport carries for a method (undefined for a method without one). */
export type ArgOf<M extends RemoteMethod> = ParamsOf<M>[0];

/** The answer a method resolves to. */
export type ResultOf<M extends RemoteMethod> = Awaited<ReturnType<EngineApi[M]>>;

/** Every stream spec a hooks object H allows: an event whose payload one of its hooks takes. */
type StreamSpecsFor<H> = {
  [E in EventType]: {
    [K in Exclude<keyof H, 'signal'> & string]-?: NonNullable<H[K]> extends (payload: infer P) => void
      ? [EventPayload<E>] extends [P]
        ? StreamMethod<E, K>
        : never
      : never;
  }[Exclude<keyof H, 'signal'> & string];
}[EventType];

/** What the table must say of each method: call for a method without hooks, a fitting stream otherwise. */
export type MethodTable = {
  readonly [M in RemoteMethod]: [HooksOf<M>] extends [never] ? CallMethod : StreamSpecsFor<HooksOf<M>>;
};

const call: CallMethod = { kind: 'call' };

export const METHODS = {
  info: call,
  ingest: { kind: 'stream', event: 'ingest-progress', hook: 'onProgress' },
  search: call,
  lookupCode: call,
  listManuals: call,
  removeFiles: call,
  openLibrary: call,
  openSource: call,
  // Generated text streams as 'token' events (generative mode); the signal stops generation.
  ask: { kind: 'stream', event: 'token', hook: 'onToken' },
  listModels: call,
  listPacks: call,
  verifyPack: { kind: 'stream', event: 'pack-progress', hook: 'onProgress' },
  importPack: { kind: 'stream', event: 'pack-progress', hook: 'onProgress' },
  updatePack: { kind: 'stream', event: 'pack-progress', hook: 'onProgress' },
  rollbackPack: call,
  removePack: call,
} as const satisfies MethodTable;

/** The table's method names, in its order. */
export const REMOTE_METHODS = Object.keys(METHODS) as RemoteMethod[];

export function isRemoteMethod(name: unknown): name is RemoteMethod {
  return typeof name === 'string' && Object.hasOwn(METHODS, name);
}

/** The streaming methods: those whose calls report events. */
export type StreamingMethod = { [M in RemoteMethod]: (typeof METHODS)[M] extends StreamMethod ? M : never }[RemoteMethod];

/** What a transport hands the engine side for one call: the cancel signal and where events go. */
export interface CallHooks {
  signal?: AbortSignal;
  onEvent?: (event: EngineEvent) => void;
}

type AnyHooks = Record<string, unknown> & { signal?: AbortSignal };

/**
 * Engine side: the hooks object a streaming method takes, built from a transport's signal and event
 * sink (each hook call becomes one EngineEvent); undefined for a call method.
 */
export function engineHooksFor(method: RemoteMethod, hooks: CallHooks): AnyHooks | undefined {
  const spec: MethodSpec = METHODS[method];
  if (spec.kind !== 'stream') return undefined;
  const { event, hook } = spec;
  const field = EVENT_PAYLOAD[event];
  const emit = hooks.onEvent;
  return {
    signal: hooks.signal,
    [hook]: (payload: unknown) => emit?.({ type: event, [field]: payload } as EngineEvent),
  };
}

/**
 * Caller side, the reverse: a function that hands each event of the method's type to the matching
 * hook of the contract's hooks object; undefined when the method does not stream or no hook is set.
 */
export function eventSinkFor(method: RemoteMethod, hooks: object | undefined): ((event: EngineEvent) => void) | undefined {
  const spec: MethodSpec = METHODS[method];
  if (spec.kind !== 'stream' || !hooks) return undefined;
  const { event, hook } = spec;
  const target = (hooks as Record<string, unknown>)[hook];
  if (typeof target !== 'function') return undefined;
  const field = EVENT_PAYLOAD[event];
  return (e) => {
    if (e.type === event) (target as (payload: unknown) => void)((e as unknown as Record<string, unknown>)[field]);
  };
}

type ArgsOf<M extends RemoteMethod> = ParamsOf<M> extends [] ? [] : [arg: ArgOf<M>];

/**
 * EngineApi as a transport exposes it (the Electron preload's window.manualdesk): each method takes its
 * one argument; a streaming method also takes TransportHooks (events back, a cancel function out).
 */
export type RemoteApi = {
  [M in RemoteMethod]: (
    ...args: (typeof METHODS)[M] extends StreamMethod ? [...ArgsOf<M>, hooks?: TransportHooks] : ArgsOf<M>
  ) => Promise<ResultOf<M>>;
};

