/**
 * A local GGUF chat model on node-llama-cpp 3.21.1, loaded once and reused for every answer.
 *
 * - Prebuilt CPU binaries only (`build: "never"`, `gpu: false`): nothing is compiled or downloaded.
 * - Threads = the machine's cores (node-llama-cpp's default of 4 is far slower on a 2-core box).
 * - The chat template is the model's own: LlamaChatSession resolves the wrapper from the GGUF
 *   (tokenizer.chat_template and architecture), e.g. ChatML for Qwen.
 * - One context sequence; requests are served one at a time (a queue), each in a fresh chat
 *   history, so earlier answers never leak into a new one.
 * - dispose() is safe to call twice and waits for a running generation to stop.
 */
import os from 'node:os';
import type { ChatHistoryItem, Llama, LlamaContext, LlamaContextSequence, LlamaGrammar, LlamaModel } from 'node-llama-cpp';
import { EngineError } from '../contract/errors.js';
import { closedError } from '../contract/messages.js';

export interface LocalLlmOptions {
  modelPath: string;
  /** Context window in tokens (default: the model's training context, capped at 4096). */
  contextSize?: number;
  /** CPU threads (default: os.availableParallelism()). */
  threads?: number;
}

export interface GenerateRequest {
  system: string;
  user: string;
  /** Most tokens to generate (default 400). */
  maxTokens?: number;
  signal?: AbortSignal;
  onToken?: (text: string) => void;
  /** A worked example, given as an earlier user turn and the model's answer to it. */
  example?: { user: string; answer: string };
  /** A llama.cpp GBNF grammar the answer must follow (compiled once per text). */
  grammar?: string;
}

export interface GenerateResult {
  text: string;
  /** Text chunks streamed (≈ tokens). */
  chunks: number;
  /** ms from the call until the first streamed text (null: nothing was generated). */
  firstTokenMs: number | null;
  ms: number;
  /** Stopped by the AbortSignal. */
  aborted: boolean;
}

export class LocalLlm {
  private disposed = false;
  private queue: Promise<unknown> = Promise.resolve();
  private grammars = new Map<string, Promise<LlamaGrammar>>();

  private constructor(
    readonly modelPath: string,
    private llama: Llama | null,
    private model: LlamaModel | null,
    private context: LlamaContext | null,
    private sequence: LlamaContextSequence | null,
    readonly contextSize: number,
    readonly threads: number,
    readonly loadMs: number,
  ) {}

  static async load(opts: LocalLlmOptions): Promise<LocalLlm> {
    const t0 = performance.now();
    const threads = opts.threads ?? os.availableParallelism();
    const { getLlama, LlamaLogLevel } = await import('node-llama-cpp');
    let llama: Llama | null = null;
    let model: LlamaModel | null = null;
    try {
      llama = await getLlama({ build: 'never', gpu: false, maxThreads: threads, logLevel: LlamaLogLevel.error });
      model = await llama.loadModel({ modelPath: opts.modelPath });
      const contextSize = opts.contextSize ?? Math.min(model.trainContextSize, 4096);
      const context = await model.createContext({ contextSize, threads });
      const sequence = context.getSequence();
      return new LocalLlm(opts.modelPath, llama, model, context, sequence, context.contextSize, threads, performance.now() - t0);
    } catch (err) {
      await model?.dispose().catch(() => {});
      await llama?.dispose().catch(() => {});
      throw new EngineError(
        'MODEL_MISSING',
        `The language model ${opts.modelPath} could not be loaded: ${err instanceof Error ? err.message : String(err)}. ` +
          'Answers are extractive until a working GGUF model is installed (manualdesk models list).',
        { cause: err },
      );
    }
  }

  /** Tokens of a text with this model's tokenizer (special tokens as text). */
  countTokens(text: string): number {
    return this.live().model.tokenize(text, false).length;
  }

  /** Name of the chat template in use (e.g. "ChatML"). */
  async chatWrapperName(): Promise<string> {
    const { resolveChatWrapper } = await import('node-llama-cpp');
    return resolveChatWrapper(this.live().model).wrapperName;
  }

  /** The prompt exactly as the model sees it (chat template applied), for inspection and tests. */
  async renderPrompt(system: string, user: string): Promise<string> {
    const { resolveChatWrapper } = await import('node-llama-cpp');
    const wrapper = resolveChatWrapper(this.live().model);
    const state = wrapper.generateContextState({
      chatHistory: [
        { type: 'system', text: system },
        { type: 'user', text: user },
        { type: 'model', response: [] },
      ],
    });
    return state.contextText.toString();
  }

  /** Generates one answer (queued behind any running one). */
  generate(req: GenerateRequest): Promise<GenerateResult> {
    const run = this.queue.then(() => this.generateNow(req));
    this.queue = run.catch(() => {});
    return run;
  }

  private async generateNow(req: GenerateRequest): Promise<GenerateResult> {
    const { sequence } = this.live();
    if (req.signal?.aborted) return { text: '', chunks: 0, firstTokenMs: null, ms: 0, aborted: true };
    const { LlamaChatSession } = await import('node-llama-cpp');
    const t0 = performance.now();
    await sequence.clearHistory();
    const grammar = req.grammar === undefined ? undefined : await this.grammar(req.grammar);
    const session = new LlamaChatSession({ contextSequence: sequence, systemPrompt: req.system, autoDisposeSequence: false });
    if (req.example) {
      const history: ChatHistoryItem[] = [
        { type: 'system', text: req.system },
        { type: 'user', text: req.example.user },
        { type: 'model', response: [req.example.answer] },
      ];
      session.setChatHistory(history);
    }
    let chunks = 0;
    let firstTokenMs: number | null = null;
    try {
      const text = await session.prompt(req.user, {
        maxTokens: req.maxTokens ?? 400,
        temperature: 0,
        ...(grammar ? { grammar } : {}),
        signal: req.signal,
        stopOnAbortSignal: true,
        onTextChunk: (chunk) => {
          if (firstTokenMs === null) firstTokenMs = performance.now() - t0;
          chunks++;
          req.onToken?.(chunk);
        },
      });
      return { text, chunks, firstTokenMs, ms: performance.now() - t0, aborted: req.signal?.aborted === true };
    } finally {
      session.dispose({ disposeSequence: false });
    }
  }

  private grammar(text: string): Promise<LlamaGrammar> {
    let g = this.grammars.get(text);
    if (!g) {
      g = this.live().llama.createGrammar({ grammar: text });
      this.grammars.set(text, g);
      g.catch(() => this.grammars.delete(text));
    }
    return g;
  }

  get isDisposed(): boolean {
    return this.disposed;
  }

  async dispose(): Promise<void> {
    if (this.disposed) return;
    this.disposed = true;
    await this.queue.catch(() => {});
    const { context, model, llama } = this;
    this.sequence = null;
    this.context = null;
    this.model = null;
    this.llama = null;
    await context?.dispose().catch(() => {});
    await model?.dispose().catch(() => {});
    await llama?.dispose().catch(() => {});
  }

  private live(): { llama: Llama; model: LlamaModel; sequence: LlamaContextSequence } {
    if (this.disposed || !this.llama || !this.model || !this.sequence) throw new EngineError('CLOSED', closedError('The language model'));
    return { llama: this.llama, model: this.model, sequence: this.sequence };
  }
}
