/**
 * Frees what transformers.js keeps of a tokenizer beyond what tokenising needs.
 *
 * Measured on multilingual-e5-small (XLM-R Unigram, 250,002 pieces, a 17 MB tokenizer.json), JS heap
 * after a full GC: 185 MB with the tokenizer loaded as transformers.js 4.3 leaves it, of which
 * - the Unigram model's character trie (one object and one Map per prefix of every piece: 505,199
 *   nodes) is 118 MB, and
 * - the parsed tokenizer.json, kept alive by three references (the tokenizer's `_tokenizerJSON`, the
 *   inner tokenizer's `tokenizer`, the model's `config` with its vocab of [piece, score] pairs) that
 *   nothing reads after construction, is most of the rest.
 * The trie is replaced by a set of the pieces' prefixes that answers the same question (which pieces
 * start a text at a position, shortest first), so every text gets the same token ids as before.
 */
import type { PreTrainedTokenizer } from '@huggingface/transformers';

/** The parts of transformers.js' tokenizer objects this module touches (not in its public types). */
interface TokenizerInternals {
  _tokenizerJSON?: unknown;
  _tokenizer?: {
    tokenizer?: unknown;
    model?: UnigramInternals & { config?: Record<string, unknown> };
  };
}

interface UnigramInternals {
  vocab?: unknown;
  scores?: unknown;
  tokens_to_ids?: Map<string, number>;
  trie?: unknown;
}

/**
 * The pieces of a Unigram vocabulary that start a text at a position, in order of length: what the
 * Unigram model's CharTrie yields (common_prefix_search over the text's code points), from a set of
 * every piece's prefixes instead of a node per prefix.
 */
export class PiecePrefixes {
  private readonly prefixes = new Set<string>();

  constructor(
    pieces: readonly string[],
    private readonly isPiece: (s: string) => boolean,
  ) {
    for (const piece of pieces) {
      if (typeof piece !== 'string') continue;
      let end = 0;
      for (const ch of piece) {
        end += ch.length;
        // The whole piece is the vocabulary's own string; shorter prefixes are slices of it.
        this.prefixes.add(end === piece.length ? piece : piece.slice(0, end));
      }
    }
  }

  /** Every piece that `chars` (code points) begins with at `start`, shortest first. */
  *common_prefix_search(chars: readonly string[], start = 0): Generator<string> {
    let prefix = '';
    for (let i = start; i < chars.length; ++i) {
      prefix += chars[i];
      if (!this.prefixes.has(prefix)) return;
      if (this.isPiece(prefix)) yield prefix;
    }
  }
}

/**
 * Drops the references to the parsed tokenizer.json and, for a Unigram model, swaps its character
 * trie for PiecePrefixes. Tokenising is unchanged; anything else (a tokenizer this does not know) is
 * left as it is. Returns the tokenizer.
 */
export function compactTokenizer<T extends PreTrainedTokenizer>(tokenizer: T): T {
  const t = tokenizer as unknown as TokenizerInternals;
  const inner = t._tokenizer;
  if (!inner) return tokenizer;
  delete t._tokenizerJSON;
  delete inner.tokenizer;
  const model = inner.model;
  const ids = model?.tokens_to_ids;
  if (model && Array.isArray(model.vocab) && Array.isArray(model.scores) && model.trie !== undefined && ids instanceof Map) {
    model.trie = new PiecePrefixes(model.vocab as string[], (s) => ids.has(s));
    // The Unigram model read its vocab and scores out of config in its constructor and never again.
    if (model.config) {
      const { vocab: _vocab, ...rest } = model.config;
      model.config = rest;
    }
  }
  return tokenizer;
}
