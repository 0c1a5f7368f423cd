/**
 * EngineApi over HTTP (browser mode): the counterpart of native/server/http.ts. Browser-safe: no Node
 * imports, types only from the contract. Transport failures come back as Result errors, never throws.
 */
import type {
  CodeLookupRequest,
  EngineApi,
  EngineErrorData,
  EngineHooks,
  IngestRequest,
  Result,
  SearchRequest,
} from '../../../native/contract/index.js';

type FetchLike = (input: string, init: RequestInit) => Promise<Response>;

export function createHttpClient(baseUrl: string, fetchImpl?: FetchLike): EngineApi {
  // Bound here: calling window.fetch as a method of another object throws "Illegal invocation".
  const doFetch: FetchLike = fetchImpl ?? ((input, init) => fetch(input, init));
  const base = baseUrl.replace(/\/+$/, '');

  async function call<T>(method: string, arg?: unknown, signal?: AbortSignal): Promise<Result<T>> {
    let response: Response;
    try {
      response = await doFetch(`${base}/api/${method}`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: arg === undefined ? '' : JSON.stringify(arg),
        signal,
      });
    } catch (err) {
      if (err instanceof Error && err.name === 'AbortError') {
        return failure({ code: 'CANCELLED', message: 'The operation was cancelled.' });
      }
      return failure({
        code: 'INTERNAL',
        message: `Cannot reach the ManualDesk engine at ${base}. Is "npm start" still running? (${String(err)})`,
      });
    }
    let body: unknown;
    try {
      body = await response.json();
    } catch {
      return failure({
        code: 'INTERNAL',
        message: `The engine answered ${method} with HTTP ${response.status} and no readable result.`,
      });
    }
    if (isResult(body)) return body as Result<T>;
    return failure({ code: 'INTERNAL', message: `The engine answered ${method} with an unexpected reply.` });
  }

  return {
    info: () => call('info'),
    listManuals: () => call('listManuals'),
    search: (req: SearchRequest) => call('search', req),
    lookupCode: (req: CodeLookupRequest) => call('lookupCode', req),
    // Progress is not streamed over HTTP; cancelling aborts the wait, not necessarily the ingest.
    ingest: (req: IngestRequest, hooks?: EngineHooks) => call('ingest', req, hooks?.signal),
    removeFiles: (files: string[]) => call('removeFiles', files),
    // The engine belongs to the server process; nothing to release on this side.
    close: async () => {},
  };
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
