/**
 * The engine as the UI sees it: the contract's EngineApi plus the methods later stages add (answers,
 * packs). Which of them this build really has is a capability, checked before a screen uses one.
 */
import type { AnswerMethods, EngineApi, PackMethods } from '../../../native/contract/index.js';

export type UiEngine = EngineApi & AnswerMethods & PackMethods;

/** Every method a transport may expose (close is the owner's). */
export type UiMethod = Exclude<keyof UiEngine, 'close'>;

export interface Connection {
  engine: UiEngine;
  /** Whether the engine behind the transport has this method (false: "not available in this build"). */
  has(method: UiMethod): boolean;
  /** desktop: Electron IPC; browser: HTTP on 127.0.0.1. */
  mode: 'desktop' | 'browser';
}
