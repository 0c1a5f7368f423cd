/** Chunk sizes, in countTokens units. Changing any of them changes chunks: bump CHUNKER_VERSION. */
export const LIMITS = {
  /** Chunks below this are avoided when a section is long enough to allow it. */
  targetMin: 200,
  /** No chunk of several pieces grows past this. */
  targetMax: 500,
  /** A single sentence or block (step, list item, code, admonition) is kept whole up to this. */
  hardCap: 1200,
  /** The sentence carried into the next piece of a split paragraph, if no longer than this. */
  overlapMax: 120,
} as const;
