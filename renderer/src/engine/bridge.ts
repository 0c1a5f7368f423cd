/**
 * The one place the UI reaches the engine: the Electron preload's window.manualdesk when it exists,
 * otherwise the HTTP API of browser mode on the page's own origin. Both are the contract's EngineApi.
 */
import type { EngineApi } from '../../../native/contract/index.js';
import { createHttpClient } from './http-client.js';

declare global {
  interface Window {
    /** Set by electron/preload in the desktop app. */
    manualdesk?: EngineApi;
  }
}

let engine: EngineApi | undefined;

export function getEngine(): EngineApi {
  engine ??= window.manualdesk ?? createHttpClient(window.location.origin);
  return engine;
}
