/**
 * Validate-then-call for the remote methods, built from the contract's method table: shared by the
 * HTTP server, the engine host (utility process) and the Electron IPC handlers, so every boundary
 * accepts exactly the same input, binds a streaming method's hooks the same way, and answers with
 * the same Result data.
 */
import type { z } from 'zod';
import {
  engineHooksFor,
  fail,
  toErrorData,
  type ArgOf,
  type CallHooks,
  type EngineApi,
  type RemoteMethod,
  type Result,
} from '../contract/index.js';
import {
  askRequestSchema,
  codeLookupRequestSchema,
  describeIssues,
  ingestRequestSchema,
  noArgumentSchema,
  openLibraryRequestSchema,
  packFileSchema,
  packIdSchema,
  packImportRequestSchema,
  removeFilesSchema,
  searchRequestSchema,
  sourceRequestSchema,
} from './schemas.js';

/** Methods whose one argument is a request (the others take none). */
type RequestMethod = { [M in RemoteMethod]: [ArgOf<M>] extends [undefined] ? never : M }[RemoteMethod];

/**
 * The schema of each method's request. Typed from the contract: a method added with a request fails
 * typechecking here until its request has a schema; a method without an argument needs no entry (it
 * accepts nothing, null or {}).
 */
export const REQUEST_SCHEMAS = {
  ingest: ingestRequestSchema,
  search: searchRequestSchema,
  lookupCode: codeLookupRequestSchema,
  removeFiles: removeFilesSchema,
  openLibrary: openLibraryRequestSchema,
  openSource: sourceRequestSchema,
  ask: askRequestSchema,
  verifyPack: packFileSchema,
  importPack: packImportRequestSchema,
  updatePack: packImportRequestSchema,
  rollbackPack: packIdSchema,
  removePack: packIdSchema,
} satisfies { [M in RequestMethod]: z.ZodType<ArgOf<M>> };

/** The schema a method's argument must pass. */
export function requestSchema(method: RemoteMethod): z.ZodType {
  return Object.hasOwn(REQUEST_SCHEMAS, method) ? REQUEST_SCHEMAS[method as RequestMethod] : noArgumentSchema;
}

type AnyMethod = (...args: unknown[]) => Promise<Result<unknown>>;

/**
 * Validates `arg` for `method` and calls the engine; with `hooks`, a streaming method gets its hooks
 * object (signal and the hook named in the table, whose calls become events). Never throws.
 */
export async function callEngine(engine: EngineApi, method: RemoteMethod, arg: unknown, hooks?: CallHooks): Promise<Result<unknown>> {
  const parsed = requestSchema(method).safeParse(arg);
  if (!parsed.success) {
    return fail('INVALID_INPUT', `Invalid ${method} request: ${describeIssues(parsed.error)}.`);
  }
  const extra = hooks ? engineHooksFor(method, hooks) : undefined;
  const args = extra ? [parsed.data, extra] : parsed.data === undefined ? [] : [parsed.data];
  try {
    return await (engine[method] as AnyMethod).apply(engine, args);
  } catch (err) {
    return { ok: false, error: toErrorData(err) };
  }
}
