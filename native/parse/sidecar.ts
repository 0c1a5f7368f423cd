import { readFile } from 'node:fs/promises';
import { basename, dirname, extname, join } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';
import { EngineError, type ManualMeta } from '../contract/index.js';

/** `manual.pdf.meta.yaml`, `manual.meta.json`, …: metadata files, never manuals themselves. */
export const SIDECAR_RE = /\.meta\.(?:ya?ml|json)$/i;

export type Sidecar = Partial<ManualMeta> & { id?: string };

const text = z.string().trim().min(1, 'must not be empty').max(500, 'is too long (500 characters at most)');
const SidecarSchema = z
  .object({
    title: text.optional(),
    equipment: z
      .union([text, z.array(text)])
      .transform((v) => (Array.isArray(v) ? v : [v]))
      .optional(),
    revision: z
      .union([z.string(), z.number()])
      .transform((v) => String(v).trim())
      .pipe(text)
      .optional(),
    language: z
      .string()
      .trim()
      .toLowerCase()
      .transform((v) => v.replace(/[-_].*$/, ''))
      .pipe(z.enum(['en', 'zh'], { error: 'must be "en" or "zh"' }))
      .optional(),
    publisher: text.optional(),
    id: z
      .string()
      .trim()
      .regex(/^[\p{L}\p{N}][\p{L}\p{N}._:/-]{0,199}$/u, 'must be letters, digits and . _ : / - (no spaces), 200 characters at most')
      .optional(),
  })
  .strict();

/** Candidate sidecar paths for a manual, most specific first. */
export function sidecarPaths(absPath: string): string[] {
  const dir = dirname(absPath);
  const file = basename(absPath);
  const stem = file.slice(0, file.length - extname(file).length);
  const names = [`${file}.meta.yaml`, `${file}.meta.yml`, `${file}.meta.json`];
  if (stem && stem !== file) names.push(`${stem}.meta.yaml`, `${stem}.meta.yml`, `${stem}.meta.json`);
  return names.map((n) => join(dir, n));
}

/**
 * Reads the optional metadata sidecar next to a manual (see docs/SIDECAR.md). Returns null when
 * there is none; throws EngineError INVALID_INPUT when one exists but is malformed.
 */
export async function readSidecar(absPath: string): Promise<Sidecar | null> {
  for (const path of sidecarPaths(absPath)) {
    let raw: string;
    try {
      raw = await readFile(path, 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT' || (err as NodeJS.ErrnoException).code === 'ENOTDIR') continue;
      throw new EngineError('FILE_UNREADABLE', `The metadata file ${path} could not be read (${(err as Error).message}). Check its permissions.`, { cause: err });
    }
    return validateSidecar(raw.replace(/^\ufeff/, ''), path);
  }
  return null;
}

/** Parses and validates sidecar text; `path` is only used in messages and to pick JSON or YAML. */
export function validateSidecar(raw: string, path: string): Sidecar {
  let data: unknown;
  try {
    data = /\.json$/i.test(path) ? JSON.parse(raw) : parseYaml(raw, { maxAliasCount: 10 });
  } catch (err) {
    const first = (err as Error).message.split('\n')[0];
    throw new EngineError('INVALID_INPUT', `The metadata file ${path} is not valid ${/\.json$/i.test(path) ? 'JSON' : 'YAML'}: ${first}. Fix it (see docs/SIDECAR.md) or delete it.`, { cause: err });
  }
  if (data === null || data === undefined) return {};
  const result = SidecarSchema.safeParse(data);
  if (!result.success) {
    const problems = result.error.issues
      .map((i) => {
        if (i.code === 'unrecognized_keys') return `unknown field(s) ${i.keys.map((k) => `"${k}"`).join(', ')} (allowed: title, equipment, revision, language, publisher, id)`;
        const where = i.path.length ? `"${i.path.join('.')}"` : 'the file';
        return `${where} ${i.message === 'Invalid input' || i.message.startsWith('Invalid input:') ? `has the wrong type (${i.message})` : i.message}`;
      })
      .join('; ');
    throw new EngineError('INVALID_INPUT', `The metadata file ${path} is invalid: ${problems}. Fix it (see docs/SIDECAR.md) or delete it.`);
  }
  const out: Sidecar = {};
  const v = result.data;
  if (v.title !== undefined) out.title = v.title;
  if (v.equipment !== undefined) out.equipment = v.equipment;
  if (v.revision !== undefined) out.revision = v.revision;
  if (v.language !== undefined) out.language = v.language;
  if (v.publisher !== undefined) out.publisher = v.publisher;
  if (v.id !== undefined) out.id = v.id;
  return out;
}
