import type { ParseLimits } from '../limits.js';
import type { PdfOcrOptions } from '../pdf/ocr-page.js';

/** What text-based adapters receive: the decoded text and a name for tables without a caption. */
export interface TextAdapterInput {
  text: string;
  /** File name without extension, used to name tables that have no caption. */
  fileStem: string;
  signal?: AbortSignal;
  /** Resource caps (parse/limits.ts); default: the settings' values. */
  limits?: ParseLimits;
  /** The file's name, for messages. */
  name?: string;
}

/** What binary adapters (PDF, DOCX, XLSX) receive. */
export interface BinaryAdapterInput {
  data: Buffer;
  fileStem: string;
  signal?: AbortSignal;
  /** PDF: OCR of pages without a text layer (on by default). */
  ocr?: PdfOcrOptions;
  /** Resource caps (parse/limits.ts); default: the settings' values. */
  limits?: ParseLimits;
  /** The file's name, for messages. */
  name?: string;
  /** Date.now() past which reading the file is given up (the wall-time cap). */
  deadlineAt?: number;
}
