/**
 * One small lifetime pattern for everything that holds native resources (a library's tables, the
 * engine, the language model, the reranker): close() is safe to call twice, `await using` works
 * (Symbol.asyncDispose), and calls running when close() is called finish first; calls made after
 * it get CLOSED.
 */
import { EngineError } from '../contract/errors.js';
import { closedError } from '../contract/messages.js';

export class Lifetime {
  private running = 0;
  private idle: (() => void)[] = [];
  private closing: Promise<void> | null = null;

  /** @param what names the thing in the CLOSED message ("The library", "The engine"). */
  constructor(private readonly what: string) {}

  get closed(): boolean {
    return this.closing !== null;
  }

  /** Throws CLOSED once close() was called. */
  assertOpen(): void {
    if (this.closing) throw new EngineError('CLOSED', closedError(this.what));
  }

  /** Runs a call, counted so close() waits for it; refused with CLOSED after close(). */
  async run<T>(fn: () => Promise<T>): Promise<T> {
    this.assertOpen();
    this.running++;
    try {
      return await fn();
    } finally {
      this.running--;
      if (this.running === 0) for (const wake of this.idle.splice(0)) wake();
    }
  }

  /** Stops new calls, waits for the running ones, then disposes (once; later calls await the same). */
  close(dispose: () => Promise<void>): Promise<void> {
    if (!this.closing) {
      this.closing = (async () => {
        if (this.running > 0) await new Promise<void>((resolve) => this.idle.push(resolve));
        await dispose();
      })();
    }
    return this.closing;
  }
}

/** Base of the holders: close() once, `await using`, counted calls. */
export abstract class Disposable implements AsyncDisposable {
  protected readonly lifetime: Lifetime;

  constructor(what: string) {
    this.lifetime = new Lifetime(what);
  }

  get closed(): boolean {
    return this.lifetime.closed;
  }

  /** Releases the resources after running calls finished. Safe to call twice. */
  close(): Promise<void> {
    return this.lifetime.close(() => this.dispose());
  }

  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }

  protected abstract dispose(): Promise<void>;
}

/**
 * Readers share, a writer waits for running readers and holds new ones back: pack operations close
 * and replace pack stores only when no search is using them.
 */
export class ReaderGuard {
  private readers = 0;
  private writer: Promise<void> | null = null;
  private drained: (() => void)[] = [];

  async read<T>(fn: () => Promise<T>): Promise<T> {
    while (this.writer) await this.writer.catch(() => undefined);
    this.readers++;
    try {
      return await fn();
    } finally {
      this.readers--;
      if (this.readers === 0) for (const wake of this.drained.splice(0)) wake();
    }
  }

  async write<T>(fn: () => Promise<T>): Promise<T> {
    while (this.writer) await this.writer.catch(() => undefined);
    let done!: () => void;
    this.writer = new Promise<void>((resolve) => (done = resolve));
    try {
      if (this.readers > 0) await new Promise<void>((resolve) => this.drained.push(resolve));
      return await fn();
    } finally {
      this.writer = null;
      done();
    }
  }
}
