/*
 * scan.c - Cumsum, Cumprod (ew family).
 *
 * Shape: the input's. eval: scans in the dtype (floats rounded after every
 * step), exclusive and reverse forms, symbolic elements carried.
 *
 * FLOP rules ("complete" convention): (L - 1) per scan line of length L =
 * E(in) - E(in)/L (exclusive scans counted the same).
 * tfprof convention (tfprof_flops): see cost.c. MACs: always 0.
 */
#include "ops/ew/ew.h"

#include <string.h>

static fl_status infer_cum(fl_ctx *c, fl_node *n) {
    const fl_tensor *x = fl_node_in(n, 0);
    int dt = FL_DT_INVALID;
    bool b;
    fl_status st = fl__op_attr_dtype(c, n, "T", 0, &dt);
    if (st == FL_OK) {
        st = fl__attr_bool_or(n, "exclusive", false, &b, c->d);
    }
    if (st == FL_OK) {
        st = fl__attr_bool_or(n, "reverse", false, &b, c->d);
    }
    if (st == FL_OK) {
        st = fl__ew_want_scalar_or_one(c, n, 1, "axis");
    }
    if (st != FL_OK) {
        return st;
    }
    int64_t a;
    if (x->shape.rank >= 0 && fl__ew_in_scalar_int(n, 1, &a) &&
        (a < -x->shape.rank || a >= x->shape.rank)) {
        return fl__node_fail(c->d, FL_EINVAL, n,
                             "input 'axis' is %lld, out of range [%d, %d) for the input's rank",
                             (long long)a, -x->shape.rank, x->shape.rank);
    }
    return fl__op_set_output(c, n, 0, dt, x->shape.rank, x->shape.dims);
}

static fl_status eval_cum(fl_ctx *c, fl_node *n) {
    const fl_value *x = fl_op_in_value(n, 0);
    int64_t a;
    if (!x || x->rank < 1 || !fl__ew_in_scalar_int(n, 1, &a) || fl__ew_vkind(x->dtype) == VK_NONE ||
        fl__ew_vkind(x->dtype) == VK_BOOL || a < -x->rank || a >= x->rank) {
        return FL_OK;
    }
    if (a < 0) {
        a += x->rank;
    }
    bool excl, rev;
    fl_status st = fl__attr_bool_or(n, "exclusive", false, &excl, c->d);
    if (st == FL_OK) {
        st = fl__attr_bool_or(n, "reverse", false, &rev, c->d);
    }
    if (st != FL_OK) {
        return st;
    }
    const fl_tensor *out = &n->outputs[0];
    if (!fl__shape_is_concrete(&out->shape) || out->shape.rank != x->rank) {
        return FL_OK;
    }
    for (int i = 0; i < x->rank; i++) {
        if (out->shape.dims[i].k != x->dims[i]) {
            return FL_OK;
        }
    }
    fl_value *v = fl__op_new_value(c, n, 0);
    if (!v) {
        return fl__ew_no_value(c);
    }
    ew_op o;
    memset(&o, 0, sizeof(o));
    o.c = c;
    o.in_dt = fl_dtype_base(x->dtype);
    int comb = n->kind == FL_OP_CUMSUM ? FL_OP_ADD : FL_OP_MUL;
    int64_t outer, len, inner;
    fl__ew_split_axis(x, (int)a, &outer, &len, &inner);
    bool fl = fl__ew_vkind(x->dtype) == VK_FLOAT;
    for (int64_t p = 0; p < outer; p++) {
        for (int64_t q = 0; q < inner; q++) {
            ew_num acc = {fl, comb == FL_OP_MUL ? 1.0 : 0.0,
                          fl_sym_const(comb == FL_OP_MUL ? 1 : 0)};
            for (int64_t l = 0; l < len; l++) {
                int64_t ll = rev ? len - 1 - l : l;
                int64_t idx = (p * len + ll) * inner + q;
                ew_num e, t;
                if (!fl__ew_get_num(x, idx, &e)) {
                    return FL_OK;
                }
                if (excl && !fl__ew_put_num(v, idx, &acc)) {
                    return FL_OK;
                }
                if (!fl__ew_bin_apply(&o, comb, &acc, &e, &t)) {
                    return FL_OK;
                }
                if (t.f) {
                    t.x = fl__ew_round_dt(o.in_dt, t.x);
                }
                acc = t;
                if (!excl && !fl__ew_put_num(v, idx, &acc)) {
                    return FL_OK;
                }
            }
        }
    }
    fl__op_set_value(n, 0, v);
    return FL_OK;
}

/* Hook sets and descriptors (their rows: ew/scan.def). */
#define HOOKS_cum .infer = infer_cum, .eval = eval_cum, .cost = fl__ew_cost

#define FL_OP FL_OP_DESC
#include "ops/ew/scan.def"
#undef FL_OP
