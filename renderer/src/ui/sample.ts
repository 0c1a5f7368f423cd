/**
 * The bundled sample library (samples/library, fictional "Acme" manuals that `npm start` indexes when
 * no library is given) is labelled wherever it shows, so its procedures are never taken for a real
 * machine's. Pure.
 */
import type { LibraryInfo, ManualInfo } from '../../../native/contract/index.js';

/** A manual read from the repository's samples/library folder. */
export function isSampleManual(m: Pick<ManualInfo, 'source' | 'publisher'>): boolean {
  return /[\\/]samples[\\/]library[\\/]/.test(m.source ?? '') || /\(fictional\)/i.test(m.publisher ?? '');
}

/** The library `npm start` built from the samples (its folder), or one holding nothing but samples. */
export function isSampleLibrary(info: Pick<LibraryInfo, 'dir'> | null, manuals: Pick<ManualInfo, 'source' | 'publisher'>[]): boolean {
  if (info && /[\\/]sample-library[\\/]?$/.test(info.dir)) return true;
  return manuals.length > 0 && manuals.every(isSampleManual);
}

/** Whether any manual in the list is not a sample (someone already added their own). */
export function hasOwnManuals(manuals: Pick<ManualInfo, 'source' | 'publisher'>[]): boolean {
  return manuals.some((m) => !isSampleManual(m));
}
