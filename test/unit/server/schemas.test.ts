/** File and pack-id arguments at the HTTP/IPC boundary: what can never name a library file or pack is refused there. */
import { describe, expect, it } from 'vitest';
import { isLibraryFileName, packIdSchema, removeFilesSchema, sourceRequestSchema } from '../../../native/server/schemas.js';

describe('library file names', () => {
  it('accepts names as the library lists them', () => {
    for (const f of ['a.md', 'press-brake/hpb-200-rev-a.md', 'zh/手册.md', '..hidden-looking.md', 'a..b/c.pdf', 'x/y...z.txt']) {
      expect(isLibraryFileName(f), f).toBe(true);
      expect(sourceRequestSchema.safeParse({ file: f }).success, f).toBe(true);
    }
  });

  it('refuses absolute paths, drives, UNC paths and ".." steps', () => {
    for (const f of ['/etc/passwd', '../../etc/passwd', 'a/../../b.md', 'a/..', '..', 'C:\\Windows\\win.ini', 'c:/x.md', 'C:x.md', '\\\\server\\share\\m.pdf', '\\x']) {
      expect(isLibraryFileName(f), f).toBe(false);
      expect(sourceRequestSchema.safeParse({ file: f }).success, f).toBe(false);
      expect(removeFilesSchema.safeParse(['ok.md', f]).success, f).toBe(false);
    }
    // Backslash steps: separators on Windows only; on Linux `x\..\evil.md` is one legal file name (issue 15).
    for (const f of ['..\\..\\windows\\win.ini', 'x\\..\\evil.md']) {
      expect(isLibraryFileName(f, true), f).toBe(false);
      expect(isLibraryFileName(f, false), f).toBe(true);
    }
    const res = sourceRequestSchema.safeParse({ file: '../../etc/passwd' });
    expect(res.error?.issues[0]?.message).toMatch(/as the library lists it/);
  });

  it('pack ids follow the pack format (no path steps)', () => {
    expect(packIdSchema.safeParse({ id: 'plant-manuals' }).success).toBe(true);
    expect(packIdSchema.safeParse({ id: 'acme.models_2' }).success).toBe(true);
    for (const id of ['', '..', '../x', 'a/b', 'A', '-x', 'x'.repeat(65), ' a', 'a\0']) {
      expect(packIdSchema.safeParse({ id }).success, id).toBe(false);
    }
  });

  it('openSource names the installed pack a file comes from, as a pack id', () => {
    expect(sourceRequestSchema.parse({ file: 'press/hx-500.pdf', pack: 'plant-manuals' })).toEqual({ file: 'press/hx-500.pdf', pack: 'plant-manuals' });
    expect(sourceRequestSchema.parse({ file: 'a.md', pack: 'local' })).toEqual({ file: 'a.md', pack: 'local' });
    expect(sourceRequestSchema.parse({ file: 'a.md' })).toEqual({ file: 'a.md' });
    for (const pack of ['', '..', '../x', 'a/b', 'A', '-x', 'x'.repeat(65), 'a\0', 42, null]) {
      const res = sourceRequestSchema.safeParse({ file: 'a.md', pack });
      expect(res.success, String(pack)).toBe(false);
      expect(res.error?.issues[0]?.path).toEqual(['pack']);
    }
    expect(sourceRequestSchema.safeParse({ file: 'a.md', pack: 'x', extra: 1 }).success).toBe(false);
  });
});
