import { afterEach, describe, expect, it, vi } from 'vitest';
import { fullGc, IdleCollector } from '../../../native/idle-gc.js';

afterEach(() => vi.useRealTimers());

describe('IdleCollector', () => {
  it('collects once after a burst has been quiet for idleMs, never in the middle of it', () => {
    vi.useFakeTimers();
    const collect = vi.fn();
    const c = new IdleCollector(100, 0, collect, () => Date.now());
    for (let i = 0; i < 5; i++) {
      c.touch();
      vi.advanceTimersByTime(60);
    }
    expect(collect).not.toHaveBeenCalled();
    vi.advanceTimersByTime(60);
    expect(collect).toHaveBeenCalledTimes(1);
    vi.advanceTimersByTime(1000);
    expect(collect).toHaveBeenCalledTimes(1);
  });

  it('runs at most once per minIntervalMs, and not at all when off or stopped', () => {
    vi.useFakeTimers();
    const collect = vi.fn();
    const c = new IdleCollector(10, 1000, collect, () => Date.now());
    c.touch();
    vi.advanceTimersByTime(20);
    c.touch();
    vi.advanceTimersByTime(500);
    expect(collect).toHaveBeenCalledTimes(1);
    vi.advanceTimersByTime(600);
    expect(collect).toHaveBeenCalledTimes(2);
    const off = vi.fn();
    new IdleCollector(0, 0, off).touch();
    const stopped = new IdleCollector(10, 0, off, () => Date.now());
    stopped.touch();
    stopped.stop();
    vi.advanceTimersByTime(100);
    expect(off).not.toHaveBeenCalled();
  });

  it('reaches a real full GC in this process', () => {
    expect(typeof fullGc()).toBe('function');
  });
});
