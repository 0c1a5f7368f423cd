/**
 * Library: add files or folders (progress bar, cancel), each manual's status (indexed, pages that need
 * OCR, failed with the reason), remove, re-index; which library folder is open, and opening or
 * creating another one. The first real manuals added to the fictional sample library go, by default,
 * into a new library of the technician's own (engine.openLibrary create, then ingest there). In browser
 * mode files and folders are named by path on this computer (the server reads them itself).
 */
import { useEffect, useRef, useState, type FormEvent } from 'react';
import { modelNameOf, type IngestProgress, type IngestReport, type LibraryInfo, type ManualInfo, type OpenedLibrary, type SkippedFile } from '../../../../native/contract/index.js';
import type { UiEngine } from '../../engine/types.js';
import { proposedLibraryDir, recentLibraries, rememberLibrary } from '../../local/libraries.js';
import { load, save } from '../../local/storage.js';
import { ErrorNote, ProgressBar, plural } from '../../ui/notices.js';
import { hasOwnManuals, isSampleManual } from '../../ui/sample.js';

const FAILED_KEY = 'manualdesk.failed.v1';
const isSkipped = (v: unknown): v is SkippedFile[] => Array.isArray(v);

type Job =
  | { kind: 'idle' }
  | { kind: 'running'; label: string; progress: IngestProgress | null }
  | { kind: 'done'; label: string; report: IngestReport }
  | { kind: 'error'; label: string; message: string };

/**
 * Passages the last add left without vectors, for the "Finish now" notice; 0 while an add runs, and
 * until the library info read after it ended arrives (the info read while it ran still counts them all).
 */
export function unfinishedVectors(library: LibraryInfo | null | undefined, busyOrStale: boolean): number {
  if (busyOrStale || !library || library.modelMissing) return 0;
  return library.vectorsPending;
}

/** What the last library switch did, said in one line. */
export function openedNote(o: OpenedLibrary): string {
  return o.created ? `Created your new library in ${o.info.dir}.` : `Opened the library in ${o.info.dir} (${plural(o.info.files, 'manual file')}).`;
}

const PHASE: Record<IngestProgress['phase'], [withFile: string, without: string]> = {
  scan: ['Looking for manuals in', 'Looking for manuals'],
  parse: ['Reading', 'Reading the files'],
  embed: ['Indexing the meaning of', 'Indexing the meaning of the passages'],
  store: ['Saving', 'Saving the library'],
  done: ['Finished', 'Finished'],
};

export function progressLabel(p: IngestProgress | null): string {
  if (!p) return 'Starting…';
  const [withFile, without] = PHASE[p.phase];
  if (p.unit === 'passages') {
    // Every file is in the library already; the vectors follow.
    const count = p.total > 0 ? ` (${Math.min(p.done, p.total).toLocaleString('en')} of ${p.total.toLocaleString('en')} passages done)` : '';
    return `${p.file ? `${withFile} ${p.file}` : without}${count}… Search by keyword and fault code works meanwhile.`;
  }
  const count = p.total > 0 && p.phase !== 'scan' ? ` (${Math.min(p.done + (p.phase === 'done' ? 0 : 1), p.total)} of ${p.total})` : '';
  return `${p.file ? `${withFile} ${p.file}` : without}${count}${p.phase === 'done' ? '.' : '…'}`;
}

/**
 * What re-indexing a manual reads: the file itself. The library finds a file's record by where it is
 * read from, so its name stays the same (and the other files of its folder are not read again).
 */
export function reindexPathFor(m: Pick<ManualInfo, 'source'>): string | null {
  return m.source || null;
}

export function LibraryPage({
  engine,
  mode,
  manuals,
  library = null,
  onChanged,
}: {
  engine: UiEngine;
  mode: 'desktop' | 'browser';
  manuals: ManualInfo[];
  /** The open library (null while it opens or when it failed to). */
  library?: LibraryInfo | null;
  onChanged: () => void;
}) {
  const sampleLibrary = library?.sample === true;
  const [paths, setPaths] = useState('');
  const [force, setForce] = useState(false);
  const [job, setJob] = useState<Job>({ kind: 'idle' });
  /** The library info shown was read before the last add ended (its new info is on its way). */
  const [infoBeforeJobEnd, setInfoBeforeJobEnd] = useState(false);
  useEffect(() => setInfoBeforeJobEnd(false), [library]);
  const [failed, setFailed] = useState<SkippedFile[]>(() => load(FAILED_KEY, [], isSkipped));
  const [confirmRemove, setConfirmRemove] = useState<string | null>(null);
  const [removeError, setRemoveError] = useState<string | null>(null);
  const controller = useRef<AbortController | null>(null);
  /** First real manuals into the sample library: a library of their own is offered, and is the default. */
  const offerNew = sampleLibrary && !hasOwnManuals(manuals);
  const [target, setTarget] = useState<'new' | 'samples'>('new');
  const [newDir, setNewDir] = useState<string | null>(null);
  const [otherDir, setOtherDir] = useState('');
  const [switching, setSwitching] = useState(false);
  const [switchNote, setSwitchNote] = useState<{ text: string; problem: boolean } | null>(null);
  const [recent, setRecent] = useState<string[]>(recentLibraries);
  const proposed = newDir ?? (library ? proposedLibraryDir(library.dir) : '');

  /** Opens (or creates) the library in `dir`; true when the engine switched to it. */
  async function openLibrary(dir: string, create: boolean): Promise<boolean> {
    setSwitching(true);
    setSwitchNote(null);
    const res = await engine.openLibrary({ dir: dir.trim(), create });
    setSwitching(false);
    if (!res.ok) {
      setSwitchNote({ text: res.error.message, problem: true });
      return false;
    }
    // Both stay one click away: the library left, and the one opened.
    if (library) rememberLibrary(library.dir);
    setRecent(rememberLibrary(res.value.info.dir));
    setSwitchNote({ text: openedNote(res.value), problem: false });
    // The failed-files list belongs to the library it came from.
    setFailed([]);
    save(FAILED_KEY, []);
    setJob({ kind: 'idle' });
    onChanged();
    return true;
  }

  /** @param keepNote the add that follows creating a library keeps its "Created…" note; any later one clears it. */
  async function runIngest(list: string[], forceRead: boolean, label: string, completeVectors = false, keepNote = false) {
    if (!keepNote) setSwitchNote(null);
    const ac = new AbortController();
    controller.current = ac;
    setJob({ kind: 'running', label, progress: null });
    let listed = false;
    const res = await engine.ingest(
      { paths: list, ...(forceRead ? { force: true } : {}), ...(completeVectors ? { completeVectors: true } : {}) },
      {
        signal: ac.signal,
        onProgress: (p) => {
          setJob((j) => (j.kind === 'running' ? { ...j, progress: p } : j));
          // Vectors follow once every file is in the library: list the manuals now, they are searchable.
          if (p.unit === 'passages' && !listed) {
            listed = true;
            onChanged();
          }
        },
      },
    );
    controller.current = null;
    if (res.ok) {
      setJob({ kind: 'done', label, report: res.value });
      const nowFailed = [...failed.filter((f) => !res.value.skipped.some((s) => s.file === f.file)), ...res.value.skipped];
      setFailed(nowFailed);
      save(FAILED_KEY, nowFailed);
    } else {
      setJob({ kind: 'error', label, message: res.error.message });
    }
    setInfoBeforeJobEnd(true);
    onChanged();
  }

  function onAdd(e: FormEvent) {
    e.preventDefault();
    const list = paths
      .split(/\r?\n/)
      .map((p) => p.trim())
      .filter(Boolean);
    if (list.length === 0) return;
    const label = `Adding ${list.length === 1 ? list[0] : plural(list.length, 'path')}`;
    if (offerNew && target === 'new') {
      // A library of their own first; the manuals then go there, never into the samples.
      void openLibrary(proposed, true).then(async (opened) => {
        if (opened) await runIngest(list, force, label, false, true);
      });
      return;
    }
    void runIngest(list, force, label);
  }

  async function remove(file: string) {
    setConfirmRemove(null);
    setRemoveError(null);
    const res = await engine.removeFiles([file]);
    if (!res.ok) setRemoveError(res.error.message);
    onChanged();
  }

  const running = job.kind === 'running' || switching;
  const unfinished = unfinishedVectors(library, running || infoBeforeJobEnd);
  const sorted = [...manuals].sort((a, b) => a.title.localeCompare(b.title) || a.file.localeCompare(b.file));

  return (
    <section className="library-page" aria-label="Library">
      <h2>Add manuals</h2>
      <form className="add-form" onSubmit={onAdd}>
        <label htmlFor="add-paths">
          {mode === 'browser' ? 'Files or folders on this computer, one path per line' : 'Files or folders, one path per line'}
        </label>
        <textarea
          id="add-paths"
          rows={2}
          className="path-input"
          placeholder="/media/usb/manuals   or   C:\Manuals\VMC-500"
          value={paths}
          onChange={(e) => setPaths(e.target.value)}
          disabled={running}
        />
        {offerNew && (
          <fieldset className="add-target">
            <legend>This is the fictional sample library. Where should your manuals go?</legend>
            <label className="check">
              <input type="radio" name="add-target" value="new" checked={target === 'new'} onChange={() => setTarget('new')} disabled={running} /> A new library of
              my own (recommended: the made-up sample procedures stay out of your results)
            </label>
            <label className="check">
              <input type="radio" name="add-target" value="samples" checked={target === 'samples'} onChange={() => setTarget('samples')} disabled={running} /> Into
              the sample library, to try ManualDesk with them
            </label>
          </fieldset>
        )}
        {offerNew && target === 'new' && (
          <div className="new-library">
            <label htmlFor="new-library-dir">Folder for your new library (a new or empty folder{mode === 'browser' ? ' on this computer' : ''})</label>
            <input
              id="new-library-dir"
              className="path-input"
              value={proposed}
              onChange={(e) => setNewDir(e.target.value)}
              disabled={running}
              spellCheck={false}
            />
            <p className="hint">ManualDesk makes this folder and keeps its index there; your manuals stay where they are.</p>
          </div>
        )}
        <div className="add-actions">
          <label className="check">
            <input type="checkbox" checked={force} onChange={(e) => setForce(e.target.checked)} disabled={running} /> Read unchanged files again
          </label>
          <button type="submit" className="button primary" disabled={running || !paths.trim() || (offerNew && target === 'new' && !proposed.trim())}>
            {offerNew && target === 'new' ? 'Create library and add' : 'Add to library'}
          </button>
        </div>
      </form>

      {switchNote && (
        <p className={`notice${switchNote.problem ? ' is-problem' : ''}`} role={switchNote.problem ? 'alert' : 'status'}>
          {switchNote.text}
        </p>
      )}
      {job.kind === 'running' && (
        <div className="job">
          <p className="job-label">{job.label}</p>
          <ProgressBar label={progressLabel(job.progress)} done={job.progress?.done ?? 0} total={job.progress?.total ?? 0} />
          <button type="button" className="button" onClick={() => controller.current?.abort()}>
            Cancel
          </button>
        </div>
      )}
      {job.kind === 'done' && <IngestSummary report={job.report} />}
      {job.kind === 'error' && <ErrorNote message={job.message} />}

      {failed.length > 0 && (
        <section aria-label="Files that could not be added" className="failed">
          <h3>Could not be added</h3>
          <ul>
            {failed.map((f) => (
              <li key={f.file}>
                <span className="status-failed">Failed</span> <strong>{f.file}</strong>: {f.reason}
              </li>
            ))}
          </ul>
          <button
            type="button"
            className="button small"
            onClick={() => {
              setFailed([]);
              save(FAILED_KEY, []);
            }}
          >
            Clear this list
          </button>
        </section>
      )}

      <h2>In the library</h2>
      {removeError && <ErrorNote message={removeError} />}
      {!running && library && library.modelMissing && (
        <div className="notice" role="status">
          <p>
            Search by meaning is off: this library was indexed with the search model <strong>{modelNameOf(library.modelMissing.id)}</strong>, which is not
            installed on this computer. Fault codes and keyword search work; manuals cannot be added or re-indexed until the model is back.
          </p>
          <p className="hint">Import the model pack that carries it on the Packs screen{library.modelToAdd ? ', or switch to the model installed here' : ''}.</p>
          {library.modelToAdd && (
            <>
              <button type="button" className="button small" onClick={() => void runIngest([], false, `Switching search by meaning to ${library.modelToAdd}`, true)}>
                Switch to {library.modelToAdd}
              </button>
              <p className="hint">
                The search model <strong>{library.modelToAdd}</strong> is installed here. Switching computes the meaning of each of the{' '}
                {library.chunks.toLocaleString('en')} passages with it (minutes on a small PC); keyword search and fault codes keep working meanwhile, and a cancel
                keeps what is done.
              </p>
            </>
          )}
        </div>
      )}
      {unfinished > 0 && (
        <div className="notice" role="status">
          <p>
            {plural(unfinished, 'passage')} {unfinished === 1 ? 'is' : 'are'} not indexed for meaning yet (the last adding stopped
            before it finished them). They are found by keyword and fault code meanwhile.
          </p>
          <button type="button" className="button small" onClick={() => void runIngest([], false, 'Indexing the meaning of the remaining passages', true)}>
            Finish now
          </button>
        </div>
      )}
      {!running && library && library.modelToAdd && !library.modelMissing && library.files > 0 && !sampleLibrary && (
        <div className="notice" role="status">
          <p>
            Search by meaning is off for this library: it finds passages by their words and by fault code. The search model <strong>{library.modelToAdd}</strong> is
            installed on this computer.
          </p>
          <button type="button" className="button small" onClick={() => void runIngest([], false, 'Turning on search by meaning', true)}>
            Turn on search by meaning
          </button>
          <p className="hint">
            It computes the meaning of each of the {library.chunks.toLocaleString('en')} passages (minutes on a small PC). Keyword search and fault codes keep
            working meanwhile, and a cancel keeps what is done.
          </p>
        </div>
      )}
      {sorted.length === 0 ? (
        <p className="status">No manuals yet. Add a file or a folder above.</p>
      ) : (
        <table className="manuals">
          <thead>
            <tr>
              <th scope="col">Manual</th>
              <th scope="col">File</th>
              <th scope="col">Passages</th>
              <th scope="col">Status</th>
              <th scope="col">
                <span className="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {sorted.map((m) => {
              const target = reindexPathFor(m);
              const ocr = m.pagesNeedingOcr ?? [];
              return (
                <tr key={m.file} data-file={m.file}>
                  <td>
                    <strong>{m.title}</strong>
                    {isSampleManual(m) && <span className="sample-badge">fictional sample</span>}
                    <span className="manual-meta">
                      {[m.revision && `rev. ${m.revision}`, m.language, m.format, m.equipment.join(', ')].filter(Boolean).join(' · ')}
                    </span>
                  </td>
                  <td className="file-cell">
                    {m.file}
                    {m.folder && <span className="manual-meta">from {m.folder}</span>}
                  </td>
                  <td className="num">{m.chunks}</td>
                  <td>
                    {ocr.length > 0 ? (
                      <span className="status-ocr">
                        Indexed; {plural(ocr.length, 'page')} need OCR (p. {ocr.slice(0, 8).join(', ')}
                        {ocr.length > 8 ? '…' : ''}): scan them with text recognition and re-index
                      </span>
                    ) : (
                      <span className="status-ok">Indexed</span>
                    )}
                    {!m.current && <span className="status-old"> · older revision</span>}
                  </td>
                  <td>
                    <div className="actions">
                    <button
                      type="button"
                      className="button small"
                      disabled={running || !target}
                      title={target ? `Read ${target} again` : 'The file’s location is not recorded; add it again.'}
                      onClick={() => target && void runIngest([target], true, `Re-indexing ${m.title}`)}
                    >
                      Re-index
                    </button>
                    {confirmRemove === m.file ? (
                      <>
                        <button type="button" className="button small danger" onClick={() => void remove(m.file)}>
                          Confirm remove
                        </button>
                        <button type="button" className="button small" onClick={() => setConfirmRemove(null)}>
                          Keep
                        </button>
                      </>
                    ) : (
                      <button type="button" className="button small" disabled={running} onClick={() => setConfirmRemove(m.file)}>
                        Remove
                      </button>
                    )}
                    </div>
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      )}

      <h2>Library folder</h2>
      <section className="library-folder" aria-label="Library folder">
        <p>
          Open now: <code>{library?.dir ?? '…'}</code>
          {sampleLibrary && <span className="sample-badge">fictional sample</span>}
        </p>
        {recent.filter((d) => d !== library?.dir).length > 0 && (
          <ul className="recent-libraries" aria-label="Libraries opened before">
            {recent
              .filter((d) => d !== library?.dir)
              .map((d) => (
                <li key={d}>
                  <code>{d}</code>{' '}
                  <button type="button" className="button small" disabled={running} onClick={() => void openLibrary(d, false)}>
                    Open
                  </button>
                </li>
              ))}
          </ul>
        )}
        <form
          className="add-form"
          onSubmit={(e) => {
            e.preventDefault();
            if (otherDir.trim()) void openLibrary(otherDir, false);
          }}
        >
          <label htmlFor="other-library-dir">Another library folder{mode === 'browser' ? ' on this computer' : ''}</label>
          <input id="other-library-dir" className="path-input" value={otherDir} onChange={(e) => setOtherDir(e.target.value)} disabled={running} spellCheck={false} />
          <div className="add-actions">
            <button type="submit" className="button" disabled={running || !otherDir.trim()}>
              Open library
            </button>
            <button type="button" className="button" disabled={running || !otherDir.trim()} onClick={() => void openLibrary(otherDir, true)}>
              Create a new library there
            </button>
          </div>
        </form>
        <p className="hint">The library you open is used until ManualDesk is closed; it starts again with the library it is started with.</p>
      </section>
    </section>
  );
}

const NOT_FOUND = /^not found\b/i;

/**
 * The summary's first sentence, said plainly: a path that does not exist, or a folder that held no
 * manuals, is named as such (not "Done in 0.0 s: 0 files" and a failed "file").
 */
export function ingestHeadline(r: IngestReport): { text: string; problem: boolean } {
  const missing = r.skipped.filter((s) => NOT_FOUND.test(s.reason)).map((s) => s.file);
  const meaning = r.embedded ? `${plural(r.embedded, 'passage')} indexed for meaning` : null;
  // Only the vectors (turning search by meaning on, or finishing what a cancel left).
  if (meaning && r.files === 0 && r.unchanged === 0 && r.removed === 0 && r.skipped.length === 0) {
    return { text: `Done in ${r.seconds.toFixed(1)} s: ${meaning}. Search by meaning is on for every manual.`, problem: false };
  }
  const nothing = r.files === 0 && r.unchanged === 0 && r.removed === 0;
  if (nothing && missing.length > 0 && missing.length === r.skipped.length) {
    const list = missing.join(', ');
    return { text: `Nothing was added: ${list} ${missing.length === 1 ? 'does' : 'do'} not exist. Check the path and that the drive is connected.`, problem: true };
  }
  if (nothing && r.skipped.length === 0) {
    return { text: 'Nothing was added: no manuals were found there. ManualDesk reads PDF, Markdown, HTML, text, Word, CSV, YAML and Excel files.', problem: true };
  }
  const missingNote = missing.length > 0 ? ` ${missing.join(', ')}: not found.` : '';
  return {
    text: `Done in ${r.seconds.toFixed(1)} s: ${plural(r.files, 'file')} added or updated (${plural(r.chunks, 'passage')}), ${r.unchanged} unchanged${r.removed > 0 ? `, ${r.removed} removed (no longer in the folder)` : ''}${meaning ? `; ${meaning}` : ''}.${missingNote}`,
    problem: false,
  };
}

/** Notes on the files read (a YAML file's lines left out, an encoding guessed) shown in the summary; the rest are counted. */
const MAX_NOTES_SHOWN = 12;

function IngestSummary({ report: r }: { report: IngestReport }) {
  const head = ingestHeadline(r);
  const notes = (r.warnings ?? []).flatMap((w) => w.messages.map((m) => `${w.file}: ${m}`));
  const failedFiles = r.skipped.filter((s) => !NOT_FOUND.test(s.reason));
  return (
    <div className={`summary${head.problem ? ' is-problem' : ''}`} role="status">
      <p className={head.problem ? 'status-failed' : undefined}>
        <strong>{head.text}</strong>
      </p>
      {failedFiles.length > 0 && <p className="status-failed">{plural(failedFiles.length, 'file')} could not be added — see the reasons below.</p>}
      {(r.withoutText ?? []).length > 0 && (
        <p className="status-ocr">
          {(r.withoutText ?? []).join('; ')}: no searchable text was found in {plural((r.withoutText ?? []).length, 'file')}. Check that they open and hold text, not only
          headings or images.
        </p>
      )}
      {r.pagesNeedingOcr.length > 0 && (
        <p className="status-ocr">
          {r.pagesNeedingOcr.map((o) => `${o.file}: ${plural(o.pages.length, 'page')}`).join('; ')} have no text layer and cannot be searched until they are
          scanned with text recognition (OCR).
        </p>
      )}
      {notes.length > 0 && (
        <ul className="status-warnings" aria-label="Notes on the files read">
          {notes.slice(0, MAX_NOTES_SHOWN).map((n) => (
            <li key={n}>{n}</li>
          ))}
          {notes.length > MAX_NOTES_SHOWN && <li>…and {plural(notes.length - MAX_NOTES_SHOWN, 'more note')}.</li>}
        </ul>
      )}
    </div>
  );
}
