/** Display preferences, kept on this computer and applied to the page's root element. */
import { load, save } from './storage.js';

export type Theme = 'light' | 'dark' | 'contrast';
export type TextSize = 'normal' | 'large' | 'larger';

export interface Settings {
  theme: Theme;
  textSize: TextSize;
}

export const DEFAULT_SETTINGS: Settings = { theme: 'light', textSize: 'normal' };
const KEY = 'manualdesk.settings.v1';

function isSettings(v: unknown): v is Settings {
  if (typeof v !== 'object' || v === null) return false;
  const s = v as Settings;
  return ['light', 'dark', 'contrast'].includes(s.theme) && ['normal', 'large', 'larger'].includes(s.textSize);
}

export function readSettings(): Settings {
  return load(KEY, DEFAULT_SETTINGS, isSettings);
}

export function saveSettings(s: Settings): boolean {
  return save(KEY, s);
}

export function applySettings(s: Settings, root: HTMLElement = document.documentElement): void {
  root.dataset.theme = s.theme;
  root.dataset.textSize = s.textSize;
}
