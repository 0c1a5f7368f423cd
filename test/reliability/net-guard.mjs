/**
 * Network guard for the network-cut test, loaded into every Node process of the flow with
 * `node --import <this file>` (or NODE_OPTIONS="--import <this file>", which child processes inherit).
 *
 * It wraps every way a Node program reaches the network (net.Socket#connect and so net.connect /
 * net.createConnection / undici, tls.connect, http(s).request/get, http2.connect, dgram sends,
 * dns.lookup / dns.resolve* / dns.Resolver / dns.promises, globalThis.fetch) and lets through only
 * loopback addresses and unix sockets. Every other attempt is appended as one JSON line to
 * $MANUALDESK_NET_GUARD_LOG (pid, layer, target, stack).
 *
 * $MANUALDESK_NET_GUARD_LOADED, when set, gets one line per process the guard was loaded into (pid, argv),
 * so a test can prove that every process of the flow was guarded.
 *
 * MANUALDESK_NET_GUARD_MODE=block (default): the attempt fails (ECONNREFUSED-like error, async).
 * MANUALDESK_NET_GUARD_MODE=record: the attempt is recorded and then goes ahead (inside a network
 * namespace with only loopback, where it fails by itself).
 *
 * Plain JavaScript so that it loads before any TypeScript loader.
 */
import dgram from 'node:dgram';
import dns from 'node:dns';
import fs from 'node:fs';
import http from 'node:http';
import http2 from 'node:http2';
import https from 'node:https';
import { syncBuiltinESMExports } from 'node:module';
import net from 'node:net';
import tls from 'node:tls';

const LOG = process.env.MANUALDESK_NET_GUARD_LOG;
const BLOCK = (process.env.MANUALDESK_NET_GUARD_MODE ?? 'block') !== 'record';
const INSTALLED = Symbol.for('manualdesk.netGuard');

function isLoopbackHost(host) {
  if (host === undefined || host === null || host === '') return true; // Node's default is localhost
  let h = String(host).toLowerCase();
  if (h.startsWith('[') && h.endsWith(']')) h = h.slice(1, -1);
  if (h === 'localhost' || h.endsWith('.localhost')) return true;
  if (h === '::1' || h === '0:0:0:0:0:0:0:1') return true;
  if (h.startsWith('::ffff:')) h = h.slice('::ffff:'.length);
  return net.isIPv4(h) && h.startsWith('127.');
}

function record(layer, target) {
  const entry = {
    pid: process.pid,
    argv: process.argv.slice(1, 3).join(' '),
    layer,
    target: String(target),
    stack: (new Error().stack ?? '').split('\n').slice(3, 12).join('\n'),
  };
  if (LOG) {
    try {
      fs.appendFileSync(LOG, `${JSON.stringify(entry)}\n`);
    } catch {
      // the log folder is gone: the test has ended
    }
  }
  return entry;
}

function blockedError(layer, target) {
  const err = new Error(`network-cut guard: ${layer} to ${target} blocked (only loopback is allowed)`);
  err.code = 'ECONNREFUSED';
  return err;
}

if (!globalThis[INSTALLED]) {
  globalThis[INSTALLED] = true;
  if (process.env.MANUALDESK_NET_GUARD_LOADED) {
    try {
      fs.appendFileSync(process.env.MANUALDESK_NET_GUARD_LOADED, `${JSON.stringify({ pid: process.pid, argv: process.argv.slice(1).join(' ') })}\n`);
    } catch {
      // the test has ended
    }
  }

  // ---- sockets: net.Socket#connect is under net.connect, tls.connect and every HTTP client ----
  const origConnect = net.Socket.prototype.connect;
  net.Socket.prototype.connect = function guardedConnect(...args) {
    let opts = args[0];
    if (Array.isArray(opts)) opts = opts[0]; // internal normalised form
    let host;
    let port;
    let isPath = false;
    if (opts !== null && typeof opts === 'object') {
      if (opts.path || opts.fd != null) isPath = true; // Node's own rule: a truthy path is a pipe
      host = opts.host;
      port = opts.port;
    } else if (typeof opts === 'string' && !/^\d+$/.test(opts)) {
      isPath = true; // a pipe / unix socket path
    } else {
      port = opts;
      host = typeof args[1] === 'string' ? args[1] : undefined;
    }
    if (!isPath && !isLoopbackHost(host)) {
      const target = `${host}:${port}`;
      record('net.Socket.connect', target);
      if (BLOCK) {
        process.nextTick(() => this.destroy(blockedError('connect', target)));
        return this;
      }
    }
    return origConnect.apply(this, args);
  };

  const origTlsConnect = tls.connect;
  tls.connect = function guardedTlsConnect(...args) {
    const o = args.find((a) => a !== null && typeof a === 'object') ?? {};
    const host = o.host ?? (typeof args[1] === 'string' ? args[1] : undefined);
    if (!o.socket && !o.path && !isLoopbackHost(host)) record('tls.connect', `${host}:${o.port ?? args[0]}`);
    return origTlsConnect.apply(this, args);
  };

  // ---- HTTP clients ----
  const hostOfRequest = (args) => {
    const first = args[0];
    if (typeof first === 'string' || first instanceof URL) {
      try {
        return new URL(String(first)).hostname;
      } catch {
        return undefined;
      }
    }
    if (first && typeof first === 'object') {
      if (first.socketPath) return 'localhost';
      return first.hostname ?? first.host;
    }
    return undefined;
  };
  for (const [mod, name] of [
    [http, 'http'],
    [https, 'https'],
  ]) {
    for (const fn of ['request', 'get']) {
      const orig = mod[fn];
      mod[fn] = function guardedRequest(...args) {
        const host = hostOfRequest(args);
        if (!isLoopbackHost(host)) record(`${name}.${fn}`, host);
        return orig.apply(this, args);
      };
    }
  }
  const origH2 = http2.connect;
  http2.connect = function guardedH2(authority, ...rest) {
    let host;
    try {
      host = new URL(String(authority)).hostname;
    } catch {
      host = String(authority);
    }
    if (!isLoopbackHost(host)) record('http2.connect', authority);
    return origH2.call(this, authority, ...rest);
  };

  // ---- UDP ----
  const origSend = dgram.Socket.prototype.send;
  dgram.Socket.prototype.send = function guardedSend(...args) {
    const addr = args.find((a, i) => i > 0 && typeof a === 'string');
    if (!isLoopbackHost(addr ?? 'localhost')) {
      record('dgram.send', addr);
      if (BLOCK) return undefined;
    }
    return origSend.apply(this, args);
  };
  const origDgramConnect = dgram.Socket.prototype.connect;
  dgram.Socket.prototype.connect = function guardedDgramConnect(port, address, ...rest) {
    if (!isLoopbackHost(typeof address === 'string' ? address : 'localhost')) {
      record('dgram.connect', `${address}:${port}`);
      if (BLOCK) return undefined;
    }
    return origDgramConnect.call(this, port, address, ...rest);
  };

  // ---- DNS: callback API, Resolver, promises ----
  const wrapCallbackDns = (owner, fn, label) => {
    const orig = owner[fn];
    if (typeof orig !== 'function') return;
    owner[fn] = function guardedDns(hostname, ...rest) {
      if (!isLoopbackHost(hostname)) {
        record(label, hostname);
        if (BLOCK) {
          const cb = rest.reverse().find((a) => typeof a === 'function');
          const err = blockedError(label, hostname);
          err.code = 'ENOTFOUND';
          if (cb) process.nextTick(() => cb(err));
          return {};
        }
      }
      return orig.call(this, hostname, ...rest);
    };
  };
  const wrapPromiseDns = (owner, fn, label) => {
    const orig = owner[fn];
    if (typeof orig !== 'function') return;
    owner[fn] = function guardedDnsPromise(hostname, ...rest) {
      if (!isLoopbackHost(hostname)) {
        record(label, hostname);
        if (BLOCK) {
          const err = blockedError(label, hostname);
          err.code = 'ENOTFOUND';
          return Promise.reject(err);
        }
      }
      return orig.call(this, hostname, ...rest);
    };
  };
  const resolveNames = Object.keys(dns).filter((k) => k === 'lookup' || k === 'lookupService' || k.startsWith('resolve') || k === 'reverse');
  for (const fn of resolveNames) wrapCallbackDns(dns, fn, `dns.${fn}`);
  for (const fn of resolveNames) wrapCallbackDns(dns.Resolver.prototype, fn, `dns.Resolver.${fn}`);
  for (const fn of resolveNames) wrapPromiseDns(dns.promises, fn, `dns.promises.${fn}`);
  for (const fn of resolveNames) wrapPromiseDns(dns.promises.Resolver.prototype, fn, `dns.promises.Resolver.${fn}`);

  // ---- fetch (undici inside Node) ----
  if (typeof globalThis.fetch === 'function') {
    const origFetch = globalThis.fetch;
    globalThis.fetch = function guardedFetch(input, init) {
      let url;
      try {
        url = new URL(typeof input === 'string' || input instanceof URL ? String(input) : input.url);
      } catch {
        return origFetch.call(this, input, init);
      }
      const local = url.protocol === 'data:' || url.protocol === 'blob:' || url.protocol === 'file:' || isLoopbackHost(url.hostname);
      if (!local) {
        record('fetch', url.href);
        if (BLOCK) return Promise.reject(new TypeError('fetch failed', { cause: blockedError('fetch', url.href) }));
      }
      return origFetch.call(this, input, init);
    };
  }

  // Named ESM imports of builtins (import { lookup } from 'node:dns') see the wrapped functions too.
  syncBuiltinESMExports();
}
