/**
 * Issue 41 item 3 (names), found on the new-user walkthrough: two documentation sets added from two
 * folders, and the answer's source said only "Troubleshooting" or "Calibration": which product's?
 */
import { describe, expect, it } from 'vitest';
import { folderNames } from '../../../renderer/src/ui/folder.js';

const m = (file: string, title: string, folder: string | null) => ({ file, title, folder });

describe('the folder beside a manual title', () => {
  it('names the folder each manual was added from when the library has several', () => {
    const names = folderNames([
      m('troubleshooting.md', 'Troubleshooting', '/home/tech/docs/kessel-mc40'),
      m('calibration.md', 'Calibration', '/home/tech/docs/kessel-mc40/'),
      m('maintenance.html', 'Tarn CV-200 belt conveyor', '/home/tech/docs/tarn-cv200'),
    ]);
    expect(names.get('troubleshooting.md')).toBe('kessel-mc40');
    expect(names.get('calibration.md')).toBe('kessel-mc40');
    // The title says it already ("Tarn CV-200 …" from tarn-cv200).
    expect(names.has('maintenance.html')).toBe(false);
  });

  it('says nothing when every manual comes from one folder, or the folder is not known', () => {
    expect(folderNames([m('a.md', 'Troubleshooting', '/docs/press'), m('b.md', 'Calibration', '/docs/press')]).size).toBe(0);
    expect(folderNames([m('a.md', 'Troubleshooting', null), m('b.md', 'Calibration', '/docs/press')]).size).toBe(0);
  });
});
