/**
 * A full garbage collection once the engine has been idle a moment.
 *
 * LanceDB's query results hold native memory, and a full-text query keeps its index partition files
 * open, until V8 collects their JS wrappers; V8 does not count that native memory, so after a busy
 * spell it can stay held until some later major GC (measured in the soak and open/close suites:
 * RSS up 70–170 MB, up to ~200 descriptors between GCs). On a shared PC the app sits idle for hours
 * after such a spell, so one full GC after each burst of calls gives it back. Under continuous load
 * V8's own collections do the work; this never runs in the middle of a burst.
 */
import v8 from 'node:v8';
import vm from 'node:vm';

let exposed: (() => void) | null | undefined;

/** The full-GC function (`--expose-gc`, or turned on at run time); null where it cannot be had. */
export function fullGc(): (() => void) | null {
  if (exposed !== undefined) return exposed;
  const global = (globalThis as { gc?: () => void }).gc;
  if (typeof global === 'function') return (exposed = global);
  try {
    v8.setFlagsFromString('--expose-gc');
    const fn: unknown = vm.runInNewContext('gc');
    exposed = typeof fn === 'function' ? (fn as () => void) : null;
  } catch {
    exposed = null;
  }
  return exposed;
}

export class IdleCollector {
  private timer: NodeJS.Timeout | null = null;
  private lastRun = Number.NEGATIVE_INFINITY;
  /** Full collections run so far (for tests and diagnostics). */
  runs = 0;

  /**
   * @param idleMs quiet time after the last call before collecting (0: never)
   * @param minIntervalMs at most one collection per this many ms
   */
  constructor(
    private readonly idleMs: number,
    private readonly minIntervalMs: number,
    private readonly collect: (() => void) | null = idleMs > 0 ? fullGc() : null,
    private readonly now: () => number = () => performance.now(),
  ) {}

  /** A call happened: collect once things have been quiet for idleMs. */
  touch(): void {
    if (!this.collect || this.idleMs <= 0) return;
    if (this.timer) clearTimeout(this.timer);
    const wait = Math.max(this.idleMs, this.lastRun + this.minIntervalMs - this.now());
    this.timer = setTimeout(() => this.run(), wait);
    this.timer.unref();
  }

  private run(): void {
    this.timer = null;
    this.lastRun = this.now();
    this.runs++;
    this.collect?.();
  }

  stop(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }
}
