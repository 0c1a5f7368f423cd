/**
 * The bundled sample library (samples/library, fictional "Acme" manuals that `npm start` indexes when
 * no library is given) is labelled wherever it shows, so its procedures are never taken for a real
 * machine's. Whether the open library is the sample library is the engine's answer (LibraryInfo.sample);
 * a single manual is a sample when it was read from a samples/library folder or its publisher says
 * "(fictional)". Pure.
 */
import type { ManualInfo } from '../../../native/contract/index.js';

/** A manual read from the repository's samples/library folder, or published as fictional. */
export function isSampleManual(m: Pick<ManualInfo, 'source' | 'publisher'>): boolean {
  return /[\\/]samples[\\/]library[\\/]/.test(m.source ?? '') || /\(fictional\)/i.test(m.publisher ?? '');
}

/** Whether any manual in the list is not a sample (someone already added their own). */
export function hasOwnManuals(manuals: Pick<ManualInfo, 'source' | 'publisher'>[]): boolean {
  return manuals.some((m) => !isSampleManual(m));
}
