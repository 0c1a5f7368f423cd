import { describe, expect, it } from 'vitest';
import type { EngineHooks } from '../../../native/contract/index.js';
import { registerIpc, type InvokeEventLike, type IpcMainLike } from '../../../electron/main/ipc.js';
import { unavailableEngine } from '../../../electron/main/unavailable-engine.js';
import { CANCEL_CHANNEL, EVENT_CHANNEL } from '../../../electron/channels.js';
import { REMOTE_METHODS } from '../../../native/contract/index.js';
import { localCaller } from '../../../native/worker/streaming.js';
import { fakeEngine } from '../server/fake-engine.js';

type Listener = (event: InvokeEventLike, ...args: unknown[]) => Promise<unknown>;

/** Behaves like ipcMain for invoke: one handler per channel, unknown channels fail. */
class FakeIpcMain implements IpcMainLike {
  handlers = new Map<string, Listener>();
  sent: { channel: string; args: unknown[] }[] = [];
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
    const sender = { id: 7, send: (c: string, ...a: unknown[]) => this.sent.push({ channel: c, args: a }) };
    return handler({ senderFrame: frameUrl === null ? null : { url: frameUrl }, sender }, ...args);
  }
}

const APP = 'file:///app/out/renderer/index.html';
const trusted = (url: string) => url === APP;

function setup(engine = fakeEngine()) {
  const ipc = new FakeIpcMain();
  const dispose = registerIpc(ipc, localCaller(engine), trusted);
  return { ipc, engine, dispose };
}

describe('registerIpc', () => {
  it('registers exactly one channel per remote method plus cancel, and not close', () => {
    const { ipc } = setup();
    expect([...ipc.handlers.keys()].sort()).toEqual([...REMOTE_METHODS.map((m) => `manualdesk:${m}`), CANCEL_CHANNEL].sort());
    expect(ipc.handlers.has('manualdesk:close')).toBe(false);
    expect(ipc.handlers.has('manualdesk:openSource')).toBe(true);
  });

  it('leaves unknown channels unhandled', async () => {
    const { ipc } = setup();
    await expect(ipc.invoke('manualdesk:close', APP)).rejects.toThrow(/No handler/);
    await expect(ipc.invoke('manualdesk:eval', APP, 'process.exit()')).rejects.toThrow(/No handler/);
    await expect(ipc.invoke(EVENT_CHANNEL, APP, 'op1')).rejects.toThrow(/No handler/);
  });

  it('calls the engine with validated input from the app page', async () => {
    const { ipc, engine } = setup();
    const res = await ipc.invoke('manualdesk:search', APP, { query: 'spindle', k: 3 });
    expect(res).toMatchObject({ ok: true, value: { query: 'spindle' } });
    expect(engine.calls).toEqual([{ method: 'search', arg: { query: 'spindle', k: 3 } }]);
    expect(await ipc.invoke('manualdesk:info', APP)).toMatchObject({ ok: true, value: { files: 2 } });
    expect(await ipc.invoke('manualdesk:openSource', APP, { file: 'vmc.md' })).toMatchObject({ ok: true, value: { kind: 'blocks', file: 'vmc.md' } });
  });

  it('refuses calls from foreign or missing frames without touching the engine', async () => {
    const { ipc, engine } = setup();
    for (const frame of ['https://evil.example/', 'file:///tmp/evil.html', null]) {
      const res = await ipc.invoke('manualdesk:removeFiles', frame, ['manual.pdf']);
      expect(res).toMatchObject({ ok: false, error: { code: 'INVALID_INPUT' } });
      expect(await ipc.invoke('manualdesk:ingest', frame, { paths: ['/m'] }, { op: 'op1' })).toMatchObject({ ok: false });
      expect(await ipc.invoke(CANCEL_CHANNEL, frame, 'op1')).toMatchObject({ ok: false, error: { code: 'INVALID_INPUT' } });
    }
    expect(engine.calls).toEqual([]);
    expect(ipc.sent).toEqual([]);
  });

  it('rejects bad input as INVALID_INPUT data naming the field', async () => {
    const { ipc, engine } = setup();
    const bad = (await ipc.invoke('manualdesk:search', APP, { query: 42 })) as { ok: boolean; error: { message: string } };
    expect(bad.ok).toBe(false);
    expect(bad.error.message).toContain('"query"');
    const hooksObject = await ipc.invoke('manualdesk:ingest', APP, { paths: ['/m'] }, { onProgress: 'x' });
    expect(hooksObject).toMatchObject({ ok: false, error: { code: 'INVALID_INPUT' } });
    const badOp = await ipc.invoke('manualdesk:ingest', APP, { paths: ['/m'] }, { op: '../../etc' });
    expect(badOp).toMatchObject({ ok: false, error: { code: 'INVALID_INPUT' } });
    const tooMany = await ipc.invoke('manualdesk:ingest', APP, { paths: ['/m'] }, { op: 'a' }, 'extra');
    expect(tooMany).toMatchObject({ ok: false, error: { code: 'INVALID_INPUT' } });
    const wrongShape = await ipc.invoke('manualdesk:removeFiles', APP, 'manual.pdf');
    expect(wrongShape).toMatchObject({ ok: false, error: { code: 'INVALID_INPUT' } });
    const sourcePath = await ipc.invoke('manualdesk:openSource', APP, { file: 'a.md', path: '/etc/passwd' });
    expect(sourcePath).toMatchObject({ ok: false, error: { code: 'INVALID_INPUT' } });
    expect(await ipc.invoke(CANCEL_CHANNEL, APP, { op: 'x' })).toMatchObject({ ok: false, error: { code: 'INVALID_INPUT' } });
    expect(engine.calls).toEqual([]);
  });

  it('streams progress events to the calling page, tagged with its operation id', async () => {
    const { ipc } = setup();
    const res = await ipc.invoke('manualdesk:ingest', APP, { paths: ['/m'] }, { op: 'op-1' });
    expect(res).toMatchObject({ ok: true, value: { chunks: 4 } });
    expect(ipc.sent).toEqual([
      { channel: EVENT_CHANNEL, args: ['op-1', { type: 'ingest-progress', progress: { phase: 'scan', done: 0, total: 1 } }] },
      { channel: EVENT_CHANNEL, args: ['op-1', { type: 'ingest-progress', progress: { phase: 'parse', file: 'vmc.md', done: 0, total: 1 } }] },
    ]);
  });

  it('cancels a running call by its operation id', async () => {
    let release!: () => void;
    let seen: EngineHooks | undefined;
    const started = new Promise<void>((r) => (release = r));
    const { ipc } = setup(
      fakeEngine({
        ingest: async (_req, hooks) => {
          seen = hooks;
          release();
          await new Promise((resolve) => hooks?.signal?.addEventListener('abort', resolve));
          return { ok: false, error: { code: 'CANCELLED', message: 'The operation was cancelled.' } };
        },
      }),
    );
    const pending = ipc.invoke('manualdesk:ingest', APP, { paths: ['/m'] }, { op: 'op9' });
    await started;
    expect(await ipc.invoke(CANCEL_CHANNEL, APP, 'op9')).toEqual({ ok: true, value: { cancelled: true } });
    expect(await pending).toMatchObject({ ok: false, error: { code: 'CANCELLED' } });
    expect(seen?.signal?.aborted).toBe(true);
    expect(await ipc.invoke(CANCEL_CHANNEL, APP, 'op9')).toEqual({ ok: true, value: { cancelled: false } });
  });

  it('returns a thrown engine error as INTERNAL data', async () => {
    const { ipc } = setup(
      fakeEngine({
        listManuals: async () => {
          throw new Error('boom');
        },
      }),
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
    const ipc = new FakeIpcMain();
    registerIpc(ipc, localCaller(unavailableEngine({ code: 'LIBRARY_LOCKED', message: 'Another ManualDesk has the library open.' })), trusted);
    const expected = { ok: false, error: { code: 'LIBRARY_LOCKED', message: 'Another ManualDesk has the library open.' } };
    expect(await ipc.invoke('manualdesk:search', APP, { query: 'x' })).toEqual(expected);
    expect(await ipc.invoke('manualdesk:openSource', APP, { file: 'x.md' })).toEqual(expected);
  });
});
