/**
 * Optional cross-encoder reranking of retrieved passages: (question, passage) pairs scored by an
 * ONNX sequence-classification model through transformers.js, loaded strictly from a local folder.
 * Used only when a reranker model is installed (models/manifest.json, role "rerank"); otherwise the
 * retrieval order stands.
 */
import os from 'node:os';
import { EngineError } from '../contract/errors.js';
import { closedError } from '../contract/messages.js';

export interface Reranker {
  readonly id: string;
  /** One relevance score per passage (higher is better), same order as given. */
  score(question: string, passages: string[]): Promise<number[]>;
  dispose(): Promise<void>;
}

/** Reorders items by reranker score (stable for ties); items beyond `depth` keep their place after. */
export async function rerank<T>(reranker: Reranker, question: string, items: T[], text: (t: T) => string, depth = 20): Promise<T[]> {
  const head = items.slice(0, depth);
  if (head.length < 2) return items;
  const scores = await reranker.score(question, head.map(text));
  const order = head.map((item, i) => ({ item, i, s: scores[i] ?? -Infinity })).sort((a, b) => b.s - a.s || a.i - b.i);
  return [...order.map((o) => o.item), ...items.slice(depth)];
}

export class CrossEncoderReranker implements Reranker {
  private disposed = false;
  private constructor(
    readonly id: string,
    private model: { (inputs: unknown): Promise<{ logits: { data: ArrayLike<number>; dims: number[] } }>; dispose(): Promise<unknown> } | null,
    private tokenizer: ((a: string[], opts: Record<string, unknown>) => unknown) | null,
  ) {}

  static async load(dir: string, id: string): Promise<CrossEncoderReranker> {
    const tf = await import('@huggingface/transformers');
    tf.env.allowRemoteModels = false;
    tf.env.allowLocalModels = true;
    try {
      const tokenizer = await tf.AutoTokenizer.from_pretrained(dir, { local_files_only: true });
      const model = await tf.AutoModelForSequenceClassification.from_pretrained(dir, {
        local_files_only: true,
        dtype: 'q8',
        session_options: { intraOpNumThreads: os.availableParallelism() },
      });
      return new CrossEncoderReranker(id, model as never, tokenizer as never);
    } catch (err) {
      throw new EngineError('MODEL_MISSING', `The reranker in ${dir} could not be loaded: ${err instanceof Error ? err.message : String(err)}.`, { cause: err });
    }
  }

  async score(question: string, passages: string[]): Promise<number[]> {
    if (this.disposed || !this.model || !this.tokenizer) throw new EngineError('CLOSED', closedError('The reranker'));
    const inputs = this.tokenizer(
      passages.map(() => question),
      { text_pair: passages, padding: true, truncation: true, max_length: 512 },
    );
    const out = await this.model(inputs);
    const [n, width] = [out.logits.dims[0] ?? passages.length, out.logits.dims[1] ?? 1];
    const scores: number[] = [];
    // One logit: relevance; two: [irrelevant, relevant].
    for (let i = 0; i < n; i++) scores.push(Number(out.logits.data[i * width + (width - 1)]));
    return scores;
  }

  async dispose(): Promise<void> {
    if (this.disposed) return;
    this.disposed = true;
    await this.model?.dispose().catch(() => {});
    this.model = null;
    this.tokenizer = null;
  }
}
