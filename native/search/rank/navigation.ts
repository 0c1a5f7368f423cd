/**
 * Navigation passages: a documentation set's hub pages and contents lists ("- [Calibration](calibration.md)
 * - Motor calibration procedure", a PDF's "3.2 Installing the extruder ........ 27"). They name every
 * topic of the manual in a few words each, so full-text search ranks them high for any question that
 * names the product and a topic, yet they answer none: the page they point to does. A file
 * inventory's rows (a manifest of paths and checksums) are navigation too. Pure: read from a
 * passage's text, so no re-index is needed and every library, old or new, is judged alike.
 */

/**
 * A link to another page of the same documentation (a relative Markdown link, an AsciiDoc xref or
 * cross-reference): what a contents line is made of. A list of web links (shops, forums) is content.
 */
const LINK = /\[[^\]\n]*\]\((?![a-z][a-z0-9+.-]*:)[^)\n]*\)|\bxref:[^\s[]*\[[^\]\n]*\]|<<[^>\n]+>>/gi;
/** A contents line: a title, a leader of dots (or spaced dots), a page number. */
const LEADER = /(?:\.\s?){4,}\s*\d{1,4}\s*$|\s\.{2,}\s*\d{1,4}\s*$/;
/** Words a contents line may carry besides its link: a short gloss ("- Physical installation"). */
const MAX_GLOSS_WORDS = 8;
/** A passage is navigation when this share of its lines (headings aside), and at least MIN_LINES, are contents lines. */
const NAV_SHARE = 0.6;
const MIN_LINES = 3;

/** True when a line is an entry of a contents list: a link with at most a short gloss, or a dot-leader entry. */
function isContentsLine(line: string): boolean {
  const t = line.trim();
  if (LEADER.test(t)) return true;
  const links = t.match(LINK);
  if (!links) return false;
  const rest = t.replace(LINK, ' ').replace(/^(?:[-*+•]|\d{1,3}[.)])\s+/, '').replace(/[|:–—-]/g, ' ').trim();
  // Chinese is written without spaces: two characters make about one word.
  const han = rest.match(/\p{Script=Han}/gu)?.length ?? 0;
  const words = (rest.replace(/\p{Script=Han}/gu, ' ').match(/[\p{L}\p{N}]+/gu)?.length ?? 0) + Math.ceil(han / 2);
  return words <= MAX_GLOSS_WORDS;
}

/** A file path with an extension (`docs/guides/setup.md`) and a checksum (hex, 32 or more digits). */
const FILE_PATH = /(?:^|[\s,;|"'])[\w.-]+(?:\/[\w.-]+)+\.[a-z0-9]{1,5}(?=$|[\s,;|"'])/i;
const CHECKSUM = /\b[0-9a-f]{32,}\b/i;

/**
 * True when a line is an entry of a file inventory (a manifest or checksum list a copied folder
 * carries: path, size, sha256…): it names files, it explains nothing.
 */
function isInventoryLine(line: string): boolean {
  return FILE_PATH.test(line) && CHECKSUM.test(line);
}

/**
 * True when most of a passage's lines are contents entries (a hub page, a table of contents), or
 * when it is a file inventory's row (every line but a header names a file with its checksum).
 */
export function isNavigation(text: string): boolean {
  const lines = text.split('\n').filter((l) => l.trim() && !/^\s*(?:#{1,6}|=+)\s/.test(l));
  const inventory = lines.filter(isInventoryLine).length;
  if (inventory > 0 && inventory >= lines.length - 1) return true;
  if (lines.length < MIN_LINES) return false;
  const entries = lines.filter(isContentsLine).length;
  return entries >= MIN_LINES && entries >= NAV_SHARE * lines.length;
}

/**
 * Places a navigation passage takes behind in the final list (rank/planned.ts, the last step).
 * Measured on the dev set (145 questions): navigation passages in the first five results went from
 * 11 to 2 with keyword search and from 27 to 12 with e5 when each channel sank them; a hub page that
 * both channels still ranked came back at the top through fusion (e5: 15 in the first five, 2 first).
 * Sunk in the final list instead: 4 → 0 (keyword) and 15 → 2 (e5), none first, no expected passage lower.
 */
export const NAVIGATION_SINK = 5;

/**
 * A ranking with each navigation passage moved NAVIGATION_SINK places down (order kept otherwise),
 * its score lowered to the passage it now follows so the list stays sorted. Nothing is dropped: a
 * contents page is still found when nothing else matches.
 */
export function sinkNavigation<T extends { score: number }>(ranked: T[], textOf: (h: T) => string, places = NAVIGATION_SINK): T[] {
  const keyed = ranked.map((h, i) => ({ h, key: isNavigation(textOf(h)) ? i + places + 0.5 : i }));
  if (keyed.every((k, i) => k.key === i)) return ranked;
  keyed.sort((a, b) => a.key - b.key);
  const out: T[] = [];
  for (const { h } of keyed) {
    const prev = out[out.length - 1];
    out.push(prev && h.score > prev.score ? { ...h, score: prev.score } : h);
  }
  return out;
}
