/**
 * How chunks and code records are laid out in LanceDB rows. Plain rows only (no nulls, so the schema
 * inferred from the first batch is stable): a missing page is stored as 0, lists as JSON text.
 */
import type { Chunk, ChunkKind, CodeRecord, Lang } from '../contract/document.js';
import { analyze } from '../text/analyze.js';

export const CHUNK_COLUMNS = [
  'id',
  'file',
  'generation',
  'ordinal',
  'page',
  'heading_path',
  'section',
  'text',
  'kind',
  'lang',
  'manual',
  'content_hash',
  'chunker_version',
] as const;

export interface ChunkRow {
  id: string;
  file: string;
  generation: number;
  ordinal: number;
  page: number;
  heading_path: string;
  section: string;
  text: string;
  kind: string;
  lang: string;
  manual: string;
  content_hash: string;
  chunker_version: number;
  /** Analyzed tokens of the text, space-separated (the BM25 body field). */
  fts: string;
  /** Analyzed tokens of the heading path and manual title (the BM25 heading field). */
  fts_head: string;
  vector?: number[];
}

export function chunkToRow(c: Chunk, generation: number, vector: Float32Array | null): ChunkRow {
  const row: ChunkRow = {
    id: c.id,
    file: c.file,
    generation,
    ordinal: c.ordinal,
    page: c.page ?? 0,
    heading_path: JSON.stringify(c.headingPath),
    section: c.section,
    text: c.text,
    kind: c.kind,
    lang: c.lang,
    manual: c.manual,
    content_hash: c.contentHash,
    chunker_version: c.chunkerVersion,
    fts: analyze(c.text).join(' '),
    // The section's own heading and its parent: the whole path would give every section of a
    // manual (its LICENSE, its SYNOPSIS…) the same heading match on the manual's title.
    fts_head: analyze(c.headingPath.slice(-2).join(' ')).join(' '),
  };
  if (vector) row.vector = Array.from(vector);
  return row;
}

export function rowToChunk(r: Record<string, unknown>): Chunk {
  const page = Number(r.page);
  return {
    id: String(r.id),
    file: String(r.file),
    page: page > 0 ? page : null,
    headingPath: JSON.parse(String(r.heading_path)) as string[],
    section: String(r.section),
    text: String(r.text),
    kind: String(r.kind) as ChunkKind,
    lang: String(r.lang) as Lang,
    manual: String(r.manual),
    contentHash: String(r.content_hash),
    chunkerVersion: Number(r.chunker_version),
    ordinal: Number(r.ordinal),
  };
}

/** A stored chunk row as written (its analyzed text fields kept), with another vector. */
export function rowWithVector(r: Record<string, unknown>, vector: Float32Array): ChunkRow {
  const row = {} as Record<string, unknown>;
  for (const col of CHUNK_COLUMNS) row[col] = typeof r[col] === 'bigint' ? Number(r[col]) : r[col];
  return { ...(row as unknown as ChunkRow), fts: String(r.fts), fts_head: String(r.fts_head), vector: Array.from(vector) };
}

export interface CodeRow {
  file: string;
  generation: number;
  key: string;
  family: string;
  json: string;
}

export function codeToRow(c: CodeRecord, generation: number): CodeRow {
  return { file: c.file, generation, key: c.key, family: c.family, json: JSON.stringify(c) };
}

export function rowToCode(r: Record<string, unknown>): CodeRecord {
  return JSON.parse(String(r.json)) as CodeRecord;
}
