/** Test hooks: a test process sets these to stop an install at an exact step or fake the disk. */
export const packFailpoints: {
  /** After the staged pack is renamed into place, before packs.json names it. */
  beforeCommit?: () => Promise<void>;
  /** Free bytes on the disk of a folder (simulates a full disk). */
  freeBytes?: (dir: string) => number;
} = {};
