/*
 * onnx.h - the ONNX op family (the files of src/ops/onnx/): operators of the default ai.onnx domain
 * (registered as "onnx::OpType") and the ONNX Runtime contrib operators of
 * com.microsoft ("com.microsoft::OpType") that ORT's optimiser writes.
 * src/import/onnx.c looks them up by that qualified name; node->op keeps the
 * file's op_type. ONNX ops never share a descriptor with TensorFlow's ops of
 * the same name (their attrs and inputs differ), but where the semantics are
 * exactly TensorFlow's (numpy broadcasting element-wise ops, comparisons,
 * Where = SelectV2, Range, Cast's value conversion) the hooks run the TF
 * descriptor's infer/eval on a copy of the node that carries the TF kind
 * (see `twin`).
 *
 * Opset handling: attrs that moved to inputs (Unsqueeze/Squeeze/ReduceSum
 * axes, Split's split, Slice's starts/ends/axes, Clip's min/max, Pad's pads)
 * are read from the input when it is present, else from the attr, so every
 * opset from 7 on is understood without knowing the version.
 *
 * Shapes: NCHW (channels first) for Conv, pools, BatchNormalization, as ONNX
 * defines them. Convolution and pooling output sizes: explicit pads
 * floor((in + pad_begin + pad_end - eff_k) / stride) + 1 (ceil_mode: ceil,
 * dropping a last window that would start in the end padding), auto_pad
 * SAME_UPPER/SAME_LOWER ceil(in / stride), VALID ceil((in - eff_k + 1) /
 * stride), eff_k = (k - 1) * dilation + 1.
 *
 * Evaluation (so raw exports' Reshape targets computed from Shape chains
 * resolve exactly, symbolic dims included): Shape, Size, Gather, Unsqueeze,
 * Squeeze, Flatten, Reshape, Identity, Dropout, Concat, Slice, Cast,
 * ConstantOfShape, Range, Add/Sub/Mul/Div/Equal/Where... (TF's hooks).
 *
 * FLOP rules, "complete" convention (E(t) = element count of t; a MAC is 2
 * FLOPs; MACs only for the conv/matmul family):
 *   Conv, com.microsoft::FusedConv  MACs = E(out) * (C_in / group) * prod(k)
 *                         (= E(out) * W.dim[1] * prod(kernel_shape));
 *                         FLOPs = 2 * MACs + E(out) when a bias input B is
 *                         given (one add per output element), + E(out) for
 *                         FusedConv's activation, + E(out) for its sum
 *                         input Z: a fused op counts what its unfused
 *                         chain counts
 *   Gemm, com.microsoft::FusedGemm  MACs = M * N * K; FLOPs = 2 * MACs +
 *                         E(out) when C is given (+ E(out) activation); the
 *                         alpha/beta scalings are not counted (exporters
 *                         leave them at 1)
 *   MatMul, com.microsoft::FusedMatMul  MACs = prod(broadcast batch dims) *
 *                         M * N * K (numpy matmul: 1-D operands promoted);
 *                         FLOPs = 2 * MACs (+ E(out) for FusedMatMul's alpha
 *                         when it is not 1)
 *   MaxPool, AveragePool  prod(kernel_shape) * E(out)
 *   GlobalAveragePool     E(in) (as Mean); GlobalMaxPool E(in) - E(out)
 *   comparisons of integers: MaxPool (and com.microsoft::NhwcMaxPool, which
 *                         counts as MaxPool), ReduceMax/ReduceMin,
 *                         ArgMax/ArgMin (onnxops/reduce.c) and
 *                         Max/Min (variadic) on an integer input (the uint8
 *                         and int8 tensors of a quantized graph, int64
 *                         shape values) count the same number in int_ops
 *                         and 0 FLOPs: an integer max is no floating-point
 *                         work, and the roofline times int_ops at the
 *                         integer peak
 *   BatchNormalization    2 * E(X) (inference: per-channel factors folded)
 *   element-wise unary/binary ops, activations (Relu, Sigmoid, Erf, Sqrt,
 *   HardSigmoid, HardSwish, Gelu, QuickGelu, Swish (opset 24, x *
 *   sigmoid(alpha * x), as QuickGelu)...), comparisons, Where, Clip,
 *   Cast, Pow          1 * E(out); PRelu 2 * E(out);
 *   Sum/Max/Min (variadic) (inputs - 1) * E(out); Mean inputs * E(out)
 *   ReduceMean E(in); ReduceSum/Max/Min/Prod E(in) - E(out)
 *   Softmax, LogSoftmax   5 * E(in)
 *   LayerNormalization    what its decomposition counts (ReduceMean E, Sub E,
 *                         Pow E, ReduceMean E, Add eps R, Sqrt R, Div E,
 *                         Mul E, Add E): 6 * E(X) + 2 * R, + E(X) with a
 *                         bias B; R = rows = E(X) / D, D = prod(X.shape[axis:])
 *   SimplifiedLayerNormalization (RMS norm: Pow, ReduceMean, Add eps, Sqrt,
 *                         Div, Mul), RMSNormalization (opset 23, the same
 *                         normalisation over axes axis..end, one output)
 *                         4 * E(X) + 2 * R
 *   com.microsoft::SkipLayerNormalization  E(X) (skip add) + E(X) per bias
 *                         input + the LayerNormalization count over the last
 *                         axis
 *   data movement and metadata (Reshape, Flatten, Transpose, Concat, Split,
 *   Slice, Gather, Squeeze, Unsqueeze, Expand, Pad, Tile, Shape, Size,
 *   ConstantOfShape, Range, Identity, Dropout)  0, with a rule
 * tfprof_flops is 0 (tfprof_rule false) for every ONNX op: tfprof profiles
 * TensorFlow graphs only.
 */
#ifndef FL_OPS_ONNX_ONNX_H
#define FL_OPS_ONNX_ONNX_H

#include "ops/common.h"
#include "ops/onnxops/util.h"

/* Spatial dims a convolution or pool may have. */
#define MAX_SPATIAL 8

/* True when s is the known integer v. */
bool fl__onnx_known_eq(fl_sym s, int64_t v);

/* Copies element si of src into element di of dst (same dtype). */
void fl__onnx_copy_elem(fl_value *dst, int64_t di, const fl_value *src, int64_t si);
/* Copies `count` elements from element si of src on into dst from di on
 * (same dtype), as one block. */
void fl__onnx_copy_run(fl_value *dst, int64_t di, const fl_value *src, int64_t si, int64_t count);

/* A new value for output `port`, or NULL (too large, not concrete, or OOM
 * with d failed: the caller returns fl_ctx_status). */
fl_status fl__onnx_new_out_value(fl_ctx *c, fl_node *n, int port, fl_value **v);

/* Output 0 := input 0's value laid out in output 0's shape. */
fl_status fl__onnx_eval_copy(fl_ctx *c, fl_node *n);

/* Infer / eval hooks of an ONNX op through its TensorFlow twin (elementwise.c
 * lists the pairs). */
fl_status fl__onnx_infer_twin(fl_ctx *c, fl_node *n);
fl_status fl__onnx_eval_twin(fl_ctx *c, fl_node *n);

/* A shape given as the value of input i (an int64 vector): *shape gets its
 * rank and dims (symbolic elements kept); unknown value: the rank from the
 * input's static length when known, dims unknown. */
fl_status fl__onnx_shape_from_input(fl_ctx *c, const fl_node *n, int i, fl_shape *shape);

/* Activation of a com.microsoft fused op: 1 per output element unless
 * absent or Identity. */
bool fl__onnx_has_activation(const fl_node *n);

#endif
