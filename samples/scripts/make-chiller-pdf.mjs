#!/usr/bin/env node
/**
 * Writes samples/library/acme-ch-20-chiller.pdf: a small, fictional, text-layer PDF manual for the
 * sample library (the source viewer renders it with pdf.js). Plain PDF 1.4, Helvetica, no
 * dependencies; run it again after editing the text below.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const OUT = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'library', 'acme-ch-20-chiller.pdf');

/** Each page: [size, text] lines top to bottom; size 0 is a blank line. */
const PAGES = [
  [
    [20, 'Acme CH-20 Spindle Chiller'],
    [12, 'Service Manual, revision B (fictional sample)'],
    [0, ''],
    [15, '1 Safety'],
    [11, 'WARNING: Disconnect the chiller from the mains and lock out the main switch'],
    [11, 'before you open the side panel. The compressor stays hot for 30 minutes.'],
    [11, 'Wear gloves and eye protection when you handle coolant concentrate.'],
    [0, ''],
    [15, '2 Specifications'],
    [11, 'Cooling capacity: 2.0 kW at 20 C. Tank volume: 18 litres.'],
    [11, 'Coolant: water with 30 % glycol. Flow: 12 litres per minute at 2 bar.'],
  ],
  [
    [15, '3 Cleaning the condenser filter'],
    [11, 'Clean the condenser filter every 250 operating hours, or sooner in dusty shops.'],
    [11, '1. Switch the chiller off and wait until the fan stops.'],
    [11, '2. Pull the filter mat out of the front grille.'],
    [11, '3. Blow the mat clean with compressed air from the fan side, at most 3 bar.'],
    [11, '4. Refit the mat with the arrow pointing towards the condenser.'],
    [0, ''],
    [15, '4 Changing the coolant'],
    [11, 'Drain the tank through the valve V2 and flush it with clean water.'],
    [11, 'Refill with 18 litres of premixed coolant and bleed the pump at screw B1.'],
  ],
  [
    [15, '5 Alarm codes'],
    [11, 'C-01 Coolant flow low: the flow switch opened. Check the tank level, the pump and'],
    [11, 'the strainer; bleed the pump at screw B1.'],
    [11, 'C-02 Coolant temperature high: outlet above 30 C. Clean the condenser filter'],
    [11, '(section 3) and check that the fan turns.'],
    [11, 'C-03 Refrigerant pressure high: the high-pressure switch tripped. Clean the'],
    [11, 'condenser filter; if it repeats, call a refrigeration technician.'],
  ],
];

function esc(s) {
  return s.replace(/[\\()]/g, (c) => `\\${c}`);
}

const objects = [];
const add = (body) => objects.push(body);
const catalog = add('');
const pagesObj = add('');
const font = add('<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>');
const bold = add('<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica-Bold /Encoding /WinAnsiEncoding >>');
const info = add('<< /Title (Acme CH-20 Spindle Chiller Service Manual) /Producer (ManualDesk samples) >>');
const kids = [];
for (const lines of PAGES) {
  let y = 740;
  const ops = [];
  for (const [size, text] of lines) {
    if (size > 0) ops.push(`BT /${size > 11 ? 'F2' : 'F1'} ${size} Tf 72 ${y} Td (${esc(text)}) Tj ET`);
    y -= size === 0 ? 10 : Math.round(size * 1.6);
  }
  const stream = ops.join('\n');
  const content = add(`<< /Length ${Buffer.byteLength(stream, 'latin1')} >>\nstream\n${stream}\nendstream`);
  kids.push(
    add(
      `<< /Type /Page /Parent ${pagesObj} 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 ${font} 0 R /F2 ${bold} 0 R >> >> /Contents ${content} 0 R >>`,
    ),
  );
}
objects[catalog - 1] = `<< /Type /Catalog /Pages ${pagesObj} 0 R >>`;
objects[pagesObj - 1] = `<< /Type /Pages /Kids [${kids.map((k) => `${k} 0 R`).join(' ')}] /Count ${kids.length} >>`;
let out = '%PDF-1.4\n';
const offsets = [];
objects.forEach((body, i) => {
  offsets.push(Buffer.byteLength(out, 'latin1'));
  out += `${i + 1} 0 obj\n${body}\nendobj\n`;
});
const xref = Buffer.byteLength(out, 'latin1');
out += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`;
for (const off of offsets) out += `${String(off).padStart(10, '0')} 00000 n \n`;
out += `trailer\n<< /Size ${objects.length + 1} /Root ${catalog} 0 R /Info ${info} 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
fs.writeFileSync(OUT, Buffer.from(out, 'latin1'));
console.log(`Wrote ${OUT}`);
