/** Small typed wrapper over localStorage: everything the UI keeps stays on this computer. */

export function load<T>(key: string, fallback: T, valid: (v: unknown) => v is T): T {
  try {
    const raw = window.localStorage.getItem(key);
    if (raw === null) return fallback;
    const value: unknown = JSON.parse(raw);
    return valid(value) ? value : fallback;
  } catch {
    return fallback;
  }
}

/** False when the browser refuses (storage full or disabled); callers say so instead of failing. */
export function save(key: string, value: unknown): boolean {
  try {
    window.localStorage.setItem(key, JSON.stringify(value));
    return true;
  } catch {
    return false;
  }
}

export const isArray = (v: unknown): v is unknown[] => Array.isArray(v);
