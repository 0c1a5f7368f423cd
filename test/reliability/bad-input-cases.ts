/**
 * Generators for the bad-input suite: hostile manual files made on the fly (nothing big is committed),
 * a byte-for-byte snapshot of a library folder, and small PDF builders.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { crc32 as zlibCrc32, deflateRawSync } from 'node:zlib';

/** sha256 of every file under `dir`, by path relative to it (forward slashes); folders are listed with ''. */
export function snapshotDir(dir: string): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (rel: string): void => {
    const abs = path.join(dir, rel);
    for (const e of fs.readdirSync(abs, { withFileTypes: true })) {
      const r = rel ? `${rel}/${e.name}` : e.name;
      if (e.isDirectory()) {
        out.set(`${r}/`, '');
        walk(r);
      } else {
        out.set(r, createHash('sha256').update(fs.readFileSync(path.join(dir, r))).digest('hex'));
      }
    }
  };
  if (fs.existsSync(dir)) walk('');
  return out;
}

/** The paths whose content differs between two snapshots (added, removed or changed). */
export function snapshotDiff(before: Map<string, string>, after: Map<string, string>): string[] {
  const diff: string[] = [];
  for (const [p, h] of before) if (after.get(p) !== h) diff.push(after.has(p) ? `changed ${p}` : `removed ${p}`);
  for (const p of after.keys()) if (!before.has(p)) diff.push(`added ${p}`);
  return diff;
}

/** Deterministic pseudo-random bytes (xorshift32): "binary" files that are the same on every run. */
export function noise(n: number, seed = 0x9e3779b9): Buffer {
  const buf = Buffer.alloc(n);
  let x = seed >>> 0 || 1;
  for (let i = 0; i < n; i++) {
    x ^= x << 13;
    x >>>= 0;
    x ^= x >>> 17;
    x ^= x << 5;
    x >>>= 0;
    buf[i] = x & 0xff;
  }
  // No accidental magic numbers (%PDF, PK\3\4, OLE) at the start.
  buf[0] = 0x00;
  return buf;
}

/** A PDF with one line of Helvetica text per page, with a correct xref table. */
export function makePdf(pages: string[], opts: { trailerExtra?: string; extraObjects?: string[] } = {}): Buffer {
  const objs: string[] = [];
  const n = pages.length;
  // 1 catalog, 2 pages, 3 font, then per page: page object, content stream.
  const kids = pages.map((_, i) => `${4 + 2 * i} 0 R`).join(' ');
  objs.push('<< /Type /Catalog /Pages 2 0 R >>');
  objs.push(`<< /Type /Pages /Kids [${kids}] /Count ${n} >>`);
  objs.push('<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>');
  pages.forEach((text, i) => {
    const content = `BT /F1 12 Tf 72 720 Td (${text.replace(/[()\\]/g, '\\$&')}) Tj ET`;
    objs.push(`<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 3 0 R >> >> /Contents ${5 + 2 * i} 0 R >>`);
    objs.push(`<< /Length ${Buffer.byteLength(content, 'latin1')} >>\nstream\n${content}\nendstream`);
  });
  for (const extra of opts.extraObjects ?? []) objs.push(extra);
  const parts: string[] = ['%PDF-1.4\n%\xe2\xe3\xcf\xd3\n'];
  const offsets: number[] = [];
  let len = Buffer.byteLength(parts[0] as string, 'latin1');
  objs.forEach((body, i) => {
    const s = `${i + 1} 0 obj\n${body}\nendobj\n`;
    offsets.push(len);
    parts.push(s);
    len += Buffer.byteLength(s, 'latin1');
  });
  const xref = [`xref\n0 ${objs.length + 1}\n`, '0000000000 65535 f \n', ...offsets.map((o) => `${String(o).padStart(10, '0')} 00000 n \n`)].join('');
  parts.push(xref);
  parts.push(`trailer\n<< /Size ${objs.length + 1} /Root 1 0 R ${opts.trailerExtra ?? ''}>>\nstartxref\n${len}\n%%EOF\n`);
  return Buffer.from(parts.join(''), 'latin1');
}

/**
 * A PDF encrypted with the standard security handler (RC4, 40-bit) whose owner/user entries match no
 * password, the empty one included: every reader asks for a password.
 */
export function makeEncryptedPdf(text: string): Buffer {
  const hex = (b: Buffer) => `<${b.toString('hex')}>`;
  const pageCount = 1;
  const encObj = 4 + 2 * pageCount; // after catalog, pages, font and the page's two objects
  const id = noise(16, 7).toString('hex');
  return makePdf([text], {
    extraObjects: [`<< /Filter /Standard /V 1 /R 2 /O ${hex(noise(32, 11))} /U ${hex(noise(32, 13))} /P -44 >>`],
    trailerExtra: `/Encrypt ${encObj} 0 R /ID [<${id}> <${id}>] `,
  });
}

/** A minimal ZIP archive (stored, no compression) holding the given files. */
export function makeZip(files: Record<string, Buffer>): Buffer {
  const locals: Buffer[] = [];
  const central: Buffer[] = [];
  let offset = 0;
  for (const [name, data] of Object.entries(files)) {
    const nameBuf = Buffer.from(name);
    const crc = crc32(data);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt32LE(crc, 14);
    local.writeUInt32LE(data.length, 18);
    local.writeUInt32LE(data.length, 22);
    local.writeUInt16LE(nameBuf.length, 26);
    locals.push(local, nameBuf, data);
    const cen = Buffer.alloc(46);
    cen.writeUInt32LE(0x02014b50, 0);
    cen.writeUInt16LE(20, 4);
    cen.writeUInt16LE(20, 6);
    cen.writeUInt32LE(crc, 16);
    cen.writeUInt32LE(data.length, 20);
    cen.writeUInt32LE(data.length, 24);
    cen.writeUInt16LE(nameBuf.length, 28);
    cen.writeUInt32LE(offset, 42);
    central.push(cen, nameBuf);
    offset += 30 + nameBuf.length + data.length;
  }
  const cenBuf = Buffer.concat(central);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(Object.keys(files).length, 8);
  end.writeUInt16LE(Object.keys(files).length, 10);
  end.writeUInt32LE(cenBuf.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, cenBuf, end]);
}

function crc32(buf: Buffer): number {
  let c = ~0;
  for (const byte of buf) {
    c ^= byte;
    for (let k = 0; k < 8; k++) c = (c >>> 1) ^ (0xedb88320 & -(c & 1));
  }
  return ~c >>> 0;
}

/** "Billion laughs": nine levels of aliases, each ten times the one before. */
export function yamlBomb(): string {
  const lines = ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]'];
  for (let i = 1; i < 9; i++) {
    const prev = String.fromCharCode(96 + i);
    const cur = String.fromCharCode(97 + i);
    lines.push(`${cur}: &${cur} [${Array(9).fill(`*${prev}`).join(',')}]`);
  }
  return lines.join('\n') + '\n';
}

/** One entry of {@link makeDeflatedZip}: its bytes, deflated or stored. */
export interface ZipPart {
  name: string;
  data: Buffer;
  /** Declared uncompressed size, when it should lie (default: the real one). */
  declaredSize?: number;
  stored?: boolean;
}

/** A ZIP archive with deflated parts (real sizes and CRCs unless `declaredSize` lies). */
export function makeDeflatedZip(parts: ZipPart[]): Buffer {
  const locals: Buffer[] = [];
  const central: Buffer[] = [];
  let offset = 0;
  for (const part of parts) {
    const nameBuf = Buffer.from(part.name);
    const body = part.stored ? part.data : deflateRawSync(part.data, { level: 9 });
    const method = part.stored ? 0 : 8;
    const crc = zlibCrc32(part.data);
    const size = part.declaredSize ?? part.data.length;
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(method, 8);
    local.writeUInt32LE(crc, 14);
    local.writeUInt32LE(body.length, 18);
    local.writeUInt32LE(size, 22);
    local.writeUInt16LE(nameBuf.length, 26);
    locals.push(local, nameBuf, body);
    const cen = Buffer.alloc(46);
    cen.writeUInt32LE(0x02014b50, 0);
    cen.writeUInt16LE(20, 4);
    cen.writeUInt16LE(20, 6);
    cen.writeUInt16LE(method, 10);
    cen.writeUInt32LE(crc, 16);
    cen.writeUInt32LE(body.length, 20);
    cen.writeUInt32LE(size, 24);
    cen.writeUInt16LE(nameBuf.length, 28);
    cen.writeUInt32LE(offset, 42);
    central.push(cen, nameBuf);
    offset += 30 + nameBuf.length + body.length;
  }
  const cenBuf = Buffer.concat(central);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(parts.length, 8);
  end.writeUInt16LE(parts.length, 10);
  end.writeUInt32LE(cenBuf.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, cenBuf, end]);
}

const DOCX_TYPES =
  '<?xml version="1.0" encoding="UTF-8" standalone="yes"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">' +
  '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/>' +
  '<Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>';
const DOCX_RELS =
  '<?xml version="1.0" encoding="UTF-8" standalone="yes"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">' +
  '<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/></Relationships>';

/** word/document.xml with the given paragraphs, padded with `padBytes` of repeated empty-run paragraphs. */
export function docxDocumentXml(paragraphs: string[], padBytes = 0): Buffer {
  const head = '<?xml version="1.0" encoding="UTF-8" standalone="yes"?><w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body>';
  const paras = paragraphs.map((t) => `<w:p><w:r><w:t>${t}</w:t></w:r></w:p>`).join('');
  const tail = '</w:body></w:document>';
  const unit = '<w:p><w:r><w:t>lol</w:t></w:r></w:p>';
  const pad = padBytes > 0 ? Buffer.alloc(Math.ceil(padBytes / unit.length) * unit.length, unit) : Buffer.alloc(0);
  return Buffer.concat([Buffer.from(head + paras), pad, Buffer.from(tail)]);
}

/** A DOCX whose document.xml holds `paragraphs`, padded to about `xmlBytes` (a zip bomb when large). */
export function makeDocx(paragraphs: string[], xmlBytes = 0, opts: { lieAboutSize?: boolean } = {}): Buffer {
  const xml = docxDocumentXml(paragraphs, xmlBytes);
  return makeDeflatedZip([
    { name: '[Content_Types].xml', data: Buffer.from(DOCX_TYPES) },
    { name: '_rels/.rels', data: Buffer.from(DOCX_RELS) },
    { name: 'word/document.xml', data: xml, ...(opts.lieAboutSize ? { declaredSize: 4096 } : {}) },
  ]);
}

/** A PDF whose page tree lists one page `times` times (a small file with a huge page count). */
export function makeRepeatedPagePdf(times: number, text = 'The same page again.'): Buffer {
  const content = `BT /F1 12 Tf 72 720 Td (${text}) Tj ET`;
  const objs = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    `<< /Type /Pages /Kids [${'4 0 R '.repeat(times)}] /Count ${times} >>`,
    '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 3 0 R >> >> /Contents 5 0 R >>',
    `<< /Length ${content.length} >>\nstream\n${content}\nendstream`,
  ];
  let out = '%PDF-1.4\n';
  const offsets: number[] = [];
  objs.forEach((body, i) => {
    offsets.push(out.length);
    out += `${i + 1} 0 obj\n${body}\nendobj\n`;
  });
  const xref = out.length;
  out += `xref\n0 ${objs.length + 1}\n0000000000 65535 f \n${offsets.map((o) => `${String(o).padStart(10, '0')} 00000 n \n`).join('')}`;
  out += `trailer\n<< /Size ${objs.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return Buffer.from(out, 'latin1');
}
