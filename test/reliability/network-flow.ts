/**
 * The whole ManualDesk flow, for the network-cut test (run as its own Node process so the network
 * guard is in it from the first line, and inside `unshare -rn` for the namespace variant):
 *
 *   start browser mode (bin/start.js builds the sample library: ingest) → ingest a folder over HTTP
 *   → fault-code lookups → search → ask with a local GGUF model (streamed tokens) → build, sign,
 *   trust and import a manual pack → search the pack → the UI in Chromium (system or npm-installed; code card,
 *   search hits, an answer), with every browser request outside loopback logged and aborted.
 *
 *   node --import tsx test/reliability/network-flow.ts <work dir> <model.gguf>
 *
 * Prints one JSON line (FlowReport) and exits 0 when every step worked. Every Node process of the
 * flow inherits NODE_OPTIONS from the caller (the test puts the guard there).
 */
import fs from 'node:fs';
import path from 'node:path';
import { chromium, type Browser } from 'playwright-core';
import { startBrowserServer, type ServerProcess } from '../../scripts/soak.js';
import { buildPack } from '../../native/packs/build.js';
import { generateKeys, trustKey } from '../../native/packs/keys.js';
import { writeManuals } from '../integration/packs-helpers.js';
import { CHROMIUM_ARGS } from '../../playwright.config.js';
import { findChromium } from '../e2e/chromium.js';

/**
 * The e2e flags (playwright.config.ts, which turn off the autofill server and network time queries),
 * plus a host resolver that resolves nothing but loopback, so the browser's own Google-service calls
 * (account list, GCM check-in, …: not the page's, and not switchable off by a flag) cannot leave the
 * machine, and a net log of everything Chromium attempts (the test counts it).
 */
const BROWSER_ARGS = [...CHROMIUM_ARGS, '--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE 127.0.0.1 , EXCLUDE localhost'];

export interface FlowReport {
  ok: boolean;
  steps: { name: string; ok: boolean; ms: number; detail?: string }[];
  /** Requests the page made (all of them) and those to a host other than 127.0.0.1/localhost. */
  browserRequests: number;
  browserOutside: string[];
  /** From Chromium's net log: requests made for the page (its network isolation key is the app's origin) to another host. */
  netLogPageOutside: string[];
  /** From Chromium's net log: the browser's own requests to other hosts (Google services; none resolved). */
  netLogBrowserOutside: string[];
  /** From Chromium's net log: DNS queries that reached a resolver for a non-loopback name. */
  netLogDns: string[];
  /** Tokens the GGUF model streamed for the answer over HTTP. */
  tokens: number;
  error?: string;
}

/** Tokens to read from the model before cancelling the answer. */
const ASK_TOKENS = 12;

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '[::1]', '::1']);

async function main(): Promise<void> {
  const [work, model] = process.argv.slice(2);
  if (!work || !model) throw new Error('usage: network-flow.ts <work dir> <model.gguf>');
  const report: FlowReport = { ok: false, steps: [], browserRequests: 0, browserOutside: [], netLogPageOutside: [], netLogBrowserOutside: [], netLogDns: [], tokens: 0 };
  let server: ServerProcess | null = null;
  let browser: Browser | null = null;
  const step = async (name: string, fn: () => Promise<string | void>) => {
    const t0 = performance.now();
    try {
      const detail = await fn();
      report.steps.push({ name, ok: true, ms: Math.round(performance.now() - t0), ...(detail ? { detail } : {}) });
    } catch (err) {
      report.steps.push({ name, ok: false, ms: Math.round(performance.now() - t0), detail: err instanceof Error ? err.message : String(err) });
      throw err;
    }
  };
  const api = async <T>(method: string, arg?: unknown): Promise<T> => {
    const res = await fetch(`${server!.url}/api/${method}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...server!.authHeaders },
      body: arg === undefined ? '' : JSON.stringify(arg),
    });
    const body = (await res.json()) as { ok: boolean; value?: T; error?: { code: string; message: string } };
    if (!body.ok) throw new Error(`${method}: ${body.error?.code} ${body.error?.message}`);
    return body.value as T;
  };
  /** A streamed call: the events, then the result (which must be ok). */
  const stream = async <T>(method: string, arg: unknown): Promise<{ value: T; events: { type: string }[] }> => {
    const res = await fetch(`${server!.url}/api/${method}/stream`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...server!.authHeaders },
      body: JSON.stringify(arg),
    });
    const lines = (await res.text()).trim().split('\n').map((l) => JSON.parse(l) as { type: string; result?: { ok: boolean; value?: T; error?: { code: string; message: string } } });
    const last = lines.at(-1);
    if (last?.type !== 'result' || !last.result?.ok) throw new Error(`${method}: ${JSON.stringify(last?.result?.error ?? last)}`);
    return { value: last.result.value as T, events: lines.slice(0, -1) };
  };

  const home = path.join(work, 'home');
  const netLog = path.join(work, 'chromium-netlog.json');
  fs.mkdirSync(home, { recursive: true });
  const libraryDir = path.join(home, 'sample-library');
  try {
    // The publisher's key is trusted before the app starts: `keys trust` writes under the library's
    // lock, which the running browser-mode engine holds.
    const keys = await generateKeys(path.join(work, 'keys'));
    await trustKey(keys.publicKey, libraryDir);
    await step('start browser mode (builds the sample library)', async () => {
      server = await startBrowserServer({ home, env: { MANUALDESK_LLM: model } });
      return server.url;
    });

    await step('ingest a folder', async () => {
      const src = writeManuals(path.join(work, 'manuals'));
      const { value, events } = await stream<{ files: number; chunks: number }>('ingest', { paths: [src] });
      if (value.files !== 3) throw new Error(`expected 3 files ingested, got ${value.files}`);
      return `${value.files} files, ${value.chunks} chunks, ${events.length} progress events`;
    });

    await step('fault-code lookup', async () => {
      const a = await api<{ matches: { code: string }[] }>('lookupCode', { text: 'E-107' });
      const b = await api<{ matches: { file: string }[] }>('lookupCode', { text: 'E-205' });
      if (a.matches.length === 0) throw new Error('E-107 (sample library) not found');
      if (!b.matches.some((m) => m.file.includes('hx-500'))) throw new Error('E-205 (ingested manual) not found');
    });

    await step('search', async () => {
      const r = await api<{ hits: { file: string }[] }>('search', { query: 'bleed the cylinder air bubbles' });
      if (!r.hits.some((h) => h.file.includes('hx-500'))) throw new Error('the ingested press manual is not among the hits');
    });

    await step('ask with the local GGUF model', async () => {
      // The answer streams from the model; once it has produced tokens the call is cancelled by
      // closing the connection (a full answer from the random-weight fixture takes minutes on a busy
      // 2-core machine and proves nothing more about the network).
      const controller = new AbortController();
      const res = await fetch(`${server!.url}/api/ask/stream`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...server!.authHeaders },
        body: JSON.stringify({ question: 'How do I bleed air from the main cylinder of the HX-500 press?', prefer: 'generative' }),
        signal: controller.signal,
      });
      let buffered = '';
      let result: unknown = null;
      const decoder = new TextDecoder();
      try {
        for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
          buffered += decoder.decode(chunk, { stream: true });
          let nl: number;
          while ((nl = buffered.indexOf('\n')) >= 0) {
            const msg = JSON.parse(buffered.slice(0, nl)) as { type: string; result?: unknown };
            buffered = buffered.slice(nl + 1);
            if (msg.type === 'token') report.tokens++;
            if (msg.type === 'result') result = msg.result;
          }
          if (report.tokens >= ASK_TOKENS || result) break;
        }
      } finally {
        controller.abort();
      }
      if (report.tokens === 0) throw new Error(`the model streamed no tokens: ${JSON.stringify(result)}`);
      const models = await api<{ id: string; inUse?: boolean }[]>('listModels');
      return `${report.tokens} tokens streamed; model in use: ${models.filter((m) => m.inUse).map((m) => m.id).join(', ')}`;
    });

    await step('build, trust and import a signed pack', async () => {
      const src = writeManuals(path.join(work, 'pack-src'), 2);
      const file = path.join(work, 'plant.mdpack');
      await buildPack({ id: 'plant-manuals', name: 'Plant manuals', publisher: 'Fictional Works', version: '1.0', source: src, out: file, keyFile: keys.privateKey, embedder: { kind: 'none' } });
      const { value } = await stream<{ id: string }>('importPack', { file });
      const hits = await api<{ hits: { pack?: string }[] }>('search', { query: 'light curtain interlock test rod', filters: { packs: [value.id] } });
      if (!hits.hits.some((h) => h.pack === 'plant-manuals')) throw new Error('the imported pack is not searched');
      return value.id;
    });

    await step('UI in Chromium', async () => {
      const found = findChromium();
      browser = await chromium.launch({
        executablePath: found.executablePath,
        env: found.env,
        args: [...BROWSER_ARGS, `--log-net-log=${netLog}`, '--net-log-capture-mode=Default'],
        timeout: 60_000,
      });
      const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
      await context.route('**/*', (route) => {
        const url = new URL(route.request().url());
        const local = ['data:', 'blob:', 'about:'].includes(url.protocol) || LOOPBACK.has(url.hostname);
        if (local) return route.continue();
        report.browserOutside.push(url.href);
        return route.abort('blockedbyclient');
      });
      const page = await context.newPage();
      page.on('request', () => report.browserRequests++);
      await page.goto(server!.openUrl);
      const input = page.locator('#search-input');
      await input.waitFor({ timeout: 30_000 });
      await input.fill('E-107');
      await page.locator('.code-card .code', { hasText: 'E-107' }).first().waitFor({ timeout: 30_000 });
      await input.fill('hydraulic oil change');
      await page.locator('.hit').first().waitFor({ timeout: 30_000 });
      await context.close();
      await browser.close();
      browser = null;
      return `${report.browserRequests} requests`;
    });
    report.ok = true;
  } catch (err) {
    report.error = err instanceof Error ? err.message : String(err);
  } finally {
    await (browser as Browser | null)?.close().catch(() => {});
    await (server as ServerProcess | null)?.stop();
    if (server) report.error ??= undefined;
    Object.assign(report, readNetLog(netLog));
  }
  if (!report.ok && server) report.error = `${report.error}\n--- server log ---\n${(server as ServerProcess).log().slice(-3000)}`;
  console.log(JSON.stringify(report));
  process.exitCode = report.ok ? 0 : 1;
}

/** Requests and DNS queries in a Chromium net log (JSON; unterminated when the browser did not finish it). */
function readNetLog(file: string): Pick<FlowReport, 'netLogPageOutside' | 'netLogBrowserOutside' | 'netLogDns'> {
  const out = { netLogPageOutside: new Set<string>(), netLogBrowserOutside: new Set<string>(), netLogDns: new Set<string>() };
  let log: { constants: { logEventTypes: Record<string, number> }; events: { type: number; params?: Record<string, unknown> }[] };
  try {
    const text = fs.readFileSync(file, 'utf8').trim();
    try {
      log = JSON.parse(text);
    } catch {
      log = JSON.parse(`${text.replace(/,\s*$/, '')}]}`);
    }
  } catch {
    return { netLogPageOutside: ['(no readable net log)'], netLogBrowserOutside: [], netLogDns: [] };
  }
  const type = log.constants.logEventTypes;
  for (const e of log.events) {
    const p = e.params ?? {};
    if (e.type === type.URL_REQUEST_START_JOB && typeof p.url === 'string') {
      const url = new URL(p.url);
      if (!['http:', 'https:', 'ws:', 'wss:'].includes(url.protocol) || LOOPBACK.has(url.hostname)) continue;
      const forPage = /\b(127\.0\.0\.1|localhost)\b/.test(String(p.network_isolation_key ?? '')) || /127\.0\.0\.1|localhost/.test(String(p.initiator ?? ''));
      (forPage ? out.netLogPageOutside : out.netLogBrowserOutside).add(`${url.origin}${url.pathname}`);
    }
    if (e.type === type.DNS_TRANSACTION && typeof p.hostname === 'string' && !LOOPBACK.has(p.hostname)) out.netLogDns.add(p.hostname);
  }
  return { netLogPageOutside: [...out.netLogPageOutside], netLogBrowserOutside: [...out.netLogBrowserOutside], netLogDns: [...out.netLogDns] };
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? err.stack : String(err));
  process.exit(1);
});
