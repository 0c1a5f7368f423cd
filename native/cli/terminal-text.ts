/**
 * Text the CLI prints to a terminal. File names and manual text come from the manuals' folders and
 * may hold control characters (ESC sequences that recolour, move the cursor or retitle the window; CR
 * that overwrites a line; bidi overrides that reorder what is shown): printed raw, a file name could
 * drive the terminal. They are printed escaped (`\x1b`, `\r`, `\u202e`), visibly and harmlessly.
 * JSON output needs none of this: JSON.stringify escapes control characters itself.
 */

/** C0 controls except tab and newline, DEL, C1 controls (0x9b is a CSI on some terminals), bidi controls. */
// eslint-disable-next-line no-control-regex
const UNSAFE_TEXT = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g;
/** In a file name tabs and newlines are escaped too: a name must stay on its own line. */
// eslint-disable-next-line no-control-regex
const UNSAFE_NAME = /[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g;

function escapeChar(ch: string): string {
  const c = ch.charCodeAt(0);
  if (c === 0x0a) return '\\n';
  if (c === 0x0d) return '\\r';
  if (c === 0x09) return '\\t';
  return c <= 0xff ? `\\x${c.toString(16).padStart(2, '0')}` : `\\u${c.toString(16).padStart(4, '0')}`;
}

/** Whole lines of output: line breaks and tabs kept, every other control character escaped. */
export function terminalText(s: string): string {
  return s.replace(UNSAFE_TEXT, escapeChar);
}

/** A file name (or other single-line value) for a terminal: every control character escaped. */
export function terminalName(s: string): string {
  return s.replace(UNSAFE_NAME, escapeChar);
}
