/**
 * A wiki page's title is its file name (the wiki shows it above the page; the page does not repeat
 * it), and an untitled PDF's too: through the real ingest, such a page is found by its title as a
 * titled page is by its headings, and a hit names it as its section.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { engineOverDocs } from './engine-fixture.js';
import { value } from './helpers.js';

const engine = engineOverDocs('wiki-titles', (docs) => {
  fs.mkdirSync(path.join(docs, 'wiki'), { recursive: true });
  fs.writeFileSync(
    path.join(docs, 'wiki', 'Spindle-warm-up.md'),
    'Run the spindle at low speed for ten minutes before the first job of the day, then raise the speed in steps.\n\n## Bearings\n\nA cold spindle runs its bearings without their preload.\n',
  );
  fs.writeFileSync(
    path.join(docs, 'wiki', 'Maintenance.md'),
    '# Maintenance\n\n## Weekly\n\nCheck the spindle belt. Clean the spindle nose and the spindle taper. Grease the spindle slide.\n',
  );
  fs.writeFileSync(path.join(docs, 'wiki', 'Alarm-codes.md'), '| Code | Description |\n|---|---|\n| 1 | Hard limit triggered. |\n| 14 | Spindle at speed timeout. Check the spindle encoder. |\n');
  fs.writeFileSync(path.join(docs, 'wiki', 'Error-codes.md'), '| Code | Description |\n|---|---|\n| 14 | Line overflow. Shorten the line. |\n');
});

describe('a page whose title is its file name', () => {
  it('is found by its title words, and a hit shows the title as its section', async () => {
    const hits = value(await engine().search({ query: 'spindle warm up', k: 3 })).hits;
    expect(hits[0]?.file).toBe('wiki/Spindle-warm-up.md');
    expect(hits[0]?.section).toBe('Spindle warm up');
    const bearings = value(await engine().search({ query: 'warm up bearings preload', k: 3 })).hits;
    expect(bearings[0]?.section).toBe('Spindle warm up > Bearings');
    // The source viewer finds the cited section: its blocks carry the heading paths the passages have.
    const doc = value(await engine().openSource({ file: 'wiki/Spindle-warm-up.md' }));
    const blocks = doc.kind === 'blocks' ? doc.blocks : [];
    expect(blocks.find((b) => b.text.includes('preload'))?.headingPath.join(' > ')).toBe(bearings[0]?.section);
  });

  it('gives a numbered code table the family its page title names, so alarm 14 and error 14 stay apart', async () => {
    const alarm = value(await engine().lookupCode({ text: 'alarm 14' }));
    expect(alarm.matches.map((m) => m.title)).toEqual(['Spindle at speed timeout.']);
    const error = value(await engine().lookupCode({ text: 'error:14' }));
    expect(error.matches.map((m) => m.title)).toEqual(['Line overflow.']);
  });

  it('leaves a page with a title of its own as it is', async () => {
    const hits = value(await engine().search({ query: 'spindle belt weekly', k: 3 })).hits;
    expect(hits[0]?.file).toBe('wiki/Maintenance.md');
    expect(hits[0]?.section).toBe('Maintenance > Weekly');
  });
});
