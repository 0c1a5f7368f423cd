import ExcelJS from 'exceljs';
import type { ParsedDocument } from '../../contract/index.js';
import { DocBuilder } from '../builder.js';
import { checkAbort } from '../text-utils.js';
import type { BinaryAdapterInput } from './types.js';

/** XLSX via exceljs: per sheet, the first non-empty row is the header, each later row a table-row. */
export async function parseXlsx({ data, signal }: BinaryAdapterInput): Promise<ParsedDocument> {
  const b = new DocBuilder('xlsx');
  const wb = new ExcelJS.Workbook();
  await wb.xlsx.load(data as unknown as ArrayBuffer);
  for (const ws of wb.worksheets) {
    checkAbort(signal);
    if (ws.state && ws.state !== 'visible') continue;
    let header: string[] | null = null;
    ws.eachRow({ includeEmpty: false }, (row) => {
      const cells: string[] = [];
      row.eachCell({ includeEmpty: true }, (cell, col) => {
        cells[col - 1] = cellText(cell);
      });
      for (let k = 0; k < cells.length; k++) cells[k] ??= '';
      if (!cells.some((c) => c)) return;
      if (!header) header = cells;
      else b.row(ws.name, header, cells);
    });
  }
  const meta: ParsedDocument['meta'] = {};
  if (wb.title?.trim()) meta.title = wb.title.trim();
  return b.finish(meta);
}

function cellText(cell: ExcelJS.Cell): string {
  try {
    return (cell.text ?? '').replace(/\r\n?/g, '\n').trim();
  } catch {
    return String(cell.value ?? '').trim();
  }
}
