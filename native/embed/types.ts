import type { EngineError } from '../contract/errors.js';

/** Turns text into vectors. Implementations hold native resources: call dispose() (safe twice). */
export interface Embedder {
  /** Stable id recorded in the library, e.g. "onnx:multilingual-e5-small@<weights sha8>-<content sha8>". */
  readonly id: string;
  readonly dims: number;
  /** Vectors in input order; `onProgress` (when given) hears how many of the texts are done, batch by batch. */
  embedDocuments(texts: string[], signal?: AbortSignal, onProgress?: (done: number) => void): Promise<Float32Array[]>;
  embedQuery(text: string, signal?: AbortSignal): Promise<Float32Array>;
  dispose(): Promise<void>;
  /**
   * Frees the model's memory until a call needs it again (that call loads it again); calls running
   * now finish first. For a step that needs no model (ingest parsing its files). Optional.
   */
  release?(): Promise<void>;
  /**
   * Whether a recorded embedder id names this same model by its content (weights, tokenizer, config,
   * settings), whatever the folder or name it was recorded under. Optional: without it, ids must be equal.
   */
  isSame?(id: string): boolean;
  /** Goes by that recorded id from here on (only for an id isSame accepts). */
  useId?(id: string): void;
  /**
   * Checks that the model is still the one loaded (its files not gone, damaged or changed); once it is
   * not, the reason (MODEL_MISSING), and the embedder refuses to embed from then on. Optional.
   */
  verify?(): Promise<EngineError | null>;
  /** The reason verify() or a reload found, or null. */
  readonly unusable?: EngineError | null;
}
