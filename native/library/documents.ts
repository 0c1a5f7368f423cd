/**
 * What a library says about its manuals: the list of files, and the source viewer's copy of one file
 * (only files recorded in the library, or in the named installed pack, whose documents/ folder holds
 * its manuals; never other paths).
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import type { ManualInfo, SourceDocument, SourceRequest } from '../contract/api.js';
import type { FileRecord } from '../contract/document.js';
import { EngineError } from '../contract/errors.js';
import { LOCAL_ID } from '../contract/packs.js';
import { parseFile, withTitleHeading } from '../parse/index.js';
import { newestRevisions } from '../store/filters.js';
import { ingestRoot } from './identity.js';
import type { Library } from './library.js';


export function listManuals(library: Library): ManualInfo[] {
  const files = library.store.getFiles();
  const current = newestRevisions(files);
  return files.map((f) => ({
    file: f.file,
    title: f.meta.title,
    equipment: f.meta.equipment,
    revision: f.meta.revision,
    language: f.meta.language,
    publisher: f.meta.publisher,
    format: f.format,
    chunks: f.chunks,
    current: current.has(f.file),
    source: f.source,
    folder: ingestRoot(f),
    pagesNeedingOcr: f.pagesWithoutText,
  }));
}

/** The installed packs a document may come from. */
export interface PackLibraries {
  readonly packs: readonly { pack: string; version: string; library: Library }[];
  readonly problems: ReadonlyMap<string, string>;
}

export async function openSource(local: Library, packs: PackLibraries, req: SourceRequest): Promise<SourceDocument> {
  const inPack = req.pack !== undefined && req.pack !== null && req.pack !== LOCAL_ID;
  const { rec, file } = inPack ? packDocument(packs, req.pack as string, req.file) : localDocument(local, req.file);
  let data: Buffer;
  try {
    data = await fs.readFile(file);
  } catch {
    throw new EngineError(
      'FILE_UNREADABLE',
      inPack
        ? `${rec.file} is missing from pack ${req.pack} (${file}). Run "manualdesk pack verify" on the pack file, or re-import the pack.`
        : `${rec.file} was moved or deleted since it was indexed (${file}). Put it back or remove it from the library.`,
    );
  }
  const changed = data.length !== rec.size || createHash('sha256').update(data).digest('hex') !== rec.sha256;
  const base = { file: rec.file, manual: rec.meta.title, format: rec.format, changed };
  if (rec.format === 'pdf') return { kind: 'pdf' as const, ...base, base64: data.toString('base64') };
  // The heading paths the passages were indexed with, so a cited section is found in the page.
  return { kind: 'blocks' as const, ...base, blocks: withTitleHeading(await parseFile(file), rec.meta.title).blocks };
}

function localDocument(library: Library, name: string): { rec: FileRecord; file: string } {
  const rec = library.store.getFile(name);
  if (!rec) throw new EngineError('NOT_FOUND', `${name} is not in the library. Search again, or add the file in the Library screen.`);
  return { rec, file: rec.source };
}

/** A pack's manual: its record in the pack's library, its bytes under the pack's documents/ folder. */
function packDocument(packs: PackLibraries, pack: string, name: string): { rec: FileRecord; file: string } {
  const src = packs.packs.find((p) => p.pack === pack);
  if (!src) {
    const problem = packs.problems.get(pack);
    throw new EngineError('NOT_FOUND', problem ?? `No active pack named ${pack} is installed (it may have been removed). Import the pack again or search again.`);
  }
  const rec = src.library.store.getFile(name);
  if (!rec) throw new EngineError('NOT_FOUND', `${name} is not in pack ${pack} ${src.version}. Search again: the pack may have been updated.`);
  const docs = path.join(path.dirname(src.library.dir), 'documents');
  const file = path.join(docs, ...rec.file.split('/'));
  const rel = path.relative(docs, file);
  if (rel === '' || rel.split(path.sep)[0] === '..' || path.isAbsolute(rel)) {
    throw new EngineError('NOT_FOUND', `${name} does not name a document inside pack ${pack}.`);
  }
  return { rec, file };
}
