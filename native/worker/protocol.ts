/**
 * Messages between the app's main process and the engine host process (Electron utilityProcess, or a
 * Node child process). Plain structured-clone data, typed from the contract.
 */
import type { EngineErrorData, EngineEvent, RemoteMethod, Result } from '../contract/index.js';

export type ToHost =
  | { type: 'call'; id: number; method: RemoteMethod; arg: unknown }
  | { type: 'cancel'; id: number }
  /** Close the library; the host answers 'closed' and exits. */
  | { type: 'close' };

export type FromHost =
  /** The engine is open (or could not be: error says why; calls then answer with it). */
  | { type: 'ready'; error?: EngineErrorData }
  | { type: 'event'; id: number; event: EngineEvent }
  | { type: 'result'; id: number; result: Result<unknown> }
  | { type: 'closed' };

/** The two ends speak through something that posts and receives messages. */
export interface Port<In, Out> {
  post(message: Out): void;
  onMessage(listener: (message: In) => void): void;
}

export function isToHost(m: unknown): m is ToHost {
  if (typeof m !== 'object' || m === null) return false;
  const t = (m as { type?: unknown }).type;
  const id = (m as { id?: unknown }).id;
  if (t === 'close') return true;
  if (t === 'cancel') return Number.isInteger(id);
  return t === 'call' && Number.isInteger(id) && typeof (m as { method?: unknown }).method === 'string';
}
