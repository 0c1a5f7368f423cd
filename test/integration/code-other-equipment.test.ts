/**
 * A code asked for equipment that the manuals defining it never mention ("my forklift shows error 12",
 * where only a CNC controller's manual defines error 12) is refused through the real engine (code
 * lookup → the defining documentation set's vocabulary → gate); the same code asked in that set's
 * words is answered.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { engineOverDocs } from './engine-fixture.js';
import { value } from './helpers.js';

const engine = engineOverDocs('code-other-equipment', (docs) => {
  fs.mkdirSync(path.join(docs, 'kestrel-mill'), { recursive: true });
  fs.mkdirSync(path.join(docs, 'orvan-press'), { recursive: true });
  fs.writeFileSync(
    path.join(docs, 'kestrel-mill', 'errors.md'),
    '# Kestrel mill controller errors\n\n| Code | Meaning |\n|---|---|\n| Error 12 | Step rate too high: the spindle feed setting exceeds what the controller can drive. |\n| Error 13 | Door open during a cut. |\n\nReset the controller after changing the feed setting.\n',
  );
  fs.writeFileSync(
    path.join(docs, 'orvan-press', 'hydraulics.md'),
    '# Orvan press hydraulics\n\n## Oil\n\nChange the hydraulic oil every 2,000 hours. Check the pressure gauge before each shift.\n',
  );
});

describe('a code asked for equipment its manuals never mention', () => {
  it('refuses, naming the words those manuals never use and the sets the library covers', async () => {
    const a = value(await engine().ask({ question: 'my forklift shows error 12', prefer: 'extractive' }));
    expect(a.refused).toBe(true);
    expect(a.answer).toContain('never mention "forklift"');
    expect(a.answer).toContain('kestrel-mill');
    expect(a.answer).toContain('defines error 12 as "Step rate too high');
  });

  it('answers the same code asked in the defining manuals’ words', async () => {
    const a = value(await engine().ask({ question: 'the mill controller shows error 12', prefer: 'extractive' }));
    expect(a.refused).toBe(false);
    expect(a.answer).toContain('Step rate too high');
  });
});
