/** List items keep their raw source line (bullet included), and a code record from one quotes it. */
import { describe, expect, it } from 'vitest';
import { parseMarkdown } from '../../../native/parse/formats/markdown.js';
import { extractCodes } from '../../../native/fault-codes/extract.js';

const MD = `# Registers\n\n## Fault code\n\nA fault code which will be set if the mode is 1 (Fault):\n\n* 35 - *encoder fault* - the encoder readings are not consistent with a magnet\n* 36 - *motor not configured* - run the calibration first\n  * nested note about calibration\n`;

describe('markdown list items as written', () => {
  it('keep the bullet line as raw, without nested blocks', () => {
    const doc = parseMarkdown({ text: MD, fileStem: 'registers' });
    const items = doc.blocks.filter((b) => b.kind === 'list-item');
    expect(items[0]?.raw).toBe('* 35 - *encoder fault* - the encoder readings are not consistent with a magnet');
    expect(items[1]?.raw).toBe('* 36 - *motor not configured* - run the calibration first');
  });

  it('a code record from a list item quotes the bullet line', () => {
    const doc = parseMarkdown({ text: MD, fileStem: 'registers' });
    const recs = extractCodes(doc, { manual: 'Registers', file: 'registers.md', equipment: [] });
    const r35 = recs.find((r) => r.code === '35');
    expect(r35?.text).toBe('* 35 - *encoder fault* - the encoder readings are not consistent with a magnet');
  });
});
