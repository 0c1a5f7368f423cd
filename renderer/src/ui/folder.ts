/**
 * The folder a manual was added from, by its name ("kessel-mc40"), shown beside the manual's title on
 * search results and an answer's sources, so that chapters of different products with the same
 * kind of title ("Troubleshooting", "Calibration") are told apart. Shown only where the library's
 * manuals come from more than one folder, and not where the title already says it. Pure.
 */
import type { ManualInfo } from '../../../native/contract/index.js';

const words = (s: string) => s.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, '');

/** file → the name to show beside its title (absent: nothing to show). */
export function folderNames(manuals: Pick<ManualInfo, 'file' | 'title' | 'folder'>[]): Map<string, string> {
  const folders = new Set(manuals.map((m) => m.folder).filter((f): f is string => !!f));
  const out = new Map<string, string>();
  if (folders.size < 2) return out;
  for (const m of manuals) {
    if (!m.folder) continue;
    const name = m.folder.replace(/[\\/]+$/, '').split(/[\\/]/).pop() ?? '';
    if (name && !words(m.title).includes(words(name))) out.set(m.file, name);
  }
  return out;
}
