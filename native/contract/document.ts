/** Types shared by the parse → chunk → store stages. Types only: no runtime code. */

export type Lang = 'en' | 'zh';

export type AdmonitionKind = 'NOTE' | 'TIP' | 'IMPORTANT' | 'CAUTION' | 'WARNING' | 'DANGER';

export type BlockKind =
  | 'heading'
  | 'paragraph'
  | 'list-item'
  | 'step'
  | 'admonition'
  | 'table-row'
  | 'code'
  | 'definition';

/** One structural unit of a parsed document, in reading order. */
export interface Block {
  kind: BlockKind;
  /** Plain text of the block (markup removed, inline code kept as text). */
  text: string;
  /** Titles of the enclosing headings, outermost first; for a heading block, its parents. */
  headingPath: string[];
  /** 1-based PDF page; null for formats without pages. */
  page: number | null;
  /** Heading level (1 = top) for heading blocks. */
  level?: number;
  /** For admonition blocks. */
  admonition?: AdmonitionKind;
  /** For table-row blocks: the column names and this row's cells, same length. */
  columns?: string[];
  cells?: string[];
  /** For table-row blocks: a name for the table (caption, sheet, or file name). */
  table?: string;
  /**
   * As the manual writes it. Headings: the heading line (`### 4.1 Spindle warm-up`).
   * Table-row blocks read from a text table (CSV line, `key=value` line, YAML item, Markdown
   * table line): the row exactly as the manual writes it, and the header line likewise. Shown and
   * cited verbatim; the chunker falls back to `Column: value | …` when absent.
   */
  raw?: string;
  rawHeader?: string;
  /** For step blocks: the number shown in the manual. */
  stepNumber?: number;
  /** For code blocks: the language the manual names for it (```python, `.. code-block:: bash`). */
  codeLang?: string;
  /** For definition blocks: the term being defined (text holds the definition). */
  term?: string;
  /** Set when the block's text was read by OCR from a scanned page: the page's mean word confidence, 0–100. */
  ocr?: { confidence: number };
}

/** A PDF page whose text was read by OCR. */
export interface OcrPageInfo {
  page: number;
  /** Tesseract's mean word confidence for the page, 0–100. */
  confidence: number;
  /** Below the low-confidence threshold: show "OCR text, check the page" with results from it. */
  lowConfidence: boolean;
}

export interface ManualMeta {
  title: string;
  equipment: string[];
  revision: string | null;
  language: Lang | null;
  publisher: string | null;
}

export interface ParsedDocument {
  /** Adapter that produced it: markdown, asciidoc, rst, html, text, docx, pdf, csv, yaml, json, properties, xlsx. */
  format: string;
  /** Metadata found inside the document (PDF info, first heading, YAML title…). */
  meta: Partial<ManualMeta>;
  blocks: Block[];
  /**
   * PDF only: page count, and pages left without searchable text: no text layer and nothing read
   * by OCR (blank pages, OCR off or failed; the warnings say which).
   */
  pageCount?: number;
  pagesWithoutText?: number[];
  /** PDF only: pages whose text was read by OCR, with their confidence. */
  ocrPages?: OcrPageInfo[];
  /** Non-fatal problems worth telling the user (encoding guessed, pages skipped…). */
  warnings: string[];
}

export type ChunkKind = 'passage' | 'table-row';

/** What is stored and searched. */
export interface Chunk {
  /** Stable id: hash of file + ordinal + contentHash. */
  id: string;
  /** Path relative to the ingested root, forward slashes. */
  file: string;
  page: number | null;
  headingPath: string[];
  /** headingPath joined with ' > '. */
  section: string;
  text: string;
  kind: ChunkKind;
  lang: Lang;
  /** Manual title (from sidecar, document or file name). */
  manual: string;
  /** sha256 (hex) of text. */
  contentHash: string;
  chunkerVersion: number;
  /** Position of the chunk within its file. */
  ordinal: number;
}

/** A fault-code definition as stored in the library (one per code per source row/passage). */
export interface CodeRecord {
  /** The code as the manual writes it, e.g. "ALARM:9", "P0301", "04101", "ERROR_DRV_FAULT". */
  code: string;
  /** Normalised lookup key (see native/fault-codes/normalize.ts). */
  key: string;
  /** Family of the key (e.g. "alarm", "error", "obd-p", "prusa"), for nearest-code suggestions. */
  family: string;
  /** Other keys that must find this record (e.g. printer-prefixed variants of a vendor scheme). */
  aliases: string[];
  title: string;
  description: string;
  cause: string;
  remedy: string;
  severity: string | null;
  scope: string[];
  lang: Lang;
  manual: string;
  file: string;
  page: number | null;
  section: string;
  /** The source text (table row or passage) the record came from, verbatim. */
  text: string;
  /**
   * The entry's other languages, where one entry holds several (`{"en": {…}, "zh_CN": {…}}`): a
   * question in one of them is answered in it. Absent when the entry has one language.
   */
  translations?: Partial<Record<Lang, CodeText>>;
  /**
   * A flag of an enumeration of flags whose entry states its value (`bit: 6`, `value: 0x40`,
   * `1 << 6`): the value, and the enumeration (file and table) whose flags a typed value is made of.
   * Absent where the enumeration states no values (no bit is guessed from the entries' order).
   */
  flag?: { value: number; enumeration: string };
}

/** The words of a code definition in one language. */
export interface CodeText {
  title: string;
  description: string;
  cause: string;
  remedy: string;
}

/** What the library remembers about an ingested file. */
export interface FileRecord {
  /**
   * The file's key: its path relative to the ingested root, forward slashes; when a manual from
   * another folder had that path already, prefixed with its folder's name (library/identity.ts).
   */
  file: string;
  /** Absolute path it was read from (for the viewer). */
  source: string;
  /**
   * The folder it was added from (absolute). Absent in libraries from before it was recorded: there
   * the key is the path below it (library/identity.ts ingestRoot).
   */
  root?: string;
  sha256: string;
  size: number;
  mtimeMs: number;
  format: string;
  meta: ManualMeta;
  /** Identity of the manual across revisions (sidecar id, else normalised title). */
  manualKey: string;
  chunks: number;
  /** Languages of its passages (absent in libraries from before it was recorded: any language may be there). */
  langs?: Lang[];
  codes: number;
  pagesWithoutText: number[];
  /** PDF pages read by OCR (with confidence); low-confidence ones are flagged in the library view. */
  ocrPages?: OcrPageInfo[];
  /** Incremented on every re-ingest of the file; rows of other generations are garbage. */
  generation: number;
  ingestedAt: string;
  /** Size/mtime stamp of the companion files read with the manual (metadata sidecar, code scheme file). */
  companions?: string;
  /**
   * True while the file's passages wait for their vectors (a library with an embedding model): its
   * keyword rows and codes are searchable already; ingest embeds it after every file is parsed, and
   * the next ingest finishes what a cancel or a crash left.
   */
  vectorsPending?: boolean;
}
