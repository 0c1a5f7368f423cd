/**
 * Issue 37 item 11: the connection cap dropped live requests (300 concurrent searches, 44 reset).
 * Connections over the cap now wait their turn; only when the waiting queue is full too does one get
 * a clean 503 with Retry-After, never a reset.
 */
import { describe, expect, it } from 'vitest';
import { startServer, type RunningServer } from '../../../native/server/http.js';
import type { ConnectionLimits } from '../../../native/server/connections.js';
import type { SearchRequest } from '../../../native/contract/index.js';
import { fakeEngine } from './fake-engine.js';
import { keyedFetch } from './keyed-fetch.js';

/** A server whose searches each take `ms` (or wait for `gate`), so connections pile up. */
async function slowSearchServer(connections: Partial<ConnectionLimits>, wait: () => Promise<void>): Promise<RunningServer> {
  const base = fakeEngine();
  return startServer(
    fakeEngine({
      search: async (req: SearchRequest) => {
        await wait();
        return base.search(req);
      },
    }),
    { port: 0, connections },
  );
}

/** `n` searches at once, each on its own connection; the outcome of each (status, or the error code). */
async function burst(server: RunningServer, n: number): Promise<{ status: number | string; retryAfter: string | null; ok?: boolean }[]> {
  const keyed = keyedFetch(server);
  return Promise.all(
    Array.from({ length: n }, async (_, i) => {
      try {
        const res = await keyed(`${server.url}/api/search`, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json', Connection: 'close' },
          body: JSON.stringify({ query: `spindle ${i}` }),
          signal: AbortSignal.timeout(20_000),
        });
        const text = await res.text();
        return { status: res.status, retryAfter: res.headers.get('retry-after'), ok: res.status === 200 ? (JSON.parse(text) as { ok: boolean }).ok : undefined };
      } catch (err) {
        const cause = (err as { cause?: { code?: string } }).cause;
        return { status: cause?.code ?? String(err), retryAfter: null };
      }
    }),
  );
}

const pause = (ms: number) => () => new Promise<void>((r) => setTimeout(r, ms));

describe('more connections than the cap', () => {
  it('answers 300 concurrent searches on loopback, none reset (default limits)', async () => {
    // Every search waits until 256 are in progress at once (the default cap), so the last 44
    // connections arrive while every admitted one is busy: the probe's case.
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    let inProgress = 0;
    const fallback = setTimeout(() => release(), 5000);
    const server = await slowSearchServer({}, () => {
      if (++inProgress >= 256) release();
      return gate;
    });
    try {
      const results = await burst(server, 300);
      expect(results.filter((r) => r.status !== 200)).toEqual([]);
      expect(results.every((r) => r.ok)).toBe(true);
    } finally {
      clearTimeout(fallback);
      await server.close();
    }
  }, 30_000);

  it('makes connections over a small cap wait instead of resetting them', async () => {
    const server = await slowSearchServer({ maxConnections: 8 }, pause(20));
    try {
      const results = await burst(server, 120);
      expect(results.filter((r) => r.status !== 200)).toEqual([]);
    } finally {
      await server.close();
    }
  }, 30_000);

  it('answers 503 with Retry-After, not a reset, once the waiting queue is full too', async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const server = await slowSearchServer({ maxConnections: 2, maxWaiting: 2 }, () => gate);
    try {
      const pending = burst(server, 12);
      await new Promise((r) => setTimeout(r, 500));
      release();
      const results = await pending;
      const refused = results.filter((r) => r.status === 503);
      expect(results.filter((r) => r.status !== 200 && r.status !== 503)).toEqual([]);
      expect(refused.length).toBeGreaterThan(0);
      expect(refused.every((r) => r.retryAfter === '1')).toBe(true);
      expect(results.filter((r) => r.status === 200).length).toBeGreaterThanOrEqual(4);
    } finally {
      await server.close();
    }
  }, 30_000);
});
