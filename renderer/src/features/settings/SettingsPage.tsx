/** Settings: installed models and their status, theme and text size; how to limit the engine's threads. */
import { useEffect, useState } from 'react';
import { answerCheckLine, embedderModelLine, type LibraryInfo, type ModelRole, type ModelStatus, type Result } from '../../../../native/contract/index.js';
import type { UiEngine } from '../../engine/types.js';
import type { Settings, TextSize, Theme } from '../../local/settings.js';
import { Busy, ErrorNote } from '../../ui/notices.js';

const ROLE: Record<ModelRole, string> = { embed: 'Search model (embedder)', llm: 'Answer model (LLM)', rerank: 'Reranker' };
const THEMES: { id: Theme; label: string }[] = [
  { id: 'light', label: 'Light' },
  { id: 'dark', label: 'Dark' },
  { id: 'contrast', label: 'High contrast' },
];
const SIZES: { id: TextSize; label: string }[] = [
  { id: 'normal', label: 'Normal' },
  { id: 'large', label: 'Large' },
  { id: 'larger', label: 'Larger' },
];

export function SettingsPage({
  engine,
  library,
  settings,
  onChange,
}: {
  engine: UiEngine;
  library: LibraryInfo | null;
  settings: Settings;
  onChange: (s: Settings) => void;
}) {
  const [models, setModels] = useState<Result<ModelStatus[]> | null>(null);
  useEffect(() => {
    void engine.listModels().then(setModels);
  }, [engine]);
  const cores = navigator.hardwareConcurrency || 2;

  return (
    <section className="settings-page" aria-label="Settings">
      <h2>Display</h2>
      <fieldset className="choice">
        <legend>Theme</legend>
        {THEMES.map((t) => (
          <label key={t.id} className="check">
            <input type="radio" name="theme" value={t.id} checked={settings.theme === t.id} onChange={() => onChange({ ...settings, theme: t.id })} /> {t.label}
          </label>
        ))}
      </fieldset>
      <fieldset className="choice">
        <legend>Text size</legend>
        {SIZES.map((t) => (
          <label key={t.id} className="check">
            <input type="radio" name="text-size" value={t.id} checked={settings.textSize === t.id} onChange={() => onChange({ ...settings, textSize: t.id })} />{' '}
            {t.label}
          </label>
        ))}
      </fieldset>

      <h2>Performance</h2>
      <p>{threadsAdvice(cores)}</p>

      <h2>Models</h2>
      <p>
        This library searches with{' '}
        <strong>{library ? searchModelText(library) : '…'}</strong>.
      </p>
      {library?.embedderModel && <p className="manual-meta">Search model: {embedderModelLine(library.embedderModel)}</p>}
      {!models && <Busy message="Checking the installed models…" />}
      {models && !models.ok && <ErrorNote message={models.error.message} />}
      {models?.ok && models.value.length === 0 && <p className="status">No models are installed. Keyword search and fault codes work without them; install a model pack to add more.</p>}
      {models?.ok && models.value.length > 0 && (
        <table className="models">
          <thead>
            <tr>
              <th scope="col">Model</th>
              <th scope="col">Role</th>
              <th scope="col">Status</th>
              <th scope="col">Size</th>
              <th scope="col">Licence</th>
            </tr>
          </thead>
          <tbody>
            {models.value.map((m) => (
              <tr key={`${m.role}:${m.id}`}>
                <td>
                  <strong>{m.id}</strong>
                  {m.path && <span className="manual-meta">{m.path}</span>}
                </td>
                <td>{ROLE[m.role]}</td>
                <td>
                  {!m.installed ? (
                    <span className="status-old">Not installed — import its model pack</span>
                  ) : m.verified === false ? (
                    <span className="status-failed">Checksum mismatch — reinstall it from its model pack</span>
                  ) : (
                    <span className="status-ok">
                      Installed{m.verified ? ', verified' : ''}
                      {m.inUse ? ', in use' : ''}
                    </span>
                  )}
                  {m.role === 'llm' && m.installed && <span className="manual-meta">Answer check: {answerCheckLine(m.answerCheck ?? null)}</span>}
                </td>
                <td className="num">{m.sizeBytes !== null ? `${(m.sizeBytes / 1048576).toFixed(0)} MB` : '—'}</td>
                <td>{m.license}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}

/** What the library searches with, as the Models section says it. */
/**
 * What Settings says about the engine's threads. Leaving cores free only helps where there are cores to
 * spare: on two or fewer, fewer threads only make indexing and answers slower.
 */
export function threadsAdvice(cores: number): string {
  const what = `By default the engine uses one thread per CPU core (${cores} on this computer) for indexing and answers.`;
  if (cores <= 2) return `${what} Keep that default here: with fewer threads, indexing and answers take longer.`;
  return `${what} On a PC shared with other programs, start ManualDesk with MANUALDESK_THREADS=${cores - 1} (any number from 1 to ${cores}) to leave them a core.`;
}

export function searchModelText(library: Pick<LibraryInfo, 'embedder' | 'modelMissing'>): string {
  if (library.modelMissing) return `keywords and fault codes only: its search model ${library.modelMissing.id} is not installed on this computer (see the Library screen)`;
  return library.embedder ? `${library.embedder.id} (${library.embedder.dims} dimensions)` : 'keywords and fault codes only (no search model)';
}
