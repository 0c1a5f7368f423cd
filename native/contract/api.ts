/**
 * The one engine contract. The CLI calls it directly; the desktop app (IPC) and browser mode (HTTP)
 * expose exactly these methods. Everything here must be plain, serialisable data.
 */
import type { ErrorCode, Result } from './errors.js';
import type { Block, Lang } from './document.js';
import type { AskHooks, AskRequest, AskResponse, ModelStatus } from './answer.js';
import type { PackImportRequest, PackInfo, PackProgress, PackVerifyReport } from './packs.js';

export type HitKind = 'passage' | 'table-row' | 'code';

export interface SearchHit {
  /** Path relative to the ingested root. */
  file: string;
  page: number | null;
  /** Heading path joined with ' > '. */
  section: string;
  text: string;
  score: number;
  kind: HitKind;
  manual: string;
  lang: Lang;
  chunkId: string;
  /** Id of the installed pack the hit comes from; absent for the site's own library. */
  pack?: string;
}

export interface SearchFilters {
  /** Manual titles to keep. */
  manuals?: string[];
  /** Equipment models to keep (from manual metadata). */
  equipment?: string[];
  lang?: Lang[];
  /** Revision to search; by default only the newest revision of each manual is searched. */
  revision?: string;
  /** Include older revisions of manuals. */
  allRevisions?: boolean;
  /** Keep files whose relative path starts with this. */
  pathPrefix?: string;
  /** Installed pack ids to search ("local" names the site's own library); default: all. */
  packs?: string[];
}

export type SearchMode = 'hybrid' | 'keyword' | 'vector';

export interface SearchRequest {
  query: string;
  k?: number;
  filters?: SearchFilters;
  /** Default: hybrid when the library has vectors, keyword otherwise. */
  mode?: SearchMode;
}

export interface SearchResponse {
  query: string;
  hits: SearchHit[];
  ms: number;
  /** Which retrievers actually ran. */
  mode: SearchMode;
}

export interface SkippedFile {
  file: string;
  reason: string;
  /** Why, as an error code (FILE_UNREADABLE, UNSUPPORTED_FORMAT…); absent in reports of older versions. */
  code?: ErrorCode;
}

export interface IngestRequest {
  /** Files and folders to add or update; may be empty with completeVectors. */
  paths: string[];
  /** Re-parse and re-embed even unchanged files. */
  force?: boolean;
  /**
   * Make every passage searchable by meaning: a keyword-only library first takes the installed
   * embedding model (the first in the manifest's order); then every passage still without a vector
   * (all of them, or what a cancelled run left) gets one, keyword search and codes working meanwhile.
   */
  completeVectors?: boolean;
}

export interface IngestReport {
  /** Files parsed and stored in this run (unchanged files are not counted). */
  files: number;
  /** Chunks written in this run. */
  chunks: number;
  unchanged: number;
  removed: number;
  skipped: SkippedFile[];
  /**
   * PDF pages left without searchable text, per file: no text layer and OCR found nothing on them,
   * failed or was off (the parse warnings say which).
   */
  pagesNeedingOcr: { file: string; pages: number[] }[];
  /**
   * PDF pages read by OCR in this run, per file; `lowConfidence` lists the pages whose OCR is
   * uncertain ("OCR text, check the page"). Absent when no page was OCR'd.
   */
  ocrPages?: { file: string; pages: number[]; lowConfidence: number[] }[];
  /**
   * Files read in this run that gave no searchable text at all (a table with no rows, a document of
   * headings only; scanned PDF pages are in pagesNeedingOcr instead): recorded, but nothing can find them.
   */
  withoutText?: string[];
  /**
   * What reading a file noticed and the technician should know, per file, in plain sentences: lines of
   * a YAML file left out for a syntax error, an encoding guessed, PDF pages without text. Absent: none.
   */
  warnings?: { file: string; messages: string[] }[];
  /** Passages given their vectors in this run's vector phase (absent: none). */
  embedded?: number;
  seconds: number;
}

export interface IngestProgress {
  phase: 'scan' | 'parse' | 'embed' | 'store' | 'done';
  file?: string;
  done: number;
  total: number;
  /** While a scanned PDF is OCR'd (phase 'parse'): the page just read and the file's page count. */
  page?: number;
  pageCount?: number;
  /** What done and total count: files (absent), or passages (phase 'embed', vectors after every file is parsed). */
  unit?: 'passages';
}

export interface ManualInfo {
  file: string;
  title: string;
  equipment: string[];
  revision: string | null;
  language: Lang | null;
  publisher: string | null;
  format: string;
  chunks: number;
  /** False when a newer revision of the same manual is in the library. */
  current: boolean;
  /** Absolute path the file was read from (for re-indexing it). */
  source?: string;
  /** The folder it was added from (re-indexing reads it again; two manuals of one name tell apart by it); null: not known. */
  folder?: string | null;
  /** PDF pages with no text layer (they need OCR to be searchable). */
  pagesNeedingOcr?: number[];
}

/**
 * A library's embedding model as the model list knows it. `terms`: for a model whose licence is not an
 * open-source one and must be passed on with the weights: the terms' name, where to read them, and the
 * terms file beside the installed weights (null: the model or that file is not on this computer).
 */
export interface EmbedderModelInfo {
  name: string;
  license: string;
  terms: { name: string; url: string; file: string | null } | null;
}

export interface LibraryInfo {
  dir: string;
  formatVersion: number;
  chunkerVersion: number;
  embedder: { id: string; dims: number } | null;
  /** The embedder's model by name, with its licence and terms; null: none, or a model the model list does not know. */
  embedderModel?: EmbedderModelInfo | null;
  files: number;
  chunks: number;
  codes: number;
  /**
   * Passages still without vectors (a library with an embedding model whose last ingest was cancelled
   * or stopped while embedding): found by keyword and code meanwhile; the next ingest embeds them.
   */
  vectorsPending: number;
  /**
   * A keyword-only library, or one whose own model is not installed here: the installed embedding
   * model it can take (IngestRequest.completeVectors: adopted, or switched to); else null.
   */
  modelToAdd: string | null;
  /**
   * The library's own embedding model when it is not installed on this computer: searched by keyword
   * and fault code only, and no manuals can be added, until it is installed (the message says how) or
   * the library switches to `modelToAdd`. Null otherwise.
   */
  modelMissing?: { id: string; message: string } | null;
  /**
   * A switch to another embedding model under way (ingest --embedder with a model the library does
   * not have, stopped before it finished): the model, and passages still to embed of all. Searches
   * use the library's own model until it completes.
   */
  switching?: { to: string; pending: number; total: number } | null;
  /**
   * The library's file list (files.json) was found missing, damaged, emptied or older than the
   * library when it was opened, and its records were rebuilt from the stored passages: what happened
   * and what to do (a read-only open searches the rebuilt list and says how to repair it). Null otherwise.
   */
  filesRebuilt?: string | null;
  /**
   * The bundled fictional sample library: built by `npm start` from samples/library (its marker file,
   * native/library/layout.ts SAMPLE_MARKER_FILE), or holding nothing but manuals read from a
   * samples/library folder. Its procedures must never be taken for a real machine's.
   */
  sample: boolean;
}

export interface OpenLibraryRequest {
  /** The library folder on the engine's computer. */
  dir: string;
  /**
   * true: start a new, empty library there (the folder is made when missing; it must be empty or hold
   * a library already, which is then opened as it is). false: open the existing library there.
   */
  create: boolean;
}

export interface OpenedLibrary {
  info: LibraryInfo;
  /** True when this call made a new library (false: an existing one was opened). */
  created: boolean;
}

/** A fault-code definition found in a manual (filled by the fault-code stage). */
export interface CodeMatch {
  code: string;
  key: string;
  title: string;
  description: string;
  cause: string;
  remedy: string;
  severity: string | null;
  /** Equipment / product scope, e.g. ["MK4", "MK3.9"] or the manual title. */
  scope: string[];
  manual: string;
  file: string;
  page: number | null;
  section: string;
  text: string;
  /** Language of the definition: a translated table gives a second match for the same key (EN + 中文). */
  lang?: Lang;
  /** Id of the installed pack the definition comes from; absent for the site's own library. */
  pack?: string;
  /**
   * A typed value read as the flags it is made of, where this match is one of them (`0x41 =
   * INITIALIZING (bit 0) + WATCHDOG_EXPIRED (bit 6)`); absent for a code found as written.
   */
  decoded?: string;
}

export interface CodeLookupRequest {
  text: string;
  filters?: SearchFilters;
}

export interface CodeLookupResponse {
  query: string;
  /** Candidates detected in the text, normalised. */
  detected: string[];
  /** Each detected code as written in the text, by normalised key (`error:199` → `E-199`), for messages. */
  typed?: Record<string, string>;
  matches: CodeMatch[];
  /** When a detected code is not defined: the nearest defined codes of the same family. */
  nearest: { code: string; title: string; manual: string }[];
  ms: number;
}

export interface EngineHooks {
  signal?: AbortSignal;
  onProgress?: (p: IngestProgress) => void;
}

/** A library file for the source viewer: only files recorded in the library can be opened. */
export interface SourceRequest {
  /** Relative path as listed (SearchHit.file, Citation.file, ManualInfo.file). */
  file: string;
  /** Installed pack the file comes from (SearchHit.pack, Citation.pack); absent or "local": the site's own library. */
  pack?: string;
}

export type SourceDocument =
  | { kind: 'pdf'; file: string; manual: string; format: string; /** The PDF itself, base64. */ base64: string; changed: boolean }
  | {
      kind: 'blocks';
      file: string;
      manual: string;
      format: string;
      /** The document as parsed (headings, paragraphs, rows), in reading order. */
      blocks: Block[];
      /** True when the file on disk differs from the indexed one (re-index it). */
      changed: boolean;
    };

export interface SourceMethods {
  openSource(req: SourceRequest): Promise<Result<SourceDocument>>;
}

export interface EngineApi extends SourceMethods, AnswerMethods, PackMethods {
  info(): Promise<Result<LibraryInfo>>;
  ingest(req: IngestRequest, hooks?: EngineHooks): Promise<Result<IngestReport>>;
  search(req: SearchRequest): Promise<Result<SearchResponse>>;
  lookupCode(req: CodeLookupRequest): Promise<Result<CodeLookupResponse>>;
  listManuals(): Promise<Result<ManualInfo[]>>;
  /** Remove files (relative paths as listed) from the library; their chunks and codes are deleted for real. */
  removeFiles(files: string[]): Promise<Result<{ removed: number }>>;
  /**
   * Switches the engine to another library folder (create: a new one). The library in use stays open
   * until the other one has opened, then it is closed (its lock released); on any failure it stays in
   * use, unchanged. Refused with LIBRARY_BUSY while a write (ingest, remove, pack operation) runs or
   * waits; searches and answers already running finish on the old library, later ones use the new one.
   * In-session only: the next start opens the library it is started with.
   */
  openLibrary(req: OpenLibraryRequest): Promise<Result<OpenedLibrary>>;
  close(): Promise<void>;
}

// ---- Methods that later stages add to EngineApi (each stage's owner adds `extends` when it lands) ----

export interface AnswerMethods {
  ask(req: AskRequest, hooks?: AskHooks): Promise<Result<AskResponse>>;
  listModels(): Promise<Result<ModelStatus[]>>;
}

export interface PackHooks {
  signal?: AbortSignal;
  onProgress?: (p: PackProgress) => void;
}

export interface PackMethods {
  listPacks(): Promise<Result<PackInfo[]>>;
  verifyPack(req: { file: string }, hooks?: PackHooks): Promise<Result<PackVerifyReport>>;
  importPack(req: PackImportRequest, hooks?: PackHooks): Promise<Result<PackInfo>>;
  /** A newer version of an installed pack replaces the active one; the older is kept for rollback. */
  updatePack(req: PackImportRequest, hooks?: PackHooks): Promise<Result<PackInfo>>;
  rollbackPack(req: { id: string }): Promise<Result<PackInfo>>;
  removePack(req: { id: string }): Promise<Result<{ removed: string }>>;
}
