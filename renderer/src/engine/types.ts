/** The engine as the UI sees it: the contract's EngineApi, over Electron IPC or HTTP. */
import type { EngineApi } from '../../../native/contract/index.js';

export type UiEngine = EngineApi;

export interface Connection {
  engine: UiEngine;
  /** desktop: Electron IPC; browser: HTTP on 127.0.0.1. */
  mode: 'desktop' | 'browser';
}
