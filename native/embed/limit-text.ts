/**
 * What an embedding model is given for a passage: the passage's text, less what no model can use.
 *
 * Two kinds of text are cut before tokenising (the passage itself, in the library and the keyword
 * index, is not changed):
 * - a run of printable ASCII without a space longer than LONG_RUN characters: an inline image
 *   (data:image/png;base64,…), a hex dump, minified code, a long URL. No language has such words;
 *   tokenising a 339 KB one overflowed the tokenizer's stack ("Maximum call stack size exceeded").
 *   The run's first KEEP_OF_RUN characters stay, so the passage still reads the same way.
 * - everything past maxTokens × MAX_CHARS_PER_TOKEN characters: the model reads only its first
 *   maxTokens tokens, and no real text averages more characters per token than that, so the cut
 *   never changes what the model sees, only how long the tokenizer works on text it throws away.
 */

export const LONG_RUN = 200;
export const KEEP_OF_RUN = 48;
export const MAX_CHARS_PER_TOKEN = 8;

const ASCII_RUN = new RegExp(`[\\x21-\\x7e]{${LONG_RUN + 1},}`, 'g');

/** The text to tokenise for a passage; the same input always gives the same output. */
export function limitForEmbedding(text: string, maxTokens: number): string {
  let out = text.length > LONG_RUN ? text.replace(ASCII_RUN, (run) => `${run.slice(0, KEEP_OF_RUN)}…`) : text;
  const maxChars = Math.max(1, maxTokens) * MAX_CHARS_PER_TOKEN;
  if (out.length > maxChars) {
    let end = maxChars;
    // Do not split a UTF-16 surrogate pair.
    const code = out.charCodeAt(end - 1);
    if (code >= 0xd800 && code <= 0xdbff) end--;
    out = out.slice(0, end);
  }
  return out;
}
