/** Issue 37 item 1: what a manual's key is and how a name given on the command line finds it (library/identity.ts). */
import { describe, expect, it } from 'vitest';
import { ingestRoot, newKey, relativePath, resolveManualNames } from '../../../native/library/identity.js';

describe('the folder a manual came from', () => {
  it('is the recorded one; in older records, the source less the key', () => {
    expect(ingestRoot({ file: 'vendorB/README.md', source: '/x/vendorB/README.md', root: '/x/vendorB' })).toBe('/x/vendorB');
    expect(ingestRoot({ file: 'guides/pump.md', source: '/media/usb/acme/guides/pump.md' })).toBe('/media/usb/acme');
    expect(ingestRoot({ file: 'README.md', source: '/README.md' })).toBe('/');
    expect(ingestRoot({ file: 'vmc/manual.pdf', source: 'D:\\manuals\\vmc\\manual.pdf' })).toBe('D:\\manuals');
    // A source that does not end with the key: its own folder.
    expect(ingestRoot({ file: 'other.md', source: '/x/a/b.md' })).toBe('/x/a');
    // A pack's documents have no folder of the publisher's.
    expect(ingestRoot({ file: 'a.md', source: 'documents/a.md' })).toBeNull();
  });

  it('gives the path below it (the key itself in older records)', () => {
    expect(relativePath({ file: 'vendorB/sub/x.md', source: '/x/vendorB/sub/x.md', root: '/x/vendorB' })).toBe('sub/x.md');
    expect(relativePath({ file: 'sub/x.md', source: '/x/vendorA/sub/x.md' })).toBe('sub/x.md');
  });
});

describe('a new key', () => {
  it('is the path below the folder, or prefixed with the folder name (numbered) when taken', () => {
    const taken = new Set(['README.md']);
    expect(newKey('guide.md', '/x/vendorB', (k) => taken.has(k))).toBe('guide.md');
    expect(newKey('README.md', '/x/vendorB', (k) => taken.has(k))).toBe('vendorB/README.md');
    taken.add('vendorB/README.md');
    expect(newKey('README.md', '/y/vendorB', (k) => taken.has(k))).toBe('vendorB-2/README.md');
    expect(newKey('README.md', '/', (k) => taken.has(k))).toBe('folder/README.md');
  });
});

describe('names given to remove', () => {
  const manuals = [
    { file: 'README.md', source: '/x/vendorA/README.md', folder: '/x/vendorA' },
    { file: 'vendorB/README.md', source: '/x/vendorB/README.md', folder: '/x/vendorB' },
    { file: 'guides/pump.md', source: '/x/vendorA/guides/pump.md', folder: '/x/vendorA' },
  ];

  it('take the key, the full path, or a path below its folder that only one manual has', () => {
    expect(resolveManualNames(['vendorB/README.md'], manuals)).toEqual(['vendorB/README.md']);
    expect(resolveManualNames(['/x/vendorA/README.md'], manuals)).toEqual(['README.md']);
    expect(resolveManualNames(['guides/pump.md', '/x/vendorA/guides/pump.md'], manuals)).toEqual(['guides/pump.md']);
  });

  it('refuse a name two manuals answer to, listing both', () => {
    expect(() => resolveManualNames(['README.md'], manuals)).toThrow(/"README\.md" names 2 manuals: README\.md \(\/x\/vendorA\/README\.md\); vendorB\/README\.md \(\/x\/vendorB\/README\.md\)/);
  });

  it('refuse a name no manual has', () => {
    expect(() => resolveManualNames(['nope.md'], manuals)).toThrow(/Not in the library: nope\.md/);
  });
});
