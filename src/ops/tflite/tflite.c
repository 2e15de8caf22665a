/*
 * tflite/tflite.c - TensorFlow Lite operators (tflite.def lists them): shape
 * inference from the builtin options and cost rules.
 *
 * Shapes. The conv/pool/matmul family, element-wise ops, reductions,
 * Reshape, Concatenation, Pad and Resize infer their outputs from their
 * inputs and options, as TFLite's kernels do in Prepare; data movement with
 * TensorFlow's semantics runs through TensorFlow's descriptors (array.c);
 * recurrent cells in rnn.c. Every operator then
 * checks its result against the shape the file stores for that output
 * (attr _output_shapes): a known dim that disagrees is a warning naming the
 * tensor, and a dim inference leaves unknown takes the stored one. Segment
 * reductions infer [segments, data dims..] (the count from segment_ids'
 * or num_segments' value); StableHLO's element-wise ops (ADD .. TANH,
 * COMPARE, CONVERT, SELECT, CLAMP) their operand's shape, the shape ops
 * of stablehlo.c and stablehlo_general.c theirs from operands and options
 * (BROADCAST_IN_DIM and IOTA: the stored shape, checked). The other
 * operators (control flow, hash tables, the other STABLEHLO_* ops, ...)
 * take the stored shapes and types as their result.
 *
 * Costs (complete convention, as the TensorFlow ops: one FLOP per add or
 * multiply, so 2 per MAC):
 *  - CONV_2D: MACs = E(out) * kh * kw * cin (filter [cout, kh, kw, cin/g]);
 *    DEPTHWISE_CONV_2D: E(out) * kh * kw; FULLY_CONNECTED: E(out) * in
 *    (weights [units, in]); TRANSPOSE_CONV and MediaPipe's
 *    Convolution2DTransposeBias: E(in) * kh * kw * cout; CONV_3D alike;
 *    BATCH_MATMUL: E(out) * K. FLOPs = 2 * MACs + E(out) per bias + E(out)
 *    for a fused activation other than NONE.
 *  - element-wise: E(out) per op (SQUARED_DIFFERENCE, RSQRT, PRELU 2,
 *    HARD_SWISH 4: add, clamp, two multiplies; GELU 5, or 9 approximate, as
 *    TensorFlow's Gelu); the fused activation of ADD/SUB/MUL/DIV adds E(out).
 *  - STABLEHLO_* element-wise: as their TFLite twins (RSQRT 2, CLAMP 2,
 *    CONVERT 0 as CAST, SELECT 1).
 *  - SEGMENT_SUM, UNSORTED_SEGMENT_SUM/PROD/MAX/MIN: E(data), one combine
 *    per data element into its segment's accumulator (which starts at the
 *    reduction's identity).
 *  - pools: kh * kw * E(out); reductions: E(in) (MEAN) or E(in) - E(out);
 *    SOFTMAX/LOG_SOFTMAX: 5 * E(in) (shift, exp, sum, normalise).
 *  - DEQUANTIZE of a constant (float16 or int8 weights): 0 per inference,
 *    has a rule: it runs once, when the interpreter prepares the model (a
 *    per-load cost; the report's warning says so). Other DEQUANTIZE and
 *    QUANTIZE: E(out).
 *  - data movement (reshape, transpose, gather, slice, concat, pad, ...): 0
 *    FLOPs with a rule; bytes moved are counted by the cost model.
 *  - control flow (WHILE, STABLEHLO_WHILE, IF, CALL, CALL_ONCE): 0
 *    themselves; their subgraphs are imported beside subgraph 0 and counted
 *    as often as they run (a WHILE body times its trip count when the
 *    importer can derive it, or when its limit's value gives it:
 *    src/import/tflite_loop.c, src/cost/cost.c).
 *  - RNN and LSTM cells: rnn.c.
 *  - TFLite_Detection_PostProcess: E(boxes) + E(scores) (decode and
 *    threshold once per input element; NMS's data-dependent work is not
 *    counted); MaxPoolingWithArgmax2D as MAX_POOL_2D; MaxUnpooling2D E(out).
 * Quantized CONV_2D, DEPTHWISE_CONV_2D and FULLY_CONNECTED (input and
 * weights int8, uint8 or int16; TFLite's integer kernels): the same products,
 * sums, bias and activation as above count as integer ops (int_ops, not
 * FLOPs or MACs), plus what the integer kernel adds: the input's zero point
 * once per input element (E(in)), the weights' zero point once per weight
 * when they are uint8 (int8 weights are symmetric: zero point 0 by TFLite's
 * quantization spec), and per output element the requantization (a
 * fixed-point multiply and a rounding shift) and the output's zero point:
 *   int_ops = 2 * MACs + E(out) * (bias + activation + 3) + E(in)
 *             [+ E(w) for uint8 weights];  FLOPs = MACs = 0.
 * Float input with int8 weights (hybrid quantization) counts as float. Other
 * operators on quantized tensors are counted as their float rule; the bytes
 * follow their real element width (int4 packs two per byte).
 */
#include "ops/tflite/tfl.h"

#include <stdio.h>
#include <string.h>

/* ------------------------------------------------------------------------- */
/* Shared helpers                                                             */
/* ------------------------------------------------------------------------- */

static const fl_shape *in_shape(const fl_node *n, int i) {
    static const fl_shape unknown = {-1, NULL};
    return i < n->n_inputs ? &fl_node_in(n, i)->shape : &unknown;
}

static int in_dtype(const fl_node *n, int i) {
    return i < n->n_inputs ? fl_node_in(n, i)->dtype : FL_DT_INVALID;
}

static bool absent(const fl_node *n, int i) {
    return i >= n->n_inputs || n->inputs[i].node->kind == FL_OP_ONNX_ABSENT;
}

static const fl_shape_lit *stored_shape(const fl_node *n, int port) {
    const fl_attr *a = fl__node_attr(n, "_output_shapes");
    if (!a || a->kind != FL_ATTR_LIST || a->list_kind != FL_ATTR_SHAPE || (size_t)port >= a->n) {
        return NULL;
    }
    return &a->v.list.shape[port];
}

static int stored_type(const fl_node *n, int port) {
    const fl_attr *a = fl__node_attr(n, "_output_types");
    if (!a || a->kind != FL_ATTR_LIST || a->list_kind != FL_ATTR_TYPE || (size_t)port >= a->n) {
        return FL_DT_INVALID;
    }
    return a->v.list.type[port];
}

static int count_outputs(const fl_node *n, fl_diag *d) {
    (void)d;
    return n->n_outputs;
}

/* Output `port` from what the file stores. */
static fl_status from_stored(fl_ctx *c, fl_node *n, int port) {
    const fl_shape_lit *s = stored_shape(n, port);
    int dt = stored_type(n, port);
    if (!s || s->rank < 0) {
        return fl__op_set_output(c, n, port, dt, -1, NULL);
    }
    fl_sym dims[64];
    for (int i = 0; i < s->rank && i < 64; i++) {
        dims[i] = s->dims[i] < 0 ? fl_sym_unknown() : fl_sym_const(s->dims[i]);
    }
    return fl__op_set_output(c, n, port, dt, s->rank, dims);
}

/* Compares output `port` with its stored shape: a known dim that differs is
 * a warning naming the tensor; an unknown dim (or unknown rank) takes the
 * stored one. */
static fl_status check_stored(fl_ctx *c, fl_node *n, int port) {
    const fl_shape_lit *s = stored_shape(n, port);
    fl_tensor *t = &n->outputs[port];
    if (t->dtype == FL_DT_INVALID) {
        t->dtype = stored_type(n, port);
    }
    if (!s || s->rank < 0) {
        return FL_OK;
    }
    if (t->shape.rank < 0) {
        return from_stored(c, n, port);
    }
    bool differ = t->shape.rank != s->rank;
    for (int i = 0; !differ && i < s->rank; i++) {
        fl_sym d = t->shape.dims[i];
        if (s->dims[i] >= 0 && fl_sym_is_known(d) && d.k != s->dims[i]) {
            differ = true;
        } else if (fl_sym_is_unknown(d) && s->dims[i] >= 0) {
            t->shape.dims[i] = fl_sym_const(s->dims[i]);
        }
    }
    if (differ) {
        char got[200] = "", want[200] = "";
        size_t gl = 0, wl = 0;
        for (int i = 0; i < t->shape.rank && gl < 180; i++) {
            fl_sym d = t->shape.dims[i];
            gl += (size_t)snprintf(got + gl, sizeof got - gl, "%s%lld", i ? "," : "",
                                   fl_sym_is_known(d) ? (long long)d.k : -1LL);
        }
        for (int i = 0; i < s->rank && wl < 180; i++) {
            wl += (size_t)snprintf(want + wl, sizeof want - wl, "%s%lld", i ? "," : "",
                                   (long long)s->dims[i]);
        }
        fl__node_warn(c->d, n,
                      "tensor '%s'%s: inferred shape [%s] but the file stores [%s]; the file's "
                      "shape is used",
                      n->name, port ? " (a later output)" : "", got, want);
        return from_stored(c, n, port);
    }
    return FL_OK;
}

static fl_status check_all(fl_ctx *c, fl_node *n, fl_status st) {
    for (int p = 0; st == FL_OK && p < n->n_outputs; p++) {
        st = check_stored(c, n, p);
    }
    return st;
}

fl_status fl__tfl_from_stored(fl_ctx *c, fl_node *n, int port) {
    return from_stored(c, n, port);
}

fl_status fl__tfl_check_all(fl_ctx *c, fl_node *n, fl_status st) {
    return check_all(c, n, st);
}

static const char *str_attr(const fl_node *n, const char *name, const char *dflt) {
    const fl_attr *a = fl__node_attr(n, name);
    return a && a->kind == FL_ATTR_S ? a->v.s.p : dflt;
}

static int64_t int_attr(const fl_node *n, const char *name, int64_t dflt) {
    const fl_attr *a = fl__node_attr(n, name);
    return a && a->kind == FL_ATTR_I ? a->v.i : dflt;
}

static bool bool_attr(const fl_node *n, const char *name) {
    const fl_attr *a = fl__node_attr(n, name);
    return a && a->kind == FL_ATTR_B && a->v.b;
}

/* E(out) per fused activation other than NONE. */
static int act_factor(const fl_node *n) {
    const char *a = str_attr(n, "fused_activation_function", "NONE");
    return strcmp(a, "NONE") != 0;
}

static fl_status put(fl_arith *k, fl_cost *out, fl_sym flops, fl_sym macs) {
    return fl__ar_put_cost(k, out, flops, macs);
}

/* ------------------------------------------------------------------------- */
/* Convolutions, pools, matmuls                                               */
/* ------------------------------------------------------------------------- */

/* Spatial output dims of a 2-D window op over NHWC x. */
static fl_status window2d(fl_ctx *c, fl_node *n, const fl_shape *x, int64_t kh, int64_t kw,
                          int64_t sh, int64_t sw, int64_t dh, int64_t dw, const char *pad,
                          fl_sym *oh, fl_sym *ow) {
    if (sh < 1 || sw < 1 || dh < 1 || dw < 1 || kh < 1 || kw < 1) {
        return fl__node_fail(c->d, FL_EINVAL, n,
                             "strides, dilations and window must be positive (attr stride_h, "
                             "stride_w, ...)");
    }
    fl_status st = fl__op_window_out(c, n, x->dims[1], kh, sh, dh, pad, 0, 0, oh);
    return st == FL_OK ? fl__op_window_out(c, n, x->dims[2], kw, sw, dw, pad, 0, 0, ow) : st;
}

static fl_status infer_conv_like(fl_ctx *c, fl_node *n, bool depthwise) {
    const fl_shape *x = in_shape(n, 0), *w = in_shape(n, 1);
    int dt = stored_type(n, 0) != FL_DT_INVALID ? stored_type(n, 0) : in_dtype(n, 0);
    if (x->rank != 4 || w->rank != 4 || !fl_sym_is_known(w->dims[1]) ||
        !fl_sym_is_known(w->dims[2])) {
        return check_all(c, n, fl__op_set_output_rank(c, n, 0, dt, 4));
    }
    fl_sym dims[4] = {x->dims[0], fl_sym_unknown(), fl_sym_unknown(),
                      depthwise ? w->dims[3] : w->dims[0]};
    fl_status st = window2d(c, n, x, w->dims[1].k, w->dims[2].k, int_attr(n, "stride_h", 1),
                            int_attr(n, "stride_w", 1), int_attr(n, "dilation_h_factor", 1),
                            int_attr(n, "dilation_w_factor", 1), str_attr(n, "padding", "SAME"),
                            &dims[1], &dims[2]);
    if (st == FL_OK) {
        st = fl__op_set_output(c, n, 0, dt, 4, dims);
    }
    return check_all(c, n, st);
}

static fl_status infer_conv(fl_ctx *c, fl_node *n) {
    return infer_conv_like(c, n, false);
}

static fl_status infer_dwconv(fl_ctx *c, fl_node *n) {
    return infer_conv_like(c, n, true);
}

/* A quantized activation: int8, uint8 or int16 (16x8). */
static bool quantized_type(int dt) {
    dt = fl_dtype_base(dt);
    return dt == FL_DT_INT8 || dt == FL_DT_UINT8 || dt == FL_DT_INT16;
}

/* 2 * MACs + E(out) per bias and fused activation; on quantized input and
 * weights the same work and the integer kernel's extra steps go to int_ops
 * (see the header). */
static fl_status put_conv(fl_arith *k, const fl_node *n, fl_cost *out, fl_sym e, fl_sym macs,
                          int bias_input) {
    fl_sym flops = fl__ar_scale(k, macs, 2);
    int extra = act_factor(n) + (bias_input >= 0 && !absent(n, bias_input));
    flops = fl__ar_add(k, flops, fl__ar_scale(k, e, extra));
    if (!quantized_type(in_dtype(n, 0)) || !quantized_type(in_dtype(n, 1))) {
        return put(k, out, flops, macs);
    }
    fl_sym iops = fl__ar_add(k, flops, fl__ar_scale(k, e, 3)); /* requantize, zero point */
    iops = fl__ar_add(k, iops, fl__ar_numel(k, in_shape(n, 0)));
    if (fl_dtype_base(in_dtype(n, 1)) == FL_DT_UINT8) {
        iops = fl__ar_add(k, iops, fl__ar_numel(k, in_shape(n, 1)));
    }
    return fl__ar_put_int_cost(k, out, fl_sym_const(0), fl_sym_const(0), iops);
}

static fl_status cost_conv(fl_ctx *c, const fl_node *n, fl_cost *out) {
    fl_arith k = {c, n, FL_OK};
    const fl_shape *w = in_shape(n, 1);
    fl_sym e = fl__ar_numel(&k, &n->outputs[0].shape);
    fl_sym per = w->rank == 4 ? fl__ar_dims_prod(&k, w, 1, 4) : fl_sym_unknown();
    return put_conv(&k, n, out, e, fl__ar_mul(&k, e, per), 2);
}

static fl_status cost_dwconv(fl_ctx *c, const fl_node *n, fl_cost *out) {
    fl_arith k = {c, n, FL_OK};
    const fl_shape *w = in_shape(n, 1);
    fl_sym e = fl__ar_numel(&k, &n->outputs[0].shape);
    fl_sym per = w->rank == 4 ? fl__ar_dims_prod(&k, w, 1, 3) : fl_sym_unknown();
    return put_conv(&k, n, out, e, fl__ar_mul(&k, e, per), 2);
}

static fl_status infer_fc(fl_ctx *c, fl_node *n) {
    const fl_shape *x = in_shape(n, 0), *w = in_shape(n, 1);
    int dt = stored_type(n, 0) != FL_DT_INVALID ? stored_type(n, 0) : in_dtype(n, 0);
    if (x->rank < 1 || w->rank != 2) {
        return check_all(c, n, fl__op_set_output(c, n, 0, dt, -1, NULL));
    }
    fl_status st;
    if (bool_attr(n, "keep_num_dims")) {
        fl_sym dims[64];
        for (int i = 0; i < x->rank && i < 64; i++) {
            dims[i] = x->dims[i];
        }
        dims[x->rank - 1] = w->dims[0];
        st = fl__op_set_output(c, n, 0, dt, x->rank, dims);
    } else {
        /* [E(x) / in, units]: the batch is every element over the weights'
         * input size. */
        fl_sym total, batch = fl_sym_unknown();
        st = fl__op_num_elements(c, n, x, &total);
        if (st == FL_OK && fl_sym_is_known(total) && fl_sym_is_known(w->dims[1]) &&
            w->dims[1].k > 0 && total.k % w->dims[1].k == 0) {
            batch = fl_sym_const(total.k / w->dims[1].k);
        } else if (st == FL_OK && x->rank == 2) {
            batch = x->dims[0];
        }
        fl_sym dims[2] = {batch, w->dims[0]};
        if (st == FL_OK) {
            st = fl__op_set_output(c, n, 0, dt, 2, dims);
        }
    }
    return check_all(c, n, st);
}

static fl_status cost_fc(fl_ctx *c, const fl_node *n, fl_cost *out) {
    fl_arith k = {c, n, FL_OK};
    const fl_shape *w = in_shape(n, 1);
    fl_sym e = fl__ar_numel(&k, &n->outputs[0].shape);
    fl_sym in = w->rank == 2 ? w->dims[1] : fl_sym_unknown();
    return put_conv(&k, n, out, e, fl__ar_mul(&k, e, in), 2);
}

/* TRANSPOSE_CONV: inputs (output_shape, weights [cout, kh, kw, cin], x,
 * bias?); the output's shape is the value of input 0. */
static fl_status infer_tconv(fl_ctx *c, fl_node *n) {
    int64_t *v = NULL, cnt = 0;
    int dt = stored_type(n, 0) != FL_DT_INVALID ? stored_type(n, 0) : in_dtype(n, 2);
    fl_status st = n->n_inputs > 0 ? fl__op_in_int_vector(c, n, 0, &v, &cnt) : FL_ENOTFOUND;
    if (st == FL_OK && cnt == 4) {
        fl_sym dims[4];
        for (int i = 0; i < 4; i++) {
            dims[i] = v[i] >= 0 ? fl_sym_const(v[i]) : fl_sym_unknown();
        }
        return check_all(c, n, fl__op_set_output(c, n, 0, dt, 4, dims));
    }
    if (st == FL_EINVAL) {
        return st;
    }
    return check_all(c, n, fl__op_set_output_rank(c, n, 0, dt, 4));
}

/* E(x) * kh * kw * cout, x input `xi`, weights input `wi`. */
static fl_status cost_tconv_at(fl_ctx *c, const fl_node *n, fl_cost *out, int xi, int wi,
                               int bias) {
    fl_arith k = {c, n, FL_OK};
    const fl_shape *w = in_shape(n, wi);
    fl_sym ex = fl__ar_numel(&k, in_shape(n, xi));
    fl_sym per = w->rank == 4 ? fl__ar_dims_prod(&k, w, 0, 3) : fl_sym_unknown();
    fl_sym e = fl__ar_numel(&k, &n->outputs[0].shape);
    return put_conv(&k, n, out, e, fl__ar_mul(&k, ex, per), bias);
}

static fl_status cost_tconv(fl_ctx *c, const fl_node *n, fl_cost *out) {
    return cost_tconv_at(c, n, out, 2, 1, 3);
}

/* Reads MediaPipe's custom options: the kernel reinterprets them as
 * TfLiteTransposeConvParams / TfLitePoolParams, little-endian int32 fields
 * (padding: 1 SAME, 2 VALID; then strides, then filter sizes). false when
 * the bytes are too few. */
static bool custom_ints(const fl_node *n, int32_t *v, int count) {
    const fl_attr *a = fl__node_attr(n, "custom_options");
    if (!a || a->kind != FL_ATTR_S || a->v.s.len < (size_t)count * 4) {
        return false;
    }
    const unsigned char *p = (const unsigned char *)a->v.s.p;
    for (int i = 0; i < count; i++) {
        v[i] = (int32_t)((uint32_t)p[4 * i] | (uint32_t)p[4 * i + 1] << 8 |
                         (uint32_t)p[4 * i + 2] << 16 | (uint32_t)p[4 * i + 3] << 24);
    }
    return true;
}

/* Convolution2DTransposeBias: (x, weights [cout, kh, kw, cin], bias); output
 * SAME: in * stride, VALID: (in - 1) * stride + k. */
static fl_status infer_tconv_bias(fl_ctx *c, fl_node *n) {
    const fl_shape *x = in_shape(n, 0), *w = in_shape(n, 1);
    int32_t p[3];
    int dt = stored_type(n, 0) != FL_DT_INVALID ? stored_type(n, 0) : in_dtype(n, 0);
    if (x->rank != 4 || w->rank != 4 || !custom_ints(n, p, 3) || p[1] < 1 || p[2] < 1 ||
        (p[0] != 1 && p[0] != 2)) {
        return check_all(c, n, from_stored(c, n, 0));
    }
    fl_sym dims[4] = {x->dims[0], fl_sym_unknown(), fl_sym_unknown(), w->dims[0]};
    fl_status st = FL_OK;
    for (int i = 0; i < 2 && st == FL_OK; i++) {
        fl_sym in = x->dims[1 + i], kk = w->dims[1 + i];
        int64_t s = i == 0 ? p[2] : p[1];
        st = fl__op_scale(c, n, in, s, &dims[1 + i]);
        if (st == FL_OK && p[0] == 2) { /* VALID: (in - 1) * s + k */
            fl_sym t;
            st = fl__op_sub(c, n, dims[1 + i], fl_sym_const(s), &t);
            if (st == FL_OK) {
                st = fl__op_add(c, n, t, kk, &dims[1 + i]);
            }
        }
    }
    if (st == FL_OK) {
        st = fl__op_set_output(c, n, 0, dt, 4, dims);
    }
    return check_all(c, n, st);
}

static fl_status cost_tconv_bias(fl_ctx *c, const fl_node *n, fl_cost *out) {
    return cost_tconv_at(c, n, out, 0, 1, 2);
}

static fl_status infer_conv3d(fl_ctx *c, fl_node *n) {
    return check_all(c, n, from_stored(c, n, 0));
}

/* CONV_3D: filter [kd, kh, kw, cin, cout], MACs = E(out) * kd*kh*kw*cin;
 * CONV_3D_TRANSPOSE: (output_shape, filter [kd, kh, kw, cout, cin], x),
 * MACs = E(x) * kd*kh*kw*cout. */
static fl_status cost_conv3d(fl_ctx *c, const fl_node *n, fl_cost *out) {
    fl_arith k = {c, n, FL_OK};
    bool tr = n->kind == FL_OP_TFL_CONV_3D_TRANSPOSE;
    const fl_shape *w = in_shape(n, 1);
    fl_sym e = fl__ar_numel(&k, &n->outputs[0].shape);
    fl_sym per = w->rank == 5 ? fl__ar_dims_prod(&k, w, 0, 4) : fl_sym_unknown();
    fl_sym macs = fl__ar_mul(&k, tr ? fl__ar_numel(&k, in_shape(n, 2)) : e, per);
    return put_conv(&k, n, out, e, macs, tr ? 3 : 2);
}

static fl_status infer_pool(fl_ctx *c, fl_node *n) {
    const fl_shape *x = in_shape(n, 0);
    int dt = stored_type(n, 0) != FL_DT_INVALID ? stored_type(n, 0) : in_dtype(n, 0);
    if (x->rank != 4) {
        return check_all(c, n, fl__op_set_output_rank(c, n, 0, dt, 4));
    }
    fl_sym dims[4] = {x->dims[0], fl_sym_unknown(), fl_sym_unknown(), x->dims[3]};
    fl_status st =
        window2d(c, n, x, int_attr(n, "filter_height", 1), int_attr(n, "filter_width", 1),
                 int_attr(n, "stride_h", 1), int_attr(n, "stride_w", 1), 1, 1,
                 str_attr(n, "padding", "SAME"), &dims[1], &dims[2]);
    if (st == FL_OK) {
        st = fl__op_set_output(c, n, 0, dt, 4, dims);
    }
    return check_all(c, n, st);
}

static fl_status cost_pool(fl_ctx *c, const fl_node *n, fl_cost *out) {
    fl_arith k = {c, n, FL_OK};
    fl_sym e = fl__ar_numel(&k, &n->outputs[0].shape);
    int64_t win = int_attr(n, "filter_height", 1) * int_attr(n, "filter_width", 1);
    if (n->kind == FL_OP_TFL_MAX_POOL_ARGMAX) {
        int32_t p[5];
        win = custom_ints(n, p, 5) ? (int64_t)p[3] * p[4] : -1;
    }
    fl_sym flops = win > 0 ? fl__ar_scale(&k, e, win + act_factor(n)) : fl_sym_unknown();
    return put(&k, out, flops, fl_sym_const(0));
}

/* MaxPoolingWithArgmax2D: TfLitePoolParams in custom options; outputs the
 * pooled values and their indices, as stored. */
static fl_status infer_pool_argmax(fl_ctx *c, fl_node *n) {
    fl_status st = FL_OK;
    for (int p = 0; p < n->n_outputs && st == FL_OK; p++) {
        st = from_stored(c, n, p);
    }
    return check_all(c, n, st);
}

static fl_status infer_bmm(fl_ctx *c, fl_node *n) {
    const fl_shape *a = in_shape(n, 0), *b = in_shape(n, 1);
    int dt = stored_type(n, 0) != FL_DT_INVALID ? stored_type(n, 0) : in_dtype(n, 0);
    if (a->rank < 2 || b->rank < 2) {
        return check_all(c, n, fl__op_set_output(c, n, 0, dt, -1, NULL));
    }
    fl_shape ba = {a->rank - 2, a->dims}, bb = {b->rank - 2, b->dims}, bo;
    fl_status st = fl__op_broadcast(c, n, &ba, &bb, &bo);
    if (st != FL_OK || bo.rank < 0 || bo.rank > 60) {
        return st != FL_OK ? st : check_all(c, n, fl__op_set_output(c, n, 0, dt, -1, NULL));
    }
    fl_sym dims[64];
    for (int i = 0; i < bo.rank; i++) {
        dims[i] = bo.dims[i];
    }
    bool ax = bool_attr(n, "adj_x"), ay = bool_attr(n, "adj_y");
    dims[bo.rank] = a->dims[a->rank - (ax ? 1 : 2)];
    dims[bo.rank + 1] = b->dims[b->rank - (ay ? 2 : 1)];
    return check_all(c, n, fl__op_set_output(c, n, 0, dt, bo.rank + 2, dims));
}

static fl_status cost_bmm(fl_ctx *c, const fl_node *n, fl_cost *out) {
    fl_arith k = {c, n, FL_OK};
    const fl_shape *a = in_shape(n, 0);
    fl_sym e = fl__ar_numel(&k, &n->outputs[0].shape);
    fl_sym kk =
        a->rank >= 2 ? a->dims[a->rank - (bool_attr(n, "adj_x") ? 2 : 1)] : fl_sym_unknown();
    fl_sym macs = fl__ar_mul(&k, e, kk);
    return put(&k, out, fl__ar_scale(&k, macs, 2), macs);
}

/* ------------------------------------------------------------------------- */
/* Element-wise                                                               */
/* ------------------------------------------------------------------------- */

static fl_status infer_binary(fl_ctx *c, fl_node *n) {
    fl_shape s;
    fl_status st = fl__op_broadcast(c, n, in_shape(n, 0), in_shape(n, 1), &s);
    int dt = stored_type(n, 0) != FL_DT_INVALID ? stored_type(n, 0) : in_dtype(n, 0);
    if (st == FL_OK) {
        st = fl__op_set_output(c, n, 0, dt, s.rank, s.dims);
    }
    return check_all(c, n, st);
}

static fl_status infer_compare(fl_ctx *c, fl_node *n) {
    fl_shape s;
    fl_status st = fl__op_broadcast(c, n, in_shape(n, 0), in_shape(n, 1), &s);
    if (st == FL_OK) {
        st = fl__op_set_output(c, n, 0, FL_DT_BOOL, s.rank, s.dims);
    }
    return check_all(c, n, st);
}

static fl_status infer_unary(fl_ctx *c, fl_node *n) {
    const fl_shape *x = in_shape(n, 0);
    int dt = stored_type(n, 0) != FL_DT_INVALID ? stored_type(n, 0) : in_dtype(n, 0);
    return check_all(c, n, fl__op_set_output(c, n, 0, dt, x->rank, x->dims));
}

static int ew_factor(const fl_node *n) {
    switch (n->kind) {
    case FL_OP_TFL_SQUARED_DIFFERENCE:
    case FL_OP_TFL_RSQRT:
    case FL_OP_TFL_PRELU:
    case FL_OP_TFL_STABLEHLO_RSQRT:
    case FL_OP_TFL_STABLEHLO_CLAMP: /* max, min */
        return 2;
    case FL_OP_TFL_HARD_SWISH:
        return 4;
    case FL_OP_TFL_GELU:
        return bool_attr(n, "approximate") ? 9 : 5;
    case FL_OP_TFL_SOFTMAX:
    case FL_OP_TFL_LOG_SOFTMAX:
        return 5;
    case FL_OP_TFL_ZEROS_LIKE:
        return 0;
    case FL_OP_TFL_L2_NORMALIZATION: /* square, sum, rsqrt, scale */
        return 4;
    case FL_OP_TFL_LOCAL_RESPONSE_NORMALIZATION: {
        int64_t r = int_attr(n, "radius", 0);
        return (int)(2 * (2 * (r > 0 && r < 1000 ? r : 0) + 1) + 3);
    }
    default:
        return 1;
    }
}

static fl_status cost_ew(fl_ctx *c, const fl_node *n, fl_cost *out) {
    fl_arith k = {c, n, FL_OK};
    fl_sym e = fl__ar_numel(&k, &n->outputs[0].shape);
    return put(&k, out, fl__ar_scale(&k, e, ew_factor(n) + act_factor(n)), fl_sym_const(0));
}

static fl_status cost_zero(fl_ctx *c, const fl_node *n, fl_cost *out) {
    (void)c;
    (void)n;
    out->flops = out->macs = out->tfprof_flops = fl_sym_const(0);
    out->has_rule = true;
    return FL_OK;
}

/* ADD_N: (k - 1) * E(out). */
static fl_status cost_addn(fl_ctx *c, const fl_node *n, fl_cost *out) {
    fl_arith k = {c, n, FL_OK};
    fl_sym e = fl__ar_numel(&k, &n->outputs[0].shape);
    return put(&k, out, fl__ar_scale(&k, e, n->n_inputs > 1 ? n->n_inputs - 1 : 0),
               fl_sym_const(0));
}

/* DEQUANTIZE/QUANTIZE/CAST/DENSIFY: the input's shape, the stored type. */
static fl_status infer_convert(fl_ctx *c, fl_node *n) {
    const fl_shape *x = in_shape(n, 0);
    int dt = stored_type(n, 0);
    if (dt == FL_DT_INVALID && n->kind == FL_OP_TFL_DEQUANTIZE) {
        dt = FL_DT_FLOAT;
    }
    return check_all(c, n, fl__op_set_output(c, n, 0, dt, x->rank, x->dims));
}

/* A DEQUANTIZE (or DENSIFY) of a constant runs once when the model is
 * prepared: no per-inference FLOPs, bytes or dispatch (its consumers read
 * the widened weights, and count those bytes). */
static fl_status cost_convert(fl_ctx *c, const fl_node *n, fl_cost *out) {
    if ((n->kind == FL_OP_TFL_DEQUANTIZE || n->kind == FL_OP_TFL_DENSIFY) && n->n_inputs > 0 &&
        n->inputs[0].node->kind == FL_OP_CONST) {
        out->per_load = true;
        return cost_zero(c, n, out);
    }
    return n->kind == FL_OP_TFL_CAST || n->kind == FL_OP_TFL_STABLEHLO_CONVERT
               ? cost_zero(c, n, out)
               : cost_ew(c, n, out);
}

/* ------------------------------------------------------------------------- */
/* Reductions, reshape, concat, pad, resize                                   */
/* ------------------------------------------------------------------------- */

static fl_status infer_reduce(fl_ctx *c, fl_node *n) {
    const fl_shape *x = in_shape(n, 0);
    int dt = stored_type(n, 0) != FL_DT_INVALID ? stored_type(n, 0) : in_dtype(n, 0);
    int64_t *axes = NULL, na = 0;
    fl_status st = n->n_inputs > 1 ? fl__op_in_int_vector(c, n, 1, &axes, &na) : FL_ENOTFOUND;
    if (st == FL_EINVAL) {
        return st;
    }
    if (st != FL_OK || x->rank < 0 || x->rank > 64) {
        return check_all(c, n, fl__op_set_output(c, n, 0, dt, -1, NULL));
    }
    bool keep = bool_attr(n, "keep_dims"), red[64] = {false};
    for (int64_t i = 0; i < na; i++) {
        int64_t a = axes[i] < 0 ? axes[i] + x->rank : axes[i];
        if (a < 0 || a >= x->rank) {
            return fl__node_fail(c->d, FL_EINVAL, n, "axis %lld out of range for rank %d (input 1)",
                                 (long long)axes[i], x->rank);
        }
        red[a] = true;
    }
    fl_sym dims[64];
    int r = 0;
    for (int i = 0; i < x->rank; i++) {
        if (!red[i]) {
            dims[r++] = x->dims[i];
        } else if (keep) {
            dims[r++] = fl_sym_const(1);
        }
    }
    return check_all(c, n, fl__op_set_output(c, n, 0, dt, r, dims));
}

static fl_status cost_reduce(fl_ctx *c, const fl_node *n, fl_cost *out) {
    fl_arith k = {c, n, FL_OK};
    fl_sym ei = fl__ar_numel(&k, in_shape(n, 0)), eo = fl__ar_numel(&k, &n->outputs[0].shape);
    fl_sym flops = n->kind == FL_OP_TFL_MEAN ? ei : fl__ar_reduce_ops(&k, ei, 1, eo);
    return put(&k, out, flops, fl_sym_const(0));
}

/* RESHAPE: the shape input (or the new_shape option), one -1 resolved from
 * the element count. */
static fl_status infer_reshape(fl_ctx *c, fl_node *n) {
    int dt = in_dtype(n, 0);
    int64_t *v = NULL, cnt = 0;
    fl_status st =
        n->n_inputs > 1 && !absent(n, 1) ? fl__op_in_int_vector(c, n, 1, &v, &cnt) : FL_ENOTFOUND;
    const fl_attr *ns = fl__node_attr(n, "new_shape");
    if (st == FL_ENOTFOUND && ns && ns->kind == FL_ATTR_LIST && ns->n > 0) {
        v = (int64_t *)ns->v.list.i;
        cnt = (int64_t)ns->n;
        st = FL_OK;
    }
    if (st == FL_EINVAL) {
        return st;
    }
    if (st == FL_ENOTFOUND && (st = fl__tfl_reshape_sym(c, n)) != FL_ENOTFOUND) {
        return st;
    }
    if (st != FL_OK || cnt > 64) {
        return check_all(c, n, from_stored(c, n, 0));
    }
    fl_sym dims[64], total, known = fl_sym_const(1);
    int infer_at = -1;
    st = fl__op_num_elements(c, n, in_shape(n, 0), &total);
    for (int64_t i = 0; i < cnt && st == FL_OK; i++) {
        if (v[i] == -1 && infer_at < 0) {
            infer_at = (int)i;
            dims[i] = fl_sym_unknown();
        } else if (v[i] < 0) {
            return fl__node_fail(c->d, FL_EINVAL, n, "shape entry %lld is %lld (input 1)",
                                 (long long)i, (long long)v[i]);
        } else {
            dims[i] = fl_sym_const(v[i]);
            st = fl__op_mul(c, n, known, dims[i], &known);
        }
    }
    if (st == FL_OK && infer_at >= 0 && fl_sym_is_known(known) && known.k > 0 &&
        !fl_sym_is_unknown(total)) {
        st = fl__op_floordiv(c, n, total, known, &dims[infer_at]);
    }
    if (st == FL_OK) {
        st = fl__op_set_output(c, n, 0, dt, (int)cnt, dims);
    }
    return check_all(c, n, st);
}

static fl_status infer_concat(fl_ctx *c, fl_node *n) {
    int dt = stored_type(n, 0) != FL_DT_INVALID ? stored_type(n, 0) : in_dtype(n, 0);
    const fl_shape *x = in_shape(n, 0);
    int64_t axis = int_attr(n, "axis", 0);
    if (x->rank < 0 || x->rank > 64) {
        return check_all(c, n, from_stored(c, n, 0));
    }
    if (axis < 0) {
        axis += x->rank;
    }
    if (axis < 0 || axis >= x->rank) {
        return fl__node_fail(c->d, FL_EINVAL, n, "axis %lld out of range for rank %d (attr axis)",
                             (long long)int_attr(n, "axis", 0), x->rank);
    }
    fl_sym dims[64];
    for (int i = 0; i < x->rank; i++) {
        dims[i] = x->dims[i];
    }
    fl_status st = FL_OK;
    for (int k = 1; k < n->n_inputs && st == FL_OK; k++) {
        const fl_shape *y = in_shape(n, k);
        if (y->rank != x->rank) {
            return check_all(c, n, from_stored(c, n, 0));
        }
        st = fl__op_add(c, n, dims[axis], y->dims[axis], &dims[axis]);
    }
    if (st == FL_OK) {
        st = fl__op_set_output(c, n, 0, dt, x->rank, dims);
    }
    return check_all(c, n, st);
}

/* PAD/PADV2/MIRROR_PAD: paddings [rank, 2] from input 1. */
static fl_status infer_pad(fl_ctx *c, fl_node *n) {
    const fl_shape *x = in_shape(n, 0);
    int dt = in_dtype(n, 0);
    const fl_value *p = n->n_inputs > 1 ? fl_op_in_value(n, 1) : NULL;
    if (!p || x->rank < 0 || x->rank > 64 || p->n != 2 * (int64_t)x->rank) {
        return check_all(c, n, from_stored(c, n, 0));
    }
    fl_sym dims[64];
    fl_status st = FL_OK;
    for (int i = 0; i < x->rank && st == FL_OK; i++) {
        fl_sym lo = fl__value_int(p, 2 * i), hi = fl__value_int(p, 2 * i + 1), t;
        st = fl__op_add(c, n, x->dims[i], lo, &t);
        if (st == FL_OK) {
            st = fl__op_add(c, n, t, hi, &dims[i]);
        }
    }
    if (st == FL_OK) {
        st = fl__op_set_output(c, n, 0, dt, x->rank, dims);
    }
    return check_all(c, n, st);
}

/* RESIZE_*: [N, size[0], size[1], C], size from input 1. */
static fl_status infer_resize(fl_ctx *c, fl_node *n) {
    const fl_shape *x = in_shape(n, 0);
    int dt = stored_type(n, 0) != FL_DT_INVALID ? stored_type(n, 0) : in_dtype(n, 0);
    int64_t *v = NULL, cnt = 0;
    fl_status st = n->n_inputs > 1 ? fl__op_in_int_vector(c, n, 1, &v, &cnt) : FL_ENOTFOUND;
    if (st == FL_EINVAL) {
        return st;
    }
    if (st != FL_OK || cnt != 2 || x->rank != 4) {
        return check_all(c, n, from_stored(c, n, 0));
    }
    fl_sym dims[4] = {x->dims[0], fl_sym_const(v[0]), fl_sym_const(v[1]), x->dims[3]};
    return check_all(c, n, fl__op_set_output(c, n, 0, dt, 4, dims));
}

/* Bilinear: 4 multiplies and 3 adds per output element (two lerps in x, one
 * in y); nearest: 0 (a gather). */
static fl_status cost_resize(fl_ctx *c, const fl_node *n, fl_cost *out) {
    if (n->kind == FL_OP_TFL_RESIZE_NEAREST_NEIGHBOR) {
        return cost_zero(c, n, out);
    }
    fl_arith k = {c, n, FL_OK};
    fl_sym e = fl__ar_numel(&k, &n->outputs[0].shape);
    return put(&k, out, fl__ar_scale(&k, e, 7), fl_sym_const(0));
}

/* ------------------------------------------------------------------------- */
/* Stored-shape operators                                                     */
/* ------------------------------------------------------------------------- */

static fl_status infer_stored(fl_ctx *c, fl_node *n) {
    fl_status st = FL_OK;
    for (int p = 0; p < n->n_outputs && st == FL_OK; p++) {
        st = from_stored(c, n, p);
    }
    return st;
}

/* Operators whose work is per output element (the rest move data, 0). */
static bool stored_is_compute(int kind) {
    switch (kind) {
    case FL_OP_TFL_CUMSUM:
    case FL_OP_TFL_RFFT2D:
    case FL_OP_TFL_COMPLEX_ABS:
    case FL_OP_TFL_TOPK_V2:
    case FL_OP_TFL_ARG_MAX:
    case FL_OP_TFL_ARG_MIN:
    case FL_OP_TFL_SELECT:
    case FL_OP_TFL_SELECT_V2:
    case FL_OP_TFL_NON_MAX_SUPPRESSION_V4:
    case FL_OP_TFL_NON_MAX_SUPPRESSION_V5:
    case FL_OP_TFL_BUCKETIZE:
    case FL_OP_TFL_RANDOM_STANDARD_NORMAL:
    case FL_OP_TFL_RANDOM_UNIFORM:
    case FL_OP_TFL_MULTINOMIAL:
        return true;
    default:
        return false;
    }
}

/* The other computing operators (CUMSUM, RFFT2D, TOPK_V2, ...): E(inputs),
 * an approximation; RNN, LSTM and SVDF cells have their own rule (rnn.c). */
static fl_status cost_stored(fl_ctx *c, const fl_node *n, fl_cost *out) {
    if (!stored_is_compute(n->kind)) {
        return cost_zero(c, n, out);
    }
    fl_arith k = {c, n, FL_OK};
    fl_sym e = fl_sym_const(0);
    for (int i = 0; i < n->n_inputs; i++) {
        if (!absent(n, i)) {
            e = fl__ar_add(&k, e, fl__ar_numel(&k, in_shape(n, i)));
        }
    }
    return put(&k, out, e, fl_sym_const(0));
}

/* ------------------------------------------------------------------------- */
/* Segment reductions                                                         */
/* ------------------------------------------------------------------------- */

/* SEGMENT_SUM (data, sorted segment_ids [d0]): [max id + 1, data dims 1..];
 * UNSORTED_SEGMENT_* (data, segment_ids, num_segments): [num_segments, data
 * dims rank(segment_ids)..]. A segment count whose value is unknown leaves
 * dim 0 to the stored shape. */
static fl_status infer_segment(fl_ctx *c, fl_node *n) {
    const fl_shape *x = in_shape(n, 0), *ids = in_shape(n, 1);
    bool sorted = n->kind == FL_OP_TFL_SEGMENT_SUM;
    int from = sorted ? 1 : ids->rank;
    if (x->rank < 1 || x->rank > 64 || from < 1 || from > x->rank) {
        if (x->rank >= 0 && ids->rank > x->rank) {
            fl__node_warn(c->d, n,
                          "tensor '%s': segment_ids has rank %d, over data's %d; the file's "
                          "shape is used",
                          n->name, ids->rank, x->rank);
        }
        return check_all(c, n, fl__op_set_output(c, n, 0, in_dtype(n, 0), -1, NULL));
    }
    const fl_value *v = n->n_inputs > (sorted ? 1 : 2) ? fl_op_in_value(n, sorted ? 1 : 2) : NULL;
    fl_sym dims[64];
    dims[0] = fl_sym_unknown();
    if (v && v->n > 0 && fl__value_is_concrete(v) && (sorted || v->n == 1)) {
        double top = -1, d;
        for (int64_t i = 0; i < v->n; i++) {
            if (fl__value_f64(v, i, &d) && d > top) {
                top = d;
            }
        }
        dims[0] = fl_sym_const((int64_t)top + (sorted ? 1 : 0));
    }
    for (int i = from; i < x->rank; i++) {
        dims[1 + i - from] = x->dims[i];
    }
    return check_all(c, n, fl__op_set_output(c, n, 0, in_dtype(n, 0), 1 + x->rank - from, dims));
}

/* One add (multiply, max, min) per data element into its segment. */
static fl_status cost_segment(fl_ctx *c, const fl_node *n, fl_cost *out) {
    fl_arith k = {c, n, FL_OK};
    return put(&k, out, fl__ar_numel(&k, in_shape(n, 0)), fl_sym_const(0));
}

/* STABLEHLO_SELECT (pred, on_true, on_false) and STABLEHLO_CLAMP (min,
 * operand, max): input 1's shape (StableHLO does not broadcast; pred, min
 * and max may be scalars). */
static fl_status infer_operand1(fl_ctx *c, fl_node *n) {
    const fl_shape *x = in_shape(n, 1);
    int dt = stored_type(n, 0) != FL_DT_INVALID ? stored_type(n, 0) : in_dtype(n, 1);
    return check_all(c, n, fl__op_set_output(c, n, 0, dt, x->rank, x->dims));
}

/* Control flow: the called subgraphs are imported and counted themselves. */
static fl_status infer_control(fl_ctx *c, fl_node *n) {
    return infer_stored(c, n);
}

static fl_status infer_subgraph_input(fl_ctx *c, fl_node *n) {
    int dt = FL_DT_INVALID;
    const fl_attr *a = fl__node_attr(n, "dtype");
    if (a && a->kind == FL_ATTR_TYPE) {
        dt = a->v.type;
    }
    fl_shape_lit s = {-1, NULL};
    const fl_attr *sh = fl__node_attr(n, "shape");
    if (sh && sh->kind == FL_ATTR_SHAPE) {
        s = sh->v.shape;
    }
    if (s.rank < 0 || s.rank > 64) {
        return fl__op_set_output(c, n, 0, dt, -1, NULL);
    }
    fl_sym dims[64];
    for (int i = 0; i < s.rank; i++) {
        dims[i] = s.dims[i] < 0 ? fl_sym_unknown() : fl_sym_const(s.dims[i]);
    }
    return fl__op_set_output(c, n, 0, dt, s.rank, dims);
}

/* TFLite_Detection_PostProcess: (boxes, scores, anchors) -> 4 stored
 * outputs; E(boxes) + E(scores). */
static fl_status cost_detection(fl_ctx *c, const fl_node *n, fl_cost *out) {
    fl_arith k = {c, n, FL_OK};
    fl_sym e = fl__ar_add(&k, fl__ar_numel(&k, in_shape(n, 0)), fl__ar_numel(&k, in_shape(n, 1)));
    return put(&k, out, e, fl_sym_const(0));
}

static fl_status cost_unpool(fl_ctx *c, const fl_node *n, fl_cost *out) {
    fl_arith k = {c, n, FL_OK};
    return put(&k, out, fl__ar_numel(&k, &n->outputs[0].shape), fl_sym_const(0));
}

/* ------------------------------------------------------------------------- */
/* Descriptors                                                                */
/* ------------------------------------------------------------------------- */

#define HOOKS_conv    .count_outputs = count_outputs, .infer = infer_conv, .cost = cost_conv
#define HOOKS_dwconv  .count_outputs = count_outputs, .infer = infer_dwconv, .cost = cost_dwconv
#define HOOKS_fc      .count_outputs = count_outputs, .infer = infer_fc, .cost = cost_fc
#define HOOKS_tconv   .count_outputs = count_outputs, .infer = infer_tconv, .cost = cost_tconv
#define HOOKS_conv3d  .count_outputs = count_outputs, .infer = infer_conv3d, .cost = cost_conv3d
#define HOOKS_pool    .count_outputs = count_outputs, .infer = infer_pool, .cost = cost_pool
#define HOOKS_bmm     .count_outputs = count_outputs, .infer = infer_bmm, .cost = cost_bmm
#define HOOKS_binary  .count_outputs = count_outputs, .infer = infer_binary, .cost = cost_ew
#define HOOKS_compare .count_outputs = count_outputs, .infer = infer_compare, .cost = cost_ew
#define HOOKS_unary   .count_outputs = count_outputs, .infer = infer_unary, .cost = cost_ew
#define HOOKS_convert .count_outputs = count_outputs, .infer = infer_convert, .cost = cost_convert
#define HOOKS_reduce  .count_outputs = count_outputs, .infer = infer_reduce, .cost = cost_reduce
#define HOOKS_reshape                                                                              \
    .count_outputs = count_outputs, .infer = infer_reshape, .eval = fl__tfl_eval_twin,             \
    .cost = cost_zero
#define HOOKS_twin                                                                                 \
    .count_outputs = count_outputs, .infer = fl__tfl_infer_twin, .eval = fl__tfl_eval_twin,        \
    .cost = cost_stored
#define HOOKS_rnn                                                                                  \
    .count_outputs = count_outputs, .infer = fl__tfl_infer_rnn, .cost = fl__tfl_cost_rnn
#define HOOKS_gather                                                                               \
    .count_outputs = count_outputs, .infer = fl__tfl_infer_gather, .eval = fl__tfl_eval_gather,    \
    .cost = cost_zero
#define HOOKS_concat  .count_outputs = count_outputs, .infer = infer_concat, .cost = cost_zero
#define HOOKS_pad     .count_outputs = count_outputs, .infer = infer_pad, .cost = cost_zero
#define HOOKS_resize  .count_outputs = count_outputs, .infer = infer_resize, .cost = cost_resize
#define HOOKS_addn    .count_outputs = count_outputs, .infer = infer_unary, .cost = cost_addn
#define HOOKS_control .count_outputs = count_outputs, .infer = infer_control, .cost = cost_zero
#define HOOKS_stored  .count_outputs = count_outputs, .infer = infer_stored, .cost = cost_stored
#define HOOKS_segment .count_outputs = count_outputs, .infer = infer_segment, .cost = cost_segment
#define HOOKS_hlo                                                                                  \
    .count_outputs = count_outputs, .infer = fl__tfl_infer_hlo, .cost = fl__tfl_cost_hlo
#define HOOKS_operand1 .count_outputs = count_outputs, .infer = infer_operand1, .cost = cost_ew
#define HOOKS_subgraph_input                                                                       \
    .count_outputs = count_outputs, .infer = infer_subgraph_input, .cost = cost_zero
#define HOOKS_tconv_bias                                                                           \
    .count_outputs = count_outputs, .infer = infer_tconv_bias, .cost = cost_tconv_bias
#define HOOKS_pool_argmax                                                                          \
    .count_outputs = count_outputs, .infer = infer_pool_argmax, .cost = cost_pool
#define HOOKS_unpool .count_outputs = count_outputs, .infer = infer_stored, .cost = cost_unpool
#define HOOKS_detection                                                                            \
    .count_outputs = count_outputs, .infer = infer_stored, .cost = cost_detection

#define FL_OP FL_OP_DESC
#include "ops/tflite/tflite.def"
#undef FL_OP
