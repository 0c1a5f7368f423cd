import { createRequire, findSourceMap } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { parseFile } from '../../../native/parse/index.js';
import { tempDir } from '../parse/helpers.js';
import { buildPdf } from './helpers.js';

/**
 * With source maps on (tsx turns them on for the CLI and the bench), Node keeps the parsed source
 * map of every module it loads for the life of the process: for pdf.js that was ~75 MB of heap and
 * ~130 MB of RSS of the dev corpus ingest's peak (issue #39 item 5). This file runs in a process of
 * its own (vitest's forks pool), so pdf.js is loaded here for the first time.
 */
describe('pdf.js memory', () => {
  const before = process.sourceMapsEnabled;
  afterAll(() => process.setSourceMapsEnabled(before));

  it('loads pdf.js and its worker code without Node keeping their source maps, and leaves source maps as they were', async () => {
    process.setSourceMapsEnabled(true);
    const tmp = await tempDir();
    try {
      const pdf = buildPdf([{ text: [{ text: 'Replace the spindle fan filter every 500 hours of running.', x: 72, y: 700 }] }]);
      const doc = await parseFile(await tmp.file('filter.pdf', pdf), { ocr: { enabled: false } });
      expect(JSON.stringify(doc)).toContain('spindle fan filter');
    } finally {
      await tmp.cleanup();
    }
    expect(process.sourceMapsEnabled).toBe(true);
    const build = path.join(path.dirname(createRequire(import.meta.url).resolve('pdfjs-dist/package.json')), 'legacy', 'build');
    for (const file of ['pdf.mjs', 'pdf.min.mjs', 'pdf.worker.mjs', 'pdf.worker.min.mjs']) {
      expect(findSourceMap(pathToFileURL(path.join(build, file)).href), file).toBeUndefined();
    }
  });
});
