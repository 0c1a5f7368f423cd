/**
 * issue 41 (5): the first search after manuals are added does not build the indexes a search needs:
 * the ingest leaves the query analyzer (thesauri, Chinese segmenter) and the library's name and
 * message indexes built. Checked by what the search calls, never by its time. Fixtures invented.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { LibraryStore } from '../../native/store/library-store.js';
import { queryAnalysisReady } from '../../native/text/analyze.js';
import { engineOverDocs } from './engine-fixture.js';

const engine = engineOverDocs('issue41-first-', (docs) => {
  fs.writeFileSync(path.join(docs, 'winch.md'), '# Winch manual\n\n## Drum brake\n\nThe brake holds the drum when the motor stops. Replace the lining when it is worn.\n');
  fs.writeFileSync(path.join(docs, 'hoist.md'), '# Hoist manual\n\n## Limit switch\n\nThe upper limit switch stops the hoist. Check its wiring when the hook overruns.\n');
});

describe('the first search after an ingest', () => {
  it('finds the query analyzer and the name and message indexes already built', async () => {
    expect(queryAnalysisReady()).toBe(true);
    const headings = vi.spyOn(LibraryStore.prototype, 'headingsByFile');
    const fenced = vi.spyOn(LibraryStore.prototype, 'fencedTexts');
    const res = await engine().search({ query: 'brake lining worn' });
    expect(res.ok && res.value.hits.length).toBeGreaterThan(0);
    expect(headings).not.toHaveBeenCalled();
    expect(fenced).not.toHaveBeenCalled();
    headings.mockRestore();
    fenced.mockRestore();
  });
});
