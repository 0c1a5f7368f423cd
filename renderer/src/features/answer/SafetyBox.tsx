/**
 * One safety notice, word for word, in its signal colour (DANGER red, WARNING orange, CAUTION yellow,
 * NOTICE blue: ANSI Z535 / ISO 3864). When the notice points to another section ("Lock out the
 * machine (section 1.1)", "see Safety"), a button opens that section of the same manual; a notice brought in
 * from another section (one a step refers to, or a safety section beside the steps) opens where it stands.
 */
import { useState } from 'react';
import type { Citation, SafetyNotice } from '../../../../native/contract/index.js';
import type { UiEngine } from '../../engine/types.js';
import type { OpenSource, SourceTarget } from '../../routes.js';
import { Structured } from '../../ui/Structured.js';

/** The signal word shown and the colour class it takes. */
export function signalOf(kind: string): { label: string; tone: 'danger' | 'warning' | 'caution' | 'notice' } {
  switch (kind.toUpperCase()) {
    case 'DANGER':
      return { label: 'DANGER', tone: 'danger' };
    case 'WARNING':
      return { label: 'WARNING', tone: 'warning' };
    case 'LOCKOUT':
      return { label: 'LOCKOUT / TAGOUT', tone: 'warning' };
    case 'CAUTION':
      return { label: 'CAUTION', tone: 'caution' };
    default:
      return { label: kind.toUpperCase(), tone: 'notice' };
  }
}

export interface SectionRef {
  /** As the notice writes it: "section 1.1", "Safety". */
  label: string;
  /** What to look for in the manual's headings: "1.1", "Safety". */
  ref: string;
}

const NUMBERED = /\b(?:see\s+)?(?:section|sect\.|chapter|§)\s*(\d+(?:\.\d+)*)/gi;
const NAMED = /\bsee\s+(?:the\s+)?(?:section\s+)?["“']?([A-Z][A-Za-z]+(?:[ /-][A-Za-z]+){0,3}?)["”']?(?=\s*(?:[).,;:]|section|chapter|$))/g;

/** Sections a safety text refers to, in order, each once. */
export function sectionRefs(text: string): SectionRef[] {
  const out: SectionRef[] = [];
  const add = (label: string, ref: string) => {
    if (!out.some((r) => r.ref.toLowerCase() === ref.toLowerCase())) out.push({ label, ref });
  };
  for (const m of text.matchAll(NUMBERED)) add(`section ${m[1]}`, m[1]!);
  for (const m of text.matchAll(NAMED)) add(m[1]!, m[1]!);
  return out;
}

/** Whether a heading path (joined with ' > ') is the referenced section. */
export function sectionIs(section: string, ref: string): boolean {
  const want = ref.toLowerCase();
  return section
    .split(' > ')
    .map((s) => s.replace(/^[#\s]+/, '').trim().toLowerCase())
    .some((h) => h === want || h.startsWith(`${want} `) || (!/^\d/.test(want) && h.includes(want)));
}

/**
 * Where a notice that is not in a cited passage stands (a section a step refers to, or a safety section beside the
 * cited steps): the section to open, the notice marked in it. Null for a cited passage's own notice.
 */
export function sourceTargetOf(notice: SafetyNotice): { target: SourceTarget; label: string } | null {
  const s = notice.source;
  if (!s) return null;
  return { target: { file: s.file, ...(s.pack ? { pack: s.pack } : {}), manual: s.manual, page: s.page, section: s.section, text: notice.text }, label: s.ref };
}

export function SafetyBox({ notice, citation, engine, onCite, onOpen }: { notice: SafetyNotice; citation?: Citation; engine: UiEngine; onCite: () => void; onOpen: OpenSource }) {
  const { label, tone } = signalOf(notice.kind);
  const from = sourceTargetOf(notice);
  // A pulled-in notice opens where it stands; the sections its own text names are looked up as before.
  const refs = citation ? sectionRefs(notice.text).filter((r) => r.ref.toLowerCase() !== from?.label.toLowerCase()) : [];
  const [missing, setMissing] = useState<string | null>(null);

  async function openRef(r: SectionRef) {
    if (!citation) return;
    setMissing(null);
    const res = await engine.search({
      query: `${r.ref} ${notice.text}`.slice(0, 500),
      filters: { pathPrefix: citation.file, packs: [citation.pack ?? 'local'] },
      k: 30,
    });
    const hits = res.ok ? res.value.hits.filter((h) => h.file === citation.file) : [];
    const hit = hits.find((h) => sectionIs(h.section, r.ref));
    if (!hit) {
      setMissing(`${citation.manual} has no section “${r.label}” that ManualDesk can find; open the manual at the cited page and look it up there.`);
      return;
    }
    onOpen({ file: hit.file, pack: hit.pack, manual: hit.manual, page: hit.page, section: hit.section, text: hit.text });
  }

  return (
    <div className={`safety safety-${tone}`} role="note" data-signal={tone}>
      <span className="safety-kind">{label}</span>
      <Structured className="safety-text" text={notice.text} />
      <span className="safety-actions">
        {citation && (
          <button type="button" className="cite" onClick={onCite} aria-label={`Open source ${notice.n}`}>
            [{notice.n}]
          </button>
        )}
        {from && (
          <button type="button" className="button small" onClick={() => onOpen(from.target)}>
            Open {from.label}
          </button>
        )}
        {refs.map((r) => (
          <button key={r.ref} type="button" className="button small" onClick={() => void openRef(r)}>
            Open {r.label}
          </button>
        ))}
      </span>
      {missing && <p className="status">{missing}</p>}
    </div>
  );
}
