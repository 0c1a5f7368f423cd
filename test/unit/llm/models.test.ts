import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ModelManifest } from '../../../native/embed/models.js';
import { addModel, findLlm, listModelStatus } from '../../../native/llm/models.js';
import { writeAnswerCheck } from '../../../native/llm/answer-check.js';

let tmp: string;
const bytes = Buffer.from('GGUF pretend weights');
const sha = createHash('sha256').update(bytes).digest('hex');

function manifest(hash: string | null): ModelManifest {
  const base = { dims: null, pooling: null, maxTokens: null, queryPrefix: null, passagePrefix: null, languages: ['en'], recommendedFor: '', source: '' };
  return {
    formatVersion: 1,
    models: [
      { ...base, id: 'Acme/tiny-chat', role: 'llm', backend: 'gguf', license: 'MIT', files: [{ name: 'tiny-chat.Q4.gguf', sha256: hash, size: bytes.length }] },
      { ...base, id: 'Acme/tiny-rerank', role: 'rerank', backend: 'onnx', license: 'MIT', files: [{ name: 'config.json', sha256: null, size: null }] },
    ],
  };
}

beforeEach(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'md-models-'));
  fs.writeFileSync(path.join(tmp, 'tiny-chat.Q4.gguf'), bytes);
});
afterEach(() => fs.rmSync(tmp, { recursive: true, force: true }));

describe('models', () => {
  it('add copies a known file after checking its sha256, and list/verify see it', async () => {
    const dest = path.join(tmp, 'models');
    const r = await addModel(path.join(tmp, 'tiny-chat.Q4.gguf'), dest, manifest(sha));
    expect(r).toEqual({ id: 'Acme/tiny-chat', role: 'llm', path: path.join(dest, 'tiny-chat.Q4.gguf'), verified: true, sha256: sha });
    const list = await listModelStatus({ dirs: [dest], manifest: manifest(sha), verify: true, inUse: ['Acme/tiny-chat'] });
    expect(list).toEqual([
      { id: 'Acme/tiny-chat', role: 'llm', installed: true, path: path.join(dest, 'tiny-chat.Q4.gguf'), verified: true, license: 'MIT', sizeBytes: bytes.length, inUse: true, answerCheck: null },
      { id: 'Acme/tiny-rerank', role: 'rerank', installed: false, path: null, verified: null, license: 'MIT', sizeBytes: null, inUse: false },
    ]);
    expect(findLlm([dest], manifest(sha), {})?.id).toBe('Acme/tiny-chat');
    // The answer check recorded beside the model shows in the list (only for a language model).
    const rec = writeAnswerCheck(path.join(dest, 'tiny-chat.Q4.gguf'), { passed: true, summary: 'passed: 9 of 12 generated answers accepted', figures: {} });
    const [llm, rerank] = await listModelStatus({ dirs: [dest], manifest: manifest(sha) });
    expect(llm?.answerCheck).toEqual({ passed: true, checkedAt: rec.checkedAt, summary: 'passed: 9 of 12 generated answers accepted' });
    expect(rerank).not.toHaveProperty('answerCheck');
  });
  it('lists a GGUF embedding model installed as a folder (weights beside their terms) and verifies every file', async () => {
    const base = manifest(null).models[0]!;
    const notice = Buffer.from('terms');
    const withEmbed: ModelManifest = {
      formatVersion: 1,
      models: [
        {
          ...base, id: 'Acme/tiny-embed (GGUF)', folder: 'tiny-embed', role: 'embed',
          files: [
            { name: 'tiny-embed.gguf', sha256: sha, size: bytes.length },
            { name: 'NOTICE.txt', sha256: createHash('sha256').update(notice).digest('hex'), size: notice.length },
          ],
        },
      ],
    };
    const folder = path.join(tmp, 'tiny-embed');
    fs.mkdirSync(folder);
    fs.writeFileSync(path.join(folder, 'tiny-embed.gguf'), bytes);
    fs.writeFileSync(path.join(folder, 'NOTICE.txt'), notice);
    const [embed] = await listModelStatus({ dirs: [tmp], manifest: withEmbed, verify: true });
    expect(embed).toMatchObject({ id: 'Acme/tiny-embed (GGUF)', role: 'embed', installed: true, path: folder, verified: true, sizeBytes: bytes.length + notice.length });
    fs.appendFileSync(path.join(folder, 'NOTICE.txt'), 'x');
    expect((await listModelStatus({ dirs: [tmp], manifest: withEmbed, verify: true }))[0]?.verified).toBe(false);
  });
  it('a checksum mismatch copies nothing', async () => {
    const dest = path.join(tmp, 'models');
    await expect(addModel(path.join(tmp, 'tiny-chat.Q4.gguf'), dest, manifest('0'.repeat(64)))).rejects.toMatchObject({ code: 'INVALID_INPUT' });
    expect(fs.existsSync(path.join(dest, 'tiny-chat.Q4.gguf'))).toBe(false);
  });
  it('verify reports a file changed after install', async () => {
    const dest = path.join(tmp, 'models');
    await addModel(path.join(tmp, 'tiny-chat.Q4.gguf'), dest, manifest(sha));
    fs.appendFileSync(path.join(dest, 'tiny-chat.Q4.gguf'), 'x');
    const [llm] = await listModelStatus({ dirs: [dest], manifest: manifest(sha), verify: true });
    expect(llm?.verified).toBe(false);
  });
  it('an unknown non-model file is refused; an unknown .gguf is accepted unverified', async () => {
    fs.writeFileSync(path.join(tmp, 'notes.txt'), 'x');
    await expect(addModel(path.join(tmp, 'notes.txt'), path.join(tmp, 'm'), manifest(sha))).rejects.toMatchObject({ code: 'UNSUPPORTED_FORMAT' });
    fs.writeFileSync(path.join(tmp, 'mine.gguf'), 'x');
    expect(await addModel(path.join(tmp, 'mine.gguf'), path.join(tmp, 'm'), manifest(sha))).toMatchObject({ id: 'mine.gguf', role: 'llm', verified: null });
  });
  it('answers with the first installed model that passed its answer check, else the first installed', () => {
    const base = manifest(null).models[0]!;
    const two: ModelManifest = { formatVersion: 1, models: [base, { ...base, id: 'Acme/larger-chat', files: [{ name: 'larger-chat.Q4.gguf', sha256: null, size: null }] }] };
    fs.writeFileSync(path.join(tmp, 'larger-chat.Q4.gguf'), bytes);
    expect(findLlm([tmp], two, {})?.id).toBe('Acme/tiny-chat');
    writeAnswerCheck(path.join(tmp, 'tiny-chat.Q4.gguf'), { passed: false, summary: 'failed', figures: {} });
    writeAnswerCheck(path.join(tmp, 'larger-chat.Q4.gguf'), { passed: true, summary: 'passed', figures: {} });
    expect(findLlm([tmp], two, {})?.id).toBe('Acme/larger-chat');
    writeAnswerCheck(path.join(tmp, 'tiny-chat.Q4.gguf'), { passed: true, summary: 'passed', figures: {} });
    expect(findLlm([tmp], two, {})?.id).toBe('Acme/tiny-chat');
    expect(findLlm([tmp], two, { MANUALDESK_LLM: path.join(tmp, 'tiny-chat.Q4.gguf') })?.path).toBe(path.join(tmp, 'tiny-chat.Q4.gguf'));
  });
  it('MANUALDESK_LLM pointing at a missing file is an error the user can act on', () => {
    expect(() => findLlm([tmp], manifest(sha), { MANUALDESK_LLM: path.join(tmp, 'nope.gguf') })).toThrow(/not a file/);
  });
});
