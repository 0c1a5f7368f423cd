/**
 * The pack format (see docs/PACKS.md): names, limits, the manifest schema, the canonical JSON that
 * is signed, and the rules every path inside a pack must follow. Pure: no file system access.
 */
import { z } from 'zod';
import { EngineError } from '../contract/errors.js';
import { LOCAL_ID } from '../contract/packs.js';

/** Version of the pack layout; a pack with a higher version is refused (written by a newer ManualDesk). */
export const PACK_FORMAT_VERSION = 1;
export const PACK_FORMAT_NAME = 'manualdesk-pack';

export const MANIFEST_FILE = 'manifest.json';
export const SIGNATURE_FILE = 'manifest.sig';
export const SIGNER_FILE = 'signer.pub';
/** Entries that may precede the payload, in this order (signature and key only in signed packs). */
export const META_FILES = [MANIFEST_FILE, SIGNATURE_FILE, SIGNER_FILE] as const;
/** Top folders of the payload. */
export const LIBRARY_PREFIX = 'library/';
export const DOCUMENTS_PREFIX = 'documents/';
export const MODELS_PREFIX = 'models/';

/** Caps that bound what a pack may ask of the machine before a single payload byte is read. */
export const LIMITS = {
  manifestBytes: 32 * 1024 * 1024,
  signatureBytes: 1024,
  signerBytes: 16 * 1024,
  files: 200_000,
  /** Per file and in total. */
  fileBytes: 256 * 1024 ** 3,
  totalBytes: 1024 ** 4,
  pathLength: 512,
};

/** Default part size: below the FAT32 limit of 4 GiB − 1 byte, with room to spare. */
export const DEFAULT_SPLIT_SIZE = 4_000_000_000;

const sha256Hex = z.string().regex(/^[0-9a-f]{64}$/, 'must be a sha256 in lower-case hex');
const safeText = (max: number) => z.string().max(max);

/** Pack ids are folder names on every OS: lower-case letters, digits, dot, dash, underscore. */
export const PACK_ID_RE = /^[a-z0-9][a-z0-9._-]{0,63}$/;
/** Versions are folder names too: e.g. 2024.3, 1.2.0-rc1, 7+build5. */
export const PACK_VERSION_RE = /^[0-9A-Za-z][0-9A-Za-z.+_-]{0,39}$/;
export { LOCAL_ID };

export const packFileSchema = z.strictObject({
  path: z.string().min(1).max(LIMITS.pathLength),
  size: z.int().min(0).max(LIMITS.fileBytes),
  sha256: sha256Hex,
});

export const manifestSchema = z.strictObject({
  format: z.literal(PACK_FORMAT_NAME),
  formatVersion: z.literal(PACK_FORMAT_VERSION),
  id: z.string().regex(PACK_ID_RE, 'must be 1–64 lower-case letters, digits, ".", "-" or "_"').refine((s) => s !== LOCAL_ID, 'is reserved'),
  name: safeText(200).min(1),
  version: z.string().regex(PACK_VERSION_RE, 'must be letters, digits, ".", "+", "-" or "_" (at most 40)'),
  publisher: safeText(200),
  created: z.iso.datetime(),
  description: safeText(4000).optional(),
  kind: z.enum(['manuals', 'models']),
  /** Manual packs: what the prebuilt library under library/ was made with. Null in model packs. */
  library: z
    .strictObject({
      formatVersion: z.int().min(1),
      chunkerVersion: z.int().min(1),
      analyzerVersion: z.int().min(1),
      /** Null: keyword search and fault codes only (compatible with every library). */
      embedder: z
        .strictObject({
          id: z.string().min(1).max(300),
          dims: z.int().min(1).max(65_536),
          /** Files of the model that made the vectors (empty for models bundled with ManualDesk). */
          files: z.array(z.strictObject({ name: z.string().max(LIMITS.pathLength), sha256: sha256Hex, size: z.int().min(0) })).max(100),
        })
        .nullable(),
    })
    .nullable(),
  manuals: z
    .array(
      z.strictObject({
        title: safeText(1000),
        revision: safeText(200).nullable(),
        language: safeText(20).nullable(),
        equipment: z.array(safeText(200)).max(1000),
        files: z.array(packFileSchema).max(LIMITS.files),
      }),
    )
    .max(LIMITS.files),
  models: z
    .array(
      z.strictObject({
        /** Where the model installs under the models folder: a folder (`models/<id>/…`) or one file (`models/<id>`). */
        id: z.string().min(1).max(200),
        role: z.enum(['embed', 'llm', 'rerank']).nullable(),
        files: z.array(packFileSchema).max(1000),
        /** The models/manifest.json entry the model matched when the pack was built (absent: a model ManualDesk does not list). */
        catalog: z
          .strictObject({
            id: z.string().min(1).max(300),
            license: safeText(200),
            source: safeText(1000),
            upstream: safeText(300).optional(),
            upstreamLicense: safeText(200).optional(),
          })
          .optional(),
      }),
    )
    .max(1000),
  /** Every payload file of the pack (documents, library, models), each exactly once. */
  files: z.array(packFileSchema).max(LIMITS.files),
});

export type PackManifest = z.infer<typeof manifestSchema>;
export type PackFile = z.infer<typeof packFileSchema>;

/**
 * Canonical JSON: object keys sorted by code unit, no whitespace, arrays in order. The signature is
 * made over these bytes, so a manifest re-serialised with other spacing or key order still verifies.
 */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') {
    if (typeof value === 'number' && !Number.isFinite(value)) throw new TypeError('canonicalJson: non-finite number');
    return JSON.stringify(value);
  }
  if (Array.isArray(value)) return `[${value.map((v) => canonicalJson(v === undefined ? null : v)).join(',')}]`;
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, v]) => v !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
}

/**
 * Why a path may not appear in a pack, or null when it is safe: relative, forward slashes, no `.`/`..`
 * segments, no drive letters, no characters Windows cannot store, not too long.
 */
export function unsafePathReason(p: string): string | null {
  if (p.length === 0) return 'an empty name';
  if (p.length > LIMITS.pathLength) return `a name longer than ${LIMITS.pathLength} characters`;
  if (p.includes('\\')) return 'a backslash in the name';
  if (p.startsWith('/')) return 'an absolute path';
  if (/^[A-Za-z]:/.test(p)) return 'a drive letter';
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f<>:"|?*]/.test(p)) return 'a character that cannot be stored on every disk';
  for (const seg of p.split('/')) {
    if (seg === '..') return 'a ".." segment (path traversal)';
    if (seg === '.' || seg === '') return 'an empty or "." segment';
    if (/[. ]$/.test(seg)) return 'a name ending in a dot or space';
  }
  return null;
}

/** The key two paths collide under on case-insensitive disks (Windows, macOS). */
export function collisionKey(p: string): string {
  return p.normalize('NFC').toLowerCase();
}

/** Validates a parsed manifest beyond the schema: unique, safe paths; manuals and models refer to listed files. */
export function checkManifest(raw: unknown): PackManifest {
  if (typeof raw !== 'object' || raw === null) throw invalid('the manifest is not a JSON object');
  const r = raw as Record<string, unknown>;
  if (r.format !== PACK_FORMAT_NAME) throw invalid('the manifest does not describe a ManualDesk pack');
  if (typeof r.formatVersion === 'number' && r.formatVersion > PACK_FORMAT_VERSION) {
    throw new EngineError(
      'PACK_FORMAT',
      `This pack uses format ${r.formatVersion}; this ManualDesk reads format ${PACK_FORMAT_VERSION}. Update ManualDesk, or ask the publisher for a pack in format ${PACK_FORMAT_VERSION}.`,
    );
  }
  const parsed = manifestSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue && issue.path.length > 0 ? ` (field ${issue.path.map(String).join('.')})` : '';
    throw invalid(`the manifest is malformed${where}: ${issue?.message ?? 'unknown problem'}`);
  }
  const m = parsed.data;
  const byPath = new Map<string, PackFile>();
  const keys = new Set<string>();
  let total = 0;
  for (const f of m.files) {
    const why = unsafePathReason(f.path);
    if (why) throw invalid(`the manifest lists "${f.path}", which has ${why}`);
    const top = m.kind === 'manuals' ? [LIBRARY_PREFIX, DOCUMENTS_PREFIX] : [MODELS_PREFIX];
    if (!top.some((t) => f.path.startsWith(t))) throw invalid(`the manifest lists "${f.path}" outside ${top.join(' and ')}`);
    const key = collisionKey(f.path);
    if (keys.has(key)) throw invalid(`the manifest lists "${f.path}" twice`);
    keys.add(key);
    byPath.set(f.path, f);
    total += f.size;
  }
  // A file may not also be a folder of another file ("a" and "a/b").
  for (const f of m.files) {
    const segs = f.path.split('/');
    for (let i = 1; i < segs.length; i++) {
      if (keys.has(collisionKey(segs.slice(0, i).join('/')))) throw invalid(`the manifest lists "${f.path}" inside a file`);
    }
  }
  if (total > LIMITS.totalBytes) throw invalid(`the pack declares ${total} bytes, more than the limit of ${LIMITS.totalBytes}`);
  const same = (f: PackFile, where: string) => {
    const g = byPath.get(f.path);
    if (!g || g.sha256 !== f.sha256 || g.size !== f.size) throw invalid(`${where} lists "${f.path}", which is not in the file list`);
  };
  for (const man of m.manuals) for (const f of man.files) same(f, `manual "${man.title}"`);
  for (const mod of m.models) {
    if (unsafePathReason(mod.id)) throw invalid(`the model id "${mod.id}" is not a safe folder name`);
    // A single-file model (a GGUF) is the file models/<id> itself; any other model is a folder.
    const single = modelIsSingleFile(mod);
    for (const f of mod.files) {
      same(f, `model "${mod.id}"`);
      if (!single && !f.path.startsWith(`${MODELS_PREFIX}${mod.id}/`)) throw invalid(`model "${mod.id}" lists "${f.path}" outside its folder`);
    }
  }
  if (m.kind === 'manuals') {
    if (!m.library) throw invalid('a manual pack must describe its library');
    if (!byPath.has(`${LIBRARY_PREFIX}library.json`)) throw invalid('the pack has no library/library.json');
  } else if (m.models.length === 0) {
    throw invalid('a model pack must list at least one model');
  }
  return m;
}

/** True when a pack model is one file straight under models/ (a GGUF), not a folder. */
export function modelIsSingleFile(mod: Pick<PackManifest['models'][number], 'id' | 'files'>): boolean {
  return mod.files.length === 1 && mod.files[0]?.path === `${MODELS_PREFIX}${mod.id}`;
}

/** A pack model's file name inside the model (folder models) or its own name (single-file models). */
export function modelFileName(mod: Pick<PackManifest['models'][number], 'id' | 'files'>, f: PackFile): string {
  return modelIsSingleFile(mod) ? mod.id : f.path.slice(`${MODELS_PREFIX}${mod.id}/`.length);
}

export function invalid(what: string): EngineError {
  return new EngineError('PACK_INVALID', `This pack is damaged or not a ManualDesk pack: ${what}. Nothing was changed; ask the publisher for a new copy.`);
}

/** Sum of the declared payload sizes. */
export function declaredBytes(m: PackManifest): number {
  return m.files.reduce((s, f) => s + f.size, 0);
}

const collator = new Intl.Collator('en', { numeric: true, sensitivity: 'base' });
/** Natural order of version strings ("1.10" after "1.9"). */
export function compareVersions(a: string, b: string): number {
  return collator.compare(a, b);
}
