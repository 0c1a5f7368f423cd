/**
 * The one place the UI reaches the engine: the Electron preload's window.manualdesk when it exists,
 * otherwise the HTTP API of browser mode on the page's own origin. Both become the same UiEngine.
 */
import type { RemoteOf } from '../../../native/contract/index.js';
import { engineOver, type Call } from './adapter.js';
import { createHttpTransport } from './http-client.js';
import type { Connection, UiEngine, UiMethod } from './types.js';

declare global {
  interface Window {
    /** Set by electron/preload in the desktop app: the methods this build's engine has. */
    manualdesk?: Partial<RemoteOf<UiEngine>>;
  }
}

export async function connectEngine(): Promise<Connection> {
  const bridge = window.manualdesk;
  if (bridge) {
    const source = bridge as Record<string, ((arg: unknown, hooks?: unknown) => Promise<never>) | undefined>;
    const has = (m: UiMethod) => typeof source[m] === 'function';
    const call: Call = (method, arg, hooks) => source[method]!(arg, hooks);
    return { engine: engineOver(call, has), has, mode: 'desktop' };
  }
  const transport = createHttpTransport(window.location.origin);
  const methods = await transport.methods();
  // If the list cannot be read, try everything: the server answers unknown methods as data.
  const has = (m: UiMethod) => methods === null || methods.includes(m);
  return { engine: engineOver(transport.call, has), has, mode: 'browser' };
}
