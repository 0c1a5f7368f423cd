/**
 * Runtime validation of what crosses into the engine from HTTP or IPC, one schema per request type.
 * Each schema is checked against the contract type in both directions (`satisfies` plus an
 * equality assertion), so the schemas and native/contract cannot drift apart.
 */
import path from 'node:path';
import { z } from 'zod';
import type {
  AskRequest,
  CodeLookupRequest,
  IngestRequest,
  Lang,
  OpenLibraryRequest,
  PackImportRequest,
  SearchFilters,
  SearchMode,
  SearchRequest,
  SourceRequest,
} from '../contract/index.js';
import { PACK_ID_RE } from '../packs/format.js';

const MAX_TEXT = 2_000;
const MAX_LIST = 1_000;
const MAX_PATH = 4_096;

const nonEmptyText = z.string().trim().min(1, 'must not be empty').max(MAX_TEXT, `must be at most ${MAX_TEXT} characters`);
const pathText = z.string().min(1, 'must not be empty').max(MAX_PATH).refine((s) => !s.includes('\0'), 'must not contain NUL');

/**
 * A file as the library names it: relative to its ingested folder, forward slashes (pipelines/scan.ts).
 * An absolute path or a ".." step can never name a library file, so it is refused before the engine.
 * A backslash separates steps only on Windows: on Linux and macOS `x\..\evil.md` is one legal file name.
 */
export function isLibraryFileName(s: string, windows = process.platform === 'win32'): boolean {
  if (/^[\\/]|^[a-zA-Z]:/.test(s)) return false;
  return !s.split(windows ? /[\\/]/ : '/').some((step) => step === '..');
}
/**
 * A folder or file on the engine's machine, as the technician chose it. A relative path would be
 * read against the engine's own working folder (browser mode: wherever `npm start` ran), a place
 * nobody chose, so it is refused.
 */
const localPath = pathText.refine((s) => path.isAbsolute(s), 'must be a full path (for example /home/you/manuals or C:\\Manuals), not a relative one');
const libraryFile = pathText.refine((s) => isLibraryFileName(s), 'must be a file as the library lists it (a relative name without ".." or a drive or leading slash)');

export const langSchema = z.enum(['en', 'zh']) satisfies z.ZodType<Lang>;
export const searchModeSchema = z.enum(['hybrid', 'keyword', 'vector']) satisfies z.ZodType<SearchMode>;

export const searchFiltersSchema = z.strictObject({
  manuals: z.array(z.string().max(MAX_TEXT)).max(MAX_LIST).optional(),
  equipment: z.array(z.string().max(MAX_TEXT)).max(MAX_LIST).optional(),
  lang: z.array(langSchema).max(2).optional(),
  revision: z.string().max(200).optional(),
  allRevisions: z.boolean().optional(),
  pathPrefix: z.string().max(MAX_PATH).optional(),
  packs: z.array(z.string().max(200)).max(MAX_LIST).optional(),
}) satisfies z.ZodType<SearchFilters>;

export const searchRequestSchema = z.strictObject({
  query: nonEmptyText,
  k: z.int().min(1).max(200).optional(),
  filters: searchFiltersSchema.optional(),
  mode: searchModeSchema.optional(),
}) satisfies z.ZodType<SearchRequest>;

export const codeLookupRequestSchema = z.strictObject({
  text: nonEmptyText,
  filters: searchFiltersSchema.optional(),
}) satisfies z.ZodType<CodeLookupRequest>;

/** Over HTTP and IPC, ingest takes paths only; progress hooks stay inside the engine process. */
export const ingestRequestSchema = z
  .strictObject({
    paths: z.array(localPath).max(MAX_LIST),
    force: z.boolean().optional(),
    completeVectors: z.boolean().optional(),
  })
  // No paths only to complete the vectors (turning search by meaning on, finishing a cancelled run).
  .refine((r) => r.paths.length > 0 || r.completeVectors === true, { message: 'must list at least one path', path: ['paths'] }) satisfies z.ZodType<IngestRequest>;

/** A question; earlier turns travel with it (the engine keeps no conversation state). */
export const askRequestSchema = z.strictObject({
  question: nonEmptyText,
  conversation: z
    .array(z.strictObject({ question: z.string().max(MAX_TEXT), answer: z.string().max(20_000) }))
    .max(50)
    .optional(),
  filters: searchFiltersSchema.optional(),
  k: z.int().min(1).max(50).optional(),
  prefer: z.enum(['auto', 'extractive', 'generative']).optional(),
}) satisfies z.ZodType<AskRequest>;

const packIdText = z.string().regex(PACK_ID_RE, 'must be a pack id as "manualdesk pack list" shows it (lower-case letters, digits, ".", "-" or "_")');

/** A library file as listed (in the site's library or an installed pack); the engine opens only files it has recorded, so no path is trusted here. */
export const sourceRequestSchema = z.strictObject({
  file: libraryFile,
  pack: packIdText.optional(),
}) satisfies z.ZodType<SourceRequest>;

export const removeFilesSchema = z.array(libraryFile).min(1, 'must list at least one file').max(MAX_LIST) satisfies z.ZodType<
  string[]
>;

/** A library folder on the engine's machine (browser mode: the server's; the engine checks it before using it). */
export const openLibraryRequestSchema = z.strictObject({
  dir: localPath,
  create: z.boolean(),
}) satisfies z.ZodType<OpenLibraryRequest>;

/** A pack file on the engine's machine (a stick, a download folder); the engine checks everything in it. */
export const packFileSchema = z.strictObject({ file: localPath }) satisfies z.ZodType<{ file: string }>;

export const packImportRequestSchema = z.strictObject({
  file: localPath,
  allowUnsigned: z.boolean().optional(),
}) satisfies z.ZodType<PackImportRequest>;

/** An installed pack's id, as the pack format defines it (so no path step like ".." reaches the pack folders). */
export const packIdSchema = z.strictObject({
  id: packIdText,
}) satisfies z.ZodType<{ id: string }>;

/** Methods without an argument accept nothing, null or {} (what a JSON client naturally sends). */
export const noArgumentSchema = z.union([z.undefined(), z.null(), z.strictObject({})]).transform(() => undefined);

// Both directions: a field added to the contract but not to a schema (or the reverse) fails typechecking.
type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
type Assert<T extends true> = T;
export type SchemaChecks = [
  Assert<Equal<z.output<typeof searchFiltersSchema>, SearchFilters>>,
  Assert<Equal<z.output<typeof searchRequestSchema>, SearchRequest>>,
  Assert<Equal<z.output<typeof codeLookupRequestSchema>, CodeLookupRequest>>,
  Assert<Equal<z.output<typeof ingestRequestSchema>, IngestRequest>>,
  Assert<Equal<z.output<typeof sourceRequestSchema>, SourceRequest>>,
  Assert<Equal<z.output<typeof askRequestSchema>, AskRequest>>,
  Assert<Equal<z.output<typeof packImportRequestSchema>, PackImportRequest>>,
  Assert<Equal<z.output<typeof openLibraryRequestSchema>, OpenLibraryRequest>>,
];

/** One line naming each offending field, e.g. `field "k": expected an integer`. */
export function describeIssues(error: z.ZodError): string {
  return error.issues
    .slice(0, 5)
    .map((issue) => {
      const where = issue.path.length > 0 ? `field "${issue.path.map(String).join('.')}"` : 'the request';
      const unknownKeys = issue.code === 'unrecognized_keys' ? `: unknown field(s) ${issue.keys.map((k) => `"${k}"`).join(', ')}` : '';
      return unknownKeys ? `${where}${unknownKeys}` : `${where}: ${issue.message}`;
    })
    .join('; ');
}
