import { type Pair, parseLines } from 'dot-properties';
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
  for (const node of parseLines(text, true)) {
    if (node.type !== 'PAIR') continue;
    const pair = node as Pair;
    const raw = pair.range ? text.slice(pair.range[0], pair.range[pair.range.length - 1]) : undefined;
    b.row(fileStem, columns, [pair.key, pair.value], raw ? { raw } : {});
  }
  return b.finish({});
}
