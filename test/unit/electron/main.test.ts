/**
 * The main-process wiring (electron/main/index.ts) with a fake Electron and the real engine on an
 * empty temp library: hardened session, secure window, the engine started as a utility process (here
 * the real worker host in memory), IPC reaching it, the engine closed on quit.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it, vi } from 'vitest';

type Fn = (...args: any[]) => any; // eslint-disable-line @typescript-eslint/no-explicit-any

const fake = vi.hoisted(() => {
  const state = {
    handlers: new Map<string, Fn>(),
    appListeners: new Map<string, Fn[]>(),
    windows: [] as { options: { webPreferences?: Record<string, unknown> }; loaded?: string }[],
    beforeRequest: null as Fn | null,
    headersReceived: null as Fn | null,
    permissionHandler: null as Fn | null,
    quits: 0,
    sandboxEnabled: false,
    resolveReady: null as (() => void) | null,
    forks: [] as { modulePath: string; env: Record<string, string | undefined> }[],
    exited: false,
  };
  return state;
});

vi.mock('electron', async () => {
  const ready = new Promise<void>((resolve) => (fake.resolveReady = resolve));
  class BrowserWindow {
    record: { options: { webPreferences?: Record<string, unknown> }; loaded?: string };
    constructor(options: { webPreferences?: Record<string, unknown> }) {
      this.record = { options };
      fake.windows.push(this.record);
    }
    once() {}
    on() {}
    async loadFile(p: string) {
      this.record.loaded = p;
    }
    async loadURL(u: string) {
      this.record.loaded = u;
    }
  }
  const { EventEmitter } = await import('node:events');
  const { createEngine } = await import('../../../native/engine.js');
  const { serveEngine } = await import('../../../native/worker/host.js');
  const { localCaller } = await import('../../../native/worker/streaming.js');
  /** utilityProcess.fork: the real worker host and engine, in memory, with structured-clone messages. */
  function fork(modulePath: string, _args: string[], opts: { env: Record<string, string | undefined> }) {
    fake.forks.push({ modulePath, env: opts.env });
    const child = new EventEmitter() as InstanceType<typeof EventEmitter> & { postMessage(m: unknown): void; kill(): void };
    let toHost: ((m: unknown) => void) | null = null;
    child.postMessage = (m) => queueMicrotask(() => toHost?.(structuredClone(m)));
    child.kill = () => child.emit('exit', 1);
    void createEngine({ libraryDir: opts.env.MANUALDESK_LIBRARY! }).then(async (engine) => {
      serveEngine(
        localCaller(engine),
        {
          post: (m) => {
            queueMicrotask(() => child.emit('message', structuredClone(m)));
            if (m.type === 'closed') queueMicrotask(() => {
              fake.exited = true;
              child.emit('exit', 0);
            });
          },
          onMessage: (fn) => (toHost = fn),
        },
        { close: () => engine.close() },
      );
      child.emit('message', { type: 'ready' });
    });
    return child;
  }
  return {
    utilityProcess: { fork },
    app: {
      isPackaged: true,
      enableSandbox: () => (fake.sandboxEnabled = true),
      requestSingleInstanceLock: () => true,
      whenReady: () => ready,
      on: (ev: string, fn: Fn) => fake.appListeners.set(ev, [...(fake.appListeners.get(ev) ?? []), fn]),
      quit: () => {
        fake.quits++;
        const event = { prevented: false, preventDefault() { this.prevented = true; } };
        for (const fn of fake.appListeners.get('before-quit') ?? []) fn(event);
      },
    },
    BrowserWindow,
    ipcMain: { handle: (c: string, fn: Fn) => fake.handlers.set(c, fn), removeHandler: (c: string) => fake.handlers.delete(c) },
    session: {
      defaultSession: {
        setPermissionRequestHandler: (fn: Fn) => (fake.permissionHandler = fn),
        setPermissionCheckHandler: () => {},
        webRequest: {
          onBeforeRequest: (fn: Fn) => (fake.beforeRequest = fn),
          onHeadersReceived: (fn: Fn) => (fake.headersReceived = fn),
        },
      },
    },
  };
});

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'md-main-'));
process.env.MANUALDESK_LIBRARY = path.join(tmp, 'library');
await import('../../../electron/main/index.js');
fake.resolveReady!();
await vi.waitFor(() => expect(fake.windows.length).toBe(1), { timeout: 20_000 });

const sender = { id: 1, send: () => {} };

afterAll(() => {
  delete process.env.MANUALDESK_LIBRARY;
  fs.rmSync(tmp, { recursive: true, force: true });
});

describe('electron main wiring', () => {
  it('enables the sandbox and opens one secure window on the built renderer', () => {
    expect(fake.sandboxEnabled).toBe(true);
    const [win] = fake.windows;
    expect(win!.options.webPreferences).toMatchObject({ sandbox: true, contextIsolation: true, nodeIntegration: false });
    expect(String(win!.options.webPreferences!.preload)).toMatch(/preload[\\/]index\.cjs$/);
    expect(win!.loaded).toMatch(/renderer[\\/]index\.html$/);
  });

  it('hardens the session: network blocked, CSP header, permissions denied', () => {
    const page = pathToFileURL(fake.windows[0]!.loaded!).href;
    const decisions: unknown[] = [];
    fake.beforeRequest!({ url: 'https://example.com/' }, (r: unknown) => decisions.push(r));
    fake.beforeRequest!({ url: page }, (r: unknown) => decisions.push(r));
    expect(decisions).toEqual([{ cancel: true }, { cancel: false }]);
    let headers: Record<string, string[]> = {};
    fake.headersReceived!({ responseHeaders: {} }, (r: { responseHeaders: Record<string, string[]> }) => (headers = r.responseHeaders));
    expect(headers['Content-Security-Policy']?.[0]).toContain("script-src 'self'");
    let granted: boolean | undefined;
    fake.permissionHandler!({}, 'media', (g: boolean) => (granted = g));
    expect(granted).toBe(false);
  });

  it('denies navigation, new windows and webviews for every web contents', () => {
    const events = new Map<string, Fn>();
    let openHandler: Fn | undefined;
    const contents = { on: (ev: string, fn: Fn) => events.set(ev, fn), setWindowOpenHandler: (fn: Fn) => (openHandler = fn) };
    for (const fn of fake.appListeners.get('web-contents-created') ?? []) fn({}, contents);
    const nav = { prevented: false, preventDefault() { this.prevented = true; } };
    events.get('will-navigate')!(nav);
    expect(nav.prevented).toBe(true);
    const webview = { prevented: false, preventDefault() { this.prevented = true; } };
    events.get('will-attach-webview')!(webview);
    expect(webview.prevented).toBe(true);
    expect(openHandler!({ url: 'https://example.com' })).toEqual({ action: 'deny' });
  });

  it('starts the engine in a utility process on the configured library', () => {
    expect(fake.forks).toHaveLength(1);
    expect(fake.forks[0]!.modulePath).toMatch(/[\\/]worker\.js$/);
    expect(fake.forks[0]!.env.MANUALDESK_LIBRARY).toBe(path.join(tmp, 'library'));
  });

  it('routes IPC from the app page to the real engine and refuses other senders', async () => {
    const page = pathToFileURL(fake.windows[0]!.loaded!).href;
    const search = fake.handlers.get('manualdesk:search')!;
    const fromApp = await search({ senderFrame: { url: page }, sender }, { query: 'spindle' });
    // An empty library answers with a Result (hits or a clear error), never a throw.
    expect(typeof fromApp.ok).toBe('boolean');
    if (!fromApp.ok) expect(fromApp.error.message.length).toBeGreaterThan(0);
    const foreign = await search({ senderFrame: { url: 'https://evil.example/' }, sender }, { query: 'spindle' });
    expect(foreign).toMatchObject({ ok: false, error: { code: 'INVALID_INPUT' } });
    const bad = await search({ senderFrame: { url: page }, sender }, { query: '' });
    expect(bad).toMatchObject({ ok: false, error: { code: 'INVALID_INPUT' } });
  });

  it('streams ingest progress from the engine process back to the page', async () => {
    const page = pathToFileURL(fake.windows[0]!.loaded!).href;
    const sent: unknown[][] = [];
    const ingest = fake.handlers.get('manualdesk:ingest')!;
    const samples = path.resolve(import.meta.dirname, '../../../samples/library/acme-vmc-500-fault-codes.csv');
    const res = await ingest({ senderFrame: { url: page }, sender: { id: 1, send: (...a: unknown[]) => sent.push(a) } }, { paths: [samples] }, { op: 'op1' });
    expect(res).toMatchObject({ ok: true, value: { files: 1 } });
    expect(sent.length).toBeGreaterThan(1);
    expect(sent[0]).toEqual(['manualdesk:event', 'op1', { type: 'ingest-progress', progress: expect.objectContaining({ phase: 'scan' }) }]);
    expect(sent.at(-1)).toEqual(['manualdesk:event', 'op1', { type: 'ingest-progress', progress: expect.objectContaining({ phase: 'done' }) }]);
    const codes = await fake.handlers.get('manualdesk:lookupCode')!({ senderFrame: { url: page }, sender }, { text: 'E-101' });
    expect(codes).toMatchObject({ ok: true, value: { matches: [expect.objectContaining({ code: 'E-101' })] } });
  });

  it('closes the engine before quitting', async () => {
    fake.appListeners.get('window-all-closed')![0]!();
    // First quit is held back while the engine closes, then quit runs again.
    await vi.waitFor(() => expect(fake.quits).toBe(2));
    expect(fake.exited).toBe(true);
    const page = pathToFileURL(fake.windows[0]!.loaded!).href;
    const after = await fake.handlers.get('manualdesk:info')!({ senderFrame: { url: page }, sender });
    expect(after.ok).toBe(false);
  });
});
