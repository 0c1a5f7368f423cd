/**
 * The sha256 of a file (model weights, a pack's files): streamed in pieces, never read whole, and
 * memoised per (path, inode, size, mtime, ctime) for this process: a file rewritten in place, even
 * with its old modification time put back, changes its ctime.
 */
import { createHash } from 'node:crypto';
import { closeSync, createReadStream, openSync, readSync, statSync } from 'node:fs';

const memo = new Map<string, string>();
const PIECE = 8 * 2 ** 20;

function keyOf(path: string): string {
  const st = statSync(path);
  return `${path}\0${st.ino}\0${st.size}\0${st.mtimeMs}\0${st.ctimeMs}`;
}

export async function sha256File(path: string): Promise<string> {
  const key = keyOf(path);
  const known = memo.get(key);
  if (known) return known;
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(path, { highWaterMark: PIECE })) hash.update(chunk as Buffer);
  const hex = hash.digest('hex');
  memo.set(key, hex);
  return hex;
}

/** The same, for callers that cannot wait (choosing a library's model while it opens). */
export function sha256FileSync(path: string): string {
  const key = keyOf(path);
  const known = memo.get(key);
  if (known) return known;
  const hash = createHash('sha256');
  const buf = Buffer.allocUnsafe(PIECE);
  const fd = openSync(path, 'r');
  try {
    for (let n = readSync(fd, buf); n > 0; n = readSync(fd, buf)) hash.update(buf.subarray(0, n));
  } finally {
    closeSync(fd);
  }
  const hex = hash.digest('hex');
  memo.set(key, hex);
  return hex;
}
