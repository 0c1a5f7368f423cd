/**
 * One page of a PDF rendered with pdf.js (bundled with the app, worker included: nothing is fetched
 * from the network), with boxes over the lines of the cited passage.
 */
import { useEffect, useRef, useState } from 'react';
import { Busy, ErrorNote } from '../../ui/notices.js';
import { pdfItemsInPassage } from './match.js';

type PdfJs = typeof import('pdfjs-dist');
type PdfDocument = Awaited<ReturnType<PdfJs['getDocument']>['promise']>;

let pdfjs: Promise<PdfJs> | null = null;

/** Loaded on first use, so opening the app does not pay for pdf.js. */
function loadPdfJs(): Promise<PdfJs> {
  pdfjs ??= Promise.all([import('pdfjs-dist'), import('pdfjs-dist/build/pdf.worker.min.mjs?url')]).then(([lib, worker]) => {
    lib.GlobalWorkerOptions.workerSrc = worker.default;
    return lib;
  });
  return pdfjs;
}

function decodeBase64(b64: string): Uint8Array {
  const bin = atob(b64);
  const out = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  return out;
}

/** Zoom steps for Ctrl +/− and the toolbar (1 = the page fits the window's width). */
export const ZOOM_STEPS = [0.5, 0.67, 0.8, 1, 1.25, 1.5, 1.75, 2, 2.5, 3];

/**
 * pdf.js scale for a page: fit the frame's width, times the app's text size (Larger text enlarges
 * the page like the rest of the screen), times the reader's zoom.
 */
export function pdfScale(frameWidth: number, pageWidth: number, textScale: number, zoom: number): number {
  const fit = frameWidth > 0 && pageWidth > 0 ? frameWidth / pageWidth : 1;
  return Math.max(0.25, Math.min(6, fit * textScale * zoom));
}

/** The next zoom step up (+1) or down (−1). */
export function stepZoom(zoom: number, dir: 1 | -1): number {
  const i = ZOOM_STEPS.findIndex((z) => z >= zoom - 1e-6);
  const at = i < 0 ? ZOOM_STEPS.length - 1 : i;
  const next = dir > 0 ? (ZOOM_STEPS[at]! > zoom + 1e-6 ? at : at + 1) : at - 1;
  return ZOOM_STEPS[Math.max(0, Math.min(ZOOM_STEPS.length - 1, next))]!;
}

/** The root font size against the normal 18 px: 1, 1.17 (Large), 1.33 (Larger). */
function textScale(): number {
  const px = parseFloat(getComputedStyle(document.documentElement).fontSize);
  return Number.isFinite(px) && px > 0 ? px / 18 : 1;
}

interface Box {
  left: number;
  top: number;
  width: number;
  height: number;
}

export function PdfView({ base64, page: initialPage, passage }: { base64: string; page: number | null; passage: string }) {
  const [doc, setDoc] = useState<{ pdf: PdfDocument; lib: PdfJs } | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [page, setPage] = useState(initialPage ?? 1);
  const [boxes, setBoxes] = useState<Box[]>([]);
  const [rendered, setRendered] = useState<number | null>(null);
  const [zoom, setZoom] = useState(1);
  const canvasRef = useRef<HTMLCanvasElement>(null);
  const frameRef = useRef<HTMLDivElement>(null);

  useEffect(() => setPage(initialPage ?? 1), [initialPage]);

  // Ctrl/⌘ + and − zoom the page (not the whole window); Ctrl/⌘ 0 fits it again.
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (!(e.ctrlKey || e.metaKey) || e.altKey) return;
      if (e.key === '+' || e.key === '=') setZoom((z) => stepZoom(z, 1));
      else if (e.key === '-' || e.key === '_') setZoom((z) => stepZoom(z, -1));
      else if (e.key === '0') setZoom(1);
      else return;
      e.preventDefault();
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, []);

  useEffect(() => {
    let live = true;
    let loaded: PdfDocument | null = null;
    setDoc(null);
    setError(null);
    void loadPdfJs()
      .then(async (lib) => {
        const pdf = await lib.getDocument({ data: decodeBase64(base64), isEvalSupported: false, useSystemFonts: true }).promise;
        loaded = pdf;
        if (live) setDoc({ pdf, lib });
      })
      .catch((err: unknown) => {
        if (live) setError(`This PDF could not be shown (${String(err)}). Open the file in a PDF reader, or re-index it from the Library screen.`);
      });
    return () => {
      live = false;
      void loaded?.destroy();
    };
  }, [base64]);

  useEffect(() => {
    if (!doc || !canvasRef.current) return;
    let cancelled = false;
    const n = Math.min(Math.max(1, page), doc.pdf.numPages);
    const canvas = canvasRef.current;
    let task: { cancel(): void; promise: Promise<void> } | null = null;
    void (async () => {
      const pdfPage = await doc.pdf.getPage(n);
      const width = frameRef.current?.clientWidth || 900;
      const base = pdfPage.getViewport({ scale: 1 });
      const scale = pdfScale(width - 16, base.width, textScale(), zoom);
      const viewport = pdfPage.getViewport({ scale });
      const ratio = window.devicePixelRatio || 1;
      canvas.width = Math.floor(viewport.width * ratio);
      canvas.height = Math.floor(viewport.height * ratio);
      canvas.style.width = `${Math.floor(viewport.width)}px`;
      canvas.style.height = `${Math.floor(viewport.height)}px`;
      task = pdfPage.render({ canvas, viewport, transform: ratio !== 1 ? [ratio, 0, 0, ratio, 0, 0] : undefined });
      await task.promise;
      if (cancelled) return;
      const content = await pdfPage.getTextContent();
      const items = content.items.filter((it): it is (typeof content.items)[number] & { str: string; transform: number[]; width: number } => 'str' in it);
      const wanted = n === (initialPage ?? n) ? pdfItemsInPassage(items, passage) : [];
      const found = wanted.map((i) => {
        const it = items[i]!;
        const tx = doc.lib.Util.transform(viewport.transform, it.transform);
        const height = Math.hypot(tx[2]!, tx[3]!);
        return { left: tx[4]!, top: tx[5]! - height, width: it.width * scale, height: height * 1.2 };
      });
      if (cancelled) return;
      setBoxes(found);
      setRendered(n);
      const frame = frameRef.current;
      const first = found[0];
      if (frame && first) frame.scrollTop = Math.max(0, first.top - frame.clientHeight / 3);
    })().catch((err: unknown) => {
      if (!cancelled && !(err instanceof Error && err.name === 'RenderingCancelledException')) {
        setError(`Page ${n} could not be drawn (${String(err)}). Try the next page, or open the file in a PDF reader.`);
      }
    });
    return () => {
      cancelled = true;
      task?.cancel();
    };
  }, [doc, page, passage, initialPage, zoom]);

  if (error) return <ErrorNote message={error} />;
  const pages = doc?.pdf.numPages ?? 0;
  return (
    <div className="pdf">
      <div className="pdf-toolbar">
        <button type="button" className="button small" disabled={!doc || page <= 1} onClick={() => setPage((p) => p - 1)}>
          ◀ Previous page
        </button>
        <span className="pdf-page-label" aria-live="polite">
          {doc ? `Page ${rendered ?? page} of ${pages}` : ''}
        </span>
        <button type="button" className="button small" disabled={!doc || page >= pages} onClick={() => setPage((p) => p + 1)}>
          Next page ▶
        </button>
        <span className="pdf-zoom" role="group" aria-label="Zoom">
          <button type="button" className="button small" aria-label="Zoom out (Ctrl −)" disabled={zoom <= ZOOM_STEPS[0]!} onClick={() => setZoom((z) => stepZoom(z, -1))}>
            −
          </button>
          <span className="pdf-zoom-label" data-zoom={zoom}>
            {Math.round(zoom * 100)} %
          </span>
          <button type="button" className="button small" aria-label="Zoom in (Ctrl +)" disabled={zoom >= ZOOM_STEPS[ZOOM_STEPS.length - 1]!} onClick={() => setZoom((z) => stepZoom(z, 1))}>
            +
          </button>
        </span>
      </div>
      {!doc && <Busy message="Opening the PDF…" />}
      {doc && rendered !== page && <Busy message={`Drawing page ${page}…`} />}
      <div className="pdf-frame" ref={frameRef} data-page={rendered ?? undefined}>
        <div className="pdf-canvas-wrap">
          <canvas ref={canvasRef} aria-label={`Page ${page} of the manual`} />
          {rendered === page &&
            boxes.map((b, i) => (
              <div key={i} className="pdf-highlight" style={{ left: b.left, top: b.top, width: b.width, height: b.height }} />
            ))}
        </div>
      </div>
    </div>
  );
}
