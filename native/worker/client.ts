/**
 * The main-process side of the worker protocol: an EngineCaller whose calls run in the host process.
 * Cancelling sends 'cancel' (the host aborts the engine's work); if the host dies, every pending call
 * answers with an error that says what to do.
 */
import type { EngineErrorData, Result } from '../contract/index.js';
import type { FromHost, Port, ToHost } from './protocol.js';
import type { CallHooks, EngineCaller } from './streaming.js';

export interface WorkerClient {
  call: EngineCaller;
  /** Resolves once the engine is open (with the start-up error, if any). */
  ready: Promise<{ error?: EngineErrorData }>;
  /** Asks the host to close the library; resolves when it has (or after timeoutMs). */
  close(timeoutMs?: number): Promise<void>;
  /** The host process ended (crash or exit): pending and later calls fail with `reason`. */
  hostExited(reason: string): void;
}

interface Pending {
  resolve: (r: Result<unknown>) => void;
  hooks?: CallHooks;
}

export function connectWorker(port: Port<unknown, ToHost>): WorkerClient {
  const pending = new Map<number, Pending>();
  let nextId = 1;
  let dead: EngineErrorData | null = null;
  let resolveReady!: (v: { error?: EngineErrorData }) => void;
  const ready = new Promise<{ error?: EngineErrorData }>((r) => (resolveReady = r));
  let onClosed: (() => void) | null = null;

  port.onMessage((raw) => {
    const msg = raw as FromHost;
    if (msg.type === 'ready') resolveReady(msg.error ? { error: msg.error } : {});
    else if (msg.type === 'event') pending.get(msg.id)?.hooks?.onEvent?.(msg.event);
    else if (msg.type === 'result') {
      const p = pending.get(msg.id);
      pending.delete(msg.id);
      p?.resolve(msg.result);
    } else if (msg.type === 'closed') onClosed?.();
  });

  const call: EngineCaller = (method, arg, hooks) => {
    if (dead) return Promise.resolve({ ok: false, error: dead });
    if (hooks?.signal?.aborted) return Promise.resolve({ ok: false, error: { code: 'CANCELLED', message: 'The operation was cancelled.' } });
    const id = nextId++;
    return new Promise((resolve) => {
      pending.set(id, { resolve, hooks });
      hooks?.signal?.addEventListener('abort', () => port.post({ type: 'cancel', id }), { once: true });
      port.post({ type: 'call', id, method, arg });
    });
  };

  return {
    call,
    ready,
    close: (timeoutMs = 10_000) =>
      new Promise<void>((resolve) => {
        if (dead) return resolve();
        const timer = setTimeout(resolve, timeoutMs);
        onClosed = () => {
          clearTimeout(timer);
          resolve();
        };
        port.post({ type: 'close' });
      }),
    hostExited(reason) {
      dead = { code: 'INTERNAL', message: reason };
      resolveReady({ error: dead });
      for (const p of pending.values()) p.resolve({ ok: false, error: dead });
      pending.clear();
      onClosed?.();
    },
  };
}
