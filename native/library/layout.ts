/**
 * The files of a library folder, named in one place (their owner is native/library; the store writes
 * library.json, files.json, library.lock and lance/; the library writes code-schemes.json and the
 * embedding cache):
 *
 *   library.json        format version, chunker/analyzer versions, embedder {id, dims}
 *   files.json          committed file records (the commit point of every change)
 *   commit.json         the last commit's number and each file's generation (store/commit-record.ts)
 *   code-schemes.json   prefix schemes learned from the ingested manuals, per file
 *   library.lock        pid of the one process that may write
 *   lance/              LanceDB tables `chunks` and `codes`
 *   embeddings-*.bin    embedding cache per model (native/embed/cache.ts)
 *   packs/, packs.json  installed manual packs (native/packs), each holding a library folder of its own
 *   manualdesk-sample.json  only in the bundled sample library: written by `npm start` (bin/start.js) when it
 *                       builds it from samples/library ({signature, createdBy, samples: that folder})
 */
import { FILES_FILE, LANCE_DIR, LIBRARY_FILE } from '../store/library-store.js';

export { FILES_FILE, LANCE_DIR, LIBRARY_FILE };
export const SCHEMES_FILE = 'code-schemes.json';
/** The model folder that built the library ({id, dir}; not part of a pack's index). */
export const MODEL_FOLDER_FILE = 'model-folder.json';

/** The files and folders that make up a library's index (what a pack carries of it). */
export const INDEX_FILES: readonly string[] = [LIBRARY_FILE, FILES_FILE, SCHEMES_FILE];
export const INDEX_DIRS: readonly string[] = [LANCE_DIR];
/** Marks the bundled fictional sample library (bin/start.js writes it; LibraryInfo.sample reads it). */
export const SAMPLE_MARKER_FILE = 'manualdesk-sample.json';
