import { parse } from 'csv-parse/sync';
import type { ParsedDocument } from '../../contract/index.js';
import { DocBuilder } from '../builder.js';
import type { TextAdapterInput } from './types.js';

const CANDIDATES = [',', ';', '\t', '|'] as const;

/** Picks the delimiter that splits the first lines most consistently (quoted parts ignored). */
export function sniffDelimiter(text: string): string {
  const sample = text.split(/\r?\n/, 5).filter((l) => l.trim());
  let best: string = ',';
  let bestScore = 0;
  for (const d of CANDIDATES) {
    const counts = sample.map((l) => l.replace(/"[^"]*"/g, '').split(d).length - 1);
    const min = Math.min(...counts);
    const score = min > 0 ? min + (counts.every((c) => c === counts[0]) ? 0.5 : 0) : 0;
    if (score > bestScore) [best, bestScore] = [d, score];
  }
  return best;
}

/** CSV/TSV via csv-parse: the first row is the header, every other row one table-row block. */
export function parseCsv({ text, fileStem }: TextAdapterInput, format: 'csv' | 'tsv' = 'csv'): ParsedDocument {
  const b = new DocBuilder(format);
  const delimiter = format === 'tsv' ? '\t' : sniffDelimiter(text);
  const records = parse(text, {
    delimiter,
    bom: true,
    relax_column_count: true,
    relax_quotes: true,
    skip_empty_lines: true,
    trim: true,
    quote: format === 'tsv' ? false : '"',
    raw: true,
  }) as unknown as { record: string[]; raw: string }[];
  const nonEmpty = records.filter((r) => r.record.some((c) => c.trim()));
  const [header, ...rows] = nonEmpty;
  for (const row of rows) b.row(fileStem, header?.record ?? [], row.record, { raw: row.raw, rawHeader: header?.raw ?? '' });
  return b.finish({});
}
