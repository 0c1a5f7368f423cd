/**
 * Manual and model packs end to end on the engine: build → verify → import → search, signatures and
 * trust, every hostile pack (each refused with its code and the library byte-for-byte unchanged),
 * update / rollback / remove, split parts, full disk, model packs.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { SourceDocument } from '../../native/contract/api.js';
import type { Result } from '../../native/contract/errors.js';
import { createEngine, type Engine } from '../../native/engine.js';
import { buildPack } from '../../native/packs/build.js';
import { generateKeys, trustKey } from '../../native/packs/keys.js';
import { packFailpoints } from '../../native/packs/failpoints.js';
import { resolveParts } from '../../native/packs/parts.js';
import { ANALYZER_VERSION, MIN_SEARCHABLE_ANALYZER } from '../../native/text/analyze.js';
import { runCli } from '../../native/cli/main.js';
import { cleanupTemp, flipByteOf, newKey, readEntries, remake, sha256, tempDir, treeHash, writeEntries, writeManuals, type RawEntry } from './packs-helpers.js';

function value<T>(res: Result<T>): T {
  if (!res.ok) expect.fail(`expected ok, got ${res.error.code}: ${res.error.message}`);
  return res.value;
}
function failure<T>(res: Result<T>): { code: string; message: string } {
  if (res.ok) expect.fail(`expected an error, got ok`);
  return res.error;
}

const QUERIES = ['hydraulic oil change', 'belt runs to one side', 'gripper vacuum low', 'E-102', 'bleed the cylinder air'];

let root: string;
let keys: { privateKey: string; publicKey: string; fingerprint: string };
let sourceV1: string;
let sourceV2: string;
let packV1: string;
let packV2: string;
let unsigned: string;
const open: Engine[] = [];

async function engineFor(libraryDir: string): Promise<Engine> {
  const e = await createEngine({ libraryDir, embedder: { kind: 'none' } });
  open.push(e);
  return e;
}

async function closeAll(): Promise<void> {
  for (const e of open.splice(0)) await e.close();
}

/** A library with its own manual and the v1 pack installed; signer trusted. */
async function siteWithPack(): Promise<string> {
  const lib = path.join(tempDir('site'), 'library');
  const own = writeOwnManual(tempDir('own'));
  const e = await createEngine({ libraryDir: lib, embedder: { kind: 'none' }, create: true });
  value(await e.ingest({ paths: [own] }));
  await trustKey(keys.publicKey, lib);
  value(await e.importPack({ file: packV1 }));
  await e.close();
  return lib;
}

function writeOwnManual(dir: string): string {
  fs.writeFileSync(path.join(dir, 'site-notes.md'), '# Site notes\n\n## Compressor\n\nDrain the compressor tank condensate every Friday.\n');
  return dir;
}

beforeAll(async () => {
  root = tempDir('root');
  keys = await generateKeys(path.join(root, 'keys'));
  sourceV1 = writeManuals(path.join(root, 'src1'), 1);
  sourceV2 = writeManuals(path.join(root, 'src2'), 2);
  packV1 = path.join(root, 'plant-v1.mdpack');
  packV2 = path.join(root, 'plant-v2.mdpack');
  unsigned = path.join(root, 'plant-unsigned.mdpack');
  const common = { id: 'plant-manuals', name: 'Plant manuals', publisher: 'Fictional Works', embedder: { kind: 'none' as const } };
  await buildPack({ ...common, source: sourceV1, out: packV1, version: '1.0', keyFile: keys.privateKey });
  await buildPack({ ...common, source: sourceV2, out: packV2, version: '1.1', keyFile: keys.privateKey });
  await buildPack({ ...common, source: sourceV1, out: unsigned, version: '1.0' });
});

afterEach(async () => {
  await closeAll();
  delete packFailpoints.freeBytes;
});

afterAll(() => cleanupTemp());

describe('round trip', () => {
  it('build → verify → import → search gives the same results as the library the pack was built from', async () => {
    const built = path.join(tempDir('built'), 'library');
    const src = await createEngine({ libraryDir: built, embedder: { kind: 'none' }, create: true });
    open.push(src);
    value(await src.ingest({ paths: [sourceV1] }));

    const report = value(await src.verifyPack({ file: packV1 }));
    expect(report.signature).toBe('valid');
    expect(report.checksums.failed).toEqual([]);
    expect(report.checksums.checked).toBeGreaterThan(5);
    expect(report.trusted).toBe(false); // not trusted in that library yet
    expect(report.ok).toBe(false);

    const site = path.join(tempDir('clean'), 'library');
    fs.mkdirSync(site, { recursive: true });
    await trustKey(keys.publicKey, site);
    const eng = await engineFor(site);
    const progress: string[] = [];
    const info = value(await eng.importPack({ file: packV1 }, { onProgress: (p) => progress.push(p.phase) }));
    expect(info).toMatchObject({ id: 'plant-manuals', active: '1.0', versions: ['1.0'], unverified: false, kind: 'manuals' });
    expect(info.signer).toEqual({ fingerprint: keys.fingerprint, trusted: true });
    expect(progress).toContain('stage');

    for (const q of QUERIES) {
      const a = value(await src.search({ query: q, k: 5 })).hits.map((h) => [h.file, h.chunkId, h.text, h.kind]);
      const hits = value(await eng.search({ query: q, k: 5 })).hits;
      expect(hits.length).toBeGreaterThan(0);
      expect(hits.map((h) => [h.file, h.chunkId, h.text, h.kind])).toEqual(a);
      expect(hits.every((h) => h.pack === 'plant-manuals')).toBe(true);
    }
    const code = value(await eng.lookupCode({ text: 'E-102' }));
    expect(code.matches[0]).toMatchObject({ code: 'E-102', pack: 'plant-manuals' });
    expect(value(await eng.listPacks()).map((p) => p.id)).toEqual(['plant-manuals']);
    // The documents travel for the viewer.
    const doc = path.join(site, 'packs', 'plant-manuals', '1.0', 'documents', 'press', 'hx-500.md');
    expect(fs.readFileSync(doc, 'utf8')).toBe(fs.readFileSync(path.join(sourceV1, 'press', 'hx-500.md'), 'utf8'));
  });

  it('searches the local library and packs together, and filters by pack', async () => {
    const lib = await siteWithPack();
    const eng = await engineFor(lib);
    const both = value(await eng.search({ query: 'drain compressor tank', k: 10 })).hits;
    expect(both[0]?.file).toBe('site-notes.md');
    expect(both[0]?.pack).toBeUndefined();
    const mixed = value(await eng.search({ query: 'drain oil tank', k: 10 })).hits;
    expect(new Set(mixed.map((h) => h.pack ?? 'local'))).toEqual(new Set(['local', 'plant-manuals']));
    const onlyPack = value(await eng.search({ query: 'drain compressor tank', k: 10, filters: { packs: ['plant-manuals'] } })).hits;
    expect(onlyPack.some((h) => h.file === 'site-notes.md')).toBe(false);
    const onlyLocal = value(await eng.search({ query: 'hydraulic oil', k: 10, filters: { packs: ['local'] } })).hits;
    expect(onlyLocal.some((h) => h.pack)).toBe(false);
    expect(value(await eng.lookupCode({ text: 'E-101', filters: { packs: ['local'] } })).matches).toEqual([]);
    expect(value(await eng.lookupCode({ text: 'E-101', filters: { packs: ['plant-manuals'] } })).matches).toHaveLength(1);
    expect(failure(await eng.search({ query: 'oil', filters: { packs: ['nope'] } })).code).toBe('INVALID_INPUT');
  });

  it('leaves a pack that was damaged on disk out of search, says so, and keeps answering from the rest', async () => {
    const lib = await siteWithPack();
    const [entry] = fs.readdirSync(path.join(lib, 'packs', 'plant-manuals')).filter((v) => !v.startsWith('.'));
    fs.writeFileSync(path.join(lib, 'packs', 'plant-manuals', entry as string, 'library', 'library.json'), '{ damaged');
    const eng = await engineFor(lib);
    const hits = value(await eng.search({ query: 'drain compressor tank', k: 10 })).hits;
    expect(hits[0]?.file).toBe('site-notes.md');
    expect(hits.some((h) => h.pack)).toBe(false);
    const [info] = value(await eng.listPacks());
    expect(info?.id).toBe('plant-manuals');
    expect(info?.problem).toMatch(/could not be opened.*Import the pack again/);
  });
});

describe('signatures and trust', () => {
  it('refuses an unsigned pack unless allowed, then marks it unverified', async () => {
    const lib = path.join(tempDir('u'), 'library');
    const eng = await createEngine({ libraryDir: lib, embedder: { kind: 'none' }, create: true });
    open.push(eng);
    value(await eng.ingest({ paths: [writeOwnManual(tempDir('own'))] }));
    const before = treeHash(lib);
    expect(failure(await eng.importPack({ file: unsigned })).code).toBe('PACK_UNTRUSTED');
    expect(treeHash(lib)).toBe(before);
    const info = value(await eng.importPack({ file: unsigned, allowUnsigned: true }));
    expect(info.unverified).toBe(true);
    expect(info.signer).toBeNull();
    expect(value(await eng.listPacks())[0]?.unverified).toBe(true);
  });

  it('refuses a pack signed by an untrusted key; allowed explicitly it is unverified', async () => {
    const lib = path.join(tempDir('t'), 'library');
    const eng = await createEngine({ libraryDir: lib, embedder: { kind: 'none' }, create: true });
    open.push(eng);
    value(await eng.ingest({ paths: [writeOwnManual(tempDir('own'))] }));
    const before = treeHash(lib);
    const err = failure(await eng.importPack({ file: packV1 }));
    expect(err.code).toBe('PACK_UNTRUSTED');
    expect(err.message).toContain(keys.fingerprint);
    expect(treeHash(lib)).toBe(before);
    const info = value(await eng.importPack({ file: packV1, allowUnsigned: true }));
    expect(info.unverified).toBe(true);
    expect(info.signer?.trusted).toBe(false);
  });
});

describe('hostile and broken packs change nothing', () => {
  let lib: string;
  beforeAll(async () => {
    lib = await siteWithPack();
  });

  const refused = async (file: string, code: string, opts: { allowUnsigned?: boolean } = {}) => {
    const before = treeHash(lib);
    const eng = await engineFor(lib);
    const err = failure(await eng.updatePack({ file, ...opts }));
    expect(err.code).toBe(code);
    expect(err.message.length).toBeGreaterThan(20);
    await closeAll();
    expect(treeHash(lib)).toBe(before);
    // Still searchable as before.
    const again = await engineFor(lib);
    expect(value(await again.listPacks())[0]).toMatchObject({ active: '1.0' });
    await closeAll();
    return err;
  };
  const trustedKey = () => {
    const k = newKey();
    const pub = path.join(tempDir('k'), 'public.pem');
    fs.writeFileSync(pub, k.publicPem);
    return { k, pub };
  };

  it.each([
    ['../evil.txt'],
    ['documents/../../evil.txt'],
    ['/etc/evil.txt'],
    ['documents\\..\\evil.txt'],
    ['C:/evil.txt'],
  ])('path traversal: %s', async (bad) => {
    const out = path.join(tempDir('h'), 'p.mdpack');
    await remake(packV2, out, (_m, entries) => [...entries.slice(0, 2), { path: bad, data: Buffer.from('x') }, ...entries.slice(2)], null);
    const err = await refused(out, 'PACK_INVALID');
    expect(err.message).toMatch(/path|segment|backslash|drive/);
  });

  it('a traversal path listed in a (re-signed) manifest', async () => {
    const { k, pub } = trustedKey();
    await trustKey(pub, lib);
    const out = path.join(tempDir('h'), 'p.mdpack');
    await remake(
      packV2,
      out,
      (m, entries) => {
        const data = Buffer.from('evil');
        (m.files as unknown[]).push({ path: 'documents/../../evil.txt', size: 4, sha256: sha256(data) });
        return [...entries, { path: 'documents/../../evil.txt', data }];
      },
      k,
    );
    await refused(out, 'PACK_INVALID');
  });

  it.each([
    ['symbolic link', 'SymbolicLink' as const],
    ['hard link', 'Link' as const],
  ])('%s entry', async (_name, type) => {
    const out = path.join(tempDir('h'), 'p.mdpack');
    await remake(packV2, out, (_m, entries) => [{ path: 'documents/link.md', data: Buffer.alloc(0), type, linkpath: '/etc/passwd' }, ...entries], null);
    const err = await refused(out, 'PACK_INVALID');
    expect(err.message).toContain('link');
  });

  it('duplicate entries', async () => {
    const out = path.join(tempDir('h'), 'p.mdpack');
    await remake(packV2, out, (_m, entries) => [...entries, entries[0] as RawEntry], null);
    const err = await refused(out, 'PACK_INVALID');
    expect(err.message).toContain('twice');
  });

  it('size bomb: an entry larger than the manifest says', async () => {
    const out = path.join(tempDir('h'), 'p.mdpack');
    await remake(packV2, out, (_m, entries) => entries.map((e, i) => (i === 0 ? { ...e, data: Buffer.concat([e.data, Buffer.alloc(4096)]) } : e)), null);
    const err = await refused(out, 'PACK_INVALID');
    expect(err.message).toContain('bytes');
  });

  it('size bomb: a manifest declaring a huge entry', async () => {
    const out = path.join(tempDir('h'), 'p.mdpack');
    const entries = await readEntries(packV2);
    entries[0] = { ...(entries[0] as RawEntry), size: 40 * 1024 * 1024 }; // header claims 40 MB of manifest
    writeEntries(out, entries.slice(0, 1), { end: false });
    await refused(out, 'PACK_INVALID');
  });

  it('file-count bomb: a manifest listing more files than allowed', async () => {
    const { k, pub } = trustedKey();
    await trustKey(pub, lib);
    const out = path.join(tempDir('h'), 'p.mdpack');
    await remake(
      packV2,
      out,
      (m) => {
        const files = m.files as { path: string; size: number; sha256: string }[];
        const f = files[0] as { path: string; size: number; sha256: string };
        for (let i = 0; i < 200_001; i++) files.push({ ...f, path: `documents/x/${i}.md` });
      },
      k,
    );
    await refused(out, 'PACK_INVALID');
  });

  it('truncated pack', async () => {
    const out = path.join(tempDir('h'), 'p.mdpack');
    const buf = fs.readFileSync(packV2);
    fs.writeFileSync(out, buf.subarray(0, Math.floor(buf.length * 0.6)));
    const err = await refused(out, 'PACK_INVALID');
    expect(err.message).toMatch(/truncated|ends/);
  });

  it('a changed byte in a document', async () => {
    const out = path.join(tempDir('h'), 'p.mdpack');
    fs.copyFileSync(packV2, out);
    flipByteOf(out, 'Test the light curtain interlock');
    const err = await refused(out, 'PACK_CHECKSUM');
    expect(err.message).toContain('documents/press/hx-500-safety.md');
  });

  it('a changed byte in the index', async () => {
    const out = path.join(tempDir('h'), 'p.mdpack');
    const entries = await readEntries(packV2);
    const idx = entries.findIndex((e) => e.path.startsWith('library/lance/') && e.data.length > 64);
    const target = entries[idx] as RawEntry;
    const data = Buffer.from(target.data);
    data[data.length >> 1] = (data[data.length >> 1] as number) ^ 0xff;
    entries[idx] = { ...target, data };
    writeEntries(out, entries);
    const err = await refused(out, 'PACK_CHECKSUM');
    expect(err.message).toContain(target.path);
  });

  it('a changed byte in the manifest', async () => {
    const out = path.join(tempDir('h'), 'p.mdpack');
    fs.copyFileSync(packV2, out);
    flipByteOf(out, '"publisher":"Fictional Works"', 14);
    await refused(out, 'PACK_SIGNATURE');
  });

  it('a wrong signature (made by another key, with the trusted key attached)', async () => {
    const other = newKey();
    const out = path.join(tempDir('h'), 'p.mdpack');
    const entries = await readEntries(packV2);
    const manifest = (entries[0] as RawEntry).data;
    const { sign } = await import('node:crypto');
    entries[1] = { path: 'manifest.sig', data: Buffer.from(sign(null, manifest, other.privateKey).toString('base64')) };
    writeEntries(out, entries);
    await refused(out, 'PACK_SIGNATURE');
  });

  it('an untrusted key', async () => {
    const out = path.join(tempDir('h'), 'p.mdpack');
    await remake(packV2, out, () => undefined, newKey());
    await refused(out, 'PACK_UNTRUSTED');
  });

  it('an unknown future format version', async () => {
    const { k, pub } = trustedKey();
    await trustKey(pub, lib);
    const out = path.join(tempDir('h'), 'p.mdpack');
    await remake(packV2, out, (m) => void (m.formatVersion = 2), k);
    const err = await refused(out, 'PACK_FORMAT');
    expect(err.message).toContain('format 2');
  });

  it('a library indexed by a newer analyzer than this one reads', async () => {
    const { k, pub } = trustedKey();
    await trustKey(pub, lib);
    const out = path.join(tempDir('h'), 'p.mdpack');
    await remake(packV2, out, (m) => void ((m.library as Record<string, unknown>).analyzerVersion = ANALYZER_VERSION + 1), k);
    const err = await refused(out, 'PACK_FORMAT');
    expect(err.message).toContain(`analyzer ${ANALYZER_VERSION + 1}`);
  });

  it('an embedding model that does not match the library', async () => {
    const { k, pub } = trustedKey();
    await trustKey(pub, lib);
    const out = path.join(tempDir('h'), 'p.mdpack');
    await remake(packV2, out, (m) => void ((m.library as Record<string, unknown>).embedder = { id: 'onnx:Xenova/bge-m3@0123abcd', dims: 1024, files: [] }), k);
    await refused(out, 'EMBEDDER_MISMATCH');
  });

  it('not enough disk space (checked before copying)', async () => {
    packFailpoints.freeBytes = () => 10_000;
    const err = await refused(packV2, 'DISK_FULL');
    expect(err.message).toMatch(/free/);
  });

  it('a cancelled import', async () => {
    const before = treeHash(lib);
    const eng = await engineFor(lib);
    const ac = new AbortController();
    ac.abort();
    expect(failure(await eng.updatePack({ file: packV2 }, { signal: ac.signal })).code).toBe('CANCELLED');
    await closeAll();
    expect(treeHash(lib)).toBe(before);
  });

  it('verify reports checksum failures without installing', async () => {
    const out = path.join(tempDir('h'), 'p.mdpack');
    fs.copyFileSync(packV2, out);
    flipByteOf(out, 'Test the light curtain interlock');
    const eng = await engineFor(lib);
    const r = value(await eng.verifyPack({ file: out }));
    expect(r.ok).toBe(false);
    expect(r.signature).toBe('valid');
    expect(r.trusted).toBe(true);
    expect(r.checksums.failed).toEqual(['documents/press/hx-500-safety.md']);
    expect(r.error?.code).toBe('PACK_CHECKSUM');
  });
});

describe('a clean library and embedders', () => {
  it('an empty library refuses a pack whose embedding model is not installed', async () => {
    const { k, pub } = (() => {
      const k = newKey();
      const pub = path.join(tempDir('k'), 'public.pem');
      fs.writeFileSync(pub, k.publicPem);
      return { k, pub };
    })();
    const lib = path.join(tempDir('e'), 'library');
    fs.mkdirSync(lib);
    await trustKey(pub, lib);
    const out = path.join(tempDir('h'), 'p.mdpack');
    await remake(packV1, out, (m) => void ((m.library as Record<string, unknown>).embedder = { id: 'onnx:Xenova/bge-m3@0123abcd', dims: 1024, files: [] }), k);
    const eng = await engineFor(lib);
    expect(failure(await eng.importPack({ file: out })).code).toBe('MODEL_MISSING');
    expect(fs.existsSync(path.join(lib, 'packs'))).toBe(false);
  });
});

describe('the source viewer opens pack documents', () => {
  const text = (doc: SourceDocument) => (doc.kind === 'blocks' ? doc.blocks.map((b) => b.text).join('\n') : '');

  it('opens a search hit from a pack at its document, and says clearly when it cannot', async () => {
    const lib = await siteWithPack();
    const eng = await engineFor(lib);
    // "palletising" is only in the pack's robot manual, never in the site's own notes.
    const hit = value(await eng.search({ query: 'palletising robot gripper vacuum', k: 5 })).hits[0];
    expect(hit).toMatchObject({ file: 'robot/ra-7.txt', pack: 'plant-manuals' });
    const doc = value(await eng.openSource({ file: hit!.file, pack: hit!.pack }));
    expect(doc).toMatchObject({ kind: 'blocks', file: 'robot/ra-7.txt', changed: false, format: 'text' });
    expect(text(doc)).toContain('Gripper vacuum low: clean the suction cups');
    expect(text(doc)).toBe(text(value(await eng.openSource({ file: hit!.file, pack: hit!.pack }))));

    // The site's own library: no pack, or "local".
    expect(text(value(await eng.openSource({ file: 'site-notes.md' })))).toContain('Drain the compressor tank');
    expect(text(value(await eng.openSource({ file: 'site-notes.md', pack: 'local' })))).toContain('Drain the compressor tank');
    // Each source answers only for its own files.
    expect(failure(await eng.openSource({ file: 'robot/ra-7.txt' })).code).toBe('NOT_FOUND');
    const notInPack = failure(await eng.openSource({ file: 'site-notes.md', pack: 'plant-manuals' }));
    expect(notInPack.code).toBe('NOT_FOUND');
    expect(notInPack.message).toMatch(/not in pack plant-manuals 1\.0/);
    const noPack = failure(await eng.openSource({ file: 'robot/ra-7.txt', pack: 'other-manuals' }));
    expect(noPack.code).toBe('NOT_FOUND');
    expect(noPack.message).toMatch(/Import the pack again or search again/);

    // A document edited in the pack folder is shown, marked changed; a missing one is a clear error.
    const onDisk = path.join(lib, 'packs', 'plant-manuals', '1.0', 'documents', 'robot', 'ra-7.txt');
    fs.appendFileSync(onDisk, 'Edited on site.\n');
    const edited = value(await eng.openSource({ file: 'robot/ra-7.txt', pack: 'plant-manuals' }));
    expect(edited.changed).toBe(true);
    expect(text(edited)).toContain('Edited on site.');
    fs.rmSync(onDisk);
    const missing = failure(await eng.openSource({ file: 'robot/ra-7.txt', pack: 'plant-manuals' }));
    expect(missing.code).toBe('FILE_UNREADABLE');
    expect(missing.message).toMatch(/missing from pack plant-manuals.*re-import the pack/);
    // Other documents of the pack still open.
    expect(text(value(await eng.openSource({ file: 'press/hx-500.md', pack: 'plant-manuals' })))).toContain('Bleeding the cylinder');

    value(await eng.removePack({ id: 'plant-manuals' }));
    expect(failure(await eng.openSource({ file: 'press/hx-500.md', pack: 'plant-manuals' })).code).toBe('NOT_FOUND');
  });

  it('answers cite the pack their passages and code rows come from, and the citations open', async () => {
    const lib = await siteWithPack();
    const eng = await engineFor(lib);
    const res = value(await eng.ask({ question: 'How do I bleed the air from the press cylinder?', prefer: 'extractive' }));
    const cited = res.citations.find((c) => c.file === 'press/hx-500.md');
    expect(cited?.pack).toBe('plant-manuals');
    const doc = value(await eng.openSource({ file: cited!.file, pack: cited!.pack }));
    expect(text(doc)).toContain(cited!.text.split('\n').at(-1)!.slice(0, 40));

    const code = value(await eng.ask({ question: 'What does fault E-102 mean?', prefer: 'extractive' }));
    const row = code.citations.find((c) => c.kind === 'code');
    expect(row).toMatchObject({ file: 'press/hx-500.md', pack: 'plant-manuals' });
    expect(value(await eng.openSource({ file: row!.file, pack: row!.pack })).kind).toBe('blocks');

    const own = value(await eng.ask({ question: 'How often is the compressor tank condensate drained?', prefer: 'extractive' }));
    const local = own.citations.find((c) => c.file === 'site-notes.md');
    expect(local).toBeDefined();
    expect(local).not.toHaveProperty('pack');
  });

  it('a pack indexed by an older analyzer that this one still searches is installed and searched', async () => {
    const k = newKey();
    const pub = path.join(tempDir('k'), 'public.pem');
    fs.writeFileSync(pub, k.publicPem);
    const lib = await siteWithPack();
    await trustKey(pub, lib);
    const out = path.join(tempDir('h'), 'p.mdpack');
    await remake(packV2, out, (m) => void ((m.library as Record<string, unknown>).analyzerVersion = MIN_SEARCHABLE_ANALYZER), k);
    const eng = await engineFor(lib);
    value(await eng.updatePack({ file: out }));
    expect(value(await eng.listPacks())[0]).toMatchObject({ active: '1.1' });
    expect(value(await eng.search({ query: 'compressor', k: 3 })).hits.length).toBeGreaterThan(0);
  });

  it('a PDF from a pack comes back byte for byte', async () => {
    const src = tempDir('pdfsrc');
    fs.mkdirSync(path.join(src, 'lift'));
    const pdf = fs.readFileSync(path.join(import.meta.dirname, '..', 'fixtures', 'manuals', 'lift', 'sl3-scissor-lift.pdf'));
    fs.writeFileSync(path.join(src, 'lift', 'sl3.pdf'), pdf);
    const out = path.join(tempDir('pdfpack'), 'lift.mdpack');
    await buildPack({ id: 'lift-manuals', name: 'Lifts', publisher: 'Fictional Works', embedder: { kind: 'none' }, source: src, out, version: '1', keyFile: keys.privateKey });
    const lib = await siteWithPack();
    const eng = await engineFor(lib);
    value(await eng.importPack({ file: out }));
    const hit = value(await eng.search({ query: 'emergency lowering knob', k: 3 })).hits[0];
    expect(hit).toMatchObject({ file: 'lift/sl3.pdf', pack: 'lift-manuals' });
    const doc = value(await eng.openSource({ file: hit!.file, pack: hit!.pack }));
    expect(doc).toMatchObject({ kind: 'pdf', file: 'lift/sl3.pdf', changed: false });
    expect(doc.kind === 'pdf' && sha256(Buffer.from(doc.base64, 'base64'))).toBe(sha256(pdf));
    // Same file name, other pack: the name alone never crosses sources.
    expect(failure(await eng.openSource({ file: 'lift/sl3.pdf', pack: 'plant-manuals' })).code).toBe('NOT_FOUND');
  });

  it('never reads outside the pack documents folder, even for a record edited by hand', async () => {
    const lib = await siteWithPack();
    const filesJson = path.join(lib, 'packs', 'plant-manuals', '1.0', 'library', 'files.json');
    const data = JSON.parse(fs.readFileSync(filesJson, 'utf8')) as { files: { file: string }[] };
    const escape = '../../../../outside.md';
    fs.writeFileSync(path.join(lib, 'outside.md'), '# Outside\n\nNot a pack document.\n');
    data.files.push({ ...(data.files[0] as { file: string }), file: escape });
    fs.writeFileSync(filesJson, JSON.stringify(data));
    const eng = await engineFor(lib);
    const err = failure(await eng.openSource({ file: escape, pack: 'plant-manuals' }));
    expect(value(await eng.listPacks())[0]?.problem).toBeUndefined(); // the pack opened: the path check refused it
    expect(err.code).toBe('NOT_FOUND');
    expect(err.message).toMatch(/does not name a document inside pack plant-manuals/);
  });
});

describe('update, rollback, remove', () => {
  it('keeps the older version for rollback and removes for real', async () => {
    const lib = await siteWithPack();
    const eng = await engineFor(lib);
    const safety = async () => value(await eng.search({ query: 'light curtain interlock', k: 3 })).hits.some((h) => h.file === 'press/hx-500-safety.md');
    expect(await safety()).toBe(false);
    expect(failure(await eng.importPack({ file: packV2 })).code).toBe('INVALID_INPUT'); // already installed: update it
    const up = value(await eng.updatePack({ file: packV2 }));
    expect(up).toMatchObject({ active: '1.1', versions: ['1.1', '1.0'] });
    expect(await safety()).toBe(true);
    expect(failure(await eng.updatePack({ file: packV1 })).code).toBe('INVALID_INPUT'); // not newer

    const back = value(await eng.rollbackPack({ id: 'plant-manuals' }));
    expect(back).toMatchObject({ active: '1.0', versions: ['1.0'] });
    expect(await safety()).toBe(false);
    expect(fs.existsSync(path.join(lib, 'packs', 'plant-manuals', '1.1'))).toBe(false);
    expect(failure(await eng.rollbackPack({ id: 'plant-manuals' })).code).toBe('INVALID_INPUT');

    expect(value(await eng.removePack({ id: 'plant-manuals' }))).toEqual({ removed: 'plant-manuals' });
    expect(value(await eng.listPacks())).toEqual([]);
    expect(fs.existsSync(path.join(lib, 'packs', 'plant-manuals'))).toBe(false);
    expect(value(await eng.search({ query: 'hydraulic oil', k: 5 })).hits.some((h) => h.pack)).toBe(false);
    expect(failure(await eng.removePack({ id: 'plant-manuals' })).code).toBe('NOT_FOUND');
  });
});

describe('split packs', () => {
  it('writes parts under the split size and imports them as one', async () => {
    const out = path.join(tempDir('split'), 'plant.mdpack');
    const res = await buildPack({ id: 'plant-manuals', version: '1.0', source: sourceV1, out, keyFile: keys.privateKey, splitSize: 16 * 1024 });
    expect(res.parts.length).toBeGreaterThan(2);
    expect(res.parts[0]).toBe(`${out}.001`);
    for (const p of res.parts) expect(fs.statSync(p).size).toBeLessThanOrEqual(16 * 1024);
    expect(resolveParts(out).parts).toEqual(res.parts);
    expect(fs.readFileSync(res.parts.at(-1) as string).length).toBeGreaterThan(0);
    const lib = path.join(tempDir('split-lib'), 'library');
    fs.mkdirSync(lib);
    await trustKey(keys.publicKey, lib);
    const eng = await engineFor(lib);
    value(await eng.importPack({ file: `${out}.001` }));
    expect(value(await eng.search({ query: 'gripper vacuum', k: 1 })).hits[0]?.file).toBe('robot/ra-7.txt');
    // A missing middle part is a truncated pack.
    fs.rmSync(res.parts[1] as string);
    const r = value(await eng.verifyPack({ file: out }));
    expect(r.ok).toBe(false);
  });
});

describe('model packs', () => {
  it('installs models into the user models folder with every hash checked', async () => {
    const src = tempDir('models-src');
    const model = path.join(src, 'Acme', 'tiny-embed');
    fs.mkdirSync(path.join(model, 'onnx'), { recursive: true });
    fs.writeFileSync(path.join(model, 'config.json'), '{"hidden_size": 8}');
    fs.writeFileSync(path.join(model, 'onnx', 'model.onnx'), Buffer.alloc(50_000, 7));
    const out = path.join(tempDir('mp'), 'models.mdpack');
    const built = await buildPack({ id: 'acme-models', version: '2024.1', kind: 'models', source: src, out, keyFile: keys.privateKey });
    expect(built.manifest.models).toEqual([expect.objectContaining({ id: 'Acme/tiny-embed' })]);

    const modelsDir = tempDir('models-home');
    const prev = process.env.MANUALDESK_MODELS;
    process.env.MANUALDESK_MODELS = modelsDir;
    try {
      const lib = path.join(tempDir('ml'), 'library');
      fs.mkdirSync(lib);
      await trustKey(keys.publicKey, lib);
      const bad = path.join(tempDir('mp'), 'bad.mdpack');
      fs.copyFileSync(out, bad);
      flipByteOf(bad, Buffer.alloc(64, 7), 10);
      const eng = await engineFor(lib);
      const before = treeHash(modelsDir);
      expect(failure(await eng.importPack({ file: bad })).code).toBe('PACK_CHECKSUM');
      expect(treeHash(modelsDir)).toBe(before);

      const info = value(await eng.importPack({ file: out }));
      expect(info).toMatchObject({ kind: 'models', id: 'acme-models', unverified: false });
      const installed = path.join(modelsDir, 'Acme', 'tiny-embed', 'onnx', 'model.onnx');
      expect(sha256(fs.readFileSync(installed))).toBe(sha256(Buffer.alloc(50_000, 7)));
      expect(fs.existsSync(path.join(modelsDir, '.staging'))).toBe(false);
      value(await eng.removePack({ id: 'acme-models' }));
      expect(fs.existsSync(path.join(modelsDir, 'Acme', 'tiny-embed'))).toBe(false);
    } finally {
      if (prev === undefined) delete process.env.MANUALDESK_MODELS;
      else process.env.MANUALDESK_MODELS = prev;
    }
  });
});

describe('CLI', () => {
  const run = async (args: string[]) => {
    let out = '';
    let err = '';
    const code = await runCli(args, {
      stdout: { write: (s: string) => ((out += s), true) } as unknown as NodeJS.WritableStream,
      stderr: { write: (s: string) => ((err += s), true) } as unknown as NodeJS.WritableStream,
      stdin: process.stdin,
    });
    return { code, out, err };
  };

  it('keys, verify, import, list, rollback with --json and exit codes', async () => {
    const dir = tempDir('cli');
    const lib = path.join(dir, 'library');
    const gen = await run(['keys', 'generate', '--out', path.join(dir, 'k'), '--json']);
    expect(gen.code).toBe(0);
    expect(fs.statSync(path.join(dir, 'k', 'private.pem')).mode & 0o777).toBe(0o600);
    expect((await run(['keys', 'generate', '--out', path.join(dir, 'k'), '--json'])).code).toBe(1);

    const refused = await run(['pack', 'import', packV1, '--library', lib, '--json']);
    expect(refused.code).toBe(1);
    expect(JSON.parse(refused.out)).toMatchObject({ ok: false, error: { code: 'PACK_UNTRUSTED' } });
    expect((await run(['keys', 'trust', keys.publicKey, '--library', lib, '--json'])).code).toBe(0);
    const ok = await run(['pack', 'import', packV1, '--library', lib, '--json']);
    expect(ok.code).toBe(0);
    expect(JSON.parse(ok.out)).toMatchObject({ id: 'plant-manuals', active: '1.0' });
    expect((await run(['pack', 'update', packV2, '--library', lib, '--json'])).code).toBe(0);
    const list = await run(['pack', 'list', '--library', lib, '--json']);
    expect(JSON.parse(list.out)).toEqual([expect.objectContaining({ active: '1.1', versions: ['1.1', '1.0'] })]);
    expect((await run(['pack', 'rollback', 'plant-manuals', '--library', lib, '--json'])).code).toBe(0);
    const verify = await run(['pack', 'verify', packV1, '--library', lib, '--json']);
    expect(verify.code).toBe(0);
    expect(JSON.parse(verify.out)).toMatchObject({ ok: true, signature: 'valid', trusted: true });
    const missing = await run(['pack', 'verify', path.join(dir, 'nope.mdpack'), '--json']);
    expect(missing.code).toBe(1);
    expect(JSON.parse(missing.out).ok).toBe(false);
    expect((await run(['pack', 'build', sourceV1, '--out', path.join(dir, 'x.mdpack'), '--split-size', 'abc'])).code).toBe(2);
    expect((await run(['pack', 'remove', 'plant-manuals', '--library', lib, '--json'])).code).toBe(0);
  });
});
