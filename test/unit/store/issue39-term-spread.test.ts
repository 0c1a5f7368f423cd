/**
 * A term's spread over the library's documentation sets (top folders), which the gate reads as
 * "generic" when most sets use it: counted from the passages and the files' labels, root files
 * being no set, and counted again after a write.
 */
import { describe, expect, it } from 'vitest';
import { analyze } from '../../../native/text/analyze.js';
import { chunk, record, storePerTest } from './fixtures.js';

const { open } = storePerTest();
const term = (w: string) => analyze(w)[0] as string;

describe('LibraryStore.termSpread', () => {
  it('counts the documentation sets whose passages or labels (file, title) hold a term, and sees a write', async () => {
    const s = await open({ embedder: null, create: true });
    await s.replaceFile(record('lathe/a.md'), [chunk('lathe/a.md', 0, 'Adjust the pressure switch of the coolant pump.')], null, []);
    await s.replaceFile(record('press/b.md'), [chunk('press/b.md', 0, 'Adjust the ram pressure at the relief valve.')], null, []);
    await s.replaceFile(record('README.md'), [chunk('README.md', 0, 'Adjust nothing here.')], null, []);
    await s.replaceFile(record('kesta/arm.md', { title: 'Kesta arm' }), [chunk('kesta/arm.md', 0, 'Jog joint 3 to its mark.')], null, []);
    const r = await s.termSpread([term('adjust'), term('pressure'), term('coolant'), term('compressor'), term('kesta')]);
    expect(r.docSets).toEqual(['kesta', 'lathe', 'press']);
    expect(Object.fromEntries(r.spread)).toEqual({ [term('adjust')]: 2, [term('pressure')]: 2, [term('coolant')]: 1, [term('compressor')]: 0, [term('kesta')]: 1 });
    await s.replaceFile(record('kesta/arm.md', { title: 'Kesta arm' }), [chunk('kesta/arm.md', 0, 'Adjust the gripper pressure.')], null, []);
    const again = await s.termSpread([term('adjust'), term('pressure')]);
    expect(Object.fromEntries(again.spread)).toEqual({ [term('adjust')]: 3, [term('pressure')]: 3 });
  });
});
