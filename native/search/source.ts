/** A library a retrieval searches: the local library or an installed pack, with what it can be searched by. */
import type { CodeIndex } from '../fault-codes/index.js';
import type { LibraryStore } from '../store/library-store.js';
import type { QueryEmbedder, SearchableStore } from './channels/hybrid.js';
import type { NameIndex } from './plan/name-index.js';
import type { MessageIndex } from './plan/messages.js';

/** One library to search, with the embedder its vectors can be searched with (null: keyword only). */
export interface RetrievalSource {
  /** Pack id; null for the local library. */
  pack: string | null;
  store: SearchableStore & Pick<LibraryStore, 'getFiles' | 'termCounts' | 'findText' | 'languageCounts'> & Partial<Pick<LibraryStore, 'fileChunks'>>;
  codes: (Pick<CodeIndex, 'lookup'> & Partial<Pick<CodeIndex, 'recordOfRow'>>) | null;
  embedder: QueryEmbedder | null;
  /** The library's known names (built once, kept by the Library); absent: no scoping. */
  names?: () => Promise<NameIndex>;
  /** The messages the library's passages show (built once, kept by the Library); absent: none. */
  messages?: () => Promise<MessageIndex>;
}
