/*
 * onnx/shape.c - the absent-input marker, Identity, Dropout, Shape, Size,
 * Flatten, Reshape, Squeeze, Unsqueeze, Transpose (rules in onnx.h).
 */
#include "ops/array/array.h"
#include "ops/onnx/onnx.h"

#include <string.h>

/* ------------------------------------------------------------------------- */
/* The absent-input marker, Identity, unary ops                               */
/* ------------------------------------------------------------------------- */

static fl_status infer_absent(fl_ctx *c, fl_node *n) {
    fl_sym zero = fl_sym_const(0);
    return fl__op_set_output(c, n, 0, FL_DT_FLOAT, 1, &zero); /* an empty tensor: 0 bytes */
}

/* Clip(x, min?, max?), Dropout(x, ratio?, training_mode?) -> mask. */
static fl_status infer_dropout(fl_ctx *c, fl_node *n) {
    const fl_tensor *x = fl_node_in(n, 0);
    fl_status st =
        fl__op_set_output(c, n, 0, fl_dtype_base(x->dtype), x->shape.rank, x->shape.dims);
    /* Dropout's mask has the data's type through Dropout-7, bool from opset
     * 10 on (Clip has one output) */
    if (st == FL_OK) {
        int mdt = fl__ox_opset_before(c, 10) ? (int)fl_dtype_base(x->dtype) : FL_DT_BOOL;
        st = fl__ox_set_out(c, n, 1, mdt, x->shape.rank, x->shape.dims);
    }
    return st;
}

/* Dropout is the identity only in inference: with a training_mode input
 * that is (or may be) true its output is random, so no value. */
static fl_status eval_dropout(fl_ctx *c, fl_node *n) {
    if (!fl__ox_absent(n, 2)) {
        const fl_value *t = fl_op_in_value(n, 2);
        if (!t || t->n != 1 || !t->ints || !fl_sym_is_known(t->ints[0]) || t->ints[0].k != 0) {
            return FL_OK;
        }
    }
    return fl__onnx_eval_copy(c, n);
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
    if ((st = fl__onnx_new_out_value(c, n, 0, &v)) != FL_OK || !v) {
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
    if (st != FL_OK || fl_sym_is_unknown(e) ||
        (st = fl__onnx_new_out_value(c, n, 0, &v)) != FL_OK || !v) {
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
        return fl__op_set_output_rank(c, n, 0, fl__ox_in_dtype(n, 0), 2);
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
    return fl__op_set_output(c, n, 0, fl__ox_in_dtype(n, 0), 2, dims);
}

/* Reshape's target shape: input 1, or before opset 5 (Reshape-1, the data
 * its only input) attr shape. */
static fl_status reshape_target(fl_ctx *c, const fl_node *n, fl_shape *want) {
    if (!fl__ox_opset_before(c, 5)) {
        return fl__onnx_shape_from_input(c, n, 1, want);
    }
    const int64_t *v = NULL;
    size_t cnt = 0;
    fl_status st = fl__attr_get_ints(n, "shape", &v, &cnt, c->d);
    if (st == FL_ENOTFOUND) {
        return fl__node_fail(c->d, FL_EINVAL, n,
                             "attr 'shape' is missing (Reshape-1, opset %lld, takes the shape as "
                             "an attr)",
                             (long long)c->g->onnx.opset);
    }
    if (st != FL_OK) {
        return st;
    }
    if (cnt > 254) {
        return fl__node_fail(c->d, FL_EINVAL, n, "attr 'shape' has %zu entries", cnt);
    }
    want->rank = (int)cnt;
    want->dims = fl__arena_calloc(c->a, cnt + 1, sizeof(fl_sym));
    if (!want->dims) {
        return fl__diag_oom(c->d);
    }
    for (size_t i = 0; i < cnt; i++) {
        want->dims[i] = fl_sym_const(v[i]);
    }
    return FL_OK;
}

static fl_status infer_reshape(fl_ctx *c, fl_node *n) {
    const fl_shape *x = fl__op_in_shape(n, 0);
    int dt = fl__ox_in_dtype(n, 0);
    fl_shape want;
    fl_status st = reshape_target(c, n, &want);
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
        if (fl__onnx_known_eq(v, 0) && !allowzero) {
            v = (x->rank >= 0 && i < x->rank) ? x->dims[i] : fl_sym_unknown();
            if (x->rank >= 0 && i >= x->rank) {
                return fl__node_fail(c->d, FL_EINVAL, n,
                                     "shape entry %d is 0 (copy) but the input has rank %d", i,
                                     x->rank);
            }
        } else if (fl__onnx_known_eq(v, -1)) {
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
        if (!fl_sym_is_unknown(total) && !fl_sym_is_unknown(known) &&
            !fl__onnx_known_eq(known, 0)) {
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
        return fl__op_set_output(c, n, 0, fl__ox_in_dtype(n, 0), -1, NULL);
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
    return fl__op_set_output(c, n, 0, fl__ox_in_dtype(n, 0), rank, dims);
}

/* Constant evaluation (Shape chains permute int64 values, as torch's Pad export does with its
 * pads): the TensorFlow Transpose's element map, perm from the attr or reversed dims. */
static fl_status eval_transpose(fl_ctx *c, fl_node *n) {
    const fl_value *x = fl_op_in_value(n, 0);
    if (!x || x->rank < 0 || x->rank > 254) {
        return FL_OK;
    }
    const int64_t *perm;
    size_t cnt;
    fl_status st = fl__attr_get_ints(n, "perm", &perm, &cnt, c->d);
    if (st == FL_OK) {
        return fl__array_eval_permute(c, n, perm, (int64_t)cnt);
    }
    if (st != FL_ENOTFOUND) {
        return st;
    }
    int64_t rev[256];
    for (int i = 0; i < x->rank; i++) {
        rev[i] = x->rank - 1 - i;
    }
    return fl__array_eval_permute(c, n, rev, x->rank);
}

/* Unsqueeze/Squeeze axes: input 1 or attr 'axes'. */
static fl_status get_axes(fl_ctx *c, const fl_node *n, const int64_t **axes, int64_t *cnt,
                          bool *found) {
    return fl__ox_ints_in_or_attr(c, n, 1, "axes", axes, cnt, found);
}

static fl_status infer_unsqueeze(fl_ctx *c, fl_node *n) {
    const fl_shape *x = fl__op_in_shape(n, 0);
    const int64_t *axes;
    int64_t na;
    bool found;
    fl_status st = get_axes(c, n, &axes, &na, &found);
    if (st == FL_ENOTFOUND || x->rank < 0) {
        return fl__op_set_output(c, n, 0, fl__ox_in_dtype(n, 0), -1, NULL);
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
        if ((st = fl__ox_norm_axis(c, n, axes[i], r, "axis", &ax)) != FL_OK) {
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
    return fl__op_set_output(c, n, 0, fl__ox_in_dtype(n, 0), r, dims);
}

static fl_status infer_squeeze(fl_ctx *c, fl_node *n) {
    const fl_shape *x = fl__op_in_shape(n, 0);
    const int64_t *axes;
    int64_t na;
    bool found;
    fl_status st = get_axes(c, n, &axes, &na, &found);
    if (st == FL_ENOTFOUND || x->rank < 0) {
        return fl__op_set_output(c, n, 0, fl__ox_in_dtype(n, 0), -1, NULL);
    }
    if (st != FL_OK) {
        return st;
    }
    bool drop[256] = {false};
    if (found) {
        for (int64_t i = 0; i < na; i++) {
            int ax = 0;
            if ((st = fl__ox_norm_axis(c, n, axes[i], x->rank, "axis", &ax)) != FL_OK) {
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
                return fl__op_set_output(c, n, 0, fl__ox_in_dtype(n, 0), -1, NULL);
            }
            drop[i] = fl__onnx_known_eq(x->dims[i], 1);
        }
    }
    fl_sym dims[256];
    int r = 0;
    for (int i = 0; i < x->rank; i++) {
        if (!drop[i]) {
            dims[r++] = x->dims[i];
        }
    }
    return fl__op_set_output(c, n, 0, fl__ox_in_dtype(n, 0), r, dims);
}

/* Hook sets and descriptors (their rows: shape.def). */
#define HOOKS_absent .infer = infer_absent, .cost = fl__op_cost_zero
#define HOOKS_identity                                                                             \
    .infer = fl__ox_infer_same, .eval = fl__onnx_eval_copy, .cost = fl__op_cost_zero
#define HOOKS_dropout .infer = infer_dropout, .eval = eval_dropout, .cost = fl__op_cost_zero
#define HOOKS_shape   .infer = infer_shape_op, .cost = fl__op_cost_zero
#define HOOKS_size    .infer = infer_size, .cost = fl__op_cost_zero
#define HOOKS_flatten .infer = infer_flatten, .eval = fl__onnx_eval_copy, .cost = fl__op_cost_zero
#define HOOKS_reshape .infer = infer_reshape, .eval = fl__onnx_eval_copy, .cost = fl__op_cost_zero
#define HOOKS_squeeze .infer = infer_squeeze, .eval = fl__onnx_eval_copy, .cost = fl__op_cost_zero
#define HOOKS_unsqueeze                                                                            \
    .infer = infer_unsqueeze, .eval = fl__onnx_eval_copy, .cost = fl__op_cost_zero
#define HOOKS_transpose .infer = infer_transpose, .eval = eval_transpose, .cost = fl__op_cost_zero

#define FL_OP FL_OP_DESC
#include "ops/onnx/shape.def"
#undef FL_OP
