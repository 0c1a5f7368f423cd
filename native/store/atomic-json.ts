import { open, rename, readFile } from 'node:fs/promises';
import path from 'node:path';

/** Writes JSON so that a crash leaves either the old or the new file: temp file, fsync, rename, fsync dir. */
export async function writeJsonAtomic(file: string, value: unknown): Promise<void> {
  const tmp = `${file}.${process.pid}.tmp`;
  const fh = await open(tmp, 'w');
  try {
    await fh.writeFile(JSON.stringify(value, null, 1) + '\n', 'utf8');
    await fh.sync();
  } finally {
    await fh.close();
  }
  await rename(tmp, file);
  await syncDir(path.dirname(file));
}

async function syncDir(dir: string): Promise<void> {
  try {
    const fh = await open(dir, 'r');
    try {
      await fh.sync();
    } finally {
      await fh.close();
    }
  } catch {
    // Directories cannot be opened/synced on Windows; the rename is still atomic there.
  }
}

/** Reads a JSON file; undefined when it does not exist. */
export async function readJson(file: string): Promise<unknown> {
  try {
    return JSON.parse(await readFile(file, 'utf8')) as unknown;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
}
