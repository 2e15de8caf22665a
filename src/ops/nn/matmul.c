/*
 * nn/matmul.c - MatMul, _FusedMatMul, QuantizedMatMul, BatchMatMul/V2/V3
 * and _MklFusedBatchMatMulV2 (rules in nn.h).
 */
#include "ops/nn/nn.h"

#include <inttypes.h>
#include <string.h>

/* ------------------------------------------------------------------------- */
/* MatMul, _FusedMatMul                                                       */
/* ------------------------------------------------------------------------- */

/* M, K (from a), K (from b), N of a 2-D matmul. */
static fl_status matmul_dims(fl_ctx *c, const fl_node *n, fl_sym *m, fl_sym *ka, fl_sym *kb,
                             fl_sym *nn) {
    bool ta, tb;
    fl_status st;
    if ((st = fl__attr_bool_or(n, "transpose_a", false, &ta, c->d)) != FL_OK ||
        (st = fl__attr_bool_or(n, "transpose_b", false, &tb, c->d)) != FL_OK) {
        return st;
    }
    const fl_shape *a = fl__op_in_shape(n, 0), *b = fl__op_in_shape(n, 1);
    *m = fl__shape_dim(a, ta ? 1 : 0);
    *ka = fl__shape_dim(a, ta ? 0 : 1);
    *kb = fl__shape_dim(b, tb ? 1 : 0);
    *nn = fl__shape_dim(b, tb ? 0 : 1);
    return FL_OK;
}

static fl_status infer_matmul_impl(fl_ctx *c, fl_node *n, bool fused) {
    fl_status st;
    int dt = FL_DT_INVALID;
    fl_sym m, ka, kb, nn, kk;
    if ((st = fl__op_attr_dtype(c, n, "T", 0, &dt)) != FL_OK ||
        (st = fl__nn_need_rank(c, n, 0, "a", 2)) != FL_OK ||
        (st = fl__nn_need_rank(c, n, 1, "b", 2)) != FL_OK) {
        return st;
    }
    if (fused && (st = fl__nn_check_fused(c, n, 2)) != FL_OK) {
        return st;
    }
    if ((st = matmul_dims(c, n, &m, &ka, &kb, &nn)) != FL_OK ||
        (st = fl__op_merge_dim(c, n, ka, kb, "inner dimensions of 'a' and 'b'", &kk)) != FL_OK) {
        return st;
    }
    fl_sym dims[2] = {m, nn};
    return fl__op_set_output(c, n, 0, dt, 2, dims);
}

static fl_status infer_matmul(fl_ctx *c, fl_node *n) {
    return infer_matmul_impl(c, n, false);
}
static fl_status infer_fused_matmul(fl_ctx *c, fl_node *n) {
    return infer_matmul_impl(c, n, true);
}

static fl_status cost_matmul_impl(fl_ctx *c, const fl_node *n, fl_cost *out, bool fused) {
    fl_arith k = {c, n, FL_OK};
    fl_sym m, ka, kb, nn;
    fl_status st = matmul_dims(c, n, &m, &ka, &kb, &nn);
    if (st != FL_OK) {
        return st;
    }
    fl_sym kk = fl_sym_is_unknown(ka) ? kb : ka;
    fl_sym e = fl__ar_numel(&k, fl__nn_out_shape(n, 0));
    fl_sym macs = fl__ar_mul(&k, e, kk);
    fl_sym flops = fl__ar_scale(&k, macs, 2);
    if (fused) {
        flops = fl__ar_add(&k, flops, fl__nn_fused_extra(&k, n, e));
    }
    /* tfprof's count: 2 * macs, flops itself when nothing is fused */
    return fl__ar_put_cost_tf(&k, out, flops, fused ? fl_sym_const(0) : flops, macs, !fused);
}

static fl_status cost_matmul(fl_ctx *c, const fl_node *n, fl_cost *out) {
    return cost_matmul_impl(c, n, out, false);
}
static fl_status cost_fused_matmul(fl_ctx *c, const fl_node *n, fl_cost *out) {
    return cost_matmul_impl(c, n, out, true);
}

/* QuantizedMatMul [a (T1), b (T2), min_a, max_a, min_b, max_b]: out [M, N]
 * of Toutput (default qint32) and the float scalars min_out, max_out, as
 * TensorFlow's shape function (the four ranges must be scalars). */
static fl_status infer_quantized_matmul(fl_ctx *c, fl_node *n) {
    fl_status st;
    int dt;
    fl_sym m, ka, kb, nn, kk;
    st = fl__attr_get_type(n, "Toutput", &dt, c->d);
    if (st == FL_ENOTFOUND) {
        dt = FL_DT_QINT32;
        st = FL_OK;
    }
    if (st != FL_OK || (st = fl__nn_need_rank(c, n, 0, "a", 2)) != FL_OK ||
        (st = fl__nn_need_rank(c, n, 1, "b", 2)) != FL_OK) {
        return st;
    }
    static const char *const names[4] = {"min_a", "max_a", "min_b", "max_b"};
    for (int i = 0; i < 4; i++) {
        if ((st = fl__nn_need_rank(c, n, 2 + i, names[i], 0)) != FL_OK) {
            return st;
        }
    }
    if ((st = matmul_dims(c, n, &m, &ka, &kb, &nn)) != FL_OK ||
        (st = fl__op_merge_dim(c, n, ka, kb, "inner dimensions of 'a' and 'b'", &kk)) != FL_OK) {
        return st;
    }
    fl_sym dims[2] = {m, nn};
    if ((st = fl__op_set_output(c, n, 0, dt, 2, dims)) != FL_OK ||
        (st = fl__op_set_output(c, n, 1, FL_DT_FLOAT, 0, NULL)) != FL_OK) {
        return st;
    }
    return fl__op_set_output(c, n, 2, FL_DT_FLOAT, 0, NULL);
}

/* QuantizedMatMul: MatMul's 2 * M * N * K (Grappler's count); no tfprof
 * rule. */
static fl_status cost_quantized_matmul(fl_ctx *c, const fl_node *n, fl_cost *out) {
    fl_status st = cost_matmul_impl(c, n, out, false);
    out->tfprof_flops = fl_sym_const(0);
    out->tfprof_rule = false;
    return st;
}

/* ------------------------------------------------------------------------- */
/* BatchMatMul, V2, V3                                                        */
/* ------------------------------------------------------------------------- */

static fl_status bmm_adj(fl_ctx *c, const fl_node *n, bool *ax, bool *ay) {
    fl_status st;
    if ((st = fl__attr_bool_or(n, "adj_x", false, ax, c->d)) != FL_OK) {
        return st;
    }
    return fl__attr_bool_or(n, "adj_y", false, ay, c->d);
}

/* version: 1 (batch dims must match), 2 or 3 (batch dims broadcast). */
static fl_status infer_bmm_impl(fl_ctx *c, fl_node *n, int version) {
    fl_status st;
    int dt = FL_DT_INVALID;
    bool ax, ay;
    if ((st = (version == 3 ? fl__op_attr_dtype(c, n, "Tout", 0, &dt)
                            : fl__op_attr_dtype(c, n, "T", 0, &dt))) != FL_OK ||
        (st = bmm_adj(c, n, &ax, &ay)) != FL_OK ||
        (st = fl__nn_need_rank_at_least(c, n, 0, "x", 2)) != FL_OK ||
        (st = fl__nn_need_rank_at_least(c, n, 1, "y", 2)) != FL_OK) {
        return st;
    }
    const fl_shape *x = fl__op_in_shape(n, 0), *y = fl__op_in_shape(n, 1);
    fl_sym m = fl__shape_dim(x, ax ? -1 : -2), kx = fl__shape_dim(x, ax ? -2 : -1);
    fl_sym ky = fl__shape_dim(y, ay ? -1 : -2), nn = fl__shape_dim(y, ay ? -2 : -1), kk;
    if ((st = fl__op_merge_dim(c, n, kx, ky, "inner dimensions of 'x' and 'y'", &kk)) != FL_OK) {
        return st;
    }
    if (x->rank < 0 || y->rank < 0) {
        return fl__op_set_output(c, n, 0, dt, -1, NULL);
    }
    fl_shape bx = {x->rank - 2, x->dims}, by = {y->rank - 2, y->dims}, bo;
    if (version == 1) {
        if (x->rank != y->rank) {
            return fl__node_fail(c->d, FL_EINVAL, n,
                                 "inputs 'x' and 'y' must have the same rank, got %d and %d",
                                 x->rank, y->rank);
        }
        fl_sym *bd = fl__arena_calloc(c->a, (size_t)x->rank, sizeof(fl_sym));
        if (!bd) {
            return fl__diag_oom(c->d);
        }
        for (int i = 0; i < x->rank - 2; i++) {
            if ((st = fl__op_merge_dim(c, n, x->dims[i], y->dims[i], "batch dimensions", &bd[i])) !=
                FL_OK) {
                return st;
            }
        }
        bo.rank = x->rank - 2;
        bo.dims = bd;
    } else if ((st = fl__op_broadcast(c, n, &bx, &by, &bo)) != FL_OK) {
        return st;
    }
    fl_sym *dims = fl__arena_calloc(c->a, (size_t)bo.rank + 2, sizeof(fl_sym));
    if (!dims) {
        return fl__diag_oom(c->d);
    }
    for (int i = 0; i < bo.rank; i++) {
        dims[i] = bo.dims[i];
    }
    dims[bo.rank] = m;
    dims[bo.rank + 1] = nn;
    return fl__op_set_output(c, n, 0, dt, bo.rank + 2, dims);
}

static fl_status infer_bmm(fl_ctx *c, fl_node *n) {
    return infer_bmm_impl(c, n, 1);
}
static fl_status infer_bmm_v2(fl_ctx *c, fl_node *n) {
    return infer_bmm_impl(c, n, 2);
}
static fl_status infer_bmm_v3(fl_ctx *c, fl_node *n) {
    return infer_bmm_impl(c, n, 3);
}

static fl_status cost_bmm_impl(fl_ctx *c, const fl_node *n, fl_cost *out, bool fused) {
    fl_arith k = {c, n, FL_OK};
    bool ax, ay;
    fl_status st = bmm_adj(c, n, &ax, &ay);
    if (st != FL_OK) {
        return st;
    }
    const fl_shape *x = fl__op_in_shape(n, 0), *y = fl__op_in_shape(n, 1);
    fl_sym kx = fl__shape_dim(x, ax ? -2 : -1), ky = fl__shape_dim(y, ay ? -1 : -2);
    fl_sym kk = fl_sym_is_unknown(kx) ? ky : kx;
    fl_sym e = fl__ar_numel(&k, fl__nn_out_shape(n, 0));
    fl_sym macs = fl__ar_mul(&k, e, kk);
    /* tfprof reads attr transpose_a, which BatchMatMul ops lack: K = x[-1]. */
    fl_sym tf = fl__ar_scale(&k, fl__ar_mul(&k, e, fl__shape_dim(x, -1)), 2);
    fl_sym flops = fl__ar_scale(&k, macs, 2);
    if (fused) {
        flops = fl__ar_add(&k, flops, fl__nn_fused_extra(&k, n, e));
        tf = fl_sym_const(0);
    }
    return fl__ar_put_cost_tf(&k, out, flops, tf, macs, !fused);
}

static fl_status cost_bmm(fl_ctx *c, const fl_node *n, fl_cost *out) {
    return cost_bmm_impl(c, n, out, false);
}

/* _MklFusedBatchMatMulV2 (oneDNN): BatchMatMulV2 followed by fused_ops
 * ["Mul", "Add"] on num_args extra inputs (a one-element multiplicand, an
 * addend broadcast onto the product). */
static fl_status infer_fused_bmm(fl_ctx *c, fl_node *n) {
    fl_status st = fl__nn_check_fused(c, n, 2);
    return st != FL_OK ? st : infer_bmm_impl(c, n, 2);
}
static fl_status cost_fused_bmm(fl_ctx *c, const fl_node *n, fl_cost *out) {
    return cost_bmm_impl(c, n, out, true);
}

/* Hook sets and descriptors (their rows: matmul.def). */
#define HOOKS_matmul           .infer = infer_matmul, .cost = cost_matmul
#define HOOKS_quantized_matmul .infer = infer_quantized_matmul, .cost = cost_quantized_matmul
#define HOOKS_fused_matmul     .infer = infer_fused_matmul, .cost = cost_fused_matmul
#define HOOKS_bmm              .infer = infer_bmm, .cost = cost_bmm
#define HOOKS_bmm_v2           .infer = infer_bmm_v2, .cost = cost_bmm
#define HOOKS_bmm_v3           .infer = infer_bmm_v3, .cost = cost_bmm
#define HOOKS_fused_bmm        .infer = infer_fused_bmm, .cost = cost_fused_bmm

#define FL_OP FL_OP_DESC
#include "ops/nn/matmul.def"
#undef FL_OP
