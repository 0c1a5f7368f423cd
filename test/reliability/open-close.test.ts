/**
 * Open/close leaks (issue #8): one library (the fixture manuals, plus an installed manual pack) is
 * opened, searched once and closed N times in this process. After a warm-up (modules, the analyzer's
 * dictionaries, LanceDB's runtime threads and caches load once), the process must hold no more file
 * descriptors and no more active handles than before, and its RSS must stay within a bound.
 *
 * A LanceDB 0.31 behaviour measured here: a full-text query whose terms are missing from an index
 * partition keeps that partition's file (`_indices/…/part_N_invert.lance`) open until the JS `Query`
 * object that ran it is garbage-collected; closing the table and the connection does not release it,
 * and there is no API to free a Query. So descriptors are counted after a full GC (test-only: V8's
 * gc() exposed at run time), which is when the library has given everything back; without a GC the
 * count follows V8's collection rhythm, bounded (measured +170 at most over 1,000 cycles) and checked
 * against {@link FD_PEAK_SLACK}.
 *
 * Runs: MANUALDESK_OPEN_CLOSE_RUNS (default 100; 1000 with MANUALDESK_RELIABILITY_FULL=1).
 * One JSON line with the figures is printed.
 */
import fs from 'node:fs';
import path from 'node:path';
import v8 from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEngine } from '../../native/engine.js';
import { buildPack } from '../../native/packs/build.js';
import { trustKey } from '../../native/packs/keys.js';
import { cleanupTemp, copyFixtures, tempDir, value } from '../integration/helpers.js';
import { newKey, writeManuals } from '../integration/packs-helpers.js';

const FULL = process.env.MANUALDESK_RELIABILITY_FULL === '1';
const RUNS = Number(process.env.MANUALDESK_OPEN_CLOSE_RUNS ?? (FULL ? 1000 : 100));
const WARMUP = Math.min(20, Math.max(5, Math.floor(RUNS / 10)));
/**
 * File descriptors allowed above the warm-up count. LanceDB's runtime (tokio worker threads, an
 * object-store client) may open a descriptor lazily when a pool grows on a busy machine, and Node
 * opens one per new libuv thread-pool wake-up; these are bounded, not per open. A leak of even one
 * descriptor per open shows as RUNS of them, far above this slack.
 */
const FD_SLACK = 4;
/** Descriptors allowed above the warm-up count between GCs (see the header: LanceDB Query objects). */
const FD_PEAK_SLACK = 400;
/**
 * RSS, measured after a full GC: the allocator and LanceDB's caches settle over the first hundreds of
 * opens (measured: +20 MB over 100 cycles, +43 MB over 1,000), so the whole run may grow by 20 % of
 * the warm RSS, and its second half, where a per-open leak shows as much as in the first, by 10 %.
 */
const RSS_TOTAL_SHARE = 0.2;
const RSS_SECOND_HALF_SHARE = 0.1;

const fdCount = () => fs.readdirSync('/proc/self/fd').length;
const handles = () => {
  const counts: Record<string, number> = {};
  for (const r of process.getActiveResourcesInfo()) counts[r] = (counts[r] ?? 0) + 1;
  return counts;
};
const rssMb = () => Math.round((process.memoryUsage().rss / 1024 / 1024) * 10) / 10;
v8.setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

let lib: string;

beforeAll(async () => {
  lib = path.join(tempDir('open-close'), 'library');
  const e = await createEngine({ libraryDir: lib, create: true });
  value(await e.ingest({ paths: [copyFixtures('open-close')] }));
  await e.close();
  // A manual pack from a publisher the site trusts, installed next to the local manuals.
  const root = tempDir('open-close-pack');
  const key = newKey();
  const keyFile = path.join(root, 'private.pem');
  fs.writeFileSync(keyFile, key.privateKey.export({ type: 'pkcs8', format: 'pem' }));
  fs.writeFileSync(path.join(root, 'public.pem'), key.publicPem);
  const out = path.join(root, 'plant.mdpack');
  await buildPack({ id: 'plant', version: '1.0', source: writeManuals(path.join(root, 'src')), out, keyFile });
  await trustKey(path.join(root, 'public.pem'), lib);
  const p = await createEngine({ libraryDir: lib });
  value(await p.importPack({ file: out }));
  await p.close();
}, 120_000);

afterAll(cleanupTemp);

/** One cycle: open, one search that must hit both the local library and the pack, close. */
async function cycle(i: number): Promise<void> {
  const engine = await createEngine({ libraryDir: lib });
  try {
    const hits = value(await engine.search({ query: i % 2 ? 'hydraulic oil' : 'E-101 oil pressure', k: 10 })).hits;
    expect(hits.some((h) => h.pack === 'plant') && hits.some((h) => h.pack === undefined), `cycle ${i}`).toBe(true);
  } finally {
    await engine.close();
  }
}

/** Lets closed handles finish closing (libuv closes on the next loop turns). */
async function settle(): Promise<void> {
  for (let i = 0; i < 3; i++) await new Promise((r) => setTimeout(r, 20));
  gc();
  await new Promise((r) => setTimeout(r, 50)); // native finalizers run after the GC
  gc();
}

describe(`open, search and close one library ${RUNS} times`, () => {
  it('leaks no file descriptors, no handles, and keeps RSS bounded', async () => {
    const t0 = performance.now();
    const start = { fds: fdCount(), rssMb: rssMb() };
    for (let i = 0; i < WARMUP; i++) await cycle(i);
    await settle();
    const warm = { fds: fdCount(), handles: handles(), rssMb: rssMb() };
    const tRuns = performance.now();
    let peakFds = warm.fds;
    let midRss = 0;
    for (let i = 0; i < RUNS; i++) {
      await cycle(i);
      if (i % 10 === 0) peakFds = Math.max(peakFds, fdCount());
      if (i === Math.floor(RUNS / 2)) {
        await settle();
        midRss = rssMb();
      }
    }
    const runsSeconds = (performance.now() - tRuns) / 1000;
    await settle();
    const end = { fds: fdCount(), handles: handles(), rssMb: rssMb() };
    const figures = {
      suite: 'open-close',
      runs: RUNS,
      warmup: WARMUP,
      fds: { start: start.fds, afterWarmup: warm.fds, peakBetweenGcs: peakFds, end: end.fds, slack: FD_SLACK, peakSlack: FD_PEAK_SLACK },
      handles: { afterWarmup: warm.handles, end: end.handles },
      rssMb: {
        start: start.rssMb,
        afterWarmup: warm.rssMb,
        half: midRss,
        end: end.rssMb,
        growth: Math.round((end.rssMb - warm.rssMb) * 10) / 10,
        secondHalfGrowth: Math.round((end.rssMb - midRss) * 10) / 10,
        bounds: { total: Math.round(RSS_TOTAL_SHARE * warm.rssMb), secondHalf: Math.round(RSS_SECOND_HALF_SHARE * warm.rssMb) },
      },
      msPerCycle: Math.round((runsSeconds * 1000) / RUNS),
      seconds: Math.round((performance.now() - t0) / 100) / 10,
    };
    console.log(JSON.stringify(figures));

    // No descriptor held past close and collection: none left by the runs beyond the fixed slack.
    expect(end.fds, JSON.stringify(figures.fds)).toBeLessThanOrEqual(warm.fds + FD_SLACK);
    expect(peakFds, JSON.stringify(figures.fds)).toBeLessThanOrEqual(warm.fds + FD_PEAK_SLACK);
    // No handle kind grows (timers, sockets, file handles, child processes…).
    for (const [kind, n] of Object.entries(end.handles)) {
      expect(n, `active ${kind} handles: ${warm.handles[kind] ?? 0} after warm-up, ${n} after ${RUNS} runs`).toBeLessThanOrEqual(warm.handles[kind] ?? 0);
    }
    expect(end.rssMb - warm.rssMb, JSON.stringify(figures.rssMb)).toBeLessThanOrEqual(RSS_TOTAL_SHARE * warm.rssMb);
    expect(end.rssMb - midRss, JSON.stringify(figures.rssMb)).toBeLessThanOrEqual(RSS_SECOND_HALF_SHARE * warm.rssMb);
  }, 60_000 + RUNS * 500);
});
