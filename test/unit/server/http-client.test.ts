import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type RunningServer } from '../../../native/server/http.js';
import { createHttpClient } from '../../../renderer/src/engine/http-client.js';
import { fakeEngine, type FakeEngine } from './fake-engine.js';
import { keyedFetch } from './keyed-fetch.js';

let server: RunningServer;
let engine: FakeEngine;

beforeAll(async () => {
  engine = fakeEngine({
    lookupCode: async (req) => ({
      ok: false,
      error: { code: 'LIBRARY_NOT_FOUND', message: `No library yet (asked for ${req.text}).` },
    }),
  });
  server = await startServer(engine);
});
afterAll(() => server.close());

describe('createHttpClient against the real server', () => {
  it('round-trips every remote method', async () => {
    const client = createHttpClient(server.url, keyedFetch(server));
    expect((await client.info()).ok).toBe(true);
    expect(await client.listManuals()).toEqual({ ok: true, value: [] });
    const search = await client.search({ query: 'spindle', filters: { lang: ['en'] } });
    expect(search.ok && search.value.hits[0]?.section).toBe('Spindle > Lubrication');
    const ingest = await client.ingest({ paths: ['/m'] });
    expect(ingest.ok && ingest.value.chunks).toBe(4);
    expect(await client.removeFiles(['x.md'])).toEqual({ ok: true, value: { removed: 1 } });
  });

  it('passes engine errors through as data', async () => {
    const res = await createHttpClient(`${server.url}/`, keyedFetch(server)).lookupCode({ text: 'E-101' });
    expect(res).toEqual({ ok: false, error: { code: 'LIBRARY_NOT_FOUND', message: 'No library yet (asked for E-101).' } });
  });

  it('passes validation errors through as INVALID_INPUT', async () => {
    const res = await createHttpClient(server.url, keyedFetch(server)).search({ query: 'x', k: 0 });
    expect(res.ok).toBe(false);
    expect(!res.ok && res.error.code).toBe('INVALID_INPUT');
    expect(!res.ok && res.error.message).toContain('"k"');
  });

  it('reports an unreachable engine as a Result, not a throw', async () => {
    const res = await createHttpClient('http://127.0.0.1:1').info();
    expect(res.ok).toBe(false);
    expect(!res.ok && res.error.message).toMatch(/Cannot reach the ManualDesk engine/);
  });

  it('reports a non-JSON reply clearly', async () => {
    const client = createHttpClient('http://x', async () => new Response('<html>proxy</html>', { status: 502 }));
    const res = await client.info();
    expect(!res.ok && res.error.message).toMatch(/HTTP 502/);
  });

  it('uses the injected fetch with a JSON POST', async () => {
    const seen: { url: string; init: RequestInit }[] = [];
    const client = createHttpClient('http://127.0.0.1:9/', async (url, init) => {
      seen.push({ url, init });
      return Response.json({ ok: true, value: { removed: 0 } });
    });
    await client.removeFiles(['a']);
    expect(seen[0]?.url).toBe('http://127.0.0.1:9/api/removeFiles');
    expect(seen[0]?.init.method).toBe('POST');
    expect(seen[0]?.init.body).toBe('["a"]');
  });

  it('close() leaves the server engine open', async () => {
    await createHttpClient(server.url, keyedFetch(server)).close();
    expect(engine.calls.some((c) => c.method === 'close')).toBe(false);
  });
});
