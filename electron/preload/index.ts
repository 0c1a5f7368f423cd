/**
 * Exposes exactly the contract's methods as window.manualdesk, each bound to its own IPC channel.
 * Nothing generic: no ipcRenderer, no send/on, no channel names chosen by the page.
 */
import { contextBridge, ipcRenderer } from 'electron';
import type { CodeLookupRequest, EngineApi, IngestRequest, SearchRequest } from '../../native/contract/index.js';
import { channelFor } from '../../native/server/methods.js';

const manualdesk = {
  info: () => ipcRenderer.invoke(channelFor('info')),
  listManuals: () => ipcRenderer.invoke(channelFor('listManuals')),
  search: (req: SearchRequest) => ipcRenderer.invoke(channelFor('search'), req),
  lookupCode: (req: CodeLookupRequest) => ipcRenderer.invoke(channelFor('lookupCode'), req),
  // Hooks (progress, abort) cannot cross the bridge; ingest takes its paths only.
  ingest: (req: IngestRequest) => ipcRenderer.invoke(channelFor('ingest'), req),
  removeFiles: (files: string[]) => ipcRenderer.invoke(channelFor('removeFiles'), files),
  // The engine belongs to the main process and closes when the app quits.
  close: async () => {},
} satisfies EngineApi;

contextBridge.exposeInMainWorld('manualdesk', manualdesk);
