/**
 * Packs: manual packs and model packs from USB. Verify, import, update and roll back with progress;
 * every pack shows who signed it and whether that key is trusted here.
 */
import { useCallback, useEffect, useRef, useState } from 'react';
import type { PackInfo, PackProgress, PackVerifyReport, Result } from '../../../../native/contract/index.js';
import type { UiEngine } from '../../engine/types.js';
import { Busy, ErrorNote, ProgressBar, plural } from '../../ui/notices.js';

type Action = 'verify' | 'import' | 'update';

type Job =
  | { kind: 'idle' }
  | { kind: 'running'; action: Action; progress: PackProgress | null }
  | { kind: 'verified'; report: PackVerifyReport }
  | { kind: 'installed'; action: Action; pack: PackInfo }
  | { kind: 'error'; message: string };

const PHASE: Record<PackProgress['phase'], string> = {
  read: 'Reading the pack',
  verify: 'Checking signature and checksums',
  stage: 'Unpacking',
  install: 'Installing',
  build: 'Building the index',
};

export function packProgressLabel(p: PackProgress | null): string {
  if (!p) return 'Starting…';
  const mb = (n: number) => (n / 1048576).toFixed(1);
  const parts = [p.filesTotal > 0 ? `${p.filesDone} of ${p.filesTotal} files` : '', p.bytesTotal > 0 ? `${mb(p.bytesDone)} of ${mb(p.bytesTotal)} MB` : ''].filter(Boolean);
  return `${PHASE[p.phase]}${parts.length ? ` (${parts.join(', ')})` : ''}…`;
}

export function SignerBadge({ pack }: { pack: Pick<PackInfo, 'signer'> & { unverified?: boolean } }) {
  if (!pack.signer) return <span className="badge badge-untrusted">Unsigned</span>;
  return (
    <span className={`badge ${pack.signer.trusted && !pack.unverified ? 'badge-trusted' : 'badge-untrusted'}`}>
      {pack.signer.trusted ? 'Trusted signer' : 'Untrusted signer'}
      {pack.unverified ? ' · imported unverified' : ''}
    </span>
  );
}

export function PacksPage({ engine, onChanged }: { engine: UiEngine; onChanged: () => void }) {
  const [packs, setPacks] = useState<Result<PackInfo[]> | null>(null);
  const [file, setFile] = useState('');
  const [allowUnsigned, setAllowUnsigned] = useState(false);
  const [job, setJob] = useState<Job>({ kind: 'idle' });
  const [rowError, setRowError] = useState<string | null>(null);
  const [confirmRemove, setConfirmRemove] = useState<string | null>(null);
  const controller = useRef<AbortController | null>(null);

  const refresh = useCallback(() => {
    void engine.listPacks().then(setPacks);
  }, [engine]);
  useEffect(refresh, [refresh]);

  async function run(action: Action) {
    const f = file.trim();
    if (!f) return;
    const ac = new AbortController();
    controller.current = ac;
    setJob({ kind: 'running', action, progress: null });
    const hooks = { signal: ac.signal, onProgress: (p: PackProgress) => setJob((j) => (j.kind === 'running' ? { ...j, progress: p } : j)) };
    const req = { file: f, ...(allowUnsigned ? { allowUnsigned: true } : {}) };
    if (action === 'verify') {
      const res = await engine.verifyPack({ file: f }, hooks);
      setJob(res.ok ? { kind: 'verified', report: res.value } : { kind: 'error', message: res.error.message });
    } else {
      const res = action === 'import' ? await engine.importPack(req, hooks) : await engine.updatePack(req, hooks);
      setJob(res.ok ? { kind: 'installed', action, pack: res.value } : { kind: 'error', message: res.error.message });
      refresh();
      onChanged();
    }
    controller.current = null;
  }

  async function rowAction(fn: () => Promise<Result<unknown>>) {
    setRowError(null);
    const res = await fn();
    if (!res.ok) setRowError(res.error.message);
    refresh();
    onChanged();
  }

  const running = job.kind === 'running';

  return (
    <section className="packs-page" aria-label="Packs">
      <h2>Import a pack</h2>
      <form
        className="add-form"
        onSubmit={(e) => {
          e.preventDefault();
          void run('import');
        }}
      >
        <label htmlFor="pack-file">Pack file (for example on a USB stick)</label>
        <input id="pack-file" className="path-input" value={file} onChange={(e) => setFile(e.target.value)} placeholder="/media/usb/acme-vmc-500.mdpack" disabled={running} />
        <div className="add-actions">
          <label className="check">
            <input type="checkbox" checked={allowUnsigned} onChange={(e) => setAllowUnsigned(e.target.checked)} disabled={running} /> Allow an unsigned or untrusted pack
            (it will be marked as unverified)
          </label>
          <button type="button" className="button" disabled={running || !file.trim()} onClick={() => void run('verify')}>
            Verify
          </button>
          <button type="submit" className="button primary" disabled={running || !file.trim()}>
            Import
          </button>
          <button type="button" className="button" disabled={running || !file.trim()} onClick={() => void run('update')}>
            Update installed pack
          </button>
        </div>
      </form>

      {job.kind === 'running' && (
        <div className="job">
          <ProgressBar
            label={packProgressLabel(job.progress)}
            done={job.progress ? job.progress.filesDone || job.progress.bytesDone : 0}
            total={job.progress ? job.progress.filesTotal || job.progress.bytesTotal : 0}
          />
          <button type="button" className="button" onClick={() => controller.current?.abort()}>
            Cancel
          </button>
        </div>
      )}
      {job.kind === 'error' && <ErrorNote message={job.message} />}
      {job.kind === 'verified' && <VerifyReport report={job.report} />}
      {job.kind === 'installed' && (
        <p className="summary" role="status">
          {job.action === 'update' ? 'Updated' : 'Imported'} {job.pack.name} {job.pack.active} ({plural(job.pack.manuals.length, 'manual')}). <SignerBadge pack={job.pack} />
        </p>
      )}

      <h2>Installed packs</h2>
      {rowError && <ErrorNote message={rowError} />}
      {!packs && <Busy message="Reading the installed packs…" />}
      {packs && !packs.ok && <ErrorNote message={packs.error.message} />}
      {packs?.ok && packs.value.length === 0 && <p className="status">No packs installed. Import one above.</p>}
      {packs?.ok && packs.value.length > 0 && (
        <ul className="pack-list">
          {packs.value.map((p) => (
            <li key={p.id} className="pack">
              <div className="pack-head">
                <strong>{p.name}</strong> <span className="badge">{p.kind === 'models' ? 'Model pack' : 'Manual pack'}</span> <span>version {p.active}</span>{' '}
                <SignerBadge pack={p} />
              </div>
              <p className="status">
                {p.publisher} · created {p.created}
                {p.signer ? ` · signer key ${p.signer.fingerprint.slice(0, 16)}…` : ' · not signed'}
              </p>
              {p.problem && (
                <p className="error" role="alert">
                  {p.problem}
                </p>
              )}
              {p.manuals.length > 0 && <p>{p.manuals.map((m) => `${m.title}${m.revision ? ` rev. ${m.revision}` : ''}`).join('; ')}</p>}
              <div className="actions">
                <button
                  type="button"
                  className="button small"
                  disabled={p.versions.length < 2}
                  title={p.versions.length < 2 ? 'No older version is kept.' : `Go back to ${p.versions[1]}`}
                  onClick={() => void rowAction(() => engine.rollbackPack({ id: p.id }))}
                >
                  Roll back{p.versions.length > 1 ? ` to ${p.versions[1]}` : ''}
                </button>
                {confirmRemove === p.id ? (
                  <>
                    <button
                      type="button"
                      className="button small danger"
                      onClick={() => {
                        setConfirmRemove(null);
                        void rowAction(() => engine.removePack({ id: p.id }));
                      }}
                    >
                      Confirm remove
                    </button>
                    <button type="button" className="button small" onClick={() => setConfirmRemove(null)}>
                      Keep
                    </button>
                  </>
                ) : (
                  <button type="button" className="button small" onClick={() => setConfirmRemove(p.id)}>
                    Remove
                  </button>
                )}
              </div>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

/**
 * What the verify report leads with: its decisive cause when it failed (a path that does not exist
 * is not a failed signature check), and whether the check lines mean anything (a pack never read
 * has no signature or checksums to report).
 */
export function verifyHeadline(r: PackVerifyReport): { text: string; showChecks: boolean } {
  if (r.ok) return { text: 'The pack is intact.', showChecks: true };
  const unread = r.checksums.checked === 0 && !r.pack.name;
  const cause = r.error?.message ?? r.problems[0];
  if (unread) return { text: cause ?? 'The pack could not be read. Check the path and that the drive is connected.', showChecks: false };
  return { text: `${cause ? `${cause} ` : ''}The pack did not pass the checks: do not import it; get a new copy from the publisher.`, showChecks: true };
}

function VerifyReport({ report: r }: { report: PackVerifyReport }) {
  const head = verifyHeadline(r);
  return (
    <div className={r.ok ? 'summary' : 'error'} role="status">
      <p>
        <strong>{head.text}</strong>
        {r.pack.name ? ` ${r.pack.name} ${r.pack.version}${r.pack.publisher ? ` from ${r.pack.publisher}` : ''}.` : ''}
      </p>
      {head.showChecks && <ul>
        <li>Signature: {r.signature === 'valid' ? 'valid' : r.signature === 'missing' ? 'missing (unsigned pack)' : 'INVALID — do not import it'}</li>
        <li>
          Signer: {r.pack.signer ? `${r.pack.signer.fingerprint.slice(0, 16)}…` : 'none'}
          {r.trusted === null ? '' : r.trusted ? ' (trusted here)' : ' (not trusted here: compare the fingerprint with the publisher’s before allowing it)'}
        </li>
        <li>
          Checksums: {r.checksums.checked} checked{r.checksums.failed.length > 0 ? `, failed: ${r.checksums.failed.join(', ')}` : ', all match'}
        </li>
        {r.embedderCompatible === false && <li>Its search model differs from this library’s: install the matching model pack first.</li>}
        {r.problems
          .filter((p) => p !== r.error?.message)
          .map((p) => (
            <li key={p}>{p}</li>
          ))}
      </ul>}
    </div>
  );
}
