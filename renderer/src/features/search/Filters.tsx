/**
 * Search filters: machine, manual, language and pack, from the library's own lists. On a narrow or
 * short window (or with large text) they fold into one "Filters" line, so the code card and the first
 * results stay above the fold.
 */
import { useEffect, useState } from 'react';
import type { Lang, ManualInfo, PackInfo, SearchFilters } from '../../../../native/contract/index.js';

export interface FilterState {
  equipment: string;
  manual: string;
  lang: '' | Lang;
  pack: string;
}

export const NO_FILTERS: FilterState = { equipment: '', manual: '', lang: '', pack: '' };

export function toSearchFilters(f: FilterState): SearchFilters | undefined {
  const out: SearchFilters = {};
  if (f.equipment) out.equipment = [f.equipment];
  if (f.manual) out.manuals = [f.manual];
  if (f.lang) out.lang = [f.lang];
  if (f.pack) out.packs = [f.pack];
  return Object.keys(out).length > 0 ? out : undefined;
}

/**
 * Windows where the filters start folded: under 60 × 36 lines of the page's own text size (a media
 * query's rem is the browser default, not the Larger text setting, so this is measured here).
 */
export function isNarrow(width: number, height: number, rootPx: number): boolean {
  const px = rootPx > 0 ? rootPx : 16;
  return width / px < 60 || height / px < 36;
}

function useNarrow(): boolean {
  const measure = () =>
    typeof window === 'undefined' ? false : isNarrow(window.innerWidth, window.innerHeight, parseFloat(getComputedStyle(document.documentElement).fontSize));
  const [narrow, setNarrow] = useState(measure);
  useEffect(() => {
    const on = () => setNarrow(measure());
    on();
    window.addEventListener('resize', on);
    // Text size changes the root font size without a resize.
    const obs = new MutationObserver(on);
    obs.observe(document.documentElement, { attributes: true, attributeFilter: ['data-text-size'] });
    return () => {
      window.removeEventListener('resize', on);
      obs.disconnect();
    };
  }, []);
  return narrow;
}

/** "Filters" or "Filters (2 on)" for the folded line. */
export function filtersSummary(f: FilterState): string {
  const on = [f.equipment, f.manual, f.lang, f.pack].filter(Boolean).length;
  return on > 0 ? `Filters (${on} on)` : 'Filters';
}

export function Filters(props: Parameters<typeof FilterFields>[0]) {
  const narrow = useNarrow();
  const [open, setOpen] = useState(!narrow);
  useEffect(() => setOpen(!narrow), [narrow]);
  return (
    <details className="filters-box" open={open} onToggle={(e) => setOpen((e.currentTarget as HTMLDetailsElement).open)}>
      <summary>{filtersSummary(props.value)}</summary>
      <FilterFields {...props} />
    </details>
  );
}

function FilterFields({
  manuals,
  packs,
  value,
  onChange,
}: {
  manuals: ManualInfo[];
  packs: PackInfo[] | null;
  value: FilterState;
  onChange: (f: FilterState) => void;
}) {
  const titles = [...new Set(manuals.filter((m) => m.current).map((m) => m.title))].sort();
  const equipment = [...new Set(manuals.flatMap((m) => m.equipment))].sort();
  const langs = [...new Set(manuals.map((m) => m.language).filter((l): l is Lang => l !== null))].sort();
  const set = (patch: Partial<FilterState>) => onChange({ ...value, ...patch });
  const active = value.equipment || value.manual || value.lang || value.pack;

  return (
    <fieldset className="filters">
      <legend className="visually-hidden">Filters</legend>
      <label>
        Machine
        <select value={value.equipment} onChange={(e) => set({ equipment: e.target.value })}>
          <option value="">All machines</option>
          {equipment.map((e) => (
            <option key={e} value={e}>
              {e}
            </option>
          ))}
        </select>
      </label>
      <label>
        Manual
        <select value={value.manual} onChange={(e) => set({ manual: e.target.value })}>
          <option value="">All manuals</option>
          {titles.map((t) => (
            <option key={t} value={t}>
              {t}
            </option>
          ))}
        </select>
      </label>
      <label>
        Language
        <select value={value.lang} onChange={(e) => set({ lang: e.target.value as FilterState['lang'] })}>
          <option value="">All languages</option>
          {langs.map((l) => (
            <option key={l} value={l}>
              {l === 'zh' ? '中文' : l === 'en' ? 'English' : l}
            </option>
          ))}
        </select>
      </label>
      <label>
        Pack
        <select value={value.pack} disabled={!packs || packs.length === 0} onChange={(e) => set({ pack: e.target.value })}>
          <option value="">{packs && packs.length === 0 ? 'No packs installed' : 'All packs'}</option>
          <option value="local">This library only</option>
          {(packs ?? []).map((p) => (
            <option key={p.id} value={p.id}>
              {p.name} {p.active}
            </option>
          ))}
        </select>
      </label>
      {active && (
        <button type="button" className="button small" onClick={() => onChange(NO_FILTERS)}>
          Clear filters
        </button>
      )}
    </fieldset>
  );
}
