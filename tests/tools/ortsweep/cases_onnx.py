"""ai.onnx cases of export_ort_sweep.py: the operators opsets 18 to 24 added or
changed, each attribute and input variant of them (see model.case)."""
from onnx import helper

from model import K, In, case

F = "float"
I64 = "int64"


def x(dims, dt=F, name="x"):
    return In(name, dt, dims)


def k64(name, vals, dims=None):
    return K(name, I64, [len(vals)] if dims is None else dims, vals)


# ---------------- opset 18 ----------------
case("bitand_i32_bcast", "BitwiseAnd", 18, [x([2, 3, 4], "int32", "a"), x([4], "int32", "b")], [("y", "int32")])
case("bitor_u8_bcast", "BitwiseOr", 18, [x([3, 1], "uint8", "a"), x([1, 5], "uint8", "b")], [("y", "uint8")])
case("bitxor_i64_bcast", "BitwiseXor", 18, [x([2, 1, 3], I64, "a"), x([4, 1], I64, "b")], [("y", I64)])
case("bitnot_i16", "BitwiseNot", 18, [x([2, 3], "int16")], [("y", "int16")])
case("bitnot_u8_1d", "BitwiseNot", 18, [x([5], "uint8")], [("y", "uint8")])

case("ccp_axes01", "CenterCropPad", 18, [x([5, 6, 3]), k64("s", [3, 8])], [("y", F)], dict(axes=[0, 1]))
case("ccp_noaxes", "CenterCropPad", 18, [x([4, 5]), k64("s", [6, 2])], [("y", F)])
case("ccp_negaxes", "CenterCropPad", 18, [x([2, 7, 4]), k64("s", [5, 3])], [("y", F)], dict(axes=[-2, -1]))
case("ccp_i32shape", "CenterCropPad", 18, [x([3, 4, 5], "int32"), K("s", "int32", [1], [3])], [("y", "int32")], dict(axes=[-1]))
case("ccp_swapped_axes", "CenterCropPad", 18, [x([4, 5, 6]), k64("s", [2, 7])], [("y", F)], dict(axes=[2, 0]))

case("col2im_basic", "Col2Im", 18, [x([1, 20, 12]), k64("im", [4, 5]), k64("bl", [2, 2])], [("y", F)])
case("col2im_strides_pads", "Col2Im", 18, [x([2, 8, 9]), k64("im", [5, 5]), k64("bl", [2, 2])], [("y", F)],
     dict(strides=[2, 2], pads=[1, 1, 1, 1]))
case("col2im_dil", "Col2Im", 18, [x([1, 12, 16]), k64("im", [6, 6]), k64("bl", [2, 2])], [("y", F)], dict(dilations=[2, 2]))
case("col2im_3d", "Col2Im", 18, [x([1, 16, 24]), k64("im", [3, 4, 5]), k64("bl", [2, 2, 2])], [("y", F)])

case("gn18", "GroupNormalization", 18, [x([2, 6, 4, 4]), x([3], F, "s"), x([3], F, "b")], [("y", F)], dict(num_groups=3))
case("gn21", "GroupNormalization", 21, [x([2, 6, 4, 4]), x([6], F, "s"), x([6], F, "b")], [("y", F)], dict(num_groups=2))
case("gn21_3d_stash", "GroupNormalization", 21, [x([2, 4, 5]), x([4], F, "s"), x([4], F, "b")], [("y", F)],
     dict(num_groups=4, stash_type=1, epsilon=1e-3))

case("lppool_ceil", "LpPool", 18, [x([1, 2, 8, 8])], [("y", F)], dict(kernel_shape=[3, 3], strides=[2, 2], ceil_mode=1))
case("lppool_dil", "LpPool", 18, [x([1, 2, 9, 9])], [("y", F)], dict(kernel_shape=[3, 3], dilations=[2, 2]))
case("lppool_same1d", "LpPool", 18, [x([1, 1, 7])], [("y", F)], dict(kernel_shape=[2], strides=[2], auto_pad="SAME_UPPER"))
case("lppool_pads_ceil_p3", "LpPool", 18, [x([1, 1, 7, 6])], [("y", F)],
     dict(kernel_shape=[3, 2], pads=[1, 0, 1, 1], p=3, ceil_mode=1, strides=[2, 2]))
case("lppool22_ceil_dil", "LpPool", 22, [x([1, 2, 10, 10])], [("y", F)],
     dict(kernel_shape=[2, 2], strides=[3, 3], dilations=[2, 2], ceil_mode=1))

case("mish18", "Mish", 18, [x([2, 3, 4])], [("y", F)])
case("mish22", "Mish", 22, [x([3])], [("y", F)])

case("opthas_absent", "OptionalHasElement", 18, [None], [("y", "bool")])
case("opthas_tensor", "OptionalHasElement", 18, [x([2, 3])], [("y", "bool")])
case("optget_tensor", "OptionalGetElement", 18, [x([2, 3])], [("y", F)])

case("pad18_axes_neg", "Pad", 18, [x([2, 3, 4]), k64("p", [1, 2, 0, 3]), None, k64("ax", [0, -1])], [("y", F)])
case("pad18_reflect", "Pad", 18, [x([2, 3, 4]), k64("p", [1, 1, 1, 1, 1, 1])], [("y", F)], dict(mode="reflect"))
case("pad18_negative_pads", "Pad", 18, [x([3, 4]), k64("p", [0, -1, 0, -1])], [("y", F)])
case("pad18_edge_axes_unsorted", "Pad", 18, [x([1, 2, 3, 4]), k64("p", [1, 2, 1, 2]), None, k64("ax", [-2, 1])], [("y", F)],
     dict(mode="edge"))
case("pad18_cval_axes", "Pad", 18, [x([2, 3]), k64("p", [2, 3]), K("cv", F, [], [1.5]), k64("ax", [1])], [("y", F)])
case("pad18_i32_axes", "Pad", 18, [x([2, 3, 4]), k64("p", [1, 1]), None, K("ax", "int32", [1], [-2])], [("y", F)])
case("pad19_wrap", "Pad", 19, [x([2, 3]), k64("p", [1, 2, 1, 2])], [("y", F)], dict(mode="wrap"))
case("pad19_wrap_axes", "Pad", 19, [x([2, 3, 4]), k64("p", [3, 1]), None, k64("ax", [-1])], [("y", F)], dict(mode="wrap"))
case("pad21_int8", "Pad", 21, [x([2, 3], "int8"), k64("p", [0, 1, 0, 1])], [("y", "int8")])
case("pad24_axes", "Pad", 24, [x([2, 3, 4]), k64("p", [1, 0, 1, 2]), None, k64("ax", [-3, 2])], [("y", F)])

REDUCES = ["ReduceL1", "ReduceL2", "ReduceLogSum", "ReduceLogSumExp", "ReduceMax", "ReduceMean",
           "ReduceMin", "ReduceProd", "ReduceSumSquare"]
for r in REDUCES:
    case(r + "_neg_keep", r, 18, [x([2, 3, 4]), k64("ax", [-1])], [("y", F)])
    case(r + "_two_nokeep", r, 18, [x([2, 3, 4]), k64("ax", [0, -1])], [("y", F)], dict(keepdims=0))
    case(r + "_noaxes_nokeep", r, 18, [x([2, 3, 4])], [("y", F)], dict(keepdims=0))
    case(r + "_empty_noop", r, 18, [x([2, 3, 4]), k64("ax", [], [0])], [("y", F)], dict(noop_with_empty_axes=1))
case("ReduceMean_absent_noop", "ReduceMean", 18, [x([2, 3, 4])], [("y", F)], dict(noop_with_empty_axes=1))
case("ReduceSumSquare_empty_all", "ReduceSumSquare", 18, [x([2, 3, 4]), k64("ax", [], [0])], [("y", F)])
case("ReduceSum13_empty_noop", "ReduceSum", 18, [x([2, 3, 4]), k64("ax", [], [0])], [("y", F)], dict(noop_with_empty_axes=1))
case("ReduceProd_i32", "ReduceProd", 18, [x([2, 3, 4], "int32"), k64("ax", [1])], [("y", "int32")], dict(keepdims=0))
case("ReduceMax20_bool", "ReduceMax", 20, [x([2, 3], "bool"), k64("ax", [1])], [("y", "bool")])
case("ReduceMin20_bool_nokeep", "ReduceMin", 20, [x([2, 3, 2], "bool"), k64("ax", [-3, -1])], [("y", "bool")], dict(keepdims=0))
case("ReduceMax20_empty_keep", "ReduceMax", 20, [x([2, 3, 4]), k64("ax", [], [0])], [("y", F)])
case("ReduceMin20_u8", "ReduceMin", 20, [x([2, 3, 4], "uint8"), k64("ax", [0])], [("y", "uint8")], dict(keepdims=0))

case("resize18_scales_axes", "Resize", 18, [x([1, 1, 4, 6]), None, K("sc", F, [2], [2.0, 0.5])], [("y", F)],
     dict(axes=[2, 3], mode="nearest"))
case("resize18_notlarger", "Resize", 18, [x([1, 1, 4, 6]), None, None, k64("sz", [8, 8])], [("y", F)],
     dict(axes=[2, 3], keep_aspect_ratio_policy="not_larger"))
case("resize18_notsmaller", "Resize", 18, [x([1, 1, 4, 6]), None, None, k64("sz", [8, 8])], [("y", F)],
     dict(axes=[2, 3], keep_aspect_ratio_policy="not_smaller"))
case("resize18_notlarger_round", "Resize", 18, [x([1, 3, 7, 5]), None, None, k64("sz", [10, 10])], [("y", F)],
     dict(axes=[-2, -1], keep_aspect_ratio_policy="not_larger", mode="linear"))
case("resize18_notsmaller_full", "Resize", 18, [x([1, 3, 6, 9]), None, None, k64("sz", [1, 3, 4, 4])], [("y", F)],
     dict(keep_aspect_ratio_policy="not_smaller"))
case("resize18_antialias", "Resize", 18, [x([1, 1, 4, 6]), None, K("sc", F, [4], [1, 1, 0.5, 0.5])], [("y", F)],
     dict(antialias=1, mode="linear"))
case("resize18_negaxis_3d", "Resize", 18, [x([2, 3, 5]), None, K("sc", F, [1], [1.5])], [("y", F)],
     dict(axes=[-1], mode="nearest"))
case("resize18_sizes_cubic", "Resize", 18, [x([1, 2, 3, 3]), None, None, k64("sz", [1, 2, 5, 7])], [("y", F)], dict(mode="cubic"))
case("resize18_frac_scales", "Resize", 18, [x([1, 1, 5, 5]), None, K("sc", F, [4], [1, 1, 1.7, 0.3])], [("y", F)],
     dict(mode="linear"))
case("resize18_sizes_axes_1", "Resize", 18, [x([1, 2, 4, 4]), None, None, k64("sz", [7])], [("y", F)],
     dict(axes=[3], mode="linear"))
case("resize18_roi_tf_crop", "Resize", 18, [x([1, 1, 4, 4]), K("roi", F, [4], [0.2, 0.2, 0.8, 0.8]), K("sc", F, [2], [2.0, 2.0])],
     [("y", F)], dict(axes=[2, 3], coordinate_transformation_mode="tf_crop_and_resize", mode="linear"))
case("resize19_hps", "Resize", 19, [x([1, 1, 3, 3]), None, K("sc", F, [4], [1, 1, 1.5, 2.5])], [("y", F)],
     dict(mode="linear", coordinate_transformation_mode="half_pixel_symmetric"))
case("resize19_notlarger_nearest", "Resize", 19, [x([2, 3, 5, 8]), None, None, k64("sz", [3, 3])], [("y", F)],
     dict(axes=[2, 3], keep_aspect_ratio_policy="not_larger", mode="nearest"))
case("resize19_antialias_cubic_sizes", "Resize", 19, [x([1, 1, 8, 8]), None, None, k64("sz", [1, 1, 3, 5])], [("y", F)],
     dict(antialias=1, mode="cubic"))

case("scatel18_max", "ScatterElements", 18, [x([3, 4]), K("i", I64, [2, 4], [0, 1, 2, 0, 1, 2, 0, 1]), x([2, 4], F, "u")],
     [("y", F)], dict(reduction="max"))
case("scatel18_min_neg", "ScatterElements", 18, [x([3, 4]), K("i", I64, [3, 2], [0, 1, 2, 3, 0, 1]), x([3, 2], F, "u")],
     [("y", F)], dict(reduction="min", axis=-1))
case("scatnd18_max", "ScatterND", 18, [x([4, 5, 6]), K("i", I64, [2, 1], [0, 2]), x([2, 5, 6], F, "u")], [("y", F)],
     dict(reduction="max"))
case("scatnd18_min", "ScatterND", 18, [x([4, 5]), K("i", I64, [3, 2], [0, 1, 2, 3, 3, 4]), x([3], F, "u")], [("y", F)],
     dict(reduction="min"))

case("split18_num3", "Split", 18, [x([7, 2])], [("a", F), ("b", F), ("c", F)], dict(num_outputs=3))
case("split18_num4_neg", "Split", 18, [x([2, 10])], [("a", F), ("b", F), ("c", F), ("d", F)], dict(num_outputs=4, axis=-1))
case("split18_sizes", "Split", 18, [x([2, 6, 3]), k64("s", [1, 2, 3])], [("a", F), ("b", F), ("c", F)], dict(axis=1))
case("split18_num3_even", "Split", 18, [x([6])], [("a", F), ("b", F), ("c", F)], dict(num_outputs=3))
case("split18_num3_odd5", "Split", 18, [x([2, 5])], [("a", F), ("b", F), ("c", F)], dict(num_outputs=3, axis=1))
case("split18_num4_of5", "Split", 18, [x([5, 2])], [("a", F), ("b", F), ("c", F), ("d", F)], dict(num_outputs=4))
case("split18_num2_i64", "Split", 18, [x([4, 3], I64)], [("a", I64), ("b", I64)], dict(num_outputs=2, axis=-2))
case("split18_zero_part", "Split", 18, [x([3, 4]), k64("s", [0, 4])], [("a", F), ("b", F)], dict(axis=1))

# ---------------- opset 19 ----------------
case("avgpool19_dil", "AveragePool", 19, [x([1, 1, 7, 7])], [("y", F)], dict(kernel_shape=[3, 3], dilations=[2, 2]))
case("avgpool19_dil_ceil", "AveragePool", 19, [x([1, 2, 8, 8])], [("y", F)],
     dict(kernel_shape=[2, 2], strides=[2, 2], dilations=[2, 2], ceil_mode=1))
case("avgpool19_ceil_lastwin_in_pad", "AveragePool", 19, [x([1, 1, 5, 5])], [("y", F)],
     dict(kernel_shape=[2, 2], strides=[3, 3], pads=[0, 0, 1, 1], ceil_mode=1))
case("avgpool19_ceil_lastwin_in_pad_dil", "AveragePool", 19, [x([1, 1, 6, 6])], [("y", F)],
     dict(kernel_shape=[2, 2], strides=[3, 3], dilations=[2, 2], pads=[1, 1, 1, 1], ceil_mode=1))
case("avgpool19_ceil_pads_cip", "AveragePool", 19, [x([1, 1, 6, 5])], [("y", F)],
     dict(kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1], ceil_mode=1, count_include_pad=1))
case("avgpool22_same_lower_1d", "AveragePool", 22, [x([1, 1, 6])], [("y", F)],
     dict(kernel_shape=[3], strides=[2], auto_pad="SAME_LOWER"))
case("avgpool22_3d_dil", "AveragePool", 22, [x([1, 1, 5, 6, 7])], [("y", F)],
     dict(kernel_shape=[2, 2, 2], dilations=[1, 2, 3], strides=[1, 2, 1]))

case("cast19_f8", "Cast", 19, [x([2, 3])], [("y", "float8e4m3fn")], dict(to=17, saturate=0))
case("cast19_str2f", "Cast", 19, [In("x", "string", [2], ["1.5", "2"])], [("y", F)], dict(to=1))
case("cast19_f2str", "Cast", 19, [x([2, 2])], [("y", "string")], dict(to=8))
case("castlike19", "CastLike", 19, [x([2, 3]), x([1], "int32", "t")], [("y", "int32")])
case("castlike19_f8e5m2", "CastLike", 19, [x([3]), K("t", "float8e5m2", [1], [0])], [("y", "float8e5m2")], dict(saturate=1))
case("cast21_int4", "Cast", 21, [x([2, 3])], [("y", "int4")], dict(to=22))
case("cast21_u8_from_int4", "Cast", 21, [K("x", "int4", [3, 2], [0] * 6)], [("y", "uint8")], dict(to=2))
case("cast23_f4", "Cast", 23, [x([2, 4])], [("y", "float4e2m1")], dict(to=23))
case("cast24_f8e8m0", "Cast", 24, [x([2, 3])], [("y", "float8e8m0")], dict(to=24))
case("cast24_f16", "Cast", 24, [x([2, 3, 1])], [("y", "float16")], dict(to=10))
case("castlike24", "CastLike", 24, [x([4], "int32"), x([], "double", "t")], [("y", "double")])

case("const19_ints", "Constant", 19, [], [("y", I64)], dict(value_ints=[1, 2, 3]))
case("const19_float", "Constant", 19, [], [("y", F)], dict(value_float=2.5))
case("const19_int", "Constant", 19, [], [("y", I64)], dict(value_int=7))
case("const19_strings", "Constant", 19, [], [("y", "string")], dict(value_strings=["a", "b"]))
case("const19_tensor", "Constant", 19, [], [("y", F)], dict(value=helper.make_tensor("v", 1, [2, 3, 1], [0.0] * 6)))
case("const24_floats", "Constant", 24, [], [("y", F)], dict(value_floats=[1.0, 2.0]))
case("const24_tensor_i32", "Constant", 24, [], [("y", "int32")], dict(value=helper.make_tensor("v", 6, [2, 2], [1, 2, 3, 4])))

case("deform19_nomask", "DeformConv", 19, [x([1, 2, 5, 5]), x([4, 2, 3, 3], F, "w"), x([1, 18, 3, 3], F, "off")], [("y", F)])
case("deform19_stride_pad", "DeformConv", 19, [x([1, 2, 7, 7]), x([2, 2, 3, 3], F, "w"), x([1, 18, 4, 4], F, "off")], [("y", F)],
     dict(strides=[2, 2], pads=[1, 1, 1, 1]))
case("deform19_dil", "DeformConv", 19, [x([1, 2, 7, 7]), x([2, 2, 3, 3], F, "w"), x([1, 18, 3, 3], F, "off")], [("y", F)],
     dict(dilations=[2, 2]))

case("dq19_i8_scalar", "DequantizeLinear", 19, [x([2, 3], "int8"), K("s", F, [], [0.5])], [("y", F)])
case("dq19_u8_axis", "DequantizeLinear", 19, [x([2, 3, 4], "uint8"), K("s", F, [3], [0.5, 1, 2]), K("z", "uint8", [3], [0, 1, 2])],
     [("y", F)], dict(axis=1))
case("dq19_f8", "DequantizeLinear", 19, [K("x", "float8e4m3fn", [2, 3], None), K("s", F, [], [0.5])], [("y", F)])
case("dq19_negaxis", "DequantizeLinear", 19, [x([2, 3, 4], "int8"), K("s", F, [4], [1, 1, 1, 1])], [("y", F)], dict(axis=-1))
case("dq21_block", "DequantizeLinear", 21, [x([4, 6], "int8"), K("s", F, [4, 3], [1.0] * 12)], [("y", F)],
     dict(axis=1, block_size=2))
case("dq21_block_axis0_ragged", "DequantizeLinear", 21, [x([5, 3], "int8"), K("s", F, [2, 3], [1.0] * 6),
                                                          K("z", "int8", [2, 3], [0] * 6)], [("y", F)], dict(axis=0, block_size=3))
case("dq21_block_neg", "DequantizeLinear", 21, [x([2, 3, 8], "uint8"), K("s", F, [2, 3, 2], [1.0] * 12)], [("y", F)],
     dict(axis=-1, block_size=4))
case("dq21_int4", "DequantizeLinear", 21, [K("x", "int4", [4, 4], None), K("s", F, [4], [1.0] * 4)], [("y", F)], dict(axis=0))
case("dq21_i32", "DequantizeLinear", 21, [x([3, 2], "int32"), K("s", F, [], [0.5])], [("y", F)])
case("dq21_u16", "DequantizeLinear", 21, [x([3, 2], "uint16"), K("s", F, [], [0.5]), K("z", "uint16", [], [3])], [("y", F)])
case("dq23_block", "DequantizeLinear", 23, [x([4, 6], "int8"), K("s", F, [2, 6], [1.0] * 12)], [("y", F)],
     dict(axis=0, block_size=2))
case("dq24_outdtype", "DequantizeLinear", 24, [x([4, 6], "int8"), K("s", F, [4, 3], [1.0] * 12)], [("y", "float16")],
     dict(axis=1, block_size=2, output_dtype=10))
case("dq24_f16scale", "DequantizeLinear", 24, [x([2, 4], "uint8"), K("s", "float16", [], [1.0])], [("y", "float16")])

case("equal19_str", "Equal", 19, [In("a", "string", [2, 3]), In("b", "string", [3])], [("y", "bool")])
case("identity19", "Identity", 19, [x([2, 3])], [("y", F)])
case("identity24_i8", "Identity", 24, [x([2, 0, 3], "int8")], [("y", "int8")])

case("q19_u8", "QuantizeLinear", 19, [x([2, 3]), K("s", F, [], [0.5]), K("z", "uint8", [], [1])], [("y", "uint8")])
case("q19_noz", "QuantizeLinear", 19, [x([2, 3, 4]), K("s", F, [3], [0.5, 1, 2])], [("y", "uint8")], dict(axis=1))
case("q19_f8", "QuantizeLinear", 19, [x([2, 3]), K("s", F, [], [0.5]), K("z", "float8e4m3fn", [], None)],
     [("y", "float8e4m3fn")], dict(saturate=0))
case("q21_block", "QuantizeLinear", 21, [x([4, 6]), K("s", F, [4, 3], [1.0] * 12), K("z", "int8", [4, 3], [0] * 12)],
     [("y", "int8")], dict(axis=1, block_size=2))
case("q21_block_neg2", "QuantizeLinear", 21, [x([6, 4]), K("s", F, [2, 4], [1.0] * 8)], [("y", "uint8")],
     dict(axis=-2, block_size=3))
case("q21_int4", "QuantizeLinear", 21, [x([2, 4]), K("s", F, [], [1.0]), K("z", "int4", [], None)], [("y", "int4")])
case("q21_outdtype_u16", "QuantizeLinear", 21, [x([2, 4]), K("s", F, [], [1.0])], [("y", "uint16")], dict(output_dtype=4))
case("q21_outdtype_i8_axis", "QuantizeLinear", 21, [x([2, 3, 4]), K("s", F, [4], [1.0] * 4)], [("y", "int8")],
     dict(output_dtype=3, axis=-1))
case("q23_block_ragged", "QuantizeLinear", 23, [x([3, 5]), K("s", F, [3, 2], [1.0] * 6)], [("y", "uint8")],
     dict(axis=1, block_size=3))
case("q24_precision", "QuantizeLinear", 24, [x([2, 4]), K("s", F, [], [1.0])], [("y", "int8")],
     dict(output_dtype=3, precision=1))
case("q24_u4", "QuantizeLinear", 24, [x([4, 4]), K("s", F, [4], [1.0] * 4), K("z", "uint4", [4], None)], [("y", "uint4")],
     dict(axis=0))

case("reshape19_zero_neg1", "Reshape", 19, [x([2, 3, 4]), k64("s", [0, -1])], [("y", F)])
case("reshape19_allowzero", "Reshape", 19, [x([0, 3]), k64("s", [3, 0])], [("y", F)], dict(allowzero=1))
case("reshape21_scalar", "Reshape", 21, [x([1, 1]), k64("s", [], [0])], [("y", F)])
case("reshape24_copy0", "Reshape", 24, [x([2, 3, 4]), k64("s", [-1, 0, 2])], [("y", F)])
case("shape19", "Shape", 19, [x([2, 3])], [("y", I64)])
case("size19", "Size", 19, [x([2, 3])], [("y", I64)])
case("size24_empty", "Size", 24, [x([2, 0])], [("y", I64)])

# control flow
def _g(nodes, ins, outs, inits=()):
    return helper.make_graph(nodes, "body", ins, outs, list(inits))


VI = helper.make_tensor_value_info
then_g = _g([helper.make_node("Add", ["x", "x"], ["t"])], [], [VI("t", 1, None)])
else_g = _g([helper.make_node("Mul", ["x", "x"], ["e"])], [], [VI("e", 1, None)])
case("if19", "If", 19, [In("c", "bool", [], [1])], [("y", F)], dict(then_branch=then_g, else_branch=else_g),
     extra=[x([2, 3])])
case("if24", "If", 24, [In("c", "bool", [], [0])], [("y", F)], dict(then_branch=then_g, else_branch=else_g),
     extra=[x([2, 3])])
# an If whose node inputs list x only implicitly: fix the node inputs (cond only)
CASES_IF = None
loop_body = _g([helper.make_node("Identity", ["cin"], ["cout"]),
                helper.make_node("Add", ["v", "one"], ["v2"]),
                helper.make_node("Identity", ["v"], ["sc"])],
               [VI("i", 7, []), VI("cin", 9, []), VI("v", 1, [2])],
               [VI("cout", 9, []), VI("v2", 1, [2]), VI("sc", 1, [2])],
               [helper.make_tensor("one", 1, [], [1.0])])
case("loop19", "Loop", 19, [K("M", I64, [], [3]), K("cond", "bool", [], [1]), x([2], F, "v0")], [("vf", F), ("scan", F)],
     dict(body=loop_body))
case("loop24", "Loop", 24, [K("M", I64, [], [4]), None, x([2], F, "v0")], [("vf", F), ("scan", F)],
     dict(body=loop_body))
scan_body = _g([helper.make_node("Add", ["s", "xi"], ["s2"]), helper.make_node("Identity", ["s2"], ["o"])],
               [VI("s", 1, [2]), VI("xi", 1, [2])], [VI("s2", 1, [2]), VI("o", 1, [2])])
case("scan19", "Scan", 19, [x([2], F, "s0"), x([3, 2])], [("sf", F), ("ys", F)], dict(body=scan_body, num_scan_inputs=1))
case("scan24_axes", "Scan", 24, [x([2], F, "s0"), x([2, 3])], [("sf", F), ("ys", F)],
     dict(body=scan_body, num_scan_inputs=1, scan_input_axes=[1], scan_output_axes=[-1]))

# ---------------- opset 20 ----------------
case("affgrid_2d", "AffineGrid", 20, [x([2, 2, 3], F, "th"), k64("sz", [2, 3, 4, 5])], [("y", F)])
case("affgrid_3d_ac", "AffineGrid", 20, [x([1, 3, 4], F, "th"), k64("sz", [1, 1, 2, 3, 4])], [("y", F)], dict(align_corners=1))

case("cos20_default", "ConstantOfShape", 20, [k64("s", [2, 3])], [("y", F)])
case("cos20_i8", "ConstantOfShape", 20, [k64("s", [4])], [("y", "int8")], dict(value=helper.make_tensor("v", 3, [1], [5])))
case("cos20_scalar", "ConstantOfShape", 20, [k64("s", [], [0])], [("y", I64)], dict(value=helper.make_tensor("v", 7, [1], [5])))
case("cos20_input", "ConstantOfShape", 20, [In("s", I64, [3], [2, 1, 3])], [("y", F)])
case("cos20_bool", "ConstantOfShape", 20, [k64("s", [2, 2])], [("y", "bool")], dict(value=helper.make_tensor("v", 9, [1], [True])))
case("cos21_f16", "ConstantOfShape", 21, [k64("s", [3, 1])], [("y", "float16")],
     dict(value=helper.make_tensor("v", 10, [1], [1.0])))
case("cos24_i32_zero", "ConstantOfShape", 24, [k64("s", [2, 0, 3])], [("y", "int32")],
     dict(value=helper.make_tensor("v", 6, [1], [1])))

case("dft20_default_axis", "DFT", 20, [x([2, 8, 1])], [("y", F)])
case("dft20_axis1_rank4", "DFT", 20, [x([2, 4, 6, 1]), None, K("ax", I64, [], [1])], [("y", F)])
case("dft20_axis_neg3_cplx", "DFT", 20, [x([2, 4, 6, 2]), None, K("ax", I64, [], [-3])], [("y", F)])
case("dft20_len_pad", "DFT", 20, [x([2, 4, 6, 1]), K("n", I64, [], [8]), K("ax", I64, [], [-2])], [("y", F)])
case("dft20_len_trunc_axis0", "DFT", 20, [x([6, 3, 2]), K("n", I64, [], [4]), K("ax", I64, [], [0])], [("y", F)])
case("dft20_onesided", "DFT", 20, [x([3, 8, 1])], [("y", F)], dict(onesided=1))
case("dft20_onesided_len5", "DFT", 20, [x([2, 7, 1]), K("n", I64, [], [5]), K("ax", I64, [], [1])], [("y", F)], dict(onesided=1))
case("dft20_irfft", "DFT", 20, [x([3, 5, 2])], [("y", F)], dict(onesided=1, inverse=1))
case("dft20_irfft_len", "DFT", 20, [x([3, 5, 2]), K("n", I64, [], [9])], [("y", F)], dict(onesided=1, inverse=1))
case("dft20_inverse", "DFT", 20, [x([2, 5, 2]), K("n", I64, [], [3])], [("y", F)], dict(inverse=1))
case("dft20_axis_neg2_rank3_int32len", "DFT", 20, [x([4, 6, 1]), K("n", "int32", [], [10]), K("ax", I64, [], [-2])], [("y", F)])
case("dft17_axis_attr", "DFT", 17, [x([2, 4, 6, 1])], [("y", F)], dict(axis=2, onesided=1))
case("stft17_window", "STFT", 20, [x([1, 16, 1]), K("st", I64, [], [4]), x([8], F, "w")], [("y", F)])
case("stft17_framelen_twosided", "STFT", 20, [x([2, 16, 1]), K("st", I64, [], [4]), None, K("fl", I64, [], [6])], [("y", F)],
     dict(onesided=0))
case("stft17_cplx", "STFT", 20, [x([1, 10, 2]), K("st", I64, [], [3]), None, K("fl", I64, [], [4])], [("y", F)], dict(onesided=0))

case("gelu20_tanh", "Gelu", 20, [x([2, 3])], [("y", F)], dict(approximate="tanh"))
case("gelu20_none_3d", "Gelu", 20, [x([1, 2, 3])], [("y", F)])

case("gs20_bilinear", "GridSample", 20, [x([1, 2, 4, 5]), x([1, 3, 6, 2], F, "g")], [("y", F)])
case("gs20_5d_nearest", "GridSample", 20, [x([1, 2, 3, 4, 5]), x([1, 2, 3, 4, 3], F, "g")], [("y", F)], dict(mode="nearest"))
case("gs20_5d_linear_reflect", "GridSample", 20, [x([2, 1, 3, 4, 5]), x([2, 4, 2, 3, 3], F, "g")], [("y", F)],
     dict(mode="linear", padding_mode="reflection", align_corners=1))
case("gs20_cubic", "GridSample", 20, [x([2, 3, 4, 4]), x([2, 5, 2, 2], F, "g")], [("y", F)], dict(mode="cubic", padding_mode="border"))
case("gs22_5d", "GridSample", 22, [x([1, 2, 3, 4, 5]), x([1, 1, 2, 2, 3], F, "g")], [("y", F)], dict(mode="linear"))

case("isinf20", "IsInf", 20, [x([2, 3])], [("y", "bool")], dict(detect_negative=0))
case("isinf20_f16", "IsInf", 20, [x([4], "float16")], [("y", "bool")])
case("isnan20_double", "IsNaN", 20, [x([2, 1, 3], "double")], [("y", "bool")])

case("regex20", "RegexFullMatch", 20, [In("x", "string", [2, 3])], [("y", "bool")], dict(pattern="ab.*"))
case("strcat20_bcast", "StringConcat", 20, [In("a", "string", [2, 1]), In("b", "string", [3])], [("y", "string")])
case("strsplit20", "StringSplit", 20, [In("x", "string", [2, 3])], [("y", "string"), ("z", I64)], dict(delimiter=","))
case("strsplit20_ws_max", "StringSplit", 20, [In("x", "string", [3])], [("y", "string"), ("z", I64)], dict(maxsplit=1))
case("strsplit20_const", "StringSplit", 20, [K("x", "string", [2], ["a b c", "d"])], [("y", "string"), ("z", I64)])


def _bmp(w, h):
    import struct
    row = (w * 3 + 3) & ~3
    data = bytes(row * h)
    hdr = b"BM" + struct.pack("<IHHI", 54 + len(data), 0, 0, 54)
    dib = struct.pack("<IiiHHIIiiII", 40, w, h, 1, 24, 0, len(data), 2835, 2835, 0, 0)
    return list(hdr + dib + data)


_b = _bmp(3, 2)
case("imgdec20_bmp_rgb", "ImageDecoder", 20, [K("x", "uint8", [len(_b)], _b)], [("y", "uint8")])
case("imgdec20_bmp_gray_in", "ImageDecoder", 20, [In("x", "uint8", [len(_b)], _b)], [("y", "uint8")], dict(pixel_format="Grayscale"))

# ---------------- opset 21 ----------------
case("flatten21_neg", "Flatten", 21, [x([2, 3, 4])], [("y", F)], dict(axis=-1))
case("flatten21_axis0", "Flatten", 21, [x([2, 3, 4])], [("y", F)], dict(axis=0))
case("flatten21_axisr", "Flatten", 21, [x([2, 3, 4])], [("y", F)], dict(axis=3))
case("flatten24_neg3", "Flatten", 24, [x([2, 3, 4], "int8")], [("y", "int8")], dict(axis=-3))

case("qlmm21", "QLinearMatMul", 21,
     [x([2, 3, 4], "uint8", "a"), K("as", F, [], [0.1]), K("az", "uint8", [], [0]), x([4, 5], "uint8", "b"),
      K("bs", F, [], [0.1]), K("bz", "uint8", [], [0]), K("ys", F, [], [0.2]), K("yz", "uint8", [], [0])], [("y", "uint8")])
case("qlmm21_i8_bcast", "QLinearMatMul", 21,
     [x([3, 4], "int8", "a"), K("as", F, [], [0.1]), K("az", "int8", [], [0]), x([2, 4, 5], "int8", "b"),
      K("bs", F, [], [0.1]), K("bz", "int8", [], [0]), K("ys", F, [], [0.2]), K("yz", "int8", [], [0])], [("y", "int8")])

case("shape21_start_neg", "Shape", 21, [x([2, 3, 4])], [("y", I64)], dict(start=-1))
case("shape21_end_neg", "Shape", 21, [x([2, 3, 4])], [("y", I64)], dict(end=-1))
case("shape21_mid", "Shape", 21, [x([2, 3, 4])], [("y", I64)], dict(start=1, end=2))
case("shape21_clamp", "Shape", 21, [x([2, 3, 4])], [("y", I64)], dict(start=-10, end=10))
case("shape21_start_gt_end", "Shape", 21, [x([2, 3, 4])], [("y", I64)], dict(start=2, end=1))
case("shape21_start_past", "Shape", 21, [x([2, 3, 4])], [("y", I64)], dict(start=5))
case("shape24_scalar_in", "Shape", 24, [x([])], [("y", I64)])
case("size21_scalar", "Size", 21, [x([])], [("y", I64)])

case("squeeze21_neg", "Squeeze", 21, [x([1, 3, 1, 2]), k64("ax", [-2])], [("y", F)])
case("squeeze21_noaxes", "Squeeze", 21, [x([1, 3, 1, 2])], [("y", F)])
case("squeeze21_two", "Squeeze", 21, [x([1, 3, 1, 2]), k64("ax", [0, -2])], [("y", F)])
case("squeeze24_scalar", "Squeeze", 24, [x([1])], [("y", F)])
case("unsqueeze21_neg", "Unsqueeze", 21, [x([3, 4]), k64("ax", [-1, 0])], [("y", F)])
case("unsqueeze21_mid_neg", "Unsqueeze", 21, [x([3, 4]), k64("ax", [1, -2])], [("y", F)])
case("unsqueeze21_unsorted", "Unsqueeze", 21, [x([3, 4]), k64("ax", [3, 0])], [("y", F)])
case("unsqueeze24_scalar", "Unsqueeze", 24, [x([]), k64("ax", [0, -1])], [("y", F)])
case("transpose21_noperm", "Transpose", 21, [x([2, 3, 4])], [("y", F)])
case("transpose21_perm", "Transpose", 21, [x([2, 3, 4, 5])], [("y", F)], dict(perm=[1, 3, 0, 2]))
case("transpose24_i64", "Transpose", 24, [x([2, 3], I64)], [("y", I64)])

# ---------------- opset 22 ----------------
case("conv22_group_same", "Conv", 22, [x([1, 2, 7, 7]), x([4, 1, 3, 3], F, "w")], [("y", F)],
     dict(group=2, strides=[2, 2], auto_pad="SAME_UPPER"))
case("conv22_dil_1d", "Conv", 22, [x([2, 3, 10]), x([4, 3, 3], F, "w"), x([4], F, "b")], [("y", F)],
     dict(dilations=[3], pads=[1, 2]))
case("convT22_outpad", "ConvTranspose", 22, [x([1, 2, 3, 3]), x([2, 3, 3, 3], F, "w")], [("y", F)],
     dict(strides=[2, 2], output_padding=[1, 1]))
case("convT22_outshape", "ConvTranspose", 22, [x([1, 2, 3, 3]), x([2, 3, 3, 3], F, "w")], [("y", F)],
     dict(strides=[2, 2], output_shape=[7, 8]))
case("convT22_group_same", "ConvTranspose", 22, [x([1, 2, 3, 4]), x([2, 1, 3, 3], F, "w")], [("y", F)],
     dict(group=2, strides=[2, 2], auto_pad="SAME_UPPER"))
case("convT22_dil_pads", "ConvTranspose", 22, [x([1, 1, 4]), x([1, 2, 3], F, "w")], [("y", F)],
     dict(dilations=[2], pads=[1, 2], strides=[3]))
case("maxpool22_ceil_lastwin_in_pad", "MaxPool", 22, [x([1, 1, 5, 5])], [("y", F), ("i", I64)],
     dict(kernel_shape=[2, 2], strides=[3, 3], pads=[0, 0, 1, 1], ceil_mode=1))
case("maxpool22_ceil_dil_pad", "MaxPool", 22, [x([1, 1, 8, 7])], [("y", F)],
     dict(kernel_shape=[3, 2], strides=[2, 3], dilations=[2, 1], pads=[1, 1, 1, 1], ceil_mode=1))
case("maxpool22_dil", "MaxPool", 22, [x([1, 1, 7, 7])], [("y", F), ("i", I64)],
     dict(kernel_shape=[2, 2], dilations=[2, 2], storage_order=1))
case("maxpool22_same_1d_i8", "MaxPool", 22, [x([1, 2, 9], "int8")], [("y", "int8")],
     dict(kernel_shape=[4], strides=[2], auto_pad="SAME_LOWER"))
case("maxunpool22", "MaxUnpool", 22, [x([1, 1, 2, 2]), K("i", I64, [1, 1, 2, 2], [0, 3, 8, 15])], [("y", F)],
     dict(kernel_shape=[2, 2], strides=[2, 2]))
case("maxunpool22_outshape", "MaxUnpool", 22, [x([1, 1, 2, 2]), K("i", I64, [1, 1, 2, 2], [0, 3, 8, 15]), k64("os", [1, 1, 5, 5])],
     [("y", F)], dict(kernel_shape=[2, 2], strides=[2, 2]))
case("maxunpool22_pads", "MaxUnpool", 22, [x([1, 1, 3, 3]), K("i", I64, [1, 1, 3, 3], list(range(9)))], [("y", F)],
     dict(kernel_shape=[2, 2], strides=[2, 2], pads=[1, 1, 1, 1]))
case("gap22", "GlobalAveragePool", 22, [x([1, 3, 4, 5])], [("y", F)])
case("gmp22_1d", "GlobalMaxPool", 22, [x([2, 3, 4])], [("y", F)])
case("glp21", "GlobalLpPool", 21, [x([2, 3, 4, 5, 2])], [("y", F)], dict(p=1))
case("lpnorm22", "LpNormalization", 22, [x([2, 3])], [("y", F)], dict(axis=-1, p=1))
case("instnorm22", "InstanceNormalization", 22, [x([2, 3, 4]), x([3], F, "s"), x([3], F, "b")], [("y", F)])
case("roialign21", "RoiAlign", 21, [x([1, 2, 8, 8]), x([3, 4], F, "r"), K("bi", I64, [3], [0, 0, 0])], [("y", F)],
     dict(output_height=2, output_width=3, coordinate_transformation_mode="half_pixel"))
case("maxroipool21", "MaxRoiPool", 21, [x([1, 3, 8, 10]), K("r", F, [2, 5], [0, 0, 0, 3, 3, 0, 1, 1, 5, 5])], [("y", F)],
     dict(pooled_shape=[2, 2]))
case("eyelike22", "EyeLike", 22, [x([3, 4])], [("y", "int32")], dict(k=1, dtype=6))
case("eyelike22_i64in", "EyeLike", 22, [x([2, 5], I64)], [("y", I64)], dict(k=-1))
case("bernoulli21", "Bernoulli", 21, [x([2, 3])], [("y", F)])
case("bernoulli21_dtype", "Bernoulli", 21, [x([4], "double")], [("y", "int32")], dict(dtype=6))
case("multinomial21", "Multinomial", 21, [x([2, 5])], [("y", "int32")], dict(sample_size=3))
case("multinomial21_i64", "Multinomial", 21, [x([1, 4])], [("y", I64)], dict(dtype=7))
case("randn21", "RandomNormal", 21, [], [("y", F)], dict(shape=[2, 3, 4]))
case("randu21_double", "RandomUniform", 21, [], [("y", "double")], dict(shape=[5], dtype=11))
case("randnlike21", "RandomNormalLike", 21, [x([2, 3], "int32")], [("y", F)], dict(dtype=1))
case("randulike21", "RandomUniformLike", 21, [x([3, 1])], [("y", F)])
case("nll22_none", "NegativeLogLikelihoodLoss", 22, [x([2, 3, 4]), K("t", I64, [2, 4], [0, 1, 2, 0, 1, 2, 0, 1])], [("y", F)],
     dict(reduction="none"))
case("nll22_mean_w", "NegativeLogLikelihoodLoss", 22, [x([2, 3]), K("t", I64, [2], [0, 2]), x([3], F, "w")], [("y", F)])
case("dropout22_train", "Dropout", 22, [x([2, 3]), K("r", F, [], [0.5]), K("tm", "bool", [], [1])], [("y", F), ("m", "bool")])
case("dropout22_infer_mask", "Dropout", 22, [x([2, 3, 1])], [("y", F), ("m", "bool")])
case("gru22_bidir", "GRU", 22, [x([3, 2, 5]), x([2, 12, 5], F, "w"), x([2, 12, 4], F, "r")], [("y", F), ("yh", F)],
     dict(hidden_size=4, direction="bidirectional"))
case("gru22_layout1_ort_rejects", "GRU", 22, [x([2, 3, 5]), x([1, 12, 5], F, "w"), x([1, 12, 4], F, "r")], [("y", F), ("yh", F)],
     dict(hidden_size=4, layout=1))
case("lstm22_layout1_bidir_ort_rejects", "LSTM", 22, [x([2, 3, 5]), x([2, 16, 5], F, "w"), x([2, 16, 4], F, "r")],
     [("y", F), ("yh", F), ("yc", F)], dict(hidden_size=4, layout=1, direction="bidirectional"))
case("lstm22_only_yc", "LSTM", 22, [x([3, 2, 5]), x([1, 16, 5], F, "w"), x([1, 16, 4], F, "r")],
     [None, None, ("yc", F)], dict(hidden_size=4))
case("rnn22_reverse", "RNN", 22, [x([4, 1, 3]), x([1, 2, 3], F, "w"), x([1, 2, 2], F, "r")], [("y", F), ("yh", F)],
     dict(hidden_size=2, direction="reverse"))
case("det22_batch", "Det", 22, [x([2, 3, 3])], [("y", F)])
case("det22_single", "Det", 22, [x([3, 3])], [("y", F)])
for u in ["Acos", "Acosh", "Asin", "Asinh", "Atan", "Atanh", "Cos", "Cosh", "Sin", "Sinh", "Tan", "Elu", "Selu",
          "HardSigmoid", "HardSwish", "Softplus", "Softsign", "ThresholdedRelu", "Round"]:
    case("u22_" + u, u, 22, [x([2, 1, 3])], [("y", F)])
case("deform22_groups", "DeformConv", 22,
     [x([1, 4, 5, 5]), x([4, 2, 3, 3], F, "w"), x([1, 36, 5, 5], F, "off"), None, x([1, 18, 5, 5], F, "m")], [("y", F)],
     dict(group=2, offset_group=2, pads=[1, 1, 1, 1]))

# ---------------- opset 23 ----------------
case("rope23_interleaved_partial", "RotaryEmbedding", 23, [x([1, 2, 3, 8]), x([1, 3, 2], F, "c"), x([1, 3, 2], F, "s")],
     [("y", F)], dict(interleaved=1, rotary_embedding_dim=4))
case("rope23_3d_partial_pos", "RotaryEmbedding", 23, [x([2, 3, 16]), x([5, 2], F, "c"), x([5, 2], F, "s"), x([2, 3], I64, "p")],
     [("y", F)], dict(num_heads=2, rotary_embedding_dim=4))
case("rmsnorm23_neg", "RMSNormalization", 23, [x([2, 3, 4]), x([4], F, "s")], [("y", F)], dict(axis=-1))
case("rmsnorm23_axis0", "RMSNormalization", 23, [x([2, 3]), x([2, 3], F, "s")], [("y", F)], dict(axis=0))
case("att23_4d_past_qk", "Attention", 23,
     [x([1, 2, 3, 4], F, "q"), x([1, 2, 3, 4], F, "k"), x([1, 2, 3, 6], F, "v"), None, x([1, 2, 2, 4], F, "pk"),
      x([1, 2, 2, 6], F, "pv")], [("y", F), ("prk", F), ("prv", F), ("qk", F)], dict(qk_matmul_output_mode=3))
case("att23_3d_boolmask_mqa", "Attention", 23,
     [x([2, 3, 8], F, "q"), x([2, 5, 2], F, "k"), x([2, 5, 3], F, "v"), x([3, 5], "bool", "m")], [("y", F)],
     dict(q_num_heads=4, kv_num_heads=1, scale=0.5))
case("att23_short_mask", "Attention", 23,
     [x([1, 2, 3, 4], F, "q"), x([1, 2, 3, 4], F, "k"), x([1, 2, 3, 4], F, "v"), x([1, 1, 3, 2], F, "m"),
      x([1, 2, 2, 4], F, "pk"), x([1, 2, 2, 4], F, "pv")], [("y", F), ("prk", F), ("prv", F)])
case("att24_nonpad", "Attention", 24,
     [x([2, 2, 3, 4], F, "q"), x([2, 2, 6, 4], F, "k"), x([2, 2, 6, 4], F, "v"), None, None, None,
      K("np", I64, [2], [4, 6])], [("y", F)], dict(is_causal=1))
case("att24_3d_gqa_qk", "Attention", 24,
     [x([1, 3, 8], F, "q"), x([1, 4, 4], F, "k"), x([1, 4, 6], F, "v")], [("y", F), None, None, ("qk", F)],
     dict(q_num_heads=4, kv_num_heads=2, qk_matmul_output_mode=1, softcap=10.0))

# ---------------- opset 24 ----------------
case("topk24_neg", "TopK", 24, [x([3, 5]), k64("k", [2])], [("v", F), ("i", I64)])
case("topk24_axis0_smallest", "TopK", 24, [x([4, 3]), k64("k", [3])], [("v", F), ("i", I64)], dict(axis=0, largest=0))
case("topk24_3d_unsorted_i32", "TopK", 24, [x([2, 5, 3], "int32"), k64("k", [1])], [("v", "int32"), ("i", I64)],
     dict(axis=1, sorted=0))
case("topk24_kfull", "TopK", 24, [x([2, 4]), k64("k", [4])], [("v", F), ("i", I64)])
case("tscatter24_axis1_circ", "TensorScatter", 24, [x([2, 8, 3], F, "p"), x([2, 2, 3], F, "u"), K("wi", I64, [2], [7, 1])],
     [("y", F)], dict(axis=1, mode="circular"))
case("tscatter24_noidx", "TensorScatter", 24, [x([1, 2, 5, 4], F, "p"), x([1, 2, 3, 4], F, "u")], [("y", F)])
case("swish24_default", "Swish", 24, [x([3, 2])], [("y", F)])

# ---------------- second round ----------------
case("lstm22_bidir", "LSTM", 22, [x([3, 2, 5]), x([2, 16, 5], F, "w"), x([2, 16, 4], F, "r")],
     [("y", F), ("yh", F), ("yc", F)], dict(hidden_size=4, direction="bidirectional"))
case("resize18_notlarger_round_posaxes", "Resize", 18, [x([1, 3, 7, 5]), None, None, k64("sz", [10, 10])], [("y", F)],
     dict(axes=[2, 3], keep_aspect_ratio_policy="not_larger", mode="linear"))
case("resize18_sizes_negaxes_stretch", "Resize", 18, [x([1, 3, 7, 5]), None, None, k64("sz", [4, 9])], [("y", F)],
     dict(axes=[-2, -1], mode="nearest"))
case("resize18_sizes_negaxes_reversed", "Resize", 18, [x([1, 3, 7, 5]), None, None, k64("sz", [9, 4])], [("y", F)],
     dict(axes=[-1, -2], mode="nearest"))
case("resize18_scales_axes_reversed", "Resize", 18, [x([1, 1, 4, 6]), None, K("sc", F, [2], [0.5, 2.0])], [("y", F)],
     dict(axes=[3, 2], mode="nearest"))
case("resize18_notsmaller_axes1", "Resize", 18, [x([1, 2, 4, 6]), None, None, k64("sz", [3])], [("y", F)],
     dict(axes=[3], keep_aspect_ratio_policy="not_smaller", mode="nearest"))
case("resize18_empty_scales_sizes", "Resize", 18, [x([1, 2, 4, 6]), K("roi", F, [0], []), K("sc", F, [0], []), k64("sz", [1, 2, 3, 3])],
     [("y", F)], dict(mode="nearest"))
case("resize13_in_opset18_scales", "Resize", 18, [x([2, 2, 3]), K("roi", F, [0], []), K("sc", F, [3], [1, 1, 2.5])], [("y", F)],
     dict(mode="nearest", nearest_mode="floor"))
case("scan24_outaxis_only", "Scan", 24, [x([2], F, "s0"), x([3, 2])], [("sf", F), ("ys", F)],
     dict(body=scan_body, num_scan_inputs=1, scan_output_axes=[1]))
case("scan24_inaxis_only", "Scan", 24, [x([2], F, "s0"), x([2, 3])], [("sf", F), ("ys", F)],
     dict(body=scan_body, num_scan_inputs=1, scan_input_axes=[1]))
case("scan24_inaxis_neg", "Scan", 24, [x([2], F, "s0"), x([2, 3])], [("sf", F), ("ys", F)],
     dict(body=scan_body, num_scan_inputs=1, scan_input_axes=[-1]))
case("scan19_reverse_dir", "Scan", 19, [x([2], F, "s0"), x([3, 2])], [("sf", F), ("ys", F)],
     dict(body=scan_body, num_scan_inputs=1, scan_input_directions=[1], scan_output_directions=[1]))
case("const19_string", "Constant", 19, [], [("y", "string")], dict(value_string="abc"))
case("const21_string_tensor", "Constant", 21, [], [("y", "string")],
     dict(value=helper.make_tensor("v", 8, [2], [b"a", b"b"])))
case("dft20_irfft_rank4_axis1", "DFT", 20, [x([2, 4, 3, 2]), None, K("ax", I64, [], [1])], [("y", F)], dict(onesided=1, inverse=1))
case("dft20_inverse_full", "DFT", 20, [x([2, 5, 1])], [("y", F)], dict(inverse=1))
case("dft20_axis_neg_rank2", "DFT", 20, [x([6, 1]), None, K("ax", I64, [], [-2])], [("y", F)])
case("q21_block_int4_cast", "QuantizeLinear", 21, [x([4, 8]), K("s", F, [4, 2], [1.0] * 8), K("z", "int4", [4, 2], None)],
     [("y", "int4")], dict(axis=1, block_size=4))
case("dq21_block_uint4", "DequantizeLinear", 21, [K("x", "uint4", [6, 4], None), K("s", F, [2, 4], [1.0] * 8)], [("y", F)],
     dict(axis=0, block_size=3))
case("dq19_f8e5m2_axis", "DequantizeLinear", 19, [K("x", "float8e5m2", [2, 3], None), K("s", F, [], [1.0])], [("y", F)])
case("castlike21_u4", "CastLike", 21, [x([2, 3]), K("t", "uint4", [1], None)], [("y", "uint4")])
case("split18_num_outputs1", "Split", 18, [x([3, 4])], [("a", F)], dict(num_outputs=1, axis=1))
case("split13_noattr_3", "Split", 18, [x([6, 3])], [("a", F), ("b", F), ("c", F)], dict(axis=-2))
case("ccp_pad_odd", "CenterCropPad", 18, [x([3, 3]), k64("s", [6, 1])], [("y", F)])
case("pad18_axes_all_neg_reflect", "Pad", 18, [x([3, 4]), k64("p", [1, 2, 1, 2]), None, k64("ax", [-1, -2])], [("y", F)],
     dict(mode="reflect"))
case("topk24_k0", "TopK", 24, [x([3, 5]), k64("k", [0])], [("v", F), ("i", I64)])
case("opthas_optional_type_absent", "OptionalHasElement", 18, [None], [("y", "bool")])
case("gelu20_f16", "Gelu", 20, [x([2, 3], "float16")], [("y", "float16")])
case("affgrid_2d_i64_size_input", "AffineGrid", 20, [x([2, 2, 3], F, "th"), In("sz", I64, [4], [2, 3, 4, 5])], [("y", F)])
case("scan24_outaxis_neg1", "Scan", 24, [x([2], F, "s0"), x([3, 2])], [("sf", F), ("ys", F)],
     dict(body=scan_body, num_scan_inputs=1, scan_output_axes=[-1]))
case("scan24_outaxis_neg2", "Scan", 24, [x([2], F, "s0"), x([3, 2])], [("sf", F), ("ys", F)],
     dict(body=scan_body, num_scan_inputs=1, scan_output_axes=[-2]))
case("scan19_outaxis_neg1", "Scan", 19, [x([2], F, "s0"), x([3, 2])], [("sf", F), ("ys", F)],
     dict(body=scan_body, num_scan_inputs=1, scan_output_axes=[-1]))
case("scan24_inaxis1_outaxis1", "Scan", 24, [x([2], F, "s0"), x([2, 3])], [("sf", F), ("ys", F)],
     dict(body=scan_body, num_scan_inputs=1, scan_input_axes=[1], scan_output_axes=[1]))
case("resize19_notsmaller_negaxes", "Resize", 19, [x([1, 1, 4, 6]), None, None, k64("sz", [8, 8])], [("y", F)],
     dict(axes=[-2, -1], keep_aspect_ratio_policy="not_smaller"))


# ---------------- ONNX's experimental operators (ONNX Runtime keeps them) ----------------
case("dynslice9", "DynamicSlice", 9, [x([3, 4, 5]), k64("st", [1, 0]), k64("en", [3, -1]), k64("ax", [0, 2])], [("y", F)])
case("dynslice9_noaxes", "DynamicSlice", 9, [x([3, 4, 5]), k64("st", [0, 1]), k64("en", [2, 3])], [("y", F)])
case("scale8", "Scale", 8, [x([2, 3, 4])], [("y", F)], dict(scale=2.0))
case("affine8", "Affine", 8, [x([2, 3])], [("y", F)], dict(alpha=2.0, beta=1.0))
case("scaledtanh8", "ScaledTanh", 8, [x([4, 5])], [("y", F)], dict(alpha=2.0, beta=0.5))
case("psoftplus8", "ParametricSoftplus", 8, [x([3, 2])], [("y", F)], dict(alpha=1.5, beta=2.0))
case("crop8_border", "Crop", 8, [x([1, 3, 10, 12])], [("y", F)], dict(border=[1, 2, 3, 4]))
case("crop8_scale", "Crop", 8, [x([2, 2, 10, 12])], [("y", F)], dict(border=[1, 2, 3, 4], scale=[5, 6]))
case("mvn8_mean_only", "MeanVarianceNormalization", 8, [x([2, 3, 4, 5])], [("y", F)], dict(normalize_variance=0))
case("mvn8_across", "MeanVarianceNormalization", 8, [x([2, 3, 4, 5])], [("y", F)], dict(across_channels=1))
case("imagescaler8", "ImageScaler", 8, [x([1, 3, 4, 4])], [("y", F)], dict(scale=0.5, bias=[1.0, 2.0, 3.0]))

# ONNX Runtime 1.30 cannot run these, or runs them wrongly; foldline's answers
# for them are checked by the unit tests (test_onnx_ops.c, test_onnx.c).
SKIP = {
    "ccp_i32shape": "ONNX Runtime: CenterCropPad's function body fails with int32 shape",
    "pad18_i32_axes": "ONNX Runtime: Pad-18 refuses int32 axes, which the schema allows",
    "resize18_notlarger_round": "ONNX Runtime bug: negative axes with keep_aspect_ratio_policy "
                                "return the input shape",
    "resize19_notsmaller_negaxes": "ONNX Runtime bug: negative axes with "
                                   "keep_aspect_ratio_policy return the input shape",
    "split18_num4_of5": "an invalid model: num_outputs is not the output count",
    "split13_noattr_3": "an invalid model at opset 18: neither split nor num_outputs",
    "cast23_f4": "ONNX Runtime: no CPU Cast to float4e2m1",
    "dq24_outdtype": "ONNX Runtime bug: DequantizeLinear-24 to float16 fails",
    "imgdec20_bmp_rgb": "ONNX Runtime: no CPU ImageDecoder",
    "imgdec20_bmp_gray_in": "ONNX Runtime: no CPU ImageDecoder",
    "gru22_layout1_ort_rejects": "ONNX Runtime: no batch-first (layout 1) GRU on CPU",
    "lstm22_layout1_bidir_ort_rejects": "ONNX Runtime: no batch-first (layout 1) LSTM on CPU",
    "att23_short_mask": "ONNX Runtime's CPU Attention refuses a mask shorter than the keys",
}

# Dims only the run-time values decide: foldline leaves them symbolic.
DYNAMIC = {
    "cos20_input": {"y": [0, 1, 2]},  # the shape is a graph input
    "strsplit20": {"y": [2]},  # the most substrings of any element
    "strsplit20_ws_max": {"y": [1]},
    "strsplit20_const": {"y": [1]},
    "affgrid_2d_i64_size_input": {"y": [0, 1, 2]},  # size is a graph input
}
