import { parseLines } from 'dot-properties';
import type { ParsedDocument } from '../../contract/index.js';
import { DocBuilder } from '../builder.js';
import type { TextAdapterInput } from './types.js';

/**
 * Java .properties via dot-properties (escapes, continuation lines): each key=value pair becomes a
 * table-row with columns ["key", "value"]; comments are ignored. Decoding (UTF-8 when valid,
 * else ISO-8859-1) happens before, in {@link decodeProperties}.
 */
export function parseProperties({ text, fileStem }: TextAdapterInput): ParsedDocument {
  const b = new DocBuilder('properties');
  const columns = ['key', 'value'];
  for (const line of parseLines(text)) {
    if (Array.isArray(line)) b.row(fileStem, columns, [line[0] ?? '', line[1] ?? '']);
  }
  return b.finish({});
}
