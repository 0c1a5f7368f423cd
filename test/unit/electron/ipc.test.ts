import { describe, expect, it } from 'vitest';
import { registerIpc, type InvokeEventLike, type IpcMainLike } from '../../../electron/main/ipc.js';
import { unavailableEngine } from '../../../electron/main/unavailable-engine.js';
import { REMOTE_METHODS } from '../../../native/server/methods.js';
import { fakeEngine } from '../server/fake-engine.js';

type Listener = (event: InvokeEventLike, ...args: unknown[]) => Promise<unknown>;

/** Behaves like ipcMain for invoke: one handler per channel, unknown channels fail. */
class FakeIpcMain implements IpcMainLike {
  handlers = new Map<string, Listener>();
  handle(channel: string, listener: Listener): void {
    if (this.handlers.has(channel)) throw new Error(`second handler for ${channel}`);
    this.handlers.set(channel, listener);
  }
  removeHandler(channel: string): void {
    this.handlers.delete(channel);
  }
  invoke(channel: string, frameUrl: string | null, ...args: unknown[]): Promise<unknown> {
    const handler = this.handlers.get(channel);
    if (!handler) return Promise.reject(new Error(`No handler registered for '${channel}'`));
    return handler({ senderFrame: frameUrl === null ? null : { url: frameUrl } }, ...args);
  }
}

const APP = 'file:///app/out/renderer/index.html';
const trusted = (url: string) => url === APP;

function setup() {
  const ipc = new FakeIpcMain();
  const engine = fakeEngine();
  const dispose = registerIpc(ipc, engine, trusted);
  return { ipc, engine, dispose };
}

describe('registerIpc', () => {
  it('registers exactly one channel per remote method, and not close', () => {
    const { ipc } = setup();
    expect([...ipc.handlers.keys()].sort()).toEqual(REMOTE_METHODS.map((m) => `manualdesk:${m}`).sort());
    expect(ipc.handlers.has('manualdesk:close')).toBe(false);
  });

  it('leaves unknown channels unhandled', async () => {
    const { ipc } = setup();
    await expect(ipc.invoke('manualdesk:close', APP)).rejects.toThrow(/No handler/);
    await expect(ipc.invoke('manualdesk:eval', APP, 'process.exit()')).rejects.toThrow(/No handler/);
  });

  it('calls the engine with validated input from the app page', async () => {
    const { ipc, engine } = setup();
    const res = await ipc.invoke('manualdesk:search', APP, { query: 'spindle', k: 3 });
    expect(res).toMatchObject({ ok: true, value: { query: 'spindle' } });
    expect(engine.calls).toEqual([{ method: 'search', arg: { query: 'spindle', k: 3 } }]);
    expect(await ipc.invoke('manualdesk:info', APP)).toMatchObject({ ok: true, value: { files: 2 } });
  });

  it('refuses calls from foreign or missing frames without touching the engine', async () => {
    const { ipc, engine } = setup();
    for (const frame of ['https://evil.example/', 'file:///tmp/evil.html', null]) {
      const res = await ipc.invoke('manualdesk:removeFiles', frame, ['manual.pdf']);
      expect(res).toMatchObject({ ok: false, error: { code: 'INVALID_INPUT' } });
    }
    expect(engine.calls).toEqual([]);
  });

  it('rejects bad input as INVALID_INPUT data naming the field', async () => {
    const { ipc, engine } = setup();
    const bad = (await ipc.invoke('manualdesk:search', APP, { query: 42 })) as { ok: boolean; error: { message: string } };
    expect(bad.ok).toBe(false);
    expect(bad.error.message).toContain('"query"');
    const extra = await ipc.invoke('manualdesk:ingest', APP, { paths: ['/m'] }, { onProgress: 'x' });
    expect(extra).toMatchObject({ ok: false, error: { code: 'INVALID_INPUT' } });
    const wrongShape = await ipc.invoke('manualdesk:removeFiles', APP, 'manual.pdf');
    expect(wrongShape).toMatchObject({ ok: false, error: { code: 'INVALID_INPUT' } });
    expect(engine.calls).toEqual([]);
  });

  it('returns a thrown engine error as INTERNAL data', async () => {
    const ipc = new FakeIpcMain();
    registerIpc(
      ipc,
      fakeEngine({
        listManuals: async () => {
          throw new Error('boom');
        },
      }),
      trusted,
    );
    const res = (await ipc.invoke('manualdesk:listManuals', APP)) as { ok: boolean; error: { code: string; message: string } };
    expect(res.ok).toBe(false);
    expect(res.error.code).toBe('INTERNAL');
    expect(res.error.message).toContain('boom');
  });

  it('removes its handlers when disposed', () => {
    const { ipc, dispose } = setup();
    dispose();
    expect(ipc.handlers.size).toBe(0);
  });
});

describe('unavailableEngine', () => {
  it('answers every method with the start-up error', async () => {
    const engine = unavailableEngine({ code: 'LIBRARY_LOCKED', message: 'Another ManualDesk has the library open.' });
    const ipc = new FakeIpcMain();
    registerIpc(ipc, engine, trusted);
    expect(await ipc.invoke('manualdesk:search', APP, { query: 'x' })).toEqual({
      ok: false,
      error: { code: 'LIBRARY_LOCKED', message: 'Another ManualDesk has the library open.' },
    });
  });
});
