/**
 * IPC channel names shared by the main process and the preload (no runtime imports: the preload
 * bundles this file). Each method of the contract's method table has its own channel,
 * `manualdesk:<method>`.
 */
import type { RemoteMethod } from '../native/contract/methods.js';

/** IPC channel name for a method, e.g. "manualdesk:search". */
export function channelFor(method: RemoteMethod): string {
  return `manualdesk:${method}`;
}

/** main → page: ('manualdesk:event', op, StreamMessage-less EngineEvent) for a streaming call. */
export const EVENT_CHANNEL = 'manualdesk:event';
/** page → main: ('manualdesk:cancel', op) cancels a streaming call. */
export const CANCEL_CHANNEL = 'manualdesk:cancel';
/** What a page-chosen operation id may look like. */
export const OP_PATTERN = /^[A-Za-z0-9_-]{1,64}$/;
