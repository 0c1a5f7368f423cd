/**
 * commit.json: the second witness of what a library has committed, so that files.json is never the
 * only proof that rows exist.
 *
 * files.json is the commit point of every change and carries a commit number; every commit then
 * writes commit.json with the same number and each committed file's generation. A files.json whose
 * number is below commit.json's (missing, emptied, damaged, or restored from an older backup) is
 * detected at open: the file records are rebuilt from the tables, guided by commit.json, instead of
 * taking every row for a killed run's leftovers. A files.json one commit ahead is the normal window
 * between the two writes (the process was killed in between) and is trusted.
 *
 * A library from before commit.json (none recorded) that has rows but no file records is rebuilt
 * from the rows alone: each file at the newest generation its rows hold.
 */
import path from 'node:path';
import type { FileRecord, Lang } from '../contract/document.js';
import { readJson } from './atomic-json.js';

export const COMMIT_FILE = 'commit.json';
const COMMIT_FORMAT_VERSION = 1;

export interface CommitRecord {
  formatVersion: number;
  /** The number of the last commit of files.json. */
  commit: number;
  /** Each committed file's generation. */
  files: Record<string, number>;
}

/** What files.json held when the library was opened. */
export interface FilesJsonRead {
  /** Its records; empty when it is missing or damaged. */
  files: FileRecord[];
  /** Its commit number (0: none recorded, written before commit numbers or by an older version). */
  commit: number;
  state: 'ok' | 'missing' | 'damaged';
}

export function commitRecordOf(commit: number, files: Iterable<FileRecord>): CommitRecord {
  const map: Record<string, number> = {};
  for (const f of files) map[f.file] = f.generation;
  return { formatVersion: COMMIT_FORMAT_VERSION, commit, files: map };
}

/** commit.json, or null when it is missing or not one (a damaged witness is no witness). */
export async function readCommitRecord(dir: string): Promise<CommitRecord | null> {
  const data = (await readJson(path.join(dir, COMMIT_FILE)).catch(() => undefined)) as Partial<CommitRecord> | null | undefined;
  if (!data || typeof data !== 'object' || !isCount(data.commit) || !data.files || typeof data.files !== 'object') return null;
  const files: Record<string, number> = {};
  for (const [file, gen] of Object.entries(data.files)) if (isCount(gen)) files[file] = gen;
  return { formatVersion: Number(data.formatVersion) || COMMIT_FORMAT_VERSION, commit: data.commit, files };
}

/** files.json as found: a missing, empty (0 bytes), unparsable or malformed one reads as no records. */
export async function readFilesJson(file: string): Promise<FilesJsonRead> {
  let data: unknown;
  try {
    data = await readJson(file);
  } catch {
    return { files: [], commit: 0, state: 'damaged' };
  }
  if (data === undefined) return { files: [], commit: 0, state: 'missing' };
  const obj = data as { files?: unknown; commit?: unknown } | null;
  if (!obj || typeof obj !== 'object' || !Array.isArray(obj.files)) return { files: [], commit: 0, state: 'damaged' };
  const files = (obj.files as unknown[]).filter(isRecord);
  return { files, commit: isCount(obj.commit) ? obj.commit : 0, state: 'ok' };
}

/**
 * Why files.json cannot be taken as the whole truth, or null when it can. `hasRows`: the tables hold
 * rows (a library without commit.json is only suspect when its rows have no records at all).
 */
export function filesJsonDoubt(read: FilesJsonRead, witness: CommitRecord | null, hasRows: boolean): string | null {
  const what = read.state === 'missing' ? 'is missing' : read.state === 'damaged' ? 'is damaged' : read.files.length === 0 ? 'is empty' : 'is older than the library';
  if (witness) return read.commit < witness.commit ? what : null;
  return read.files.length === 0 && hasRows ? what : null;
}

/** The (file, generation) summary of a table's rows used to rebuild records. */
export interface RowTally {
  /** Passage rows per file and generation. */
  chunks: Map<string, Map<number, { rows: number; langs: Set<string>; manual: string }>>;
  /** Code rows per file and generation. */
  codes: Map<string, Map<number, number>>;
}

export function tallyRows(chunkRows: Record<string, unknown>[], codeRows: Record<string, unknown>[]): RowTally {
  const chunks: RowTally['chunks'] = new Map();
  for (const r of chunkRows) {
    const file = String(r.file);
    const gen = Number(r.generation);
    let byGen = chunks.get(file);
    if (!byGen) chunks.set(file, (byGen = new Map()));
    let t = byGen.get(gen);
    if (!t) byGen.set(gen, (t = { rows: 0, langs: new Set(), manual: String(r.manual ?? '') }));
    t.rows++;
    if (typeof r.lang === 'string' && r.lang) t.langs.add(r.lang);
  }
  const codes: RowTally['codes'] = new Map();
  for (const r of codeRows) {
    const file = String(r.file);
    const gen = Number(r.generation);
    let byGen = codes.get(file);
    if (!byGen) codes.set(file, (byGen = new Map()));
    byGen.set(gen, (byGen.get(gen) ?? 0) + 1);
  }
  return { chunks, codes };
}

/**
 * The file records of a library whose files.json is in doubt, rebuilt from its rows. Each file's
 * generation is the newest of those that commit.json and files.json name and that rows exist for
 * (a files.json written by an older version after commit.json can only be newer); without
 * commit.json, the newest its rows hold. A record files.json holds at that generation is kept as it
 * is; any other is rebuilt from the rows: its content hash left blank so that the next ingest of its
 * folder reads it again and restores its details, its vectors marked pending when the library has a
 * model (the next ingest checks them, from the embedding cache). Rows of other generations stay
 * uncommitted (a killed run's leftovers), for the writer's clean-up.
 */
export function rebuildRecords(read: FilesJsonRead, witness: CommitRecord | null, tally: RowTally, hasEmbedder: boolean, now: string): FileRecord[] {
  const prior = new Map(read.files.map((f) => [f.file, f]));
  const rowsAt = (file: string, gen: number) => (tally.chunks.get(file)?.get(gen)?.rows ?? 0) + (tally.codes.get(file)?.get(gen) ?? 0);
  const candidates = new Map<string, number[]>();
  const add = (file: string, gen: number) => {
    const list = candidates.get(file);
    if (list) list.push(gen);
    else candidates.set(file, [gen]);
  };
  for (const f of read.files) add(f.file, f.generation);
  if (witness) {
    for (const [file, gen] of Object.entries(witness.files)) add(file, gen);
  } else {
    for (const t of [tally.chunks, tally.codes]) for (const [file, byGen] of t) add(file, Math.max(...byGen.keys()));
  }
  const out: FileRecord[] = [];
  for (const [file, gens] of candidates) {
    const p = prior.get(file);
    // A generation is taken when rows prove it, or when files.json recorded it as a file without rows.
    const proven = gens.filter((g) => rowsAt(file, g) > 0 || (p?.generation === g && p.chunks === 0 && p.codes === 0));
    if (proven.length === 0) continue;
    const gen = Math.max(...proven);
    if (p && p.generation === gen) {
      out.push(p);
      continue;
    }
    const c = tally.chunks.get(file)?.get(gen);
    const chunks = c?.rows ?? 0;
    const base = path.posix.basename(file);
    const rec: FileRecord = {
      file,
      source: p?.source ?? '',
      sha256: '',
      size: p?.size ?? 0,
      mtimeMs: 0,
      format: p?.format ?? (path.posix.extname(file).slice(1).toLowerCase() || 'text'),
      meta: p?.meta ?? { title: c?.manual || base, equipment: [], revision: null, language: null, publisher: null },
      manualKey: p?.manualKey ?? `file:${file}`,
      chunks,
      langs: [...(c?.langs ?? [])].sort() as Lang[],
      codes: tally.codes.get(file)?.get(gen) ?? 0,
      pagesWithoutText: p?.pagesWithoutText ?? [],
      generation: gen,
      ingestedAt: p?.ingestedAt ?? now,
    };
    if (hasEmbedder && chunks > 0) rec.vectorsPending = true;
    out.push(rec);
  }
  return out.sort((a, b) => (a.file < b.file ? -1 : a.file > b.file ? 1 : 0));
}

function isCount(v: unknown): v is number {
  return typeof v === 'number' && Number.isSafeInteger(v) && v >= 0;
}

function isRecord(v: unknown): v is FileRecord {
  const r = v as Partial<FileRecord> | null;
  return !!r && typeof r === 'object' && typeof r.file === 'string' && isCount(r.generation) && isCount(r.chunks) && isCount(r.codes);
}
