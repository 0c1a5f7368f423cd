/**
 * What long calls report while they run, as plain data, so every transport (Electron IPC, the utility
 * process, HTTP streaming in browser mode) carries the same events. Types only.
 */
import type { IngestProgress } from './api.js';
import type { PackProgress } from './packs.js';
import type { Result } from './errors.js';

export type EngineEvent =
  /** ingest: EngineHooks.onProgress */
  | { type: 'ingest-progress'; progress: IngestProgress }
  /** verifyPack / importPack / updatePack: PackHooks.onProgress */
  | { type: 'pack-progress'; progress: PackProgress }
  /** ask (generative): AskHooks.onToken */
  | { type: 'token'; text: string };

/** One line of a stream: events, then exactly one result. */
export type StreamMessage = EngineEvent | { type: 'result'; result: Result<unknown> };

/**
 * Hooks as they cross a boundary that carries functions but not an AbortSignal (Electron's
 * contextBridge): events come back through onEvent; the transport hands over a cancel function.
 */
export interface TransportHooks {
  onEvent?: (event: EngineEvent) => void;
  /** Called once, before the call starts, with a function that cancels it. */
  onCancelable?: (cancel: () => void) => void;
}
