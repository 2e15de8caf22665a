/*
 * nn/norm.c - LRN, _MklLayerNorm, _MklFusedInstanceNorm (rules in nn.h).
 */
#include "ops/nn/nn.h"

#include <inttypes.h>
#include <string.h>

/* ------------------------------------------------------------------------- */
/* LRN                                                                        */
/* ------------------------------------------------------------------------- */

static fl_status infer_lrn(fl_ctx *c, fl_node *n) {
    fl_status st;
    int dt = FL_DT_INVALID;
    int64_t r;
    if ((st = fl__op_attr_dtype(c, n, "T", 0, &dt)) != FL_OK ||
        (st = fl__attr_int_or(n, "depth_radius", 5, &r, c->d)) != FL_OK ||
        (st = fl__nn_need_rank(c, n, 0, "input", 4)) != FL_OK) {
        return st;
    }
    if (r < 0) {
        return fl__node_fail(c->d, FL_EINVAL, n,
                             "attr 'depth_radius' must be non-negative, got %lld", (long long)r);
    }
    const fl_shape *x = fl__op_in_shape(n, 0);
    if (x->rank < 0) {
        return fl__op_set_output_rank(c, n, 0, dt, 4);
    }
    return fl__op_pass_through(c, n, 0, 0);
}

static fl_status cost_lrn(fl_ctx *c, const fl_node *n, fl_cost *out) {
    int64_t r;
    fl_status st = fl__attr_int_or(n, "depth_radius", 5, &r, c->d);
    if (st != FL_OK) {
        return st;
    }
    if (r < 0 || r > (INT64_MAX - 5) / 4) {
        fl__ar_no_rule(out);
        return FL_OK;
    }
    return fl__nn_cost_per_out_elem(c, n, out, 4 * r + 5);
}

/* _MklLayerNorm / _MklFusedInstanceNorm (oneDNN): output like x, dtype T. */
static fl_status infer_mkl_norm(fl_ctx *c, fl_node *n) {
    int dt = FL_DT_INVALID;
    fl_status st = fl__op_attr_dtype(c, n, "T", 0, &dt);
    const fl_shape *x = fl__op_in_shape(n, 0);
    return st != FL_OK ? st : fl__op_set_output(c, n, 0, dt, x->rank, x->dims);
}

static fl_status cost_mkl_layer_norm(fl_ctx *c, const fl_node *n, fl_cost *out) {
    fl_arith k = {c, n, FL_OK};
    const fl_shape *x = fl__op_in_shape(n, 0);
    fl_sym e = fl__ar_numel(&k, x);
    fl_sym rows = x->rank >= 1 ? fl__ar_dims_prod(&k, x, 0, x->rank - 1) : fl_sym_unknown();
    fl_sym f = fl__ar_add(&k, fl__ar_scale(&k, e, 7), fl__ar_scale(&k, rows, 3));
    return fl__ar_put_cost_tf(&k, out, f, fl_sym_const(0), fl_sym_const(0), false);
}

static fl_status cost_mkl_instance_norm(fl_ctx *c, const fl_node *n, fl_cost *out) {
    fl_arith k = {c, n, FL_OK};
    const fl_shape *x = fl__op_in_shape(n, 0);
    const int64_t *axes = NULL;
    size_t n_axes = 0;
    fl_status st = fl__attr_get_ints(n, "reduction_axes", &axes, &n_axes, c->d);
    if (st != FL_OK && st != FL_ENOTFOUND) {
        return st;
    }
    fl_sym e = fl__ar_numel(&k, x), flops = fl_sym_unknown();
    if (st == FL_OK && x->rank >= 0 && x->rank <= 8) {
        fl_sym gd[8];
        for (int i = 0; i < x->rank; i++) {
            gd[i] = x->dims[i];
        }
        for (size_t i = 0; i < n_axes; i++) {
            int64_t a = axes[i] < 0 ? axes[i] + x->rank : axes[i];
            if (a < 0 || a >= x->rank) {
                return fl__node_fail(c->d, FL_EINVAL, n, "reduction axis %lld out of range",
                                     (long long)axes[i]);
            }
            gd[a] = fl_sym_const(1);
        }
        fl_shape gs = {x->rank, gd}, ms;
        if ((st = fl__op_broadcast(c, n, &gs, fl__op_in_shape(n, 1), &ms)) != FL_OK) {
            return st;
        }
        fl_sym g = fl__ar_numel(&k, &gs), m = fl__ar_numel(&k, &ms);
        flops = fl__ar_add(&k, fl__ar_add(&k, fl__ar_scale(&k, e, 6), fl__ar_scale(&k, g, 3)),
                           fl__ar_scale(&k, m, 3));
        flops = fl__ar_add(&k, flops, fl__nn_fused_extra(&k, n, e));
    }
    return fl__ar_put_cost_tf(&k, out, flops, fl_sym_const(0), fl_sym_const(0), false);
}

/* Hook sets and descriptors (their rows: norm.def). */
#define HOOKS_lrn               .infer = infer_lrn, .cost = cost_lrn
#define HOOKS_mkl_layer_norm    .infer = infer_mkl_norm, .cost = cost_mkl_layer_norm
#define HOOKS_mkl_instance_norm .infer = infer_mkl_norm, .cost = cost_mkl_instance_norm

#define FL_OP FL_OP_DESC
#include "ops/nn/norm.def"
#undef FL_OP
