/**
 * Validate-then-call for the remote methods: shared by the HTTP server and the Electron IPC handlers,
 * so both boundaries accept exactly the same input and answer with the same Result data.
 */
import type { z } from 'zod';
import { fail, toErrorData, type EngineApi, type Result } from '../contract/index.js';
import type { RemoteMethod } from './methods.js';
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

type Caller = (engine: EngineApi, arg: unknown) => Promise<Result<unknown>>;

function withSchema<S extends z.ZodType>(
  method: RemoteMethod,
  schema: S,
  call: (engine: EngineApi, arg: z.output<S>) => Promise<Result<unknown>>,
): Caller {
  return async (engine, raw) => {
    const parsed = schema.safeParse(raw);
    if (!parsed.success) {
      return fail('INVALID_INPUT', `Invalid ${method} request: ${describeIssues(parsed.error)}.`);
    }
    return call(engine, parsed.data);
  };
}

const CALLERS = {
  info: withSchema('info', noArgumentSchema, (e) => e.info()),
  listManuals: withSchema('listManuals', noArgumentSchema, (e) => e.listManuals()),
  search: withSchema('search', searchRequestSchema, (e, req) => e.search(req)),
  lookupCode: withSchema('lookupCode', codeLookupRequestSchema, (e, req) => e.lookupCode(req)),
  ingest: withSchema('ingest', ingestRequestSchema, (e, req) => e.ingest(req)),
  removeFiles: withSchema('removeFiles', removeFilesSchema, (e, files) => e.removeFiles(files)),
  openSource: withSchema('openSource', sourceRequestSchema, (e, req) => e.openSource(req)),
  ask: withSchema('ask', askRequestSchema, (e, req) => e.ask(req)),
  listModels: withSchema('listModels', noArgumentSchema, (e) => e.listModels()),
  listPacks: withSchema('listPacks', noArgumentSchema, (e) => e.listPacks()),
  verifyPack: withSchema('verifyPack', packFileSchema, (e, req) => e.verifyPack(req)),
  importPack: withSchema('importPack', packImportRequestSchema, (e, req) => e.importPack(req)),
  updatePack: withSchema('updatePack', packImportRequestSchema, (e, req) => e.updatePack(req)),
  rollbackPack: withSchema('rollbackPack', packIdSchema, (e, req) => e.rollbackPack(req)),
  removePack: withSchema('removePack', packIdSchema, (e, req) => e.removePack(req)),
} satisfies Record<RemoteMethod, Caller>;

/** Validates `arg` for `method` and calls the engine; never throws. */
export async function callEngine(engine: EngineApi, method: RemoteMethod, arg: unknown): Promise<Result<unknown>> {
  try {
    return await CALLERS[method](engine, arg);
  } catch (err) {
    return { ok: false, error: toErrorData(err) };
  }
}
