/**
 * Invisible format characters (zero-width, bidi controls, word joiners, BOM) never reach a block: they
 * split words for search, and a bidi override makes the text shown differ from the text stored.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseFile } from '../../../native/parse/index.js';
import { stripInvisible } from '../../../native/parse/builder.js';
import { tempDir } from './helpers.js';

const ZW = '\u200b\u200c\u200d\u200e\u200f';
const BIDI = '\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069';
const OTHER = '\u2060\u2061\ufeff\u00ad\u180e';
const INVISIBLE = [...`${ZW}${BIDI}${OTHER}`];
const hasInvisible = (s: string) => INVISIBLE.some((c) => s.includes(c));

let t: Awaited<ReturnType<typeof tempDir>>;
beforeAll(async () => {
  t = await tempDir();
});
afterAll(() => t.cleanup());

/** Every string a block carries. */
function strings(blocks: object[]): string[] {
  return blocks.flatMap((b) => Object.values(b).flatMap((v) => (typeof v === 'string' ? [v] : Array.isArray(v) ? v.filter((x) => typeof x === 'string') : [])));
}

describe('invisible characters', () => {
  it('stripInvisible removes each of them and nothing else', () => {
    expect(stripInvisible(`To${ZW}rque${BIDI} to 45${OTHER} Nm`)).toBe('Torque to 45 Nm');
    expect(stripInvisible('扭矩 45 N·m — ok')).toBe('扭矩 45 N·m — ok');
  });

  it('are gone from every block field of Markdown, text and CSV manuals', async () => {
    const md = await t.file(
      'coupling.md',
      [
        `# Cou\u200bpling${'\u202e'}`,
        '',
        `To\u200drque the clamp bolts to \u202e54\u202c Nm in a cross\u2060 pattern.`,
        '',
        '| Code | Meaning |',
        '|---|---|',
        `| E\u200b1 | Over\u2066temp\u2069 |`,
        '',
        '```',
        `set torque=45\u200f`,
        '```',
        '',
        `WARNING${'\u202e'}: Disconnect power first.`,
      ].join('\n'),
    );
    const txt = await t.file('notes.txt', `\ufeffShift notes\n\nClean the \u00adoil cooler\u200c fins.\n`);
    const csv = await t.file('codes.csv', `Code,Meaning\nE\u200d2,Low\u202e oil\n`);
    for (const file of [md, txt, csv]) {
      const doc = await parseFile(file);
      expect(doc.blocks.length, file).toBeGreaterThan(0);
      for (const s of strings(doc.blocks)) expect(hasInvisible(s), `${file}: ${JSON.stringify(s)}`).toBe(false);
    }
    const mdDoc = await parseFile(md);
    expect(mdDoc.blocks.map((b) => b.text).join('\n')).toContain('Torque the clamp bolts to 54 Nm in a cross pattern.');
    expect(strings((await parseFile(csv)).blocks).join('\n')).toContain('Low oil');
  });
});
