/** Streaming over HTTP (browser mode): NDJSON events then the result, cancel by closing, method list. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REMOTE_METHODS, type EngineHooks, type IngestProgress, type StreamMessage } from '../../../native/contract/index.js';
import { startServer, type RunningServer } from '../../../native/server/http.js';
import { createHttpClient } from '../../../renderer/src/engine/http-client.js';
import { fakeEngine, type FakeEngine } from './fake-engine.js';
import { keyedFetch } from './keyed-fetch.js';

let server: RunningServer;
let engine: FakeEngine;
/** ingest waits here until the test releases it (or the call is aborted). */
let gate: { release: () => void; started: Promise<void>; aborted: boolean } | null = null;

beforeAll(async () => {
  engine = fakeEngine({
    ingest: async (req, hooks?: EngineHooks) => {
      engine.calls.push({ method: 'ingest', arg: req });
      for (let i = 0; i < 3; i++) hooks?.onProgress?.({ phase: 'parse', file: `f${i}.md`, done: i, total: 3 });
      if (gate) {
        const g = gate;
        await new Promise<void>((resolve) => {
          g.release = resolve;
          hooks?.signal?.addEventListener('abort', () => {
            g.aborted = true;
            resolve();
          });
        });
        if (hooks?.signal?.aborted) return { ok: false, error: { code: 'CANCELLED', message: 'The operation was cancelled.' } };
      }
      return { ok: true, value: { files: 3, chunks: 9, unchanged: 0, removed: 0, skipped: [], pagesNeedingOcr: [], seconds: 0.1 } };
    },
  });
  server = await startServer(engine);
});
afterAll(() => server.close());

async function ndjson(res: Response): Promise<StreamMessage[]> {
  return (await res.text())
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as StreamMessage);
}

describe('POST /api/<method>/stream', () => {
  it('streams progress events, then one result line', async () => {
    const res = await keyedFetch(server)(`${server.url}/api/ingest/stream`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ paths: ['/m'] }),
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/x-ndjson/);
    expect(res.headers.get('content-security-policy')).toContain("default-src 'self'");
    const lines = await ndjson(res);
    expect(lines.slice(0, 3).map((l) => l.type)).toEqual(['ingest-progress', 'ingest-progress', 'ingest-progress']);
    expect(lines[0]).toEqual({ type: 'ingest-progress', progress: { phase: 'parse', file: 'f0.md', done: 0, total: 3 } });
    expect(lines.at(-1)).toMatchObject({ type: 'result', result: { ok: true, value: { chunks: 9 } } });
  });

  it('validates exactly like the plain endpoint (the error is the result line)', async () => {
    const res = await keyedFetch(server)(`${server.url}/api/ingest/stream`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ paths: [] }),
    });
    const lines = await ndjson(res);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ type: 'result', result: { ok: false, error: { code: 'INVALID_INPUT' } } });
  });

  it('keeps the guards: unknown method 404, foreign Origin 403, JSON only', async () => {
    const unknown = await keyedFetch(server)(`${server.url}/api/close/stream`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '' });
    expect(unknown.status).toBe(404);
    const foreign = await keyedFetch(server)(`${server.url}/api/ingest/stream`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Origin: 'https://evil.example' },
      body: JSON.stringify({ paths: ['/m'] }),
    });
    expect(foreign.status).toBe(403);
    const form = await keyedFetch(server)(`${server.url}/api/ingest/stream`, { method: 'POST', headers: { 'Content-Type': 'text/plain' }, body: '{}' });
    expect(form.status).toBe(415);
  });

  it('cancels the engine call when the client goes away', async () => {
    let started!: () => void;
    gate = { release: () => {}, started: new Promise<void>((r) => (started = r)), aborted: false };
    const g = gate;
    const ac = new AbortController();
    const progress: IngestProgress[] = [];
    const client = createHttpClient(server.url, keyedFetch(server));
    const pending = client.ingest({ paths: ['/slow'] }, { signal: ac.signal, onProgress: (p) => {
      progress.push(p);
      if (progress.length === 3) started();
    } });
    await g.started;
    ac.abort();
    const res = await pending;
    expect(res).toMatchObject({ ok: false, error: { code: 'CANCELLED' } });
    await expect.poll(() => g.aborted).toBe(true);
    expect(progress.map((p) => p.file)).toEqual(['f0.md', 'f1.md', 'f2.md']);
    gate = null;
  });
});

describe('GET /api/methods', () => {
  it("lists the contract's methods, from the method table", async () => {
    const res = await keyedFetch(server)(`${server.url}/api/methods`);
    expect(res.status).toBe(200);
    const body = (await res.json()) as { ok: true; value: string[] };
    expect(body.value).toEqual(REMOTE_METHODS);
    expect(body.value).not.toContain('close');
  });
});
