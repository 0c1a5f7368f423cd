import { useEffect, useState } from 'react';
import type { EngineApi, LibraryInfo } from '../../native/contract/index.js';
import { SearchPage } from './features/search/SearchPage.js';

type LibraryState = { kind: 'loading' } | { kind: 'ready'; info: LibraryInfo } | { kind: 'error'; message: string };

export function App({ engine }: { engine: EngineApi }) {
  const [library, setLibrary] = useState<LibraryState>({ kind: 'loading' });

  useEffect(() => {
    let live = true;
    void engine.info().then((res) => {
      if (!live) return;
      setLibrary(res.ok ? { kind: 'ready', info: res.value } : { kind: 'error', message: res.error.message });
    });
    return () => {
      live = false;
    };
  }, [engine]);

  return (
    <div className="app">
      <header className="app-header">
        <h1 className="app-title">ManualDesk</h1>
        <p className="library-summary" aria-live="polite">
          {library.kind === 'loading' && 'Opening the library…'}
          {library.kind === 'ready' &&
            `${library.info.files} ${plural(library.info.files, 'file')} · ${library.info.chunks} ${plural(library.info.chunks, 'passage')} · ${library.info.codes} fault ${plural(library.info.codes, 'code')}`}
          {library.kind === 'error' && <span className="library-error">{library.message}</span>}
        </p>
      </header>
      <main>
        <SearchPage engine={engine} />
      </main>
    </div>
  );
}

function plural(n: number, word: string): string {
  return n === 1 ? word : `${word}s`;
}
