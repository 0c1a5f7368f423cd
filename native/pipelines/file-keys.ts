/**
 * Which library record a scanned file is, during one ingest (library/identity.ts says what a key is):
 * the record read from the same place; else, for a folder that was moved, the record whose file is
 * gone from its old place and had the same path below its folder and the same content; else none,
 * and the file gets a key no other manual has. A record is claimed by one file at most per run.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import type { FileRecord } from '../contract/document.js';
import { newKey, relativePath } from '../library/identity.js';

export class FileKeys {
  private readonly bySource = new Map<string, FileRecord>();
  private readonly byRelative = new Map<string, FileRecord[]>();
  private readonly taken = new Set<string>();
  private readonly claimed = new Set<string>();
  /** Records that do not say where their file is (rebuilt from the tables, or a pack's): found by content. */
  private readonly placeless: FileRecord[] = [];

  constructor(records: readonly FileRecord[]) {
    for (const rec of records) {
      this.taken.add(rec.file);
      if (rec.source) this.bySource.set(rec.source, rec);
      if (!rec.source || !path.isAbsolute(rec.source)) this.placeless.push(rec);
      const rel = relativePath(rec);
      const list = this.byRelative.get(rel);
      if (list) list.push(rec);
      else this.byRelative.set(rel, [rec]);
    }
  }

  /** The record of the file read from `abs` before (re-adding a folder updates it in place). */
  atSource(abs: string): FileRecord | undefined {
    const rec = this.bySource.get(abs);
    if (!rec || this.claimed.has(rec.file)) return undefined;
    this.claimed.add(rec.file);
    return rec;
  }

  /**
   * The record of a file moved here: same path below its folder, same content, and no longer at the
   * place it was read from (a file still there is another copy, a manual of its own). A record that
   * does not say where its file is counts as moved when its key ends with that path.
   */
  async movedHere(rel: string, sha256: string): Promise<FileRecord | undefined> {
    const placeless = this.placeless.filter((rec) => rec.file.endsWith(`/${rel}`));
    for (const rec of [...(this.byRelative.get(rel) ?? []), ...placeless]) {
      if (this.claimed.has(rec.file) || rec.sha256 !== sha256) continue;
      if (rec.source && path.isAbsolute(rec.source) && (await exists(rec.source))) continue;
      this.claimed.add(rec.file);
      return rec;
    }
    return undefined;
  }

  /**
   * A record rebuilt from the tables without its content hash (files.json was lost) whose key is this
   * path: the same manual only if the file, once parsed, has the record's title. The caller checks
   * that and gives it back (`release`) when it is another manual, which then gets a key of its own.
   */
  unknownContentAt(rel: string): FileRecord | undefined {
    const rec = this.placeless.find((r) => r.file === rel && !r.sha256 && !this.claimed.has(r.file));
    if (rec) this.claimed.add(rec.file);
    return rec;
  }

  /** Gives back a record claimed by unknownContentAt that turned out to be another manual. */
  release(rec: FileRecord): void {
    this.claimed.delete(rec.file);
  }

  /** A key for a file new to the library: its path below its folder unless another manual has it. */
  claimNew(rel: string, root: string): string {
    const key = newKey(rel, root, (k) => this.taken.has(k));
    this.taken.add(key);
    this.claimed.add(key);
    return key;
  }
}

async function exists(file: string): Promise<boolean> {
  try {
    await fs.stat(file);
    return true;
  } catch {
    return false;
  }
}
