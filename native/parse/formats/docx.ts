import mammoth from 'mammoth';
import type { ParsedDocument } from '../../contract/index.js';
import { parseHtml } from './html.js';
import type { BinaryAdapterInput } from './types.js';

/** DOCX via mammoth → HTML (Word heading styles become h1…h6) → the HTML adapter. */
export async function parseDocx({ data, fileStem }: BinaryAdapterInput): Promise<ParsedDocument> {
  const result = await mammoth.convertToHtml({ buffer: data });
  const doc = parseHtml({ text: result.value, fileStem }, 'docx', { firstRowIsHeader: true });
  delete doc.meta.language;
  const unreadable = result.messages.filter((m) => m.type === 'error');
  if (unreadable.length) {
    doc.warnings.push(`Some parts of the document could not be read (${unreadable.length}): ${unreadable[0]?.message ?? ''}`);
  }
  return doc;
}
