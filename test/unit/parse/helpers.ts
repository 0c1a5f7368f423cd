import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import JSZip from 'jszip';
import type { Block, ParsedDocument } from '../../../native/contract/index.js';

export const FIXTURES = fileURLToPath(new URL('../../fixtures/parse/', import.meta.url));

/** A temp folder for one test file; `cleanup` removes it. */
export async function tempDir(): Promise<{ dir: string; file(name: string, data: string | Buffer): Promise<string>; cleanup(): Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), 'manualdesk-parse-'));
  return {
    dir,
    async file(name, data) {
      const p = join(dir, name);
      await writeFile(p, data);
      return p;
    },
    cleanup: () => rm(dir, { recursive: true, force: true }),
  };
}

export function ofKind(doc: ParsedDocument, kind: Block['kind']): Block[] {
  return doc.blocks.filter((b) => b.kind === kind);
}

export interface PdfLine {
  text: string;
  x: number;
  y: number;
  size?: number;
}

/**
 * A minimal but valid PDF: one page per entry (612×792 pt), Helvetica text at the given positions,
 * correct xref offsets. An empty `lines` array makes a page without a text layer.
 */
export function makePdf(pages: PdfLine[][], title?: string): Buffer {
  const objects: string[] = [];
  const add = (body: string): number => objects.push(body);
  const catalog = add('');
  const pagesObj = add('');
  const font = add('<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>');
  const info = add(title ? `<< /Title (${esc(title)}) /Producer (test) >>` : '<< /Producer (test) >>');
  const kids: number[] = [];
  for (const lines of pages) {
    const stream = lines.map((l) => `BT /F1 ${l.size ?? 11} Tf ${l.x} ${l.y} Td (${esc(l.text)}) Tj ET`).join('\n');
    const content = add(`<< /Length ${Buffer.byteLength(stream, 'latin1')} >>\nstream\n${stream}\nendstream`);
    kids.push(add(`<< /Type /Page /Parent ${pagesObj} 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 ${font} 0 R >> >> /Contents ${content} 0 R >>`));
  }
  objects[catalog - 1] = `<< /Type /Catalog /Pages ${pagesObj} 0 R >>`;
  objects[pagesObj - 1] = `<< /Type /Pages /Kids [${kids.map((k) => `${k} 0 R`).join(' ')}] /Count ${kids.length} >>`;
  return serialise(objects, catalog, info);
}

/**
 * A PDF whose text is Chinese in a non-embedded CID font with a predefined CMap (STSong-Light,
 * UniGB-UCS2-H), as many Chinese manuals are made: its text decodes only with the CMap files the
 * parser ships (pdfjs-dist/cmaps). One page; lines at the given positions.
 */
export function makeCjkPdf(lines: PdfLine[]): Buffer {
  const hex = (t: string) => `<${[...t].map((ch) => (ch.codePointAt(0) ?? 0).toString(16).padStart(4, '0')).join('')}>`;
  const objects: string[] = [];
  const add = (body: string): number => objects.push(body);
  const catalog = add('');
  const pagesObj = add('');
  const descriptor = add('<< /Type /FontDescriptor /FontName /STSong-Light /Flags 6 /FontBBox [-25 -254 1000 880] /ItalicAngle 0 /Ascent 880 /Descent -120 /CapHeight 880 /StemV 93 >>');
  const cid = add(`<< /Type /Font /Subtype /CIDFontType0 /BaseFont /STSong-Light /CIDSystemInfo << /Registry (Adobe) /Ordering (GB1) /Supplement 4 >> /FontDescriptor ${descriptor} 0 R /DW 1000 >>`);
  const font = add(`<< /Type /Font /Subtype /Type0 /BaseFont /STSong-Light-UniGB-UCS2-H /Encoding /UniGB-UCS2-H /DescendantFonts [${cid} 0 R] >>`);
  const stream = lines.map((l) => `BT /F1 ${l.size ?? 11} Tf ${l.x} ${l.y} Td ${hex(l.text)} Tj ET`).join('\n');
  const content = add(`<< /Length ${Buffer.byteLength(stream, 'latin1')} >>\nstream\n${stream}\nendstream`);
  const page = add(`<< /Type /Page /Parent ${pagesObj} 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 ${font} 0 R >> >> /Contents ${content} 0 R >>`);
  objects[catalog - 1] = `<< /Type /Catalog /Pages ${pagesObj} 0 R >>`;
  objects[pagesObj - 1] = `<< /Type /Pages /Kids [${page} 0 R] /Count 1 >>`;
  return serialise(objects, catalog);
}

function serialise(objects: string[], catalog: number, info?: number): Buffer {
  let out = '%PDF-1.4\n';
  const offsets: number[] = [];
  objects.forEach((body, i) => {
    offsets.push(Buffer.byteLength(out, 'latin1'));
    out += `${i + 1} 0 obj\n${body}\nendobj\n`;
  });
  const xref = Buffer.byteLength(out, 'latin1');
  out += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`;
  for (const off of offsets) out += `${String(off).padStart(10, '0')} 00000 n \n`;
  out += `trailer\n<< /Size ${objects.length + 1} /Root ${catalog} 0 R${info ? ` /Info ${info} 0 R` : ''} >>\nstartxref\n${xref}\n%%EOF\n`;
  return Buffer.from(out, 'latin1');
}

function esc(s: string): string {
  return s.replace(/[\\()]/g, (c) => `\\${c}`);
}

const W = 'xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"';

/** A minimal DOCX (built with JSZip): paragraphs with optional heading style, and one table. */
export async function makeDocx(paras: { style?: string; text: string }[], table?: string[][]): Promise<Buffer> {
  const zip = new JSZip();
  zip.file(
    '[Content_Types].xml',
    '<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">' +
      '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>' +
      '<Default Extension="xml" ContentType="application/xml"/>' +
      '<Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/>' +
      '<Override PartName="/word/styles.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.styles+xml"/></Types>',
  );
  zip.file(
    '_rels/.rels',
    '<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">' +
      '<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/></Relationships>',
  );
  zip.file(
    'word/_rels/document.xml.rels',
    '<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">' +
      '<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/styles" Target="styles.xml"/></Relationships>',
  );
  const styles = [1, 2, 3].map((n) => `<w:style w:type="paragraph" w:styleId="Heading${n}"><w:name w:val="heading ${n}"/></w:style>`).join('');
  zip.file('word/styles.xml', `<?xml version="1.0" encoding="UTF-8"?><w:styles ${W}>${styles}</w:styles>`);
  const p = (text: string, style?: string): string =>
    `<w:p>${style ? `<w:pPr><w:pStyle w:val="${style}"/></w:pPr>` : ''}<w:r><w:t xml:space="preserve">${xml(text)}</w:t></w:r></w:p>`;
  let body = paras.map((x) => p(x.text, x.style)).join('');
  if (table) body += `<w:tbl>${table.map((row) => `<w:tr>${row.map((c) => `<w:tc>${p(c)}</w:tc>`).join('')}</w:tr>`).join('')}</w:tbl>`;
  zip.file('word/document.xml', `<?xml version="1.0" encoding="UTF-8"?><w:document ${W}><w:body>${body}</w:body></w:document>`);
  return zip.generateAsync({ type: 'nodebuffer' });
}

function xml(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}
