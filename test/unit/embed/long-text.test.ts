/**
 * Pathological passage text (a Markdown page with a 339 KB inline image on one line) must embed
 * like the same passage without the blob, quickly, and never overflow the tokenizer's stack.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KEEP_OF_RUN, LONG_RUN, MAX_CHARS_PER_TOKEN, limitForEmbedding } from '../../../native/embed/limit-text.js';
import { OnnxEmbedder, planBatches } from '../../../native/embed/onnx.js';
import { writeTinyBertModel } from '../../../scripts/make-tiny-onnx.js';

const B64 = 'iVBORw0KGgoAAAANSUhEUgAAAoAAAAHgCAYAAAA10dzkAAAgAElEQVR4nOzdd3gU1f7H8';
const blob = `data:image/png;base64,${B64.repeat(Math.ceil(339_000 / B64.length))}`;
const page = (image: string): string =>
  `## 3.2 Wiring the sensor\n\nConnect the brown wire to +24 V and the blue wire to 0 V.\n\n![wiring diagram](${image})\n\nTighten the terminal screws to 0.5 N·m.`;
/** The page as the model should read it: the run "diagram](data:…)" cut to its first characters. */
const run = `diagram](${blob})`;
const pageCut = page(blob).replace(run, `${run.slice(0, KEEP_OF_RUN)}…`);

describe('limitForEmbedding', () => {
  it('cuts a long run of printable ASCII without spaces to its first characters', () => {
    const cut = limitForEmbedding(page(blob), 512);
    expect(cut).toBe(pageCut);
    expect(cut).toContain('![wiring diagram](data:image/png;base64,iVBOR');
    expect(cut.length).toBeLessThan(400);
    expect(cut).toContain('Tighten the terminal screws');
  });

  it('leaves ordinary text, long Chinese paragraphs and runs up to the limit alone', () => {
    const english = 'Remove the four screws and lift the cover. '.repeat(20);
    const chinese = '如果主轴温度超过四十五度，请检查冷却机是否运行并清洁过滤网。'.repeat(30);
    const atLimit = 'a'.repeat(LONG_RUN);
    for (const t of [english, chinese, atLimit, `see ${atLimit} there`]) expect(limitForEmbedding(t, 512)).toBe(t);
  });

  it('keeps at most maxTokens × MAX_CHARS_PER_TOKEN characters, without splitting a surrogate pair', () => {
    const long = 'word '.repeat(10_000);
    expect(limitForEmbedding(long, 512)).toHaveLength(512 * MAX_CHARS_PER_TOKEN);
    const emoji = `${'x'.repeat(15)}😀 rest`;
    expect(limitForEmbedding(emoji, 2)).toBe('x'.repeat(15));
  });
});

describe('planBatches', () => {
  it('fills batches up to the token budget (rows × longest) and the row cap', () => {
    expect(planBatches([10, 10, 10, 10], 64, 40)).toEqual([[0, 1, 2, 3]]);
    expect(planBatches([10, 10, 20, 20], 64, 40)).toEqual([[0, 1], [2, 3]]);
    expect(planBatches([5, 5, 5], 2, 1000)).toEqual([[0, 1], [2]]);
    expect(planBatches([600], 64, 512)).toEqual([[0]]);
    expect(planBatches([], 64, 512)).toEqual([]);
  });
});

describe('OnnxEmbedder on pathological text (tiny random-weight model)', () => {
  let root: string;
  let embedder: OnnxEmbedder;
  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), 'md-embed-long-'));
    writeTinyBertModel(join(root, 'tiny'), { dims: 16 });
    embedder = await OnnxEmbedder.load({ dir: join(root, 'tiny'), cacheDir: join(root, 'cache') });
  });
  afterAll(async () => {
    await embedder.dispose();
    rmSync(root, { recursive: true, force: true });
  });

  it('embeds a passage with a 339 KB inline image like the passage with the image cut', async () => {
    const started = Date.now();
    const [withBlob, withCut, again] = await embedder.embedDocuments([page(blob), pageCut, page(blob)]);
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(Array.from(withBlob!)).toEqual(Array.from(withCut!));
    expect(Array.from(again!)).toEqual(Array.from(withBlob!));
  });

  it('returns one vector per text in input order, identical texts identical, whatever the lengths', async () => {
    const texts = ['pump', 'a much longer passage about the coolant pump and its filter', 'pump', '', 'filter'];
    const batch = await embedder.embedDocuments(texts);
    expect(batch).toHaveLength(texts.length);
    for (const [i, t] of texts.entries()) {
      const [alone] = await embedder.embedDocuments([t]);
      expect(Array.from(batch[i]!)).toEqual(Array.from(alone!));
    }
  });
});

const REAL = resolve(import.meta.dirname, '../../../models/local/multilingual-e5-small');
describe.skipIf(!existsSync(join(REAL, 'onnx', 'model_quantized.onnx')))('the real e5 tokenizer on a 339 KB line', () => {
  it('embeds it instead of throwing "Maximum call stack size exceeded"', async () => {
    const e5 = await OnnxEmbedder.load({ dir: REAL, passagePrefix: 'passage: ', cacheDir: join(tmpdir(), 'md-embed-long-real') });
    try {
      const [v] = await e5.embedDocuments([page(blob)]);
      expect(v).toHaveLength(384);
    } finally {
      await e5.dispose();
    }
  }, 120_000);
});
