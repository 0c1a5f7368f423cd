/**
 * Ask: a grounded answer with [n] citations, its mode (code / extractive / generative), the manuals'
 * safety text boxed first and verbatim, a clear refusal when the manuals do not cover the question,
 * and useful / wrong feedback kept on this computer. Generative answers stream as they are written.
 */
import { useCallback, useEffect, useMemo, useRef, useState, type FormEvent, type KeyboardEvent } from 'react';
import { waitedText, type AnswerMode, type AskResponse, type Citation, type ConversationTurn, type ManualInfo } from '../../../../native/contract/index.js';
import type { UiEngine } from '../../engine/types.js';
import { addFeedback } from '../../local/feedback.js';
import type { HistoryEntry } from '../../local/history.js';
import type { OpenSource } from '../../routes.js';
import { Busy, ErrorNote } from '../../ui/notices.js';
import { MAX_QUERY_CHARS } from '../../ui/limits.js';
import { folderNames } from '../../ui/folder.js';
import { Structured } from '../../ui/Structured.js';
import { AnswerText } from './AnswerText.js';
import { SafetyBox } from './SafetyBox.js';
import { sectionBelowTitle } from '../../ui/section.js';

const MODE_LABEL: Record<AnswerMode, { badge: string; note: string }> = {
  code: { badge: 'Code', note: 'From the fault-code table' },
  extractive: { badge: 'Extractive', note: 'Quoted from the manuals' },
  generative: { badge: 'Generative', note: 'Written by the local model from the cited passages; check them' },
};

export type AskState =
  | { kind: 'idle' }
  | { kind: 'asking'; question: string; streamed: string }
  | { kind: 'done'; res: AskResponse; waitedMs?: number }
  | { kind: 'error'; question: string; message: string; code?: string };
type State = AskState;

/**
 * The time shown with an answer: what the technician waited, from asking to the answer on screen
 * (the engine's own time leaves out the way there and back and any search still running before it),
 * with the language model's part beside it when a model wrote the answer.
 */
export function waitedLine(res: Pick<AskResponse, 'ms' | 'modelMs'>, waitedMs?: number): string {
  return waitedText({ ms: Math.max(res.ms, waitedMs ?? 0), modelMs: res.modelMs });
}

/**
 * A streamed chunk of a generated draft: shown only while the question is being answered. The final
 * response replaces the draft (a rejected draft gives way to the extractive answer and its reason),
 * and a chunk that arrives after it never brings the draft back.
 */
export function withStreamed(s: AskState, chunk: string): AskState {
  return s.kind === 'asking' ? { ...s, streamed: s.streamed + chunk } : s;
}

export interface AnswerPageProps {
  engine: UiEngine;
  question: { text: string; seq: number } | null;
  onOpen: OpenSource;
  onRecord: (entry: Omit<HistoryEntry, 'at'>) => void;
  onSearch: (text: string) => void;
  /** The library's manuals (the folder each came from is named beside its title). */
  manuals?: ManualInfo[];
}

export function AnswerPage({ engine, question, onOpen, onRecord, onSearch, manuals }: AnswerPageProps) {
  const folders = useMemo(() => folderNames(manuals ?? []), [manuals]);
  const [text, setText] = useState('');
  const [state, setState] = useState<State>({ kind: 'idle' });
  const [turns, setTurns] = useState<ConversationTurn[]>([]);
  const [feedback, setFeedback] = useState<string | null>(null);
  const controller = useRef<AbortController | null>(null);
  const inputRef = useRef<HTMLTextAreaElement>(null);

  const ask = useCallback(
    async (q: string, conversation: ConversationTurn[]) => {
      const question = q.trim();
      if (!question) return;
      controller.current?.abort();
      const ac = new AbortController();
      controller.current = ac;
      setFeedback(null);
      setState({ kind: 'asking', question, streamed: '' });
      onRecord({ action: 'ask', query: question });
      const started = performance.now();
      const res = await engine.ask(
        { question, conversation: conversation.length > 0 ? conversation.slice(-3) : undefined },
        {
          signal: ac.signal,
          onToken: (t) => setState((s) => (controller.current === ac ? withStreamed(s, t) : s)),
        },
      );
      if (controller.current !== ac) return;
      controller.current = null;
      if (res.ok) {
        setState({ kind: 'done', res: res.value, waitedMs: performance.now() - started });
        if (!res.value.refused) setTurns((t) => [...t, { question, answer: res.value.answer }]);
      } else {
        setState({ kind: 'error', question, message: res.error.message, code: res.error.code });
      }
    },
    [engine, onRecord],
  );

  useEffect(() => {
    if (!question) return;
    setText(question.text);
    void ask(question.text, []);
    setTurns([]);
    inputRef.current?.focus();
  }, [question, ask]);

  function cancel() {
    controller.current?.abort();
    controller.current = null;
    setState({ kind: 'error', question: state.kind === 'asking' ? state.question : text, message: 'Cancelled. Ask again when you are ready.' });
  }

  function onSubmit(e: FormEvent) {
    e.preventDefault();
    void ask(text, turns);
  }

  function onKey(e: KeyboardEvent<HTMLTextAreaElement>) {
    if (e.key === 'Enter' && !e.shiftKey) {
      e.preventDefault();
      void ask(text, turns);
    } else if (e.key === 'Escape' && state.kind === 'asking') {
      e.preventDefault();
      cancel();
    }
  }

  const openCitation = (c: Citation) => onOpen({ file: c.file, pack: c.pack, manual: c.manual, page: c.page, section: c.section, text: c.text });

  return (
    <section className="answer-page" aria-label="Ask">
      <form className="ask-form" onSubmit={onSubmit}>
        <label htmlFor="ask-input" className="visually-hidden">
          Your question
        </label>
        <textarea
          id="ask-input"
          ref={inputRef}
          className="ask-input"
          rows={2}
          placeholder="Ask in a sentence, e.g. How do I clean the chiller filter?"
          value={text}
          maxLength={MAX_QUERY_CHARS}
          onChange={(e) => setText(e.target.value.slice(0, MAX_QUERY_CHARS))}
          onKeyDown={onKey}
        />
        <div className="ask-actions">
          <button type="submit" className="button primary" disabled={!text.trim() || state.kind === 'asking'}>
            {turns.length > 0 ? 'Ask follow-up' : 'Ask'}
          </button>
          {turns.length > 0 && (
            <button
              type="button"
              className="button"
              onClick={() => {
                setTurns([]);
                setState({ kind: 'idle' });
                setText('');
                inputRef.current?.focus();
              }}
            >
              New question
            </button>
          )}
        </div>
      </form>
      {text.length >= MAX_QUERY_CHARS && (
        <p className="notice" role="status">
          A question can be at most {MAX_QUERY_CHARS.toLocaleString('en')} characters; the rest was left out. Ask about one problem in a sentence or two.
        </p>
      )}
      <p className="shortcuts">Enter asks · Shift+Enter new line · Esc cancels or goes back to search</p>

      {state.kind === 'idle' && <p className="status">Answers quote your manuals and show where each sentence comes from.</p>}
      {state.kind === 'asking' && (
        <div className="asking">
          {/* The streamed text is a draft: when it is done it is checked against the cited passages, and
              the final answer (the draft, or the extractive answer with the reason) replaces it. */}
          <Busy message={state.streamed ? 'Writing a draft answer from the manuals; it is checked against them when done…' : `Looking through the manuals for “${state.question}”…`} />
          {state.streamed && (
            <p className="answer-text streaming" aria-live="polite">
              {state.streamed}
            </p>
          )}
          <button type="button" className="button" onClick={cancel}>
            Cancel
          </button>
        </div>
      )}
      {state.kind === 'error' && (
        <ErrorNote
          message={state.message}
          action={
            // A question the engine refused as input would fail the search the same way.
            state.code === 'INVALID_INPUT' ? undefined : (
              <button type="button" className="button" onClick={() => onSearch(state.question)}>
                Search for it instead
              </button>
            )
          }
        />
      )}
      {state.kind === 'done' && (
        <AnswerView
          engine={engine}
          res={state.res}
          waitedMs={state.waitedMs}
          folders={folders}
          onCite={openCitation}
          onOpen={onOpen}
          feedback={feedback}
          onFeedback={(verdict) => {
            const r = state.res;
            const saved = addFeedback({
              question: r.question,
              answer: r.answer,
              mode: r.mode,
              verdict,
              citations: r.citations.map((c) => ({ n: c.n, file: c.file, page: c.page })),
            });
            setFeedback(saved ? `Saved on this computer: marked ${verdict}.` : 'Could not save the feedback: this browser blocks local storage.');
          }}
        />
      )}
    </section>
  );
}

function AnswerView({
  engine,
  res,
  waitedMs,
  folders,
  onCite,
  onOpen,
  feedback,
  onFeedback,
}: {
  engine: UiEngine;
  res: AskResponse;
  waitedMs?: number;
  folders: ReadonlyMap<string, string>;
  onCite: (c: Citation) => void;
  onOpen: OpenSource;
  feedback: string | null;
  onFeedback: (v: 'useful' | 'wrong') => void;
}) {
  const byN = new Map(res.citations.map((c) => [c.n, c] as const));
  const cite = (n: number) => {
    const c = byN.get(n);
    if (c) onCite(c);
  };
  const mode = MODE_LABEL[res.mode];

  return (
    <article className="answer" aria-label="Answer">
      {res.safety.length > 0 && (
        <section className="safety-list" aria-label="Safety">
          {res.safety.map((s, i) => (
            <SafetyBox key={i} notice={s} citation={byN.get(s.n)} engine={engine} onCite={() => cite(s.n)} onOpen={onOpen} />
          ))}
        </section>
      )}

      <p className="answer-meta">
        {res.refused ? (
          <span className="badge badge-refused" data-mode="refused">
            Not answered
          </span>
        ) : (
          <>
            <span className={`badge mode-badge-${res.mode}`} data-mode={res.mode}>
              {mode.badge}
            </span>
            <span className="status">{mode.note}</span>
          </>
        )}
        <span className="status" title="The time from asking to the last word of the answer">
          {waitedLine(res, waitedMs)}
        </span>
      </p>
      {res.standaloneQuery !== res.question && <p className="status">Searched as: “{res.standaloneQuery}”</p>}

      {res.refused ? (
        <div className="refusal" role="note">
          <h3>These manuals do not cover this</h3>
          <p>{res.refusal?.reason ?? res.answer}</p>
          {res.refusal && res.refusal.closest.length > 0 && (
            <>
              <p>The closest sections found for “{res.refusal.searched}” — check them, or add the manual that covers it:</p>
              <ul className="closest">
                {res.refusal.closest.map((c, i) => (
                  <li key={i}>
                    <button
                      type="button"
                      className="link"
                      onClick={() => onOpen({ file: c.file, manual: c.manual, page: c.page, section: c.section, text: c.section, pack: c.pack })}
                    >
                      {c.manual} — {sectionBelowTitle(c.manual, c.section) || c.file}
                      {c.page !== null ? `, p. ${c.page}` : ''}
                    </button>
                  </li>
                ))}
              </ul>
            </>
          )}
        </div>
      ) : (
        <Structured className="answer-text" text={res.answer} inline={(t) => <AnswerText text={t} known={new Set(byN.keys())} onCite={cite} />} />
      )}
      {res.fallbackReason && <p className="notice">{res.fallbackReason}</p>}
      {res.invalidCitations && res.invalidCitations.length > 0 && (
        <p className="notice">Removed citation marks that pointed to no passage: {res.invalidCitations.map((n) => `[${n}]`).join(' ')}.</p>
      )}

      {res.citations.length > 0 && (
        <section aria-label="Sources">
          <h3 className="sources-title">Sources</h3>
          <ol className="citations">
            {res.citations.map((c) => (
              <li key={c.n}>
                <button type="button" className="citation" onClick={() => onCite(c)}>
                  <span className="hit-head">
                    <span className="citation-n">[{c.n}]</span>
                    <span className="hit-manual">{c.manual}</span>
                    {!c.pack && folders.has(c.file) && <span className="hit-folder">{folders.get(c.file)}</span>}
                    {sectionBelowTitle(c.manual, c.section) && <span className="hit-section">{sectionBelowTitle(c.manual, c.section)}</span>}
                    {c.page !== null && <span className="hit-page">p. {c.page}</span>}
                  </span>
                  <span className="citation-text">
                    <Structured text={c.text} />
                  </span>
                </button>
              </li>
            ))}
          </ol>
        </section>
      )}

      <div className="feedback" role="group" aria-label="Feedback">
        <span>Was this answer right?</span>
        <button type="button" className="button" onClick={() => onFeedback('useful')}>
          Useful
        </button>
        <button type="button" className="button" onClick={() => onFeedback('wrong')}>
          Wrong
        </button>
        {feedback && <span className="status" role="status">{feedback}</span>}
      </div>
    </article>
  );
}
