/**
 * EngineApi over HTTP (browser mode): the counterpart of native/server/http.ts. Browser-safe: no Node
 * imports, types only from the contract. Transport failures come back as Result errors, never throws.
 * Calls with hooks use POST /api/<method>/stream (NDJSON events, then the result); aborting the fetch
 * closes the connection, which cancels the call on the server.
 */
import type { EngineErrorData, RemoteMethod, Result, StreamMessage, TransportHooks } from '../../../native/contract/index.js';
import { engineOver, type Call } from './adapter.js';
import type { UiEngine } from './types.js';

type FetchLike = (input: string, init: RequestInit) => Promise<Response>;

const CANCELLED: EngineErrorData = { code: 'CANCELLED', message: 'Cancelled. Work that had finished is kept; start it again to continue.' };

export interface HttpTransport {
  call: Call;
}

export function createHttpTransport(baseUrl: string, fetchImpl?: FetchLike): HttpTransport {
  // Bound here: calling window.fetch as a method of another object throws "Illegal invocation".
  const doFetch: FetchLike = fetchImpl ?? ((input, init) => fetch(input, init));
  const base = baseUrl.replace(/\/+$/, '');
  const unreachable = (err: unknown): EngineErrorData => ({
    code: 'INTERNAL',
    message: `Cannot reach the ManualDesk engine at ${base}. Check that "npm start" is still running, then reload this page. (${String(err)})`,
  });

  async function post(method: string, arg: unknown, signal?: AbortSignal): Promise<Response | EngineErrorData> {
    try {
      return await doFetch(`${base}/api/${method}`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: arg === undefined ? '' : JSON.stringify(arg),
        signal,
      });
    } catch (err) {
      return isAbort(err) ? CANCELLED : unreachable(err);
    }
  }

  async function plain(method: RemoteMethod, arg: unknown): Promise<Result<unknown>> {
    const response = await post(method, arg);
    if (!(response instanceof Response)) return { ok: false, error: response };
    let body: unknown;
    try {
      body = await response.json();
    } catch {
      return failure({ code: 'INTERNAL', message: `The engine answered ${method} with HTTP ${response.status} and no readable result. Reload the page; if it repeats, restart "npm start".` });
    }
    if (isResult(body)) return body;
    return failure({ code: 'INTERNAL', message: `The engine answered ${method} with an unexpected reply. Reload the page.` });
  }

  async function streamed(method: RemoteMethod, arg: unknown, hooks: TransportHooks): Promise<Result<unknown>> {
    const controller = new AbortController();
    hooks.onCancelable?.(() => controller.abort());
    const response = await post(`${method}/stream`, arg, controller.signal);
    if (!(response instanceof Response)) return { ok: false, error: response };
    const type = response.headers.get('content-type') ?? '';
    if (!type.startsWith('application/x-ndjson')) {
      // Refused before the call started (bad JSON, unknown method…): an ordinary Result reply.
      try {
        const body: unknown = await response.json();
        if (isResult(body)) return body;
      } catch {
        /* fall through */
      }
      return failure({ code: 'INTERNAL', message: `The engine answered ${method} with HTTP ${response.status}. Reload the page and try again.` });
    }
    let result: Result<unknown> | null = null;
    try {
      await readLines(response, (line) => {
        const msg = JSON.parse(line) as StreamMessage;
        if (msg.type === 'result') result = msg.result;
        else hooks.onEvent?.(msg);
      });
    } catch (err) {
      if (isAbort(err) || controller.signal.aborted) return failure(CANCELLED);
      return failure(unreachable(err));
    }
    if (controller.signal.aborted && result === null) return failure(CANCELLED);
    return result ?? failure({ code: 'INTERNAL', message: `The engine stopped answering ${method} before it finished. Check that "npm start" is still running, then try again.` });
  }

  return {
    call: (method, arg, hooks) => (hooks ? streamed(method, arg, hooks) : plain(method, arg)),
  };
}

/** The full UI engine over HTTP. */
export function createHttpClient(baseUrl: string, fetchImpl?: FetchLike): UiEngine {
  return engineOver(createHttpTransport(baseUrl, fetchImpl).call);
}

async function readLines(response: Response, onLine: (line: string) => void): Promise<void> {
  if (!response.body) {
    for (const line of (await response.text()).split('\n')) if (line.trim()) onLine(line);
    return;
  }
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let buffered = '';
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    buffered += decoder.decode(value, { stream: true });
    let nl: number;
    while ((nl = buffered.indexOf('\n')) >= 0) {
      const line = buffered.slice(0, nl);
      buffered = buffered.slice(nl + 1);
      if (line.trim()) onLine(line);
    }
  }
  buffered += decoder.decode();
  if (buffered.trim()) onLine(buffered);
}

function isAbort(err: unknown): boolean {
  return err instanceof Error && err.name === 'AbortError';
}

function failure<T>(error: EngineErrorData): Result<T> {
  return { ok: false, error };
}

function isResult(body: unknown): body is Result<unknown> {
  if (typeof body !== 'object' || body === null || !('ok' in body)) return false;
  const b = body as { ok: unknown; value?: unknown; error?: { code?: unknown; message?: unknown } };
  if (b.ok === true) return 'value' in b;
  return b.ok === false && typeof b.error?.code === 'string' && typeof b.error.message === 'string';
}
