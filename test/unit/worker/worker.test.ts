/**
 * The engine host protocol: in memory (client ↔ host with a fake engine), and for real in a Node child
 * process running native/worker/entry.ts on a temp library built from the sample manuals.
 */
import { fork, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { EngineEvent, IngestProgress } from '../../../native/contract/index.js';
import { connectWorker } from '../../../native/worker/client.js';
import { serveEngine } from '../../../native/worker/host.js';
import type { FromHost, ToHost } from '../../../native/worker/protocol.js';
import { callEngine } from '../../../native/server/dispatch.js';
import { localCaller } from '../../../native/worker/streaming.js';
import { fakeEngine } from '../server/fake-engine.js';

const ROOT = path.resolve(import.meta.dirname, '../../..');

/** A connected client/host pair over structured-clone "messages". */
function pair(engine = fakeEngine()) {
  let toHost: (m: unknown) => void = () => {};
  let toClient: (m: unknown) => void = () => {};
  const closed: string[] = [];
  serveEngine(localCaller(engine), { post: (m: FromHost) => queueMicrotask(() => toClient(structuredClone(m))), onMessage: (fn) => (toHost = fn) }, {
    close: async () => void closed.push('engine'),
  });
  const client = connectWorker({ post: (m: ToHost) => queueMicrotask(() => toHost(structuredClone(m))), onMessage: (fn) => (toClient = fn) });
  return { client, engine, closed };
}

describe('callEngine with transport hooks', () => {
  it('gives a streaming method the hook the method table names, as events, and the signal', async () => {
    const events: EngineEvent[] = [];
    const ac = new AbortController();
    let seenSignal: AbortSignal | undefined;
    const engine = fakeEngine({
      ingest: async (_req, hooks) => {
        seenSignal = hooks?.signal;
        hooks?.onProgress?.({ phase: 'done', done: 1, total: 1 });
        return { ok: true, value: { files: 0, chunks: 0, unchanged: 0, removed: 0, skipped: [], pagesNeedingOcr: [], seconds: 0 } };
      },
    });
    await callEngine(engine, 'ingest', { paths: ['/x'] }, { signal: ac.signal, onEvent: (e) => events.push(e) });
    expect(events).toEqual([{ type: 'ingest-progress', progress: { phase: 'done', done: 1, total: 1 } }]);
    expect(seenSignal).toBe(ac.signal);
  });

  it('calls a method the table lists as a call with its argument only, even when the transport streams', async () => {
    const seen: unknown[][] = [];
    const engine = fakeEngine({ search: async (...args) => (seen.push(args), { ok: true, value: { query: 'x', hits: [], ms: 0, mode: 'keyword' } }) });
    const info = fakeEngine({ info: async (...args: unknown[]) => (seen.push(args), { ok: false, error: { code: 'INTERNAL', message: 'x' } }) });
    await callEngine(engine, 'search', { query: 'x' }, { signal: new AbortController().signal, onEvent: () => {} });
    await callEngine(info, 'info', undefined, { onEvent: () => {} });
    expect(seen).toEqual([[{ query: 'x' }], []]);
  });
});

describe('worker protocol in memory', () => {
  it('answers calls with the engine Result and streams events', async () => {
    const { client } = pair();
    const events: EngineEvent[] = [];
    const res = await client.call('ingest', { paths: ['/m'] }, { onEvent: (e) => events.push(e) });
    expect(res).toMatchObject({ ok: true, value: { chunks: 4 } });
    expect(events.map((e) => e.type)).toEqual(['ingest-progress', 'ingest-progress']);
    expect(await client.call('search', { query: '' })).toMatchObject({ ok: false, error: { code: 'INVALID_INPUT' } });
  });

  it('refuses an unknown method', async () => {
    const { client } = pair();
    for (const name of ['eval', 'close', '__proto__', 'constructor', 'toString', 'hasOwnProperty']) {
      expect(await client.call(name as never, 'x'), name).toMatchObject({ ok: false, error: { code: 'INVALID_INPUT', message: `Unknown method "${name}".` } });
    }
  });

  it('fails pending and later calls with a clear message when the host dies', async () => {
    let toClient: (m: unknown) => void = () => {};
    const client = connectWorker({ post: () => {}, onMessage: (fn) => (toClient = fn) });
    void toClient;
    const pending = client.call('info', undefined);
    client.hostExited('The ManualDesk engine stopped (exit code 3). Close ManualDesk and open it again.');
    expect(await pending).toMatchObject({ ok: false, error: { code: 'INTERNAL', message: expect.stringContaining('open it again') } });
    expect(await client.call('search', { query: 'x' })).toMatchObject({ ok: false, error: { code: 'INTERNAL' } });
  });

  it('closes the engine on close and refuses calls after', async () => {
    const { client, closed } = pair();
    await client.close(2000);
    expect(closed).toEqual(['engine']);
    expect(await client.call('info', undefined)).toMatchObject({ ok: false, error: { code: 'CANCELLED' } });
  });
});

describe('worker entry in a child process (real engine)', () => {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'md-worker-'));
  let child: ChildProcess | null = null;
  afterAll(() => {
    child?.kill();
    fs.rmSync(tmp, { recursive: true, force: true });
  });

  it('ingests with progress, cancels, searches, and closes', async () => {
    child = fork(path.join(ROOT, 'native/worker/entry.ts'), [], {
      execArgv: ['--import', 'tsx'],
      env: { ...process.env, MANUALDESK_LIBRARY: path.join(tmp, 'lib'), MANUALDESK_CREATE: '1' },
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    const proc = child;
    const client = connectWorker({ post: (m) => proc.send(m), onMessage: (fn) => proc.on('message', fn) });
    const exited = new Promise<number | null>((r) => proc.on('exit', (code) => r(code)));
    const ready = await client.ready;
    expect(ready.error).toBeUndefined();

    // Cancel at the first file: the engine stops and says so.
    const ac = new AbortController();
    const cancelled = await client.call('ingest', { paths: [path.join(ROOT, 'samples/library')] }, {
      signal: ac.signal,
      onEvent: (e) => {
        if (e.type === 'ingest-progress' && e.progress.phase === 'parse') ac.abort();
      },
    });
    expect(cancelled).toMatchObject({ ok: false, error: { code: 'CANCELLED' } });

    const progress: IngestProgress[] = [];
    const res = await client.call('ingest', { paths: [path.join(ROOT, 'samples/library')] }, {
      onEvent: (e) => e.type === 'ingest-progress' && progress.push(e.progress),
    });
    expect(res).toMatchObject({ ok: true });
    expect(progress[0]?.phase).toBe('scan');
    expect(progress.at(-1)?.phase).toBe('done');
    expect(progress.some((p) => p.phase === 'parse' && p.file === 'acme-ch-20-chiller.pdf')).toBe(true);

    const codes = await client.call('lookupCode', { text: 'E-107' });
    expect(codes).toMatchObject({ ok: true, value: { matches: [expect.objectContaining({ code: 'E-107' })] } });
    const pdf = await client.call('openSource', { file: 'acme-ch-20-chiller.pdf' });
    expect(pdf).toMatchObject({ ok: true, value: { kind: 'pdf', changed: false } });
    expect(Buffer.from((pdf as { value: { base64: string } }).value.base64, 'base64').subarray(0, 5).toString()).toBe('%PDF-');
    // A path out of the library is refused by the request schema, before the engine.
    const outside = await client.call('openSource', { file: '../../etc/passwd' });
    expect(outside).toMatchObject({ ok: false, error: { code: 'INVALID_INPUT' } });
    const unknown = await client.call('openSource', { file: 'not-in-library.pdf' });
    expect(unknown).toMatchObject({ ok: false, error: { code: 'NOT_FOUND' } });

    await client.close();
    expect(await exited).toBe(0);
    child = null;
  }, 60_000);
});
