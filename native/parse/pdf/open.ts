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

let loaded: Promise<PdfJs> | undefined;

/**
 * pdf.js and the code of its worker, loaded once: the minified builds (the same code without its
 * 8 MB of source maps), with Node's source maps off while they load. With source maps on (tsx
 * turns them on, so the CLI and the bench have them), Node keeps a source map for every module it
 * loads: pdf.js's own maps, and those a loader generates, are parsed and held for the life of the
 * process (~75 MB of heap and ~130 MB of RSS for the PDFs of the dev corpus, the largest part of
 * an ingest's peak). Stack traces through pdf.js show its minified lines; pdf.js reports failures
 * by message.
 *
 * The worker code, imported here, sets globalThis.pdfjsWorker, which pdf.js's in-process worker
 * uses instead of importing pdf.worker.mjs itself.
 */
export function pdfjsModule(): Promise<PdfJs> {
  loaded ??= (async () => {
    const sourceMaps = process.sourceMapsEnabled;
    process.setSourceMapsEnabled(false);
    try {
      const pdfjs = (await import('pdfjs-dist/legacy/build/pdf.min.mjs' as string)) as PdfJs;
      await import('pdfjs-dist/legacy/build/pdf.worker.min.mjs' as string);
      return pdfjs;
    } finally {
      process.setSourceMapsEnabled(sourceMaps);
    }
  })().catch((err: unknown) => {
    loaded = undefined;
    throw err;
  });
  return loaded;
}

/** pdf.js (legacy build, in-process, no network, no eval) loading task for PDF bytes. */
export async function loadPdf(data: Uint8Array): Promise<ReturnType<PdfJs['getDocument']>> {
  const pdfjs = await pdfjsModule();
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
