/*
 * qlinear.c - ONNX Runtime contrib operators (domain com.microsoft) of
 * QOperator-format quantized graphs beyond the contractions of quant.c:
 * QLinearAdd, QLinearMul, QLinearSigmoid, QLinearLeakyRelu, QLinearSoftmax,
 * QLinearGlobalAveragePool, QLinearAveragePool, QLinearReduceMean,
 * QLinearConcat, QLinearWhere; the NHWC forms ORT's layout transformer
 * writes (level 'all'): com.microsoft QLinearConv and NhwcMaxPool, and the
 * float NhwcConv and NhwcFusedConv of ORT's NHWC transformer; the hybrid
 * matmuls DynamicQuantizeMatMul and MatMulIntegerToFloat; the
 * cuBLASLt-ordered int8 QOrderedGelu, QOrderedLayerNormalization and
 * QOrderedAttention.
 *
 * Shapes and types (ORT's contrib op schemas, docs/ContribOperators.md):
 *   QLinearAdd/Mul   A, A_scale, A_zero_point?, B, B_scale, B_zero_point?,
 *                    C_scale, C_zero_point?: C = numpy broadcast of A and B,
 *                    A's type.
 *   QLinearSigmoid, QLinearLeakyRelu (attr alpha), QLinearSoftmax (attrs
 *                    opset required, axis: default 1 before opset 13, -1
 *                    from 13; out of range fails naming it)  X, X_scale,
 *                    X_zero_point?, Y_scale, Y_zero_point? (QLinearSoftmax:
 *                    Y_zero_point required): X's shape and type.
 *   QLinearGlobalAveragePool  X, x_scale, x_zero_point, y_scale,
 *                    y_zero_point, attr channels_last: X's shape with every
 *                    spatial dim 1 (N, C, 1.. or N, 1.., C); rank >= 3.
 *   QLinearAveragePool  as onnx::AveragePool (kernel_shape, strides, pads,
 *                    auto_pad, ceil_mode) on X (inputs as QLinearSigmoid's);
 *                    channels_last: X is (N, D1.., C) and so is Y.
 *   QLinearConv (com.microsoft)  onnx::QLinearConv's inputs, attrs and
 *                    shape; with channels_last (default 0) X is (N, D1..,
 *                    C) and Y (N, D1.., M), W still (M, C/group, k1..).
 *   NhwcConv, NhwcFusedConv  onnx::Conv's and com.microsoft FusedConv's
 *                    inputs and attrs with X (N, D1.., C) and Y (N, D1..,
 *                    M) channels-last; W (M, k1.., C/group), as ONNX
 *                    Runtime's NHWC fusion writes it (Conv's weight
 *                    transposed by (0, 2, 3, 1)) and its CUDA kernel reads
 *                    it, or the contrib doc's (M, C/group, k1..) when only
 *                    that fits X's channels and attr kernel_shape (both
 *                    fitting, the first is read); NhwcFusedConv's Z (input
 *                    3) is Y's shape.
 *   NhwcMaxPool      onnx::MaxPool's attrs (kernel_shape required) on a
 *                    channels-last X (N, D1.., C), int8 or uint8: Y (N,
 *                    D1'.., C), X's type; no Indices output.
 *   QLinearReduceMean  attrs axes and keepdims required (a missing one fails
 *                    naming it): onnx::ReduceMean's shape.
 *   QLinearConcat    Y_scale, Y_zero_point, then (X_i, X_i_scale,
 *                    X_i_zero_point) per tensor (an input count not 2 + 3k,
 *                    k >= 1, fails): onnx::Concat of the X_i along attr axis
 *                    (required), Y_zero_point's type.
 *   QLinearWhere     condition, X, x_scale, x_zero_point, Y, y_scale,
 *                    y_zero_point, z_scale, z_zero_point: the broadcast of
 *                    condition, X and Y, z_zero_point's type.
 *   DynamicQuantizeMatMul  A (float), B (int8/uint8), b_scale,
 *                    b_zero_point?, bias?: numpy matmul of A and B, A's type.
 *   MatMulIntegerToFloat  A, B, a_scale, b_scale, a_zero_point?,
 *                    b_zero_point?, bias?: numpy matmul, a_scale's type.
 *   QOrderedGelu     X, scale_X, scale_Y; QOrderedLayerNormalization X,
 *                    scale_X, scale (gamma), B?, scale_Y (attr axis, default
 *                    -1): X's shape, int8.
 *   QOrderedAttention  input (B, S, H_in) int8, scale_input, scale_Q/K/V_gemm,
 *                    Q/K/V_weight (H_in, Hq / Hk / Hv) int8 (inputs 5-7),
 *                    their scales, Q/K/V_bias, scale_QKT_gemm?,
 *                    scale_QKT_softmax?, scale_values_gemm, mask_index? (17),
 *                    past? and attention_bias? (which ORT's schema says the
 *                    op does not support: not read). attr num_heads N
 *                    (required, > 0, dividing Hq and Hv): output (B, S, Hv)
 *                    int8. An input of the wrong rank or a weight whose
 *                    first dim is not H_in fails naming it.
 *
 * Counting rule: each op as its definition reads, with the rules of
 * src/ops/onnxops/misc.c's header (integer arithmetic in int_ops, never in
 * FLOPs or MACs; float arithmetic in FLOPs; the per-tensor scale quotients
 * free; an absent zero point is 0 and still subtracted or added). A
 * dequantization (x - zp) * scale counts E(x) int_ops and E(x) FLOPs per
 * operand element, a quantization round(y / scale) + zp 2 * E(y) FLOPs and
 * E(y) int_ops per output element, and the float op between them what its
 * onnx twin counts (onnx/onnx.h). ORT implements several of these with
 * 256-entry lookup tables; the count is of the definition, not of a kernel.
 * E(t) = element count, M = integer multiply-accumulates of the product.
 *   QLinearAdd       int_ops E(A) + E(B) + E(C); FLOPs E(A) + E(B) (scales)
 *                    + E(C) (add) + E(C) (round)
 *   QLinearMul       ((A - zA) * (B - zB)) * (sA * sB / sC) + zC: int_ops
 *                    E(A) + E(B) + 2 * E(C) (the integer product, zC);
 *                    FLOPs 2 * E(C) (scale, round)
 *   QLinearSigmoid, QLinearLeakyRelu  int_ops 2 * E; FLOPs 4 * E (dequantize,
 *                    the activation 1, quantize 2)
 *   QLinearSoftmax   int_ops 2 * E; FLOPs 8 * E (Softmax 5)
 *   QLinearGlobalAveragePool, QLinearReduceMean  int_ops E(X) + E(Y); FLOPs
 *                    E(X) + E(X) (the mean, as GlobalAveragePool/ReduceMean)
 *                    + 2 * E(Y)
 *   QLinearAveragePool  int_ops E(X) + E(Y); FLOPs E(X) + prod(kernel) *
 *                    E(Y) (AveragePool) + 2 * E(Y)
 *   QLinearConv (com.microsoft), NhwcMaxPool, NhwcConv, NhwcFusedConv
 *                    what onnx::QLinearConv, onnx::MaxPool, onnx::Conv and
 *                    FusedConv count (src/ops/onnxops/misc.c,
 *                    src/ops/onnx/conv.c): the layout changes no count
 *   QLinearConcat    requantizes each element: int_ops 2 * E(Y) (its zero
 *                    point off, Y's on); FLOPs 2 * E(Y) (scale, round)
 *   QLinearWhere     int_ops E(X) + E(Y) + E(Z); FLOPs E(X) + E(Y) + E(Z)
 *                    (the select, as onnx::Where) + 2 * E(Z)
 *   DynamicQuantizeMatMul  DynamicQuantizeLinear(A) (FLOPs 4 * E(A), int_ops
 *                    E(A)), MatMulInteger (int_ops 2 * M + E(A) + E(B)),
 *                    the accumulator times a_scale * b_scale (FLOPs E(Y)),
 *                    + E(Y) FLOPs with bias: int_ops 2 * M + 2 * E(A) +
 *                    E(B); FLOPs 4 * E(A) + E(Y) (+ E(Y))
 *   MatMulIntegerToFloat  int_ops 2 * M + E(A) + E(B); FLOPs E(Y) (+ E(Y)
 *                    with bias)
 *   QOrderedGelu     symmetric int8 (no zero points): FLOPs 4 * E (X times
 *                    its scale, Gelu 1, divide, round), 0 int_ops
 *   QOrderedLayerNormalization  FLOPs E(X) + LayerNormalization's count (6 *
 *                    E(X) + 2 * R, + E(X) with B) + 2 * E(X), 0 int_ops
 *   QOrderedAttention  every product an int8 GEMM (symmetric: no zero
 *                    points), attention counted in full as Attention's
 *                    (every query row against every key; unidirectional
 *                    halves nothing); with P = B * S * (Hq + Hk + Hv), A =
 *                    B * S * S * (Hq + Hv) and Sc = B * N * S * S scores:
 *                    int_ops 2 * B * S * H_in * (Hq + Hk + Hv) (Q/K/V) + 2 *
 *                    A (Q K^T and the weighted sum of V); FLOPs 3 * P (each
 *                    projection's scale, bias, round) + 10 * Sc (Q K^T's
 *                    scale and round, its dequantization, Softmax 5, the
 *                    probabilities' quantization 2) + Sc with mask_index +
 *                    2 * B * S * Hv (the output's scale and round); 0 MACs
 */
#include "ops/onnxops/util.h"

/* Counts for "dequantize the operands, float op, quantize the output":
 * integer ops ein (zero points off) + eout (zero point on), FLOPs ein
 * (scales) + core + 2 * eout (divide, round). */
static fl_status put_requant(fl_arith *k, fl_cost *out, fl_sym ein, fl_sym core, fl_sym eout) {
    fl_sym flops = fl__ar_add(k, fl__ar_add(k, ein, core), fl__ar_scale(k, eout, 2));
    return fl__ar_put_int_cost(k, out, flops, fl_sym_const(0), fl__ar_add(k, ein, eout));
}

static fl_sym numel_in(fl_arith *k, const fl_node *n, int i) {
    return fl__ar_numel(k, fl__op_in_shape(n, i));
}

static fl_sym numel_out(fl_arith *k, const fl_node *n) {
    return fl__ar_numel(k, &n->outputs[0].shape);
}

/* QLinearAdd, QLinearMul */

static fl_status infer_qbinary(fl_ctx *c, fl_node *n) {
    fl_shape out;
    fl_status st = fl__op_broadcast(c, n, fl__op_in_shape(n, 0), fl__op_in_shape(n, 3), &out);
    return st == FL_OK ? fl__op_set_output(c, n, 0, fl__ox_in_dtype(n, 0), out.rank, out.dims) : st;
}

static fl_status cost_qbinary(fl_ctx *c, const fl_node *n, fl_cost *out) {
    fl_arith k = {c, n, FL_OK};
    fl_sym ein = fl__ar_add(&k, numel_in(&k, n, 0), numel_in(&k, n, 3));
    fl_sym e = numel_out(&k, n);
    if (n->kind == FL_OP_ONNX_MS_QLINEAR_ADD) {
        /* 1/C_scale folds into the operands' scale quotients */
        return fl__ar_put_int_cost(&k, out, fl__ar_add(&k, ein, fl__ar_scale(&k, e, 2)),
                                   fl_sym_const(0), fl__ar_add(&k, ein, e));
    }
    return fl__ar_put_int_cost(&k, out, fl__ar_scale(&k, e, 2), fl_sym_const(0),
                               fl__ar_add(&k, ein, fl__ar_scale(&k, e, 2)));
}

/* Element-wise requantized ops: QLinearSigmoid, QLinearLeakyRelu,
 * QLinearSoftmax, QOrderedGelu, QOrderedLayerNormalization. */

static fl_status softmax_axis(fl_ctx *c, const fl_node *n) {
    int64_t opset, axis;
    fl_status st = fl__attr_need_int(n, "opset", &opset, c->d);
    if (st == FL_OK) {
        st = fl__attr_int_or(n, "axis", opset < 13 ? 1 : -1, &axis, c->d);
    }
    int rank = fl__op_in_shape(n, 0)->rank, ax;
    if (st == FL_OK && rank >= 0) {
        st = fl__ox_norm_axis(c, n, axis, rank, "attr 'axis'", &ax);
    }
    return st;
}

static fl_status infer_qunary(fl_ctx *c, fl_node *n) {
    fl_status st = FL_OK;
    int dt = fl__ox_in_dtype(n, 0);
    if (n->kind == FL_OP_ONNX_MS_QLINEAR_SOFTMAX) {
        st = softmax_axis(c, n);
    } else if (n->kind == FL_OP_ONNX_MS_QORDERED_GELU ||
               n->kind == FL_OP_ONNX_MS_QORDERED_LAYER_NORM) {
        dt = FL_DT_INT8;
    }
    const fl_shape *x = fl__op_in_shape(n, 0);
    return st == FL_OK ? fl__op_set_output(c, n, 0, dt, x->rank, x->dims) : st;
}

static const int ln_idx[] = {0, 2, 3};

static fl_status cost_qunary(fl_ctx *c, const fl_node *n, fl_cost *out) {
    fl_arith k = {c, n, FL_OK};
    fl_sym e = numel_in(&k, n, 0);
    switch (n->kind) {
    case FL_OP_ONNX_MS_QORDERED_GELU:
        return fl__ar_put_int_cost(&k, out, fl__ar_scale(&k, e, 4), fl_sym_const(0),
                                   fl_sym_const(0));
    case FL_OP_ONNX_MS_QORDERED_LAYER_NORM: {
        fl_cost ln = {0};
        fl_status st = fl__ox_cost_delegate(c, n, FL_OP_ONNX_LAYER_NORM, ln_idx, 3, &ln);
        if (st != FL_OK) {
            return st;
        }
        fl_sym core = ln.incomplete ? fl_sym_unknown() : ln.flops;
        return fl__ar_put_int_cost(&k, out, fl__ar_add(&k, core, fl__ar_scale(&k, e, 3)),
                                   fl_sym_const(0), fl_sym_const(0));
    }
    case FL_OP_ONNX_MS_QLINEAR_SOFTMAX:
        return put_requant(&k, out, e, fl__ar_scale(&k, e, 5), e);
    default:
        return put_requant(&k, out, e, e, e);
    }
}

/* QLinearGlobalAveragePool */

static fl_status channels_last(fl_ctx *c, const fl_node *n, bool *last) {
    int64_t v;
    fl_status st = fl__attr_int_or(n, "channels_last", 0, &v, c->d);
    *last = v != 0;
    return st;
}

static fl_status infer_qglobal_pool(fl_ctx *c, fl_node *n) {
    bool last;
    fl_status st = channels_last(c, n, &last);
    const fl_shape *x = fl__op_in_shape(n, 0);
    int dt = fl__ox_in_dtype(n, 0);
    if (st != FL_OK || x->rank < 0) {
        return st == FL_OK ? fl__op_set_output(c, n, 0, dt, -1, NULL) : st;
    }
    if (x->rank < 3 || x->rank > 64) {
        return fl__node_fail(c->d, FL_EINVAL, n, "input 0 (X) has rank %d, want 3 to 64", x->rank);
    }
    fl_sym dims[64];
    int c_axis = last ? x->rank - 1 : 1;
    for (int i = 0; i < x->rank; i++) {
        dims[i] = i == 0 || i == c_axis ? x->dims[i] : fl_sym_const(1);
    }
    return fl__op_set_output(c, n, 0, dt, x->rank, dims);
}

static fl_status cost_qmean(fl_ctx *c, const fl_node *n, fl_cost *out) {
    fl_arith k = {c, n, FL_OK};
    fl_sym e = numel_in(&k, n, 0);
    return put_requant(&k, out, e, e, numel_out(&k, n));
}

/* kind's shape on a channels-first view of input 0, (N, D1.., C) -> (N, C,
 * D1..), the result moved back to (N, D1.., C'): the channels_last forms of
 * QLinearAveragePool and QLinearConv, NhwcMaxPool, NhwcConv. The delegate
 * reads n's first n_in inputs, input 0 replaced by the view, and with w_last
 * input 1 (W) by its view (M, k1.., C/g) -> (M, C/g, k1..); its failures
 * are its own (rank, attrs). Rank unknown or under 3: the delegate on X as
 * it is. */
static fl_status infer_nhwc_w(fl_ctx *c, fl_node *n, int kind, int n_in, bool w_last) {
    static const int all_idx[] = {0, 1, 2, 3, 4, 5, 6, 7, 8};
    const fl_shape *x = fl__op_in_shape(n, 0);
    n_in = n_in < n->n_inputs ? n_in : n->n_inputs;
    if (x->rank < 3) {
        return fl__ox_delegate(c, n, kind, all_idx, n_in);
    }
    if (x->rank > 64) {
        return fl__node_fail(c->d, FL_EINVAL, n, "input 0 (X) has rank %d, over 64", x->rank);
    }
    fl_sym cf[64];
    cf[0] = x->dims[0];
    cf[1] = x->dims[x->rank - 1];
    for (int i = 1; i < x->rank - 1; i++) {
        cf[i + 1] = x->dims[i];
    }
    /* The view comes from a stand-in producer. */
    fl_tensor xin = *fl_node_in(n, 0), y = {0};
    xin.shape.dims = cf;
    xin.value = NULL;
    fl_node src = {0}, wsrc = {0};
    src.name = n->name;
    src.n_outputs = 1;
    src.outputs = &xin;
    fl_input ins[9];
    for (int i = 0; i < n_in; i++) {
        ins[i] = n->inputs[i];
    }
    ins[0] = (fl_input){&src, 0};
    fl_tensor win;
    fl_sym wf[64];
    if (w_last && n_in > 1) {
        win = *fl_node_in(n, 1);
        int r = win.shape.rank;
        wf[0] = win.shape.dims[0];
        wf[1] = win.shape.dims[r - 1];
        for (int i = 1; i < r - 1; i++) {
            wf[i + 1] = win.shape.dims[i];
        }
        win.shape.dims = wf;
        win.value = NULL;
        wsrc = src;
        wsrc.outputs = &win;
        ins[1] = (fl_input){&wsrc, 0};
    }
    fl_node p = *n;
    p.kind = kind;
    p.desc = fl__op_desc_of(p.kind);
    p.inputs = ins;
    p.n_inputs = n_in;
    p.outputs = &y;
    p.n_outputs = 1;
    fl_status st = p.desc->infer(c, &p);
    if (st != FL_OK || y.shape.rank < 0) {
        return st == FL_OK ? fl__op_set_output(c, n, 0, y.dtype, -1, NULL) : st;
    }
    fl_sym dims[64];
    dims[0] = y.shape.dims[0];
    dims[x->rank - 1] = y.shape.dims[1];
    for (int i = 1; i < x->rank - 1; i++) {
        dims[i] = y.shape.dims[i + 1];
    }
    return fl__op_set_output(c, n, 0, y.dtype, x->rank, dims);
}

static fl_status infer_nhwc(fl_ctx *c, fl_node *n, int kind, int n_in) {
    return infer_nhwc_w(c, n, kind, n_in, false);
}

/* QLinearAveragePool: onnx::AveragePool's shape, on a channels-first view
 * of X when channels_last. */

static const int x_idx[] = {0};

/* The onnx twin `kind` of inputs idx[0..n_in), on channels-last operands
 * when attr channels_last says so. */
static fl_status infer_by_layout(fl_ctx *c, fl_node *n, int kind, const int *idx, int n_in) {
    bool last;
    fl_status st = channels_last(c, n, &last);
    if (st != FL_OK) {
        return st;
    }
    return last ? infer_nhwc(c, n, kind, n_in) : fl__ox_delegate(c, n, kind, idx, n_in);
}

static fl_status infer_qavg_pool(fl_ctx *c, fl_node *n) {
    return infer_by_layout(c, n, FL_OP_ONNX_AVERAGE_POOL, x_idx, 1);
}

static fl_status cost_qavg_pool(fl_ctx *c, const fl_node *n, fl_cost *out) {
    fl_cost pool = {0};
    fl_status st = fl__ox_cost_delegate(c, n, FL_OP_ONNX_AVERAGE_POOL, x_idx, 1, &pool);
    if (st != FL_OK) {
        return st;
    }
    fl_arith k = {c, n, FL_OK};
    return put_requant(&k, out, numel_in(&k, n, 0), pool.incomplete ? fl_sym_unknown() : pool.flops,
                       numel_out(&k, n));
}

/* com.microsoft QLinearConv: onnx::QLinearConv, X and Y channels-last
 * when channels_last; NhwcMaxPool: onnx::MaxPool on a channels-last X. The
 * counts are the delegates' (their rules need only E(Y), W and the kernel,
 * the same in either layout). */

static const int qconv_idx[] = {0, 1, 2, 3, 4, 5, 6, 7, 8};

static fl_status infer_ms_qconv(fl_ctx *c, fl_node *n) {
    return infer_by_layout(c, n, FL_OP_ONNX_QLINEAR_CONV, qconv_idx, 9);
}

static fl_status cost_ms_qconv(fl_ctx *c, const fl_node *n, fl_cost *out) {
    return fl__ox_cost_delegate(c, n, FL_OP_ONNX_QLINEAR_CONV, qconv_idx, 9, out);
}

static fl_status infer_nhwc_max_pool(fl_ctx *c, fl_node *n) {
    return infer_nhwc(c, n, FL_OP_ONNX_MAX_POOL, 1);
}

static fl_status cost_nhwc_max_pool(fl_ctx *c, const fl_node *n, fl_cost *out) {
    return fl__ox_cost_delegate(c, n, FL_OP_ONNX_MAX_POOL, x_idx, 1, out);
}

static const int conv_idx[] = {0, 1, 2, 3};

/* Whether dims a and b (b times g) can be equal. */
static bool may_match(fl_sym a, fl_sym b, int64_t g) {
    if (!fl_sym_is_known(a) || !fl_sym_is_known(b)) {
        return true;
    }
    fl_ck p = fl_ck_mul(fl_ck_of(b.k), fl_ck_of(g));
    return !p.ovf && a.k == p.v;
}

/* NhwcConv's W layout: (M, k1.., C/group) as ONNX Runtime's NHWC fusion
 * writes it (the Conv weight transposed by (0, 2, 3, 1)) and its CUDA
 * kernel reads it, unless only the documented (M, C/group, k1..) fits X's
 * channels and attr kernel_shape. */
static fl_status nhwc_w_last(fl_ctx *c, const fl_node *n, bool *last) {
    const fl_shape *x = fl__op_in_shape(n, 0), *w = fl__op_in_shape(n, 1);
    *last = false;
    if (x->rank < 3 || w->rank != x->rank || x->rank > 64) {
        return FL_OK; /* the delegate reports what is wrong */
    }
    int64_t g;
    const int64_t *ks = NULL;
    size_t nk = 0;
    fl_status st = fl__attr_int_or(n, "group", 1, &g, c->d);
    if (st == FL_OK &&
        (st = fl__attr_get_ints(n, "kernel_shape", &ks, &nk, c->d)) == FL_ENOTFOUND) {
        st = FL_OK;
    }
    if (st != FL_OK) {
        return st;
    }
    int r = w->rank;
    fl_sym ch = x->dims[r - 1];
    bool fits_last = may_match(ch, w->dims[r - 1], g), fits_first = may_match(ch, w->dims[1], g);
    for (size_t i = 0; ks && nk == (size_t)(r - 2) && i < nk; i++) {
        fits_last = fits_last && may_match(w->dims[1 + i], fl_sym_const(ks[i]), 1);
        fits_first = fits_first && may_match(w->dims[2 + i], fl_sym_const(ks[i]), 1);
    }
    *last = fits_last || !fits_first;
    return FL_OK;
}

static fl_status infer_nhwc_conv(fl_ctx *c, fl_node *n) {
    bool last;
    fl_status st = nhwc_w_last(c, n, &last);
    return st == FL_OK ? infer_nhwc_w(c, n,
                                      n->kind == FL_OP_ONNX_MS_NHWC_CONV ? FL_OP_ONNX_CONV
                                                                         : FL_OP_ONNX_MS_FUSED_CONV,
                                      3, last)
                       : st;
}

static fl_status cost_nhwc_conv(fl_ctx *c, const fl_node *n, fl_cost *out) {
    bool fused = n->kind == FL_OP_ONNX_MS_NHWC_FUSED_CONV;
    return fl__ox_cost_delegate(c, n, fused ? FL_OP_ONNX_MS_FUSED_CONV : FL_OP_ONNX_CONV, conv_idx,
                                fused ? 4 : 3, out);
}

/* QLinearReduceMean */

static fl_status infer_qreduce_mean(fl_ctx *c, fl_node *n) {
    const int64_t *axes;
    size_t na;
    int64_t keep;
    fl_status st = fl__attr_need_ints(n, "axes", &axes, &na, c->d);
    if (st == FL_OK) {
        st = fl__attr_need_int(n, "keepdims", &keep, c->d);
    }
    return st == FL_OK ? fl__ox_delegate(c, n, FL_OP_ONNX_REDUCE_MEAN, x_idx, 1) : st;
}

/* QLinearConcat */

static fl_status infer_qconcat(fl_ctx *c, fl_node *n) {
    if (n->n_inputs < 5 || (n->n_inputs - 2) % 3 != 0) {
        return fl__node_fail(c->d, FL_EINVAL, n,
                             "has %d inputs, want Y_scale, Y_zero_point and a (tensor, scale, "
                             "zero point) triple per tensor",
                             n->n_inputs);
    }
    int64_t axis;
    fl_status st = fl__attr_need_int(n, "axis", &axis, c->d);
    if (st != FL_OK) {
        return st;
    }
    int cnt = (n->n_inputs - 2) / 3;
    fl_input *ins = fl__arena_alloc(c->a, (size_t)cnt * sizeof(fl_input));
    if (!ins) {
        return fl__diag_oom(c->d);
    }
    for (int i = 0; i < cnt; i++) {
        ins[i] = n->inputs[2 + 3 * i];
    }
    fl_node p = *n;
    p.kind = FL_OP_ONNX_CONCAT;
    p.desc = fl__op_desc_of(p.kind);
    p.inputs = ins;
    p.n_inputs = cnt;
    st = p.desc->infer(c, &p);
    return st == FL_OK ? fl__ox_retype(c, n, 0, fl__ox_in_dtype(n, 1)) : st;
}

static fl_status cost_qconcat(fl_ctx *c, const fl_node *n, fl_cost *out) {
    fl_arith k = {c, n, FL_OK};
    fl_sym e2 = fl__ar_scale(&k, numel_out(&k, n), 2);
    return fl__ar_put_int_cost(&k, out, e2, fl_sym_const(0), e2);
}

/* QLinearWhere */

static fl_status infer_qwhere(fl_ctx *c, fl_node *n) {
    fl_shape xy, out;
    fl_status st = fl__op_broadcast(c, n, fl__op_in_shape(n, 1), fl__op_in_shape(n, 4), &xy);
    if (st == FL_OK) {
        st = fl__op_broadcast(c, n, fl__op_in_shape(n, 0), &xy, &out);
    }
    return st == FL_OK ? fl__op_set_output(c, n, 0, fl__ox_in_dtype(n, 8), out.rank, out.dims) : st;
}

static fl_status cost_qwhere(fl_ctx *c, const fl_node *n, fl_cost *out) {
    fl_arith k = {c, n, FL_OK};
    fl_sym ein = fl__ar_add(&k, numel_in(&k, n, 1), numel_in(&k, n, 4));
    fl_sym e = numel_out(&k, n);
    return put_requant(&k, out, ein, e, e);
}

/* DynamicQuantizeMatMul, MatMulIntegerToFloat */

static const int mm_idx[] = {0, 1};

static fl_status infer_qhybrid_matmul(fl_ctx *c, fl_node *n) {
    fl_status st = fl__ox_delegate(c, n, FL_OP_ONNX_MATMUL, mm_idx, 2);
    int dt = n->kind == FL_OP_ONNX_MS_DYNAMIC_QUANTIZE_MATMUL ? fl__ox_in_dtype(n, 0)
                                                              : fl__ox_in_dtype(n, 2);
    return st == FL_OK ? fl__ox_retype(c, n, 0, dt) : st;
}

static fl_status cost_qhybrid_matmul(fl_ctx *c, const fl_node *n, fl_cost *out) {
    fl_cost base = {0};
    fl_status st = fl__ox_cost_delegate(c, n, FL_OP_ONNX_MATMUL, mm_idx, 2, &base);
    if (st != FL_OK) {
        return st;
    }
    fl_arith k = {c, n, FL_OK};
    bool dyn = n->kind == FL_OP_ONNX_MS_DYNAMIC_QUANTIZE_MATMUL;
    fl_sym ea = numel_in(&k, n, 0);
    fl_sym macs = base.incomplete ? fl_sym_unknown() : base.macs;
    fl_sym iops = fl__ar_add(&k, fl__ar_scale(&k, macs, 2),
                             fl__ar_add(&k, fl__ar_scale(&k, ea, dyn ? 2 : 1), numel_in(&k, n, 1)));
    bool bias = !fl__ox_absent(n, dyn ? 4 : 6);
    fl_sym flops = fl__ar_scale(&k, numel_out(&k, n), 1 + bias);
    if (dyn) {
        flops = fl__ar_add(&k, flops, fl__ar_scale(&k, ea, 4));
    }
    return fl__ar_put_int_cost(&k, out, flops, fl_sym_const(0), iops);
}

/* QOrderedAttention */

typedef struct qatt {
    fl_sym b, s, h_in, hq, hk, hv;
    int64_t heads;
} qatt;

static fl_status qatt_read(fl_ctx *c, const fl_node *n, qatt *a) {
    fl_status st = fl__attr_need_pos_int(n, "num_heads", &a->heads, c->d);
    if (st != FL_OK || (st = fl__ox_bsh_input(c, n, &a->b, &a->s, &a->h_in)) != FL_OK) {
        return st;
    }
    static const char *what[3] = {"input 5 (Q_weight)", "input 6 (K_weight)", "input 7 (V_weight)"};
    fl_sym *cols[3] = {&a->hq, &a->hk, &a->hv};
    for (int i = 0; i < 3; i++) {
        const fl_shape *w = fl__op_in_shape(n, 5 + i);
        if (w->rank >= 0 && w->rank != 2) {
            return fl__node_fail(c->d, FL_EINVAL, n, "%s has rank %d, want 2", what[i], w->rank);
        }
        fl_sym m;
        if ((st = fl__op_merge_dim(c, n, a->h_in, fl__shape_dim(w, 0), what[i], &m)) != FL_OK) {
            return st;
        }
        *cols[i] = fl__shape_dim(w, 1);
    }
    for (int i = 0; i < 3; i += 2) {
        if (fl_sym_is_known(*cols[i]) && cols[i]->k % a->heads != 0) {
            return fl__node_fail(c->d, FL_EINVAL, n,
                                 "attr 'num_heads' %lld does not divide %s's %lld columns",
                                 (long long)a->heads, what[i], (long long)cols[i]->k);
        }
    }
    return FL_OK;
}

static fl_status infer_qordered_attention(fl_ctx *c, fl_node *n) {
    static const char *const orders[] = {"order_input", "order_weight", "order_output", NULL};
    qatt a;
    fl_status st = fl__ox_need_int_attrs(c, n, orders);
    if (st == FL_OK) {
        st = qatt_read(c, n, &a);
    }
    return st == FL_OK ? fl__op_set_output(c, n, 0, FL_DT_INT8, 3, (fl_sym[]){a.b, a.s, a.hv}) : st;
}

static fl_status cost_qordered_attention(fl_ctx *c, const fl_node *n, fl_cost *out) {
    qatt a;
    fl_status st = qatt_read(c, n, &a);
    if (st != FL_OK) {
        return st;
    }
    fl_arith k = {c, n, FL_OK};
    fl_sym rows = fl__ar_mul(&k, a.b, a.s);
    fl_sym proj = fl__ar_mul(&k, rows, fl__ar_add(&k, fl__ar_add(&k, a.hq, a.hk), a.hv));
    fl_sym ss = fl__ar_mul(&k, rows, a.s); /* B * S * S */
    fl_sym attn = fl__ar_mul(&k, ss, fl__ar_add(&k, a.hq, a.hv));
    fl_sym iops = fl__ar_scale(&k, fl__ar_add(&k, fl__ar_mul(&k, proj, a.h_in), attn), 2);
    fl_sym scores = fl__ar_scale(&k, ss, a.heads);
    fl_sym flops = fl__ar_add(&k, fl__ar_scale(&k, proj, 3),
                              fl__ar_scale(&k, scores, 10 + !fl__ox_absent(n, 17)));
    flops = fl__ar_add(&k, flops, fl__ar_scale(&k, fl__ar_mul(&k, rows, a.hv), 2));
    return fl__ar_put_int_cost(&k, out, flops, fl_sym_const(0), iops);
}

/* clang-format off */
#define HOOKS_qbinary           .infer = infer_qbinary, .cost = cost_qbinary
#define HOOKS_qunary            .infer = infer_qunary, .cost = cost_qunary
#define HOOKS_qglobal_pool      .infer = infer_qglobal_pool, .cost = cost_qmean
#define HOOKS_qavg_pool         .infer = infer_qavg_pool, .cost = cost_qavg_pool
#define HOOKS_qreduce_mean      .infer = infer_qreduce_mean, .cost = cost_qmean
#define HOOKS_qconcat           .infer = infer_qconcat, .cost = cost_qconcat
#define HOOKS_qwhere            .infer = infer_qwhere, .cost = cost_qwhere
#define HOOKS_qhybrid_matmul    .infer = infer_qhybrid_matmul, .cost = cost_qhybrid_matmul
#define HOOKS_qordered_attention .infer = infer_qordered_attention, .cost = cost_qordered_attention
#define HOOKS_ms_qconv          .infer = infer_ms_qconv, .cost = cost_ms_qconv
#define HOOKS_nhwc_max_pool     .infer = infer_nhwc_max_pool, .cost = cost_nhwc_max_pool
#define HOOKS_nhwc_conv         .infer = infer_nhwc_conv, .cost = cost_nhwc_conv
/* clang-format on */

#define FL_OP FL_OP_DESC
#include "ops/onnxms/qlinear.def"
#undef FL_OP
