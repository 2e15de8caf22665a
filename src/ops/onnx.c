/*
 * onnx.c - the ONNX op family: operators of the default ai.onnx domain
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
 *   BatchNormalization    2 * E(X) (inference: per-channel factors folded)
 *   element-wise unary/binary ops, activations (Relu, Sigmoid, Erf, Sqrt,
 *   HardSigmoid, HardSwish, Gelu, QuickGelu...), comparisons, Where, Clip,
 *   Cast, Pow          1 * E(out); PRelu 2 * E(out);
 *   Sum/Max/Min (variadic) (inputs - 1) * E(out); Mean inputs * E(out)
 *   ReduceMean E(in); ReduceSum/Max/Min/Prod E(in) - E(out)
 *   Softmax, LogSoftmax   5 * E(in)
 *   LayerNormalization    what its decomposition counts (ReduceMean E, Sub E,
 *                         Pow E, ReduceMean E, Add eps R, Sqrt R, Div E,
 *                         Mul E, Add E): 6 * E(X) + 2 * R, + E(X) with a
 *                         bias B; R = rows = E(X) / D, D = prod(X.shape[axis:])
 *   SimplifiedLayerNormalization (RMS norm: Pow, ReduceMean, Add eps, Sqrt,
 *                         Div, Mul)  4 * E(X) + 2 * R
 *   com.microsoft::SkipLayerNormalization  E(X) (skip add) + E(X) per bias
 *                         input + the LayerNormalization count over the last
 *                         axis
 *   data movement and metadata (Reshape, Flatten, Transpose, Concat, Split,
 *   Slice, Gather, Squeeze, Unsqueeze, Expand, Pad, Tile, Shape, Size,
 *   ConstantOfShape, Range, Identity, Dropout)  0, with a rule
 * tfprof_flops is 0 (tfprof_rule false) for every ONNX op: tfprof profiles
 * TensorFlow graphs only.
 */
#include "ops/common.h"
#include "ops/onnxops/util.h"

#include <string.h>

#define MAX_SPATIAL 8

/* ------------------------------------------------------------------------- */
/* Small helpers                                                              */
/* ------------------------------------------------------------------------- */

static bool absent(const fl_node *n, int i) {
    return fl__ox_absent(n, i);
}

static int in_dtype(const fl_node *n, int i) {
    return fl__ox_in_dtype(n, i);
}

static bool known_eq(fl_sym s, int64_t v) {
    return fl_sym_is_known(s) && s.k == v;
}

/* Sets output `port` when the node has it (optional ONNX outputs). */
static fl_status set_out(fl_ctx *c, fl_node *n, int port, int dtype, int rank, const fl_sym *dims) {
    return fl__ox_set_out(c, n, port, dtype, rank, dims);
}

/* Normalises an axis against `rank`; fails naming the attr when out of
 * range. */
static fl_status norm_axis(fl_ctx *c, const fl_node *n, int64_t axis, int rank, const char *what,
                           int *out) {
    return fl__ox_norm_axis(c, n, axis, rank, what, out);
}

/* An int list given as input `i` (known value) or, when that input is
 * absent, as attr `attr`. *found false when neither is there; FL_ENOTFOUND
 * when the input exists but its value is unknown. */
static fl_status ints_in_or_attr(fl_ctx *c, const fl_node *n, int i, const char *attr,
                                 const int64_t **out, int64_t *cnt, bool *found) {
    return fl__ox_ints_in_or_attr(c, n, i, attr, out, cnt, found);
}

/* Copies element si of src into element di of dst (same dtype). */
static void copy_elem(fl_value *dst, int64_t di, const fl_value *src, int64_t si) {
    if (dst->ints) {
        ((fl_sym *)dst->ints)[di] = src->ints[si];
    } else {
        size_t es = fl__dtype_size(dst->dtype);
        memcpy((uint8_t *)dst->raw + (size_t)di * es, (const uint8_t *)src->raw + (size_t)si * es,
               es);
    }
}

/* A new value for output `port`, or NULL (too large, not concrete, or OOM
 * with d failed: the caller returns fl_ctx_status). */
static fl_status new_out_value(fl_ctx *c, fl_node *n, int port, fl_value **v) {
    *v = fl__op_new_value(c, n, port);
    return (!*v && c->a->failed) ? fl__diag_oom(c->d) : FL_OK;
}

/* Calls TensorFlow descriptor `tf_kind`'s hook on a copy of n that carries
 * that kind; outputs are shared with n, so what the hook sets lands on n. */
static fl_status twin(fl_ctx *c, fl_node *n, int tf_kind, bool eval) {
    return fl__ox_twin(c, n, tf_kind, eval);
}

/* The TensorFlow op with the same semantics as an ONNX kind, or 0. */
static int tf_twin(int kind) {
    switch (kind) {
    case FL_OP_ONNX_ADD:
        return FL_OP_ADD_V2;
    case FL_OP_ONNX_SUB:
        return FL_OP_SUB;
    case FL_OP_ONNX_MUL:
        return FL_OP_MUL;
    case FL_OP_ONNX_DIV:
        return FL_OP_DIV;
    case FL_OP_ONNX_POW:
        return FL_OP_POW;
    case FL_OP_ONNX_EQUAL:
        return FL_OP_EQUAL;
    case FL_OP_ONNX_LESS:
        return FL_OP_LESS;
    case FL_OP_ONNX_GREATER:
        return FL_OP_GREATER;
    case FL_OP_ONNX_AND:
        return FL_OP_LOGICAL_AND;
    case FL_OP_ONNX_OR:
        return FL_OP_LOGICAL_OR;
    case FL_OP_ONNX_NOT:
        return FL_OP_LOGICAL_NOT;
    case FL_OP_ONNX_WHERE:
        return FL_OP_SELECT_V2;
    case FL_OP_ONNX_RANGE:
        return FL_OP_RANGE;
    case FL_OP_ONNX_CAST:
        return FL_OP_CAST;
    case FL_OP_ONNX_RELU:
        return FL_OP_RELU;
    case FL_OP_ONNX_NEG:
        return FL_OP_NEG;
    case FL_OP_ONNX_ABS:
        return FL_OP_ABS;
    case FL_OP_ONNX_FLOOR:
        return FL_OP_FLOOR;
    case FL_OP_ONNX_CEIL:
        return FL_OP_CEIL;
    case FL_OP_ONNX_SQRT:
        return FL_OP_SQRT;
    default:
        return 0;
    }
}

static fl_status infer_twin(fl_ctx *c, fl_node *n) {
    return twin(c, n, tf_twin(n->kind), false);
}

static fl_status eval_twin(fl_ctx *c, fl_node *n) {
    return twin(c, n, tf_twin(n->kind), true);
}

/* Output 0 (and any further output) = input 0's dtype and shape. */
static fl_status infer_same(fl_ctx *c, fl_node *n) {
    return fl__ox_infer_same(c, n);
}

/* Output 0 := input 0's value laid out in output 0's shape. */
static fl_status eval_copy(fl_ctx *c, fl_node *n) {
    const fl_value *in = fl_op_in_value(n, 0);
    fl_value *v;
    fl_status st = new_out_value(c, n, 0, &v);
    if (st != FL_OK || !v || !in || v->n != in->n || v->dtype != fl_dtype_base(in->dtype) ||
        (!v->ints != !in->ints)) {
        return st;
    }
    for (int64_t i = 0; i < v->n; i++) {
        copy_elem(v, i, in, i);
    }
    fl__op_set_value(n, 0, v);
    return FL_OK;
}

/* ------------------------------------------------------------------------- */
/* Costs                                                                      */
/* ------------------------------------------------------------------------- */

static fl_status cost_per_out(fl_ctx *c, const fl_node *n, fl_cost *out, int64_t per) {
    return fl__ox_cost_per_out(c, n, out, per);
}

static fl_status cost_ew(fl_ctx *c, const fl_node *n, fl_cost *out) {
    return cost_per_out(c, n, out, 1);
}

static fl_status cost_ew2(fl_ctx *c, const fl_node *n, fl_cost *out) {
    return cost_per_out(c, n, out, 2);
}

static fl_status cost_softmax(fl_ctx *c, const fl_node *n, fl_cost *out) {
    return cost_per_out(c, n, out, 5);
}

static fl_status cost_bn(fl_ctx *c, const fl_node *n, fl_cost *out) {
    return cost_per_out(c, n, out, 2);
}

/* Variadic Sum/Max/Min: (inputs - 1) * E(out); Mean one more (the divide). */
static fl_status cost_variadic(fl_ctx *c, const fl_node *n, fl_cost *out) {
    int64_t per = n->n_inputs - (n->kind == FL_OP_ONNX_MEAN ? 0 : 1);
    return cost_per_out(c, n, out, per > 0 ? per : 0);
}

/* ------------------------------------------------------------------------- */
/* The absent-input marker, Identity, unary ops                               */
/* ------------------------------------------------------------------------- */

static fl_status infer_absent(fl_ctx *c, fl_node *n) {
    fl_sym zero = fl_sym_const(0);
    return fl__op_set_output(c, n, 0, FL_DT_FLOAT, 1, &zero); /* an empty tensor: 0 bytes */
}

static fl_status infer_unary_twin(fl_ctx *c, fl_node *n) {
    return tf_twin(n->kind) ? infer_twin(c, n) : infer_same(c, n);
}

static fl_status infer_cast(fl_ctx *c, fl_node *n) {
    int64_t to;
    fl_status st = fl__attr_need_int(n, "to", &to, c->d);
    if (st != FL_OK) {
        return st;
    }
    fl_dtype dt = fl__onnx_dtype((int32_t)to);
    if (dt == FL_DT_INVALID || to != (int32_t)to) {
        return fl__node_fail(c->d, FL_EINVAL, n, "attr 'to' holds unsupported data type %lld",
                             (long long)to);
    }
    const fl_tensor *x = fl_node_in(n, 0);
    return fl__op_set_output(c, n, 0, dt, x->shape.rank, x->shape.dims);
}

/* Clip(x, min?, max?), Dropout(x, ratio?, training_mode?) -> mask. */
static fl_status infer_dropout(fl_ctx *c, fl_node *n) {
    const fl_tensor *x = fl_node_in(n, 0);
    fl_status st =
        fl__op_set_output(c, n, 0, fl_dtype_base(x->dtype), x->shape.rank, x->shape.dims);
    if (st == FL_OK) {
        st = set_out(c, n, 1, FL_DT_BOOL, x->shape.rank, x->shape.dims);
    }
    return st;
}

/* Dropout is the identity only in inference: with a training_mode input
 * that is (or may be) true its output is random, so no value. */
static fl_status eval_dropout(fl_ctx *c, fl_node *n) {
    if (!absent(n, 2)) {
        const fl_value *t = fl_op_in_value(n, 2);
        if (!t || t->n != 1 || !t->ints || !fl_sym_is_known(t->ints[0]) || t->ints[0].k != 0) {
            return FL_OK;
        }
    }
    return eval_copy(c, n);
}

/* ------------------------------------------------------------------------- */
/* Broadcasting: variadic ops, Expand                                         */
/* ------------------------------------------------------------------------- */

static fl_status infer_variadic(fl_ctx *c, fl_node *n) {
    fl_shape acc = *fl__op_in_shape(n, 0);
    for (int i = 1; i < n->n_inputs; i++) {
        fl_status st = fl__op_broadcast(c, n, &acc, fl__op_in_shape(n, i), &acc);
        if (st != FL_OK) {
            return st;
        }
    }
    return fl__op_set_output(c, n, 0, in_dtype(n, 0), acc.rank, acc.dims);
}

/* A shape given as the value of input i (an int64 vector): *shape gets its
 * rank and dims (symbolic elements kept); unknown value: the rank from the
 * input's static length when known, dims unknown. */
static fl_status shape_from_input(fl_ctx *c, const fl_node *n, int i, fl_shape *shape) {
    const fl_sym *v;
    int64_t len;
    fl_status st = fl__op_in_sym_vector(c, n, i, &v, &len);
    if (st == FL_ENOTFOUND) {
        const fl_shape *s = fl__op_in_shape(n, i);
        shape->rank = (s->rank == 1 && fl_sym_is_known(s->dims[0]) && s->dims[0].k <= 254)
                          ? (int)s->dims[0].k
                          : -1;
        shape->dims = NULL;
        return FL_OK;
    }
    if (st != FL_OK) {
        return st;
    }
    if (len > 254) {
        return fl__node_fail(c->d, FL_EINVAL, n, "input %d describes a shape of rank %lld", i,
                             (long long)len);
    }
    shape->rank = (int)len;
    shape->dims = (fl_sym *)v;
    return FL_OK;
}

static fl_status infer_expand(fl_ctx *c, fl_node *n) {
    fl_shape want, out;
    fl_status st = shape_from_input(c, n, 1, &want);
    if (st != FL_OK) {
        return st;
    }
    const fl_shape *x = fl__op_in_shape(n, 0);
    if (want.rank >= 0 && !want.dims) {
        int r = x->rank < 0 ? -1 : (x->rank > want.rank ? x->rank : want.rank);
        return fl__op_set_output_rank(c, n, 0, in_dtype(n, 0), r);
    }
    st = fl__op_broadcast(c, n, x, &want, &out);
    return st == FL_OK ? fl__op_set_output(c, n, 0, in_dtype(n, 0), out.rank, out.dims) : st;
}

static fl_status infer_constant_of_shape(fl_ctx *c, fl_node *n) {
    const fl_const *k = NULL;
    fl_status st = fl__attr_get_tensor(n, "value", &k, c->d);
    if (st != FL_OK && st != FL_ENOTFOUND) {
        return st;
    }
    int dt = k ? k->dtype : FL_DT_FLOAT;
    fl_shape s;
    st = shape_from_input(c, n, 0, &s);
    if (st != FL_OK) {
        return st;
    }
    if (s.rank >= 0 && !s.dims) {
        return fl__op_set_output_rank(c, n, 0, dt, s.rank);
    }
    st = fl__op_set_output(c, n, 0, dt, s.rank, s.dims);
    if (st != FL_OK || s.rank < 0) {
        return st;
    }
    /* The value follows from the shape when the fill value is known. */
    fl_value *v;
    st = new_out_value(c, n, 0, &v);
    if (st != FL_OK || !v || (k && !k->value) || (k && k->value->n < 1)) {
        return st;
    }
    for (int64_t i = 0; i < v->n; i++) {
        if (k) {
            copy_elem(v, i, k->value, 0);
        }
    }
    fl__op_set_value(n, 0, v);
    return FL_OK;
}

/* ------------------------------------------------------------------------- */
/* Convolution and pooling                                                    */
/* ------------------------------------------------------------------------- */

typedef struct window {
    int ns;
    int64_t k[MAX_SPATIAL]; /* -1: unknown (kernel from an unknown weight dim) */
    int64_t s[MAX_SPATIAL], d[MAX_SPATIAL], lo[MAX_SPATIAL], hi[MAX_SPATIAL];
    const char *padding; /* "EXPLICIT", "VALID", "SAME" */
    bool ceil_mode;
} window;

/* Reads list attr `name` of ns (or 2 * ns for pads) entries, or fills dflt. */
static fl_status window_list(fl_ctx *c, const fl_node *n, const char *name, int want, int64_t dflt,
                             int64_t *out) {
    const int64_t *v;
    size_t cnt;
    fl_status st = fl__attr_get_ints(n, name, &v, &cnt, c->d);
    if (st == FL_ENOTFOUND) {
        for (int i = 0; i < want; i++) {
            out[i] = dflt;
        }
        return FL_OK;
    }
    if (st != FL_OK) {
        return st;
    }
    if ((int)cnt != want) {
        return fl__node_fail(c->d, FL_EINVAL, n, "attr '%s' has %zu entries, expects %d", name, cnt,
                             want);
    }
    memcpy(out, v, (size_t)want * sizeof(int64_t));
    return FL_OK;
}

/* Window attrs for `ns` spatial dims; the kernel from attr kernel_shape or,
 * for convolutions, from the weight's dims 2.. (`w`; NULL for pools). */
static fl_status get_window(fl_ctx *c, const fl_node *n, int ns, const fl_shape *w, window *out) {
    fl_status st;
    out->ns = ns;
    const int64_t *ks;
    size_t kn;
    st = fl__attr_get_ints(n, "kernel_shape", &ks, &kn, c->d);
    if (st == FL_OK) {
        if ((int)kn != ns) {
            return fl__node_fail(c->d, FL_EINVAL, n,
                                 "attr 'kernel_shape' has %zu entries, expects %d", kn, ns);
        }
        memcpy(out->k, ks, (size_t)ns * sizeof(int64_t));
    } else if (st != FL_ENOTFOUND) {
        return st;
    } else if (!w) {
        return fl__node_fail(c->d, FL_EINVAL, n, "missing required attr 'kernel_shape'");
    } else {
        for (int i = 0; i < ns; i++) {
            fl_sym kd = w->rank == ns + 2 ? w->dims[2 + i] : fl_sym_unknown();
            out->k[i] = fl_sym_is_known(kd) ? kd.k : -1;
        }
    }
    if ((st = window_list(c, n, "strides", ns, 1, out->s)) != FL_OK ||
        (st = window_list(c, n, "dilations", ns, 1, out->d)) != FL_OK) {
        return st;
    }
    int64_t pads[2 * MAX_SPATIAL];
    if ((st = window_list(c, n, "pads", 2 * ns, 0, pads)) != FL_OK) {
        return st;
    }
    for (int i = 0; i < ns; i++) {
        out->lo[i] = pads[i];
        out->hi[i] = pads[ns + i];
        if (out->lo[i] < 0 || out->hi[i] < 0) {
            return fl__node_fail(c->d, FL_EINVAL, n, "attr 'pads' has a negative entry");
        }
    }
    const char *ap;
    if ((st = fl__attr_str_or(n, "auto_pad", "NOTSET", &ap, c->d)) != FL_OK) {
        return st;
    }
    if (strcmp(ap, "NOTSET") == 0 || !*ap) {
        out->padding = "EXPLICIT";
    } else if (strcmp(ap, "VALID") == 0) {
        out->padding = "VALID";
    } else if (strcmp(ap, "SAME_UPPER") == 0 || strcmp(ap, "SAME_LOWER") == 0) {
        out->padding = "SAME";
    } else {
        return fl__node_fail(c->d, FL_EINVAL, n, "attr 'auto_pad' has unsupported value '%s'", ap);
    }
    int64_t cm;
    if ((st = fl__attr_int_or(n, "ceil_mode", 0, &cm, c->d)) != FL_OK) {
        return st;
    }
    out->ceil_mode = cm != 0;
    return FL_OK;
}

/* Output size of spatial dim i. */
static fl_status window_dim(fl_ctx *c, const fl_node *n, const window *w, int i, fl_sym in,
                            fl_sym *out) {
    if (w->k[i] < 0 || fl_sym_is_unknown(in)) {
        *out = fl_sym_unknown();
        return FL_OK;
    }
    if (!w->ceil_mode || strcmp(w->padding, "EXPLICIT") != 0) {
        return fl__op_window_out(c, n, in, w->k[i], w->s[i], w->d[i], w->padding, w->lo[i],
                                 w->hi[i], out);
    }
    /* ceil_mode: ceil((in + pads - eff) / s) + 1, minus a last window that
     * would start inside the end padding. */
    fl_sym floor_out;
    fl_status st = fl__op_window_out(c, n, in, w->k[i], w->s[i], w->d[i], "EXPLICIT", w->lo[i],
                                     w->hi[i], &floor_out);
    if (st != FL_OK) {
        return st;
    }
    int64_t eff = (w->k[i] - 1) * w->d[i] + 1;
    fl_sym t, r;
    if ((st = fl__op_add(c, n, in, fl_sym_const(w->lo[i] + w->hi[i] - eff), &t)) != FL_OK ||
        (st = fl__op_ceildiv(c, n, t, fl_sym_const(w->s[i]), &r)) != FL_OK ||
        (st = fl__op_add(c, n, r, fl_sym_const(1), &r)) != FL_OK) {
        return st;
    }
    if (fl_sym_is_known(r) && fl_sym_is_known(in) && (r.k - 1) * w->s[i] >= in.k + w->lo[i]) {
        r.k--;
    }
    *out = r;
    return FL_OK;
}

static fl_status infer_conv(fl_ctx *c, fl_node *n) {
    const fl_shape *x = fl__op_in_shape(n, 0), *w = fl__op_in_shape(n, 1);
    int rank = x->rank >= 0 ? x->rank : w->rank;
    int dt = in_dtype(n, 0);
    if (rank < 0) {
        return fl__op_set_output(c, n, 0, dt, -1, NULL);
    }
    if (rank < 3 || rank > MAX_SPATIAL + 2) {
        return fl__node_fail(c->d, FL_EINVAL, n, "input 'X' must have rank 3 to %d, got %d",
                             MAX_SPATIAL + 2, rank);
    }
    if ((x->rank >= 0 && x->rank != rank) || (w->rank >= 0 && w->rank != rank)) {
        return fl__node_fail(c->d, FL_EINVAL, n, "inputs 'X' (rank %d) and 'W' (rank %d) disagree",
                             x->rank, w->rank);
    }
    int64_t group;
    fl_status st = fl__attr_int_or(n, "group", 1, &group, c->d);
    if (st != FL_OK) {
        return st;
    }
    if (group < 1) {
        return fl__node_fail(c->d, FL_EINVAL, n, "attr 'group' must be positive, got %lld",
                             (long long)group);
    }
    fl_sym cin = x->rank >= 0 ? x->dims[1] : fl_sym_unknown();
    fl_sym cw = w->rank >= 0 ? w->dims[1] : fl_sym_unknown();
    fl_sym m = w->rank >= 0 ? w->dims[0] : fl_sym_unknown();
    if (fl_sym_is_known(cin) && fl_sym_is_known(cw) && cin.k != cw.k * group) {
        return fl__node_fail(c->d, FL_EINVAL, n,
                             "input 'X' has %lld channels but 'W' expects %lld x group %lld",
                             (long long)cin.k, (long long)cw.k, (long long)group);
    }
    if (fl_sym_is_known(m) && m.k % group != 0) {
        return fl__node_fail(c->d, FL_EINVAL, n,
                             "'W' has %lld output channels, not a multiple of group %lld",
                             (long long)m.k, (long long)group);
    }
    window win;
    if ((st = get_window(c, n, rank - 2, w, &win)) != FL_OK) {
        return st;
    }
    for (int i = 0; i < win.ns; i++) {
        fl_sym kd = w->rank >= 0 ? w->dims[2 + i] : fl_sym_unknown();
        if (fl_sym_is_known(kd) && win.k[i] >= 0 && kd.k != win.k[i]) {
            return fl__node_fail(c->d, FL_EINVAL, n,
                                 "attr 'kernel_shape' says %lld but 'W' dim %d is %lld",
                                 (long long)win.k[i], 2 + i, (long long)kd.k);
        }
    }
    fl_sym dims[MAX_SPATIAL + 2];
    dims[0] = x->rank >= 0 ? x->dims[0] : fl_sym_unknown();
    dims[1] = m;
    for (int i = 0; i < win.ns; i++) {
        st = window_dim(c, n, &win, i, x->rank >= 0 ? x->dims[2 + i] : fl_sym_unknown(),
                        &dims[2 + i]);
        if (st != FL_OK) {
            return st;
        }
    }
    return fl__op_set_output(c, n, 0, dt, rank, dims);
}

/* Activation of a com.microsoft fused op: 1 per output element unless
 * absent or Identity. */
static bool has_activation(const fl_node *n) {
    const fl_attr *a = fl__node_attr(n, "activation");
    return a && a->kind == FL_ATTR_S && a->v.s.len && strcmp(a->v.s.p, "Identity") != 0;
}

static fl_status cost_conv(fl_ctx *c, const fl_node *n, fl_cost *out) {
    fl_arith k = {c, n, FL_OK};
    const fl_shape *w = fl__op_in_shape(n, 1);
    fl_sym e = fl__ar_numel(&k, &n->outputs[0].shape);
    fl_sym per = fl__ar_dims_prod(&k, w, 1, w->rank); /* C_in/group * prod(kernel) */
    fl_sym macs = fl__ar_mul(&k, e, per);
    fl_sym flops = fl__ar_scale(&k, macs, 2);
    int extra =
        !absent(n, 2) +
        (n->kind == FL_OP_ONNX_MS_FUSED_CONV ? (has_activation(n) ? 1 : 0) + !absent(n, 3) : 0);
    flops = fl__ar_add(&k, flops, fl__ar_scale(&k, e, extra));
    return fl__ar_put_cost(&k, out, flops, macs);
}

static fl_status infer_pool(fl_ctx *c, fl_node *n) {
    const fl_shape *x = fl__op_in_shape(n, 0);
    int dt = in_dtype(n, 0);
    if (x->rank < 0) {
        fl_status st = fl__op_set_output(c, n, 0, dt, -1, NULL);
        return st == FL_OK ? set_out(c, n, 1, FL_DT_INT64, -1, NULL) : st;
    }
    if (x->rank < 3 || x->rank > MAX_SPATIAL + 2) {
        return fl__node_fail(c->d, FL_EINVAL, n, "input 'X' must have rank 3 to %d, got %d",
                             MAX_SPATIAL + 2, x->rank);
    }
    window win;
    fl_status st = get_window(c, n, x->rank - 2, NULL, &win);
    if (st != FL_OK) {
        return st;
    }
    fl_sym dims[MAX_SPATIAL + 2];
    dims[0] = x->dims[0];
    dims[1] = x->dims[1];
    for (int i = 0; i < win.ns && st == FL_OK; i++) {
        st = window_dim(c, n, &win, i, x->dims[2 + i], &dims[2 + i]);
    }
    if (st == FL_OK) {
        st = fl__op_set_output(c, n, 0, dt, x->rank, dims);
    }
    return st == FL_OK ? set_out(c, n, 1, FL_DT_INT64, x->rank, dims) : st;
}

static fl_status cost_pool(fl_ctx *c, const fl_node *n, fl_cost *out) {
    fl_arith k = {c, n, FL_OK};
    const int64_t *ks;
    size_t kn;
    fl_status st = fl__attr_get_ints(n, "kernel_shape", &ks, &kn, c->d);
    if (st != FL_OK) {
        return st == FL_ENOTFOUND ? fl__node_fail(c->d, FL_EINVAL, n, "missing attr 'kernel_shape'")
                                  : st;
    }
    fl_sym f = fl__ar_numel(&k, &n->outputs[0].shape);
    for (size_t i = 0; i < kn; i++) {
        f = fl__ar_scale(&k, f, ks[i]);
    }
    return fl__ar_put_cost(&k, out, f, fl_sym_const(0));
}

static fl_status infer_global_pool(fl_ctx *c, fl_node *n) {
    const fl_shape *x = fl__op_in_shape(n, 0);
    if (x->rank < 0) {
        return fl__op_set_output(c, n, 0, in_dtype(n, 0), -1, NULL);
    }
    if (x->rank < 2 || x->rank > MAX_SPATIAL + 2) {
        return fl__node_fail(c->d, FL_EINVAL, n, "input 'X' must have rank 2 to %d, got %d",
                             MAX_SPATIAL + 2, x->rank);
    }
    fl_sym dims[MAX_SPATIAL + 2];
    for (int i = 0; i < x->rank; i++) {
        dims[i] = i < 2 ? x->dims[i] : fl_sym_const(1);
    }
    return fl__op_set_output(c, n, 0, in_dtype(n, 0), x->rank, dims);
}

static fl_status cost_global_pool(fl_ctx *c, const fl_node *n, fl_cost *out) {
    fl_arith k = {c, n, FL_OK};
    fl_sym ein = fl__ar_numel(&k, fl__op_in_shape(n, 0));
    fl_sym f = ein;
    if (n->kind == FL_OP_ONNX_GLOBAL_MAX_POOL) {
        fl_sym eout = fl__ar_numel(&k, &n->outputs[0].shape);
        f = fl__ar_add(&k, ein, fl__ar_scale(&k, eout, -1));
    }
    return fl__ar_put_cost(&k, out, f, fl_sym_const(0));
}

static fl_status infer_batch_norm(fl_ctx *c, fl_node *n) {
    const fl_tensor *x = fl_node_in(n, 0);
    fl_status st =
        fl__op_set_output(c, n, 0, fl_dtype_base(x->dtype), x->shape.rank, x->shape.dims);
    fl_sym ch = x->shape.rank >= 2 ? x->shape.dims[1] : fl_sym_unknown();
    for (int k = 1; k < n->n_outputs && st == FL_OK; k++) {
        st = fl__op_set_output(c, n, k, fl_dtype_base(x->dtype), 1, &ch);
    }
    return st;
}

/* ------------------------------------------------------------------------- */
/* Gemm, MatMul                                                               */
/* ------------------------------------------------------------------------- */

/* M, K, N of Gemm with transA/transB. */
static fl_status gemm_dims(fl_ctx *c, const fl_node *n, fl_sym *m, fl_sym *kk, fl_sym *nn) {
    int64_t ta, tb;
    fl_status st;
    if ((st = fl__attr_int_or(n, "transA", 0, &ta, c->d)) != FL_OK ||
        (st = fl__attr_int_or(n, "transB", 0, &tb, c->d)) != FL_OK) {
        return st;
    }
    const fl_shape *a = fl__op_in_shape(n, 0), *b = fl__op_in_shape(n, 1);
    for (int i = 0; i < 2; i++) {
        const fl_shape *s = i ? b : a;
        if (s->rank >= 0 && s->rank != 2) {
            return fl__node_fail(c->d, FL_EINVAL, n, "input '%s' must be 2-D, got rank %d",
                                 i ? "B" : "A", s->rank);
        }
    }
    *m = fl__shape_dim(a, ta ? 1 : 0);
    *nn = fl__shape_dim(b, tb ? 0 : 1);
    return fl__op_merge_dim(c, n, fl__shape_dim(a, ta ? 0 : 1), fl__shape_dim(b, tb ? 1 : 0),
                            "inner dimensions of 'A' and 'B'", kk);
}

static fl_status infer_gemm(fl_ctx *c, fl_node *n) {
    fl_sym dims[2], kk;
    fl_status st = gemm_dims(c, n, &dims[0], &kk, &dims[1]);
    if (st != FL_OK) {
        return st;
    }
    if (!absent(n, 2)) {
        fl_shape o = {2, dims}, b;
        st = fl__op_broadcast(c, n, fl__op_in_shape(n, 2), &o, &b); /* C must broadcast to [M, N] */
        if (st != FL_OK) {
            return st;
        }
    }
    return fl__op_set_output(c, n, 0, in_dtype(n, 0), 2, dims);
}

static fl_status cost_gemm(fl_ctx *c, const fl_node *n, fl_cost *out) {
    fl_arith k = {c, n, FL_OK};
    fl_sym m, kk, nn;
    fl_status st = gemm_dims(c, n, &m, &kk, &nn);
    if (st != FL_OK) {
        return st;
    }
    fl_sym e = fl__ar_numel(&k, &n->outputs[0].shape);
    fl_sym macs = fl__ar_mul(&k, e, kk);
    int extra = !absent(n, 2) + (n->kind == FL_OP_ONNX_MS_FUSED_GEMM && has_activation(n));
    fl_sym flops = fl__ar_add(&k, fl__ar_scale(&k, macs, 2), fl__ar_scale(&k, e, extra));
    return fl__ar_put_cost(&k, out, flops, macs);
}

/* numpy matmul of inputs 0 and 1 (last two dims swapped by transA/transB for
 * FusedMatMul): output shape, M, N, K and the broadcast batch size. */
typedef struct mm_shape {
    fl_shape out;
    fl_sym m, nn, k;
    fl_shape batch;
} mm_shape;

/* FusedMatMul's view of an operand: transBatch moves dim 0 to position
 * rank-2 (permutation [1..rank-2, 0, rank-1]), then trans swaps the last two
 * dims. */
static fl_status fused_operand(fl_ctx *c, const fl_node *n, const fl_shape *s, int64_t tbatch,
                               int64_t t, const char *what, fl_shape *out) {
    *out = *s;
    if ((!tbatch && !t) || s->rank < 2) {
        return FL_OK;
    }
    if (tbatch && s->rank < 3) {
        return fl__node_fail(c->d, FL_EINVAL, n, "transBatch%s needs rank 3 or more, got %d", what,
                             s->rank);
    }
    fl_sym *d = fl__arena_calloc(c->a, (size_t)s->rank, sizeof(fl_sym));
    if (!d) {
        return fl__diag_oom(c->d);
    }
    int r = s->rank;
    for (int i = 0; i < r; i++) {
        d[i] = s->dims[i];
    }
    if (tbatch) {
        for (int i = 0; i < r - 2; i++) {
            d[i] = s->dims[i + 1];
        }
        d[r - 2] = s->dims[0];
    }
    if (t) {
        fl_sym x = d[r - 2];
        d[r - 2] = d[r - 1];
        d[r - 1] = x;
    }
    out->dims = d;
    return FL_OK;
}

static fl_status matmul_shape(fl_ctx *c, const fl_node *n, mm_shape *r) {
    const fl_shape *a = fl__op_in_shape(n, 0), *b = fl__op_in_shape(n, 1);
    int64_t ta = 0, tb = 0, tba = 0, tbb = 0;
    fl_status st;
    if (n->kind == FL_OP_ONNX_MS_FUSED_MATMUL &&
        ((st = fl__attr_int_or(n, "transA", 0, &ta, c->d)) != FL_OK ||
         (st = fl__attr_int_or(n, "transB", 0, &tb, c->d)) != FL_OK ||
         (st = fl__attr_int_or(n, "transBatchA", 0, &tba, c->d)) != FL_OK ||
         (st = fl__attr_int_or(n, "transBatchB", 0, &tbb, c->d)) != FL_OK)) {
        return st;
    }
    r->out.rank = -1;
    r->out.dims = NULL;
    r->m = r->nn = r->k = fl_sym_unknown();
    r->batch.rank = -1;
    if (a->rank < 0 || b->rank < 0) {
        return FL_OK;
    }
    fl_shape ea, eb;
    if ((st = fused_operand(c, n, a, tba, ta, "A", &ea)) != FL_OK ||
        (st = fused_operand(c, n, b, tbb, tb, "B", &eb)) != FL_OK) {
        return st;
    }
    a = &ea;
    b = &eb;
    ta = tb = 0;
    if (a->rank == 0 || b->rank == 0) {
        return fl__node_fail(c->d, FL_EINVAL, n, "MatMul inputs must have rank 1 or more");
    }
    fl_sym am = a->rank == 1 ? fl_sym_const(1) : fl__shape_dim(a, ta ? -1 : -2);
    fl_sym ak = a->rank == 1 ? a->dims[0] : fl__shape_dim(a, ta ? -2 : -1);
    fl_sym bk = b->rank == 1 ? b->dims[0] : fl__shape_dim(b, tb ? -1 : -2);
    fl_sym bn = b->rank == 1 ? fl_sym_const(1) : fl__shape_dim(b, tb ? -2 : -1);
    if ((st = fl__op_merge_dim(c, n, ak, bk, "inner dimensions of 'A' and 'B'", &r->k)) != FL_OK) {
        return st;
    }
    fl_shape ba = {a->rank > 2 ? a->rank - 2 : 0, a->dims};
    fl_shape bb = {b->rank > 2 ? b->rank - 2 : 0, b->dims};
    if ((st = fl__op_broadcast(c, n, &ba, &bb, &r->batch)) != FL_OK) {
        return st;
    }
    int rank = r->batch.rank + (a->rank > 1) + (b->rank > 1);
    fl_sym *d = fl__arena_calloc(c->a, (size_t)rank + 1, sizeof(fl_sym));
    if (!d) {
        return fl__diag_oom(c->d);
    }
    for (int i = 0; i < r->batch.rank; i++) {
        d[i] = r->batch.dims[i];
    }
    int j = r->batch.rank;
    if (a->rank > 1) {
        d[j++] = am;
    }
    if (b->rank > 1) {
        d[j++] = bn;
    }
    r->out.rank = rank;
    r->out.dims = d;
    r->m = am;
    r->nn = bn;
    return FL_OK;
}

static fl_status infer_matmul(fl_ctx *c, fl_node *n) {
    mm_shape r;
    fl_status st = matmul_shape(c, n, &r);
    return st == FL_OK ? fl__op_set_output(c, n, 0, in_dtype(n, 0), r.out.rank, r.out.dims) : st;
}

static fl_status cost_matmul(fl_ctx *c, const fl_node *n, fl_cost *out) {
    fl_arith k = {c, n, FL_OK};
    mm_shape r;
    fl_status st = matmul_shape(c, n, &r);
    if (st != FL_OK) {
        return st;
    }
    fl_sym macs =
        fl__ar_mul(&k, fl__ar_mul(&k, fl__ar_numel(&k, &r.batch), r.m), fl__ar_mul(&k, r.nn, r.k));
    fl_sym flops = fl__ar_scale(&k, macs, 2);
    float alpha = 1.0f;
    if (n->kind == FL_OP_ONNX_MS_FUSED_MATMUL &&
        (st = fl__attr_float_or(n, "alpha", 1.0f, &alpha, c->d)) != FL_OK) {
        return st;
    }
    if (alpha != 1.0f) {
        flops = fl__ar_add(&k, flops, fl__ar_numel(&k, &n->outputs[0].shape));
    }
    return fl__ar_put_cost(&k, out, flops, macs);
}

/* ------------------------------------------------------------------------- */
/* Normalisations                                                             */
/* ------------------------------------------------------------------------- */

/* Output 0 like X; further outputs (mean, inverse std dev) X.shape[:axis]
 * followed by ones. */
static fl_status infer_layer_norm(fl_ctx *c, fl_node *n) {
    const fl_tensor *x = fl_node_in(n, 0);
    int64_t axis = -1;
    fl_status st = fl__attr_int_or(n, "axis", -1, &axis, c->d);
    if (st != FL_OK) {
        return st;
    }
    st = fl__op_set_output(c, n, 0, fl_dtype_base(x->dtype), x->shape.rank, x->shape.dims);
    if (st != FL_OK || n->n_outputs < 2) {
        return st;
    }
    fl_sym dims[256];
    int ax = 0;
    if (x->shape.rank >= 0) {
        if ((st = norm_axis(c, n, axis, x->shape.rank, "attr 'axis'", &ax)) != FL_OK) {
            return st;
        }
        for (int i = 0; i < x->shape.rank; i++) {
            dims[i] = i < ax ? x->shape.dims[i] : fl_sym_const(1);
        }
    }
    for (int k = 1; k < n->n_outputs && st == FL_OK; k++) {
        /* SkipLayerNormalization's 4th output is the sum input + skip (+ bias). */
        bool full = n->kind == FL_OP_ONNX_MS_SKIP_LAYER_NORM && k == 3;
        int dt = (full || n->kind == FL_OP_ONNX_MS_SKIP_LAYER_NORM) ? fl_dtype_base(x->dtype)
                                                                    : FL_DT_FLOAT;
        st = fl__op_set_output(c, n, k, dt, x->shape.rank, full ? x->shape.dims : dims);
    }
    return st;
}

static fl_status cost_layer_norm(fl_ctx *c, const fl_node *n, fl_cost *out) {
    fl_arith k = {c, n, FL_OK};
    const fl_shape *x = fl__op_in_shape(n, 0);
    int64_t axis = -1;
    fl_status st = FL_OK;
    if (n->kind != FL_OP_ONNX_MS_SKIP_LAYER_NORM) {
        st = fl__attr_int_or(n, "axis", -1, &axis, c->d);
    }
    int ax = 0;
    if (st == FL_OK && x->rank >= 0) {
        st = norm_axis(c, n, axis, x->rank, "attr 'axis'", &ax);
    }
    if (st != FL_OK) {
        return st;
    }
    fl_sym e = fl__ar_numel(&k, x);
    fl_sym rows = x->rank >= 0 ? fl__ar_dims_prod(&k, x, 0, ax) : fl_sym_unknown();
    int64_t per;
    switch (n->kind) {
    case FL_OP_ONNX_SIMPLIFIED_LAYER_NORM:
        per = 4;
        break;
    case FL_OP_ONNX_MS_SKIP_LAYER_NORM:
        /* skip add, layer norm with gamma, optional beta (input 3) and
         * bias (input 4) */
        per = 1 + 6 + !absent(n, 3) + !absent(n, 4);
        break;
    default:
        per = 6 + !absent(n, 2);
        break;
    }
    fl_sym f = fl__ar_add(&k, fl__ar_scale(&k, e, per), fl__ar_scale(&k, rows, 2));
    return fl__ar_put_cost(&k, out, f, fl_sym_const(0));
}

/* ------------------------------------------------------------------------- */
/* Shape manipulation                                                         */
/* ------------------------------------------------------------------------- */

static fl_status infer_shape_op(fl_ctx *c, fl_node *n) {
    const fl_shape *x = fl__op_in_shape(n, 0);
    if (x->rank < 0) {
        return fl__op_set_output_rank(c, n, 0, FL_DT_INT64, 1);
    }
    int64_t start, end;
    fl_status st;
    if ((st = fl__attr_int_or(n, "start", 0, &start, c->d)) != FL_OK ||
        (st = fl__attr_int_or(n, "end", x->rank, &end, c->d)) != FL_OK) {
        return st;
    }
    start = start < 0 ? start + x->rank : start;
    end = end < 0 ? end + x->rank : end;
    start = start < 0 ? 0 : (start > x->rank ? x->rank : start);
    end = end < 0 ? 0 : (end > x->rank ? x->rank : end);
    int64_t len = end > start ? end - start : 0;
    fl_sym ld = fl_sym_const(len);
    if ((st = fl__op_set_output(c, n, 0, FL_DT_INT64, 1, &ld)) != FL_OK) {
        return st;
    }
    for (int64_t i = start; i < end; i++) {
        if (fl_sym_is_unknown(x->dims[i])) {
            return FL_OK;
        }
    }
    fl_value *v;
    if ((st = new_out_value(c, n, 0, &v)) != FL_OK || !v) {
        return st;
    }
    for (int64_t i = 0; i < len; i++) {
        ((fl_sym *)v->ints)[i] = x->dims[start + i];
    }
    fl__op_set_value(n, 0, v);
    return FL_OK;
}

static fl_status infer_size(fl_ctx *c, fl_node *n) {
    fl_sym e;
    fl_status st = fl__op_num_elements(c, n, fl__op_in_shape(n, 0), &e);
    if (st == FL_OK) {
        st = fl__op_set_output(c, n, 0, FL_DT_INT64, 0, NULL);
    }
    fl_value *v;
    if (st != FL_OK || fl_sym_is_unknown(e) || (st = new_out_value(c, n, 0, &v)) != FL_OK || !v) {
        return st;
    }
    ((fl_sym *)v->ints)[0] = e;
    fl__op_set_value(n, 0, v);
    return FL_OK;
}

static fl_status infer_flatten(fl_ctx *c, fl_node *n) {
    const fl_shape *x = fl__op_in_shape(n, 0);
    int64_t axis;
    fl_status st = fl__attr_int_or(n, "axis", 1, &axis, c->d);
    if (st != FL_OK) {
        return st;
    }
    if (x->rank < 0) {
        return fl__op_set_output_rank(c, n, 0, in_dtype(n, 0), 2);
    }
    if (axis < -(int64_t)x->rank || axis > x->rank) {
        return fl__node_fail(c->d, FL_EINVAL, n, "attr 'axis' %lld is out of range for rank %d",
                             (long long)axis, x->rank);
    }
    int ax = (int)(axis < 0 ? axis + x->rank : axis);
    fl_arith k = {c, n, FL_OK};
    fl_sym dims[2] = {fl__ar_dims_prod(&k, x, 0, ax), fl__ar_dims_prod(&k, x, ax, x->rank)};
    if (k.st != FL_OK) {
        return k.st;
    }
    return fl__op_set_output(c, n, 0, in_dtype(n, 0), 2, dims);
}

static fl_status infer_reshape(fl_ctx *c, fl_node *n) {
    const fl_shape *x = fl__op_in_shape(n, 0);
    int dt = in_dtype(n, 0);
    fl_shape want;
    fl_status st = shape_from_input(c, n, 1, &want);
    if (st != FL_OK) {
        return st;
    }
    if (!want.dims) {
        return fl__op_set_output_rank(c, n, 0, dt, want.rank);
    }
    int64_t allowzero;
    if ((st = fl__attr_int_or(n, "allowzero", 0, &allowzero, c->d)) != FL_OK) {
        return st;
    }
    fl_sym *d = fl__arena_calloc(c->a, (size_t)want.rank + 1, sizeof(fl_sym));
    if (!d) {
        return fl__diag_oom(c->d);
    }
    int infer_at = -1;
    fl_arith k = {c, n, FL_OK};
    fl_sym known = fl_sym_const(1);
    for (int i = 0; i < want.rank; i++) {
        fl_sym v = want.dims[i];
        if (known_eq(v, 0) && !allowzero) {
            v = (x->rank >= 0 && i < x->rank) ? x->dims[i] : fl_sym_unknown();
            if (x->rank >= 0 && i >= x->rank) {
                return fl__node_fail(c->d, FL_EINVAL, n,
                                     "shape entry %d is 0 (copy) but the input has rank %d", i,
                                     x->rank);
            }
        } else if (known_eq(v, -1)) {
            if (infer_at >= 0) {
                return fl__node_fail(c->d, FL_EINVAL, n, "shape has more than one -1");
            }
            infer_at = i;
            continue;
        } else if (fl_sym_is_known(v) && v.k < 0) {
            return fl__node_fail(c->d, FL_EINVAL, n, "shape entry %d is %lld", i, (long long)v.k);
        }
        d[i] = v;
        known = fl__ar_mul(&k, known, v);
    }
    if (k.st != FL_OK) {
        return k.st;
    }
    if (infer_at >= 0) {
        fl_sym total = fl__ar_numel(&k, x), q = fl_sym_unknown();
        bool exact = false;
        if (k.st != FL_OK) {
            return k.st;
        }
        if (!fl_sym_is_unknown(total) && !fl_sym_is_unknown(known) && !known_eq(known, 0)) {
            if (fl__sym_div(c->st, total, known, &q, &exact) != FL_OK || !exact) {
                if (fl_sym_is_known(total) && fl_sym_is_known(known)) {
                    return fl__node_fail(c->d, FL_EINVAL, n,
                                         "cannot reshape %lld elements into a shape with %lld "
                                         "elements per -1 entry",
                                         (long long)total.k, (long long)known.k);
                }
                q = fl_sym_unknown();
            }
        }
        d[infer_at] = q;
    } else {
        fl_sym total = fl__ar_numel(&k, x);
        if (fl_sym_is_known(total) && fl_sym_is_known(known) && total.k != known.k) {
            return fl__node_fail(c->d, FL_EINVAL, n,
                                 "cannot reshape %lld elements into a shape of %lld elements",
                                 (long long)total.k, (long long)known.k);
        }
    }
    return fl__op_set_output(c, n, 0, dt, want.rank, d);
}

static fl_status infer_transpose(fl_ctx *c, fl_node *n) {
    const fl_shape *x = fl__op_in_shape(n, 0);
    const int64_t *perm;
    size_t cnt;
    fl_status st = fl__attr_get_ints(n, "perm", &perm, &cnt, c->d);
    if (st != FL_OK && st != FL_ENOTFOUND) {
        return st;
    }
    bool have = st == FL_OK;
    int rank = have ? (int)cnt : x->rank;
    if (rank < 0 || rank > 254) {
        return fl__op_set_output(c, n, 0, in_dtype(n, 0), -1, NULL);
    }
    if (x->rank >= 0 && x->rank != rank) {
        return fl__node_fail(c->d, FL_EINVAL, n,
                             "attr 'perm' has %d entries but the input has rank %d", rank, x->rank);
    }
    fl_sym dims[256];
    bool seen[256] = {false};
    for (int i = 0; i < rank; i++) {
        int64_t p = have ? perm[i] : rank - 1 - i;
        if (p < 0 || p >= rank || seen[p]) {
            return fl__node_fail(c->d, FL_EINVAL, n, "attr 'perm' is not a permutation");
        }
        seen[p] = true;
        dims[i] = x->rank >= 0 ? x->dims[p] : fl_sym_unknown();
    }
    return fl__op_set_output(c, n, 0, in_dtype(n, 0), rank, dims);
}

/* Unsqueeze/Squeeze axes: input 1 or attr 'axes'. */
static fl_status get_axes(fl_ctx *c, const fl_node *n, const int64_t **axes, int64_t *cnt,
                          bool *found) {
    return ints_in_or_attr(c, n, 1, "axes", axes, cnt, found);
}

static fl_status infer_unsqueeze(fl_ctx *c, fl_node *n) {
    const fl_shape *x = fl__op_in_shape(n, 0);
    const int64_t *axes;
    int64_t na;
    bool found;
    fl_status st = get_axes(c, n, &axes, &na, &found);
    if (st == FL_ENOTFOUND || x->rank < 0) {
        return fl__op_set_output(c, n, 0, in_dtype(n, 0), -1, NULL);
    }
    if (st != FL_OK) {
        return st;
    }
    if (!found) {
        return fl__node_fail(c->d, FL_EINVAL, n, "missing 'axes' (input 1 or attr)");
    }
    int r = x->rank + (int)na;
    if (na > 254 || r > 254) {
        return fl__node_fail(c->d, FL_EINVAL, n, "result rank %d is too large", r);
    }
    bool mark[256] = {false};
    for (int64_t i = 0; i < na; i++) {
        int ax = 0;
        if ((st = norm_axis(c, n, axes[i], r, "axis", &ax)) != FL_OK) {
            return st;
        }
        if (mark[ax]) {
            return fl__node_fail(c->d, FL_EINVAL, n, "axis %lld appears twice", (long long)axes[i]);
        }
        mark[ax] = true;
    }
    fl_sym dims[256];
    for (int i = 0, j = 0; i < r; i++) {
        dims[i] = mark[i] ? fl_sym_const(1) : x->dims[j++];
    }
    return fl__op_set_output(c, n, 0, in_dtype(n, 0), r, dims);
}

static fl_status infer_squeeze(fl_ctx *c, fl_node *n) {
    const fl_shape *x = fl__op_in_shape(n, 0);
    const int64_t *axes;
    int64_t na;
    bool found;
    fl_status st = get_axes(c, n, &axes, &na, &found);
    if (st == FL_ENOTFOUND || x->rank < 0) {
        return fl__op_set_output(c, n, 0, in_dtype(n, 0), -1, NULL);
    }
    if (st != FL_OK) {
        return st;
    }
    bool drop[256] = {false};
    if (found) {
        for (int64_t i = 0; i < na; i++) {
            int ax = 0;
            if ((st = norm_axis(c, n, axes[i], x->rank, "axis", &ax)) != FL_OK) {
                return st;
            }
            if (fl_sym_is_known(x->dims[ax]) && x->dims[ax].k != 1) {
                return fl__node_fail(c->d, FL_EINVAL, n, "cannot squeeze dim %d of size %lld", ax,
                                     (long long)x->dims[ax].k);
            }
            drop[ax] = true;
        }
    } else {
        for (int i = 0; i < x->rank; i++) {
            if (fl_sym_is_unknown(x->dims[i])) {
                return fl__op_set_output(c, n, 0, in_dtype(n, 0), -1, NULL);
            }
            drop[i] = known_eq(x->dims[i], 1);
        }
    }
    fl_sym dims[256];
    int r = 0;
    for (int i = 0; i < x->rank; i++) {
        if (!drop[i]) {
            dims[r++] = x->dims[i];
        }
    }
    return fl__op_set_output(c, n, 0, in_dtype(n, 0), r, dims);
}

static fl_status infer_concat(fl_ctx *c, fl_node *n) {
    int64_t axis;
    fl_status st = fl__attr_need_int(n, "axis", &axis, c->d);
    if (st != FL_OK) {
        return st;
    }
    int rank = -1;
    for (int i = 0; i < n->n_inputs; i++) {
        int r = fl__op_in_shape(n, i)->rank;
        if (r >= 0 && rank >= 0 && r != rank) {
            return fl__node_fail(c->d, FL_EINVAL, n, "inputs have ranks %d and %d", rank, r);
        }
        rank = r >= 0 ? r : rank;
    }
    if (rank < 0) {
        return fl__op_set_output(c, n, 0, in_dtype(n, 0), -1, NULL);
    }
    int ax = 0;
    if ((st = norm_axis(c, n, axis, rank, "attr 'axis'", &ax)) != FL_OK) {
        return st;
    }
    fl_sym *d = fl__arena_calloc(c->a, (size_t)rank + 1, sizeof(fl_sym));
    if (!d) {
        return fl__diag_oom(c->d);
    }
    for (int j = 0; j < rank; j++) {
        d[j] = j == ax ? fl_sym_const(0) : fl_sym_unknown();
    }
    fl_arith k = {c, n, FL_OK};
    for (int i = 0; i < n->n_inputs; i++) {
        const fl_shape *s = fl__op_in_shape(n, i);
        for (int j = 0; j < rank; j++) {
            fl_sym v = s->rank >= 0 ? s->dims[j] : fl_sym_unknown();
            if (j == ax) {
                d[j] = fl__ar_add(&k, d[j], v);
            } else if ((st = fl__op_merge_dim(c, n, d[j], v, "concatenated dims", &d[j])) !=
                       FL_OK) {
                return st;
            }
        }
    }
    if (k.st != FL_OK) {
        return k.st;
    }
    return fl__op_set_output(c, n, 0, in_dtype(n, 0), rank, d);
}

static fl_status eval_concat(fl_ctx *c, fl_node *n) {
    const fl_tensor *t = &n->outputs[0];
    fl_value *v;
    fl_status st = new_out_value(c, n, 0, &v);
    if (st != FL_OK || !v) {
        return st;
    }
    int64_t axis;
    int ax = 0;
    if (fl__attr_need_int(n, "axis", &axis, c->d) != FL_OK ||
        norm_axis(c, n, axis, t->shape.rank, "attr 'axis'", &ax) != FL_OK) {
        return c->d->status;
    }
    int64_t outer = 1;
    for (int j = 0; j < ax; j++) {
        outer *= t->shape.dims[j].k;
    }
    int64_t pos = 0;
    for (int64_t o = 0; o < outer; o++) {
        for (int i = 0; i < n->n_inputs; i++) {
            const fl_value *in = fl_op_in_value(n, i);
            if (!in || in->dtype != v->dtype || in->rank != t->shape.rank) {
                return FL_OK;
            }
            int64_t chunk = outer ? in->n / outer : 0;
            for (int64_t e = 0; e < chunk; e++) {
                if (pos >= v->n) {
                    return FL_OK;
                }
                copy_elem(v, pos++, in, o * chunk + e);
            }
        }
    }
    if (pos == v->n) {
        fl__op_set_value(n, 0, v);
    }
    return FL_OK;
}

static fl_status infer_split(fl_ctx *c, fl_node *n) {
    const fl_shape *x = fl__op_in_shape(n, 0);
    int dt = in_dtype(n, 0);
    int64_t axis;
    fl_status st = fl__attr_int_or(n, "axis", 0, &axis, c->d);
    if (st != FL_OK) {
        return st;
    }
    if (x->rank < 0) {
        for (int k = 0; k < n->n_outputs && st == FL_OK; k++) {
            st = fl__op_set_output(c, n, k, dt, -1, NULL);
        }
        return st;
    }
    int ax = 0;
    if ((st = norm_axis(c, n, axis, x->rank, "attr 'axis'", &ax)) != FL_OK) {
        return st;
    }
    const int64_t *split;
    int64_t ns;
    bool found;
    st = ints_in_or_attr(c, n, 1, "split", &split, &ns, &found);
    bool unknown_split = st == FL_ENOTFOUND;
    if (st != FL_OK && !unknown_split) {
        return st;
    }
    if (found && !unknown_split && ns != n->n_outputs) {
        return fl__node_fail(c->d, FL_EINVAL, n, "'split' has %lld entries for %d outputs",
                             (long long)ns, n->n_outputs);
    }
    fl_sym dim = x->dims[ax], sum = fl_sym_const(0);
    fl_sym *d = fl__arena_calloc(c->a, (size_t)x->rank * (size_t)n->n_outputs + 1, sizeof(fl_sym));
    if (!d) {
        return fl__diag_oom(c->d);
    }
    fl_arith k = {c, n, FL_OK};
    for (int o = 0; o < n->n_outputs; o++) {
        fl_sym *od = d + (size_t)o * (size_t)x->rank;
        memcpy(od, x->dims, (size_t)x->rank * sizeof(fl_sym));
        fl_sym part = fl_sym_unknown();
        if (found && !unknown_split) {
            if (split[o] < 0) {
                return fl__node_fail(c->d, FL_EINVAL, n, "'split' entry %d is negative", o);
            }
            part = fl_sym_const(split[o]);
        } else if (!found && fl_sym_is_known(dim)) {
            int64_t chunk = (dim.k + n->n_outputs - 1) / n->n_outputs;
            int64_t rest = dim.k - chunk * o;
            part = fl_sym_const(rest < 0 ? 0 : (rest < chunk ? rest : chunk));
        } else if (!found && !fl_sym_is_unknown(dim)) {
            bool exact;
            fl_sym q;
            if (fl__sym_div(c->st, dim, fl_sym_const(n->n_outputs), &q, &exact) == FL_OK && exact) {
                part = q;
            }
        }
        od[ax] = part;
        sum = fl__ar_add(&k, sum, part);
        if ((st = fl__op_set_output(c, n, o, dt, x->rank, od)) != FL_OK) {
            return st;
        }
    }
    if (k.st != FL_OK) {
        return k.st;
    }
    if (fl_sym_is_known(sum) && fl_sym_is_known(dim) && sum.k != dim.k) {
        return fl__node_fail(c->d, FL_EINVAL, n, "'split' sums to %lld but dim %d is %lld",
                             (long long)sum.k, ax, (long long)dim.k);
    }
    return FL_OK;
}

/* Slice: per-axis start, step and length of the result. */
typedef struct slice_plan {
    int rank;
    fl_sym len[256];
    int64_t start[256], step[256]; /* meaningful where the dim is concrete */
    bool concrete;
} slice_plan;

/* Starts/ends/axes/steps: inputs 1..4 (opset >= 10) or attrs. Elements of
 * starts/ends may be symbolic. */
static fl_status slice_params(fl_ctx *c, const fl_node *n, const fl_sym **starts,
                              const fl_sym **ends, int64_t *cnt, const int64_t **axes,
                              const int64_t **steps, bool *known) {
    fl_status st;
    *known = false;
    int64_t ns = 0, ne = 0, na = 0, nst = 0;
    *axes = NULL;
    *steps = NULL;
    if (n->n_inputs >= 3) {
        st = fl__op_in_sym_vector(c, n, 1, starts, &ns);
        if (st == FL_OK) {
            st = fl__op_in_sym_vector(c, n, 2, ends, &ne);
        }
        if (st == FL_ENOTFOUND) {
            return FL_OK;
        }
        if (st != FL_OK) {
            return st;
        }
    } else {
        const int64_t *s, *e;
        size_t a, b;
        if ((st = fl__attr_need_ints(n, "starts", &s, &a, c->d)) != FL_OK ||
            (st = fl__attr_need_ints(n, "ends", &e, &b, c->d)) != FL_OK) {
            return st;
        }
        fl_sym *ss = fl__arena_calloc(c->a, a + b + 1, sizeof(fl_sym));
        if (!ss) {
            return fl__diag_oom(c->d);
        }
        for (size_t i = 0; i < a + b; i++) {
            ss[i] = fl_sym_const(i < a ? s[i] : e[i - a]);
        }
        *starts = ss;
        *ends = ss + a;
        ns = (int64_t)a;
        ne = (int64_t)b;
    }
    if (ns != ne) {
        return fl__node_fail(c->d, FL_EINVAL, n, "starts has %lld entries but ends %lld",
                             (long long)ns, (long long)ne);
    }
    bool found;
    st = ints_in_or_attr(c, n, 3, "axes", axes, &na, &found);
    if (st == FL_ENOTFOUND) {
        return FL_OK;
    }
    if (st != FL_OK) {
        return st;
    }
    if (found && na != ns) {
        return fl__node_fail(c->d, FL_EINVAL, n, "axes has %lld entries but starts %lld",
                             (long long)na, (long long)ns);
    }
    if (!found) {
        *axes = NULL;
    }
    if (!absent(n, 4)) {
        int64_t *sv;
        st = fl__op_in_int_vector(c, n, 4, &sv, &nst);
        if (st == FL_ENOTFOUND) {
            return FL_OK;
        }
        if (st != FL_OK) {
            return st;
        }
        if (nst != ns) {
            return fl__node_fail(c->d, FL_EINVAL, n, "steps has %lld entries but starts %lld",
                                 (long long)nst, (long long)ns);
        }
        *steps = sv;
    }
    *cnt = ns;
    *known = true;
    return FL_OK;
}

static int64_t clamp64(int64_t v, int64_t lo, int64_t hi) {
    return v < lo ? lo : (v > hi ? hi : v);
}

static fl_status slice_plan_of(fl_ctx *c, const fl_node *n, slice_plan *p, bool *ok) {
    const fl_shape *x = fl__op_in_shape(n, 0);
    const fl_sym *starts, *ends;
    const int64_t *axes, *steps;
    int64_t cnt = 0;
    *ok = false;
    if (x->rank < 0 || x->rank > 254) {
        return FL_OK;
    }
    fl_status st = slice_params(c, n, &starts, &ends, &cnt, &axes, &steps, ok);
    if (st != FL_OK || !*ok) {
        return st;
    }
    p->rank = x->rank;
    p->concrete = true;
    bool done[256] = {false};
    for (int i = 0; i < x->rank; i++) {
        p->len[i] = x->dims[i];
        p->start[i] = 0;
        p->step[i] = 1;
        p->concrete = p->concrete && fl_sym_is_known(x->dims[i]);
    }
    for (int64_t j = 0; j < cnt; j++) {
        int ax = 0;
        if ((st = norm_axis(c, n, axes ? axes[j] : j, x->rank, "slice axis", &ax)) != FL_OK) {
            return st;
        }
        if (done[ax]) {
            return fl__node_fail(c->d, FL_EINVAL, n, "slice axis %d appears twice", ax);
        }
        done[ax] = true;
        int64_t step = steps ? steps[j] : 1;
        if (step == 0) {
            return fl__node_fail(c->d, FL_EINVAL, n, "slice step is 0 on axis %d", ax);
        }
        p->step[ax] = step;
        fl_sym dim = x->dims[ax], s = starts[j], e = ends[j];
        if (fl_sym_is_known(dim) && fl_sym_is_known(s) && fl_sym_is_known(e)) {
            int64_t d = dim.k, sv = s.k, ev = e.k;
            sv = sv < 0 ? sv + d : sv; /* may stay negative: clamped below */
            ev = ev < 0 ? ev + d : ev;
            int64_t len;
            if (step > 0) {
                sv = clamp64(sv, 0, d);
                ev = clamp64(ev, 0, d);
                len = ev > sv ? (ev - sv + step - 1) / step : 0;
            } else {
                sv = clamp64(sv, -1, d - 1);
                ev = clamp64(ev, -1, d - 1);
                len = sv > ev ? (sv - ev + (-step) - 1) / (-step) : 0;
            }
            p->len[ax] = fl_sym_const(len);
            p->start[ax] = sv;
            continue;
        }
        p->concrete = false;
        /* Symbolic: assume starts/ends within range (step 1 or more). */
        if (step < 0 || fl_sym_is_unknown(dim) || fl_sym_is_unknown(s) || fl_sym_is_unknown(e)) {
            p->len[ax] = fl_sym_unknown();
            continue;
        }
        fl_sym s2 = s, e2 = e, diff;
        if (fl_sym_is_known(s) && s.k < 0) {
            st = fl__op_add(c, n, dim, s, &s2);
        }
        if (st == FL_OK && fl_sym_is_known(e) && (e.k >= (int64_t)1 << 30)) {
            e2 = dim;
        } else if (st == FL_OK && fl_sym_is_known(e) && e.k < 0) {
            st = fl__op_add(c, n, dim, e, &e2);
        }
        if (st == FL_OK) {
            st = fl__op_sub(c, n, e2, s2, &diff);
        }
        if (st == FL_OK) {
            st = fl__op_ceildiv(c, n, diff, fl_sym_const(step), &p->len[ax]);
        }
        if (st != FL_OK) {
            return st;
        }
    }
    return FL_OK;
}

static fl_status infer_slice(fl_ctx *c, fl_node *n) {
    slice_plan *p = fl__arena_alloc(c->a, sizeof(*p));
    if (!p) {
        return fl__diag_oom(c->d);
    }
    bool ok;
    fl_status st = slice_plan_of(c, n, p, &ok);
    if (st != FL_OK) {
        return st;
    }
    if (!ok) {
        int r = fl__op_in_shape(n, 0)->rank;
        return fl__op_set_output_rank(c, n, 0, in_dtype(n, 0), r);
    }
    return fl__op_set_output(c, n, 0, in_dtype(n, 0), p->rank, p->len);
}

static fl_status eval_slice(fl_ctx *c, fl_node *n) {
    const fl_value *in = fl_op_in_value(n, 0);
    slice_plan *p = fl__arena_alloc(c->a, sizeof(*p));
    if (!p) {
        return fl__diag_oom(c->d);
    }
    bool ok;
    fl_status st = slice_plan_of(c, n, p, &ok);
    fl_value *v;
    if (st != FL_OK || !ok || !p->concrete || !in || (st = new_out_value(c, n, 0, &v)) != FL_OK ||
        !v || v->dtype != in->dtype) {
        return st;
    }
    int64_t idx[256] = {0};
    for (int64_t o = 0; o < v->n; o++) {
        int64_t src = 0;
        for (int i = 0; i < p->rank; i++) {
            src = src * in->dims[i] + p->start[i] + idx[i] * p->step[i];
        }
        copy_elem(v, o, in, src);
        for (int i = p->rank - 1; i >= 0; i--) {
            if (++idx[i] < p->len[i].k) {
                break;
            }
            idx[i] = 0;
        }
    }
    fl__op_set_value(n, 0, v);
    return FL_OK;
}

static fl_status infer_gather(fl_ctx *c, fl_node *n) {
    const fl_shape *x = fl__op_in_shape(n, 0), *ind = fl__op_in_shape(n, 1);
    int64_t axis;
    fl_status st = fl__attr_int_or(n, "axis", 0, &axis, c->d);
    if (st != FL_OK) {
        return st;
    }
    int idt = in_dtype(n, 1);
    if (idt != FL_DT_INVALID && idt != FL_DT_INT32 && idt != FL_DT_INT64) {
        return fl__node_fail(c->d, FL_EINVAL, n, "input 'indices' must be int32 or int64, got %s",
                             fl__dtype_name(idt));
    }
    if (x->rank < 0 || ind->rank < 0) {
        return fl__op_set_output(c, n, 0, in_dtype(n, 0), -1, NULL);
    }
    int ax = 0;
    if ((st = norm_axis(c, n, axis, x->rank, "attr 'axis'", &ax)) != FL_OK) {
        return st;
    }
    int r = x->rank - 1 + ind->rank;
    if (r > 254) {
        return fl__node_fail(c->d, FL_EINVAL, n, "result rank %d is too large", r);
    }
    fl_sym dims[256];
    int j = 0;
    for (int i = 0; i < ax; i++) {
        dims[j++] = x->dims[i];
    }
    for (int i = 0; i < ind->rank; i++) {
        dims[j++] = ind->dims[i];
    }
    for (int i = ax + 1; i < x->rank; i++) {
        dims[j++] = x->dims[i];
    }
    return fl__op_set_output(c, n, 0, in_dtype(n, 0), r, dims);
}

static fl_status eval_gather(fl_ctx *c, fl_node *n) {
    const fl_value *x = fl_op_in_value(n, 0), *ind = fl_op_in_value(n, 1);
    fl_value *v;
    fl_status st = new_out_value(c, n, 0, &v);
    if (st != FL_OK || !v || !x || !ind || !ind->ints || v->dtype != x->dtype) {
        return st;
    }
    int64_t axis;
    int ax = 0;
    if (fl__attr_int_or(n, "axis", 0, &axis, c->d) != FL_OK ||
        norm_axis(c, n, axis, x->rank, "attr 'axis'", &ax) != FL_OK) {
        return c->d->status;
    }
    int64_t outer = 1, inner = 1, len = x->dims[ax];
    for (int i = 0; i < ax; i++) {
        outer *= x->dims[i];
    }
    for (int i = ax + 1; i < x->rank; i++) {
        inner *= x->dims[i];
    }
    for (int64_t o = 0, pos = 0; o < outer; o++) {
        for (int64_t j = 0; j < ind->n; j++) {
            fl_sym is = ind->ints[j];
            if (!fl_sym_is_known(is)) {
                return FL_OK;
            }
            int64_t q = is.k < 0 ? is.k + len : is.k;
            if (q < 0 || q >= len) {
                return fl__node_fail(c->d, FL_EINVAL, n, "index %lld is out of range [-%lld, %lld)",
                                     (long long)is.k, (long long)len, (long long)len);
            }
            for (int64_t i = 0; i < inner; i++) {
                copy_elem(v, pos++, x, (o * len + q) * inner + i);
            }
        }
    }
    fl__op_set_value(n, 0, v);
    return FL_OK;
}

/* Reductions: axes from input 1 (ReduceSum >= 13, all >= 18) or attr. */
static fl_status infer_reduce(fl_ctx *c, fl_node *n) {
    return fl__ox_infer_reduce(c, n);
}

static fl_status cost_reduce(fl_ctx *c, const fl_node *n, fl_cost *out) {
    fl_arith k = {c, n, FL_OK};
    fl_sym ein = fl__ar_numel(&k, fl__op_in_shape(n, 0));
    fl_sym f = ein;
    if (n->kind != FL_OP_ONNX_REDUCE_MEAN) {
        f = fl__ar_add(&k, ein, fl__ar_scale(&k, fl__ar_numel(&k, &n->outputs[0].shape), -1));
    }
    return fl__ar_put_cost(&k, out, f, fl_sym_const(0));
}

static fl_status infer_pad(fl_ctx *c, fl_node *n) {
    const fl_shape *x = fl__op_in_shape(n, 0);
    const int64_t *pads, *axes = NULL;
    int64_t np, na = 0;
    bool found, afound = false;
    fl_status st = ints_in_or_attr(c, n, 1, "pads", &pads, &np, &found);
    if (st == FL_OK && !absent(n, 3)) {
        st = ints_in_or_attr(c, n, 3, "axes", &axes, &na, &afound);
    }
    if (st == FL_ENOTFOUND || x->rank < 0) {
        return fl__op_set_output(c, n, 0, in_dtype(n, 0), x->rank, NULL);
    }
    if (st != FL_OK) {
        return st;
    }
    int cnt = afound ? (int)na : x->rank;
    if (!found || np != 2 * cnt) {
        return fl__node_fail(c->d, FL_EINVAL, n, "'pads' needs %d entries, got %lld", 2 * cnt,
                             (long long)np);
    }
    fl_sym dims[256];
    memcpy(dims, x->dims, (size_t)x->rank * sizeof(fl_sym));
    for (int j = 0; j < cnt; j++) {
        int ax = j;
        if (afound && (st = norm_axis(c, n, axes[j], x->rank, "axis", &ax)) != FL_OK) {
            return st;
        }
        if ((st = fl__op_add(c, n, dims[ax], fl_sym_const(pads[j] + pads[cnt + j]), &dims[ax])) !=
            FL_OK) {
            return st;
        }
    }
    return fl__op_set_output(c, n, 0, in_dtype(n, 0), x->rank, dims);
}

static fl_status infer_tile(fl_ctx *c, fl_node *n) {
    const fl_shape *x = fl__op_in_shape(n, 0);
    int64_t *rep, nr;
    fl_status st = fl__op_in_int_vector(c, n, 1, &rep, &nr);
    if (st == FL_ENOTFOUND || x->rank < 0) {
        return fl__op_set_output(c, n, 0, in_dtype(n, 0), x->rank, NULL);
    }
    if (st != FL_OK) {
        return st;
    }
    if (nr != x->rank) {
        return fl__node_fail(c->d, FL_EINVAL, n, "'repeats' has %lld entries for rank %d",
                             (long long)nr, x->rank);
    }
    fl_sym dims[256];
    for (int i = 0; i < x->rank; i++) {
        if ((st = fl__op_scale(c, n, x->dims[i], rep[i], &dims[i])) != FL_OK) {
            return st;
        }
    }
    return fl__op_set_output(c, n, 0, in_dtype(n, 0), x->rank, dims);
}

static int count_split(const fl_node *n, fl_diag *d) {
    (void)d;
    return n->n_outputs > 0 ? n->n_outputs : -1; /* the file's output list decides */
}

/* ------------------------------------------------------------------------- */
/* Hook sets and descriptors (their rows: the onnx lists of ops.def)          */
/* ------------------------------------------------------------------------- */

#define HOOKS_absent            .infer = infer_absent, .cost = fl__op_cost_zero
#define HOOKS_identity          .infer = infer_same, .eval = eval_copy, .cost = fl__op_cost_zero
#define HOOKS_dropout           .infer = infer_dropout, .eval = eval_dropout, .cost = fl__op_cost_zero
#define HOOKS_shape             .infer = infer_shape_op, .cost = fl__op_cost_zero
#define HOOKS_size              .infer = infer_size, .cost = fl__op_cost_zero
#define HOOKS_flatten           .infer = infer_flatten, .eval = eval_copy, .cost = fl__op_cost_zero
#define HOOKS_reshape           .infer = infer_reshape, .eval = eval_copy, .cost = fl__op_cost_zero
#define HOOKS_squeeze           .infer = infer_squeeze, .eval = eval_copy, .cost = fl__op_cost_zero
#define HOOKS_unsqueeze         .infer = infer_unsqueeze, .eval = eval_copy, .cost = fl__op_cost_zero
#define HOOKS_transpose         .infer = infer_transpose, .cost = fl__op_cost_zero
#define HOOKS_twin              .infer = infer_twin, .eval = eval_twin, .cost = cost_ew
#define HOOKS_variadic          .infer = infer_variadic, .cost = cost_variadic
#define HOOKS_prelu             .infer = infer_variadic, .cost = cost_ew2
#define HOOKS_unary             .infer = infer_unary_twin, .cost = cost_ew
#define HOOKS_clip              .infer = infer_same, .cost = cost_ew
#define HOOKS_cast              .infer = infer_cast, .eval = eval_twin, .cost = cost_ew
#define HOOKS_conv              .infer = infer_conv, .cost = cost_conv
#define HOOKS_pool              .infer = infer_pool, .cost = cost_pool
#define HOOKS_global_pool       .infer = infer_global_pool, .cost = cost_global_pool
#define HOOKS_gemm              .infer = infer_gemm, .cost = cost_gemm
#define HOOKS_matmul            .infer = infer_matmul, .cost = cost_matmul
#define HOOKS_batch_norm        .infer = infer_batch_norm, .cost = cost_bn
#define HOOKS_layer_norm        .infer = infer_layer_norm, .cost = cost_layer_norm
#define HOOKS_softmax           .infer = infer_same, .cost = cost_softmax
#define HOOKS_reduce            .infer = infer_reduce, .cost = cost_reduce
#define HOOKS_concat            .infer = infer_concat, .eval = eval_concat, .cost = fl__op_cost_zero
#define HOOKS_split             .count_outputs = count_split, .infer = infer_split, .cost = fl__op_cost_zero
#define HOOKS_slice             .infer = infer_slice, .eval = eval_slice, .cost = fl__op_cost_zero
#define HOOKS_gather            .infer = infer_gather, .eval = eval_gather, .cost = fl__op_cost_zero
#define HOOKS_expand            .infer = infer_expand, .cost = fl__op_cost_zero
#define HOOKS_pad               .infer = infer_pad, .cost = fl__op_cost_zero
#define HOOKS_tile              .infer = infer_tile, .cost = fl__op_cost_zero
#define HOOKS_constant_of_shape .infer = infer_constant_of_shape, .cost = fl__op_cost_zero
#define HOOKS_range             .infer = infer_twin, .eval = eval_twin, .cost = fl__op_cost_zero

#define FL_OP FL_OP_DESC
#include "ops/onnx/concat.def"
#include "ops/onnx/conv.def"
#include "ops/onnx/elementwise.def"
#include "ops/onnx/matmul.def"
#include "ops/onnx/norm.def"
#include "ops/onnx/pad_tile.def"
#include "ops/onnx/reduce.def"
#include "ops/onnx/shape.def"
#include "ops/onnx/slice.def"
#undef FL_OP
