/**
 * Loaded into the browser-mode server by scripts/soak.ts (`node --expose-gc --import <this>`): on
 * SIGUSR2 it runs two full garbage collections, so the soak reads the server's RSS without the
 * garbage that V8 has not collected yet. That matters here because LanceDB's native query results
 * (napi objects) are freed only when a full GC finalizes their JS wrappers, and V8 does not count
 * their native memory: under steady load RSS saws up and down by ~15 % between full GCs without
 * leaking. With a GC before each reading, growth means memory that is still referenced.
 */
process.on('SIGUSR2', () => {
  if (typeof globalThis.gc !== 'function') return;
  globalThis.gc();
  // Native finalizers run after the collection; a second pass frees what they released.
  setTimeout(() => globalThis.gc?.(), 200).unref();
});
