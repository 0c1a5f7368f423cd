import { useCallback, useEffect, useRef, useState, type FormEvent, type KeyboardEvent } from 'react';
import type {
  CodeLookupResponse,
  CodeMatch,
  EngineApi,
  HitKind,
  SearchHit,
  SearchResponse,
} from '../../../../native/contract/index.js';
import { Highlighted } from './highlight.js';

type State =
  | { kind: 'idle' }
  | { kind: 'searching'; query: string }
  | {
      kind: 'done';
      query: string;
      search: SearchResponse | null;
      codes: CodeLookupResponse | null;
      errors: string[];
    };

const KIND_LABEL: Record<HitKind, string> = { passage: 'Passage', 'table-row': 'Table row', code: 'Fault code' };

export function SearchPage({ engine }: { engine: EngineApi }) {
  const [query, setQuery] = useState('');
  const [state, setState] = useState<State>({ kind: 'idle' });
  const inputRef = useRef<HTMLInputElement>(null);
  const latest = useRef(0);

  const clear = useCallback(() => {
    latest.current++;
    setQuery('');
    setState({ kind: 'idle' });
    inputRef.current?.focus();
  }, []);

  // Ctrl/Cmd+K focuses the search box from anywhere; Esc clears it.
  useEffect(() => {
    const onKey = (e: globalThis.KeyboardEvent) => {
      if ((e.ctrlKey || e.metaKey) && e.key.toLowerCase() === 'k') {
        e.preventDefault();
        inputRef.current?.focus();
        inputRef.current?.select();
      } else if (e.key === 'Escape' && document.activeElement !== inputRef.current) {
        clear();
      }
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [clear]);

  async function run(text: string) {
    const q = text.trim();
    if (!q) return;
    const ticket = ++latest.current;
    setState({ kind: 'searching', query: q });
    const [search, codes] = await Promise.all([engine.search({ query: q }), engine.lookupCode({ text: q })]);
    if (ticket !== latest.current) return; // a newer search or a clear superseded this one
    const errors = [search, codes].flatMap((r) => (r.ok ? [] : [r.error.message]));
    setState({
      kind: 'done',
      query: q,
      search: search.ok ? search.value : null,
      codes: codes.ok ? codes.value : null,
      errors: [...new Set(errors)],
    });
  }

  function onSubmit(e: FormEvent) {
    e.preventDefault();
    void run(query);
  }

  function onInputKey(e: KeyboardEvent<HTMLInputElement>) {
    if (e.key === 'Escape') {
      e.preventDefault();
      clear();
    }
  }

  return (
    <section className="search-page">
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
          onChange={(e) => setQuery(e.target.value)}
          onKeyDown={onInputKey}
        />
        <button type="submit" className="search-button" disabled={!query.trim()}>
          Search
        </button>
      </form>
      <p className="shortcuts">Enter searches · Esc clears · Ctrl+K (⌘K) jumps back here</p>

      <div aria-live="polite">
        {state.kind === 'idle' && (
          <p className="status">Type a fault code or describe the problem, then press Enter.</p>
        )}
        {state.kind === 'searching' && <p className="status">Searching the manuals for “{state.query}”…</p>}
        {state.kind === 'done' && <Results state={state} />}
      </div>
    </section>
  );
}

function Results({ state }: { state: Extract<State, { kind: 'done' }> }) {
  const matches = state.codes?.matches ?? [];
  // Code hits repeat what the fault-code cards already show.
  const hits = (state.search?.hits ?? []).filter((h) => !(matches.length > 0 && h.kind === 'code'));
  const undefinedCodes =
    state.codes && state.codes.detected.length > 0 && matches.length === 0 ? state.codes.detected : [];

  return (
    <>
      {state.errors.map((message) => (
        <p key={message} className="error" role="alert">
          {message}
        </p>
      ))}

      {matches.length > 0 && (
        <section aria-label="Fault codes" className="codes">
          {matches.map((m, i) => (
            <CodeCard key={`${m.file}:${m.code}:${i}`} match={m} />
          ))}
        </section>
      )}

      {undefinedCodes.length > 0 && state.codes && (
        <p className="notice">
          {undefinedCodes.join(', ')} {undefinedCodes.length === 1 ? 'is' : 'are'} not defined in these manuals.
          {state.codes.nearest.length > 0 &&
            ` Nearest: ${state.codes.nearest.map((n) => `${n.code} (${n.title}, ${n.manual})`).join('; ')}.`}
        </p>
      )}

      {state.search && (
        <p className="status">
          {hits.length === 0
            ? `No passages match “${state.query}”. Try fewer or different words.`
            : `${hits.length} ${hits.length === 1 ? 'passage' : 'passages'} in ${state.search.ms} ms`}
        </p>
      )}

      <ol className="hits">
        {hits.map((hit) => (
          <HitItem key={hit.chunkId} hit={hit} query={state.query} />
        ))}
      </ol>
    </>
  );
}

function CodeCard({ match }: { match: CodeMatch }) {
  return (
    <article className="code-card">
      <header className="code-card-head">
        <span className="code">{match.code}</span>
        <span className="code-title">{match.title}</span>
        {match.severity && <span className="badge badge-severity">{match.severity}</span>}
      </header>
      {match.description && match.description !== match.title && <p>{match.description}</p>}
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
        {match.manual}
        {match.page !== null ? `, p. ${match.page}` : match.section ? ` — ${match.section}` : ''}
      </p>
    </article>
  );
}

function HitItem({ hit, query }: { hit: SearchHit; query: string }) {
  return (
    <li className="hit">
      <div className="hit-head">
        <span className={`badge badge-${hit.kind}`}>{KIND_LABEL[hit.kind]}</span>
        <span className="hit-manual">{hit.manual}</span>
        {hit.section && <span className="hit-section">{hit.section}</span>}
        {hit.page !== null && <span className="hit-page">p. {hit.page}</span>}
      </div>
      <p className="hit-text" lang={hit.lang}>
        <Highlighted text={hit.text} query={query} />
      </p>
      <p className="hit-file">{hit.file}</p>
    </li>
  );
}
