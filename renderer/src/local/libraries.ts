/**
 * Library folders: the one proposed for a technician's own library, and the libraries opened from
 * this computer's window (newest first), so one can be opened again after a restart: the engine opens
 * the library it was started with, and a switch lasts for the session.
 */
import { isArray, load, save } from './storage.js';

const KEY = 'manualdesk.libraries.v1';
const MAX = 8;

/**
 * A new library's folder: "library" next to the sample library (~/.manualdesk/library beside
 * ~/.manualdesk/sample-library, the folder the command line uses by default), same separators.
 */
export function proposedLibraryDir(sampleDir: string): string {
  const trimmed = sampleDir.replace(/[\\/]+$/, '');
  const cut = Math.max(trimmed.lastIndexOf('/'), trimmed.lastIndexOf('\\'));
  if (cut < 0) return 'library';
  return `${trimmed.slice(0, cut)}${trimmed[cut]}library`;
}

export function recentLibraries(): string[] {
  return load(KEY, [] as string[], isArray as (v: unknown) => v is string[]).filter((d) => typeof d === 'string');
}

/** Puts `dir` first in the list of opened libraries. */
export function rememberLibrary(dir: string): string[] {
  const list = [dir, ...recentLibraries().filter((d) => d !== dir)].slice(0, MAX);
  save(KEY, list);
  return list;
}
