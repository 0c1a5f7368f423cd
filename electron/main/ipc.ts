/**
 * One IPC handler per remote EngineApi method ("manualdesk:<method>"). Each checks that the call comes
 * from the app's own page, validates the argument with the same zod schemas as the HTTP server, and
 * returns Result data (Electron would pass only the message of a thrown error).
 */
import { fail, type EngineApi, type Result } from '../../native/contract/index.js';
import { callEngine } from '../../native/server/dispatch.js';
import { channelFor, REMOTE_METHODS } from '../../native/server/methods.js';

/** What registerIpc needs of an IPC invoke event (Electron's IpcMainInvokeEvent has it). */
export interface InvokeEventLike {
  senderFrame: { url: string } | null;
}

/** What registerIpc needs of Electron's ipcMain. */
export interface IpcMainLike {
  handle(channel: string, listener: (event: InvokeEventLike, ...args: unknown[]) => Promise<unknown>): void;
  removeHandler(channel: string): void;
}

/** Registers the handlers; returns a function that removes them. */
export function registerIpc(
  ipcMain: IpcMainLike,
  engine: EngineApi,
  isTrustedSender: (frameUrl: string) => boolean,
): () => void {
  const channels = REMOTE_METHODS.map((method) => {
    const channel = channelFor(method);
    ipcMain.handle(channel, async (event, ...args): Promise<Result<unknown>> => {
      const url = event.senderFrame?.url;
      if (!url || !isTrustedSender(url)) {
        return fail('INVALID_INPUT', 'Refused: this request did not come from the ManualDesk window.');
      }
      if (args.length > 1) {
        return fail('INVALID_INPUT', `Invalid ${method} request: expected one argument, got ${args.length}.`);
      }
      return callEngine(engine, method, args[0]);
    });
    return channel;
  });
  return () => {
    for (const channel of channels) ipcMain.removeHandler(channel);
  };
}
