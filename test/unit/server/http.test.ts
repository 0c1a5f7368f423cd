import http from 'node:http';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, MAX_BODY_BYTES, type RunningServer } from '../../../native/server/http.js';
import { CONTENT_SECURITY_POLICY } from '../../../native/server/csp.js';
import { fakeEngine, type FakeEngine } from './fake-engine.js';
import { keyedFetch } from './keyed-fetch.js';

let server: RunningServer;
let engine: FakeEngine;
let tmp: string;
let staticDir: string;

beforeAll(async () => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'md-server-'));
  staticDir = path.join(tmp, 'renderer');
  fs.mkdirSync(path.join(staticDir, 'assets'), { recursive: true });
  fs.writeFileSync(path.join(staticDir, 'index.html'), '<!doctype html><title>ManualDesk</title>');
  fs.writeFileSync(path.join(staticDir, 'assets', 'app.js'), 'console.log(1)');
  fs.writeFileSync(path.join(tmp, 'secret.txt'), 'TOP SECRET');
  fs.symlinkSync(path.join(tmp, 'secret.txt'), path.join(staticDir, 'link.txt'));
  engine = fakeEngine();
  server = await startServer(engine, { port: 0, staticDir });
});

afterAll(async () => {
  await server.close();
  fs.rmSync(tmp, { recursive: true, force: true });
});

function post(method: string, body: unknown, headers: Record<string, string> = {}): Promise<Response> {
  return keyedFetch(server)(`${server.url}/api/${method}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

/** Raw request, for headers fetch will not let us set (Host) and paths it would normalise. */
function raw(
  reqPath: string,
  headers: Record<string, string> = {},
  method = 'GET',
): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: string }> {
  const { port } = new URL(server.url);
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, path: reqPath, method, headers: { Authorization: `Bearer ${server.token}`, ...headers } }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('API routes', () => {
  it('listens on 127.0.0.1 with the port it was given', () => {
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
  });

  it('calls search with the validated request and returns the Result', async () => {
    const res = await post('search', { query: 'spindle oil', k: 5 });
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(body.ok).toBe(true);
    expect(body.value.hits[0].manual).toBe('Acme VMC-500');
    expect(engine.calls.at(-1)).toEqual({ method: 'search', arg: { query: 'spindle oil', k: 5 } });
  });

  it('calls methods without an argument with an empty body', async () => {
    const res = await post('info', '');
    expect(res.status).toBe(200);
    expect((await res.json()).value.files).toBe(2);
  });

  it('passes removeFiles its array and ingest its paths', async () => {
    expect((await (await post('removeFiles', ['a.md', 'b.pdf'])).json()).value.removed).toBe(2);
    const res = await post('ingest', { paths: ['/manuals'], force: true });
    expect(res.status).toBe(200);
    expect(engine.calls.at(-1)).toEqual({ method: 'ingest', arg: { paths: ['/manuals'], force: true } });
  });

  it('answers an unknown method with 404 INVALID_INPUT', async () => {
    const res = await post('dropDatabase', {});
    expect(res.status).toBe(404);
    const body = await res.json();
    expect(body).toMatchObject({ ok: false, error: { code: 'INVALID_INPUT' } });
    expect(body.error.message).toContain('dropDatabase');
  });

  it('does not expose close', async () => {
    const res = await post('close', '');
    expect(res.status).toBe(404);
    expect(engine.calls.some((c) => c.method === 'close')).toBe(false);
  });

  it('refuses GET on the API', async () => {
    const res = await keyedFetch(server)(`${server.url}/api/info`);
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('POST');
  });
});

describe('validation', () => {
  it('rejects malformed JSON with 400 INVALID_INPUT', async () => {
    const res = await post('search', '{"query": ');
    expect(res.status).toBe(400);
    const body = await res.json();
    expect(body.error.code).toBe('INVALID_INPUT');
    expect(body.error.message).toMatch(/not valid JSON/);
  });

  it('names the field that failed the schema', async () => {
    const before = engine.calls.length;
    const res = await post('search', { query: 'oil', k: 'ten' });
    expect(res.status).toBe(400);
    const body = await res.json();
    expect(body.error.code).toBe('INVALID_INPUT');
    expect(body.error.message).toContain('"k"');
    expect(engine.calls.length).toBe(before);
  });

  it('names nested and missing fields', async () => {
    const nested = await (await post('search', { query: 'x', filters: { lang: ['fr'] } })).json();
    expect(nested.error.message).toContain('"filters.lang.0"');
    const missing = await (await post('lookupCode', {})).json();
    expect(missing.error.message).toContain('"text"');
  });

  it('rejects unknown fields instead of ignoring them', async () => {
    const res = await post('search', { query: 'x', kk: 3 });
    expect(res.status).toBe(400);
    expect((await res.json()).error.message).toContain('"kk"');
  });

  it('rejects an empty query and an empty path list', async () => {
    expect((await post('search', { query: '   ' })).status).toBe(400);
    expect((await post('ingest', { paths: [] })).status).toBe(400);
    // …unless only the vectors are to be completed (the Library screen's "Turn on search by meaning").
    expect((await post('ingest', { paths: [], completeVectors: true })).status).toBe(200);
    expect((await post('info', { unexpected: 1 })).status).toBe(400);
  });

  it('requires a JSON content type', async () => {
    const res = await keyedFetch(server)(`${server.url}/api/search`, {
      method: 'POST',
      headers: { 'Content-Type': 'text/plain' },
      body: JSON.stringify({ query: 'x' }),
    });
    expect(res.status).toBe(415);
  });

  it('refuses bodies over 1 MB with 413', async () => {
    const big = JSON.stringify({ query: 'x'.repeat(MAX_BODY_BYTES + 10) });
    const res = await post('search', big);
    expect(res.status).toBe(413);
    expect((await res.json()).error.code).toBe('INVALID_INPUT');
  });

  it('turns an engine that throws into a 500 INTERNAL Result', async () => {
    const throwing = await startServer(
      fakeEngine({
        info: async () => {
          throw new Error('disk on fire');
        },
      }),
    );
    try {
      const res = await keyedFetch(throwing)(`${throwing.url}/api/info`, { method: 'POST', headers: { 'Content-Type': 'application/json' } });
      expect(res.status).toBe(500);
      const body = await res.json();
      expect(body).toMatchObject({ ok: false, error: { code: 'INTERNAL' } });
      expect(body.error.message).toContain('disk on fire');
    } finally {
      await throwing.close();
    }
  });
});

describe('origin and host guards', () => {
  it('refuses a foreign Origin', async () => {
    const res = await post('search', { query: 'x' }, { Origin: 'http://evil.example' });
    expect(res.status).toBe(403);
  });

  it('accepts its own Origin', async () => {
    const res = await post('search', { query: 'x' }, { Origin: server.url });
    expect(res.status).toBe(200);
  });

  it('refuses a loopback Origin on another port', async () => {
    const res = await post('search', { query: 'x' }, { Origin: 'http://127.0.0.1:1' });
    expect(res.status).toBe(403);
  });

  it('refuses cross-site fetch metadata', async () => {
    const res = await post('search', { query: 'x' }, { 'Sec-Fetch-Site': 'cross-site' });
    expect(res.status).toBe(403);
  });

  it('refuses a non-loopback Host header (DNS rebinding)', async () => {
    const { port } = new URL(server.url);
    const res = await raw('/', { Host: `attacker.example:${port}` });
    expect(res.status).toBe(403);
    const api = await raw('/api/info', { Host: 'attacker.example', 'Content-Type': 'application/json' }, 'POST');
    expect(api.status).toBe(403);
  });

  it('accepts localhost as Host', async () => {
    const { port } = new URL(server.url);
    expect((await raw('/', { Host: `localhost:${port}` })).status).toBe(200);
  });

  it('refuses to bind to a non-loopback address', async () => {
    await expect(startServer(fakeEngine(), { host: '0.0.0.0' as '127.0.0.1' })).rejects.toThrow(/127\.0\.0\.1/);
  });
});

describe('static files', () => {
  it('serves index.html with the strict CSP', async () => {
    const res = await keyedFetch(server)(`${server.url}/`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/html');
    expect(res.headers.get('content-security-policy')).toBe(CONTENT_SECURITY_POLICY);
    expect(CONTENT_SECURITY_POLICY).toContain("script-src 'self'");
    expect(CONTENT_SECURITY_POLICY).toContain("frame-ancestors 'none'");
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(await res.text()).toContain('ManualDesk');
  });

  it('serves assets with their content type', async () => {
    const res = await keyedFetch(server)(`${server.url}/assets/app.js`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/javascript');
    expect(res.headers.get('content-security-policy')).toBe(CONTENT_SECURITY_POLICY);
  });

  it('answers 404 for a missing file', async () => {
    expect((await keyedFetch(server)(`${server.url}/nope.js`)).status).toBe(404);
  });

  it.each(['/../secret.txt', '/assets/../../secret.txt', '/..%2fsecret.txt', '/%2e%2e/secret.txt', '/assets/..%5c..%5csecret.txt'])(
    'refuses traversal %s',
    async (p) => {
      const res = await raw(p);
      expect(res.status).not.toBe(200);
      expect(res.body).not.toContain('TOP SECRET');
    },
  );

  it('does not follow a symlink out of the folder', async () => {
    const res = await raw('/link.txt');
    expect(res.status).toBe(403);
    expect(res.body).not.toContain('TOP SECRET');
  });

  it('refuses writes to static paths', async () => {
    expect((await raw('/index.html', {}, 'PUT')).status).toBe(405);
  });
});
