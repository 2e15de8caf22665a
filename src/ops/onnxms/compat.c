/*
 * compat.c - ONNX Runtime contrib operators (domain com.microsoft) that are
 * older forms of ai.onnx operators, kept so models exported before the
 * standard op existed still load: ExpandDims, GatherND, GridSample, Pad,
 * Range, Trilu, Unique, TransposeMatMul (FusedMatMul's former name),
 * MaxpoolWithMask and ConvTransposeWithDynamicPads.
 * Each reads as the ai.onnx operator it became, through that operator's
 * hooks, except where the contrib schema differs:
 *
 *   ExpandDims(X, axis)   axis an int32 scalar in [-r - 1, r] (r = X's
 *                         rank; negative counts from the back of the
 *                         result): X's shape with a 1 inserted there;
 *                         Unsqueeze's rule
 *   GatherND(data, indices)          GatherND-1 (no batch_dims)
 *   GridSample(X, Grid)   X 4-D only; GridSample-16 (modes bilinear,
 *                         nearest, bicubic)
 *   Pad(data, pads, value?)          Pad-11 (modes constant, reflect,
 *                         edge); pads 1-D [2r] or 2-D [1, 2r], begins then
 *                         ends, negative ones crop
 *   Range(start, limit, delta?)      Range-11; delta defaults to 1
 *   Trilu(X, k?)                     Trilu-14
 *   Unique(x)             1-D x; outputs y [U] (x's type), idx [E(x)]
 *                         (each element's index into y: ai.onnx Unique's
 *                         inverse_indices) and counts [U], both int64
 *   TransposeMatMul(A, B)            FusedMatMul (alpha, transA, transB)
 *   MaxpoolWithMask(X, M)            MaxPool of X (attrs kernel_shape,
 *                         pads, strides, auto_pad), Y only; M (int32)
 *                         masks which inputs may win
 *   ConvTransposeWithDynamicPads(X, W, Pads?, B?)   ConvTranspose (attrs
 *                         kernel_shape, output_padding, dilations, strides,
 *                         auto_pad, group; no output_shape) of X, W and B,
 *                         its pads read from input Pads: int64 [2 * spatial
 *                         dims], begins then ends, each >= 0; absent: none;
 *                         of unknown value: the spatial dims unknown
 *
 * FLOP rules: those of the ai.onnx operator (all data movement, 0, but
 * GridSample's interpolation, TransposeMatMul's 2 * MACs, MaxpoolWithMask's
 * MaxPool comparisons and ConvTranspose's MACs and bias).
 */
#include "ops/array/array.h"
#include "ops/onnxops/util.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

static const int in01[] = {0, 1}, in012[] = {0, 1, 2};

/* The ai.onnx operator each row reads as. */
static int standard_kind(const fl_node *n) {
    switch (n->kind) {
    case FL_OP_ONNX_MS_GATHER_ND:
        return FL_OP_ONNX_GATHER_ND;
    case FL_OP_ONNX_MS_GRID_SAMPLE:
        return FL_OP_ONNX_GRID_SAMPLE;
    case FL_OP_ONNX_MS_RANGE:
        return FL_OP_ONNX_RANGE;
    case FL_OP_ONNX_MS_TRILU:
        return FL_OP_ONNX_TRILU;
    case FL_OP_ONNX_MS_UNIQUE:
        return FL_OP_ONNX_UNIQUE;
    case FL_OP_ONNX_MS_MAXPOOL_WITH_MASK:
        return FL_OP_ONNX_MAX_POOL;
    default:
        return FL_OP_ONNX_MS_FUSED_MATMUL;
    }
}

/* How many of n's inputs the standard operator reads (MaxPool: X only). */
static int standard_inputs(const fl_node *n) {
    return n->kind == FL_OP_ONNX_MS_MAXPOOL_WITH_MASK ? 1 : n->n_inputs < 3 ? n->n_inputs : 3;
}

static fl_status infer_standard(fl_ctx *c, fl_node *n) {
    int kind = standard_kind(n);
    if (kind == FL_OP_ONNX_GRID_SAMPLE) {
        const fl_shape *x = fl__op_in_shape(n, 0);
        if (x->rank >= 0 && x->rank != 4) {
            return fl__node_fail(c->d, FL_EINVAL, n,
                                 "input 0 (X) has rank %d, want 4 ([N, C, H, W]; the contrib "
                                 "GridSample is 2-D only)",
                                 x->rank);
        }
    }
    return fl__ox_delegate(c, n, kind, in012, standard_inputs(n));
}

static fl_status cost_standard(fl_ctx *c, const fl_node *n, fl_cost *out) {
    return fl__ox_cost_delegate(c, n, standard_kind(n), in012, standard_inputs(n), out);
}

static fl_status infer_expand_dims(fl_ctx *c, fl_node *n) {
    const fl_shape *x = fl__op_in_shape(n, 0);
    int dt = fl__ox_in_dtype(n, 0);
    int64_t *ax, na;
    fl_status st = fl__op_want_scalar(c, n, 1, "axis");
    if (st == FL_OK) {
        st = fl__op_in_int_vector(c, n, 1, &ax, &na);
    }
    if (st == FL_ENOTFOUND || x->rank < 0) {
        return fl__op_set_output_rank(c, n, 0, dt, x->rank < 0 ? -1 : x->rank + 1);
    }
    if (st != FL_OK) {
        return st;
    }
    if (x->rank > 253) {
        return fl__node_fail(c->d, FL_EINVAL, n, "input 0 (X) has rank %d", x->rank);
    }
    int a;
    if ((st = fl__ox_norm_axis(c, n, ax[0], x->rank + 1, "input 'axis'", &a)) != FL_OK) {
        return st;
    }
    fl_sym d[256];
    memcpy(d, x->dims, (size_t)a * sizeof(fl_sym));
    d[a] = fl_sym_const(1);
    memcpy(d + a + 1, x->dims + a, (size_t)(x->rank - a) * sizeof(fl_sym));
    return fl__op_set_output(c, n, 0, dt, x->rank + 1, d);
}

/* Pad: ai.onnx Pad's reading, pads [1, 2r] through a 1-D view. */
static fl_status infer_pad(fl_ctx *c, fl_node *n) {
    static const char *const modes[] = {"constant", "reflect", "edge", NULL};
    int mode;
    fl_status st = fl__ox_attr_pick(c, n, "mode", "constant", modes, &mode);
    if (st != FL_OK) {
        return st;
    }
    const fl_shape *p = fl__op_in_shape(n, 1);
    if (p->rank >= 0 && p->rank != 1 &&
        !(p->rank == 2 && fl_sym_is_known(p->dims[0]) && p->dims[0].k == 1)) {
        return fl__node_fail(c->d, FL_EINVAL, n,
                             "input 1 (pads) has rank %d, want [2 * rank] or [1, 2 * rank]",
                             p->rank);
    }
    int pdt = fl__ox_in_dtype(n, 1);
    if (pdt != FL_DT_INVALID && !fl__dtype_is_integer(pdt)) {
        return fl__node_fail(c->d, FL_EINVAL, n, "input 1 (pads) is %s, want int64",
                             fl__dtype_name(pdt));
    }
    if (p->rank != 2) {
        return fl__ox_delegate(c, n, FL_OP_ONNX_PAD, in012, 3);
    }
    fl_tensor view = *fl_node_in(n, 1);
    fl_value v1;
    view.shape.rank = 1;
    view.shape.dims = p->dims + 1;
    if (view.value && view.value->rank == 2) {
        v1 = *view.value;
        v1.rank = 1;
        v1.dims = v1.dims + 1;
        view.value = &v1;
    }
    return fl__ox_delegate_view(c, n, FL_OP_ONNX_PAD, in012, 3, 1, &view);
}

/* Range without delta: start, start + 1, ... below limit (none when limit
 * <= start). */
static fl_status infer_range_step1(fl_ctx *c, fl_node *n) {
    fl_status st = fl__op_want_scalar(c, n, 0, "start");
    if (st == FL_OK) {
        st = fl__op_want_scalar(c, n, 1, "limit");
    }
    if (st != FL_OK) {
        return st;
    }
    int dt = fl__ox_in_dtype(n, 0);
    fl_sym len = fl_sym_unknown(), s, l;
    const fl_value *vs = fl_op_in_value(n, 0), *vl = fl_op_in_value(n, 1);
    double fs, fl;
    if (fl__dtype_is_integer(dt) && fl__array_scalar_sym(n, 0, &s) &&
        fl__array_scalar_sym(n, 1, &l)) {
        if (fl_sym_is_known(s) && fl_sym_is_known(l)) {
            uint64_t diff = l.k > s.k ? (uint64_t)l.k - (uint64_t)s.k : 0;
            if (diff > (uint64_t)INT64_MAX) {
                return fl__node_fail(c->d, FL_EINVAL, n,
                                     "start %lld, limit %lld: the range is too "
                                     "long",
                                     (long long)s.k, (long long)l.k);
            }
            len = fl_sym_const((int64_t)diff);
        } else if ((st = fl__op_sub(c, n, l, s, &len)) != FL_OK) {
            return st;
        }
    } else if (fl__dtype_is_float(dt) && vs && vl && vs->n == 1 && vl->n == 1 &&
               fl__value_f64(vs, 0, &fs) && fl__value_f64(vl, 0, &fl)) {
        double e = ceil(fl - fs);
        if (!(e < 9e15)) {
            return fl__node_fail(c->d, FL_EINVAL, n, "start %g, limit %g: the range is too long",
                                 fs, fl);
        }
        len = fl_sym_const(e > 0 ? (int64_t)e : 0);
    }
    return fl__op_set_output(c, n, 0, dt, 1, &len);
}

static fl_status infer_range(fl_ctx *c, fl_node *n) {
    return n->n_inputs < 3 || fl__ox_absent(n, 2) ? infer_range_step1(c, n) : infer_standard(c, n);
}

/* Unique: ai.onnx Unique's outputs y, indices [U], inverse_indices [E(x)]
 * are read, then ports 1 and 2 become idx [E(x)] and counts [U]. */
static fl_status infer_unique(fl_ctx *c, fl_node *n) {
    const fl_shape *x = fl__op_in_shape(n, 0);
    if (x->rank >= 0 && x->rank != 1) {
        return fl__node_fail(c->d, FL_EINVAL, n, "input 0 (x) has rank %d, want 1", x->rank);
    }
    static const int in0[] = {0};
    fl_status st = fl__ox_delegate(c, n, FL_OP_ONNX_UNIQUE, in0, 1);
    if (st != FL_OK || n->n_outputs < 3) {
        return st;
    }
    fl_sym u = n->outputs[0].shape.rank == 1 ? n->outputs[0].shape.dims[0] : fl_sym_unknown();
    fl_sym len = x->rank == 1 ? x->dims[0] : fl_sym_unknown();
    st = fl__op_set_output(c, n, 1, FL_DT_INT64, 1, &len);
    return st == FL_OK ? fl__op_set_output(c, n, 2, FL_DT_INT64, 1, &u) : st;
}

static fl_status infer_transpose_matmul(fl_ctx *c, fl_node *n) {
    return fl__ox_delegate(c, n, FL_OP_ONNX_MS_FUSED_MATMUL, in01, 2);
}

static const int ct_idx[] = {0, 1, 3}; /* X, W, B */

/* ConvTransposeWithDynamicPads: ai.onnx ConvTranspose on a stand-in of n
 * whose attr pads holds input Pads' values. */
static fl_status infer_ct_dyn_pads(fl_ctx *c, fl_node *n) {
    const fl_shape *x = fl__op_in_shape(n, 0), *ps = fl__op_in_shape(n, 2);
    if (fl__ox_absent(n, 2)) {
        return fl__ox_delegate(c, n, FL_OP_ONNX_CONV_TRANSPOSE, ct_idx, 3);
    }
    int pdt = fl__ox_in_dtype(n, 2);
    if (pdt != FL_DT_INVALID && pdt != FL_DT_INT64) {
        return fl__node_fail(c->d, FL_EINVAL, n, "input 2 (Pads) is %s, want int64",
                             fl__dtype_name(pdt));
    }
    if (ps->rank >= 0 && ps->rank != 1) {
        return fl__node_fail(c->d, FL_EINVAL, n,
                             "input 2 (Pads) has rank %d, want 1 ([2 * spatial dims])", ps->rank);
    }
    if (n->n_attrs > 64) {
        return fl__node_fail(c->d, FL_EINVAL, n, "%d attrs, over 64", n->n_attrs);
    }
    if (fl__node_attr(n, "output_shape") || fl__node_attr(n, "pads")) {
        return fl__node_fail(c->d, FL_EINVAL, n,
                             "attr '%s' is not one of ConvTransposeWithDynamicPads' (pads come "
                             "from input 2)",
                             fl__node_attr(n, "pads") ? "pads" : "output_shape");
    }
    const fl_value *v = fl_op_in_value(n, 2);
    fl_node stand = *n;
    fl_attr attrs[65];
    int64_t pads[2 * 16];
    if (x->rank >= 0 && v && fl__value_is_concrete(v)) {
        int ns = x->rank - 2;
        if (ns < 1 || ns > 16 || v->n != 2 * (int64_t)ns) {
            return fl__node_fail(c->d, FL_EINVAL, n,
                                 "input 2 (Pads) has %lld values, want %d (begins and ends of the "
                                 "spatial dims of X [N, C, ...] of rank %d)",
                                 (long long)v->n, 2 * (ns > 0 ? ns : 0), x->rank);
        }
        for (int i = 0; i < 2 * ns; i++) {
            fl_sym s = fl__value_int(v, i);
            if (!fl_sym_is_known(s) || s.k < 0 || s.k > INT32_MAX) {
                return fl__node_fail(c->d, FL_EINVAL, n,
                                     "input 2 (Pads) value %d is %s%lld (0 .. 2^31 - 1)", i,
                                     fl_sym_is_known(s) ? "" : "unknown ",
                                     (long long)(fl_sym_is_known(s) ? s.k : 0));
            }
            pads[i] = s.k;
        }
        attrs[0] = (fl_attr){.name = "pads",
                             .kind = FL_ATTR_LIST,
                             .list_kind = FL_ATTR_I,
                             .n = (size_t)(2 * ns),
                             .v.list.i = pads};
        memcpy(attrs + 1, n->attrs, (size_t)n->n_attrs * sizeof(fl_attr));
        stand.attrs = attrs;
        stand.n_attrs = n->n_attrs + 1;
        return fl__ox_delegate(c, &stand, FL_OP_ONNX_CONV_TRANSPOSE, ct_idx, 3);
    }
    /* Pads' values unknown: N and the channels as ConvTranspose gives them. */
    fl_status st = fl__ox_delegate(c, n, FL_OP_ONNX_CONV_TRANSPOSE, ct_idx, 3);
    const fl_shape *y = &n->outputs[0].shape;
    if (st != FL_OK || y->rank < 3 || y->rank > 18) {
        return st;
    }
    fl_sym d[18] = {y->dims[0], y->dims[1]};
    for (int i = 2; i < y->rank; i++) {
        d[i] = fl_sym_unknown();
    }
    return fl__op_set_output(c, n, 0, n->outputs[0].dtype, y->rank, d);
}

static fl_status cost_ct_dyn_pads(fl_ctx *c, const fl_node *n, fl_cost *out) {
    return fl__ox_cost_delegate(c, n, FL_OP_ONNX_CONV_TRANSPOSE, ct_idx, 3, out);
}

/* Hook sets and descriptors (their rows: onnxms/compat.def) */
#define HOOKS_standard    .infer = infer_standard, .cost = cost_standard
#define HOOKS_expand_dims .infer = infer_expand_dims, .cost = fl__op_cost_zero
#define HOOKS_ms_range    .infer = infer_range, .cost = fl__op_cost_zero
#define HOOKS_ms_pad      .infer = infer_pad, .cost = fl__op_cost_zero
#define HOOKS_ms_unique   .infer = infer_unique, .cost = cost_standard
#define HOOKS_tmatmul     .infer = infer_transpose_matmul, .cost = cost_standard
#define HOOKS_ct_dyn_pads .infer = infer_ct_dyn_pads, .cost = cost_ct_dyn_pads

#define FL_OP FL_OP_DESC
#include "ops/onnxms/compat.def"
#undef FL_OP
