/**
 * Browser mode against many or slow connections. A local program opening thousands of sockets that
 * never finish their headers would otherwise use up the process's file descriptors, and with them
 * every real request and the library's own files; a burst of real requests (300 searches at once)
 * must still all be answered, never reset.
 * - at most `maxConnections` are handed to the HTTP server at once; the ones over it wait, unread, in
 *   a queue (at most `maxWaiting`, oldest first) and are served as connections close;
 * - while connections wait, an admitted one with no request in progress for `idleGraceMs` (an idle
 *   keep-alive, or one still dribbling its headers) is closed to make room; a real client sends its
 *   request within milliseconds, so it is never the one closed;
 * - when the queue is full, the connection that has waited longest (or any that has waited
 *   `headersTimeoutMs`) is answered with a plain 503 and Retry-After, not a reset; past a hard
 *   ceiling of open sockets (a flood) one is closed at once;
 * - headers must arrive within `headersTimeoutMs` (checked every second), a whole request within
 *   `requestTimeoutMs`; idle keep-alive connections close after 5 s. Answers streamed back are not cut.
 */
import type http from 'node:http';
import type { Socket } from 'node:net';

export interface ConnectionLimits {
  maxConnections: number;
  /** Connections that may wait for a free place; more get 503. */
  maxWaiting: number;
  /** While others wait, an admitted connection without a request in progress this long is closed. */
  idleGraceMs: number;
  headersTimeoutMs: number;
  requestTimeoutMs: number;
}

export const DEFAULT_CONNECTION_LIMITS: Readonly<ConnectionLimits> = Object.freeze({
  maxConnections: 256,
  maxWaiting: 256,
  idleGraceMs: 1000,
  headersTimeoutMs: 10_000,
  requestTimeoutMs: 60_000,
});

/** Options for http.createServer: how often Node checks the header and request timeouts. */
export const CONNECTION_CHECK_OPTIONS: http.ServerOptions = { connectionsCheckingInterval: 1000 };

const BUSY_TEXT = 'ManualDesk is busy answering other requests. Try again in a moment.\n';
const BUSY_RESPONSE =
  'HTTP/1.1 503 Service Unavailable\r\nRetry-After: 1\r\nConnection: close\r\nContent-Type: text/plain; charset=utf-8\r\n' +
  `Cache-Control: no-store\r\nContent-Length: ${Buffer.byteLength(BUSY_TEXT)}\r\n\r\n${BUSY_TEXT}`;

interface Admitted {
  /** A request is in progress on it. */
  busy: boolean;
  /** When it was admitted or its last request finished. */
  since: number;
}

export function limitConnections(server: http.Server, limits: Partial<ConnectionLimits> = {}): void {
  const { maxConnections, maxWaiting, idleGraceMs, headersTimeoutMs, requestTimeoutMs } = { ...DEFAULT_CONNECTION_LIMITS, ...limits };
  server.headersTimeout = headersTimeoutMs;
  server.requestTimeout = Math.max(requestTimeoutMs, headersTimeoutMs + 1);
  server.keepAliveTimeout = 5000;
  /** Sockets refused with a 503 still being written: counted against the hard ceiling. */
  let refusing = 0;
  const hardCeiling = maxConnections + maxWaiting + Math.max(16, maxWaiting);

  // The HTTP server's own connection handler (which starts parsing) runs only for admitted sockets.
  const httpHandlers = server.listeners('connection') as ((socket: Socket) => void)[];
  server.removeAllListeners('connection');

  const admitted = new Map<Socket, Admitted>();
  /** Waiting sockets, oldest first, with the time they arrived. */
  const waiting = new Map<Socket, number>();

  const admit = (socket: Socket) => {
    admitted.set(socket, { busy: false, since: Date.now() });
    socket.once('close', () => {
      admitted.delete(socket);
      admitWaiting();
    });
    for (const handler of httpHandlers) handler.call(server, socket);
  };

  const admitWaiting = () => {
    for (const [socket] of waiting) {
      if (admitted.size >= maxConnections) return;
      waiting.delete(socket);
      if (!socket.destroyed) admit(socket);
    }
  };

  const refuse = (socket: Socket) => {
    if (admitted.size + waiting.size + refusing >= hardCeiling) {
      socket.destroy();
      return;
    }
    refusing++;
    socket.once('close', () => refusing--);
    socket.on('error', () => socket.destroy());
    socket.resume(); // read (and drop) the request, so closing does not reset the client
    socket.end(BUSY_RESPONSE);
    setTimeout(() => socket.destroy(), 2000).unref();
  };

  /** Closes admitted connections that hold a place without using it while others wait. */
  const makeRoom = () => {
    if (waiting.size === 0) return;
    const now = Date.now();
    let free = waiting.size;
    for (const [socket, state] of admitted) {
      if (free === 0) break;
      if (!state.busy && now - state.since >= idleGraceMs) {
        socket.destroy();
        free--;
      }
    }
    for (const [socket, at] of waiting) {
      if (now - at < headersTimeoutMs) break;
      waiting.delete(socket);
      refuse(socket);
    }
  };
  const timer = setInterval(makeRoom, Math.max(100, Math.min(1000, idleGraceMs))).unref();
  server.once('close', () => clearInterval(timer));

  server.on('connection', (socket: Socket) => {
    if (admitted.size < maxConnections && waiting.size === 0) return admit(socket);
    if (waiting.size >= maxWaiting) {
      // The one that has waited longest is turned away: under a flood of slow sockets the newest
      // (a real request arriving later) still gets a place once idle ones are closed.
      const [oldest] = waiting.keys();
      waiting.delete(oldest!);
      refuse(oldest!);
    }
    socket.on('error', () => socket.destroy());
    socket.once('close', () => waiting.delete(socket));
    waiting.set(socket, Date.now());
    makeRoom();
  });

  server.on('request', (req: http.IncomingMessage, res: http.ServerResponse) => {
    const state = admitted.get(req.socket);
    if (!state) return;
    state.busy = true;
    res.once('close', () => {
      state.busy = false;
      state.since = Date.now();
    });
  });
}
