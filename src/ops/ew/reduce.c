/*
 * reduce.c - reductions (Sum, Mean, Max, Min, Prod, All, Any) and ArgMax,
 * ArgMin (ew family).
 *
 * Shapes: TensorFlow's ReductionShape and ArgOpShape, with symbolic dims
 * carried. eval: Sum/Prod/Max/Min/Mean reductions (symbolic elements too),
 * accumulated in double for floats; ArgMax/ArgMin on known elements.
 *
 * FLOP rules ("complete" convention):
 *  - Sum, Max, Min, Prod, All, Any, ArgMax, ArgMin: E(in) - E(out).
 *  - Mean: E(in) (tfprof's formula E(in0) * 1 + E(out) * (1 - 1)).
 * tfprof convention (tfprof_flops): see cost.c. MACs: always 0.
 */
#include "ops/ew/ew.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Marks the axes of a known reduction_indices value in mask[rank]. */
static fl_status reduce_mask(fl_ctx *c, const fl_node *n, int rank, const fl_value *ax,
                             bool *mask) {
    for (int64_t i = 0; i < ax->n; i++) {
        int64_t a = ax->ints[i].k;
        if (a < -rank || a >= rank) {
            return fl__node_fail(c->d, FL_EINVAL, n,
                                 "input 'reduction_indices' holds %lld, out of range for an input "
                                 "of rank %d",
                                 (long long)a, rank);
        }
        mask[a < 0 ? a + rank : a] = true;
    }
    return FL_OK;
}

/* The reduction_indices value when every element is known, else NULL. */
static const fl_value *known_axes(const fl_node *n) {
    const fl_value *ax = fl_op_in_value(n, 1);
    if (!ax || !ax->ints) {
        return NULL;
    }
    for (int64_t i = 0; i < ax->n; i++) {
        if (!fl_sym_is_known(ax->ints[i])) {
            return NULL;
        }
    }
    return ax;
}

static fl_status infer_reduce(fl_ctx *c, fl_node *n) {
    const fl_shape *x = &fl_node_in(n, 0)->shape;
    const fl_shape *axs = &fl_node_in(n, 1)->shape;
    int dt = FL_DT_INVALID;
    fl_status st = fl__op_attr_dtype(c, n, "T", 0, &dt);
    if (st != FL_OK) {
        return st;
    }
    if (n->kind == FL_OP_ALL || n->kind == FL_OP_ANY) {
        dt = FL_DT_BOOL;
    }
    bool keep;
    st = fl__attr_bool_or(n, "keep_dims", false, &keep, c->d);
    if (st != FL_OK) {
        return st;
    }
    if (axs->rank > 1 && c->g && c->g->producer >= 21) {
        return fl__node_fail(c->d, FL_EINVAL, n,
                             "input 'reduction_indices' must be a scalar or vector, got rank %d",
                             axs->rank);
    }
    const fl_value *ax = known_axes(n);
    if (!ax || x->rank < 0) {
        return fl__op_set_output_rank(c, n, 0, dt, (keep && x->rank >= 0) ? x->rank : -1);
    }
    bool *mask = fl__arena_calloc(c->a, x->rank ? (size_t)x->rank : 1, sizeof(bool));
    fl_sym *d = fl__arena_calloc(c->a, x->rank ? (size_t)x->rank : 1, sizeof(fl_sym));
    if (!mask || !d) {
        return fl__diag_oom(c->d);
    }
    st = reduce_mask(c, n, x->rank, ax, mask);
    if (st != FL_OK) {
        return st;
    }
    int r = 0;
    for (int i = 0; i < x->rank; i++) {
        if (!mask[i]) {
            d[r++] = x->dims[i];
        } else if (keep) {
            d[r++] = fl_sym_const(1);
        }
    }
    return fl__op_set_output(c, n, 0, dt, r, d);
}

static int reduce_combine_kind(int kind) {
    switch (kind) {
    case FL_OP_SUM:
    case FL_OP_MEAN:
        return FL_OP_ADD;
    case FL_OP_PROD:
        return FL_OP_MUL;
    case FL_OP_MAX:
        return FL_OP_MAXIMUM;
    case FL_OP_MIN:
        return FL_OP_MINIMUM;
    case FL_OP_ALL:
        return FL_OP_LOGICAL_AND;
    default:
        return FL_OP_LOGICAL_OR;
    }
}

/* The value of an empty reduction. */
static bool reduce_identity(int kind, int dt, ew_num *r) {
    bool fl = fl__ew_vkind(dt) == VK_FLOAT;
    r->f = fl;
    r->x = 0;
    r->s = fl_sym_const(0);
    switch (kind) {
    case FL_OP_SUM:
    case FL_OP_ANY:
        return true;
    case FL_OP_PROD:
    case FL_OP_ALL:
        r->x = 1;
        r->s = fl_sym_const(1);
        return true;
    case FL_OP_MAX:
        r->x = -INFINITY;
        r->s = fl_sym_const(fl__ew_int_lowest(dt));
        return true;
    case FL_OP_MIN:
        r->x = INFINITY;
        r->s = fl_sym_const(fl__ew_int_highest(dt));
        return true;
    default:
        return false; /* Mean of nothing */
    }
}

static fl_status eval_reduce(fl_ctx *c, fl_node *n) {
    const fl_value *x = fl_op_in_value(n, 0);
    const fl_value *ax = known_axes(n);
    const fl_tensor *out = &n->outputs[0];
    if (!x || !ax || fl__ew_vkind(x->dtype) == VK_NONE || fl__ew_vkind(out->dtype) == VK_NONE ||
        !fl__shape_is_concrete(&out->shape)) {
        return FL_OK;
    }
    int rank = x->rank;
    bool keep;
    fl_status st = fl__attr_bool_or(n, "keep_dims", false, &keep, c->d);
    if (st != FL_OK) {
        return st;
    }
    bool *mask = fl__arena_calloc(c->a, rank ? (size_t)rank : 1, sizeof(bool));
    if (!mask) {
        return fl__diag_oom(c->d);
    }
    st = reduce_mask(c, n, rank, ax, mask);
    if (st != FL_OK) {
        return st;
    }
    /* The output shape must be what the mask gives. */
    int r = 0;
    for (int i = 0; i < rank; i++) {
        if (mask[i] && !keep) {
            continue;
        }
        int64_t want = mask[i] ? 1 : x->dims[i];
        if (r >= out->shape.rank || out->shape.dims[r].k != want) {
            return FL_OK;
        }
        r++;
    }
    if (r != out->shape.rank) {
        return FL_OK;
    }
    fl_value *v = fl__op_new_value(c, n, 0);
    if (!v) {
        return fl__ew_no_value(c);
    }
    ew_op o;
    memset(&o, 0, sizeof(o));
    o.c = c;
    o.kind = n->kind;
    o.in_dt = fl_dtype_base(x->dtype);
    o.out_dt = fl_dtype_base(v->dtype);
    ew_num *acc = fl__arena_scratch(c->a, v->n ? (size_t)v->n : 1, sizeof(ew_num));
    bool *seen = fl__arena_scratch(c->a, v->n ? (size_t)v->n : 1, sizeof(bool));
    if (!acc || !seen) {
        fl__arena_scratch_free(c->a, acc);
        fl__arena_scratch_free(c->a, seen);
        return fl__diag_oom(c->d);
    }
    int comb = reduce_combine_kind(n->kind);
    bool ok = true;
    for (int64_t i = 0; i < x->n && ok; i++) {
        /* Output index: the input coordinates without (or at 0 on) reduced axes. */
        int64_t rem = i, oidx = 0, ostride = 1;
        for (int d = rank - 1; d >= 0; d--) {
            int64_t coord = rem % x->dims[d];
            rem /= x->dims[d];
            if (!mask[d]) {
                oidx += coord * ostride;
                ostride *= x->dims[d];
            }
        }
        ew_num e, t;
        ok = fl__ew_get_num(x, i, &e);
        if (ok && !seen[oidx]) {
            /* The first element seeds the accumulator (no max(lowest, N) atoms). */
            acc[oidx] = e;
            seen[oidx] = true;
        } else if (ok) {
            ok = fl__ew_bin_apply(&o, comb, &acc[oidx], &e, &t);
            if (ok) {
                acc[oidx] = t;
            }
        }
    }
    int64_t count = v->n ? x->n / v->n : 0;
    for (int64_t i = 0; i < v->n && ok; i++) {
        if (!seen[i]) {
            ok = reduce_identity(n->kind, x->dtype, &acc[i]);
        } else if (n->kind == FL_OP_MEAN) {
            if (acc[i].f) {
                acc[i].x /= (double)count;
            } else {
                ew_num cnt = {false, 0, fl_sym_const(count)}, t;
                ok = fl__ew_bin_apply(&o, FL_OP_DIV, &acc[i], &cnt, &t);
                if (ok) {
                    acc[i] = t;
                }
            }
        }
        if (ok) {
            ok = fl__ew_put_num(v, i, &acc[i]);
        }
    }
    fl__arena_scratch_free(c->a, seen);
    fl__arena_scratch_free(c->a, acc);
    if (ok) {
        fl__op_set_value(n, 0, v);
    }
    return FL_OK;
}

static fl_status arg_output_type(fl_ctx *c, const fl_node *n, int *dt) {
    fl_status st = fl__attr_get_type(n, "output_type", dt, c->d);
    if (st == FL_ENOTFOUND) {
        *dt = FL_DT_INT64;
        return FL_OK;
    }
    if (st != FL_OK) {
        return st;
    }
    switch (*dt) {
    case FL_DT_INT16:
    case FL_DT_UINT16:
    case FL_DT_INT32:
    case FL_DT_INT64:
        return FL_OK;
    default:
        return fl__node_fail(c->d, FL_EINVAL, n,
                             "attr 'output_type' must be int16, uint16, int32 or int64, got %s",
                             fl__dtype_name(*dt));
    }
}

static fl_status infer_arg(fl_ctx *c, fl_node *n) {
    const fl_shape *x = &fl_node_in(n, 0)->shape;
    int dt = FL_DT_INVALID;
    fl_status st = arg_output_type(c, n, &dt);
    if (st == FL_OK) {
        st = fl__ew_want_scalar_or_one(c, n, 1, "dimension");
    }
    if (st != FL_OK) {
        return st;
    }
    if (x->rank < 0) {
        return fl__op_set_output_rank(c, n, 0, dt, -1);
    }
    if (x->rank <= 1) {
        return fl__op_set_output(c, n, 0, dt, 0, NULL);
    }
    int64_t a;
    if (!fl__ew_in_scalar_int(n, 1, &a)) {
        return fl__op_set_output_rank(c, n, 0, dt, x->rank - 1);
    }
    if (a < -x->rank || a >= x->rank) {
        return fl__node_fail(
            c->d, FL_EINVAL, n,
            "input 'dimension' is %lld, out of range [%d, %d) for the input's rank", (long long)a,
            -x->rank, x->rank);
    }
    if (a < 0) {
        a += x->rank;
    }
    fl_sym *d = fl__arena_calloc(c->a, (size_t)x->rank, sizeof(fl_sym));
    if (!d) {
        return fl__diag_oom(c->d);
    }
    int r = 0;
    for (int i = 0; i < x->rank; i++) {
        if (i != a) {
            d[r++] = x->dims[i];
        }
    }
    return fl__op_set_output(c, n, 0, dt, r, d);
}

/* Splits a value's dims around `axis` into outer * len * inner. */
void fl__ew_split_axis(const fl_value *x, int axis, int64_t *outer, int64_t *len, int64_t *inner) {
    *outer = 1;
    *inner = 1;
    for (int d = 0; d < axis; d++) {
        *outer *= x->dims[d];
    }
    for (int d = axis + 1; d < x->rank; d++) {
        *inner *= x->dims[d];
    }
    *len = x->dims[axis];
}

static fl_status eval_arg(fl_ctx *c, fl_node *n) {
    const fl_value *x = fl_op_in_value(n, 0);
    int64_t a;
    if (!x || x->rank < 1 || !fl__ew_in_scalar_int(n, 1, &a) || fl__ew_vkind(x->dtype) == VK_NONE ||
        fl__ew_vkind(x->dtype) == VK_BOOL) {
        return FL_OK;
    }
    if (a < -x->rank || a >= x->rank) {
        return FL_OK;
    }
    if (a < 0) {
        a += x->rank;
    }
    int64_t outer, len, inner;
    fl__ew_split_axis(x, (int)a, &outer, &len, &inner);
    if (len == 0) {
        return FL_OK; /* TF: reduction over an empty dimension fails */
    }
    const fl_tensor *out = &n->outputs[0];
    if (!fl__shape_is_concrete(&out->shape)) {
        return FL_OK;
    }
    int64_t cnt = 1;
    for (int i = 0; i < out->shape.rank; i++) {
        cnt *= out->shape.dims[i].k;
    }
    if (cnt != outer * inner) {
        return FL_OK;
    }
    fl_value *v = fl__op_new_value(c, n, 0);
    if (!v) {
        return fl__ew_no_value(c);
    }
    ew_op o;
    memset(&o, 0, sizeof(o));
    o.c = c;
    o.in_dt = fl_dtype_base(x->dtype);
    int better = n->kind == FL_OP_ARG_MAX ? FL_OP_GREATER : FL_OP_LESS;
    for (int64_t p = 0; p < outer; p++) {
        for (int64_t q = 0; q < inner; q++) {
            ew_num best, e;
            int64_t bi = 0;
            if (!fl__ew_get_num(x, p * len * inner + q, &best) || (best.f && isnan(best.x))) {
                return FL_OK;
            }
            for (int64_t l = 1; l < len; l++) {
                int res;
                if (!fl__ew_get_num(x, (p * len + l) * inner + q, &e) || (e.f && isnan(e.x)) ||
                    !fl__ew_cmp_apply(&o, better, &e, &best, &res)) {
                    return FL_OK;
                }
                if (res) {
                    best = e;
                    bi = l;
                }
            }
            ((fl_sym *)v->ints)[p * inner + q] =
                fl_sym_const(fl__ew_wrap_int(v->dtype, (uint64_t)bi));
        }
    }
    fl__op_set_value(n, 0, v);
    return FL_OK;
}

/* Hook sets and descriptors (their rows: ew/reduce.def). */
#define HOOKS_reduce .infer = infer_reduce, .eval = eval_reduce, .cost = fl__ew_cost
#define HOOKS_arg    .infer = infer_arg, .eval = eval_arg, .cost = fl__ew_cost

#define FL_OP FL_OP_DESC
#include "ops/ew/reduce.def"
#undef FL_OP
