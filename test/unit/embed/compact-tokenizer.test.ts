import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AutoTokenizer } from '@huggingface/transformers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compactTokenizer, PiecePrefixes } from '../../../native/embed/compact-tokenizer.js';
import { configureOfflineEnv } from '../../../native/embed/onnx.js';
import { writeTinyBertModel } from '../../../scripts/make-tiny-onnx.js';

/** A small XLM-R-style Unigram tokenizer (what e5 uses): Metaspace, <s> … </s>, pieces with scores. */
function writeTinyUnigramTokenizer(dir: string): void {
  mkdirSync(dir, { recursive: true });
  const specials = ['<s>', '<pad>', '</s>', '<unk>'];
  const words = ['▁', '▁the', '▁th', 'e', 't', 'h', '▁pump', '▁pu', 'mp', 'p', 'u', 'm', '▁oil', 'oil', 'o', 'i', 'l', '▁报警', '报', '警', '代码', '▁代', '码', '▁E', '-', '1', '0', '7', '10', '107', '▁über', 'ü', 'b', 'r', '▁😀', '😀', 'ﬁ', 'fi', 'f', '▁a', 'a', 'ab', 'abc', 'c', 's', '▁s', 'st', 'top'];
  const vocab = [...specials.map((s) => [s, 0]), ...words.map((w, i) => [w, -1 - (i % 7) * 0.5 - w.length * 0.1])];
  const special = (content: string, id: number) => ({ id, content, single_word: false, lstrip: false, rstrip: false, normalized: false, special: true });
  const tokenizer = {
    version: '1.0',
    truncation: null,
    padding: null,
    added_tokens: specials.map((s, i) => special(s, i)),
    normalizer: null,
    pre_tokenizer: { type: 'Metaspace', replacement: '▁', prepend_scheme: 'always', split: true },
    post_processor: {
      type: 'TemplateProcessing',
      single: [{ SpecialToken: { id: '<s>', type_id: 0 } }, { Sequence: { id: 'A', type_id: 0 } }, { SpecialToken: { id: '</s>', type_id: 0 } }],
      pair: [{ SpecialToken: { id: '<s>', type_id: 0 } }, { Sequence: { id: 'A', type_id: 0 } }, { SpecialToken: { id: '</s>', type_id: 0 } }, { Sequence: { id: 'B', type_id: 0 } }, { SpecialToken: { id: '</s>', type_id: 0 } }],
      special_tokens: { '<s>': { id: '<s>', ids: [0], tokens: ['<s>'] }, '</s>': { id: '</s>', ids: [2], tokens: ['</s>'] } },
    },
    decoder: { type: 'Metaspace', replacement: '▁', prepend_scheme: 'always', split: true },
    model: { type: 'Unigram', unk_id: 3, vocab, byte_fallback: false },
  };
  writeFileSync(join(dir, 'tokenizer.json'), JSON.stringify(tokenizer));
  writeFileSync(
    join(dir, 'tokenizer_config.json'),
    JSON.stringify({ tokenizer_class: 'XLMRobertaTokenizer', model_max_length: 512, bos_token: '<s>', eos_token: '</s>', unk_token: '<unk>', pad_token: '<pad>' }),
  );
}

const TEXTS = [
  'the pump oil',
  'Stop the pump: E-107 über 10 abc',
  '报警代码 E-107',
  '😀 ﬁst thhe ppumpp',
  'unknown xyz qq',
  '',
  '   ',
  'a'.repeat(300),
];

let root: string;
beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'md-compact-tok-'));
  configureOfflineEnv(join(root, 'cache'));
  writeTinyUnigramTokenizer(join(root, 'unigram'));
  writeTinyBertModel(join(root, 'wordpiece'), { dims: 8, seed: 3 });
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

const ids = (tok: (t: string, o: object) => unknown, text: string) =>
  Array.from((tok(text, { truncation: true, max_length: 64 }) as { input_ids: { data: BigInt64Array } }).input_ids.data);

describe('compactTokenizer: only what tokenising needs stays in memory', () => {
  for (const kind of ['unigram', 'wordpiece'] as const) {
    it(`${kind}: the same token ids as the tokenizer as loaded, without the parsed tokenizer.json`, async () => {
      const plain = await AutoTokenizer.from_pretrained(join(root, kind), { local_files_only: true });
      const compact = compactTokenizer(await AutoTokenizer.from_pretrained(join(root, kind), { local_files_only: true }));
      for (const t of TEXTS) expect(ids(compact, t), t).toEqual(ids(plain, t));
      const inner = compact as unknown as { _tokenizerJSON?: unknown; _tokenizer: { tokenizer?: unknown; model: { config?: { vocab?: unknown }; trie?: unknown } } };
      expect(inner._tokenizerJSON).toBeUndefined();
      expect(inner._tokenizer.tokenizer).toBeUndefined();
      if (kind === 'unigram') {
        expect(inner._tokenizer.model.config?.vocab).toBeUndefined();
        expect(inner._tokenizer.model.trie).toBeInstanceOf(PiecePrefixes);
      }
    });
  }

  it('the unigram tokenizer splits into several pieces (the fixture exercises the lattice)', async () => {
    const compact = compactTokenizer(await AutoTokenizer.from_pretrained(join(root, 'unigram'), { local_files_only: true }));
    expect(ids(compact, 'the pump oil').length).toBeGreaterThan(4);
    expect(ids(compact, 'unknown')).toContain(3n);
  });
});

describe('PiecePrefixes: the pieces a text starts with at a position, shortest first', () => {
  const pieces = ['a', 'ab', 'abc', 'b', 'x😀', 'x😀y'];
  const set = new Set(pieces);
  const index = new PiecePrefixes(pieces, (s) => set.has(s));
  it('yields every piece that is a prefix, in order of length, and stops where no piece goes on', () => {
    expect([...index.common_prefix_search(Array.from('abcd'), 0)]).toEqual(['a', 'ab', 'abc']);
    expect([...index.common_prefix_search(Array.from('abcd'), 1)]).toEqual(['b']);
    expect([...index.common_prefix_search(Array.from('x😀y'), 0)]).toEqual(['x😀', 'x😀y']);
    expect([...index.common_prefix_search(Array.from('zab'), 0)]).toEqual([]);
    expect([...index.common_prefix_search(Array.from('ab'), 2)]).toEqual([]);
  });
});
