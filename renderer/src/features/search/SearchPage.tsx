/**
 * Search: one box, results as you type. A fault code shows its record at once (cause, remedy, page);
 * other text shows ranked passages with manual, section, page and the query's words marked. Enter
 * opens the top result in the source viewer; Ctrl+Enter asks the question instead.
 */
import { useCallback, useEffect, useLayoutEffect, useMemo, useRef, useState, type FormEvent, type KeyboardEvent, type MutableRefObject } from 'react';
import { codeDetail, spokenCode, type CodeLookupResponse, type CodeMatch, type HitKind, type ManualInfo, type PackInfo, type Result, type SearchFilters, type SearchHit, type SearchResponse } from '../../../../native/contract/index.js';
import type { UiEngine } from '../../engine/types.js';
import type { HistoryEntry } from '../../local/history.js';
import type { OpenSource, SourceTarget } from '../../routes.js';
import { Busy, ErrorNote, plural } from '../../ui/notices.js';
import { MAX_QUERY_CHARS } from '../../ui/limits.js';
import { folderNames } from '../../ui/folder.js';
import { Structured } from '../../ui/Structured.js';
import { isSampleManual } from '../../ui/sample.js';
import { Filters, NO_FILTERS, toSearchFilters, type FilterState } from './Filters.js';
import { Highlighted } from './highlight.js';
import { sectionBelowTitle } from '../../ui/section.js';

const KIND_LABEL: Record<HitKind, string> = { passage: 'Passage', 'table-row': 'Table row', code: 'Fault code' };
/** A query left alone this long is written to the history. */
const RECORD_AFTER_MS = 1500;
/**
 * Passage search waits for a short pause in typing; fault-code lookup runs on every keystroke, so the
 * code card never queues behind passage searches for letters already typed over.
 */
const SEARCH_PAUSE_MS = 60;

interface Outcome {
  query: string;
  codes: Result<CodeLookupResponse>;
  search: Result<SearchResponse>;
}

export interface SearchPageProps {
  engine: UiEngine;
  manuals: ManualInfo[];
  onOpen: OpenSource;
  onAsk: (question: string) => void;
  onRecord: (entry: Omit<HistoryEntry, 'at'>) => void;
  focusRef: MutableRefObject<(() => void) | null>;
  active: boolean;
  /** Text to search for, set from another screen ("search instead"). */
  request?: { text: string; seq: number } | null;
  /** Changes when manuals or packs were added or removed (the filter lists are read again). */
  libraryVersion?: number;
}

export function SearchPage({ engine, manuals, onOpen, onAsk, onRecord, focusRef, request, libraryVersion }: SearchPageProps) {
  const folders = useMemo(() => folderNames(manuals), [manuals]);
  const [query, setQuery] = useState('');
  const [filters, setFilters] = useState<FilterState>(NO_FILTERS);
  const [codes, setCodes] = useState<{ query: string; res: Result<CodeLookupResponse> } | null>(null);
  const [search, setSearch] = useState<{ query: string; res: Result<SearchResponse> } | null>(null);
  const [packs, setPacks] = useState<PackInfo[] | null>(null);
  const inputRef = useRef<HTMLInputElement>(null);
  const ticket = useRef(0);
  const pending = useRef<Promise<Outcome | null> | null>(null);
  /** The last keystroke, until its code card and its passages are on screen (each measured once). */
  const keyAt = useRef<{ query: string; t: number; code?: boolean; passages?: boolean } | null>(null);
  const searchTimer = useRef<ReturnType<typeof setTimeout> | null>(null);
  /** The result ↑/↓ selected (index into resultTargets), -1 for none. */
  const [selected, setSelected] = useState(-1);
  const [clipped, setClipped] = useState(false);

  focusRef.current = () => {
    inputRef.current?.focus();
    inputRef.current?.select();
  };

  useEffect(() => {
    void engine.listPacks().then((r) => setPacks(r.ok ? r.value : []));
  }, [engine, libraryVersion]);

  const searchFilters: SearchFilters | undefined = useMemo(() => toSearchFilters(filters), [filters]);

  const run = useCallback(
    (text: string): Promise<Outcome | null> => {
      const q = text.trim();
      const mine = ++ticket.current;
      if (searchTimer.current) clearTimeout(searchTimer.current);
      if (!q) {
        setCodes(null);
        setSearch(null);
        return Promise.resolve(null);
      }
      // Codes and passages arrive separately: the code card must not wait for the passage search.
      const codesP = engine.lookupCode({ text: q, filters: searchFilters }).then((res) => {
        if (mine === ticket.current) setCodes({ query: q, res });
        return res;
      });
      const searchP = new Promise<void>((resolve) => {
        searchTimer.current = setTimeout(resolve, SEARCH_PAUSE_MS);
      })
        .then(() => engine.search({ query: q, filters: searchFilters }))
        .then((res) => {
          if (mine === ticket.current) setSearch({ query: q, res });
          return res;
        });
      return Promise.all([codesP, searchP]).then(([c, s]) => (mine === ticket.current ? { query: q, codes: c, search: s } : null));
    },
    [engine, searchFilters],
  );

  useEffect(() => {
    pending.current = run(query);
    setSelected(-1);
  }, [query, run]);

  useEffect(() => {
    if (!request) return;
    setQuery(request.text);
    inputRef.current?.focus();
  }, [request]);

  // Keystroke → code card on screen and keystroke → passages on screen, measured for the e2e run
  // (performance entries "md:key-to-code", "md:key-to-passages").
  useLayoutEffect(() => {
    const k = keyAt.current;
    if (!k || k.code || !codes || codes.query !== k.query.trim() || !codes.res.ok || codes.res.value.matches.length === 0) return;
    performance.measure('md:key-to-code', { start: k.t, end: performance.now() });
    k.code = true;
  }, [codes]);
  useLayoutEffect(() => {
    const k = keyAt.current;
    if (!k || k.passages || !search || search.query !== k.query.trim() || !search.res.ok) return;
    performance.measure('md:key-to-passages', { start: k.t, end: performance.now() });
    k.passages = true;
  }, [search]);

  // A query left alone is recorded once: Enter records it at once and cancels the timer, so the
  // history never lists the same search again after the page it opened.
  const recordTimer = useRef<ReturnType<typeof setTimeout> | null>(null);
  useEffect(() => {
    const q = query.trim();
    if (!q) return;
    const timer = setTimeout(() => onRecord({ action: 'search', query: q }), RECORD_AFTER_MS);
    recordTimer.current = timer;
    return () => clearTimeout(timer);
  }, [query, onRecord]);

  async function openTop() {
    const outcome = await pending.current;
    if (!outcome) return;
    const picked = selected >= 0 ? resultTargets(outcome.codes, outcome.search)[selected] : undefined;
    const top = picked ? { ...picked, query: outcome.query } : topTarget(outcome);
    if (!top) return;
    if (recordTimer.current) clearTimeout(recordTimer.current);
    onRecord({ action: 'search', query: outcome.query });
    onOpen(top);
  }

  function onSubmit(e: FormEvent) {
    e.preventDefault();
    void openTop();
  }

  function onInputKey(e: KeyboardEvent<HTMLInputElement>) {
    if (e.key === 'Enter' && (e.ctrlKey || e.metaKey || e.altKey)) {
      e.preventDefault();
      if (query.trim()) onAsk(query.trim());
    } else if ((e.key === 'ArrowDown' || e.key === 'ArrowUp') && !e.altKey && !e.ctrlKey && !e.metaKey) {
      const count = resultTargets(codesNow, searchNow).length;
      if (count === 0) return;
      e.preventDefault();
      setSelected((i) => (e.key === 'ArrowDown' ? Math.min(count - 1, i + 1) : Math.max(-1, i - 1)));
    } else if (e.key === 'Escape' && query) {
      // Esc clears the box first; the next Esc is the app's "back".
      e.preventDefault();
      setQuery('');
    }
  }

  const current = query.trim();
  const codesNow = codes && codes.query === current ? codes.res : null;
  const searchNow = search && search.query === current ? search.res : null;

  return (
    <section className="search-page" aria-label="Search">
      <form role="search" className="search-form" onSubmit={onSubmit}>
        <label htmlFor="search-input" className="visually-hidden">
          Search the manuals
        </label>
        <input
          id="search-input"
          ref={inputRef}
          className="search-input"
          type="search"
          autoFocus
          autoComplete="off"
          spellCheck={false}
          placeholder="Fault code or a few words, e.g. E-101 or spindle lubrication"
          value={query}
          maxLength={MAX_QUERY_CHARS}
          aria-describedby={clipped ? 'search-limit' : undefined}
          aria-controls="search-results"
          aria-activedescendant={selected >= 0 ? `result-${selected}` : undefined}
          onChange={(e) => {
            const value = e.target.value.slice(0, MAX_QUERY_CHARS);
            setClipped(e.target.value.length >= MAX_QUERY_CHARS);
            keyAt.current = { query: value, t: performance.now() };
            setQuery(value);
          }}
          onPaste={(e) => {
            const pasted = e.clipboardData.getData('text');
            if (query.length + pasted.length > MAX_QUERY_CHARS) setClipped(true);
          }}
          onKeyDown={onInputKey}
        />
        <button type="submit" className="button primary" disabled={!current}>
          Open top result
        </button>
        <button type="button" className="button" disabled={!current} onClick={() => onAsk(current)}>
          Ask
        </button>
      </form>
      {clipped && (
        <p id="search-limit" className="notice" role="status">
          A search can be at most {MAX_QUERY_CHARS.toLocaleString('en')} characters; the rest was left out. Type the fault code or a few words from the problem.
        </p>
      )}
      <p className="shortcuts">Results appear as you type · ↑/↓ pick a result · Enter opens it · Ctrl+Enter asks · Esc clears · Ctrl+K (⌘K) comes back here</p>

      <Filters manuals={manuals} packs={packs} value={filters} onChange={setFilters} />

      <div aria-live="polite" className="results">
        {!current && <p className="status">Type a fault code or describe the problem.</p>}
        {current && !codesNow && !searchNow && <Busy message={`Searching the manuals for “${current}”…`} />}
        {current && (codesNow || searchNow) && (
          <Results
            query={current}
            codes={codesNow}
            search={searchNow}
            selected={selected}
            samples={new Set(manuals.filter(isSampleManual).map((m) => m.file))}
            folders={folders}
            onOpen={(t) => onOpen({ ...t, query: current })} />
        )}
      </div>
    </section>
  );
}

/** What ↑/↓ walk through, in screen order: the fault-code cards, then the passages they do not repeat. */
export function resultTargets(codes: Result<CodeLookupResponse> | null, search: Result<SearchResponse> | null): SourceTarget[] {
  const matches = codes?.ok ? codes.value.matches : [];
  return [...matches.map((m) => codeTarget(m)), ...shownHits(matches, search).map((h) => hitTarget(h))];
}

/** Code hits repeat what the fault-code cards already show. */
function shownHits(matches: CodeMatch[], search: Result<SearchResponse> | null): SearchHit[] {
  return search?.ok ? search.value.hits.filter((h) => !(matches.length > 0 && h.kind === 'code')) : [];
}

/** What Enter opens: the first fault-code definition, else the best passage. */
export function topTarget(o: Outcome): SourceTarget | null {
  const code = o.codes.ok ? o.codes.value.matches[0] : undefined;
  if (code) return codeTarget(code, o.query);
  const hit = o.search.ok ? o.search.value.hits[0] : undefined;
  return hit ? hitTarget(hit, o.query) : null;
}

function codeTarget(m: CodeMatch, query?: string): SourceTarget {
  return { file: m.file, pack: m.pack, manual: m.manual, page: m.page, section: m.section, text: m.text, query };
}

function hitTarget(h: SearchHit, query?: string): SourceTarget {
  return { file: h.file, pack: h.pack, manual: h.manual, page: h.page, section: h.section, text: h.text, query };
}

function Results({
  query,
  codes,
  search,
  selected,
  samples,
  folders,
  onOpen,
}: {
  samples: ReadonlySet<string>;
  folders: ReadonlyMap<string, string>;
  query: string;
  codes: Result<CodeLookupResponse> | null;
  search: Result<SearchResponse> | null;
  selected: number;
  onOpen: OpenSource;
}) {
  const matches = codes?.ok ? codes.value.matches : [];
  const hits = shownHits(matches, search);
  const detected = codes?.ok ? codes.value.detected : [];
  const undefinedCodes = detected.length > 0 && matches.length === 0 ? detected : [];
  const errors = searchErrors(codes, search);
  const box = useRef<HTMLDivElement>(null);

  // The selected result stays in view as ↑/↓ move it.
  useEffect(() => {
    if (selected < 0) return;
    box.current?.querySelector(`#result-${selected}`)?.scrollIntoView({ block: 'nearest' });
  }, [selected]);

  return (
    <div ref={box} id="search-results" role="listbox" aria-label="Results">
      {errors.map((message) => (
        <ErrorNote key={message} message={message} />
      ))}

      {matches.length > 0 && (
        <section aria-label="Fault codes" className="codes">
          {matches.map((m, i) => (
            <CodeCard key={`${m.file}:${m.code}:${i}`} id={`result-${i}`} selected={selected === i} match={m} onOpen={() => onOpen(codeTarget(m))} />
          ))}
        </section>
      )}

      {undefinedCodes.length > 0 && codes?.ok && (
        <p className="notice">
          {undefinedCodes.join(', ')} {undefinedCodes.length === 1 ? 'is' : 'are'} not defined in these manuals. Check the code on the display
          {codes.value.nearest.length > 0
            ? `; nearest: ${codes.value.nearest.map((n) => `${n.code} (${n.title}, ${n.manual})`).join('; ')}.`
            : ', or add the manual that lists it in the Library screen.'}
        </p>
      )}

      {search?.ok && (
        <p className="status">
          {hits.length === 0
            ? matches.length > 0
              ? 'No further passages.'
              : `No passages match “${query}”. Try fewer or different words, or clear the filters.`
            : `${plural(hits.length, 'passage')} in ${search.value.ms} ms`}
        </p>
      )}
      {!search && <Busy message="Searching the passages…" />}

      <ol className="hits">
        {hits.map((hit, i) => (
          <li key={hit.chunkId} id={`result-${matches.length + i}`} role="option" aria-selected={selected === matches.length + i}>
            <button type="button" className={`hit${selected === matches.length + i ? ' is-selected' : ''}`} onClick={() => onOpen(hitTarget(hit))}>
              <span className="hit-head">
                <span className={`badge badge-${hit.kind}`}>{KIND_LABEL[hit.kind]}</span>
                <span className="hit-manual">{hit.manual}</span>
                {!hit.pack && folders.has(hit.file) && <span className="hit-folder">{folders.get(hit.file)}</span>}
                {!hit.pack && samples.has(hit.file) && <span className="sample-badge">fictional sample</span>}
                {sectionBelowTitle(hit.manual, hit.section) && <span className="hit-section">{sectionBelowTitle(hit.manual, hit.section)}</span>}
                {hit.page !== null && <span className="hit-page">p. {hit.page}</span>}
              </span>
              <span className="hit-text" lang={hit.lang}>
                <Structured text={hit.text} tableRow={hit.kind === 'table-row'} inline={(s) => <Highlighted text={s} query={query} />} />
              </span>
              <span className="hit-file">{hit.file}</span>
            </button>
          </li>
        ))}
      </ol>
    </div>
  );
}

/**
 * One sentence per cause: the code lookup and the passage search usually fail for the same reason
 * (the same text), so the same error code is said once, in the search's words.
 */
export function searchErrors(codes: Result<CodeLookupResponse> | null, search: Result<SearchResponse> | null): string[] {
  const seen = new Map<string, string>();
  for (const r of [search, codes]) if (r && !r.ok && !seen.has(r.error.code)) seen.set(r.error.code, r.error.message);
  return [...new Set(seen.values())];
}

function CodeCard({ match, onOpen, id, selected }: { match: CodeMatch; onOpen: () => void; id: string; selected: boolean }) {
  return (
    <article className={`code-card${selected ? ' is-selected' : ''}`} lang={match.lang} id={id} role="option" aria-selected={selected}>
      <header className="code-card-head">
        {/* A bare number says which family it is in ("Alarm 14": the same manual may define error 14). */}
        <span className="code">{spokenCode(match) ?? match.code}</span>
        <span className="code-title">{match.title}</span>
        {match.severity && <span className="badge badge-severity">{match.severity}</span>}
      </header>
      {/* A typed value read as the flags it is made of: "0x41 = INVALID_STATE (bit 0) + DRUM_OVERHEAT (bit 6)". */}
      {match.decoded && <p className="code-decoded">{match.decoded}</p>}
      {codeDetail(match) && <p>{codeDetail(match)}</p>}
      {match.cause && (
        <p>
          <strong>Cause:</strong> {match.cause}
        </p>
      )}
      {match.remedy && (
        <p>
          <strong>Remedy:</strong> {match.remedy}
        </p>
      )}
      <p className="source">
        <button type="button" className="link" onClick={onOpen}>
          {match.manual}
          {match.page !== null ? `, p. ${match.page}` : sectionBelowTitle(match.manual, match.section) ? ` — ${sectionBelowTitle(match.manual, match.section)}` : ''}
        </button>
      </p>
    </article>
  );
}
