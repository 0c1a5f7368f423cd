/**
 * Writes a tiny, deterministic BERT-like feature-extraction model in the Hugging Face folder layout
 * (config.json, tokenizer.json, tokenizer_config.json, onnx/model.onnx) so tests can run the real
 * transformers.js + onnxruntime-node loading code without any real model or network.
 *
 * The weights are random (seeded), so the vectors mean nothing; only shapes, determinism and the
 * loading path are real. The ONNX protobuf is encoded with protobufjs from a small subset of onnx.proto.
 *
 * CLI: `npx tsx scripts/make-tiny-onnx.ts <out-dir> [--seed N] [--dims N]`
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import protobuf from 'protobufjs';
import { prng } from './prng.js';

export interface TinyModelOptions {
  /** Hidden size of last_hidden_state. */
  dims?: number;
  /** PRNG seed for the weights. */
  seed?: number;
  /** Also write onnx/model_quantized.onnx (same graph, different seed), as a q8 stand-in. */
  withQuantized?: boolean;
}

export interface TinyModelInfo {
  dir: string;
  dims: number;
  vocabSize: number;
}

// Field numbers follow onnx/onnx.proto (ir_version 8, opset 14). Only what the tiny graph needs.
const ONNX_SUBSET = {
  nested: {
    onnx: {
      nested: {
        ModelProto: {
          fields: {
            irVersion: { type: 'int64', id: 1 },
            producerName: { type: 'string', id: 2 },
            graph: { type: 'GraphProto', id: 7 },
            opsetImport: { rule: 'repeated', type: 'OperatorSetIdProto', id: 8 },
          },
        },
        OperatorSetIdProto: {
          fields: { domain: { type: 'string', id: 1 }, version: { type: 'int64', id: 2 } },
        },
        GraphProto: {
          fields: {
            node: { rule: 'repeated', type: 'NodeProto', id: 1 },
            name: { type: 'string', id: 2 },
            initializer: { rule: 'repeated', type: 'TensorProto', id: 5 },
            input: { rule: 'repeated', type: 'ValueInfoProto', id: 11 },
            output: { rule: 'repeated', type: 'ValueInfoProto', id: 12 },
          },
        },
        NodeProto: {
          fields: {
            input: { rule: 'repeated', type: 'string', id: 1 },
            output: { rule: 'repeated', type: 'string', id: 2 },
            name: { type: 'string', id: 3 },
            opType: { type: 'string', id: 4 },
            attribute: { rule: 'repeated', type: 'AttributeProto', id: 5 },
          },
        },
        AttributeProto: {
          fields: {
            name: { type: 'string', id: 1 },
            i: { type: 'int64', id: 3 },
            type: { type: 'int32', id: 20 },
          },
        },
        TensorProto: {
          fields: {
            dims: { rule: 'repeated', type: 'int64', id: 1 },
            dataType: { type: 'int32', id: 2 },
            name: { type: 'string', id: 8 },
            rawData: { type: 'bytes', id: 9 },
          },
        },
        ValueInfoProto: {
          fields: { name: { type: 'string', id: 1 }, type: { type: 'TypeProto', id: 2 } },
        },
        TypeProto: {
          fields: { tensorType: { type: 'TypeProtoTensor', id: 1 } },
        },
        TypeProtoTensor: {
          fields: {
            elemType: { type: 'int32', id: 1 },
            shape: { type: 'TensorShapeProto', id: 2 },
          },
        },
        TensorShapeProto: {
          fields: { dim: { rule: 'repeated', type: 'Dimension', id: 1 } },
        },
        Dimension: {
          fields: { dimValue: { type: 'int64', id: 1 }, dimParam: { type: 'string', id: 2 } },
        },
      },
    },
  },
};

const FLOAT = 1;
const INT64 = 7;
const ATTR_INT = 2;


function floatTensor(name: string, dims: number[], rand: () => number, scale: number) {
  const n = dims.reduce((p, d) => p * d, 1);
  const data = new Float32Array(n);
  for (let i = 0; i < n; i++) data[i] = (rand() * 2 - 1) * scale;
  return { name, dims, dataType: FLOAT, rawData: new Uint8Array(data.buffer) };
}

function int64Tensor(name: string, values: number[]) {
  const data = new BigInt64Array(values.map((v) => BigInt(v)));
  return { name, dims: [values.length], dataType: INT64, rawData: new Uint8Array(data.buffer) };
}

function tokenInput(name: string) {
  return {
    name,
    type: {
      tensorType: {
        elemType: INT64,
        shape: { dim: [{ dimParam: 'batch_size' }, { dimParam: 'sequence_length' }] },
      },
    },
  };
}

/** Builds the graph: Gather(word) + Gather(type) → MatMul → Add → Tanh → × mask → last_hidden_state. */
export function buildTinyBertOnnx(vocabSize: number, dims: number, seed: number): Uint8Array {
  const rand = prng(seed);
  const root = protobuf.Root.fromJSON(ONNX_SUBSET);
  const ModelProto = root.lookupType('onnx.ModelProto');
  const node = (opType: string, input: string[], output: string[], attribute: object[] = []) => ({
    opType,
    input,
    output,
    name: `${opType}_${output[0] ?? ''}`,
    attribute,
  });
  const graph = {
    name: 'tiny_bert',
    input: [tokenInput('input_ids'), tokenInput('attention_mask'), tokenInput('token_type_ids')],
    output: [
      {
        name: 'last_hidden_state',
        type: {
          tensorType: {
            elemType: FLOAT,
            shape: {
              dim: [{ dimParam: 'batch_size' }, { dimParam: 'sequence_length' }, { dimValue: dims }],
            },
          },
        },
      },
    ],
    initializer: [
      floatTensor('word_embeddings', [vocabSize, dims], rand, 1),
      floatTensor('token_type_embeddings', [2, dims], rand, 0.1),
      floatTensor('dense_weight', [dims, dims], rand, 1 / Math.sqrt(dims)),
      floatTensor('dense_bias', [dims], rand, 0.1),
      int64Tensor('unsqueeze_axes', [2]),
    ],
    node: [
      node('Gather', ['word_embeddings', 'input_ids'], ['word_emb'], [{ name: 'axis', i: 0, type: ATTR_INT }]),
      node('Gather', ['token_type_embeddings', 'token_type_ids'], ['type_emb'], [
        { name: 'axis', i: 0, type: ATTR_INT },
      ]),
      node('Add', ['word_emb', 'type_emb'], ['emb']),
      node('MatMul', ['emb', 'dense_weight'], ['dense']),
      node('Add', ['dense', 'dense_bias'], ['dense_b']),
      node('Tanh', ['dense_b'], ['hidden']),
      node('Cast', ['attention_mask'], ['mask_f'], [{ name: 'to', i: FLOAT, type: ATTR_INT }]),
      node('Unsqueeze', ['mask_f', 'unsqueeze_axes'], ['mask_3d']),
      node('Mul', ['hidden', 'mask_3d'], ['last_hidden_state']),
    ],
  };
  const model = {
    irVersion: 8,
    producerName: 'manualdesk-make-tiny-onnx',
    opsetImport: [{ domain: '', version: 14 }],
    graph,
  };
  const err = ModelProto.verify(model);
  if (err) throw new Error(`tiny ONNX model is invalid: ${err}`);
  return ModelProto.encode(ModelProto.fromObject(model)).finish();
}

const SPECIALS = ['[PAD]', '[UNK]', '[CLS]', '[SEP]', '[MASK]'];
const WORDS = (
  'the a an and or of to in on for with is are was be it this that by from at as not no if then ' +
  'press hold release turn set check replace remove install open close clean reset restart stop start ' +
  'motor pump valve filter sensor fan belt bearing seal hose cable fuse relay switch screen panel door ' +
  'error fault code alarm warning message status light led display power supply voltage current ' +
  'temperature pressure speed level flow oil water air fuel heater bed nozzle extruder stepper axis ' +
  'home position limit endstop probe calibrate config file firmware printer machine unit system ' +
  'high low over under too hot cold short open circuit loss lost missing failed failure blocked jam ' +
  'step steps skip skips noise vibration leak leaking overheat overheating slow fast max min ' +
  'manual page table section chapter see note caution danger before after when during until ' +
  'cake flour sugar recipe oven bake kitchen garden flower music song guitar holiday beach'
).split(/\s+/);
const CHARS = 'abcdefghijklmnopqrstuvwxyz0123456789'.split('');
const PUNCT = '.,;:!?()[]{}-_/\\\'"#%&*+=<>@$'.split('');

/** A small WordPiece vocabulary: specials, whole words, single characters and ## continuations. */
export function tinyVocab(): string[] {
  const vocab = [...SPECIALS, ...PUNCT, ...CHARS, ...CHARS.map((c) => `##${c}`), ...WORDS];
  return [...new Set(vocab)];
}

function tokenizerJson(vocab: string[]): object {
  const ids = Object.fromEntries(vocab.map((t, i) => [t, i]));
  const special = (content: string) => ({
    id: ids[content],
    content,
    single_word: false,
    lstrip: false,
    rstrip: false,
    normalized: false,
    special: true,
  });
  return {
    version: '1.0',
    truncation: null,
    padding: null,
    added_tokens: SPECIALS.map(special),
    normalizer: {
      type: 'BertNormalizer',
      clean_text: true,
      handle_chinese_chars: true,
      strip_accents: null,
      lowercase: true,
    },
    pre_tokenizer: { type: 'BertPreTokenizer' },
    post_processor: {
      type: 'TemplateProcessing',
      single: [
        { SpecialToken: { id: '[CLS]', type_id: 0 } },
        { Sequence: { id: 'A', type_id: 0 } },
        { SpecialToken: { id: '[SEP]', type_id: 0 } },
      ],
      pair: [
        { SpecialToken: { id: '[CLS]', type_id: 0 } },
        { Sequence: { id: 'A', type_id: 0 } },
        { SpecialToken: { id: '[SEP]', type_id: 0 } },
        { Sequence: { id: 'B', type_id: 1 } },
        { SpecialToken: { id: '[SEP]', type_id: 1 } },
      ],
      special_tokens: {
        '[CLS]': { id: '[CLS]', ids: [ids['[CLS]']], tokens: ['[CLS]'] },
        '[SEP]': { id: '[SEP]', ids: [ids['[SEP]']], tokens: ['[SEP]'] },
      },
    },
    decoder: { type: 'WordPiece', prefix: '##', cleanup: true },
    model: {
      type: 'WordPiece',
      unk_token: '[UNK]',
      continuing_subword_prefix: '##',
      max_input_chars_per_word: 100,
      vocab: ids,
    },
  };
}

/** Writes the tiny model into `dir` (created if needed). Same options → byte-identical files. */
export function writeTinyBertModel(dir: string, options: TinyModelOptions = {}): TinyModelInfo {
  const dims = options.dims ?? 32;
  const seed = options.seed ?? 42;
  const vocab = tinyVocab();
  mkdirSync(join(dir, 'onnx'), { recursive: true });
  const config = {
    model_type: 'bert',
    architectures: ['BertModel'],
    hidden_size: dims,
    num_attention_heads: 1,
    num_hidden_layers: 1,
    intermediate_size: dims,
    max_position_embeddings: 128,
    type_vocab_size: 2,
    vocab_size: vocab.length,
    pad_token_id: 0,
  };
  const tokenizerConfig = {
    tokenizer_class: 'BertTokenizer',
    do_lower_case: true,
    model_max_length: 128,
    cls_token: '[CLS]',
    sep_token: '[SEP]',
    pad_token: '[PAD]',
    unk_token: '[UNK]',
    mask_token: '[MASK]',
  };
  writeFileSync(join(dir, 'config.json'), JSON.stringify(config, null, 2));
  writeFileSync(join(dir, 'tokenizer_config.json'), JSON.stringify(tokenizerConfig, null, 2));
  writeFileSync(join(dir, 'tokenizer.json'), JSON.stringify(tokenizerJson(vocab)));
  writeFileSync(join(dir, 'onnx', 'model.onnx'), buildTinyBertOnnx(vocab.length, dims, seed));
  if (options.withQuantized) {
    writeFileSync(join(dir, 'onnx', 'model_quantized.onnx'), buildTinyBertOnnx(vocab.length, dims, seed + 1));
  }
  return { dir, dims, vocabSize: vocab.length };
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const args = process.argv.slice(2);
  const out = args[0];
  if (!out) {
    console.error('usage: tsx scripts/make-tiny-onnx.ts <out-dir> [--seed N] [--dims N]');
    process.exit(2);
  }
  const flag = (name: string) => {
    const i = args.indexOf(name);
    return i >= 0 && args[i + 1] ? Number(args[i + 1]) : undefined;
  };
  const info = writeTinyBertModel(out, { seed: flag('--seed'), dims: flag('--dims') });
  console.log(`wrote tiny model (${info.dims}-d, vocab ${info.vocabSize}) to ${info.dir}`);
}
