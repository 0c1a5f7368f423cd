/**
 * Network cut: the whole flow (browser mode start with the sample library build, ingest, fault-code
 * lookup, search, an answer from a local GGUF model, signed pack import, the UI in Chromium) makes no
 * outbound attempt, DNS included. Two layers:
 *
 *  (a) every Node process of the flow runs with test/reliability/net-guard.mjs (NODE_OPTIONS="--import …",
 *      inherited by the server bin/start.js spawns): only loopback and unix sockets pass, every other
 *      attempt is blocked and written to a log that must stay empty. Chromium's page requests go through
 *      page.route (anything not 127.0.0.1/localhost is logged and aborted) and its net log is read.
 *  (b) where `unshare -rn` works, the same flow runs in a fresh network namespace with only loopback (the
 *      guard only records there), so anything that still tried the network would fail loudly.
 *
 * The flow itself is test/reliability/network-flow.ts; the GGUF fixture is generated once here.
 */
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeGgufFixture } from '../../scripts/make-gguf-fixture.js';
import type { FlowReport } from './network-flow.js';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const ROOT = path.resolve(HERE, '../..');
const GUARD = path.join(HERE, 'net-guard.mjs');
const FLOW = path.join(HERE, 'network-flow.ts');

let root: string;
let model: string;

beforeAll(async () => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'md-netcut-'));
  model = await makeGgufFixture({ outFile: path.join(root, 'tiny-qwen2.gguf') });
}, 120_000);

afterAll(() => {
  if (root) fs.rmSync(root, { recursive: true, force: true });
});

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

function run(cmd: string, args: string[], env: Record<string, string>, timeoutMs = 150_000): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { cwd: ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

function guardEnv(dir: string, mode: 'block' | 'record'): Record<string, string> {
  return {
    NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --import ${GUARD}`.trim(),
    MANUALDESK_NET_GUARD_LOG: path.join(dir, 'attempts.jsonl'),
    MANUALDESK_NET_GUARD_LOADED: path.join(dir, 'loaded.jsonl'),
    MANUALDESK_NET_GUARD_MODE: mode,
  };
}

function lines(file: string): Record<string, unknown>[] {
  if (!fs.existsSync(file)) return [];
  return fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

function flowReport(r: Run): FlowReport {
  const last = r.stdout.trim().split('\n').at(-1) ?? '';
  try {
    return JSON.parse(last) as FlowReport;
  } catch {
    throw new Error(`the flow printed no report (exit ${r.code}):\n${r.stdout.slice(-2000)}\n${r.stderr.slice(-3000)}`);
  }
}

function expectCleanFlow(report: FlowReport, attempts: Record<string, unknown>[]): void {
  expect(report.error ?? null).toBeNull();
  expect(report.steps.map((s) => [s.name, s.ok])).toEqual([
    ['start browser mode (builds the sample library)', true],
    ['ingest a folder', true],
    ['fault-code lookup', true],
    ['search', true],
    ['ask with the local GGUF model', true],
    ['build, trust and import a signed pack', true],
    ['UI in Chromium', true],
  ]);
  expect(report.ok).toBe(true);
  expect(report.tokens).toBeGreaterThan(0);
  expect(report.browserRequests).toBeGreaterThan(0);
  // The counts that must be zero.
  expect(attempts).toEqual([]);
  expect(report.browserOutside).toEqual([]);
  expect(report.netLogPageOutside).toEqual([]);
  expect(report.netLogDns).toEqual([]);
}

const unshareWorks = spawnSync('unshare', ['-rn', 'sh', '-c', 'ip link set lo up'], { stdio: 'ignore' }).status === 0;
/** Runs a command in a new user + network namespace with only loopback (up). */
const inNamespace = (args: string[]) => ['-rn', 'sh', '-c', 'ip link set lo up && exec "$0" "$@"', ...args];

describe('network cut', () => {
  it('the guard catches a deliberate fetch, DNS lookups and connects, in child processes too, and lets loopback through', async () => {
    const dir = fs.mkdtempSync(path.join(root, 'self-'));
    const script = `
      const dns = require('node:dns');
      const net = require('node:net');
      const http = require('node:http');
      const { execFileSync } = require('node:child_process');
      const out = {};
      const settle = (p) => p.then(() => 'ok', (e) => (e.cause?.code ?? e.code ?? e.message));
      (async () => {
        out.fetch = await settle(fetch('http://example.com'));
        out.lookup = await new Promise((r) => dns.lookup('example.com', (e) => r(e ? e.code : 'ok')));
        out.resolve = await settle(dns.promises.resolve4('example.com'));
        out.connect = await new Promise((r) => net.connect(80, 'example.com').on('connect', () => r('ok')).on('error', (e) => r(e.code)));
        out.child = execFileSync(process.execPath, ['-e', "require('node:dns').lookup('example.org', (e) => console.log(e ? e.code : 'ok'))"]).toString().trim();
        const server = http.createServer((q, s) => s.end('local')).listen(0, '127.0.0.1');
        await new Promise((r) => server.once('listening', r));
        out.loopback = await (await fetch('http://127.0.0.1:' + server.address().port)).text();
        out.localhost = await (await fetch('http://localhost:' + server.address().port)).text().catch((e) => e.message);
        server.close();
        console.log(JSON.stringify(out));
      })();`;
    const r = await run(process.execPath, ['-e', script], guardEnv(dir, 'block'), 30_000);
    expect(r.code, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout.trim()) as Record<string, string>;
    expect(out).toMatchObject({ fetch: 'ECONNREFUSED', lookup: 'ENOTFOUND', resolve: 'ENOTFOUND', connect: 'ECONNREFUSED', child: 'ENOTFOUND', loopback: 'local' });
    const attempts = lines(path.join(dir, 'attempts.jsonl'));
    const seen = attempts.map((a) => `${a.layer} ${a.target}`);
    expect(seen).toContain('fetch http://example.com/');
    expect(seen).toContain('dns.lookup example.com');
    expect(seen).toContain('dns.promises.resolve4 example.com');
    expect(seen).toContain('net.Socket.connect example.com:80');
    expect(seen).toContain('dns.lookup example.org');
    // The child process is guarded too (another pid), and loopback left no trace.
    expect(new Set(attempts.map((a) => a.pid)).size).toBe(2);
    expect(seen.filter((s) => /127\.0\.0\.1|localhost/.test(s))).toEqual([]);
  });

  it('(a) the whole flow with the guard in every Node process: zero outbound attempts', async () => {
    const dir = fs.mkdtempSync(path.join(root, 'guarded-'));
    const r = await run(process.execPath, ['--import', 'tsx', FLOW, dir, model], guardEnv(dir, 'block'));
    const report = flowReport(r);
    const attempts = lines(path.join(dir, 'attempts.jsonl'));
    console.log(JSON.stringify({ layer: 'guard', attempts: attempts.length, steps: report.steps.map((s) => `${s.name}: ${s.ms} ms`), browserRequests: report.browserRequests, chromiumOwnBlocked: report.netLogBrowserOutside }));
    expectCleanFlow(report, attempts);
    // The guard was in the flow driver and in the browser-mode server it started.
    const loaded = lines(path.join(dir, 'loaded.jsonl')).map((l) => String(l.argv));
    expect(loaded.some((a) => a.includes('network-flow.ts'))).toBe(true);
    expect(loaded.some((a) => a.includes('bin/start.js') && a.includes('--browser'))).toBe(true);
  }, 180_000);

  it.skipIf(!unshareWorks)('(b) the same flow in a network namespace with only loopback', async () => {
    const dir = fs.mkdtempSync(path.join(root, 'netns-'));
    // The namespace really is cut: a connect outside and a DNS lookup both fail there.
    const probe = await run(
      'unshare',
      inNamespace([process.execPath, '-e', "require('net').connect(80,'192.0.2.1').on('error',e=>{console.log(e.code);require('dns').lookup('example.com',e2=>console.log(e2&&e2.code))})"]),
      {},
      30_000,
    );
    expect(probe.stdout.trim().split('\n')[0]).toBe('ENETUNREACH');
    expect(probe.stdout.trim().split('\n')[1]).toMatch(/^E[A-Z]+/);

    const r = await run('unshare', inNamespace([process.execPath, '--import', 'tsx', FLOW, dir, model]), guardEnv(dir, 'record'));
    const report = flowReport(r);
    const attempts = lines(path.join(dir, 'attempts.jsonl'));
    console.log(JSON.stringify({ layer: 'netns', attempts: attempts.length, steps: report.steps.map((s) => `${s.name}: ${s.ms} ms`), chromiumOwnBlocked: report.netLogBrowserOutside }));
    expectCleanFlow(report, attempts);
  }, 180_000);

  it.runIf(!unshareWorks)('(b) is not run here: unshare -rn does not work on this machine (no user namespaces)', () => {
    console.warn('network-cut (b) skipped: `unshare -rn` is not available here; layer (a) still ran.');
    expect(unshareWorks).toBe(false);
  });
});
