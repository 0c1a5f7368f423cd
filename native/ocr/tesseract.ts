/**
 * Offline OCR with tesseract.js: a worker thread running tesseract's wasm build, language data
 * from the npm packages @tesseract.js-data/<lang> (or a folder the user names), never the network.
 *
 * One {@link OcrSession} is meant to live for one ingest: the worker starts on the first page that
 * needs it (≈1 s: wasm + language models) and is reused for every page after; `dispose()`
 * terminates it (safe to call twice). An aborted signal stops the current page at once (the
 * worker is terminated and restarted on the next use).
 */
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** One recognised word, in pixels of the image it was read from (origin top-left). */
export interface OcrWord {
  text: string;
  /** 0–100. */
  confidence: number;
  x0: number;
  y0: number;
  x1: number;
  y1: number;
  /** Height of the word's text line, in pixels (a font-size estimate). */
  lineHeight: number;
}

export interface OcrPageResult {
  text: string;
  /** Mean word confidence reported by tesseract, 0–100. */
  confidence: number;
  words: OcrWord[];
  ms: number;
}

export interface OcrOptions {
  /** Tesseract language codes; default eng + chi_sim (both ship with the app from npm). */
  languages?: string[];
  /**
   * Folder holding `<lang>.traineddata.gz` files (e.g. a models folder with more languages). Files
   * missing there are taken from the @tesseract.js-data packages.
   */
  langPath?: string;
}

export const DEFAULT_OCR_LANGUAGES: readonly string[] = Object.freeze(['eng', 'chi_sim']);

const require = createRequire(import.meta.url);
/** The worker thread's entry: tesseract.js's Node worker with fetch disabled (see worker-entry.cjs). */
export const OCR_WORKER_ENTRY = join(dirname(fileURLToPath(import.meta.url)), 'worker-entry.cjs');

/**
 * The language file the worker will read for `lang` (same rule as worker-entry.cjs): the caller's
 * folder first, then the npm package @tesseract.js-data/<lang>; null when neither has it.
 */
export function languageFile(lang: string, langPath?: string): string | null {
  if (!/^[A-Za-z_]+$/.test(lang)) return null;
  if (langPath) {
    for (const name of [`${lang}.traineddata.gz`, `${lang}.traineddata`]) if (existsSync(join(langPath, name))) return join(langPath, name);
  }
  try {
    const gz = join(dirname(require.resolve(`@tesseract.js-data/${lang}/package.json`)), '4.0.0_best_int', `${lang}.traineddata.gz`);
    return existsSync(gz) ? gz : null;
  } catch {
    return null;
  }
}

type TesseractWorker = import('tesseract.js').Worker;

function abortError(signal: AbortSignal): Error {
  const reason: unknown = signal.reason;
  if (reason instanceof Error && reason.name === 'AbortError') return reason;
  const err = new Error('The operation was aborted.');
  err.name = 'AbortError';
  return err;
}

/** Thrown when OCR cannot start (language data missing, wasm not loadable). */
export class OcrUnavailableError extends Error {
  override readonly name = 'OcrUnavailableError';
}

export class OcrSession {
  private worker: Promise<TesseractWorker> | null = null;
  private disposed = false;
  readonly languages: string[];
  private readonly langPath: string;

  constructor(opts: OcrOptions = {}) {
    this.languages = [...(opts.languages ?? DEFAULT_OCR_LANGUAGES)];
    // A real folder: the worker reads `<langPath>/<lang>.traineddata.gz` there first, then falls
    // back to the npm package (see worker-entry.cjs); never a URL, so nothing is ever fetched.
    this.langPath = opts.langPath ?? dirname(require.resolve('@tesseract.js-data/eng/package.json'));
  }

  /** True once a worker has been started (tests use it to check reuse). */
  get started(): boolean {
    return this.worker !== null;
  }

  private start(): Promise<TesseractWorker> {
    if (this.disposed) throw new Error('OCR session was disposed');
    this.worker ??= (async () => {
      if (/^[a-z][a-z\d+.-]*:\/\//i.test(this.langPath)) {
        throw new OcrUnavailableError(`OCR language data must be a local folder, not ${this.langPath}: ManualDesk works offline and never downloads it.`);
      }
      const missing = this.languages.filter((l) => !languageFile(l, this.langPath));
      if (missing.length) {
        throw new OcrUnavailableError(`OCR language data for ${missing.join(', ')} is not installed (looked in ${this.langPath} and the @tesseract.js-data packages). Reinstall ManualDesk or add the .traineddata files to that folder.`);
      }
      const { createWorker, OEM } = await import('tesseract.js');
      // tesseract.js never rejects createWorker when loading fails; its error handler does.
      let failed: (err: unknown) => void = () => undefined;
      const failure = new Promise<never>((_, reject) => {
        failed = reject;
      });
      try {
        return await Promise.race([
          createWorker(this.languages, OEM.LSTM_ONLY, {
            workerPath: OCR_WORKER_ENTRY,
            langPath: this.langPath,
            gzip: true,
            // Nothing is cached or written: the models are read from node_modules on each start.
            cacheMethod: 'none',
            errorHandler: (e: unknown) => failed(e instanceof Error ? e : new Error(String(e))),
          }),
          failure,
        ]);
      } catch (err) {
        this.worker = null;
        const detail = err instanceof Error ? err.message : String(err);
        throw new OcrUnavailableError(`OCR could not start (${detail}). Reinstall ManualDesk; the OCR language data (${this.languages.join(', ')}) may be missing.`, { cause: err });
      }
    })();
    this.worker.catch(() => {
      this.worker = null;
    });
    return this.worker;
  }

  /**
   * Recognises one page image (PNG, JPEG, BMP or PGM bytes). Rejects with an AbortError when
   * `signal` fires; the worker is then terminated so the page stops at once.
   */
  async recognize(image: Uint8Array, signal?: AbortSignal): Promise<OcrPageResult> {
    signal?.throwIfAborted();
    const t0 = performance.now();
    const worker = await this.start();
    signal?.throwIfAborted();
    const job = worker.recognize(Buffer.from(image.buffer, image.byteOffset, image.byteLength), {}, { text: true, blocks: true });
    let onAbort: (() => void) | undefined;
    const aborted = new Promise<never>((_, reject) => {
      if (!signal) return;
      onAbort = () => {
        void this.restart();
        reject(abortError(signal));
      };
      signal.addEventListener('abort', onAbort, { once: true });
    });
    try {
      const { data } = await Promise.race([job, aborted]);
      return { text: data.text ?? '', confidence: data.confidence ?? 0, words: wordsOf(data), ms: performance.now() - t0 };
    } finally {
      if (onAbort) signal?.removeEventListener('abort', onAbort);
      job.catch(() => undefined);
    }
  }

  private async restart(): Promise<void> {
    const w = this.worker;
    this.worker = null;
    if (w) await w.then((x) => x.terminate()).catch(() => undefined);
  }

  /** Terminates the worker. Safe to call more than once. */
  async dispose(): Promise<void> {
    this.disposed = true;
    await this.restart();
  }
}

function wordsOf(page: import('tesseract.js').Page): OcrWord[] {
  const out: OcrWord[] = [];
  for (const block of page.blocks ?? []) {
    for (const para of block.paragraphs) {
      for (const line of para.lines) {
        const lineHeight = Math.max(1, line.rowAttributes?.rowHeight ?? line.bbox.y1 - line.bbox.y0);
        for (const w of line.words) {
          const text = w.text.trim();
          if (!text) continue;
          out.push({ text, confidence: w.confidence, x0: w.bbox.x0, y0: w.bbox.y0, x1: w.bbox.x1, y1: w.bbox.y1, lineHeight });
        }
      }
    }
  }
  return out;
}
