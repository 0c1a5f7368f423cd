import { describe, expect, it, vi } from 'vitest';
import { CANCEL_CHANNEL, EVENT_CHANNEL } from '../../../electron/channels.js';

type Fn = (...args: unknown[]) => unknown;
const exposed = new Map<string, Record<string, Fn>>();
const listeners = new Map<string, Fn>();
const invoke = vi.fn(async (channel: string, ...args: unknown[]) => ({ channel, args }));

vi.mock('electron', () => ({
  contextBridge: {
    exposeInMainWorld: (key: string, api: Record<string, Fn>) => exposed.set(key, api),
  },
  ipcRenderer: {
    invoke: (channel: string, ...args: unknown[]) => invoke(channel, ...args),
    on: (channel: string, fn: Fn) => listeners.set(channel, fn),
  },
}));

await import('../../../electron/preload/index.js');
const api = () => exposed.get('manualdesk')!;

describe('preload', () => {
  it('exposes one object, window.manualdesk, with a function per method and nothing generic', () => {
    expect([...exposed.keys()]).toEqual(['manualdesk']);
    const keys = Object.keys(api());
    expect(keys).toEqual(expect.arrayContaining(['info', 'search', 'lookupCode', 'listManuals', 'ingest', 'removeFiles', 'openSource']));
    for (const k of keys) expect(k).not.toMatch(/invoke|send|on$|ipc|close/i);
    for (const fn of Object.values(api())) expect(typeof fn).toBe('function');
    // Only the event channel is listened to.
    expect([...listeners.keys()]).toEqual([EVENT_CHANNEL]);
  });

  it('sends each method on its own channel with its single argument', async () => {
    expect(await api().search!({ query: 'E-101' })).toEqual({ channel: 'manualdesk:search', args: [{ query: 'E-101' }] });
    expect(await api().info!()).toEqual({ channel: 'manualdesk:info', args: [] });
    expect(await api().openSource!({ file: 'a.md' })).toEqual({ channel: 'manualdesk:openSource', args: [{ file: 'a.md' }] });
    // Contract hooks (functions on other keys) are not forwarded.
    expect(await api().ingest!({ paths: ['/m'] }, { onProgress: () => {} })).toEqual({ channel: 'manualdesk:ingest', args: [{ paths: ['/m'] }] });
  });

  it('streams: events for its operation reach onEvent, cancel sends the cancel channel', async () => {
    const events: unknown[] = [];
    let cancel: (() => void) | undefined;
    let resolveCall!: (v: unknown) => void;
    invoke.mockImplementationOnce((channel: string, ...args: unknown[]) => new Promise((r) => (resolveCall = () => r({ channel, args }))));
    const pending = api().ingest!({ paths: ['/m'] }, { onEvent: (e: unknown) => events.push(e), onCancelable: (c: () => void) => (cancel = c) }) as Promise<{
      args: unknown[];
    }>;
    const op = (invoke.mock.lastCall![2] as { op: string }).op;
    expect(op).toMatch(/^op\d+$/);
    const onEvent = listeners.get(EVENT_CHANNEL)!;
    onEvent({}, op, { type: 'ingest-progress', progress: { phase: 'scan', done: 0, total: 1 } });
    onEvent({}, 'someone-else', { type: 'ingest-progress', progress: { phase: 'parse', done: 0, total: 1 } });
    expect(events).toEqual([{ type: 'ingest-progress', progress: { phase: 'scan', done: 0, total: 1 } }]);
    cancel!();
    expect(invoke).toHaveBeenLastCalledWith(CANCEL_CHANNEL, op);
    resolveCall(undefined);
    expect((await pending).args).toEqual([{ paths: ['/m'] }, { op }]);
    // After the call ends its listener is gone.
    onEvent({}, op, { type: 'ingest-progress', progress: { phase: 'done', done: 1, total: 1 } });
    expect(events).toHaveLength(1);
  });
});
