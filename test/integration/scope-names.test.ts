/**
 * A question that names a product together with a name that only other manuals use ("can a <drive>
 * run from a <vendor> PLC") is about a combination the product's manuals do not cover: ask says so,
 * through the real engine (name index → retrieval scope → folder vocabulary → gate).
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { engineOverDocs } from './engine-fixture.js';
import { value } from './helpers.js';

const engine = engineOverDocs('scope-names', (docs) => {
  fs.mkdirSync(path.join(docs, 'velox'), { recursive: true });
  fs.mkdirSync(path.join(docs, 'mill'), { recursive: true });
  fs.writeFileSync(
    path.join(docs, 'velox', 'interfaces.md'),
    '# Velox drive interfaces\n\n## CAN-FD\n\nThe Velox drive is commanded over CAN-FD at 1 Mbit/s. Set the node ID with the conf tool, then save it with conf write.\n\n## Supply\n\nThe drive runs from 10 to 44 V.\n',
  );
  fs.writeFileSync(
    path.join(docs, 'mill', 'fieldbus.md'),
    '# Mill fieldbus\n\n## EtherCAT\n\nThe mill spindle drive is run over EtherCAT from a Kestrel PLC. Wire the PLC to the drive with shielded cable.\n',
  );
});

describe('names the named product’s manuals do not use', () => {
  it('refuses, naming the product and the names its manuals lack', async () => {
    const a = value(await engine().ask({ question: 'can a Velox drive be run over EtherCAT from a Kestrel PLC?', prefer: 'extractive' }));
    expect(a.refused).toBe(true);
    expect(a.answer).toContain('"Kestrel"');
    expect(a.answer).toContain('(other manuals do)');
  });

  it('answers a question about the product in its own words', async () => {
    const a = value(await engine().ask({ question: 'how do I set the CAN-FD node ID on the Velox drive?', prefer: 'extractive' }));
    expect(a.refused).toBe(false);
    expect(a.answer).toContain('node ID');
  });
});
