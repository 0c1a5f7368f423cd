#!/usr/bin/env python3
"""EmbeddingGemma-300M (sentence-transformers folder) -> one GGUF file for llama.cpp's `gemma-embedding`.

  python gemma_gguf.py <sentence-transformers folder> <out.gguf> [--type q8_0|bf16|f16|f32]

Runs in models/.venv (requirements-embeddinggemma.txt: gguf, sentencepiece, safetensors, numpy), no torch.
It writes what llama.cpp's own convert_hf_to_gguf.py writes for this model with
`--sentence-transformers-dense-modules` (class EmbeddingGemma in conversion/gemma.py of the llama.cpp
source node-llama-cpp 3.21.1 carries), so the GGUF holds the whole sentence-transformers pipeline:

  - the Gemma 3 text encoder (bidirectional attention, sliding window 512 on five layers of six);
  - mean pooling (`gemma-embedding.pooling_type` = MEAN: llama.cpp pools inside its embedding context);
  - 2_Dense (768 -> 3072) and 3_Dense (3072 -> 768), no bias, identity activation, as tensors
    `dense_2.weight` / `dense_3.weight` with `gemma-embedding.dense_{2,3}_feat_{in,out}`;
  - the SentencePiece vocabulary with tokenizer_config.json's special tokens (<bos> … <eos> added).

The normalisation (4_Normalize) is left to the caller, as for every embedder in the product.
Gemma's RMSNorm multiplies by (1 + w): the norm weights are stored as w + 1, as llama.cpp expects.
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import gguf
import numpy as np
from safetensors.numpy import load_file
from sentencepiece import SentencePieceProcessor

ARCH = gguf.MODEL_ARCH.GEMMA_EMBEDDING
TYPES = {
    "f32": (gguf.GGMLQuantizationType.F32, gguf.LlamaFileType.ALL_F32),
    "f16": (gguf.GGMLQuantizationType.F16, gguf.LlamaFileType.MOSTLY_F16),
    "bf16": (gguf.GGMLQuantizationType.BF16, gguf.LlamaFileType.MOSTLY_BF16),
    "q8_0": (gguf.GGMLQuantizationType.Q8_0, gguf.LlamaFileType.MOSTLY_Q8_0),
}
SP = gguf.TokenType


def vocab(src: Path, vocab_size: int) -> tuple[list[bytes], list[float], list[int]]:
    """Tokens, scores and types as llama.cpp's _create_vocab_sentencepiece builds them."""
    sp = SentencePieceProcessor()
    sp.LoadFromFile(str(src / "tokenizer.model"))
    tokens = [f"[PAD{i}]".encode() for i in range(vocab_size)]
    scores = [-10000.0] * vocab_size
    types = [SP.UNUSED] * vocab_size
    for i in range(min(sp.vocab_size(), vocab_size)):
        tokens[i] = sp.IdToPiece(i).encode("utf-8")
        scores[i] = sp.GetScore(i)
        types[i] = (
            SP.UNKNOWN if sp.IsUnknown(i) else SP.CONTROL if sp.IsControl(i) else SP.UNUSED if sp.IsUnused(i)
            else SP.BYTE if sp.IsByte(i) else SP.NORMAL
        )
    config = json.loads((src / "tokenizer_config.json").read_text(encoding="utf-8"))
    for key, data in config.get("added_tokens_decoder", {}).items():
        i = int(key)
        if i >= vocab_size:
            continue  # <image_soft_token> (262144) is past the text vocabulary
        text: str = data["content"]
        if data.get("special") or text in ("<pad>", "<mask>") or (text.startswith("<unused") and text.endswith(">")):
            types[i] = SP.CONTROL
        else:
            types[i] = SP.USER_DEFINED
            text = text.replace("\u2581", " ")
        tokens[i] = text.encode("utf-8")
        scores[i] = -1000.0
    return tokens, scores, types


def tensor_type(name: str, data: np.ndarray, qtype: gguf.GGMLQuantizationType) -> gguf.GGMLQuantizationType:
    """Norm vectors stay F32 (as llama.cpp's converter keeps 1-D tensors), and so do the two dense layers:
    they run once per text, not once per token, so F32 costs nothing there; the rest takes the chosen type.
    Measured (card example; 30 dev-corpus passages): Q8_0 everywhere, cosine to the F32 file min 0.99958;
    with the dense layers F32, min 0.99974 and the card's four similarities within 1.2e-3 of the card
    (F16: 3.8e-4), at twice F16's passages per CPU-second. Against gemma_reference.py's fp32 pass (nine
    texts, five languages): Q8_0 min cosine 0.99976, F16 0.999999. The Q8_0 error is spread over every
    layer matrix: F16 for any one family of them moves the card error between 4.9e-4 and 2.7e-3, F16
    for all of them (token embeddings Q8_0) costs what F16 costs. BF16 (issue 40, AVX-512 BF16 machine):
    card within 8.5e-4, cosine 0.99999 to the reference, but 1.6 passages per CPU-second against Q8_0's 1.9
    (llama.cpp's BF16 and Q8_0 matrix kernels run at about the same rate there) at 631 MB; Q5_0 (card 6.3e-3)
    and Q4_0 (2.1e-2; 1.4x Q8_0's speed through llama.cpp's repacked kernel) fail the card test."""
    if data.ndim < 2 or qtype == gguf.GGMLQuantizationType.F32 or name.startswith("dense_"):
        return gguf.GGMLQuantizationType.F32
    if qtype == gguf.GGMLQuantizationType.Q8_0 and data.shape[-1] % 32 != 0:
        return gguf.GGMLQuantizationType.F16
    return qtype


def convert(src: Path, out: Path, kind: str) -> None:
    hp = json.loads((src / "config.json").read_text(encoding="utf-8"))
    if hp.get("architectures") != ["Gemma3TextModel"]:
        sys.exit(f"{src}: not a Gemma3TextModel (config.json architectures: {hp.get('architectures')})")
    n_layer = hp["num_hidden_layers"]
    # llama.cpp's gemma-embedding marks layer il as sliding when il % 6 < 5 (its default pattern 6);
    # refuse a model whose layer types say otherwise rather than write one llama.cpp would misread.
    pattern = hp.get("_sliding_window_pattern", hp.get("sliding_window_pattern", 6))
    want = ["sliding_attention" if il % pattern < pattern - 1 else "full_attention" for il in range(n_layer)]
    if hp.get("layer_types", want) != want or pattern != 6:
        sys.exit(f"{src}: layer types do not follow llama.cpp's sliding-window pattern of 6")
    modules = json.loads((src / "modules.json").read_text(encoding="utf-8"))
    pooling = next(m["path"] for m in modules if m["type"].endswith("Pooling"))
    pool = json.loads((src / pooling / "config.json").read_text(encoding="utf-8"))
    if not pool.get("pooling_mode_mean_tokens"):
        sys.exit(f"{src}: pooling is not mean")

    qtype, ftype = TYPES[kind]
    w = gguf.GGUFWriter(str(out), gguf.MODEL_ARCH_NAMES[ARCH])
    w.add_name("EmbeddingGemma 300M")
    w.add_license("Gemma Terms of Use (https://ai.google.dev/gemma/terms)")
    w.add_file_type(ftype)
    w.add_context_length(hp["max_position_embeddings"])
    w.add_embedding_length(hp["hidden_size"])
    w.add_block_count(n_layer)
    w.add_feed_forward_length(hp["intermediate_size"])
    w.add_head_count(hp["num_attention_heads"])
    w.add_head_count_kv(hp["num_key_value_heads"])
    w.add_key_length(hp["head_dim"])
    w.add_value_length(hp["head_dim"])
    w.add_layer_norm_rms_eps(hp["rms_norm_eps"])
    w.add_rope_freq_base(hp["rope_theta"])
    w.add_rope_freq_base_swa(hp["rope_local_base_freq"])
    w.add_sliding_window(hp["sliding_window"])
    w.add_causal_attention(False)
    w.add_pooling_type(gguf.PoolingType.MEAN)

    tokens, scores, types = vocab(src, hp["vocab_size"])
    w.add_tokenizer_model("llama")
    w.add_tokenizer_pre("default")
    w.add_token_list(tokens)
    w.add_token_scores(scores)
    w.add_token_types(types)
    w.add_add_space_prefix(False)
    gguf.SpecialVocab(src, load_merges=False, n_vocab=len(tokens)).add_to_gguf(w)

    names = gguf.get_tensor_name_map(ARCH, n_layer)
    tensors: list[tuple[str, np.ndarray]] = []
    for name, data in load_file(str(src / "model.safetensors")).items():
        if name.endswith("norm.weight"):
            data = data + np.float32(1.0)
        tensors.append((name, data))
    for dense, key in (("2_Dense", "dense_2"), ("3_Dense", "dense_3")):
        cfg = json.loads((src / dense / "config.json").read_text(encoding="utf-8"))
        if cfg.get("bias") or not cfg["activation_function"].endswith("Identity"):
            sys.exit(f"{src / dense}: expected a linear layer without bias or activation")
        w.add_dense_features_dims(key, cfg["in_features"], cfg["out_features"])
        tensors.append((f"{key}_out.weight", load_file(str(src / dense / "model.safetensors"))["linear.weight"]))

    for name, data in tensors:
        new = names.get_name(name, try_suffixes=(".weight",))
        if new is None:
            sys.exit(f"no GGUF name for tensor {name}")
        data = np.ascontiguousarray(data, dtype=np.float32)
        t = tensor_type(new, data, qtype)
        if t == gguf.GGMLQuantizationType.F32:
            w.add_tensor(new, data)
        elif t == gguf.GGMLQuantizationType.F16:
            w.add_tensor(new, data.astype(np.float16))
        else:
            w.add_tensor(new, gguf.quants.quantize(data, t), raw_dtype=t)

    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("src", type=Path)
    ap.add_argument("out", type=Path)
    ap.add_argument("--type", choices=sorted(TYPES), default="q8_0")
    args = ap.parse_args()
    convert(args.src, args.out, args.type)


if __name__ == "__main__":
    main()
