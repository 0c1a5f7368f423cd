/**
 * Browser mode against slow or idle connections (a local program opening thousands of sockets that
 * never finish their headers would otherwise use up the process's file descriptors, and with them
 * every real request and the library's own files):
 * - at most `maxConnections` open at once; a new connection over the cap closes the oldest one that
 *   has no request in progress (idle keep-alive, or still sending its headers), so a real request
 *   always gets in; when every open one is busy, the new one is closed;
 * - headers must arrive within `headersTimeoutMs` (checked every second), a whole request within
 *   `requestTimeoutMs`; idle keep-alive connections close after 5 s. Answers streamed back are not cut.
 */
import type http from 'node:http';
import type { Socket } from 'node:net';

export interface ConnectionLimits {
  maxConnections: number;
  headersTimeoutMs: number;
  requestTimeoutMs: number;
}

export const DEFAULT_CONNECTION_LIMITS: Readonly<ConnectionLimits> = Object.freeze({
  maxConnections: 256,
  headersTimeoutMs: 10_000,
  requestTimeoutMs: 60_000,
});

/** Options for http.createServer: how often Node checks the header and request timeouts. */
export const CONNECTION_CHECK_OPTIONS: http.ServerOptions = { connectionsCheckingInterval: 1000 };

export function limitConnections(server: http.Server, limits: Partial<ConnectionLimits> = {}): void {
  const { maxConnections, headersTimeoutMs, requestTimeoutMs } = { ...DEFAULT_CONNECTION_LIMITS, ...limits };
  server.headersTimeout = headersTimeoutMs;
  server.requestTimeout = Math.max(requestTimeoutMs, headersTimeoutMs + 1);
  server.keepAliveTimeout = 5000;
  /** Open connections, oldest first; true while a request on it is in progress. */
  const open = new Map<Socket, boolean>();
  server.on('connection', (socket: Socket) => {
    open.set(socket, false);
    socket.once('close', () => open.delete(socket));
    if (open.size <= maxConnections) return;
    for (const [s, busy] of open) {
      if (!busy && s !== socket) {
        open.delete(s);
        s.destroy();
        return;
      }
    }
    open.delete(socket);
    socket.destroy();
  });
  server.on('request', (req: http.IncomingMessage, res: http.ServerResponse) => {
    const socket = req.socket;
    if (!open.has(socket)) return;
    open.set(socket, true);
    res.once('close', () => {
      if (open.has(socket)) open.set(socket, false);
    });
  });
}
