/** A fake EngineApi that records calls and answers with fixed data (no library, no model). */
import type { EngineApi, SearchResponse } from '../../../native/contract/index.js';

export interface FakeEngine extends EngineApi {
  calls: { method: string; arg: unknown }[];
}

export function fakeEngine(overrides: Partial<EngineApi> = {}): FakeEngine {
  const calls: { method: string; arg: unknown }[] = [];
  const engine: FakeEngine = {
    calls,
    info: async () => {
      calls.push({ method: 'info', arg: undefined });
      return {
        ok: true,
        value: { dir: '/lib', formatVersion: 1, chunkerVersion: 1, embedder: null, files: 2, chunks: 10, codes: 3, vectorsPending: 0, modelToAdd: null, sample: false },
      };
    },
    ingest: async (req, hooks) => {
      calls.push({ method: 'ingest', arg: req });
      hooks?.onProgress?.({ phase: 'scan', done: 0, total: 1 });
      hooks?.onProgress?.({ phase: 'parse', file: 'vmc.md', done: 0, total: 1 });
      if (hooks?.signal?.aborted) return { ok: false, error: { code: 'CANCELLED', message: 'The operation was cancelled.' } };
      return {
        ok: true,
        value: { files: 1, chunks: 4, unchanged: 0, removed: 0, skipped: [], pagesNeedingOcr: [], seconds: 0.1 },
      };
    },
    search: async (req) => {
      calls.push({ method: 'search', arg: req });
      const value: SearchResponse = {
        query: req.query,
        ms: 1,
        mode: 'keyword',
        hits: [
          {
            file: 'vmc.md',
            page: null,
            section: 'Spindle > Lubrication',
            text: 'Check the spindle oil level daily.',
            score: 1,
            kind: 'passage',
            manual: 'Acme VMC-500',
            lang: 'en',
            chunkId: 'c1',
          },
        ],
      };
      return { ok: true, value };
    },
    lookupCode: async (req) => {
      calls.push({ method: 'lookupCode', arg: req });
      return { ok: true, value: { query: req.text, detected: [], matches: [], nearest: [], ms: 1 } };
    },
    listManuals: async () => {
      calls.push({ method: 'listManuals', arg: undefined });
      return { ok: true, value: [] };
    },
    removeFiles: async (files) => {
      calls.push({ method: 'removeFiles', arg: files });
      return { ok: true, value: { removed: files.length } };
    },
    openLibrary: async (req) => {
      calls.push({ method: 'openLibrary', arg: req });
      return {
        ok: true,
        value: { info: { dir: req.dir, formatVersion: 1, chunkerVersion: 1, embedder: null, files: 0, chunks: 0, codes: 0, vectorsPending: 0, modelToAdd: null, sample: false }, created: req.create },
      };
    },
    ask: async (req) => {
      calls.push({ method: 'ask', arg: req });
      return {
        ok: true,
        value: { question: req.question, standaloneQuery: req.question, answer: 'Check the spindle oil level daily. [1]', mode: 'extractive', refused: false, safety: [], citations: [], ms: 1 },
      };
    },
    listModels: async () => {
      calls.push({ method: 'listModels', arg: undefined });
      return { ok: true, value: [] };
    },
    openSource: async (req) => {
      calls.push({ method: 'openSource', arg: req });
      return { ok: true, value: { kind: 'blocks', file: req.file, manual: 'Acme VMC-500', format: 'markdown', blocks: [], changed: false } };
    },
    listPacks: async () => {
      calls.push({ method: 'listPacks', arg: undefined });
      return { ok: true, value: [] };
    },
    verifyPack: async (req) => {
      calls.push({ method: 'verifyPack', arg: req });
      return { ok: false, error: { code: 'NOT_FOUND', message: `No pack at ${req.file}.` } };
    },
    importPack: async (req) => {
      calls.push({ method: 'importPack', arg: req });
      return { ok: false, error: { code: 'NOT_FOUND', message: `No pack at ${req.file}.` } };
    },
    updatePack: async (req) => {
      calls.push({ method: 'updatePack', arg: req });
      return { ok: false, error: { code: 'NOT_FOUND', message: `No pack at ${req.file}.` } };
    },
    rollbackPack: async (req) => {
      calls.push({ method: 'rollbackPack', arg: req });
      return { ok: false, error: { code: 'NOT_FOUND', message: `Pack "${req.id}" is not installed.` } };
    },
    removePack: async (req) => {
      calls.push({ method: 'removePack', arg: req });
      return { ok: true, value: { removed: req.id } };
    },
    close: async () => {
      calls.push({ method: 'close', arg: undefined });
    },
    ...overrides,
  };
  return engine;
}
