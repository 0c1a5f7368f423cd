/**
 * Browser mode: the same EngineApi over HTTP, on loopback only, plus the built UI as static files.
 *
 *   POST /api/<method>   body: the method's single argument as JSON (nothing for info/listManuals)
 *                        reply: the Result JSON. 400 for INVALID_INPUT (bad JSON, schema failure, or the
 *                        engine refusing the input), 404 unknown method, 413 body over 1 MB, 200 for every
 *                        other Result (errors are data), 500 for INTERNAL (the engine threw or failed).
 *   POST /api/<method>/stream
 *                        the same call, answered as NDJSON (application/x-ndjson): one StreamMessage per
 *                        line, events (ingest progress, pack progress, answer tokens) then one
 *                        {"type":"result"} line. Closing the connection cancels the call.
 *   GET  /api/methods    the contract's methods ({ok:true, value:[…]}), from its method table.
 *   GET  /…              files from staticDir, with a strict CSP.
 *
 * Every request must name a loopback Host (DNS-rebinding guard) and, when it carries an Origin, come
 * from this server's own origin; API calls must also be JSON (so a cross-site form cannot post one).
 * Every request (page, files, API, streams) must also carry the server's key (server/auth.ts): only
 * whoever started browser mode can use it, never another user of the same computer.
 *   GET /?token=<key>    sets the key's cookie and redirects to / (the address `npm start` prints).
 */
import http from 'node:http';
import fs from 'node:fs/promises';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { fail, isRemoteMethod, REMOTE_METHODS, type EngineApi, type Result, type StreamMessage } from '../contract/index.js';
import { localCaller } from '../worker/streaming.js';
import { checkToken, newToken, presentedToken, sameToken, tokenCookie, UNAUTHORIZED_MESSAGE } from './auth.js';
import { CONNECTION_CHECK_OPTIONS, limitConnections, type ConnectionLimits } from './connections.js';
import { CONTENT_SECURITY_POLICY } from './csp.js';

export const MAX_BODY_BYTES = 1024 * 1024;

export interface ServerOptions {
  /** 0 (default) picks a free port. */
  port?: number;
  host?: '127.0.0.1' | '::1';
  /** Folder of the built renderer (out/renderer); without it only /api is served. */
  staticDir?: string;
  /** Connection cap and header/request timeouts (server/connections.ts); defaults there. */
  connections?: Partial<ConnectionLimits>;
  /** The key every request must carry (server/auth.ts); a random 256-bit one when not given. */
  token?: string;
}

export interface RunningServer {
  /** The server's origin, e.g. http://127.0.0.1:4317 (requests to it need the key). */
  url: string;
  /** The key: send it as `Authorization: Bearer <token>`, or open `openUrl` in a browser. */
  token: string;
  /** The address to open in a browser: `url` + `/?token=<key>` (what `npm start` prints). */
  openUrl: string;
  close(): Promise<void>;
}

const LOOPBACK_BIND = new Set(['127.0.0.1', '::1']);
const LOOPBACK_NAMES = ['127.0.0.1', 'localhost', '[::1]'];

const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.txt': 'text/plain; charset=utf-8',
};

const COMMON_HEADERS: Record<string, string> = {
  'Content-Security-Policy': CONTENT_SECURITY_POLICY,
  'X-Content-Type-Options': 'nosniff',
  'X-Frame-Options': 'DENY',
  'Referrer-Policy': 'no-referrer',
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Resource-Policy': 'same-origin',
};

export async function startServer(engine: EngineApi, opts: ServerOptions = {}): Promise<RunningServer> {
  const host: string = opts.host ?? '127.0.0.1';
  if (!LOOPBACK_BIND.has(host)) {
    throw new Error(`Refusing to serve on ${host}: browser mode listens on 127.0.0.1 or ::1 only.`);
  }
  const staticRoot = opts.staticDir ? await fs.realpath(path.resolve(opts.staticDir)) : null;
  const token = opts.token === undefined ? newToken() : checkToken(opts.token);

  let port = 0;
  const call = localCaller(engine);
  const server = http.createServer(CONNECTION_CHECK_OPTIONS, (req, res) => {
    handle(req, res).catch((err: unknown) => {
      if (!res.headersSent) sendJson(res, 500, fail('INTERNAL', `Server error: ${String(err)}`));
      else res.destroy();
    });
  });
  limitConnections(server, opts.connections);

  async function handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const allowedHosts = LOOPBACK_NAMES.map((name) => `${name}:${port}`);
    const hostHeader = (req.headers.host ?? '').toLowerCase();
    if (!allowedHosts.includes(hostHeader)) {
      return sendJson(res, 403, fail('INVALID_INPUT', 'Refused: requests must address this computer (127.0.0.1).'));
    }
    const origin = req.headers.origin;
    if (origin !== undefined && !allowedHosts.some((h) => origin.toLowerCase() === `http://${h}`)) {
      return sendJson(res, 403, fail('INVALID_INPUT', 'Refused: cross-origin request.'));
    }

    let url: URL;
    try {
      url = new URL(req.url ?? '/', 'http://127.0.0.1');
    } catch {
      return sendJson(res, 400, fail('INVALID_INPUT', 'Malformed request URL.'));
    }
    const pathname = url.pathname;
    const api = pathname.startsWith('/api/');

    // The address `npm start` printed: its key becomes a cookie, and the key leaves the address bar.
    const offered = url.searchParams.get('token');
    if (offered !== null && !api && (req.method === 'GET' || req.method === 'HEAD')) {
      if (!sameToken(offered, token)) return unauthorized(res, api);
      url.searchParams.delete('token');
      res.writeHead(303, {
        ...COMMON_HEADERS,
        'Set-Cookie': tokenCookie(port, token),
        // One leading slash: `//host` would send the browser to another site.
        Location: `/${pathname.replace(/^\/+/, '')}${url.search}`,
        'Cache-Control': 'no-store',
      });
      res.end();
      return;
    }
    const presented = presentedToken(req, port);
    if (presented === null || !sameToken(presented, token)) return unauthorized(res, api);

    if (api) return handleApi(req, res, pathname.slice('/api/'.length));
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, { ...COMMON_HEADERS, Allow: 'GET, HEAD' }).end();
      return;
    }
    if (!staticRoot) return sendText(res, 404, 'No UI is served here; the engine API is under /api/.');
    return serveStatic(req, res, staticRoot, pathname);
  }

  async function handleApi(req: http.IncomingMessage, res: http.ServerResponse, route: string): Promise<void> {
    if (route === 'methods' && (req.method === 'GET' || req.method === 'HEAD')) {
      return sendJson(res, 200, { ok: true, value: REMOTE_METHODS });
    }
    const stream = route.endsWith('/stream');
    const method = stream ? route.slice(0, -'/stream'.length) : route;
    if (!isRemoteMethod(method)) {
      return sendJson(
        res,
        404,
        fail('INVALID_INPUT', `Unknown method "${method}". Known methods: ${REMOTE_METHODS.join(', ')}.`),
      );
    }
    if (req.method !== 'POST') {
      res.writeHead(405, { ...COMMON_HEADERS, Allow: 'POST' }).end();
      return;
    }
    const site = req.headers['sec-fetch-site'];
    if (site !== undefined && site !== 'same-origin' && site !== 'none') {
      return sendJson(res, 403, fail('INVALID_INPUT', 'Refused: cross-site request.'));
    }
    const type = (req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
    if (type !== 'application/json') {
      return sendJson(res, 415, fail('INVALID_INPUT', 'Send the request body as JSON (Content-Type: application/json).'));
    }

    const body = await readBody(req, MAX_BODY_BYTES);
    if (body === null) {
      res.setHeader('Connection', 'close');
      return sendJson(res, 413, fail('INVALID_INPUT', `Request body is larger than ${MAX_BODY_BYTES / 1024} KB.`));
    }
    let arg: unknown = undefined;
    const textBody = body.toString('utf8');
    if (textBody.trim() !== '') {
      try {
        arg = JSON.parse(textBody);
      } catch (err) {
        return sendJson(res, 400, fail('INVALID_INPUT', `Request body is not valid JSON: ${(err as Error).message}`));
      }
    }

    if (!stream) {
      const result = await call(method, arg);
      return sendJson(res, statusFor(result), result);
    }

    // Streaming: events as they happen, then the result; a closed connection cancels the call.
    const controller = new AbortController();
    res.on('close', () => {
      if (!res.writableFinished) controller.abort();
    });
    res.writeHead(200, {
      ...COMMON_HEADERS,
      'Content-Type': 'application/x-ndjson; charset=utf-8',
      'Cache-Control': 'no-store',
      'X-Accel-Buffering': 'no',
    });
    const write = (m: StreamMessage) => {
      if (!res.destroyed) res.write(`${JSON.stringify(m)}\n`);
    };
    const result = await call(method, arg, { signal: controller.signal, onEvent: write });
    write({ type: 'result', result });
    res.end();
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  port = (server.address() as AddressInfo).port;
  const url = host === '::1' ? `http://[::1]:${port}` : `http://127.0.0.1:${port}`;

  return {
    url,
    token,
    openUrl: `${url}/?token=${token}`,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((err) => (err ? reject(err) : resolve()));
        server.closeAllConnections();
      }),
  };
}

/** 401 for a request without the key (or with a wrong one): JSON for the API, text for pages. */
function unauthorized(res: http.ServerResponse, api: boolean): void {
  res.setHeader('WWW-Authenticate', 'Bearer realm="ManualDesk"');
  if (api) return sendJson(res, 401, fail('INVALID_INPUT', UNAUTHORIZED_MESSAGE));
  sendText(res, 401, UNAUTHORIZED_MESSAGE);
}

/** Errors are data: only input errors and unexpected failures change the HTTP status. */
function statusFor(result: Result<unknown>): number {
  if (result.ok) return 200;
  if (result.error.code === 'INVALID_INPUT') return 400;
  if (result.error.code === 'INTERNAL') return 500;
  return 200;
}

/** Reads the whole body; null once it exceeds `limit` (the rest is drained, not kept). */
function readBody(req: http.IncomingMessage, limit: number): Promise<Buffer | null> {
  const declared = Number(req.headers['content-length'] ?? 0);
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let tooLarge = declared > limit;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) tooLarge = true;
      if (!tooLarge) chunks.push(chunk);
    });
    req.on('end', () => resolve(tooLarge ? null : Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

async function serveStatic(
  req: http.IncomingMessage,
  res: http.ServerResponse,
  root: string,
  pathname: string,
): Promise<void> {
  let relative: string;
  try {
    relative = decodeURIComponent(pathname);
  } catch {
    return sendText(res, 400, 'Malformed path.');
  }
  if (relative.includes('\0') || relative.includes('\\')) return sendText(res, 400, 'Malformed path.');
  if (relative.endsWith('/')) relative += 'index.html';

  const candidate = path.resolve(root, `.${relative}`);
  if (!isInside(root, candidate)) return sendText(res, 403, 'Forbidden.');

  let real: string;
  try {
    real = await fs.realpath(candidate);
  } catch {
    return sendText(res, 404, 'Not found.');
  }
  // A symlink inside the folder must not lead outside it.
  if (!isInside(root, real)) return sendText(res, 403, 'Forbidden.');
  const stat = await fs.stat(real);
  if (!stat.isFile()) return sendText(res, 404, 'Not found.');

  const type = CONTENT_TYPES[path.extname(real).toLowerCase()] ?? 'application/octet-stream';
  res.writeHead(200, {
    ...COMMON_HEADERS,
    'Content-Type': type,
    'Content-Length': stat.size,
    'Cache-Control': real.endsWith('.html') ? 'no-store' : 'no-cache',
  });
  if (req.method === 'HEAD') {
    res.end();
    return;
  }
  res.end(await fs.readFile(real));
}

function isInside(root: string, p: string): boolean {
  return p === root || p.startsWith(root.endsWith(path.sep) ? root : root + path.sep);
}

function sendJson(res: http.ServerResponse, status: number, body: Result<unknown>): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    ...COMMON_HEADERS,
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': Buffer.byteLength(text),
    'Cache-Control': 'no-store',
  });
  res.end(text);
}

function sendText(res: http.ServerResponse, status: number, text: string): void {
  res.writeHead(status, {
    ...COMMON_HEADERS,
    'Content-Type': 'text/plain; charset=utf-8',
    'Content-Length': Buffer.byteLength(text),
  });
  res.end(text);
}
