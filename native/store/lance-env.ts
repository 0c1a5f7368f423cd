/**
 * Must be imported before '@lancedb/lancedb' (ESM evaluates imports in order): LanceDB sizes its thread
 * pool from LANCE_CPU_THREADS on first use, and on 2-core hosts its default deadlocks the FTS index build.
 */
import { availableParallelism } from 'node:os';

if (!process.env.LANCE_CPU_THREADS) {
  process.env.LANCE_CPU_THREADS = String(Math.max(2, availableParallelism()));
}

// A Rust panic in LanceDB (a damaged table) becomes an error the store maps to LIBRARY_DAMAGED; no backtrace on stderr.
process.env.RUST_BACKTRACE = '0';
