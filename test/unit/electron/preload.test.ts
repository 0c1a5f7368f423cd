import { describe, expect, it, vi } from 'vitest';
import { REMOTE_METHODS } from '../../../native/server/methods.js';

const exposed = new Map<string, Record<string, (...args: unknown[]) => Promise<unknown>>>();
const invoke = vi.fn(async (channel: string, ...args: unknown[]) => ({ channel, args }));

vi.mock('electron', () => ({
  contextBridge: {
    exposeInMainWorld: (key: string, api: Record<string, (...args: unknown[]) => Promise<unknown>>) => exposed.set(key, api),
  },
  ipcRenderer: { invoke: (channel: string, ...args: unknown[]) => invoke(channel, ...args) },
}));

await import('../../../electron/preload/index.js');

describe('preload', () => {
  it('exposes one object, window.manualdesk, with exactly the contract methods', () => {
    expect([...exposed.keys()]).toEqual(['manualdesk']);
    const api = exposed.get('manualdesk')!;
    expect(Object.keys(api).sort()).toEqual([...REMOTE_METHODS, 'close'].sort());
    for (const fn of Object.values(api)) expect(typeof fn).toBe('function');
  });

  it('sends each method on its own channel with its single argument', async () => {
    const api = exposed.get('manualdesk')!;
    expect(await api.search!({ query: 'E-101' })).toEqual({ channel: 'manualdesk:search', args: [{ query: 'E-101' }] });
    expect(await api.info!()).toEqual({ channel: 'manualdesk:info', args: [] });
    // Hooks cannot cross the bridge and are not forwarded.
    expect(await api.ingest!({ paths: ['/m'] }, { onProgress: () => {} })).toEqual({
      channel: 'manualdesk:ingest',
      args: [{ paths: ['/m'] }],
    });
  });

  it('close does not reach the main process', async () => {
    invoke.mockClear();
    await exposed.get('manualdesk')!.close!();
    expect(invoke).not.toHaveBeenCalled();
  });
});
