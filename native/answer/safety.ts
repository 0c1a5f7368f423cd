/**
 * Safety text in cited passages: DANGER / WARNING / CAUTION / NOTICE admonitions (the chunker labels
 * them "WARNING: …", and manuals often write the label themselves) and lockout/tagout instructions.
 * Returned verbatim, in citation order, to be shown before the answer; each notice's kind is its
 * level (DANGER, WARNING, CAUTION, NOTICE, LOCKOUT), so the UI colours them apart.
 *
 * A cited line that sends the reader to another section ("Lock out the machine (section 1.1).",
 * "see Safety") brings that section's safety text, verbatim, with where it is (file, page,
 * section), so the procedure is in the box and the UI can open the section; so does a safety section beside a
 * cited one under the same heading ("Important Safety Warning" beside "Calibration Command"). findSafety is pure;
 * withReferencedSafety looks referenced sections up through the search adapter it is given, and reads the cited
 * files' passages for the safety sections beside them.
 */
import type { SearchFilters, SearchRequest, SearchResponse } from '../contract/api.js';
import type { Citation, SafetyNotice } from '../contract/answer.js';
import type { Chunk } from '../contract/document.js';

const LABELS: [RegExp, SafetyNotice['kind']][] = [
  [/^(?:danger|危险)\s*(?:[:：!！]|$)/i, 'DANGER'],
  [/^(?:warning|警告)\s*(?:[:：!！]|$)/i, 'WARNING'],
  [/^(?:caution|小心)\s*(?:[:：!！]|$)/i, 'CAUTION'],
  [/^(?:notice)\s*(?:[:：!！]|$)/i, 'NOTICE'],
];
const LOCKOUT = /\block[\s-]?out\b|\blockout\b|\btag[\s-]?out\b|\bLOTO\b|上锁挂牌|挂牌上锁/i;
/** A heading line of a passage (`### 1.1 Lockout / tagout`). */
const HEADING = /^#{1,6}\s+/;
/** Emphasis a Markdown manual puts around a label ("**WARNING:** …"), and a quote marker. */
const LEAD_MARKUP = /^(?:>\s*)?(?:\*\*|__)?/;

/** Where a pulled-in notice comes from (it is not one of the answer's citations). */
type NoticeSource = NonNullable<SafetyNotice['source']>;

/** The notices of one passage's lines, in order; a heading that is a lockout section brings its body. */
function noticesOf(text: string, n: number): SafetyNotice[] {
  const out: SafetyNotice[] = [];
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = (lines[i] ?? '').trim();
    if (!line) continue;
    const bare = line.replace(LEAD_MARKUP, '').replace(/^(\p{L}+)(?:\*\*|__)\s*/u, '$1 ').replace(/^(\p{L}+)\s+([:：])/u, '$1$2');
    const label = LABELS.find(([re]) => re.test(bare));
    if (label) {
      // A label alone on its line heads the next line ("WARNING" / "Disconnect power…").
      const alone = /^\S+\s*[:：!！]?$/.test(bare) && lines[i + 1]?.trim();
      out.push({ kind: label[1], text: alone ? `${line} ${lines[i + 1]?.trim()}` : line, n });
      if (alone) i++;
    } else if (HEADING.test(line)) {
      // A lockout section's heading alone says nothing: its text is the notice (up to the next heading).
      if (!LOCKOUT.test(line)) continue;
      const body: string[] = [];
      for (let j = i + 1; j < lines.length && !HEADING.test((lines[j] ?? '').trim()); j++) {
        const l = (lines[j] ?? '').trim();
        if (l && !LABELS.some(([re]) => re.test(l.replace(LEAD_MARKUP, '')))) body.push(l);
      }
      if (body.length > 0) out.push({ kind: 'LOCKOUT', text: body.join('\n'), n });
    } else if (LOCKOUT.test(line)) {
      out.push({ kind: 'LOCKOUT', text: line, n });
    }
  }
  return out;
}

/** Safety notices of the given citations, each once, in citation order. */
export function findSafety(citations: Pick<Citation, 'n' | 'text'>[]): SafetyNotice[] {
  const out: SafetyNotice[] = [];
  const seen = new Set<string>();
  for (const c of citations) {
    for (const notice of noticesOf(c.text, c.n)) {
      if (seen.has(notice.text)) continue;
      seen.add(notice.text);
      out.push(notice);
    }
  }
  return out;
}

/** A reference from a cited line to another section: by number ("section 1.1", "see 4.4") or by title ("see Safety"). */
export interface SectionReference {
  /** Citation number of the line that refers. */
  n: number;
  /** The line as written. */
  line: string;
  /** "1.1", or a title as written ("Safety"). */
  target: string;
  byNumber: boolean;
}

const NUMBER_REF = /(?:\bsections?|\bsect\.|§|\bchapters?|\bsee|\brefer to|\bper)\s*(\d+(?:\.\d+)+|\d+(?=\s*[)）]))|第\s*(\d+(?:\.\d+)*)\s*[节章]/gi;
const TITLE_REF = /\b(?:see|refer to|read)\s+(?:the\s+)?["“'‘]?(\p{Lu}[\p{L}\p{N} /&-]{2,40}?)["”'’]?(?:\s+(?:section|chapter))?\s*(?=[).,;:]|$)/gu;

/** References to other sections in the citations' lines, each target once per manual file, at most `max`. */
export function sectionReferences(citations: Pick<Citation, 'n' | 'text'>[], max = 3): SectionReference[] {
  const out: SectionReference[] = [];
  const seen = new Set<string>();
  for (const c of citations) {
    for (const raw of c.text.split('\n')) {
      const line = raw.trim();
      if (!line || HEADING.test(line)) continue;
      for (const m of line.matchAll(NUMBER_REF)) {
        const target = (m[1] ?? m[2] ?? '').trim();
        if (target && !seen.has(`${c.n}|${target}`)) {
          seen.add(`${c.n}|${target}`);
          out.push({ n: c.n, line, target, byNumber: true });
        }
      }
      for (const m of line.matchAll(TITLE_REF)) {
        const target = (m[1] ?? '').trim();
        if (target && !/^\d/.test(target) && !seen.has(`${c.n}|${target.toLowerCase()}`)) {
          seen.add(`${c.n}|${target.toLowerCase()}`);
          out.push({ n: c.n, line, target, byNumber: false });
        }
      }
      if (out.length >= max) return out.slice(0, max);
    }
  }
  return out;
}

/** The heading of a section path that a reference names: "1.1 Lockout / tagout" for "1.1", "1 Safety" for "Safety". */
function namesSection(section: string, ref: SectionReference): boolean {
  const titles = section.split(' > ').map((t) => t.trim());
  if (ref.byNumber) return new RegExp(`^(?:section\\s+|chapter\\s+)?${ref.target.replace(/\./g, '\\.')}(?![.\\d])`, 'i').test(lastHeading(section));
  const want = ref.target.toLowerCase();
  return titles.some((t) => t.toLowerCase().replace(/^[\d.]+\s*/, '') === want || t.toLowerCase().replace(/^[\d.]+\s*/, '').startsWith(`${want} `));
}

/** A heading that states safety: its notices belong to the procedures beside it. */
const SAFETY_HEADING = /\b(?:safety|warnings?|cautions?|dangers?|precautions?)\b|安全|警告|注意事项/iu;
/** Cited files whose passages are read for safety sections beside the cited ones (an answer cites a few). */
const MAX_FILES_READ = 4;

/** The last heading of a section path ("Calibration > Safety" → "Safety"). */
function lastHeading(section: string): string {
  const i = section.lastIndexOf(' > ');
  return (i < 0 ? section : section.slice(i + 3)).trim();
}

/** The headings above a section's own ("Calibration > Command" → "Calibration"; "" at the top). */
function parentOf(section: string): string {
  const i = section.lastIndexOf(' > ');
  return i < 0 ? '' : section.slice(0, i);
}

export type SafetySearch = (req: SearchRequest) => Promise<SearchResponse>;
/** One file's passages in reading order, from the library (null) or an installed pack. */
export type PassagesOf = (file: string, pack: string | null) => Promise<Chunk[]>;

/**
 * The citations' own safety notices, then the safety text of the sections their lines refer to, in
 * the same manual file: verbatim, each with its source (file, page, section) and the reference.
 * A referenced section with no safety text adds nothing; a failed look-up never fails the answer.
 */
export async function withReferencedSafety(
  search: SafetySearch,
  citations: Pick<Citation, 'n' | 'text' | 'file' | 'pack' | 'chunkId' | 'section'>[],
  filters?: SearchFilters,
  passagesOf?: PassagesOf,
): Promise<SafetyNotice[]> {
  const own = findSafety(citations);
  const seen = new Set(own.map((x) => x.text));
  const citedChunks = new Set(citations.map((c) => c.chunkId));
  for (const ref of sectionReferences(citations)) {
    const from = citations.find((c) => c.n === ref.n);
    if (!from) continue;
    let hits: SearchResponse['hits'];
    try {
      const words = ref.line.replace(/^\s*(?:\d{1,3}[.)]|[-*•])\s+/, '').replace(/[()（）]/g, ' ');
      const res = await search({ query: `${ref.target} ${words}`.slice(0, 400), k: 20, mode: 'keyword', filters: { ...filters, pathPrefix: from.file } });
      hits = res.hits.filter((h) => h.file === from.file && (h.pack ?? '') === (from.pack ?? ''));
    } catch {
      continue;
    }
    // The section itself, or (a chapter: "see Safety") its subsections, in manual order of the hits.
    const targets = hits.filter((h) => namesSection(h.section, ref)).slice(0, 3);
    for (const h of targets) {
      if (citedChunks.has(h.chunkId)) continue;
      const source: NoticeSource = { file: h.file, page: h.page, section: h.section, manual: h.manual, chunkId: h.chunkId, ref: ref.target, ...(h.pack ? { pack: h.pack } : {}) };
      for (const notice of noticesOf(h.text, ref.n)) {
        if (seen.has(notice.text)) continue;
        seen.add(notice.text);
        own.push({ ...notice, source });
      }
    }
  }
  // A safety section beside a cited one, under the same heading of the same file ("Calibration > Important Safety
  // Warning" beside "Calibration > Calibration Command"), or under the cited one, is the procedure's own warning,
  // though no line points to it. The cited files' passages are read from the store, not searched again.
  if (passagesOf) {
    const files = new Map<string, (typeof citations)[number]>();
    for (const c of citations) if (c.section && files.size < MAX_FILES_READ) files.set(`${c.pack ?? ''}\u0000${c.file}`, c);
    for (const first of files.values()) {
      let passages: Chunk[];
      try {
        passages = await passagesOf(first.file, first.pack ?? null);
      } catch {
        continue;
      }
      for (const h of passages) {
        if (citedChunks.has(h.id) || !SAFETY_HEADING.test(lastHeading(h.section))) continue;
        const c = citations.find((x) => x.section && x.file === h.file && (x.pack ?? '') === (first.pack ?? '') && h.section !== x.section && (parentOf(h.section) === parentOf(x.section) || parentOf(h.section) === x.section));
        if (!c) continue;
        const source: NoticeSource = { file: h.file, page: h.page, section: h.section, manual: h.manual, chunkId: h.id, ref: lastHeading(h.section), ...(first.pack ? { pack: first.pack } : {}) };
        for (const notice of noticesOf(h.text, c.n)) {
          if (seen.has(notice.text)) continue;
          seen.add(notice.text);
          own.push({ ...notice, source });
        }
      }
    }
  }
  return own;
}
