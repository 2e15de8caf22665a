#!/usr/bin/env python3
"""Writes the small ONNX models of tests/data/opset24/: one node each of the
ai.onnx operators opsets 23 and 24 add (Attention, RotaryEmbedding,
RMSNormalization, Swish, TensorScatter) and of later or rarer ones
(DeformConv, GlobalLpPool, MaxRoiPool, CumProd), and three small graphs of the
sequence and optional ops (their nodes unnamed: the importer names each after
its output, which cli_onnx_opset24.sh relies on), every input a graph input with a
fixed shape, every output declared without a shape. tests/cli/
cli_onnx_opset24.sh runs them in ONNX Runtime and compares the output shapes
with foldline's. The node attributes and shapes are those the unit tests
(test_onnx_mha, test_onnx_ops) count by hand.

Needs Debian's python3-onnx (the test suite reads the committed files).
Usage: export_opset24_ops.py OUTDIR
"""
import os
import sys

import onnx
from onnx import TensorProto as T
from onnx import helper

F, I64 = T.FLOAT, T.INT64


def graph_model(nodes, ins, outs, consts, opset):
    """Several nodes; consts: int64 initializers {name: values}."""
    graph = helper.make_graph(
        nodes, "g", [helper.make_tensor_value_info(n, t, d) for n, t, d in ins],
        [helper.make_tensor_value_info(o, t, None) for o, t in outs],
        [helper.make_tensor(k, I64, [len(v)] if isinstance(v, list) else [],
                            v if isinstance(v, list) else [v]) for k, v in consts.items()])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)],
                             ir_version=10, producer_name="foldline-tests")


def model(node, ins, opset):
    graph = helper.make_graph(
        [node], node.op_type,
        [helper.make_tensor_value_info(n, t, d) for n, t, d in ins],
        [helper.make_tensor_value_info(o, F, None) for o in node.output])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)],
                             ir_version=10, producer_name="foldline-tests")


def ms_model(node, ins, inits=()):
    """One com.microsoft node (ONNX Runtime's contrib ops) at opset 17."""
    graph = helper.make_graph(
        [node], node.op_type,
        [helper.make_tensor_value_info(n, t, d) for n, t, d in ins],
        [helper.make_tensor_value_info(o, F, None) for o in node.output], list(inits))
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17),
                                                   helper.make_opsetid("com.microsoft", 1)],
                             ir_version=8, producer_name="foldline-tests")


MODELS = {
    # 3-D GQA with a KV cache: 4 query heads, 2 key/value heads, D 8, Dv 12.
    "attention_gqa_past": model(
        helper.make_node("Attention", ["q", "k", "v", "", "pk", "pv"],
                         ["y", "present_key", "present_value", "qk"],
                         q_num_heads=4, kv_num_heads=2),
        [("q", F, [2, 3, 32]), ("k", F, [2, 5, 16]), ("v", F, [2, 5, 24]),
         ("pk", F, [2, 2, 4, 8]), ("pv", F, [2, 2, 4, 12])], 23),
    "attention_causal_softcap": model(
        helper.make_node("Attention", ["q", "k", "v"], ["y"], q_num_heads=4,
                         kv_num_heads=2, is_causal=1, softcap=50.0),
        [("q", F, [2, 3, 32]), ("k", F, [2, 3, 16]), ("v", F, [2, 3, 24])], 23),
    # 4-D, the heads from the dims, a float mask (S, T).
    "attention_4d_mask": model(
        helper.make_node("Attention", ["q", "k", "v", "mask"], ["y"]),
        [("q", F, [1, 2, 4, 8]), ("k", F, [1, 2, 6, 8]), ("v", F, [1, 2, 6, 8]),
         ("mask", F, [4, 6])], 23),
    "rotary_position_ids": model(
        helper.make_node("RotaryEmbedding", ["x", "cos", "sin", "pos"], ["y"], num_heads=4),
        [("x", F, [2, 5, 32]), ("cos", F, [16, 4]), ("sin", F, [16, 4]),
         ("pos", I64, [2, 5])], 23),
    "rotary_4d": model(
        helper.make_node("RotaryEmbedding", ["x", "cos", "sin"], ["y"]),
        [("x", F, [2, 4, 5, 8]), ("cos", F, [2, 5, 4]), ("sin", F, [2, 5, 4])], 23),
    "rms_norm_axis1": model(
        helper.make_node("RMSNormalization", ["x", "scale"], ["y"], axis=1),
        [("x", F, [2, 3, 8]), ("scale", F, [3, 8])], 23),
    "swish": model(helper.make_node("Swish", ["x"], ["y"], alpha=1.5),
                   [("x", F, [2, 3, 8])], 24),
    "tensor_scatter": model(
        helper.make_node("TensorScatter", ["past", "update", "write_indices"], ["y"]),
        [("past", F, [2, 2, 16, 8]), ("update", F, [2, 2, 3, 8]),
         ("write_indices", I64, [2])], 24),
    # GlobalLpPool and MaxRoiPool at opset 21: ONNX Runtime 1.30 has no kernel for their
    # opset-22 versions (bfloat16 added). Two groups, two offset groups, a bias and a mask: Y [1, 6, 6, 6].
    "deform_conv": model(
        helper.make_node("DeformConv", ["x", "w", "offset", "b", "mask"], ["y"], group=2,
                         offset_group=2, pads=[1, 1, 1, 1]),
        [("x", F, [1, 4, 6, 6]), ("w", F, [6, 2, 3, 3]), ("offset", F, [1, 36, 6, 6]),
         ("b", F, [6]), ("mask", F, [1, 18, 6, 6])], 22),
    "global_lp_pool": model(helper.make_node("GlobalLpPool", ["x"], ["y"], p=3),
                            [("x", F, [2, 3, 5, 7])], 21),
    "max_roi_pool": model(
        helper.make_node("MaxRoiPool", ["x", "rois"], ["y"], pooled_shape=[2, 3],
                         spatial_scale=0.5),
        [("x", F, [1, 3, 8, 10]), ("rois", F, [4, 5])], 21),
    "cum_prod": model(helper.make_node("CumProd", ["x", "axis"], ["y"]),
                      [("x", F, [3, 4]), ("axis", I64, [])], 26),
    # BitCast (opset 26), float [2, 3] to int32: the same 32 bits, shape kept.
    "bitcast": graph_model([helper.make_node("BitCast", ["x"], ["y"], to=T.INT32)],
                           [("x", F, [2, 3])], [("y", T.INT32)], {}, 26),
    # x (2,6,4) split [1,2,3] along 1: the last element (2,3,4), 3 of them,
    # concatenated back (2,6,4); split along 2 without split, keepdims 0, and
    # stacked on a new axis 0: (4,2,6).
    "seq_split": graph_model(
        [helper.make_node("SplitToSequence", ["x", "split"], ["s"], axis=1),
         helper.make_node("SequenceAt", ["s", "last"], ["a"]),
         helper.make_node("SequenceLength", ["s"], ["l"]),
         helper.make_node("ConcatFromSequence", ["s"], ["c"], axis=1),
         helper.make_node("SplitToSequence", ["x"], ["s2"], axis=2, keepdims=0),
         helper.make_node("ConcatFromSequence", ["s2"], ["st"], axis=0, new_axis=1)],
        [("x", F, [2, 6, 4])], [("a", F), ("l", I64), ("c", F), ("st", F)],
        {"split": [1, 2, 3], "last": -1}, 24),
    # [a (2,3), b (2,5)], c (2,4) inserted at 1, the last erased: [a, c]
    # concatenated along 1: (2,7); element 1 of [a, c, b]: (2,4); length 2.
    "seq_construct": graph_model(
        [helper.make_node("SequenceConstruct", ["a", "b"], ["q"]),
         helper.make_node("SequenceInsert", ["q", "c", "one"], ["q2"]),
         helper.make_node("SequenceErase", ["q2"], ["q3"]),
         helper.make_node("ConcatFromSequence", ["q3"], ["cat"], axis=1),
         helper.make_node("SequenceAt", ["q2", "one"], ["e"]),
         helper.make_node("SequenceLength", ["q3"], ["len"])],
        [("a", F, [2, 3]), ("b", F, [2, 5]), ("c", F, [2, 4])],
        [("cat", F), ("e", F), ("len", I64)], {"one": 1}, 24),
    "optional": graph_model(
        [helper.make_node("Optional", ["x"], ["o"]),
         helper.make_node("OptionalHasElement", ["o"], ["h"]),
         helper.make_node("OptionalGetElement", ["o"], ["g"])],
        [("x", F, [3, 4])], [("h", T.BOOL), ("g", F)], {}, 18),
    # DecoderMaskedMultiHeadAttention as ONNX Runtime's CPU kernel runs it (it
    # wants past_present_share_buffer 1): one decoding step, 2 heads of 4, a
    # 6-long shared cache holding 3 tokens (past_sequence_length an int32
    # initializer): present keeps the cache's shape, qk (2, 2, 1, 3 + 1).
    "ms_dmmha_self": ms_model(
        helper.make_node("DecoderMaskedMultiHeadAttention",
                         ["q", "k", "v", "mask", "ab", "pk", "pv", "psl", "", "", "b"],
                         ["y", "present_key", "present_value", "qk"], domain="com.microsoft",
                         num_heads=2, past_present_share_buffer=1, output_qk=1),
        [("q", F, [2, 1, 8]), ("k", F, [2, 1, 8]), ("v", F, [2, 1, 8]),
         ("mask", T.INT32, [2, 4]), ("ab", F, [2, 2, 1, 4]), ("pk", F, [2, 2, 6, 4]),
         ("pv", F, [2, 2, 6, 4]), ("b", F, [24])],
        [helper.make_tensor("psl", T.INT32, [1], [3])]),
    # Cross attention: key and value already (B, N, L, D), L = 5 encoder tokens.
    "ms_dmmha_cross": ms_model(
        helper.make_node("DecoderMaskedMultiHeadAttention", ["q", "k", "v"], ["y"],
                         domain="com.microsoft", num_heads=2, past_present_share_buffer=1),
        [("q", F, [2, 1, 8]), ("k", F, [2, 2, 5, 4]), ("v", F, [2, 2, 5, 4])]),
    # MoE as test_onnx_ms counts it: 4 experts, H 8, I 16, top 2 with relu;
    # top 1 with SwiGLU fused and interleaved in FC1 (the CPU kernel's form).
    "ms_moe_relu": ms_model(
        helper.make_node("MoE", ["x", "r", "w1", "b1", "w2"], ["y"], domain="com.microsoft", k=2),
        [("x", F, [3, 8]), ("r", F, [3, 4]), ("w1", F, [4, 16, 8]), ("b1", F, [4, 16]),
         ("w2", F, [4, 8, 16])]),
    "ms_moe_swiglu": ms_model(
        helper.make_node("MoE", ["x", "r", "w1", "", "w2", "b2"], ["y"], domain="com.microsoft",
                         k=1, activation_type="swiglu", swiglu_fusion=1, swiglu_limit=7.0,
                         normalize_routing_weights=1),
        [("x", F, [2, 3, 8]), ("r", F, [6, 4]), ("w1", F, [4, 32, 8]), ("w2", F, [4, 8, 16]),
         ("b2", F, [4, 8])]),
}


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    for name, m in MODELS.items():
        onnx.save(m, os.path.join(out, name + ".onnx"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
