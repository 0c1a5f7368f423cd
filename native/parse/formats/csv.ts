import { parse } from 'csv-parse/sync';
import { EngineError, type ParsedDocument } from '../../contract/index.js';
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

/**
 * More columns than any manual table has. Wider files (generated data, a wrong delimiter) are refused
 * before csv-parse, which needs about 10 s for one row of a million columns.
 */
export const MAX_CSV_COLUMNS = 5000;

/** Cells in the widest line (delimiters inside quotes counted too: an upper bound, in one pass). */
export function widestLine(text: string, delimiter: string): number {
  const d = delimiter.charCodeAt(0);
  let max = 0;
  let n = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === d) n++;
    else if (c === 10) {
      if (n > max) max = n;
      n = 0;
    }
  }
  return Math.max(max, n) + 1;
}

/** CSV/TSV via csv-parse: the first row is the header, every other row one table-row block. */
export function parseCsv({ text, fileStem }: TextAdapterInput, format: 'csv' | 'tsv' = 'csv'): ParsedDocument {
  const b = new DocBuilder(format);
  const delimiter = format === 'tsv' ? '\t' : sniffDelimiter(text);
  const width = widestLine(text, delimiter);
  if (width > MAX_CSV_COLUMNS) {
    throw new EngineError(
      'FILE_UNREADABLE',
      `This ${format.toUpperCase()} file has a line of about ${width.toLocaleString('en-US')} columns (more than ${MAX_CSV_COLUMNS.toLocaleString('en-US')}, which no manual table needs). Check that it is really a table of a manual, split it into narrower tables, and add them.`,
    );
  }
  const options = {
    delimiter,
    bom: true,
    relax_column_count: true,
    relax_quotes: true,
    skip_empty_lines: true,
    trim: true,
    quote: format === 'tsv' ? false : '"',
    raw: true,
  } as const;
  let records: { record: string[]; raw: string }[];
  try {
    records = parse(text, options) as unknown as { record: string[]; raw: string }[];
  } catch (err) {
    // A quote opened and never closed would swallow the rest of the file: read it without quoting.
    if ((err as { code?: string }).code !== 'CSV_QUOTE_NOT_CLOSED') throw err;
    records = parse(text, { ...options, quote: false }) as unknown as { record: string[]; raw: string }[];
    b.warn('A quote in this file is never closed; the file was read without quoting, so quoted cells that contain the delimiter are split. Fix the quote and add the file again.');
  }
  const nonEmpty = records.filter((r) => r.record.some((c) => c.trim()));
  const [header, ...rows] = nonEmpty;
  for (const row of rows) b.row(fileStem, header?.record ?? [], row.record, { raw: row.raw, rawHeader: header?.raw ?? '' });
  return b.finish({});
}
