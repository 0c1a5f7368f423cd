/**
 * Renders a PDF page to a grey image for OCR, with pdf.js and @napi-rs/canvas (the canvas pdf.js
 * itself uses under Node; prebuilt per platform from npm, no download or compile at install).
 * pdf.js decodes every image codec a scan may use (JPEG, CCITT G4, JBIG2, JPEG 2000, Flate), so
 * rendering works for any scanned page, where extracting the image XObject would need a decoder
 * per codec plus the page's transform.
 */
import type { PdfPage } from './open.js';

export interface GreyImage {
  width: number;
  height: number;
  /** One byte per pixel, 0 = black, row by row from the top. */
  grey: Uint8Array;
  /** Pixels per PDF point. */
  scale: number;
}

/** Rendering resolution for OCR: tesseract reads body text best at 200–300 dpi. */
export const OCR_DPI = 250;
/** Largest rendered side in pixels, so a poster-size page does not take minutes. */
const MAX_SIDE = 4200;

export async function renderPageGrey(page: PdfPage, dpi = OCR_DPI): Promise<GreyImage> {
  const base = page.getViewport({ scale: 1 });
  const scale = Math.min(dpi / 72, MAX_SIDE / Math.max(base.width, base.height));
  const viewport = page.getViewport({ scale });
  const width = Math.max(1, Math.round(viewport.width));
  const height = Math.max(1, Math.round(viewport.height));
  const { createCanvas } = await import('@napi-rs/canvas');
  const canvas = createCanvas(width, height);
  const ctx = canvas.getContext('2d');
  ctx.fillStyle = '#ffffff';
  ctx.fillRect(0, 0, width, height);
  await page.render({
    canvas: canvas as unknown as HTMLCanvasElement,
    canvasContext: ctx as unknown as CanvasRenderingContext2D,
    viewport,
    background: '#ffffff',
  }).promise;
  const rgba = ctx.getImageData(0, 0, width, height).data;
  const grey = new Uint8Array(width * height);
  for (let i = 0, j = 0; j < grey.length; i += 4, j++) {
    // Rec. 601 luma in integers.
    grey[j] = ((rgba[i] as number) * 299 + (rgba[i + 1] as number) * 587 + (rgba[i + 2] as number) * 114) / 1000;
  }
  return { width, height, grey, scale };
}

/** True when the image has (almost) no dark pixels: nothing to read. */
export function isBlank(img: GreyImage): boolean {
  let dark = 0;
  const limit = Math.max(20, img.grey.length * 0.0005);
  for (let i = 0; i < img.grey.length; i += 3) if ((img.grey[i] as number) < 128 && ++dark > limit) return false;
  return true;
}

/** Binary PGM (P5): the simplest image format leptonica (inside tesseract) reads; no encoder needed. */
export function toPgm(img: Pick<GreyImage, 'width' | 'height' | 'grey'>): Uint8Array {
  const header = Buffer.from(`P5\n${img.width} ${img.height}\n255\n`, 'latin1');
  const out = new Uint8Array(header.length + img.grey.length);
  out.set(header, 0);
  out.set(img.grey, header.length);
  return out;
}
