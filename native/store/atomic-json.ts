import { open, rename, readFile, unlink } from 'node:fs/promises';
import path from 'node:path';
import { EngineError } from '../contract/errors.js';

/**
 * Writes JSON so that a crash leaves either the old or the new file: temp file, fsync, rename, fsync dir.
 * A failed write (full disk) removes its temp file; one a killed process left is removed by the next
 * writer that takes the library's lock (store/lock.ts).
 */
export async function writeJsonAtomic(file: string, value: unknown): Promise<void> {
  const tmp = `${file}.${process.pid}.tmp`;
  try {
    const fh = await open(tmp, 'w');
    try {
      await fh.writeFile(JSON.stringify(value, null, 1) + '\n', 'utf8');
      await fh.sync();
    } finally {
      await fh.close();
    }
    await rename(tmp, file);
  } catch (err) {
    await unlink(tmp).catch(() => undefined);
    throw err;
  }
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

/**
 * Reads a JSON file of the library; undefined when it does not exist. A file that is not JSON (damaged
 * by a disk fault or an edit) is LIBRARY_FORMAT_MISMATCH, naming the file, not a bare SyntaxError.
 */
export async function readJson(file: string): Promise<unknown> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
  try {
    return JSON.parse(text) as unknown;
  } catch (err) {
    throw new EngineError(
      'LIBRARY_FORMAT_MISMATCH',
      `${file} is damaged (${text.length === 0 ? 'empty' : 'not valid JSON'}). Restore the library folder from a backup, or re-index the manuals into a new library folder.`,
      { cause: err },
    );
  }
}
