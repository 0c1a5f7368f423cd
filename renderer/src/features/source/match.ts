/**
 * Finding the cited passage in the document the viewer shows. Pure functions: the passage text comes
 * from the index (chunk text), the document from a fresh parse (blocks) or pdf.js (text items), so
 * both are compared after the same normalisation.
 */
import type { Block } from '../../../../native/contract/index.js';

/** Lower case, markup and punctuation runs to one space. */
export function normalize(s: string): string {
  return s
    .toLowerCase()
    .replace(/[#*_`|>]+/g, ' ')
    .replace(/[\s\u00a0]+/g, ' ')
    .trim();
}

/** Text of a block as the passage would quote it. */
export function blockText(b: Block): string {
  return b.raw ?? (b.kind === 'table-row' && b.cells ? b.cells.join(' ') : b.text);
}

function sectionMatches(b: Block, section: string): boolean {
  if (!section) return false;
  const path = b.kind === 'heading' ? [...b.headingPath, b.text] : b.headingPath;
  const joined = normalize(path.join(' > '));
  const want = normalize(section);
  return joined === want || joined.endsWith(want) || (want.length > 0 && joined.endsWith(want.split(' > ').pop() ?? want));
}

/**
 * Indexes of the blocks that make up the cited passage: blocks whose text is part of the passage (or
 * that contain it), preferring those in the cited section. Falls back to the section's heading.
 */
export function citedBlocks(blocks: Block[], section: string, passage: string): number[] {
  const want = normalize(passage);
  if (!want) return [];
  const contained = (b: Block) => {
    const t = normalize(blockText(b));
    const plain = normalize(b.text);
    if (t.length < 2 && plain.length < 2) return false;
    return (t.length >= 2 && (want.includes(t) || t.includes(want))) || (plain.length >= 2 && (want.includes(plain) || plain.includes(want)));
  };
  const all = blocks.map((b, i) => (contained(b) ? i : -1)).filter((i) => i >= 0);
  const inSection = all.filter((i) => sectionMatches(blocks[i]!, section));
  // Short blocks (a lone "1." or a repeated heading) also occur elsewhere; the section decides.
  const picked = inSection.length > 0 ? inSection : all.filter((i) => normalize(blocks[i]!.text).length >= 12);
  if (picked.length > 0) return picked;
  const heading = blocks.findIndex((b) => b.kind === 'heading' && sectionMatches(b, section));
  return heading >= 0 ? [heading] : [];
}

/**
 * Which pdf.js text items belong to the passage: items whose text (at least 3 characters after
 * normalising) occurs in it. Good enough to box the cited lines on the page.
 */
export function pdfItemsInPassage(items: { str: string }[], passage: string): number[] {
  const want = normalize(passage);
  const out: number[] = [];
  items.forEach((item, i) => {
    const t = normalize(item.str);
    if (t.length >= 3 && want.includes(t)) out.push(i);
  });
  return out;
}
