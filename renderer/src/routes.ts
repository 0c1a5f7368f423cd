/** Where the UI can be, and what opens the source viewer. */

export type Screen = 'search' | 'answer' | 'library' | 'packs' | 'settings' | 'history';

export const SCREENS: { id: Screen; label: string }[] = [
  { id: 'search', label: 'Search' },
  { id: 'answer', label: 'Ask' },
  { id: 'library', label: 'Library' },
  { id: 'packs', label: 'Packs' },
  { id: 'settings', label: 'Settings' },
  { id: 'history', label: 'History' },
];

/** A place in a manual: a search hit, a fault code's source row, or an answer's citation. */
export interface SourceTarget {
  file: string;
  /** Installed pack the file comes from (absent: the site's own library). */
  pack?: string;
  manual: string;
  page: number | null;
  section: string;
  /** The passage to highlight, as the result or citation quotes it. */
  text: string;
  /** What was searched (its words are marked too). */
  query?: string;
}

export type OpenSource = (target: SourceTarget) => void;
