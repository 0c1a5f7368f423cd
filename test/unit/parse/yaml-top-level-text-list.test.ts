/** A YAML file's top-level list of plain texts (`notes: [...]`) is read as one labelled field, not dropped. */
import { describe, expect, it } from 'vitest';
import { parseYamlDoc } from '../../../native/parse/formats/structured.js';

describe('YAML top-level list of texts', () => {
  it('is kept as a labelled field, not dropped', () => {
    const doc = parseYamlDoc({ text: 'title: Pump\nnotes:\n  - Requires the flow switch.\n  - Settings are kept with the save command.\nparameters:\n  - tag: S\n    description: Burst length.\n', fileStem: 'pump' });
    const notes = doc.blocks.find((b) => b.kind === 'definition' && b.term === 'notes');
    expect(notes?.text).toContain('Settings are kept with the save command.');
  });
});
