"""com.microsoft cases of export_ort_sweep.py: ONNX Runtime's contrib
operators with each input and attribute variant ONNX Runtime's CPU provider
runs (see model.case; opset_import "" 17 and com.microsoft 1)."""
import math

import model
from model import K, In


def case(tag, op, ins, outs, attrs=None, extra=(), opset=17):
    model.case(tag, op, opset, ins, outs, attrs, extra, domain="com.microsoft")

F = "float"; H16 = "float16"; I32 = "int32"; I64 = "int64"; U8 = "uint8"; I8 = "int8"


def x(name, dims, dt=F, values=None):
    return In(name, dt, dims, values)


def n_(dims):
    n = 1
    for d in dims:
        n *= d
    return n


def kf(name, dims, dt=F, val=None):
    n = n_(dims)
    if val is None:
        val = [((i * 7) % 11 - 5) / 10.0 for i in range(n)] if dt in (F, H16, "double") else [i % 3 for i in range(n)]
    elif not isinstance(val, list):
        val = [val] * n
    return K(name, dt, dims, val)


def ki(name, dims, val, dt=I32):
    if not isinstance(val, list):
        val = [val] * n_(dims)
    return K(name, dt, dims, val)


# ---------------------------------------------------------------- Attention
B, S, D, N, Hd = 2, 3, 8, 2, 4
case("att_basic", "Attention", [x("in", [B, S, D]), kf("w", [D, 3 * D]), kf("b", [3 * D])], [("y", F)], dict(num_heads=N))
case("att_nobias_uni", "Attention", [x("in", [B, S, D]), kf("w", [D, 3 * D])], [("y", F)], dict(num_heads=N, unidirectional=1))
case("att_mask1d", "Attention", [x("in", [B, S, D]), kf("w", [D, 3 * D]), kf("b", [3 * D]), x("m", [B], I32, [3, 2])],
     [("y", F)], dict(num_heads=N))
case("att_mask2b", "Attention", [x("in", [B, S, D]), kf("w", [D, 3 * D]), kf("b", [3 * D]), x("m", [2 * B], I32, [3, 3, 0, 1])],
     [("y", F)], dict(num_heads=N))
case("att_mask3d_bias", "Attention", [x("in", [B, S, D]), kf("w", [D, 3 * D]), kf("b", [3 * D]), x("m", [B, S, S], I32, [1] * 18),
                                      None, x("ab", [1, N, S, S])], [("y", F)], dict(num_heads=N))
case("att_past_present", "Attention", [x("in", [B, S, D]), kf("w", [D, 3 * D]), kf("b", [3 * D]), x("m", [B, 8], I32, [1] * 16),
                                       x("past", [2, B, N, 5, Hd])], [("y", F), ("present", F)], dict(num_heads=N, unidirectional=1))
case("att_past_nomask", "Attention", [x("in", [B, 1, D]), kf("w", [D, 3 * D]), kf("b", [3 * D]), None,
                                      x("past", [2, B, N, 4, Hd])], [("y", F), ("present", F)], dict(num_heads=N))
case("att_present_nopast", "Attention", [x("in", [B, S, D]), kf("w", [D, 3 * D]), kf("b", [3 * D])],
     [("y", F), ("present", F)], dict(num_heads=N, unidirectional=1))
case("att_qkv_sizes", "Attention", [x("in", [B, S, 6]), kf("w", [6, 8 + 8 + 12]), kf("b", [28])], [("y", F)],
     dict(num_heads=N, qkv_hidden_sizes=[8, 8, 12]))
case("att_mask4d", "Attention", [x("in", [B, S, D]), kf("w", [D, 3 * D]), kf("b", [3 * D]), x("m", [B, 1, 4, 4], I32, [1] * 32)],
     [("y", F)], dict(num_heads=N))
case("att_share_buffer", "Attention", [x("in", [B, 1, D]), kf("w", [D, 3 * D]), kf("b", [3 * D]), None,
                                       x("past", [2, B, N, 6, Hd]), None, ki("psl", [1], [3])],
     [("y", F), ("present", F)], dict(num_heads=N, past_present_share_buffer=1))
case("att_f16", "Attention", [x("in", [1, 2, D], H16), kf("w", [D, 3 * D], H16), kf("b", [3 * D], H16)], [("y", H16)],
     dict(num_heads=N))

# ---------------------------------------------------------------- MultiHeadAttention
L = 5
case("mha_cross", "MultiHeadAttention", [x("q", [B, S, D]), x("k", [B, L, D]), x("v", [B, L, D])], [("y", F)], dict(num_heads=N))
case("mha_bias_present", "MultiHeadAttention", [x("q", [B, S, D]), x("k", [B, L, D]), x("v", [B, L, D]), kf("b", [3 * D])],
     [("y", F), ("pk", F), ("pv", F)], dict(num_heads=N))
case("mha_vhidden12", "MultiHeadAttention", [x("q", [B, S, D]), x("k", [B, L, D]), x("v", [B, L, 12])], [("y", F)], dict(num_heads=N))
case("mha_kv_bnsh", "MultiHeadAttention", [x("q", [B, S, D]), x("k", [B, N, L, Hd]), x("v", [B, N, L, Hd])],
     [("y", F)], dict(num_heads=N))
case("mha_packed_kv", "MultiHeadAttention", [x("q", [B, S, D]), x("k", [B, L, N, 2, Hd])], [("y", F)], dict(num_heads=N))
case("mha_packed_qkv", "MultiHeadAttention", [x("q", [B, S, N, 3, Hd])], [("y", F)], dict(num_heads=N))
case("mha_past", "MultiHeadAttention", [x("q", [B, S, D]), x("k", [B, S, D]), x("v", [B, S, D]), None, None, None,
                                        x("pk", [B, N, 4, Hd]), x("pv", [B, N, 4, Hd])],
     [("y", F), ("prk", F), ("prv", F)], dict(num_heads=N))
case("mha_past_kpm_uni", "MultiHeadAttention", [x("q", [B, S, D]), x("k", [B, S, D]), x("v", [B, S, D]), kf("b", [3 * D]),
                                                x("kpm", [B, 7], I32, [1] * 14), None,
                                                x("pk", [B, N, 4, Hd]), x("pv", [B, N, 4, Hd])],
     [("y", F), ("prk", F), ("prv", F)], dict(num_heads=N, unidirectional=1))
case("mha_attn_bias", "MultiHeadAttention", [x("q", [B, S, D]), x("k", [B, L, D]), x("v", [B, L, D]), None, None,
                                             x("ab", [B, N, S, L])], [("y", F)], dict(num_heads=N, scale=0.3))
case("mha_kpm_1d", "MultiHeadAttention", [x("q", [B, S, D]), x("k", [B, L, D]), x("v", [B, L, D]), None,
                                          x("kpm", [B], I32, [5, 3])], [("y", F)], dict(num_heads=N))
case("mha_qk_out", "MultiHeadAttention", [x("q", [B, S, D]), x("k", [B, L, D]), x("v", [B, L, D])],
     [("y", F), None, None, ("qk", F)], dict(num_heads=N))

# ---------------------------------------------------------------- GroupQueryAttention
NQ, NKV = 4, 2
Hd = 8
QD, KVD = NQ * Hd, NKV * Hd
case("gqa_prompt", "GroupQueryAttention", [x("q", [B, S, QD]), x("k", [B, S, KVD]), x("v", [B, S, KVD]), None, None,
                                           ki("sk", [B], [S - 1] * B), ki("tsl", [], [S])],
     [("y", F), ("pk", F), ("pv", F)], dict(num_heads=NQ, kv_num_heads=NKV))
case("gqa_prompt_emptypast", "GroupQueryAttention", [x("q", [B, S, QD]), x("k", [B, S, KVD]), x("v", [B, S, KVD]),
                                                     x("pk_in", [B, NKV, 0, Hd]), x("pv_in", [B, NKV, 0, Hd]),
                                                     ki("sk", [B], [S - 1] * B), ki("tsl", [], [S])],
     [("y", F), ("pk", F), ("pv", F)], dict(num_heads=NQ, kv_num_heads=NKV))
case("gqa_decode_past", "GroupQueryAttention", [x("q", [B, 1, QD]), x("k", [B, 1, KVD]), x("v", [B, 1, KVD]),
                                                x("pk_in", [B, NKV, 5, Hd]), x("pv_in", [B, NKV, 5, Hd]),
                                                ki("sk", [B], [5] * B), ki("tsl", [], [6])],
     [("y", F), ("pk", F), ("pv", F)], dict(num_heads=NQ, kv_num_heads=NKV))
case("gqa_decode_bigbuf", "GroupQueryAttention", [x("q", [B, 1, QD]), x("k", [B, 1, KVD]), x("v", [B, 1, KVD]),
                                                  x("pk_in", [B, NKV, 8, Hd]), x("pv_in", [B, NKV, 8, Hd]),
                                                  ki("sk", [B], [3] * B), ki("tsl", [], [4])],
     [("y", F), ("pk", F), ("pv", F)], dict(num_heads=NQ, kv_num_heads=NKV))
case("gqa_packed", "GroupQueryAttention", [x("q", [B, S, QD + 2 * KVD]), None, None, None, None,
                                           ki("sk", [B], [S - 1] * B), ki("tsl", [], [S])],
     [("y", F), ("pk", F), ("pv", F)], dict(num_heads=NQ, kv_num_heads=NKV))
case("gqa_rotary", "GroupQueryAttention", [x("q", [B, S, QD]), x("k", [B, S, KVD]), x("v", [B, S, KVD]), None, None,
                                           ki("sk", [B], [S - 1] * B), ki("tsl", [], [S]), kf("cos", [8, Hd // 2]), kf("sin", [8, Hd // 2])],
     [("y", F), ("pk", F), ("pv", F)], dict(num_heads=NQ, kv_num_heads=NKV, do_rotary=1))
case("gqa_rotary_inter_packed", "GroupQueryAttention", [x("q", [B, S, QD + 2 * KVD]), None, None, None, None,
                                                        ki("sk", [B], [S - 1] * B), ki("tsl", [], [S]), kf("cos", [8, Hd // 2]),
                                                        kf("sin", [8, Hd // 2])],
     [("y", F), ("pk", F), ("pv", F)], dict(num_heads=NQ, kv_num_heads=NKV, do_rotary=1, rotary_interleaved=1))
case("gqa_local_window", "GroupQueryAttention", [x("q", [B, S, QD]), x("k", [B, S, KVD]), x("v", [B, S, KVD]), None, None,
                                                 ki("sk", [B], [S - 1] * B), ki("tsl", [], [S])],
     [("y", F)], dict(num_heads=NQ, kv_num_heads=NKV, local_window_size=2, softcap=30.0))
case("gqa_seqlen_lt_total", "GroupQueryAttention", [x("q", [1, 2, QD]), x("k", [1, 2, KVD]), x("v", [1, 2, KVD]),
                                                    x("pk_in", [1, NKV, 3, Hd]), x("pv_in", [1, NKV, 3, Hd]),
                                                    ki("sk", [1], [4]), ki("tsl", [], [5])],
     [("y", F), ("pk", F), ("pv", F)], dict(num_heads=NQ, kv_num_heads=NKV))
case("gqa_f16_nopresent", "GroupQueryAttention", [x("q", [1, S, QD], H16), x("k", [1, S, KVD], H16), x("v", [1, S, KVD], H16),
                                                  None, None, ki("sk", [1], [S - 1]), ki("tsl", [], [S])],
     [("y", H16)], dict(num_heads=NQ, kv_num_heads=NKV))
case("gqa_qk_output", "GroupQueryAttention", [x("q", [B, S, QD]), x("k", [B, S, KVD]), x("v", [B, S, KVD]), None, None,
                                              ki("sk", [B], [S - 1] * B), ki("tsl", [], [S])],
     [("y", F), ("pk", F), ("pv", F), ("qk", F)], dict(num_heads=NQ, kv_num_heads=NKV, qk_output=1))

Hd = 4
# ---------------------------------------------------------------- RotaryEmbedding
case("rope_3d", "RotaryEmbedding", [x("in", [B, S, D]), x("pos", [B, S], I64), kf("cos", [8, 2]), kf("sin", [8, 2])], [("y", F)])
case("rope_3d_inter_nh", "RotaryEmbedding", [x("in", [B, S, D]), x("pos", [B, S], I64), kf("cos", [8, 2]), kf("sin", [8, 2])],
     [("y", F)], dict(interleaved=1, num_heads=N))
case("rope_4d", "RotaryEmbedding", [x("in", [B, N, S, Hd]), x("pos", [B, S], I64), kf("cos", [8, 2]), kf("sin", [8, 2])], [("y", F)])
case("rope_4d_bsnh", "RotaryEmbedding", [x("in", [B, S, N, Hd]), x("pos", [B, S], I64), kf("cos", [8, 2]), kf("sin", [8, 2])], [("y", F)])
case("rope_partial", "RotaryEmbedding", [x("in", [B, S, 16]), x("pos", [B, S], I64), kf("cos", [8, 2]), kf("sin", [8, 2])],
     [("y", F)], dict(num_heads=2, rotary_embedding_dim=4))
case("rope_pos_scalar", "RotaryEmbedding", [x("in", [B, S, D]), ki("pos", [1], [2], I64), kf("cos", [8, 2]), kf("sin", [8, 2])], [("y", F)])
case("rope_nopos", "RotaryEmbedding", [x("in", [B, S, D]), None, kf("cos", [B, S, 2]), kf("sin", [B, S, 2])], [("y", F)])

# ---------------------------------------------------------------- SkipLayerNorm
sln_in = lambda skip=(B, S, D): [x("in", [B, S, D]), x("skip", list(skip))]
case("sln_basic", "SkipLayerNormalization", sln_in() + [kf("g", [D]), kf("be", [D])], [("y", F)])
case("sln_all_outs", "SkipLayerNormalization", sln_in() + [kf("g", [D]), kf("be", [D]), kf("bi", [D])],
     [("y", F), ("mean", F), ("isv", F), ("sum", F)])
case("sln_sum_only", "SkipLayerNormalization", sln_in() + [kf("g", [D]), None, kf("bi", [D])], [("y", F), None, None, ("sum", F)])
case("sln_skip2d", "SkipLayerNormalization", sln_in((S, D)) + [kf("g", [D]), kf("be", [D])], [("y", F), ("mean", F)])
case("sln_skip1sd", "SkipLayerNormalization", sln_in((1, S, D)) + [kf("g", [D])], [("y", F), None, None, ("sum", F)])
case("sln_2d_input", "SkipLayerNormalization", [x("in", [S, D]), x("skip", [S, D]), kf("g", [D])], [("y", F), ("mean", F), ("isv", F)])
case("ssln_basic", "SkipSimplifiedLayerNormalization", sln_in() + [kf("g", [D])], [("y", F)])
case("ssln_all_outs", "SkipSimplifiedLayerNormalization", sln_in() + [kf("g", [D]), kf("bi", [D])],
     [("y", F), ("mean", F), ("isv", F), ("sum", F)])
case("ssln_sum_only_skip2d", "SkipSimplifiedLayerNormalization", sln_in((S, D)) + [kf("g", [D])], [("y", F), None, None, ("sum", F)])

# ---------------------------------------------------------------- EmbedLayerNormalization
ids = lambda n="ids": x(n, [B, S], I32)
eln = [kf("we", [10, D]), kf("pe", [6, D])]
case("eln_full", "EmbedLayerNormalization", [ids(), x("seg", [B, S], I32, [0, 1, 1, 0, 1, 0]), kf("we", [10, D]), kf("pe", [6, D]), kf("se", [2, D], val=0.1),
                                             kf("g", [D]), kf("be", [D]), x("mask", [B, S], I32, [1] * 6)], [("y", F), ("mi", I32)])
case("eln_noseg_nomask", "EmbedLayerNormalization", [ids(), None, kf("we", [10, D]), kf("pe", [6, D]), None, kf("g", [D]), kf("be", [D])],
     [("y", F), ("mi", I32)])
case("eln_sum_out", "EmbedLayerNormalization", [ids(), x("seg", [B, S], I32, [0, 1, 1, 0, 1, 0]), kf("we", [10, D]), kf("pe", [6, D]), kf("se", [2, D]),
                                                kf("g", [D]), kf("be", [D]), x("mask", [B, S], I32, [1] * 6)],
     [("y", F), ("mi", I32), ("es", F)])
case("eln_posids", "EmbedLayerNormalization", [ids(), None, kf("we", [10, D]), kf("pe", [6, D]), None, kf("g", [D]), kf("be", [D]),
                                               None, x("pid", [B, S], I32)], [("y", F), ("mi", I32), ("es", F)])
case("eln_posids_1s", "EmbedLayerNormalization", [ids(), None, kf("we", [10, D]), kf("pe", [6, D]), None, kf("g", [D]), kf("be", [D]),
                                                  None, x("pid", [1, S], I32)], [("y", F), ("mi", I32)])
case("eln_no_mask_index", "EmbedLayerNormalization", [ids(), None, kf("we", [10, D]), kf("pe", [6, D]), None, kf("g", [D]), kf("be", [D])],
     [("y", F), None, ("es", F)])
case("eln_mask_type0", "EmbedLayerNormalization", [ids(), x("seg", [B, S], I32, [0, 1, 1, 0, 1, 0]), kf("we", [10, D]), kf("pe", [6, D]), kf("se", [2, D]),
                                                   kf("g", [D]), kf("be", [D]), x("mask", [B, S], I32, [1] * 6)],
     [("y", F), ("mi", I32)], dict(mask_index_type=0))

# ---------------------------------------------------------------- MatMulNBits
case("mnb_4b", "MatMulNBits", [x("a", [2, 3, 16]), kf("b", [8, 1, 8], U8), kf("s", [8])], [("y", F)],
     dict(K=16, N=8, bits=4, block_size=16))
case("mnb_4b_zp_bias", "MatMulNBits", [x("a", [2, 3, 16]), kf("b", [8, 1, 8], U8), kf("s", [8]), kf("zp", [8], U8, 0x88), None, kf("bias", [8])],
     [("y", F)], dict(K=16, N=8, bits=4, block_size=16, accuracy_level=4))
case("mnb_8b", "MatMulNBits", [x("a", [3, 16]), kf("b", [8, 1, 16], U8), kf("s", [8]), kf("zp", [8], U8, 128)], [("y", F)],
     dict(K=16, N=8, bits=8, block_size=16))
case("mnb_4b_3blocks", "MatMulNBits", [x("a", [5, 48]), kf("b", [6, 3, 8], U8), kf("s", [18]), kf("zp", [12], U8, 0x88)], [("y", F)],
     dict(K=48, N=6, bits=4, block_size=16, accuracy_level=1))
case("mnb_4b_gidx", "MatMulNBits", [x("a", [1, 2, 32]), kf("b", [8, 2, 8], U8), kf("s", [16]), kf("zp", [8], U8, 0x88),
                                    ki("g", [32], [i // 16 for i in range(32)])], [("y", F)], dict(K=32, N=8, bits=4, block_size=16))
case("mnb_4b_fzp", "MatMulNBits", [x("a", [2, 32]), kf("b", [4, 1, 16], U8), kf("s", [4]), kf("zp", [4], F, 8.0)], [("y", F)],
     dict(K=32, N=4, bits=4, block_size=32))
case("mnb_4b_f16", "MatMulNBits", [x("a", [2, 16], H16), kf("b", [8, 1, 8], U8), kf("s", [8], H16)], [("y", H16)],
     dict(K=16, N=8, bits=4, block_size=16))
case("mnb_4b_1d", "MatMulNBits", [x("a", [16]), kf("b", [8, 1, 8], U8), kf("s", [8])], [("y", F)], dict(K=16, N=8, bits=4, block_size=16))
case("mnb_2b", "MatMulNBits", [x("a", [2, 32]), kf("b", [4, 1, 8], U8), kf("s", [4])], [("y", F)], dict(K=32, N=4, bits=2, block_size=32))

# ---------------------------------------------------------------- GatherBlockQuantized
case("gbq_int4", "GatherBlockQuantized", [kf("d", [6, 32], "int4"), x("i", [2, 3], I64), kf("s", [6, 2])], [("y", F)],
     dict(block_size=16, gather_axis=0, quantize_axis=1))
case("gbq_u8_4bit", "GatherBlockQuantized", [kf("d", [6, 16], U8), x("i", [2, 3], I64), kf("s", [6, 2])], [("y", F)],
     dict(block_size=16, gather_axis=0, quantize_axis=1, bits=4))
case("gbq_u8_4bit_zp", "GatherBlockQuantized", [kf("d", [6, 16], U8), x("i", [4], I32), kf("s", [6, 2]), kf("zp", [6, 1], U8, 0x88)],
     [("y", F)], dict(block_size=16, gather_axis=0, quantize_axis=1, bits=4))
case("gbq_u8_8bit_zp", "GatherBlockQuantized", [kf("d", [6, 32], U8), x("i", [2, 3], I64), kf("s", [6, 2]), kf("zp", [6, 2], U8, 128)],
     [("y", F)], dict(block_size=16, gather_axis=0, quantize_axis=1, bits=8))
case("gbq_int4_ax1", "GatherBlockQuantized", [kf("d", [32, 6], "int4"), x("i", [4], I64), kf("s", [2, 6])], [("y", F)],
     dict(block_size=16, gather_axis=1, quantize_axis=0))
case("gbq_uint4_3d", "GatherBlockQuantized", [kf("d", [2, 6, 16], "uint4"), x("i", [3], I64), kf("s", [2, 6, 1])], [("y", F)],
     dict(block_size=16, gather_axis=1, quantize_axis=2))

# ---------------------------------------------------------------- DynamicQuantizeMatMul / MatMulIntegerToFloat / MatMulInteger16
case("dqmm_basic", "DynamicQuantizeMatMul", [x("a", [2, 3, 8]), kf("b", [8, 4], I8), kf("bs", [1]), kf("bzp", [1], I8, 0)], [("y", F)])
case("dqmm_percol_bias", "DynamicQuantizeMatMul", [x("a", [3, 8]), kf("b", [8, 4], I8), kf("bs", [4]), None, kf("bias", [4])], [("y", F)])
case("dqmm_u8_bcast", "DynamicQuantizeMatMul", [x("a", [3, 8]), kf("b", [2, 8, 4], U8), kf("bs", []), kf("bzp", [], U8, 1)], [("y", F)])
case("mmitf_basic", "MatMulIntegerToFloat", [x("a", [2, 3, 8], U8), kf("b", [8, 4], I8), kf("as", []), kf("bs", [4]),
                                             kf("azp", [], U8, 1), kf("bzp", [4], I8, 0), kf("bias", [4])], [("y", F)])
case("mmitf_noopt", "MatMulIntegerToFloat", [x("a", [3, 8], U8), kf("b", [8, 4], U8), kf("as", []), kf("bs", [])], [("y", F)])
case("mmitf_bcast", "MatMulIntegerToFloat", [x("a", [2, 1, 3, 8], I8), kf("b", [4, 8, 5], I8), kf("as", []), kf("bs", [])], [("y", F)])
case("mmi16", "MatMulInteger16", [x("a", [2, 3, 4], "int16"), kf("b", [4, 5], "int16")], [("y", I32)])

# ---------------------------------------------------------------- QAttention
case("qatt_basic", "QAttention", [x("in", [B, S, D], U8), kf("w", [D, 3 * D], U8), kf("b", [3 * D]), kf("is", [], F, 0.1),
                                  kf("ws", [], F, 0.1)], [("y", F)], dict(num_heads=N))
case("qatt_mask_zp", "QAttention", [x("in", [B, S, D], U8), kf("w", [D, 3 * D], I8), kf("b", [3 * D]), kf("is", [], F, 0.1),
                                    kf("ws", [], F, 0.1), x("m", [B], I32, [3, 2]), kf("izp", [], U8, 1), kf("wzp", [], I8, 0)],
     [("y", F)], dict(num_heads=N))
case("qatt_past", "QAttention", [x("in", [B, 1, D], U8), kf("w", [D, 3 * D], U8), kf("b", [3 * D]), kf("is", [], F, 0.1),
                                 kf("ws", [], F, 0.1), None, None, None, x("past", [2, B, N, 4, Hd])],
     [("y", F), ("present", F)], dict(num_heads=N, unidirectional=1))
case("qatt_perchan_w", "QAttention", [x("in", [B, S, D], U8), kf("w", [D, 3 * D], U8), kf("b", [3 * D]), kf("is", [], F, 0.1),
                                      kf("ws", [3 * D], F, 0.1), None, None, kf("wzp", [3 * D], U8, 1)], [("y", F)], dict(num_heads=N))

# ---------------------------------------------------------------- QGemm
qa = lambda: [x("a", [3, 4], U8), kf("as", [], F, 0.1), kf("azp", [], U8, 1)]
case("qgemm_float_out", "QGemm", qa() + [kf("b", [4, 5], U8), kf("bs", [], F, 0.1), kf("bzp", [], U8, 1)], [("y", F)])
case("qgemm_q_out_c", "QGemm", qa() + [kf("b", [5, 4], I8), kf("bs", [], F, 0.1), kf("bzp", [], I8, 0), kf("c", [5], I32, 1),
                                       kf("ys", [], F, 0.2), kf("yzp", [], U8, 3)], [("y", U8)], dict(transB=1, alpha=0.5))
case("qgemm_transA", "QGemm", [x("a", [4, 3], U8), kf("as", [], F, 0.1), kf("azp", [], U8, 1), kf("b", [4, 5], U8), kf("bs", [5], F, 0.1),
                               kf("bzp", [5], U8, 1), kf("c", [3, 5], I32, 1)], [("y", F)], dict(transA=1))

# ---------------------------------------------------------------- QLinear* family
q = lambda n, dims, dt=U8: [x(n, dims, dt), kf(n + "_s", [], F, 0.05), kf(n + "_zp", [], dt, 2)]
qo = lambda n="y", dt=U8: [kf(n + "_s", [], F, 0.1), kf(n + "_zp", [], dt, 3)]
case("qladd_bcast", "QLinearAdd", q("a", [2, 3, 4]) + q("b", [4]) + qo(), [("y", U8)])
case("qladd_i8_bcast2", "QLinearAdd", q("a", [3, 1], I8) + q("b", [1, 5], I8) + qo("y", I8), [("y", I8)])
case("qlmul_bcast", "QLinearMul", q("a", [2, 1, 4]) + q("b", [3, 1]) + qo(), [("y", U8)])
case("qlconv_basic", "QLinearConv", q("x", [1, 2, 5, 5]) + [kf("w", [3, 2, 3, 3], U8), kf("ws", [], F, 0.1), kf("wzp", [], U8, 1)] + qo()
     + [kf("bias", [3], I32, 1)], [("y", U8)], dict(pads=[1, 1, 1, 1], strides=[2, 2]))
case("qlconv_group_i8", "QLinearConv", q("x", [1, 4, 6, 6], I8) + [kf("w", [4, 2, 3, 3], I8), kf("ws", [4], F, 0.1), kf("wzp", [4], I8, 0)]
     + qo("y", I8), [("y", I8)], dict(group=2, dilations=[2, 2]))
case("qlconv_nhwc", "QLinearConv", q("x", [1, 5, 5, 2]) + [kf("w", [3, 2, 3, 3], U8), kf("ws", [], F, 0.1), kf("wzp", [], U8, 1)] + qo(),
     [("y", U8)], dict(channels_last=1, pads=[1, 1, 1, 1]))
case("qlap_basic", "QLinearAveragePool", q("x", [1, 2, 6, 6]) + qo(), [("y", U8)], dict(kernel_shape=[3, 3], strides=[2, 2]))
case("qlap_ceil_pad", "QLinearAveragePool", q("x", [1, 2, 7, 7]) + qo(), [("y", U8)],
     dict(kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1], ceil_mode=1, count_include_pad=1))
case("qlap_nhwc", "QLinearAveragePool", q("x", [1, 6, 6, 2]) + qo(), [("y", U8)], dict(kernel_shape=[2, 2], strides=[2, 2], channels_last=1))
case("qlgap", "QLinearGlobalAveragePool", q("x", [1, 3, 4, 5]) + qo(), [("y", U8)])
case("qlgap_nhwc", "QLinearGlobalAveragePool", q("x", [1, 4, 5, 3]) + qo(), [("y", U8)], dict(channels_last=1))
case("qlconcat", "QLinearConcat", qo() + q("a", [2, 3]) + q("b", [2, 5]), [("y", U8)], dict(axis=1))
case("qlconcat_neg", "QLinearConcat", qo("y", I8) + q("a", [2, 3, 1], I8) + q("b", [2, 3, 2], I8) + q("c", [2, 3, 1], I8),
     [("y", I8)], dict(axis=-1))
case("qlleaky", "QLinearLeakyRelu", q("x", [2, 3]) + qo(), [("y", U8)], dict(alpha=0.1))
case("qlsigmoid_i8", "QLinearSigmoid", q("x", [2, 3], I8) + qo("y", I8), [("y", I8)])
case("qlrmean_keep", "QLinearReduceMean", q("x", [2, 3, 4]) + qo(), [("y", U8)], dict(axes=[1], keepdims=1))
case("qlrmean_nokeep", "QLinearReduceMean", q("x", [2, 3, 4]) + qo(), [("y", U8)], dict(axes=[0, -1], keepdims=0))
case("qlsoftmax13", "QLinearSoftmax", q("x", [2, 3, 4]) + qo(), [("y", U8)], dict(axis=-1, opset=13))
case("qlsoftmax12", "QLinearSoftmax", q("x", [2, 3, 4]) + qo(), [("y", U8)], dict(axis=1, opset=12))
case("qlwhere", "QLinearWhere", [x("c", [3, 1], "bool")] + q("a", [1, 4]) + q("b", [4]) + qo(), [("y", U8)])
case("cqlin", "QuantizeLinear", [x("x", [2, 3]), kf("s", [], F, 0.1), kf("zp", [], U8, 1)], [("y", U8)])
case("cqlin_axis_i8", "QuantizeLinear", [x("x", [2, 3, 4]), kf("s", [3], F, 0.1), kf("zp", [3], I8, 0)], [("y", I8)], dict(axis=1))
case("cqlin_f16", "QuantizeLinear", [x("x", [2, 3], H16), kf("s", [], H16)], [("y", U8)])
case("cdqlin", "DequantizeLinear", [x("x", [2, 3], U8), kf("s", [], F, 0.1), kf("zp", [], U8, 1)], [("y", F)])
case("cdqlin_axis", "DequantizeLinear", [x("x", [2, 3, 4], I8), kf("s", [4], F, 0.1), kf("zp", [4], I8, 0)], [("y", F)], dict(axis=-1))
case("cdqlin_i32", "DequantizeLinear", [x("x", [2, 3], I32), kf("s", [], F, 0.1)], [("y", F)])

# ---------------------------------------------------------------- Fused*
case("fconv_relu", "FusedConv", [x("x", [1, 2, 5, 5]), kf("w", [3, 2, 3, 3]), kf("b", [3])], [("y", F)],
     dict(activation="Relu", pads=[1, 1, 1, 1]))
case("fconv_sum", "FusedConv", [x("x", [1, 2, 5, 5]), kf("w", [3, 2, 3, 3]), kf("b", [3]), x("z", [1, 3, 3, 3])], [("y", F)],
     dict(activation="Relu"))
case("fconv_leaky_stride", "FusedConv", [x("x", [1, 4, 7, 6]), kf("w", [4, 2, 3, 2])], [("y", F)],
     dict(activation="LeakyRelu", activation_params=[0.2], strides=[2, 2], group=2, auto_pad="SAME_UPPER"))
case("fconv_1d_clip", "FusedConv", [x("x", [2, 3, 9]), kf("w", [4, 3, 3])], [("y", F)],
     dict(activation="Clip", activation_params=[0.0, 6.0], dilations=[2]))
case("fgemm_basic", "FusedGemm", [x("a", [3, 4]), kf("b", [4, 5]), kf("c", [5])], [("y", F)], dict(activation="Relu"))
case("fgemm_trans", "FusedGemm", [x("a", [4, 3]), kf("b", [5, 4])], [("y", F)],
     dict(transA=1, transB=1, alpha=0.5, activation="LeakyRelu", activation_alpha=0.1))
case("fgemm_c_2d", "FusedGemm", [x("a", [3, 4]), kf("b", [4, 5]), kf("c", [3, 1])], [("y", F)], dict(beta=2.0, activation="Tanh"))
case("fmm_basic", "FusedMatMul", [x("a", [2, 3, 4]), kf("b", [4, 5])], [("y", F)], dict(alpha=0.5))
case("fmm_transB", "FusedMatMul", [x("a", [2, 3, 4]), kf("b", [2, 5, 4])], [("y", F)], dict(transB=1))
case("fmm_transA_bcast", "FusedMatMul", [x("a", [2, 1, 4, 3]), kf("b", [3, 4, 5])], [("y", F)], dict(transA=1))
case("fmm_transBatchA", "FusedMatMul", [x("a", [3, 2, 4]), kf("b", [2, 4, 5])], [("y", F)], dict(transBatchA=1))
case("fmm_transBatchB", "FusedMatMul", [x("a", [2, 3, 4]), kf("b", [4, 2, 5])], [("y", F)], dict(transBatchB=1))
case("fmm_transBatchA_transA", "FusedMatMul", [x("a", [4, 2, 3]), kf("b", [2, 4, 5])], [("y", F)], dict(transBatchA=1, transA=1))
case("fmm_1d", "FusedMatMul", [x("a", [4]), kf("b", [4, 5])], [("y", F)])
case("fmm_both1d", "FusedMatMul", [x("a", [4]), kf("b", [4])], [("y", F)])
case("fmm_4d_transBatchB_transB", "FusedMatMul", [x("a", [2, 2, 3, 4]), kf("b", [5, 2, 2, 4])], [("y", F)], dict(transBatchB=1, transB=1))

# ---------------------------------------------------------------- Gelu family
case("biasgelu", "BiasGelu", [x("a", [2, 3, 8]), kf("b", [8])], [("y", F)])
case("fastgelu_bias", "FastGelu", [x("a", [2, 3, 8]), kf("b", [8])], [("y", F)])
case("fastgelu_nobias", "FastGelu", [x("a", [5])], [("y", F)])
case("gelu", "Gelu", [x("a", [2, 3])], [("y", F)])
case("quickgelu", "QuickGelu", [x("a", [2, 3, 4])], [("y", F)], dict(alpha=1.702))
case("gemmfastgelu", "GemmFastGelu", [x("a", [3, 4]), kf("b", [4, 5]), kf("bias", [5])], [("y", F)])
case("biassplitgelu", "BiasSplitGelu", [x("a", [2, 4, 8]), kf("b", [8])], [("y", F)])
case("biasadd", "BiasAdd", [x("a", [2, 4, 8]), kf("b", [8]), x("s", [2, 4, 8])], [("y", F)])
case("biasdropout", "BiasDropout", [x("a", [2, 3, 8]), kf("b", [8]), x("r", [2, 3, 8])], [("y", F), ("mask", "bool")])
case("biassoftmax", "BiasSoftmax", [x("a", [2, 3, 8]), x("b", [2, 3, 8])], [("y", F)], dict(axis=-1, is_inner_broadcast=0))

# ---------------------------------------------------------------- GroupNorm / Nhwc
case("groupnorm", "GroupNorm", [x("a", [1, 4, 4, 8]), kf("g", [8]), kf("b", [8])], [("y", F)],
     dict(groups=2, activation=1, epsilon=1e-5, channels_last=1))
case("skipgroupnorm", "SkipGroupNorm", [x("a", [1, 4, 4, 8]), kf("g", [8]), kf("b", [8]), x("s", [1, 4, 4, 8])], [("y", F), ("sum", F)],
     dict(groups=2, activation=0, epsilon=1e-5, channels_last=1))
case("nhwcconv", "NhwcConv", [x("x", [1, 5, 5, 2]), kf("w", [3, 3, 3, 2])], [("y", F)], dict(pads=[1, 1, 1, 1]))
case("nhwcconv_f16", "NhwcConv", [x("x", [1, 5, 5, 2], H16), kf("w", [3, 3, 3, 2], H16)], [("y", H16)])
case("nhwcfusedconv_f16", "NhwcFusedConv", [x("x", [1, 5, 5, 2], H16), kf("w", [3, 3, 3, 2], H16), kf("b", [3], H16)], [("y", H16)],
     dict(activation="Relu"))
case("nhwcmaxpool_u8", "NhwcMaxPool", [x("x", [1, 6, 6, 3], U8)], [("y", U8)], dict(kernel_shape=[2, 2], strides=[2, 2]))
case("nhwcmaxpool_i8_pad_ceil", "NhwcMaxPool", [x("x", [1, 7, 7, 2], I8)], [("y", I8)],
     dict(kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1], ceil_mode=1))
case("nhwcmaxpool_dil", "NhwcMaxPool", [x("x", [1, 9, 9, 2], U8)], [("y", U8)], dict(kernel_shape=[3, 3], dilations=[2, 2]))

# ---------------------------------------------------------------- MoE / QMoE
E, HID, INTER, ROWS = 4, 8, 16, 6
case("moe_relu_2d", "MoE", [x("in", [ROWS, HID]), x("rp", [ROWS, E]), kf("w1", [E, INTER, HID]), kf("b1", [E, INTER]),
                            kf("w2", [E, HID, INTER]), kf("b2", [E, HID])], [("y", F)], dict(k=2, activation_type="relu"))
case("moe_relu_3d", "MoE", [x("in", [2, 3, HID]), x("rp", [ROWS, E]), kf("w1", [E, INTER, HID]), None,
                            kf("w2", [E, HID, INTER])], [("y", F)], dict(k=1, activation_type="gelu", normalize_routing_weights=1))
case("moe_oldlayout", "MoE", [x("in", [ROWS, HID]), x("rp", [ROWS, E]), kf("w1", [E, HID, INTER]), kf("b1", [E, INTER]),
                              kf("w2", [E, INTER, HID]), kf("b2", [E, HID])], [("y", F)], dict(k=2, activation_type="relu"))
case("moe_swiglu", "MoE", [x("in", [ROWS, HID]), x("rp", [ROWS, E]), kf("w1", [E, 2 * INTER, HID]), kf("b1", [E, 2 * INTER]),
                           kf("w2", [E, HID, INTER]), kf("b2", [E, HID])], [("y", F)],
     dict(k=2, activation_type="swiglu", swiglu_fusion=1))
case("qmoe_4b", "QMoE", [x("in", [ROWS, HID]), x("rp", [ROWS, E]), kf("w1", [E, INTER, HID // 2], U8), kf("s1", [E, INTER]), kf("b1", [E, INTER]),
                         kf("w2", [E, HID, INTER // 2], U8), kf("s2", [E, HID]), kf("b2", [E, HID])], [("y", F)],
     dict(k=2, activation_type="relu", expert_weight_bits=4))
case("qmoe_8b_3d", "QMoE", [x("in", [2, 3, HID]), x("rp", [ROWS, E]), kf("w1", [E, INTER, HID], U8), kf("s1", [E, INTER]), None,
                            kf("w2", [E, HID, INTER], U8), kf("s2", [E, HID])], [("y", F)],
     dict(k=1, activation_type="silu", expert_weight_bits=8))

# ---------------------------------------------------------------- misc attention-ish (mostly GPU-only)
case("sparseattn", "SparseAttention", [x("q", [1, 4, 32]), x("k", [1, 4, 16]), x("v", [1, 4, 16]), x("pk", [1, 2, 8, 8]),
                                       x("pv", [1, 2, 8, 8]), ki("bri", [1, 3], [0, 1, 3]), ki("bci", [1, 3], [0, 0, 1]),
                                       ki("tsl", [], [4]), ki("kts", [1], [4])], [("y", F), ("prk", F), ("prv", F)],
     dict(num_heads=4, kv_num_heads=2, sparse_block_size=2))
case("relposbias", "RelativePositionBias", [kf("bt", [32, N]), ki("ql", [], [3], I64), ki("kl", [], [4], I64)], [("y", F)],
     dict(max_distance=16, is_bidirectional=1))
case("gatedrelposbias", "GatedRelativePositionBias", [x("q", [1, S, D]), kf("qb", [D]), x("rel", [1, N, S, S]), kf("w", [D, 8]),
                                                      kf("b", [8]), kf("ec", [1, N, 1, 1])], [("y", F)], dict(num_heads=N))
case("longformer", "LongformerAttention", [x("in", [1, 4, D]), kf("w", [D, 3 * D]), kf("b", [3 * D]), x("m", [1, 4]),
                                           kf("gw", [D, 3 * D]), kf("gb", [3 * D]), ki("g", [1, 4], [0, 0, 0, 1])], [("y", F)],
     dict(num_heads=N, window=2))
case("dmmha", "DecoderMaskedMultiHeadAttention", [x("q", [B, 1, D]), x("k", [B, 1, D]), x("v", [B, 1, D])], [("y", F)], dict(num_heads=N))
case("dmsa", "DecoderMaskedSelfAttention", [x("in", [B, 1, D]), kf("w", [D, 3 * D]), kf("b", [3 * D]), None,
                                            x("past", [2, B, N, 6, Hd]), None, ki("psl", [1], [3])],
     [("y", F), ("present", F)], dict(num_heads=N, past_present_share_buffer=1))
case("dmmha_share", "DecoderMaskedMultiHeadAttention", [x("q", [B, 1, D]), x("k", [B, 1, D]), x("v", [B, 1, D]), None, None,
                                                        x("pk", [B, N, 6, Hd]), x("pv", [B, N, 6, Hd]), ki("psl", [1], [3])],
     [("y", F), ("prk", F), ("prv", F)], dict(num_heads=N, past_present_share_buffer=1))
case("dmmha_share_bias_mask", "DecoderMaskedMultiHeadAttention", [x("q", [B, 1, D]), x("k", [B, 1, D]), x("v", [B, 1, D]),
                                                                  x("m", [B, 4], I32, [1] * 8), None,
                                                                  x("pk", [B, N, 6, Hd]), x("pv", [B, N, 6, Hd]), ki("psl", [1], [3]),
                                                                  None, None, kf("bias", [3 * D])],
     [("y", F), ("prk", F), ("prv", F)], dict(num_heads=N, past_present_share_buffer=1))
case("dmmha_cross_bnsh", "DecoderMaskedMultiHeadAttention", [x("q", [B, 1, D]), x("k", [B, N, 5, Hd]), x("v", [B, N, 5, Hd])],
     [("y", F)], dict(num_heads=N))
case("dmmha_qk", "DecoderMaskedMultiHeadAttention", [x("q", [B, 1, D]), x("k", [B, 1, D]), x("v", [B, 1, D]), None, None,
                                                     x("pk", [B, N, 6, Hd]), x("pv", [B, N, 6, Hd]), ki("psl", [1], [3])],
     [("y", F), ("prk", F), ("prv", F), ("qk", F)], dict(num_heads=N, past_present_share_buffer=1, output_qk=1))
case("dmmha_beam", "DecoderMaskedMultiHeadAttention", [x("q", [B, 1, D]), x("k", [B, 1, D]), x("v", [B, 1, D]), None, None,
                                                       x("pk", [B, N, 6, Hd]), x("pv", [B, N, 6, Hd]), ki("psl", [1], [3]),
                                                       ki("bw", [1], [2]), ki("ci", [1, 2, 6], [0] * 12)],
     [("y", F), ("prk", F), ("prv", F)], dict(num_heads=N, past_present_share_buffer=1))
case("packedattn", "PackedAttention", [x("in", [5, D]), kf("w", [D, 3 * D]), kf("b", [3 * D]), ki("tok", [B, S], [0, 1, 2, 3, 4, 0]),
                                       ki("cu", [B + 1], [0, 3, 5])], [("y", F)], dict(num_heads=N))
case("packedmha", "PackedMultiHeadAttention", [x("q", [5, D]), x("k", [5, D]), x("v", [5, D]), None,
                                               ki("tok", [B, S], [0, 1, 2, 3, 4, 0]), ki("cu", [B + 1], [0, 3, 5])],
     [("y", F)], dict(num_heads=N))
case("qordered_gelu", "QOrderedGelu", [x("x", [2, 3, 4], I8), kf("sx", [], F, 0.1), kf("sy", [], F, 0.1)], [("y", I8)],
     dict(order_X=1, order_Y=1))
case("qordered_mm", "QOrderedMatMul", [x("a", [2, 4, 32], I8), kf("sa", [], F, 0.1), kf("b", [32, 32], I8), kf("sb", [], F, 0.1),
                                       kf("sy", [], F, 0.1)], [("y", I8)], dict(order_A=1, order_B=0, order_Y=1))
case("qordered_ln", "QOrderedLayerNormalization", [x("x", [2, 4, 32], I8), kf("sx", [], F, 0.1), kf("g", [32], H16), kf("b", [32], H16),
                                                   kf("sy", [], F, 0.1)], [("y", I8)], dict(order_X=1, order_Y=1))

# ---------------------------------------------------------------- extra GQA / MoE / Attention probes
Hd = 8
QD, KVD = 4 * Hd, 2 * Hd
case("gqa_mqa", "GroupQueryAttention", [x("q", [B, S, QD]), x("k", [B, S, Hd]), x("v", [B, S, Hd]), None, None,
                                        ki("sk", [B], [S - 1] * B), ki("tsl", [], [S])],
     [("y", F), ("pk", F), ("pv", F)], dict(num_heads=4, kv_num_heads=1))
case("gqa_decode_bigbuf_varlen", "GroupQueryAttention", [x("q", [B, 1, QD]), x("k", [B, 1, KVD]), x("v", [B, 1, KVD]),
                                                         x("pk_in", [B, 2, 8, Hd]), x("pv_in", [B, 2, 8, Hd]),
                                                         ki("sk", [B], [3, 1]), ki("tsl", [], [4])],
     [("y", F), ("pk", F), ("pv", F)], dict(num_heads=4, kv_num_heads=2))
case("gqa_rotary_past_posids", "GroupQueryAttention", [x("q", [B, 1, QD]), x("k", [B, 1, KVD]), x("v", [B, 1, KVD]),
                                                       x("pk_in", [B, 2, 5, Hd]), x("pv_in", [B, 2, 5, Hd]),
                                                       ki("sk", [B], [5] * B), ki("tsl", [], [6]), kf("cos", [8, Hd // 2]), kf("sin", [8, Hd // 2]),
                                                       ki("pid", [B, 1], [5, 5], I64)],
     [("y", F), ("pk", F), ("pv", F)], dict(num_heads=4, kv_num_heads=2, do_rotary=1))
case("gqa_attn_bias", "GroupQueryAttention", [x("q", [B, S, QD]), x("k", [B, S, KVD]), x("v", [B, S, KVD]), None, None,
                                              ki("sk", [B], [S - 1] * B), ki("tsl", [], [S]), None, None, None, x("ab", [B, 1, S, S])],
     [("y", F), ("pk", F), ("pv", F)], dict(num_heads=4, kv_num_heads=2))
case("gqa_head_sink", "GroupQueryAttention", [x("q", [B, S, QD]), x("k", [B, S, KVD]), x("v", [B, S, KVD]), None, None,
                                              ki("sk", [B], [S - 1] * B), ki("tsl", [], [S]), None, None, None, None, kf("hs", [4])],
     [("y", F)], dict(num_heads=4, kv_num_heads=2))
case("gqa_smooth_scale", "GroupQueryAttention", [x("q", [1, S, QD]), x("k", [1, S, KVD]), x("v", [1, S, KVD]), None, None,
                                                 ki("sk", [1], [S - 1]), ki("tsl", [], [S])],
     [("y", F), None, ("pv", F)], dict(num_heads=4, kv_num_heads=2, smooth_softmax=1, scale=0.2))
case("gqa_chunked_prefill_past", "GroupQueryAttention", [x("q", [1, 2, QD]), x("k", [1, 2, KVD]), x("v", [1, 2, KVD]),
                                                         x("pk_in", [1, 2, 6, Hd]), x("pv_in", [1, 2, 6, Hd]),
                                                         ki("sk", [1], [4]), ki("tsl", [], [5])],
     [("y", F), ("pk", F), ("pv", F)], dict(num_heads=4, kv_num_heads=2))
Hd = 4
E, HID, INTER, ROWS = 4, 8, 16, 6
case("moe_legacy_nobias", "MoE", [x("in", [ROWS, HID]), x("rp", [ROWS, E]), kf("w1", [E, HID, INTER]), None,
                                  kf("w2", [E, INTER, HID])], [("y", F)], dict(k=1, activation_type="silu"))
case("moe_legacy_swiglu", "MoE", [x("in", [ROWS, HID]), x("rp", [ROWS, E]), kf("w1", [E, HID, 2 * INTER]), kf("b1", [E, 2 * INTER]),
                                  kf("w2", [E, INTER, HID]), kf("b2", [E, HID])], [("y", F)],
     dict(k=2, activation_type="swiglu", swiglu_fusion=1))
case("moe_fc3", "MoE", [x("in", [ROWS, HID]), x("rp", [ROWS, E]), kf("w1", [E, INTER, HID]), None,
                        kf("w2", [E, HID, INTER]), None, kf("w3", [E, INTER, HID])], [("y", F)], dict(k=2, activation_type="silu"))
case("qmoe_legacy_8b", "QMoE", [x("in", [ROWS, HID]), x("rp", [ROWS, E]), kf("w1", [E, HID, INTER], U8), kf("s1", [E, INTER]), None,
                                kf("w2", [E, INTER, HID], U8), kf("s2", [E, HID])], [("y", F)],
     dict(k=1, activation_type="relu", expert_weight_bits=8))
case("qmoe_block", "QMoE", [x("in", [ROWS, HID]), x("rp", [ROWS, E]), kf("w1", [E, INTER, HID // 2], U8), kf("s1", [E, INTER, 1]), None,
                            kf("w2", [E, HID, INTER // 2], U8), kf("s2", [E, HID, 1])], [("y", F)],
     dict(k=2, activation_type="relu", expert_weight_bits=4, block_size=16))
case("att_nobias_nouni", "Attention", [x("in", [B, S, D]), kf("w", [D, 3 * D])], [("y", F)], dict(num_heads=N))
case("att_zero_bias_uni", "Attention", [x("in", [B, S, D]), kf("w", [D, 3 * D]), kf("b", [3 * D], F, 0.0)], [("y", F)],
     dict(num_heads=N, unidirectional=1))
case("att_past_attnbias", "Attention", [x("in", [B, 2, D]), kf("w", [D, 3 * D]), kf("b", [3 * D]), None, x("past", [2, B, N, 3, Hd]),
                                        x("ab", [B, N, 2, 5])], [("y", F), ("present", F)], dict(num_heads=N))
case("att_mask_2d_bcast1", "Attention", [x("in", [B, S, D]), kf("w", [D, 3 * D]), kf("b", [3 * D]), x("m", [B, S], I32, [1, 1, 0, 1, 1, 1])],
     [("y", F)], dict(num_heads=N, unidirectional=1))
case("mha_bias_bnsh_kv", "MultiHeadAttention", [x("q", [B, S, D]), x("k", [B, N, L, Hd]), x("v", [B, N, L, Hd]), kf("b", [3 * D])],
     [("y", F), ("pk", F), ("pv", F)], dict(num_heads=N))
case("mha_self_q_only_kv_same", "MultiHeadAttention", [x("q", [1, 1, D]), x("k", [1, 1, D]), x("v", [1, 1, D]), None, None, None,
                                                        x("pk", [1, N, 0, Hd]), x("pv", [1, N, 0, Hd])],
     [("y", F), ("prk", F), ("prv", F)], dict(num_heads=N))
case("rope_4d_partial", "RotaryEmbedding", [x("in", [B, N, S, 8]), x("pos", [B, S], I64), kf("cos", [8, 2]), kf("sin", [8, 2])],
     [("y", F)], dict(rotary_embedding_dim=4, num_heads=N))
case("rope_f16_inter", "RotaryEmbedding", [x("in", [1, S, D], H16), x("pos", [1, S], I64), kf("cos", [8, 2], H16), kf("sin", [8, 2], H16)],
     [("y", H16)], dict(interleaved=1))
case("eln_seg_only", "EmbedLayerNormalization", [ids(), x("seg", [B, S], I32, [0, 1, 1, 0, 1, 0]), kf("we", [10, D]), kf("pe", [6, D]),
                                                 kf("se", [2, D]), kf("g", [D]), kf("be", [D])], [("y", F), ("mi", I32), ("es", F)])

# rotary GQA needs head_size % 16 == 0 on CPU
Hd = 16
QD, KVD = 4 * Hd, 2 * Hd
case("gqa16_rotary", "GroupQueryAttention", [x("q", [B, S, QD]), x("k", [B, S, KVD]), x("v", [B, S, KVD]), None, None,
                                             ki("sk", [B], [S - 1] * B), ki("tsl", [], [S]), kf("cos", [8, Hd // 2]), kf("sin", [8, Hd // 2])],
     [("y", F), ("pk", F), ("pv", F)], dict(num_heads=4, kv_num_heads=2, do_rotary=1))
case("gqa16_rotary_inter_packed", "GroupQueryAttention", [x("q", [B, S, QD + 2 * KVD]), None, None, None, None,
                                                          ki("sk", [B], [S - 1] * B), ki("tsl", [], [S]), kf("cos", [8, Hd // 2]),
                                                          kf("sin", [8, Hd // 2])],
     [("y", F), ("pk", F), ("pv", F)], dict(num_heads=4, kv_num_heads=2, do_rotary=1, rotary_interleaved=1))
case("gqa16_rotary_past_posids", "GroupQueryAttention", [x("q", [B, 1, QD]), x("k", [B, 1, KVD]), x("v", [B, 1, KVD]),
                                                         x("pk_in", [B, 2, 5, Hd]), x("pv_in", [B, 2, 5, Hd]),
                                                         ki("sk", [B], [5] * B), ki("tsl", [], [6]), kf("cos", [8, Hd // 2]),
                                                         kf("sin", [8, Hd // 2]), ki("pid", [B, 1], [5, 5], I64)],
     [("y", F), ("pk", F), ("pv", F)], dict(num_heads=4, kv_num_heads=2, do_rotary=1))
case("gqa16_rotary_bigbuf", "GroupQueryAttention", [x("q", [B, 1, QD]), x("k", [B, 1, KVD]), x("v", [B, 1, KVD]),
                                                    x("pk_in", [B, 2, 7, Hd]), x("pv_in", [B, 2, 7, Hd]),
                                                    ki("sk", [B], [2, 2]), ki("tsl", [], [3]), kf("cos", [8, Hd // 2]), kf("sin", [8, Hd // 2])],
     [("y", F), ("pk", F), ("pv", F)], dict(num_heads=4, kv_num_heads=2, do_rotary=1, local_window_size=2))
Hd = 4

# ---------------------------------------------------------------- round 3 edge probes
case("mnb_k_not_mult", "MatMulNBits", [x("a", [2, 20]), kf("b", [4, 2, 8], U8), kf("s", [8]), kf("zp", [4], U8, 0x88)], [("y", F)],
     dict(K=20, N=4, bits=4, block_size=16))
case("mnb_scales2d", "MatMulNBits", [x("a", [2, 32]), kf("b", [4, 2, 8], U8), kf("s", [4, 2]), kf("zp", [4, 1], U8, 0x88)], [("y", F)],
     dict(K=32, N=4, bits=4, block_size=16))
case("mnb_8b_bias_4d", "MatMulNBits", [x("a", [1, 2, 3, 32]), kf("b", [4, 1, 32], U8), kf("s", [4]), None, None, kf("bias", [4])],
     [("y", F)], dict(K=32, N=4, bits=8, block_size=32))
case("mnb_blk64", "MatMulNBits", [x("a", [3, 64]), kf("b", [5, 1, 32], U8), kf("s", [5])], [("y", F)],
     dict(K=64, N=5, bits=4, block_size=64, accuracy_level=4))
case("gbq_neg_axes", "GatherBlockQuantized", [kf("d", [6, 32], "int4"), x("i", [2], I64), kf("s", [6, 1])], [("y", F)],
     dict(block_size=32, gather_axis=-2, quantize_axis=-1))
case("gbq_scalar_idx", "GatherBlockQuantized", [kf("d", [6, 16], U8), ki("i", [], [2], I64), kf("s", [6, 2])], [("y", F)],
     dict(block_size=16, gather_axis=0, quantize_axis=1, bits=4))
case("gbq_f16", "GatherBlockQuantized", [kf("d", [6, 32], "int4"), x("i", [2, 2], I32), kf("s", [6, 2], H16)], [("y", H16)],
     dict(block_size=16))
case("dqmm_1d", "DynamicQuantizeMatMul", [x("a", [8]), kf("b", [8, 4], I8), kf("bs", [1])], [("y", F)])
case("mmitf_1d_b", "MatMulIntegerToFloat", [x("a", [2, 8], U8), kf("b", [8], U8), kf("as", []), kf("bs", [])], [("y", F)])
case("qgemm_transA2", "QGemm", [x("a", [4, 3], U8), kf("as", [], F, 0.1), kf("azp", [], U8, 1), kf("b", [4, 5], U8), kf("bs", [5], F, 0.1),
                                kf("bzp", [5], U8, 1), kf("c", [1, 5], I32, 1)], [("y", F)], dict(transA=1))
case("qlconcat_ax0", "QLinearConcat", qo() + q("a", [1, 3]) + q("b", [2, 3]) + q("c", [3, 3]), [("y", U8)], dict(axis=0))
case("qlconv_1d", "QLinearConv", q("x", [1, 2, 9]) + [kf("w", [3, 2, 3], U8), kf("ws", [], F, 0.1), kf("wzp", [], U8, 1)] + qo(),
     [("y", U8)], dict(strides=[2], auto_pad="SAME_UPPER"))
case("qlap_1d_nhwc", "QLinearAveragePool", q("x", [1, 7, 2]) + qo(), [("y", U8)], dict(kernel_shape=[3], strides=[2], channels_last=1))
case("att_do_rotary", "Attention", [x("in", [1, 2, 64]), kf("w", [64, 192]), kf("b", [192])], [("y", F)],
     dict(num_heads=2, do_rotary=1))
case("att_scale_maskval", "Attention", [x("in", [B, S, D]), kf("w", [D, 3 * D]), kf("b", [3 * D]), x("m", [B, S], I32, [1, 1, 0, 1, 1, 1])],
     [("y", F)], dict(num_heads=N, scale=0.5, mask_filter_value=-1e4))
case("mha_mask3d", "MultiHeadAttention", [x("q", [B, S, D]), x("k", [B, L, D]), x("v", [B, L, D]), None,
                                          x("kpm", [B, S, L], I32, [1] * 30)], [("y", F)], dict(num_heads=N))
case("mha_f16", "MultiHeadAttention", [x("q", [1, S, D], H16), x("k", [1, L, D], H16), x("v", [1, L, D], H16)], [("y", H16)], dict(num_heads=N))
case("sln_f16_outs", "SkipLayerNormalization", [x("in", [1, S, D], H16), x("skip", [1, S, D], H16), kf("g", [D], H16), kf("be", [D], H16)],
     [("y", H16), ("mean", F), ("isv", F), ("sum", H16)])
case("ssln_f16_outs", "SkipSimplifiedLayerNormalization", [x("in", [1, S, D], H16), x("skip", [1, S, D], H16), kf("g", [D], H16)],
     [("y", H16), ("mean", F), ("isv", F), ("sum", H16)])
case("fmm_bcast_transBatchA", "FusedMatMul", [x("a", [3, 2, 4]), kf("b", [5, 2, 4, 6])], [("y", F)], dict(transBatchA=1))
case("fgemm_c_scalar", "FusedGemm", [x("a", [3, 4]), kf("b", [4, 5]), kf("c", [])], [("y", F)], dict(activation="Sigmoid"))
case("fconv_3d_hardsig", "FusedConv", [x("x", [1, 2, 4, 4, 4]), kf("w", [2, 2, 2, 2, 2])], [("y", F)],
     dict(activation="HardSigmoid", activation_params=[0.2, 0.5], pads=[1, 0, 1, 0, 1, 0]))
case("rope_4d_bsnh_ok", "RotaryEmbedding", [x("in", [B, 3, 3, Hd]), x("pos", [B, 3], I64), kf("cos", [8, 2]), kf("sin", [8, 2])], [("y", F)])
case("quickgelu_f16", "QuickGelu", [x("a", [2, 3], H16)], [("y", H16)])
case("biasgelu_f16", "BiasGelu", [x("a", [2, 8], H16), kf("b", [8], H16)], [("y", H16)])
case("qmoe_4b_3d_swiglu", "QMoE", [x("in", [1, 6, HID]), x("rp", [6, E]), kf("w1", [E, 2 * INTER, HID // 2], U8), kf("s1", [E, 2 * INTER]),
                                   None, kf("w2", [E, HID, INTER // 2], U8), kf("s2", [E, HID])], [("y", F)],
     dict(k=2, activation_type="swiglu", swiglu_fusion=1, expert_weight_bits=4))

# ---------------------------------------------------------------- round 4: dtype probes (float16 paths)
case("dt_sln_f16_mean_only", "SkipLayerNormalization", [x("in", [2, S, D], H16), x("skip", [S, D], H16), kf("g", [D], H16), None,
                                                        kf("bi", [D], H16)], [("y", H16), ("mean", F)])
case("dt_sln_f16_isv_only", "SkipLayerNormalization", [x("in", [2, S, D], H16), x("skip", [2, S, D], H16), kf("g", [D], H16)],
     [("y", H16), None, ("isv", F)])
case("dt_att_f16_present", "Attention", [x("in", [1, 2, D], H16), kf("w", [D, 3 * D], H16), kf("b", [3 * D], H16)],
     [("y", H16), ("present", H16)], dict(num_heads=N, unidirectional=1))
case("dt_gqa_f16_present", "GroupQueryAttention", [x("q", [1, S, 32], H16), x("k", [1, S, 16], H16), x("v", [1, S, 16], H16),
                                                   None, None, ki("sk", [1], [S - 1]), ki("tsl", [], [S])],
     [("y", H16), ("pk", H16), ("pv", H16)], dict(num_heads=4, kv_num_heads=2))
case("dt_mmitf_f16", "MatMulIntegerToFloat", [x("a", [3, 8], U8), kf("b", [8, 4], I8), kf("as", [], H16), kf("bs", [], H16)], [("y", H16)])
case("dt_eln_f16", "EmbedLayerNormalization", [ids(), None, kf("we", [10, D], H16), kf("pe", [6, D], H16), None, kf("g", [D], H16),
                                               kf("be", [D], H16)], [("y", H16), ("mi", I32), ("es", H16)])
case("dt_dqmm_bias", "DynamicQuantizeMatMul", [x("a", [3, 8]), kf("b", [8, 4], U8), kf("bs", [4]), kf("bzp", [4], U8, 1), kf("bias", [4])], [("y", F)])


# ------------------------------------------- contrib forms of ai.onnx ops
case("ms_expanddims_neg", "ExpandDims", [x("x", [2, 3, 4]), ki("ax", [], -1)], [("y", F)])
case("ms_expanddims_0", "ExpandDims", [x("x", [2, 3]), ki("ax", [], 0)], [("y", F)])
case("ms_expanddims_mid", "ExpandDims", [x("x", [2, 3, 4], I64), ki("ax", [], 2)], [("y", I64)])
case("ms_gathernd", "GatherND", [x("d", [2, 3, 4]), ki("i", [2, 2], [0, 1, 1, 2], I64)], [("y", F)])
case("ms_gathernd_i32", "GatherND", [x("d", [2, 3, 4]), ki("i", [3, 1], [1, 0, 1])], [("y", F)])
case("ms_gridsample", "GridSample", [x("x", [1, 2, 4, 5]), x("g", [1, 3, 6, 2])], [("y", F)])
case("ms_gridsample_nearest", "GridSample", [x("x", [2, 3, 4, 5]), x("g", [2, 2, 7, 2])], [("y", F)],
     dict(mode="nearest", align_corners=1, padding_mode="border"))
case("ms_gridsample_bicubic", "GridSample", [x("x", [1, 1, 5, 5]), x("g", [1, 4, 3, 2])], [("y", F)],
     dict(mode="bicubic", padding_mode="reflection"))
case("ms_pad_1d", "Pad", [x("x", [2, 3]), ki("p", [4], [0, 1, 1, 0], I64)], [("y", F)])
case("ms_pad_crop", "Pad", [x("x", [4, 5]), ki("p", [1, 4], [-1, 2, 0, -3], I64)], [("y", F)])
case("ms_pad_2d_reflect", "Pad", [x("x", [3, 4]), ki("p", [1, 4], [1, 1, 1, 1], I64)], [("y", F)], dict(mode="reflect"))
case("ms_pad_value_edge", "Pad", [x("x", [2, 3, 2]), ki("p", [6], [1, 0, 0, 2, 0, 1], I64), kf("v", [], F, 0.5)], [("y", F)],
     dict(mode="edge"))
case("ms_range_i32", "Range", [ki("s", [], 2), ki("l", [], 11), ki("d", [], 3)], [("y", I32)])
case("ms_range_neg_i64", "Range", [ki("s", [], 10, I64), ki("l", [], 2, I64), ki("d", [], -3, I64)], [("y", I64)])
case("ms_range_nodelta", "Range", [ki("s", [], 2, I64), ki("l", [], 7, I64)], [("y", I64)])
case("ms_range_nodelta_f", "Range", [kf("s", [], F, 0.5), kf("l", [], F, 3.0)], [("y", F)])
case("ms_range_f_delta", "Range", [kf("s", [], F, 1.0), kf("l", [], F, 2.0), kf("d", [], F, 0.25)], [("y", F)])
case("ms_trilu", "Trilu", [x("x", [3, 4])], [("y", F)])
case("ms_trilu_lower_k", "Trilu", [x("x", [2, 3, 5]), ki("k", [], -1, I64)], [("y", F)], dict(upper=0))
case("ms_unique_const", "Unique", [kf("x", [6], F, [3.0, 1.0, 3.0, 2.0, 1.0, 3.0])], [("y", F), ("idx", I64), ("counts", I64)])
case("ms_unique_input", "Unique", [x("x", [7])], [("y", F), ("idx", I64), ("counts", I64)])
case("ms_tmatmul", "TransposeMatMul", [x("a", [2, 4, 3]), x("b", [5, 4])], [("y", F)], dict(transA=1, transB=1, alpha=0.5))
case("ms_tmatmul_plain", "TransposeMatMul", [x("a", [3, 4]), x("b", [4, 6])], [("y", F)])

# ------------------------------- Inverse, CDist, UnfoldTensor, CropAndResize
case("ms_inverse", "Inverse", [x("x", [2, 3, 3])], [("y", F)])
case("ms_inverse_2d_f64", "Inverse", [x("x", [4, 4], "double")], [("y", "double")])
case("ms_inverse_f16", "Inverse", [x("x", [3, 2, 2], H16)], [("y", H16)])
case("ms_cdist_sq", "CDist", [x("a", [4, 3]), x("b", [5, 3])], [("y", F)])
case("ms_cdist_euclid_f64", "CDist", [x("a", [2, 6], "double"), x("b", [3, 6], "double")], [("y", "double")],
     dict(metric="euclidean"))
case("ms_unfold", "UnfoldTensor", [x("x", [2, 10, 3])], [("y", F)], dict(dim=1, size=4, step=3))
case("ms_unfold_last", "UnfoldTensor", [x("x", [3, 7])], [("y", F)], dict(size=2))
case("ms_unfold_dim0_i64", "UnfoldTensor", [x("x", [5, 2], I64)], [("y", I64)], dict(dim=0, size=5, step=2))
case("ms_cropresize", "CropAndResize", [x("x", [2, 3, 8, 8]), kf("r", [4, 4], F, [0.1, 0.1, 0.8, 0.9] * 4),
                                         ki("bi", [4], [0, 1, 0, 1]), ki("cs", [2], [5, 6])], [("y", F)])
case("ms_cropresize_nearest", "CropAndResize", [x("x", [1, 2, 6, 6]), kf("r", [1, 4], F, [0.0, 0.2, 1.0, 0.7]),
                                                 ki("bi", [1], [0]), ki("cs", [2], [3, 3])], [("y", F)],
     dict(mode="nearest", extrapolation_value=1.0))

# ---------------------------------------------------------------- MatMulBnb4
case("ms_bnb4_nf4", "MatMulBnb4", [x("a", [2, 3, 32]), kf("b", [16 * 32 // 2], U8), kf("am", [16 * 32 // 64])], [("y", F)],
     dict(K=32, N=16, block_size=64, quant_type=1))
case("ms_bnb4_fp4_odd", "MatMulBnb4", [x("a", [5, 17]), kf("b", [(8 * 17 + 1) // 2], U8), kf("am", [(8 * 17 + 15) // 16])],
     [("y", F)], dict(K=17, N=8, block_size=16, quant_type=0))

case("ms_mulint_u8", "MulInteger", [x("a", [2, 3], U8), kf("az", [], U8, 3), x("b", [3], U8), kf("bz", [], U8, 1)], [("y", I32)])
case("ms_mulint_i8_nozp", "MulInteger", [x("a", [4, 1], I8), None, x("b", [2, 1, 5], I8)], [("y", I32)])
case("ms_rsumint_keep", "ReduceSumInteger", [x("a", [2, 3, 4], U8)], [("y", I32)], dict(axes=[1], keepdims=1))
case("ms_rsumint_nokeep", "ReduceSumInteger", [x("a", [2, 3, 4], I8)], [("y", I32)], dict(axes=[0, 2], keepdims=0))
case("ms_maxpool_mask", "MaxpoolWithMask", [x("x", [1, 2, 6, 6]), x("m", [1, 2, 6, 6], I32, [1] * 72)], [("y", F)],
     dict(kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1]))
case("ms_convt_dynpads", "ConvTransposeWithDynamicPads",
     [x("x", [1, 2, 5, 5]), kf("w", [2, 3, 3, 3]), ki("p", [4], [1, 0, 1, 2], I64), kf("b", [3])], [("y", F)],
     dict(strides=[2, 2], output_padding=[1, 0]))
case("ms_convt_dynpads_g2", "ConvTransposeWithDynamicPads",
     [x("x", [2, 4, 3, 6]), kf("w", [4, 1, 2, 3]), ki("p", [4], [0, 2, 1, 0], I64)], [("y", F)],
     dict(group=2, dilations=[2, 1]))
case("ms_ngram_block", "NGramRepeatBlock", [x("ids", [2, 5], I64, [1, 2, 1, 2, 1, 3, 3, 3, 4, 3]), x("sc", [2, 6])],
     [("y", F)], dict(ngram_size=2))

# ------------------------- MurmurHash3, WordConvEmbedding, DynamicTimeWarping
case("ms_murmur_i32", "MurmurHash3", [x("x", [2, 3], I32)], [("y", "uint32")])
case("ms_murmur_u32_signed", "MurmurHash3", [x("x", [4], "uint32")], [("y", I32)], dict(positive=0, seed=42))
case("ms_murmur_str", "MurmurHash3", [x("x", [3, 1], "string", ["a", "bc", "def"])], [("y", "uint32")], dict(seed=7))
# Sequence: character ids into C's 8 rows, 0 pads a word (a word starting
# with 0 is skipped).
case("ms_wordconv", "WordConvEmbedding", [x("seq", [3, 5], I32, [1, 2, 3, 0, 0, 4, 5, 6, 7, 1, 0, 0, 0, 0, 0]),
                                          kf("w", [4, 1, 2, 3]), kf("b", [4]), kf("c", [8, 3])], [("y", F)])
case("ms_wordconv_attrs", "WordConvEmbedding", [x("seq", [2, 4], I32, [3, 1, 2, 0, 2, 2, 2, 2]),
                                                kf("w", [6, 1, 4, 2]), kf("b", [6]), kf("c", [5, 2])], [("y", F)],
     dict(embedding_size=6, conv_window_size=4, char_embedding_size=2))
case("ms_dtw", "DynamicTimeWarping", [x("x", [4, 6])], [("y", I32)])
case("ms_dtw_3d", "DynamicTimeWarping", [x("x", [1, 5, 3])], [("y", I32)])
case("ms_dtw_row", "DynamicTimeWarping", [x("x", [1, 5])], [("y", I32)])
case("ms_dtw_col_3d", "DynamicTimeWarping", [x("x", [1, 4, 1])], [("y", I32)])
# BifurcationDetector: pred [S + 1 - prev]; tokens [C + b + 1], b the
# predicted tokens matching src from prev on (here 2 of 4, then one more).
src6 = lambda: x("src", [6], I64, [5, 6, 7, 8, 9, 10])
case("ms_bifurcation", "BifurcationDetector", [src6(), x("cur", [3], I64, [1, 5, 6]), x("prev", [], I64, [3]),
                                               x("pred", [4], I64, [8, 9, 4, 4])], [("tok", I64), ("idx", I64)],
     dict(min_ngram_size=1, max_ngram_size=2))
case("ms_bifurcation_nopred", "BifurcationDetector", [src6(), x("cur", [4], I64, [1, 5, 6, 7]), x("prev", [1], I64, [0])],
     [("tok", I64), ("idx", I64)])
case("ms_bifurcation_last", "BifurcationDetector", [src6(), x("cur", [2], I64, [9, 10]), x("prev", [], I64, [6]),
                                                    x("pred", [1], I64, [2])], [("tok", I64), ("idx", I64)])
# Tokenizer: Y [X's dims, T], T the most tokens a string gives (+ 2 marks)
case("ms_tokenizer_sep", "Tokenizer", [x("x", [2, 2], "string", ["a b", "c d e", "f", "g;h i"])], [("y", "string")],
     dict(mark=1, pad_value="#", mincharnum=1, separators=[" ", ";"]))
case("ms_tokenizer_chars", "Tokenizer", [x("x", [3], "string", ["ab", "cde", ""])], [("y", "string")],
     dict(mark=0, pad_value="#", mincharnum=1, separators=[""]))

qs = lambda n: kf(n, [], F, 0.05)
qz = lambda n: kf(n, [], U8, 128)
case("qeln_full", "QEmbedLayerNormalization",
     [ids(), x("seg", [B, S], I32, [0, 1, 1, 0, 1, 0]), kf("we", [10, D], U8), kf("pe", [6, D], U8), kf("se", [2, D], U8),
      kf("g", [D], U8), kf("be", [D], U8), x("mask", [B, S], I32, [1] * 6),
      qs("wes"), qs("pes"), qs("ses"), qs("gs"), qs("bes"), qz("wez"), qz("pez"), qz("sez"), qz("gz"), qz("bez")],
     [("y", F), ("mi", I32)])
case("qeln_noseg", "QEmbedLayerNormalization",
     [ids(), None, kf("we", [10, D], U8), kf("pe", [6, D], U8), None, kf("g", [D], U8), kf("be", [D], U8), x("mask", [B, S], I32, [1] * 6),
      qs("wes"), qs("pes"), None, qs("gs"), qs("bes"), qz("wez"), qz("pez"), None, qz("gz"), qz("bez")],
     [("y", F), ("mi", I32)])

case("dqlstm_fwd", "DynamicQuantizeLSTM",
     [x("x", [3, 2, 5]), kf("w", [1, 5, 16], I8), kf("r", [1, 4, 16], I8), kf("b", [1, 32]), None, None, None, None,
      kf("ws", [1], F, 0.02), kf("wz", [1], I8, 0), kf("rs", [1], F, 0.02), kf("rz", [1], I8, 0)],
     [("y", F), ("yh", F), ("yc", F)], dict(hidden_size=4))
case("dqlstm_bidir_u8", "DynamicQuantizeLSTM",
     [x("x", [4, 1, 3]), kf("w", [2, 3, 8], U8), kf("r", [2, 2, 8], U8), None, None, x("h0", [2, 1, 2]), None, None,
      kf("ws", [2, 8], F, 0.02), kf("wz", [2, 8], U8, 128), kf("rs", [2], F, 0.02), kf("rz", [2], U8, 128)],
     [("y", F), ("yh", F)], dict(hidden_size=2, direction="bidirectional"))


_NO_CPU = "ONNX Runtime: no CPU kernel"
# ONNX Runtime 1.30's CPU provider cannot run these (no kernel, a CPU
# kernel's limit, a crash) or they are invalid; the unit tests
# (test_onnx_ms.c, test_onnx_mha.c) check foldline's answers for them.
SKIP = {
    "att_nobias_uni": "ONNX Runtime crashes on Attention without its optional bias",
    "att_nobias_nouni": "ONNX Runtime crashes on Attention without its optional bias",
    "att_mask4d": "ONNX Runtime's CPU Attention: no 4-D mask",
    "att_share_buffer": "ONNX Runtime's CPU Attention: past_sequence_length with a shared buffer",
    "att_past_attnbias": "ONNX Runtime's CPU Attention: past with attention_bias",
    "att_do_rotary": "ONNX Runtime's CPU Attention: no do_rotary",
    "mha_packed_kv": "ONNX Runtime's CPU MultiHeadAttention: no packed KV",
    "mha_packed_qkv": "ONNX Runtime's CPU MultiHeadAttention: no packed QKV",
    "gqa_rotary": "ONNX Runtime's CPU GroupQueryAttention: rotary needs head_size % 16 == 0",
    "gqa_rotary_inter_packed": "ONNX Runtime's CPU GroupQueryAttention: rotary needs "
                               "head_size % 16 == 0",
    "gqa_rotary_past_posids": "ONNX Runtime's CPU GroupQueryAttention: rotary needs "
                              "head_size % 16 == 0",
    "rope_4d_bsnh": "an invalid model: a 4-D RotaryEmbedding input is (B, N, S, H)",
    "rope_nopos": "an invalid model for ONNX Runtime: position_ids is required",
    "sparseattn": "ONNX Runtime's CPU SparseAttention needs past and present to share a buffer",
    "moe_fc3": "ONNX Runtime's CPU MoE: no fc3",
    "fmm_bcast_transBatchA": "ONNX Runtime's CPU FusedMatMul: transBatchA needs equal ranks",
}
for _t in ("qlrmean_keep", "qlrmean_nokeep", "gemmfastgelu", "biassplitgelu", "biasadd",
           "biasdropout", "biassoftmax", "groupnorm", "skipgroupnorm", "nhwcconv", "nhwcconv_f16",
           "nhwcfusedconv_f16", "relposbias", "gatedrelposbias", "longformer", "dmsa", "packedattn",
           "packedmha", "qordered_gelu", "qordered_mm", "qordered_ln", "ms_mulint_u8",
           "ms_mulint_i8_nozp", "ms_rsumint_keep", "ms_rsumint_nokeep"):
    SKIP[_t] = _NO_CPU
# Dims only the run-time values decide: foldline leaves them symbolic.
DYNAMIC = {
    "ms_unique_input": {"y": [0], "counts": [0]},  # x is a graph input
    "ms_dtw": {"y": [1]},  # the warping path's length
    "ms_dtw_3d": {"y": [1]},
    "ms_bifurcation": {"tok": [0]},  # how many predicted tokens still match
    "ms_tokenizer_sep": {"y": [2]},  # the most tokens a string gives
    "ms_tokenizer_chars": {"y": [1]},
}
