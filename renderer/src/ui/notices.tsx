/** Shared messages: every wait says what is happening, every error says what to do next. */
import type { ReactNode } from 'react';

export function ErrorNote({ message, action }: { message: string; action?: ReactNode }) {
  return (
    <div className="error" role="alert">
      <p>{message}</p>
      {action}
    </div>
  );
}

/** A feature this build's engine does not have yet. */
export function Unavailable({ message, children }: { message: string; children?: ReactNode }) {
  return (
    <div className="unavailable" role="note">
      <p>{message}</p>
      {children}
    </div>
  );
}

/** A wait with its reason; no spinner without a message. */
export function Busy({ message }: { message: string }) {
  return (
    <p className="busy" role="status">
      <span className="busy-dot" aria-hidden="true" />
      {message}
    </p>
  );
}

export function ProgressBar({ label, done, total }: { label: string; done: number; total: number }) {
  const pct = total > 0 ? Math.min(100, Math.round((done / total) * 100)) : 0;
  return (
    <div className="progress" role="group" aria-label="Progress">
      <p className="progress-label" role="status">
        {label}
      </p>
      <progress max={total > 0 ? total : undefined} value={total > 0 ? done : undefined} aria-label={label}>
        {pct}%
      </progress>
    </div>
  );
}

export function plural(n: number, word: string, many = `${word}s`): string {
  return `${n} ${n === 1 ? word : many}`;
}
