#!/usr/bin/env python3
"""A reference forward pass of EmbeddingGemma-300M in numpy, from the sentence-transformers folder.

  python gemma_reference.py <sentence-transformers folder> [<out.json>]

Runs in models/.venv (requirements-embeddinggemma.txt: sentencepiece, safetensors, numpy), at install time
only; never by ManualDesk, npm test or CI. Written from the architecture, not from the GGUF, so that it
checks the conversion and llama.cpp rather than repeating them:

  - SentencePiece tokens with <bos> first and <eos> last (tokenizer_config.json: add_bos/add_eos);
  - token embeddings × √hidden; 24 layers of: RMSNorm (× (1 + w)) → q, k, v; RMSNorm of each head's q and
    k; RoPE (rotate-half) with base rope_theta on full-attention layers and rope_local_base_freq on
    sliding ones; bidirectional attention, scaled by query_pre_attn_scalar^-½, one shared k/v head; on
    sliding layers a token sees only tokens at most sliding_window / 2 positions away (transformers'
    bidirectional Gemma 3 sets the window to sliding_window // 2 + 1, exclusive; llama.cpp's symmetric
    window is the same); o-projection, RMSNorm, residual; RMSNorm → down(gelu_tanh(gate(x)) · up(x)) →
    RMSNorm, residual; a final RMSNorm;
  - mean pooling over every token (prompt, <bos> and <eos> included: 1_Pooling's include_prompt);
  - 2_Dense (768 → 3072) and 3_Dense (3072 → 768), no bias or activation; L2 normalisation.

Computed in float64 from the fp32 weights. It first reproduces the model card's example (exit 1 when a
similarity is more than CARD_TOLERANCE off: then the pass is wrong and its vectors are no reference), then,
given <out.json>, writes the vectors of REFERENCE_TEXTS (with the prompts and token counts) for the GGUF
fidelity test (test/unit/embed/gguf-embeddinggemma.test.ts).
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np
from safetensors import safe_open
from safetensors.numpy import load_file
from sentencepiece import SentencePieceProcessor

QUERY_PROMPT = "task: search result | query: "
DOCUMENT_PROMPT = "title: none | text: "

# The model card's example (google/embeddinggemma-300m, "Usage"): one query, four documents, similarities.
CARD_QUERY = "Which planet is known as the Red Planet?"
CARD_DOCUMENTS = [
    "Venus is often called Earth's twin because of its similar size and proximity.",
    "Mars, known for its reddish appearance, is often referred to as the Red Planet.",
    "Jupiter, the largest planet in our solar system, has a prominent red spot.",
    "Saturn, famous for its rings, is sometimes mistaken for the Red Planet.",
]
CARD_SIMILARITIES = [0.3011, 0.6359, 0.4930, 0.4889]
CARD_TOLERANCE = 5e-4  # the card prints four decimals

# Maintenance-style texts in several scripts, queries and documents (written for this check, not taken
# from any manual). The last one is long enough (> 256 tokens) to reach past the sliding layers' window.
_LONG = (
    "Replacing the hydraulic pump seal. Before you start, switch off the main isolator, lock it out and "
    "release the pressure in the accumulator by opening the bleed valve until the gauge reads zero. "
    "Place a drip tray under the pump and disconnect the suction and pressure hoses; cap them at once so "
    "that no dirt enters the circuit. Remove the four M8 screws of the pump flange and pull the pump "
    "straight out of its housing without tilting it, because the drive shaft splines are easily damaged. "
    "Take out the old shaft seal with a seal puller, clean the bore with lint-free cloth and check it for "
    "scoring; a scored bore must be replaced, not polished. Lubricate the new seal with clean hydraulic "
    "oil of the grade printed on the tank label (ISO VG 46 unless stated otherwise) and press it in with "
    "the installation tool until it sits flush with the housing face. Refit the pump, tighten the flange "
    "screws crosswise to 25 N·m, reconnect the hoses and top up the tank. Start the unit at low pressure, "
    "bleed the air at the highest point of the circuit and watch the seal for leaks for ten minutes. If "
    "fault code H-17 (low pump pressure) appears after the repair, check the suction filter and the "
    "direction of rotation of the motor before you suspect the new seal. Record the repair, the seal kit "
    "number and the oil added in the maintenance log of the machine."
)
REFERENCE_TEXTS: list[dict[str, str]] = [
    {"kind": "query", "lang": "en", "text": "Why does the spindle overheat after an hour of cutting?"},
    {"kind": "document", "lang": "en", "text": "If the spindle temperature exceeds 70 °C, stop the machine, check the coolant flow and clean the fan filter before restarting."},
    {"kind": "query", "lang": "zh", "text": "主轴过热报警怎么处理？"},
    {"kind": "document", "lang": "zh", "text": "更换液压油滤芯前，请先关闭电源并释放系统压力，然后逆时针拧下滤芯外壳。"},
    {"kind": "query", "lang": "de", "text": "Wie wird der Zahnriemen der Z-Achse gespannt?"},
    {"kind": "document", "lang": "de", "text": "Fehler E-204: Der Drucksensor meldet Unterdruck. Prüfen Sie die Ansaugleitung auf Undichtigkeiten und reinigen Sie das Sieb."},
    {"kind": "query", "lang": "ja", "text": "エラーコード31が表示されたときの対処方法"},
    {"kind": "document", "lang": "es", "text": "Antes de lubricar las guías lineales, limpie la grasa vieja con un paño seco y aplique una capa fina de aceite ISO VG 68."},
    {"kind": "document", "lang": "en", "text": _LONG},
]


def rms_norm(x: np.ndarray, w: np.ndarray, eps: float) -> np.ndarray:
    return x / np.sqrt(np.mean(x * x, axis=-1, keepdims=True) + eps) * (1.0 + w)


def gelu_tanh(x: np.ndarray) -> np.ndarray:
    return 0.5 * x * (1.0 + np.tanh(np.sqrt(2.0 / np.pi) * (x + 0.044715 * x**3)))


def rope(x: np.ndarray, base: float) -> np.ndarray:
    """Rotate-half RoPE over the last axis of x (heads, tokens, head_dim), positions 0 … tokens − 1."""
    dim = x.shape[-1]
    inv = 1.0 / base ** (np.arange(0, dim, 2, dtype=np.float64) / dim)
    ang = np.arange(x.shape[-2], dtype=np.float64)[:, None] * inv[None, :]
    cos, sin = np.cos(np.concatenate([ang, ang], -1)), np.sin(np.concatenate([ang, ang], -1))
    half = dim // 2
    rotated = np.concatenate([-x[..., half:], x[..., :half]], -1)
    return x * cos + rotated * sin


class Reference:
    def __init__(self, src: Path) -> None:
        self.hp = json.loads((src / "config.json").read_text(encoding="utf-8"))
        if self.hp.get("architectures") != ["Gemma3TextModel"] or not self.hp.get("use_bidirectional_attention"):
            sys.exit(f"{src}: not a bidirectional Gemma3TextModel")
        tok = json.loads((src / "tokenizer_config.json").read_text(encoding="utf-8"))
        self.add_bos, self.add_eos = tok.get("add_bos_token", True), tok.get("add_eos_token", True)
        self.sp = SentencePieceProcessor()
        self.sp.LoadFromFile(str(src / "tokenizer.model"))
        with safe_open(str(src / "model.safetensors"), "np") as f:
            self.embed = f.get_tensor("embed_tokens.weight")  # fp32; rows are taken as needed
            self.w = {k: f.get_tensor(k).astype(np.float64) for k in f.keys() if k != "embed_tokens.weight"}
        self.dense = [
            load_file(str(src / d / "model.safetensors"))["linear.weight"].astype(np.float64) for d in ("2_Dense", "3_Dense")
        ]

    def tokens(self, text: str) -> list[int]:
        ids = list(self.sp.EncodeAsIds(text))
        return ([self.sp.bos_id()] if self.add_bos else []) + ids + ([self.sp.eos_id()] if self.add_eos else [])

    def embed_text(self, text: str) -> np.ndarray:
        hp, w = self.hp, self.w
        eps, n_heads, n_kv, hd = hp["rms_norm_eps"], hp["num_attention_heads"], hp["num_key_value_heads"], hp["head_dim"]
        ids = self.tokens(text)
        n = len(ids)
        h = self.embed[ids].astype(np.float64) * np.sqrt(hp["hidden_size"])
        dist = np.abs(np.arange(n)[:, None] - np.arange(n)[None, :])
        window = dist > hp["sliding_window"] // 2
        scale = hp["query_pre_attn_scalar"] ** -0.5
        for il, kind in enumerate(hp["layer_types"]):
            p = f"layers.{il}."
            x = rms_norm(h, w[p + "input_layernorm.weight"], eps)
            q = (x @ w[p + "self_attn.q_proj.weight"].T).reshape(n, n_heads, hd).transpose(1, 0, 2)
            k = (x @ w[p + "self_attn.k_proj.weight"].T).reshape(n, n_kv, hd).transpose(1, 0, 2)
            v = (x @ w[p + "self_attn.v_proj.weight"].T).reshape(n, n_kv, hd).transpose(1, 0, 2)
            q = rms_norm(q, w[p + "self_attn.q_norm.weight"], eps)
            k = rms_norm(k, w[p + "self_attn.k_norm.weight"], eps)
            base = hp["rope_local_base_freq"] if kind == "sliding_attention" else hp["rope_theta"]
            q, k = rope(q, base), rope(k, base)
            k, v = np.repeat(k, n_heads // n_kv, 0), np.repeat(v, n_heads // n_kv, 0)
            s = q @ k.transpose(0, 2, 1) * scale
            if kind == "sliding_attention":
                s = np.where(window[None], -np.inf, s)
            s = np.exp(s - s.max(-1, keepdims=True))
            a = (s / s.sum(-1, keepdims=True)) @ v
            a = a.transpose(1, 0, 2).reshape(n, n_heads * hd) @ w[p + "self_attn.o_proj.weight"].T
            h = h + rms_norm(a, w[p + "post_attention_layernorm.weight"], eps)
            x = rms_norm(h, w[p + "pre_feedforward_layernorm.weight"], eps)
            m = gelu_tanh(x @ w[p + "mlp.gate_proj.weight"].T) * (x @ w[p + "mlp.up_proj.weight"].T)
            h = h + rms_norm(m @ w[p + "mlp.down_proj.weight"].T, w[p + "post_feedforward_layernorm.weight"], eps)
        h = rms_norm(h, w["norm.weight"], eps)
        v = h.mean(0)
        for d in self.dense:
            v = d @ v
        return v / np.linalg.norm(v)


def card_similarities(ref: Reference) -> list[float]:
    q = ref.embed_text(QUERY_PROMPT + CARD_QUERY)
    return [float(q @ ref.embed_text(DOCUMENT_PROMPT + d)) for d in CARD_DOCUMENTS]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("src", type=Path, help="the sentence-transformers folder (model.safetensors, config.json, …)")
    ap.add_argument("out", type=Path, nargs="?", help="where to write the reference vectors (JSON)")
    args = ap.parse_args()
    ref = Reference(args.src)
    sims = card_similarities(ref)
    worst = max(abs(s - c) for s, c in zip(sims, CARD_SIMILARITIES))
    print(f"gemma_reference: card example {', '.join(f'{s:.4f}' for s in sims)} (card {CARD_SIMILARITIES}; max error {worst:.1e})")
    if worst > CARD_TOLERANCE:
        sys.exit(f"gemma_reference: the reference pass misses the model card's example by {worst:.1e} (> {CARD_TOLERANCE}); not writing vectors")
    if args.out is None:
        return
    texts = []
    for t in REFERENCE_TEXTS:
        prompt = QUERY_PROMPT if t["kind"] == "query" else DOCUMENT_PROMPT
        vector = ref.embed_text(prompt + t["text"])
        texts.append({**t, "prompt": prompt, "tokens": len(ref.tokens(prompt + t["text"])), "vector": [round(float(x), 7) for x in vector]})
    out = {
        "about": "EmbeddingGemma-300M reference vectors from a numpy forward pass of the fp32 sentence-transformers "
        "weights (scripts/models_fetch/gemma_reference.py), unit length; the GGUF fidelity test compares the product's "
        "embeddings of prompt + text with them.",
        "cardExample": {"query": CARD_QUERY, "documents": CARD_DOCUMENTS, "card": CARD_SIMILARITIES, "reference": [round(s, 6) for s in sims]},
        "texts": texts,
    }
    args.out.write_text(json.dumps(out, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    print(f"gemma_reference: wrote {len(texts)} reference vectors to {args.out}")


if __name__ == "__main__":
    main()
