/**
 * Issue 37 item 3: browser mode answered any local user. Now every request (page, static files, API,
 * streams) must carry the server's key; the address `npm start` prints (…/?token=<key>) swaps the key
 * for an HttpOnly SameSite=Strict cookie and redirects to the page without it.
 */
import http from 'node:http';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type RunningServer } from '../../../native/server/http.js';
import { fakeEngine, type FakeEngine } from './fake-engine.js';

let server: RunningServer;
let engine: FakeEngine;
let tmp: string;

beforeAll(async () => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'md-auth-'));
  fs.mkdirSync(path.join(tmp, 'assets'));
  fs.writeFileSync(path.join(tmp, 'index.html'), '<!doctype html><title>ManualDesk</title>');
  fs.writeFileSync(path.join(tmp, 'assets', 'app.js'), 'console.log(1)');
  engine = fakeEngine();
  server = await startServer(engine, { port: 0, staticDir: tmp });
});

afterAll(async () => {
  await server.close();
  fs.rmSync(tmp, { recursive: true, force: true });
});

/** A raw request (no redirect following, no cookie jar), as another local program would send it. */
function request(
  reqPath: string,
  headers: Record<string, string> = {},
  method = 'GET',
  body = '',
): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: string }> {
  const { port } = new URL(server.url);
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, path: reqPath, method, headers: { Host: `127.0.0.1:${port}`, ...headers } }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

const JSON_TYPE = { 'Content-Type': 'application/json' };

describe('browser mode without its key', () => {
  it.each([
    ['the page', '/', 'GET', {}, ''],
    ['a static file', '/assets/app.js', 'GET', {}, ''],
    ['the method list', '/api/methods', 'GET', {}, ''],
    ['an API call', '/api/info', 'POST', JSON_TYPE, ''],
    ['a streamed ingest', '/api/ingest/stream', 'POST', JSON_TYPE, JSON.stringify({ paths: ['/root/secret'] })],
    ['removeFiles', '/api/removeFiles', 'POST', JSON_TYPE, JSON.stringify(['a.md'])],
  ] as const)('refuses %s with 401 and says to open the address npm start printed', async (_name, p, method, headers, body) => {
    const before = engine.calls.length;
    const res = await request(p, headers, method, body);
    expect(res.status).toBe(401);
    expect(res.body).toMatch(/npm start/);
    expect(res.body).not.toContain('ManualDesk</title>');
    expect(engine.calls.length).toBe(before);
  });

  it('refuses a wrong key, as a bearer header, as a cookie and in the address', async () => {
    const wrong = server.token.replace(/^./, (c) => (c === 'a' ? 'b' : 'a'));
    const cookie = `manualdesk_key_${new URL(server.url).port}=${wrong}`;
    expect((await request('/api/info', { ...JSON_TYPE, Authorization: `Bearer ${wrong}` }, 'POST')).status).toBe(401);
    expect((await request('/api/info', { ...JSON_TYPE, Cookie: cookie }, 'POST')).status).toBe(401);
    const viaUrl = await request(`/?token=${wrong}`);
    expect(viaUrl.status).toBe(401);
    expect(viaUrl.headers['set-cookie']).toBeUndefined();
  });

  it('gives every server its own random key of at least 128 bits', async () => {
    const other = await startServer(fakeEngine(), { port: 0 });
    try {
      expect(server.token).toMatch(/^[0-9a-f]{32,}$/);
      expect(other.token).not.toBe(server.token);
      expect(server.openUrl).toBe(`${server.url}/?token=${server.token}`);
    } finally {
      await other.close();
    }
  });

  it('refuses a short key given from outside', async () => {
    await expect(startServer(fakeEngine(), { port: 0, token: 'abc' })).rejects.toThrow(/128 bits/);
  });
});

describe('browser mode with its key', () => {
  it('swaps the printed address for an HttpOnly SameSite=Strict cookie and drops the key from the address', async () => {
    const res = await request(`/?token=${server.token}`);
    expect(res.status).toBe(303);
    expect(res.headers.location).toBe('/');
    const setCookie = res.headers['set-cookie']?.[0] ?? '';
    expect(setCookie).toMatch(/HttpOnly/);
    expect(setCookie).toMatch(/SameSite=Strict/);
    const cookie = setCookie.split(';')[0]!;

    const page = await request('/', { Cookie: cookie });
    expect(page.status).toBe(200);
    expect(page.body).toContain('ManualDesk');
    expect((await request('/assets/app.js', { Cookie: `other=1; ${cookie}` })).status).toBe(200);
    const info = await request('/api/info', { ...JSON_TYPE, Cookie: cookie }, 'POST');
    expect(info.status).toBe(200);
    const stream = await request('/api/ingest/stream', { ...JSON_TYPE, Cookie: cookie }, 'POST', JSON.stringify({ paths: ['/m'] }));
    expect(stream.status).toBe(200);
    expect(stream.body).toContain('"type":"result"');
  });

  it('accepts the key as a bearer header (scripts, tests)', async () => {
    const res = await request('/api/info', { ...JSON_TYPE, Authorization: `Bearer ${server.token}` }, 'POST');
    expect(res.status).toBe(200);
  });

  it('uses a key given from outside (MANUALDESK_TOKEN in npm start)', async () => {
    const token = 'k'.repeat(40);
    const other = await startServer(fakeEngine(), { port: 0, token });
    try {
      expect(other.token).toBe(token);
      const res = await fetch(`${other.url}/api/methods`, { headers: { Authorization: `Bearer ${token}` } });
      expect(res.status).toBe(200);
    } finally {
      await other.close();
    }
  });
});

describe('paths the API reads or creates', () => {
  it.each([
    ['openLibrary', { dir: 'library', create: true }],
    ['openLibrary', { dir: '../elsewhere/library', create: true }],
    ['ingest', { paths: ['manuals'] }],
    ['importPack', { file: 'update.mdpack', allowUnsigned: true }],
  ] as const)('refuses a relative path for %s (it would land in the server\'s working folder) before the engine', async (method, arg) => {
    const before = engine.calls.length;
    const res = await request(`/api/${method}`, { ...JSON_TYPE, Authorization: `Bearer ${server.token}` }, 'POST', JSON.stringify(arg));
    expect(res.status).toBe(400);
    expect(res.body).toMatch(/full path/);
    expect(engine.calls.length).toBe(before);
  });
});

describe('the redirect after the key', () => {
  it('stays on this server even for a path that starts with two slashes', async () => {
    const res = await request(`/.//evil.example/?token=${server.token}`);
    expect(res.status).toBe(303);
    expect(res.headers.location).toBe('/evil.example/');
  });
});
