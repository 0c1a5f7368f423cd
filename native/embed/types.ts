/** Turns text into vectors. Implementations hold native resources: call dispose() (safe twice). */
export interface Embedder {
  /** Stable id recorded in the library, e.g. "onnx:multilingual-e5-small@<sha8>". */
  readonly id: string;
  readonly dims: number;
  embedDocuments(texts: string[], signal?: AbortSignal): Promise<Float32Array[]>;
  embedQuery(text: string, signal?: AbortSignal): Promise<Float32Array>;
  dispose(): Promise<void>;
}
