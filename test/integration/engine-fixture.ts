/**
 * An engine over a fresh library of small manuals a test file writes, open for the whole file: the
 * manuals are written into a `docs` folder and ingested before the first test; the engine is closed
 * and the folder removed after the last.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { createEngine, type Engine } from '../../native/engine.js';
import { cleanupTemp, tempDir, value } from './helpers.js';

export function engineOverDocs(prefix: string, write: (docs: string) => void): () => Engine {
  let engine: Engine | undefined;
  beforeAll(async () => {
    const root = tempDir(prefix);
    const docs = path.join(root, 'docs');
    fs.mkdirSync(docs, { recursive: true });
    write(docs);
    engine = await createEngine({ libraryDir: path.join(root, 'lib'), create: true });
    value(await engine.ingest({ paths: [docs] }));
  }, 60_000);
  afterAll(async () => {
    await engine?.close();
    cleanupTemp();
  });
  return () => {
    if (!engine) throw new Error('The test library is not open (its beforeAll failed).');
    return engine;
  };
}
