import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

export type PdfJs = typeof import('pdfjs-dist/legacy/build/pdf.mjs');
export type PdfDocument = Awaited<ReturnType<PdfJs['getDocument']>['promise']>;
export type PdfPage = Awaited<ReturnType<PdfDocument['getPage']>>;

let assetDirs: { fonts: string; cmaps: string; wasm: string } | undefined;

/** pdf.js's bundled standard fonts, CMaps and wasm decoders (read from node_modules, never fetched). */
export function pdfjsAssets(): { fonts: string; cmaps: string; wasm: string } {
  if (!assetDirs) {
    const root = dirname(createRequire(import.meta.url).resolve('pdfjs-dist/package.json'));
    assetDirs = {
      fonts: join(root, 'standard_fonts') + '/',
      cmaps: join(root, 'cmaps') + '/',
      wasm: join(root, 'wasm') + '/',
    };
  }
  return assetDirs;
}

/** pdf.js (legacy build, in-process, no network, no eval) loading task for PDF bytes. */
export async function loadPdf(data: Uint8Array): Promise<ReturnType<PdfJs['getDocument']>> {
  const pdfjs = await import('pdfjs-dist/legacy/build/pdf.mjs');
  const assets = pdfjsAssets();
  return pdfjs.getDocument({
    // pdf.js may transfer (detach) the buffer it is given, so hand it a copy.
    data: new Uint8Array(data),
    disableFontFace: true,
    isEvalSupported: false,
    useSystemFonts: false,
    standardFontDataUrl: assets.fonts,
    cMapUrl: assets.cmaps,
    cMapPacked: true,
    wasmUrl: assets.wasm,
    useWorkerFetch: false,
    isOffscreenCanvasSupported: false,
    stopAtErrors: false,
    verbosity: 0,
  });
}
