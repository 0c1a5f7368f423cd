/**
 * The engine side of the worker protocol: runs each call with its own AbortController, streams its
 * events, answers its Result. Pure: the port is passed in (utilityProcess parentPort, a Node IPC
 * channel, or an in-memory pair in tests).
 */
import { fail, isRemoteMethod } from '../contract/index.js';
import type { FromHost, Port, ToHost } from './protocol.js';
import { isToHost } from './protocol.js';
import type { EngineCaller } from './streaming.js';

export interface HostOptions {
  /** Closes the engine (on a 'close' message). */
  close: () => Promise<void>;
  /** After 'closed' was posted (the process entry exits here). */
  onClosed?: () => void;
}

export function serveEngine(call: EngineCaller, port: Port<unknown, FromHost>, opts: HostOptions): void {
  const running = new Map<number, AbortController>();
  let closing = false;

  port.onMessage((raw) => {
    if (!isToHost(raw)) return;
    const msg: ToHost = raw;
    if (msg.type === 'cancel') {
      running.get(msg.id)?.abort();
      return;
    }
    if (msg.type === 'close') {
      if (closing) return;
      closing = true;
      for (const c of running.values()) c.abort();
      void opts
        .close()
        .catch(() => {})
        .finally(() => {
          port.post({ type: 'closed' });
          opts.onClosed?.();
        });
      return;
    }
    const { id, method, arg } = msg;
    if (closing) {
      port.post({ type: 'result', id, result: fail('CANCELLED', 'ManualDesk is closing; the request was not run.') });
      return;
    }
    if (!isRemoteMethod(method)) {
      port.post({ type: 'result', id, result: fail('INVALID_INPUT', `Unknown method "${String(method)}".`) });
      return;
    }
    const controller = new AbortController();
    running.set(id, controller);
    void call(method, arg, {
      signal: controller.signal,
      onEvent: (event) => port.post({ type: 'event', id, event }),
    }).then((result) => {
      running.delete(id);
      port.post({ type: 'result', id, result });
    });
  });
}
