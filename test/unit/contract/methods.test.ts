/**
 * The contract's method table (native/contract/methods.ts) against EngineApi, and every face built
 * from it: the request schemas, the HTTP server, the engine host (worker protocol), Electron's IPC
 * handlers and preload, the stand-in engine, and the renderer's adapter. Then each streaming method's
 * events, sent by the engine through the hook the table names, must reach the caller through each
 * transport: HTTP (renderer client → server → engine), the worker protocol (client → host → engine,
 * as events), and the desktop chain as production wires it (renderer bridge → preload → IPC handlers →
 * worker client → worker host → engine), with the fakes the other tests use.
 */
import { afterAll, beforeAll, describe, expect, expectTypeOf, it, vi } from 'vitest';
import {
  EVENT_PAYLOAD,
  METHODS,
  REMOTE_METHODS,
  type ArgOf,
  type EngineApi,
  type EngineEvent,
  type EventPayload,
  type EventType,
  type MethodTable,
  type RemoteMethod,
  type StreamingMethod,
  type StreamMethod,
} from '../../../native/contract/index.js';
import { REQUEST_SCHEMAS, requestSchema } from '../../../native/server/dispatch.js';
import { startServer, type RunningServer } from '../../../native/server/http.js';
import { connectWorker } from '../../../native/worker/client.js';
import { serveEngine } from '../../../native/worker/host.js';
import type { FromHost, ToHost } from '../../../native/worker/protocol.js';
import { localCaller } from '../../../native/worker/streaming.js';
import { registerIpc, type InvokeEventLike } from '../../../electron/main/ipc.js';
import { unavailableEngine } from '../../../electron/main/unavailable-engine.js';
import { CANCEL_CHANNEL, channelFor } from '../../../electron/channels.js';
import { engineOver } from '../../../renderer/src/engine/adapter.js';
import { connectEngine } from '../../../renderer/src/engine/bridge.js';
import { createHttpClient } from '../../../renderer/src/engine/http-client.js';
import type { UiEngine } from '../../../renderer/src/engine/types.js';
import { fakeEngine } from '../server/fake-engine.js';
import { keyedFetch } from '../server/keyed-fetch.js';

type Fn = (...args: any[]) => any; // eslint-disable-line @typescript-eslint/no-explicit-any

const APP = 'file:///app/out/renderer/index.html';

/** Electron as the preload sees it: invoke reaches the handlers registerIpc installed, structured-clone in between. */
const electron = vi.hoisted(() => ({
  exposed: new Map<string, Record<string, Fn>>(),
  listeners: new Map<string, Fn>(),
  handlers: new Map<string, Fn>(),
}));

vi.mock('electron', () => ({
  contextBridge: { exposeInMainWorld: (key: string, api: Record<string, Fn>) => electron.exposed.set(key, api) },
  ipcRenderer: {
    on: (channel: string, fn: Fn) => electron.listeners.set(channel, fn),
    invoke: async (channel: string, ...args: unknown[]) => {
      const handler = electron.handlers.get(channel);
      if (!handler) throw new Error(`No handler registered for '${channel}'`);
      const event: InvokeEventLike = {
        senderFrame: { url: 'file:///app/out/renderer/index.html' },
        sender: { id: 1, send: (c: string, ...a: unknown[]) => electron.listeners.get(c)?.({}, ...structuredClone(a)) },
      };
      return structuredClone(await handler(event, ...structuredClone(args)));
    },
  },
}));

// ---- the table against EngineApi ----------------------------------------------------------------

describe('the method table', () => {
  it('lists exactly the methods of EngineApi but close (typechecked), as a complete engine has them', () => {
    expectTypeOf<keyof typeof METHODS>().toEqualTypeOf<Exclude<keyof EngineApi, 'close'>>();
    expectTypeOf<RemoteMethod>().toEqualTypeOf<Exclude<keyof EngineApi, 'close'>>();
    // fakeEngine must implement all of EngineApi (typechecked), so its methods are the contract's.
    const implemented = Object.keys(fakeEngine()).filter((k) => k !== 'calls' && k !== 'close');
    expect([...REMOTE_METHODS].sort()).toEqual(implemented.sort());
    expect(REMOTE_METHODS).not.toContain('close');
  });

  it('refuses (at typecheck) a method with hooks listed as a call, a wrong event, or a hook the method lacks', () => {
    // @ts-expect-error ingest takes hooks: as a plain call its progress events would be lost.
    const asCall: MethodTable['ingest'] = { kind: 'call' };
    // @ts-expect-error ingest's onProgress takes IngestProgress, not PackProgress.
    const wrongEvent: MethodTable['ingest'] = { kind: 'stream', event: 'pack-progress', hook: 'onProgress' };
    // @ts-expect-error ask's tokens go to onToken; signal is not a hook.
    const wrongHook: MethodTable['ask'] = { kind: 'stream', event: 'token', hook: 'signal' };
    // @ts-expect-error search takes no hooks, so it cannot stream.
    const noHooks: MethodTable['search'] = { kind: 'stream', event: 'token', hook: 'onToken' };
    // @ts-expect-error close is the owning process's, never a transport's.
    const withClose: MethodTable = { ...METHODS, close: { kind: 'call' } };
    const { search: _search, ...withoutSearch } = METHODS;
    // @ts-expect-error every method must be listed.
    const missing: MethodTable = withoutSearch;
    expect([asCall, wrongEvent, wrongHook, noHooks, withClose, missing]).toHaveLength(6);
  });

  it('gives every method with a request its schema, and only methods without one the no-argument schema', () => {
    const withRequest = Object.keys(REQUEST_SCHEMAS);
    for (const m of withRequest) expect(REMOTE_METHODS, m).toContain(m);
    for (const m of REMOTE_METHODS) {
      const schema = requestSchema(m);
      if (withRequest.includes(m)) expect(schema, m).toBe(REQUEST_SCHEMAS[m as keyof typeof REQUEST_SCHEMAS]);
      else {
        expect(schema.safeParse(undefined).success, m).toBe(true);
        expect(schema.safeParse({ x: 1 }).success, m).toBe(false);
      }
    }
    expect([...REMOTE_METHODS].filter((m) => !withRequest.includes(m)).sort()).toEqual(['info', 'listManuals', 'listModels', 'listPacks']);
  });
});

// ---- every face exposes exactly the table --------------------------------------------------------

const STREAMING = REMOTE_METHODS.filter((m): m is StreamingMethod => METHODS[m].kind === 'stream');

/** One payload per event type (a new event type fails typechecking here until it has one). */
const SAMPLE = {
  'ingest-progress': { phase: 'parse', file: 'vmc.md', done: 1, total: 3 },
  'pack-progress': { phase: 'verify', bytesDone: 1024, bytesTotal: 4096, filesDone: 1, filesTotal: 3 },
  token: 'Check the spindle oil',
} satisfies { [T in EventType]: EventPayload<T> };

/** A valid request per streaming method (a new one fails typechecking here until it has one). */
const VALID = {
  ingest: { paths: ['/manuals'] },
  ask: { question: 'How often is the spindle oiled?' },
  verifyPack: { file: '/stick/plant.mdpack' },
  importPack: { file: '/stick/plant.mdpack' },
  updatePack: { file: '/stick/plant.mdpack', allowUnsigned: false },
} satisfies { [M in StreamingMethod]: ArgOf<M> };

/** A recording engine whose every streaming method reports two events through the hook the table names. */
function streamingEngine() {
  const overrides: Record<string, Fn> = {};
  for (const method of STREAMING) {
    const { event, hook } = METHODS[method] as StreamMethod;
    overrides[method] = async (arg: unknown, hooks?: Record<string, unknown>) => {
      const emit = hooks?.[hook] as ((payload: unknown) => void) | undefined;
      emit?.(SAMPLE[event]);
      emit?.(SAMPLE[event]);
      return { ok: true, value: { method, arg, signal: hooks?.signal instanceof AbortSignal } };
    };
  }
  return fakeEngine(overrides as Partial<EngineApi>);
}

let server: RunningServer;
const httpEngine = streamingEngine();
/** Behind the worker host: reached by the worker client directly and by the desktop chain. */
const workerEngine = streamingEngine();
let faces: { name: string; engine: UiEngine }[] = [];
let workerCall: ReturnType<typeof connectWorker>['call'];

beforeAll(async () => {
  server = await startServer(httpEngine);

  let toHost: (m: unknown) => void = () => {};
  let toClient: (m: unknown) => void = () => {};
  serveEngine(localCaller(workerEngine), { post: (m: FromHost) => queueMicrotask(() => toClient(structuredClone(m))), onMessage: (fn) => (toHost = fn) }, {
    close: async () => {},
  });
  const client = connectWorker({ post: (m: ToHost) => queueMicrotask(() => toHost(structuredClone(m))), onMessage: (fn) => (toClient = fn) });
  workerCall = client.call;

  registerIpc(
    { handle: (channel, listener) => electron.handlers.set(channel, listener), removeHandler: (channel) => electron.handlers.delete(channel) },
    // As electron/main/index.ts wires it: the IPC handlers call the engine host through the worker client.
    client.call,
    (url) => url === APP,
  );
  await import('../../../electron/preload/index.js');
  vi.stubGlobal('window', { manualdesk: electron.exposed.get('manualdesk'), location: { origin: 'http://127.0.0.1:1' } });
  const desktop = await connectEngine();
  expect(desktop.mode).toBe('desktop');

  faces = [
    { name: 'HTTP (browser mode)', engine: createHttpClient(server.url, keyedFetch(server)) },
    { name: 'preload + IPC (desktop)', engine: desktop.engine },
  ];
});
afterAll(async () => {
  vi.unstubAllGlobals();
  await server.close();
});

describe('every face has exactly the table', () => {
  it('IPC: one channel per method plus cancel; preload: one function per method, nothing else', () => {
    expect([...electron.handlers.keys()].sort()).toEqual([...REMOTE_METHODS.map(channelFor), CANCEL_CHANNEL].sort());
    expect([...electron.exposed.keys()]).toEqual(['manualdesk']);
    const exposed = electron.exposed.get('manualdesk')!;
    expect(Object.keys(exposed)).toEqual(REMOTE_METHODS);
    for (const fn of Object.values(exposed)) expect(typeof fn).toBe('function');
  });

  it('renderer adapter and the stand-in engine: every method, plus close', () => {
    expect(Object.keys(engineOver(async () => ({ ok: true, value: null }))).sort()).toEqual([...REMOTE_METHODS, 'close'].sort());
    expect(Object.keys(unavailableEngine({ code: 'LIBRARY_LOCKED', message: 'x' })).sort()).toEqual([...REMOTE_METHODS, 'close'].sort());
  });

  it('HTTP server and worker host: every method is known (refused input, never "Unknown method")', async () => {
    for (const method of REMOTE_METHODS) {
      const res = await keyedFetch(server)(`${server.url}/api/${method}`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '"?"' });
      expect(res.status, method).not.toBe(404);
      expect(((await res.json()) as { error?: { message: string } }).error?.message ?? '', method).not.toMatch(/Unknown method/);
      const viaWorker = await workerCall(method, '?');
      expect(viaWorker.ok || viaWorker.error.message, method).not.toMatch(/Unknown method/);
    }
    expect((await keyedFetch(server)(`${server.url}/api/close`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '' })).status).toBe(404);
  });
});

// ---- streaming methods' events reach the caller through each face ---------------------------------

describe('streaming methods', () => {
  it('are the methods that take hooks', () => {
    expect(STREAMING).toEqual(['ingest', 'ask', 'verifyPack', 'importPack', 'updatePack']);
  });

  it('reach a worker client as EngineEvents, each of the type the table names, then the result', async () => {
    for (const method of STREAMING) {
      const { event } = METHODS[method] as StreamMethod;
      const got: EngineEvent[] = [];
      const res = await workerCall(method, VALID[method], { signal: new AbortController().signal, onEvent: (e) => got.push(e) });
      const expected = { type: event, [EVENT_PAYLOAD[event]]: SAMPLE[event] };
      expect(got, method).toEqual([expected, expected]);
      expect(res, method).toEqual({ ok: true, value: { method, arg: VALID[method], signal: true } });
    }
  });

  for (const face of ['HTTP (browser mode)', 'preload + IPC (desktop)']) {
    it(`deliver every event to the caller's hook, and the result, over ${face}`, async () => {
      const engine = faces.find((f) => f.name === face)!.engine as unknown as Record<string, Fn>;
      for (const method of STREAMING) {
        const { event, hook } = METHODS[method] as StreamMethod;
        const got: unknown[] = [];
        const ac = new AbortController();
        const res = await engine[method]!(VALID[method], { signal: ac.signal, [hook]: (payload: unknown) => got.push(payload) });
        expect(got, `${method} over ${face}`).toEqual([SAMPLE[event], SAMPLE[event]]);
        expect(res, `${method} over ${face}`).toEqual({ ok: true, value: { method, arg: VALID[method], signal: true } });
      }
    });
  }

  it('are cancelled through each face: the engine sees its signal abort', async () => {
    for (const f of faces) {
      let aborted = false;
      const slow = fakeEngine({
        ingest: async (_req, hooks) => {
          hooks?.onProgress?.(SAMPLE['ingest-progress']);
          await new Promise<void>((resolve) => hooks?.signal?.addEventListener('abort', () => resolve()));
          aborted = true;
          return { ok: false, error: { code: 'CANCELLED', message: 'The operation was cancelled.' } };
        },
      });
      Object.assign(f.name.startsWith('HTTP') ? httpEngine : workerEngine, { ingest: slow.ingest });
      const ac = new AbortController();
      const res = await f.engine.ingest(VALID.ingest, { signal: ac.signal, onProgress: () => ac.abort() });
      expect(res, f.name).toMatchObject({ ok: false, error: { code: 'CANCELLED' } });
      await expect.poll(() => aborted, { timeout: 5000 }).toBe(true);
    }
  }, 15_000);
});
