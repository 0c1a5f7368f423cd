/** Turns text into vectors. Implementations hold native resources: call dispose() (safe twice). */
export interface Embedder {
  /** Stable id recorded in the library, e.g. "onnx:multilingual-e5-small@<sha8>". */
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
}
