/**
 * The engine's answer models and their lifetime: the LLM and the reranker are found once, loaded
 * on first use, reused for every question, and closed with the engine (native/base/lifetime.ts:
 * close is safe twice, waits for loads under way; after it both give null).
 */
import type { ModelStatus } from '../contract/answer.js';
import type { Reranker } from '../rerank/index.js';
import { LocalLlm } from './llama.js';
import { findLlm, findReranker, listModelStatus } from './models.js';
import { Disposable } from '../base/lifetime.js';

export class AnswerModels extends Disposable {
  private llmLoad: Promise<LocalLlm | null> | null = null;
  private rerankLoad: Promise<Reranker | null> | null = null;
  private llmId: string | null = null;
  private rerankerId: string | null = null;

  /** @param threads CPU threads for the language model (the composition root reads $MANUALDESK_THREADS). */
  constructor(
    private readonly dirs: () => string[],
    private readonly threads: number,
  ) {
    super('The answer models');
  }

  /** The installed language model, loaded once (null when none is installed). A failed load, or none found, is retried on the next call. */
  llm(): Promise<LocalLlm | null> {
    if (this.closed) return Promise.resolve(null);
    if (!this.llmLoad) {
      this.llmLoad = (async () => {
        const found = findLlm(this.dirs());
        if (!found) return null;
        const llm = await LocalLlm.load({ modelPath: found.path, threads: this.threads });
        this.llmId = found.id;
        if (this.closed) {
          await llm.dispose();
          return null;
        }
        return llm;
      })();
      // A failed load, or none installed yet, is looked for again on the next call (a model pack
      // imported while the engine runs is used without a restart).
      const load = this.llmLoad;
      load.then(
        (llm) => {
          if (llm === null && this.llmLoad === load) this.llmLoad = null;
        },
        () => {
          if (this.llmLoad === load) this.llmLoad = null;
        },
      );
    }
    return this.llmLoad;
  }

  /** The installed cross-encoder, loaded once (null when none is installed or it fails to load). */
  reranker(): Promise<Reranker | null> {
    if (this.closed) return Promise.resolve(null);
    if (!this.rerankLoad) {
      this.rerankLoad = (async () => {
        const found = findReranker(this.dirs());
        if (!found) return null;
        const { CrossEncoderReranker } = await import('../rerank/index.js');
        try {
          const r = await CrossEncoderReranker.load(found.path, found.id);
          this.rerankerId = found.id;
          return r;
        } catch {
          return null;
        }
      })();
    }
    return this.rerankLoad;
  }

  list(embedderId: string | null): Promise<ModelStatus[]> {
    const inUse = [this.llmId, this.rerankerId, embedderId?.replace(/^onnx:/, '').replace(/@[0-9a-f]+$/, '') ?? null].filter(
      (x): x is string => x !== null,
    );
    return listModelStatus({ dirs: this.dirs(), inUse });
  }

  protected async dispose(): Promise<void> {
    const llm = await this.llmLoad?.catch(() => null);
    await llm?.dispose();
    const rr = await this.rerankLoad?.catch(() => null);
    await rr?.dispose();
  }
}
