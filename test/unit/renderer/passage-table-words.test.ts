/**
 * Issue 41 (clean text), found on the new-user walkthrough: a fault-code table quoted on an answer's
 * source card showed its header and name cut inside words ("Cod e", "OVERVOL TAGE"): the card's
 * `overflow-wrap: anywhere` (for long paths and identifiers in prose) lets a table column shrink below
 * its longest word. Table cells in passages break only a word longer than the card.
 */
import fs from 'node:fs';
import path from 'node:path';
import { expect, it } from 'vitest';

it('table cells in a passage card do not inherit overflow-wrap: anywhere', () => {
  const css = fs.readFileSync(path.resolve(import.meta.dirname, '../../../renderer/src/styles.css'), 'utf8');
  for (const card of ['.hit-text', '.citation-text']) {
    for (const cell of ['td', 'th']) {
      const rule = new RegExp(`${card.replace('.', '\\.')} \\.s-table ${cell}[^{]*\\{([^}]*)\\}`).exec(css);
      expect(rule?.[1], `${card} .s-table ${cell}`).toMatch(/overflow-wrap:\s*break-word/);
    }
  }
});
