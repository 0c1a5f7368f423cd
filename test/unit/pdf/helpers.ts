import { deflateSync } from 'node:zlib';

export interface TextRun {
  text: string;
  x: number;
  y: number;
  size?: number;
  /** Extra space after each character, in points (the PDF's Tc: letter-spaced or justified text). */
  charSpacing?: number;
}

/** A grey image placed on the page: `grey` is width×height bytes, 0 = black, top row first. */
export interface PlacedImage {
  width: number;
  height: number;
  grey: Uint8Array;
  /** Where it is drawn, in points. */
  x: number;
  y: number;
  w: number;
  h: number;
}

export interface PageSpec {
  text?: TextRun[];
  /** Ruling lines [x0, y0, x1, y1], stroked 0.75 pt. */
  lines?: [number, number, number, number][];
  images?: PlacedImage[];
  /** Page size in points; default US letter. */
  size?: [number, number];
}

/**
 * A valid PDF written by hand: Helvetica text runs, stroked ruling lines and Flate-compressed grey
 * images per page, correct xref offsets. A page with only an image is what a scanner produces.
 * A run with characters outside Latin-1 (Chinese) is written in a two-byte CID font (Identity-H,
 * not embedded) whose ToUnicode map gives each code its character, as CJK PDFs are made.
 */
export function buildPdf(pages: PageSpec[], title?: string): Buffer {
  const objects: Buffer[] = [];
  const add = (body: string | Buffer): number => objects.push(typeof body === 'string' ? Buffer.from(body, 'latin1') : body);
  const catalog = add('');
  const pagesObj = add('');
  const font = add('<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>');
  const wide = [...new Set(pages.flatMap((p) => (p.text ?? []).filter((t) => !isLatin1(t.text)).flatMap((t) => [...t.text])))];
  const cidFont = wide.length > 0 ? addCidFont(add, wide) : 0;
  const info = add(title ? `<< /Title (${esc(title)}) /Producer (test) >>` : '<< /Producer (test) >>');
  const kids: number[] = [];
  for (const p of pages) {
    const [pw, ph] = p.size ?? [612, 792];
    const xobjs: string[] = [];
    const ops: string[] = [];
    (p.images ?? []).forEach((img, k) => {
      const data = deflateSync(Buffer.from(img.grey));
      const head = `<< /Type /XObject /Subtype /Image /Width ${img.width} /Height ${img.height} /ColorSpace /DeviceGray /BitsPerComponent 8 /Filter /FlateDecode /Length ${data.length} >>\nstream\n`;
      const id = add(Buffer.concat([Buffer.from(head, 'latin1'), data, Buffer.from('\nendstream', 'latin1')]));
      xobjs.push(`/Im${k} ${id} 0 R`);
      ops.push(`q ${img.w} 0 0 ${img.h} ${img.x} ${img.y} cm /Im${k} Do Q`);
    });
    for (const [x0, y0, x1, y1] of p.lines ?? []) ops.push(`0.75 w ${x0} ${y0} m ${x1} ${y1} l S`);
    for (const t of p.text ?? []) {
      // Tc is text state: it outlives the text object, so a spaced run sets it back after itself.
      const [tc, reset] = t.charSpacing ? [`${t.charSpacing} Tc `, ' 0 Tc'] : ['', ''];
      if (isLatin1(t.text)) ops.push(`BT /F1 ${t.size ?? 11} Tf ${tc}${t.x} ${t.y} Td (${esc(t.text)}) Tj ET${reset}`);
      else ops.push(`BT /F2 ${t.size ?? 11} Tf ${tc}${t.x} ${t.y} Td <${[...t.text].map((ch) => (wide.indexOf(ch) + 1).toString(16).padStart(4, '0')).join('')}> Tj ET${reset}`);
    }
    const stream = ops.join('\n');
    const content = add(`<< /Length ${Buffer.byteLength(stream, 'latin1')} >>\nstream\n${stream}\nendstream`);
    const res = `/Font << /F1 ${font} 0 R${cidFont ? ` /F2 ${cidFont} 0 R` : ''} >>${xobjs.length ? ` /XObject << ${xobjs.join(' ')} >>` : ''}`;
    kids.push(add(`<< /Type /Page /Parent ${pagesObj} 0 R /MediaBox [0 0 ${pw} ${ph}] /Resources << ${res} >> /Contents ${content} 0 R >>`));
  }
  objects[catalog - 1] = Buffer.from(`<< /Type /Catalog /Pages ${pagesObj} 0 R >>`, 'latin1');
  objects[pagesObj - 1] = Buffer.from(`<< /Type /Pages /Kids [${kids.map((k) => `${k} 0 R`).join(' ')}] /Count ${kids.length} >>`, 'latin1');
  const parts: Buffer[] = [Buffer.from('%PDF-1.4\n', 'latin1')];
  let len = parts[0]!.length;
  const offsets: number[] = [];
  objects.forEach((body, i) => {
    offsets.push(len);
    const chunk = Buffer.concat([Buffer.from(`${i + 1} 0 obj\n`, 'latin1'), body, Buffer.from('\nendobj\n', 'latin1')]);
    parts.push(chunk);
    len += chunk.length;
  });
  let tail = `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`;
  for (const off of offsets) tail += `${String(off).padStart(10, '0')} 00000 n \n`;
  tail += `trailer\n<< /Size ${objects.length + 1} /Root ${catalog} 0 R /Info ${info} 0 R >>\nstartxref\n${len}\n%%EOF\n`;
  parts.push(Buffer.from(tail, 'latin1'));
  return Buffer.concat(parts);
}

function isLatin1(s: string): boolean {
  return [...s].every((ch) => (ch.codePointAt(0) ?? 0) < 0x100);
}

/** A Type0 font over `chars` (code i+1 is chars[i]), each 1 em wide, with its ToUnicode map. */
function addCidFont(add: (body: string) => number, chars: string[]): number {
  const hex = (n: number) => n.toString(16).padStart(4, '0');
  const map = chars.map((ch, i) => `<${hex(i + 1)}> <${hex(ch.codePointAt(0) ?? 0)}>`).join('\n');
  const cmap = `/CIDInit /ProcSet findresource begin 12 dict begin begincmap /CMapName /Test-UCS def /CMapType 2 def
1 begincodespacerange <0000> <FFFF> endcodespacerange
${chars.length} beginbfchar
${map}
endbfchar endcmap CMapName currentdict /CMap defineresource pop end end`;
  const toUnicode = add(`<< /Length ${Buffer.byteLength(cmap, 'latin1')} >>\nstream\n${cmap}\nendstream`);
  const descriptor = add('<< /Type /FontDescriptor /FontName /TestCJK /Flags 4 /FontBBox [0 -120 1000 880] /ItalicAngle 0 /Ascent 880 /Descent -120 /CapHeight 700 /StemV 80 >>');
  const cid = add(`<< /Type /Font /Subtype /CIDFontType2 /BaseFont /TestCJK /CIDSystemInfo << /Registry (Adobe) /Ordering (Identity) /Supplement 0 >> /FontDescriptor ${descriptor} 0 R /DW 1000 /CIDToGIDMap /Identity >>`);
  return add(`<< /Type /Font /Subtype /Type0 /BaseFont /TestCJK /Encoding /Identity-H /DescendantFonts [${cid} 0 R] /ToUnicode ${toUnicode} 0 R >>`);
}

function esc(s: string): string {
  return s.replace(/[\\()]/g, (c) => `\\${c}`);
}

/** Character error rate: Levenshtein distance / reference length, on whitespace-normalised text. */
export function cer(reference: string, hypothesis: string): number {
  const a = reference.replace(/\s+/g, ' ').trim();
  const b = hypothesis.replace(/\s+/g, ' ').trim();
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    for (let j = 1; j <= b.length; j++) {
      cur[j] = Math.min((prev[j] as number) + 1, (cur[j - 1] as number) + 1, (prev[j - 1] as number) + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    prev = cur;
  }
  return a.length ? (prev[b.length] as number) / a.length : 0;
}

/** Deterministic speckle, like dust on a scanner glass: flips about `rate` of the pixels. */
export function speckle(grey: Uint8Array, rate: number, seed = 7): Uint8Array {
  const out = new Uint8Array(grey);
  let s = seed;
  for (let i = 0; i < out.length; i++) {
    s = (s * 1103515245 + 12345) & 0x7fffffff;
    if (s / 0x7fffffff < rate) out[i] = 255 - (out[i] as number);
  }
  return out;
}
