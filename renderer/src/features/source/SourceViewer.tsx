/** The manual at the cited place: PDFs drawn at the page, other formats as text scrolled to the section. */
import { useEffect, useMemo, useState } from 'react';
import type { Result, SourceDocument } from '../../../../native/contract/index.js';
import type { UiEngine } from '../../engine/types.js';
import type { SourceTarget } from '../../routes.js';
import { Busy, ErrorNote } from '../../ui/notices.js';
import { BlocksView } from './BlocksView.js';
import { citedBlocks } from './match.js';
import { PdfView } from './PdfView.js';
import { sectionBelowTitle } from '../../ui/section.js';

export function SourceViewer({
  engine,
  target,
  onBack,
}: {
  engine: UiEngine;
  target: SourceTarget;
  onBack: () => void;
}) {
  const [doc, setDoc] = useState<Result<SourceDocument> | null>(null);

  useEffect(() => {
    let live = true;
    setDoc(null);
    void engine.openSource(target.pack ? { file: target.file, pack: target.pack } : { file: target.file }).then((r) => live && setDoc(r));
    return () => {
      live = false;
    };
  }, [engine, target.file, target.pack]);

  const cited = useMemo(
    () => (doc?.ok && doc.value.kind === 'blocks' ? citedBlocks(doc.value.blocks, target.section, target.text) : []),
    [doc, target.section, target.text],
  );

  return (
    <section className="source-viewer" aria-label="Source">
      <header className="source-head">
        <button type="button" className="button" onClick={onBack}>
          ◀ Back (Esc)
        </button>
        <div>
          <h2 className="source-title">{target.manual}</h2>
          <p className="status">
            {[sectionBelowTitle(target.manual, target.section), target.page !== null ? `page ${target.page}` : '', target.file].filter(Boolean).join(' · ')}
          </p>
        </div>
      </header>
      {!doc && <Busy message={`Opening ${target.file}…`} />}
      {doc && !doc.ok && <ErrorNote message={doc.error.message} />}
      {doc?.ok && doc.value.changed && (
        <p className="notice">This file changed since it was indexed; the page or passage may have moved. Re-index it in the Library screen.</p>
      )}
      {doc?.ok && doc.value.kind === 'pdf' && <PdfView base64={doc.value.base64} page={target.page} passage={target.text} />}
      {doc?.ok && doc.value.kind === 'blocks' && (
        <>
          {cited.length === 0 && <p className="notice">The cited passage was not found word for word in the file; showing the whole document.</p>}
          <BlocksView blocks={doc.value.blocks} cited={cited} query={target.query} />
        </>
      )}
    </section>
  );
}
