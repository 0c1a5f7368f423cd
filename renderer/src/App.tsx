/**
 * The app shell: header, screen tabs, keyboard shortcuts (Ctrl/Cmd+K search, Esc back) and the source
 * viewer on top of whichever screen opened it. Screens stay mounted once visited, so going back keeps
 * their state (results, answers, progress).
 */
import { useCallback, useEffect, useLayoutEffect, useMemo, useRef, useState } from 'react';
import { flushSync } from 'react-dom';
import type { LibraryInfo, ManualInfo } from '../../native/contract/index.js';
import type { Connection } from './engine/types.js';
import { addHistory } from './local/history.js';
import { applySettings, readSettings, saveSettings, type Settings } from './local/settings.js';
import { SCREENS, type Screen, type SourceTarget } from './routes.js';
import { SearchPage } from './features/search/SearchPage.js';
import { AnswerPage } from './features/answer/AnswerPage.js';
import { SourceViewer } from './features/source/SourceViewer.js';
import { LibraryPage } from './features/library/LibraryPage.js';
import { PacksPage } from './features/packs/PacksPage.js';
import { SettingsPage } from './features/settings/SettingsPage.js';
import { HistoryPage } from './features/history/HistoryPage.js';
import { plural } from './ui/notices.js';

type LibraryState = { kind: 'loading' } | { kind: 'ready'; info: LibraryInfo } | { kind: 'error'; message: string };

export function App({ conn }: { conn: Connection }) {
  const { engine } = conn;
  const [screen, setScreen] = useState<Screen>('search');
  const [visited, setVisited] = useState<ReadonlySet<Screen>>(() => new Set(['search']));
  const [source, setSource] = useState<SourceTarget | null>(null);
  const [library, setLibrary] = useState<LibraryState>({ kind: 'loading' });
  const [manuals, setManuals] = useState<ManualInfo[]>([]);
  const [libraryVersion, setLibraryVersion] = useState(0);
  const [question, setQuestion] = useState<{ text: string; seq: number } | null>(null);
  const [searchRequest, setSearchRequest] = useState<{ text: string; seq: number } | null>(null);
  const [settings, setSettings] = useState<Settings>(readSettings);
  const [historyVersion, setHistoryVersion] = useState(0);
  const searchFocus = useRef<(() => void) | null>(null);
  /** What had focus when the source viewer opened: Esc / Back give it focus again. */
  const returnFocus = useRef<HTMLElement | null>(null);

  useEffect(() => applySettings(settings), [settings]);

  useEffect(() => {
    let live = true;
    void Promise.all([engine.info(), engine.listManuals()]).then(([info, list]) => {
      if (!live) return;
      setLibrary(info.ok ? { kind: 'ready', info: info.value } : { kind: 'error', message: info.error.message });
      setManuals(list.ok ? list.value : []);
      if (info.ok && !performance.getEntriesByName('md:usable').length) performance.mark('md:usable');
    });
    return () => {
      live = false;
    };
  }, [engine, libraryVersion]);

  const go = useCallback((next: Screen) => {
    setSource(null);
    setScreen(next);
    setVisited((v) => (v.has(next) ? v : new Set([...v, next])));
  }, []);

  const focusSearch = useCallback(() => {
    // Show the search screen now, then focus: keys typed right after Ctrl+K must land in the box.
    flushSync(() => go('search'));
    searchFocus.current?.();
  }, [go]);

  const record = useCallback((entry: Parameters<typeof addHistory>[0]) => {
    addHistory(entry);
    setHistoryVersion((v) => v + 1);
  }, []);

  const openSource = useCallback(
    (target: SourceTarget) => {
      // The manuals list is the site's own library; a pack's file is not in it (its name may even repeat there).
      const manual = target.pack ? undefined : manuals.find((m) => m.file === target.file);
      record({
        action: 'open',
        manual: target.manual,
        file: target.file,
        ...(target.pack ? { pack: target.pack } : {}),
        revision: manual?.revision ?? null,
        page: target.page,
        section: target.section,
      });
      const active = document.activeElement;
      if (!source && active instanceof HTMLElement && active !== document.body) returnFocus.current = active;
      setSource(target);
    },
    [manuals, record, source],
  );

  /** Closes the viewer and gives focus back to what opened it (the search box keeps its selection). */
  const closeSource = useCallback(() => {
    flushSync(() => setSource(null));
    const back = returnFocus.current;
    returnFocus.current = null;
    if (back && back.isConnected && back.offsetParent !== null) {
      back.focus();
      if (back.id === 'search-input') searchFocus.current?.();
    } else if (screen === 'search') searchFocus.current?.();
  }, [screen]);

  const ask = useCallback(
    (text: string) => {
      setQuestion((q) => ({ text, seq: (q?.seq ?? 0) + 1 }));
      go('answer');
    },
    [go],
  );

  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if ((e.ctrlKey || e.metaKey) && e.key.toLowerCase() === 'k') {
        e.preventDefault();
        focusSearch();
      } else if (e.key === 'Escape' && !e.defaultPrevented) {
        e.preventDefault();
        focusSearch();
      }
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [focusSearch]);

  // An open source takes Esc first (capture), before the hidden page's box can take it to clear its
  // query; set before the viewer is painted (layout effect), so an Esc pressed as soon as it shows closes it.
  useLayoutEffect(() => {
    if (!source) return;
    const onEsc = (e: KeyboardEvent) => {
      if (e.key !== 'Escape' || e.defaultPrevented) return;
      e.preventDefault();
      e.stopPropagation();
      closeSource();
    };
    window.addEventListener('keydown', onEsc, true);
    return () => window.removeEventListener('keydown', onEsc, true);
  }, [source, closeSource]);

  const searchFor = useCallback(
    (text: string) => {
      setSearchRequest((r) => ({ text, seq: (r?.seq ?? 0) + 1 }));
      focusSearch();
    },
    [focusSearch],
  );

  const libraryChanged = useCallback(() => setLibraryVersion((v) => v + 1), []);
  const changeSettings = useCallback((s: Settings) => {
    saveSettings(s);
    setSettings(s);
  }, []);

  const summary = useMemo(() => {
    if (library.kind === 'loading') return 'Opening the library…';
    if (library.kind === 'error') return null;
    const i = library.info;
    return `${plural(i.files, 'manual file')} · ${plural(i.chunks, 'passage')} · ${plural(i.codes, 'fault code')}`;
  }, [library]);

  const show = (s: Screen) => !source && screen === s;

  return (
    <div className="app">
      <header className="app-header">
        <h1 className="app-title">ManualDesk</h1>
        <nav className="tabs" aria-label="Screens">
          {SCREENS.map((s) => (
            <button
              key={s.id}
              type="button"
              className="tab"
              aria-current={!source && screen === s.id ? 'page' : undefined}
              onClick={() => (s.id === 'search' ? focusSearch() : go(s.id))}
            >
              {s.label}
            </button>
          ))}
        </nav>
        <p className="library-summary" aria-live="polite">
          {summary}
          {library.kind === 'ready' && library.info.sample && (
            <span className="sample-badge" title="The bundled Acme manuals are made up for trying ManualDesk: never follow them on a real machine.">
              Fictional sample library
            </span>
          )}
          {library.kind === 'ready' && library.info.modelMissing && (
            <button type="button" className="mode-badge is-warning" title={library.info.modelMissing.message} onClick={() => go('library')}>
              Keyword search only: search model missing
            </button>
          )}
          {library.kind === 'error' && <span className="library-error">{library.message}</span>}
          {conn.mode === 'browser' && <span className="mode-badge">Browser mode</span>}
        </p>
      </header>

      <main>
        {source && <SourceViewer engine={conn.engine} target={source} onBack={closeSource} />}
        <div hidden={!show('search')}>
          <SearchPage
            engine={engine}
            manuals={manuals}
            onOpen={openSource}
            onAsk={ask}
            onRecord={record}
            focusRef={searchFocus}
            active={show('search')}
            request={searchRequest}
            libraryVersion={libraryVersion}
          />
        </div>
        {visited.has('answer') && (
          <div hidden={!show('answer')}>
            <AnswerPage engine={engine} question={question} onOpen={openSource} onRecord={record} onSearch={searchFor} manuals={manuals} />
          </div>
        )}
        {visited.has('library') && (
          <div hidden={!show('library')}>
            <LibraryPage
              engine={engine}
              mode={conn.mode}
              manuals={manuals}
              library={library.kind === 'ready' ? library.info : null}
              onChanged={libraryChanged}
            />
          </div>
        )}
        {visited.has('packs') && (
          <div hidden={!show('packs')}>
            <PacksPage engine={engine} onChanged={libraryChanged} />
          </div>
        )}
        {visited.has('settings') && (
          <div hidden={!show('settings')}>
            <SettingsPage engine={engine} library={library.kind === 'ready' ? library.info : null} settings={settings} onChange={changeSettings} />
          </div>
        )}
        {visited.has('history') && (
          <div hidden={!show('history')}>
            <HistoryPage
              version={historyVersion}
              active={show('history')}
              onCleared={() => setHistoryVersion((v) => v + 1)}
              onSearch={searchFor}
              onAsk={ask}
              onOpen={openSource}
            />
          </div>
        )}
      </main>
    </div>
  );
}
