import { describe, expect, it } from 'vitest';
import { buildGguf, GgmlType, GgufType, parseGguf, toHalf, type GgufValue } from '../../../native/llm/gguf.js';

describe('GGUF reader/writer', () => {
  it('round-trips metadata of every kind and tensor infos at aligned offsets', () => {
    const meta = new Map<string, GgufValue>([
      ['general.architecture', { type: GgufType.STRING, value: 'qwen2' }],
      ['qwen2.block_count', { type: GgufType.UINT32, value: 2 }],
      ['qwen2.rope.freq_base', { type: GgufType.FLOAT32, value: 10000 }],
      ['flag', { type: GgufType.BOOL, value: true }],
      ['big', { type: GgufType.UINT64, value: 1n << 40n }],
      ['tokenizer.ggml.tokens', { type: GgufType.ARRAY, value: { itemType: GgufType.STRING, items: ['a', 'é', '<|im_end|>'] } }],
      ['tokenizer.ggml.token_type', { type: GgufType.ARRAY, value: { itemType: GgufType.INT32, items: [1, 1, 3] } }],
    ]);
    const t1 = { name: 'a.weight', dims: [3], type: GgmlType.F32, data: Buffer.from(new Float32Array([1, 2, 3]).buffer) };
    const t2 = { name: 'b.weight', dims: [2, 2], type: GgmlType.F16, data: Buffer.from(new Uint16Array([toHalf(1), toHalf(-2), toHalf(0.5), 0]).buffer) };
    const buf = buildGguf(meta, [t1, t2]);
    const g = parseGguf(buf);
    expect(g.version).toBe(3);
    expect([...g.metadata.keys()]).toEqual([...meta.keys()]);
    expect(g.metadata.get('tokenizer.ggml.tokens')?.value).toEqual({ itemType: GgufType.STRING, items: ['a', 'é', '<|im_end|>'] });
    expect(g.metadata.get('big')?.value).toBe(1n << 40n);
    expect(g.metadata.get('flag')?.value).toBe(true);
    expect(g.tensors.map((t) => [t.name, t.dims.map(Number), t.type, Number(t.offset)])).toEqual([
      ['a.weight', [3], 0, 0],
      ['b.weight', [2, 2], 1, 32],
    ]);
    expect(g.dataOffset % 32).toBe(0);
    expect(buf.readFloatLE(g.dataOffset + 4)).toBe(2);
    expect(buf.readUInt16LE(g.dataOffset + 32 + 2)).toBe(0xc000); // -2 in half precision
  });
  it('converts to half precision', () => {
    expect([toHalf(1), toHalf(-2), toHalf(0.5), toHalf(65504), toHalf(1e6), toHalf(0)]).toEqual([0x3c00, 0xc000, 0x3800, 0x7bff, 0x7c00, 0]);
  });
  it('rejects a file that is not GGUF', () => {
    expect(() => parseGguf(Buffer.from('not a model at all'))).toThrow(/bad magic/);
  });
});
