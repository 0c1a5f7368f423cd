import type { PdfOcrOptions } from '../pdf/ocr-page.js';

/** What text-based adapters receive: the decoded text and a name for tables without a caption. */
export interface TextAdapterInput {
  text: string;
  /** File name without extension, used to name tables that have no caption. */
  fileStem: string;
  signal?: AbortSignal;
}

/** What binary adapters (PDF, DOCX, XLSX) receive. */
export interface BinaryAdapterInput {
  data: Buffer;
  fileStem: string;
  signal?: AbortSignal;
  /** PDF: OCR of pages without a text layer (on by default). */
  ocr?: PdfOcrOptions;
}
