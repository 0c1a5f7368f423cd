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
  packFileSchema,
  packIdSchema,
  packImportRequestSchema,
  removeFilesSchema,
  searchRequestSchema,
  sourceRequestSchema,
} from './schemas.js';

/**
 * The request schema of each method. Typed from the table: a method added to the contract fails
 * typechecking here until its argument has a schema (a method without one takes noArgumentSchema).
 */
export const REQUEST_SCHEMAS = {
  info: noArgumentSchema,
  ingest: ingestRequestSchema,
  search: searchRequestSchema,
  lookupCode: codeLookupRequestSchema,
  listManuals: noArgumentSchema,
  removeFiles: removeFilesSchema,
  openSource: sourceRequestSchema,
  ask: askRequestSchema,
  listModels: noArgumentSchema,
  listPacks: noArgumentSchema,
  verifyPack: packFileSchema,
  importPack: packImportRequestSchema,
  updatePack: packImportRequestSchema,
  rollbackPack: packIdSchema,
  removePack: packIdSchema,
} satisfies { [M in RemoteMethod]: z.ZodType<ArgOf<M>> };

type AnyMethod = (...args: unknown[]) => Promise<Result<unknown>>;

/**
 * Validates `arg` for `method` and calls the engine; with `hooks`, a streaming method gets its hooks
 * object (signal and the hook named in the table, whose calls become events). Never throws.
 */
export async function callEngine(engine: EngineApi, method: RemoteMethod, arg: unknown, hooks?: CallHooks): Promise<Result<unknown>> {
  const schema: z.ZodType = REQUEST_SCHEMAS[method];
  const parsed = schema.safeParse(arg);
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
