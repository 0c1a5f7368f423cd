/**
 * One IPC handler per method of the contract's method table ("manualdesk:<method>"). Each checks that
 * the call comes from the app's own page and hands the argument to an EngineCaller, which validates it
 * with the same zod schemas as the HTTP server and answers Result data (Electron would pass only the
 * message of a thrown error). The caller runs the engine in the utility process (engine-host.ts).
 *
 * Streaming calls (progress, tokens): the page adds a second argument {op} with an id it chose; events
 * come back on EVENT_CHANNEL tagged with that id, and CANCEL_CHANNEL with the id cancels the call.
 */
import { fail, REMOTE_METHODS, type RemoteMethod, type Result } from '../../native/contract/index.js';
import type { EngineCaller } from '../../native/worker/streaming.js';
import { CANCEL_CHANNEL, channelFor, EVENT_CHANNEL, OP_PATTERN } from '../channels.js';

/** What registerIpc needs of an IPC invoke event (Electron's IpcMainInvokeEvent has it). */
export interface InvokeEventLike {
  senderFrame: { url: string } | null;
  sender: { id: number; send(channel: string, ...args: unknown[]): void; isDestroyed?(): boolean };
}

/** What registerIpc needs of Electron's ipcMain. */
export interface IpcMainLike {
  handle(channel: string, listener: (event: InvokeEventLike, ...args: unknown[]) => Promise<unknown>): void;
  removeHandler(channel: string): void;
}

const FOREIGN = 'Refused: this request did not come from the ManualDesk window.';

/** Registers the handlers; returns a function that removes them (and cancels running calls). */
export function registerIpc(
  ipcMain: IpcMainLike,
  call: EngineCaller,
  isTrustedSender: (frameUrl: string) => boolean,
): () => void {
  const running = new Map<string, AbortController>();
  const trusted = (event: InvokeEventLike) => {
    const url = event.senderFrame?.url;
    return Boolean(url && isTrustedSender(url));
  };

  const handle = async (method: RemoteMethod, event: InvokeEventLike, args: unknown[]): Promise<Result<unknown>> => {
    if (!trusted(event)) return fail('INVALID_INPUT', FOREIGN);
    if (args.length > 2) {
      return fail('INVALID_INPUT', `Invalid ${method} request: expected one argument, got ${args.length}.`);
    }
    if (args.length < 2 || args[1] === undefined) return call(method, args[0]);
    const op = streamOp(args[1]);
    if (op === null) {
      return fail('INVALID_INPUT', `Invalid ${method} request: the second argument must be {op: "<id>"} (letters, digits, - or _).`);
    }
    const key = `${event.sender.id}:${op}`;
    if (running.has(key)) return fail('INVALID_INPUT', `Invalid ${method} request: operation ${op} is already running.`);
    const controller = new AbortController();
    running.set(key, controller);
    try {
      return await call(method, args[0], {
        signal: controller.signal,
        onEvent: (ev) => {
          if (!event.sender.isDestroyed?.()) event.sender.send(EVENT_CHANNEL, op, ev);
        },
      });
    } finally {
      running.delete(key);
    }
  };

  const channels = REMOTE_METHODS.map((method) => {
    const channel = channelFor(method);
    ipcMain.handle(channel, (event, ...args) => handle(method, event, args));
    return channel;
  });

  ipcMain.handle(CANCEL_CHANNEL, async (event, op): Promise<Result<{ cancelled: boolean }>> => {
    if (!trusted(event)) return fail('INVALID_INPUT', FOREIGN);
    if (typeof op !== 'string' || !OP_PATTERN.test(op)) return fail('INVALID_INPUT', 'Invalid cancel request: expected an operation id.');
    const controller = running.get(`${event.sender.id}:${op}`);
    controller?.abort();
    return { ok: true, value: { cancelled: controller !== undefined } };
  });
  channels.push(CANCEL_CHANNEL);

  return () => {
    for (const channel of channels) ipcMain.removeHandler(channel);
    for (const c of running.values()) c.abort();
    running.clear();
  };
}

function streamOp(raw: unknown): string | null {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return null;
  const keys = Object.keys(raw);
  const op = (raw as { op?: unknown }).op;
  if (keys.length !== 1 || typeof op !== 'string' || !OP_PATTERN.test(op)) return null;
  return op;
}
