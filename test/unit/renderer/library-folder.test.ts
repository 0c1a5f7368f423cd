/** The library screen's folder pieces: the proposed folder of a new library, the switch's one line. */
import { describe, expect, it } from 'vitest';
import { proposedLibraryDir } from '../../../renderer/src/local/libraries.js';
import { openedNote, unfinishedVectors } from '../../../renderer/src/features/library/LibraryPage.js';
import type { LibraryInfo } from '../../../native/contract/index.js';

describe('a new library of ones own', () => {
  it('is proposed as "library" next to the sample library, with its separators', () => {
    expect(proposedLibraryDir('/home/tech/.manualdesk/sample-library')).toBe('/home/tech/.manualdesk/library');
    expect(proposedLibraryDir('/home/tech/.manualdesk/sample-library/')).toBe('/home/tech/.manualdesk/library');
    expect(proposedLibraryDir('C:\\Users\\tech\\.manualdesk\\sample-library')).toBe('C:\\Users\\tech\\.manualdesk\\library');
    expect(proposedLibraryDir('/sample-library')).toBe('/library');
  });

  it('the switch is said in one line: created, or opened with its size', () => {
    const info = { dir: '/srv/lib', formatVersion: 1, chunkerVersion: 4, embedder: null, files: 3, chunks: 9, codes: 0, vectorsPending: 0, modelToAdd: null, sample: false };
    expect(openedNote({ info, created: true })).toBe('Created your new library in /srv/lib.');
    expect(openedNote({ info, created: false })).toBe('Opened the library in /srv/lib (3 manual files).');
  });
});

describe('the "not indexed for meaning yet" notice', () => {
  const info = { vectorsPending: 113, modelMissing: null } as unknown as LibraryInfo;
  it('counts the passages an add left without vectors once the info read after it is shown', () => {
    expect(unfinishedVectors(info, false)).toBe(113);
  });
  it('says nothing while an add runs, or while the info shown is the one read before it ended (it still counts every new passage)', () => {
    expect(unfinishedVectors(info, true)).toBe(0);
  });
  it('says nothing when the library has no model here (another notice says so)', () => {
    expect(unfinishedVectors({ ...info, modelMissing: { id: 'onnx:x@1' } } as unknown as LibraryInfo, false)).toBe(0);
    expect(unfinishedVectors(null, false)).toBe(0);
  });
});
