import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { OnnxEmbedder } from '../../../native/embed/onnx.js';
import { writeTinyBertModel } from '../../../scripts/make-tiny-onnx.js';

/** How often the embedder built a tokenizer from tokenizer.json, and how often it read that file itself. */
const built = vi.hoisted(() => ({ tokenizers: 0, jsonReads: 0 }));
vi.mock('node:fs', async (importOriginal) => {
  const real = await importOriginal<typeof import('node:fs')>();
  const readFileSync = ((...args: Parameters<typeof real.readFileSync>) => {
    if (String(args[0]).endsWith('tokenizer.json')) built.jsonReads++;
    return real.readFileSync(...args);
  }) as typeof real.readFileSync;
  return { ...real, default: { ...real, readFileSync }, readFileSync };
});
vi.mock('@huggingface/transformers', async (importOriginal) => {
  const real = await importOriginal<typeof import('@huggingface/transformers')>();
  return {
    ...real,
    AutoTokenizer: {
      from_pretrained: (...args: Parameters<typeof real.AutoTokenizer.from_pretrained>) => {
        built.tokenizers++;
        return real.AutoTokenizer.from_pretrained(...args);
      },
    },
  };
});

let root: string;
let modelDir: string;
beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'md-onnx-release-tok-'));
  modelDir = join(root, 'models', 'test', 'tiny-bert');
  writeTinyBertModel(modelDir, { dims: 16, seed: 5 });
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('OnnxEmbedder.release frees the ONNX session and keeps the tokenizer; the reload parses no model JSON', () => {
  it('loads the session again after release without building the tokenizer again, with the same vectors', async () => {
    const e = await OnnxEmbedder.load({ dir: modelDir, cacheDir: join(root, 'cache') });
    try {
      const texts = ['Lock out the press before the die change.', 'Bleed the hydraulic pump.'];
      const before = await e.embedDocuments(texts);
      expect(built.tokenizers).toBe(1);
      const reads = built.jsonReads;
      await e.release();
      expect(e.loaded).toBe(false);
      const again = await e.embedDocuments(texts);
      expect(e.loaded).toBe(true);
      // Building it again parsed tokenizer.json at the start of every ingest's vectors: the run's peak.
      expect(built.tokenizers).toBe(1);
      // Nor parsed to see whether it is damaged: its bytes are the ones loaded (sha256, memoised by stat).
      expect(built.jsonReads).toBe(reads);
      again.forEach((v, i) => expect(Array.from(v)).toEqual(Array.from(before[i] as Float32Array)));
    } finally {
      await e.dispose();
    }
  });
});
