/** The library's code-schemes.json: prefix schemes learned from its manuals, per file. */
import path from 'node:path';
import type { CodeScheme } from '../fault-codes/schemes.js';
import { readJson, writeJsonAtomic } from '../store/atomic-json.js';
import { SCHEMES_FILE } from './layout.js';

export async function readSchemes(dir: string): Promise<Map<string, CodeScheme[]>> {
  const raw = (await readJson(path.join(dir, SCHEMES_FILE))) as Record<string, CodeScheme[]> | undefined;
  return new Map(Object.entries(raw ?? {}));
}

/** A scheme file next to several manuals is read with each of them: keep one copy. */
export function uniqueSchemes(schemes: Map<string, CodeScheme[]>): CodeScheme[] {
  return [...new Map([...schemes.values()].flat().map((sc) => [JSON.stringify(sc), sc] as const)).values()];
}

/** Keeps the schemes of files still in the library, replacing those of re-ingested files. */
export async function saveSchemes(dir: string, learned: Map<string, CodeScheme[]>, files: Set<string>): Promise<void> {
  const current = await readSchemes(dir);
  let changed = false;
  for (const file of [...current.keys()]) {
    if (!files.has(file)) {
      current.delete(file);
      changed = true;
    }
  }
  for (const [file, schemes] of learned) {
    current.set(file, schemes);
    changed = true;
  }
  if (changed) await writeJsonAtomic(path.join(dir, SCHEMES_FILE), Object.fromEntries(current));
}
