/**
 * A passage's vector depends on its text only, never on the passages that share its forward pass:
 * q8 weights quantise activations per pass (one scale for the batch), so the product embeds one text
 * per pass with them (onnx.ts Q8_BATCH_SIZE). Skipped, with the reason, where the real model is not
 * installed (CI, a fresh clone): run `npm run models:fetch` first.
 */
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OnnxEmbedder } from '../../../native/embed/onnx.js';

const ROOT = resolve(import.meta.dirname, '../../..');
const MODEL_DIR = process.env.MANUALDESK_E5_DIR ?? join(ROOT, 'models', 'local', 'multilingual-e5-small');
const missing = !existsSync(join(MODEL_DIR, 'onnx', 'model_quantized.onnx'));
if (missing) console.warn(`batch-independence test skipped: no ${MODEL_DIR}/onnx/model_quantized.onnx. Run \`npm run models:fetch\` to install the real models.`);

const PASSAGE = 'Check that the spindle chiller is running and its display shows 20 to 24 degrees.';
const OTHERS = [
  'Homing fails when the limit switch wiring is broken or the switch is stuck.',
  'Lubricate the ball screws every month with the grease named in the table.',
  '检查主轴冷却器是否正在运行，显示屏是否显示20至24度。',
  'If alarm E-107 appears, stop the machine and let the spindle cool for 30 minutes.',
  'The servo drive reports overcurrent when the motor cable is shorted to ground.',
];

describe.skipIf(missing)('embedding a passage with others or alone (real e5 q8)', () => {
  let q8: OnnxEmbedder;
  beforeAll(async () => {
    q8 = await OnnxEmbedder.load({ dir: MODEL_DIR, dtype: 'q8' });
  }, 120_000);
  afterAll(async () => {
    await q8?.dispose();
  });

  it('gives the same vector, bit for bit, whatever else is embedded in the same call', async () => {
    const alone = (await q8.embedDocuments([PASSAGE]))[0] as Float32Array;
    const amongOthers = await q8.embedDocuments([...OTHERS.slice(0, 2), PASSAGE, ...OTHERS.slice(2)]);
    expect(Array.from(amongOthers[2] as Float32Array)).toEqual(Array.from(alone));
    // And each of the others is what it is alone too.
    for (const [i, t] of OTHERS.slice(0, 2).entries()) expect(Array.from(amongOthers[i] as Float32Array)).toEqual(Array.from((await q8.embedDocuments([t]))[0] as Float32Array));
  });
});
