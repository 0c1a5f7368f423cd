/**
 * The one place the UI reaches the engine: the Electron preload's window.manualdesk when it exists,
 * otherwise the HTTP API of browser mode on the page's own origin. Both become the same UiEngine.
 */
import type { RemoteApi } from '../../../native/contract/index.js';
import { engineOver, type Call } from './adapter.js';
import { createHttpTransport } from './http-client.js';
import type { Connection } from './types.js';

declare global {
  interface Window {
    /** Set by electron/preload in the desktop app: one function per method of the contract's table. */
    manualdesk?: RemoteApi;
  }
}

export async function connectEngine(): Promise<Connection> {
  const bridge = window.manualdesk;
  if (bridge) {
    const source = bridge as unknown as Record<string, (arg: unknown, hooks?: unknown) => Promise<never>>;
    const call: Call = (method, arg, hooks) => source[method]!(arg, hooks);
    return { engine: engineOver(call), mode: 'desktop' };
  }
  return { engine: engineOver(createHttpTransport(window.location.origin).call), mode: 'browser' };
}
