import { loadPdf } from '../../../native/parse/pdf/open.js';
import { renderPageGrey } from '../../../native/parse/pdf/render.js';
import { buildPdf, speckle, type PageSpec, type TextRun } from './helpers.js';

/**
 * A scanned page as a scanner makes it: the text is typeset (Helvetica), rendered to a 200 dpi grey
 * image with some speckle, and the image alone is wrapped in a page: no text layer at all.
 */
export async function scannedPage(text: TextRun[], size: [number, number] = [612, 792], dpi = 200): Promise<PageSpec> {
  const task = await loadPdf(buildPdf([{ text, size }]));
  const doc = await task.promise;
  try {
    const img = await renderPageGrey(await doc.getPage(1), dpi);
    return { size, images: [{ width: img.width, height: img.height, grey: speckle(img.grey, 0.002), x: 0, y: 0, w: size[0], h: size[1] }] };
  } finally {
    await doc.destroy();
  }
}
