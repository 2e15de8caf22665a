/*
 * nn/pool.c - MaxPool, MaxPoolV2, AvgPool, the 3-D pools and the 2-D pool
 * gradients (rules in nn.h).
 */
#include "ops/nn/nn.h"

#include <inttypes.h>
#include <string.h>

/* ------------------------------------------------------------------------- */
/* Pooling                                                                    */
/* ------------------------------------------------------------------------- */

/* Output dims of a pool over x (rank l->rank) with window w. */
static fl_status pool_dims(fl_ctx *c, const fl_node *n, const layout *l, const window *w,
                           const fl_shape *x, fl_sym *dims) {
    for (int i = 0; i < l->rank; i++) {
        fl_sym in = fl__shape_dim(x, i);
        if (w->k[i] == 1 && w->s[i] == 1 && w->pad[2 * i] == 0 && w->pad[2 * i + 1] == 0) {
            dims[i] = in;
            continue;
        }
        fl_status st = fl__op_window_out(c, n, in, w->k[i], w->s[i], 1, w->padding, w->pad[2 * i],
                                         w->pad[2 * i + 1], &dims[i]);
        if (st != FL_OK) {
            return st;
        }
    }
    return FL_OK;
}

static fl_status check_pool_batch(fl_ctx *c, const fl_node *n, const window *w) {
    if (w->k[0] != 1 || w->s[0] != 1) {
        return fl__node_fail(c->d, FL_EINVAL, n,
                             "attrs 'ksize' and 'strides' must be 1 in the batch dimension");
    }
    return FL_OK;
}

static fl_status infer_pool_impl(fl_ctx *c, fl_node *n, int ns, bool explicit_ok) {
    layout l = {0};
    window w;
    fl_status st;
    int dt = FL_DT_INVALID;
    if ((st = fl__nn_get_layout(c, n, ns, &l)) != FL_OK ||
        (st = fl__nn_get_window(c, n, l.rank, W_KSIZE | (explicit_ok ? W_EXPLICIT : 0), &w)) !=
            FL_OK ||
        (st = check_pool_batch(c, n, &w)) != FL_OK ||
        (st = fl__op_attr_dtype(c, n, "T", 0, &dt)) != FL_OK) {
        return st;
    }
    if (!l.ok) {
        return fl__op_set_output(c, n, 0, dt, -1, NULL);
    }
    if ((st = fl__nn_need_rank(c, n, 0, "input", l.rank)) != FL_OK) {
        return st;
    }
    fl_sym dims[5];
    if ((st = pool_dims(c, n, &l, &w, fl__op_in_shape(n, 0), dims)) != FL_OK) {
        return st;
    }
    return fl__op_set_output(c, n, 0, dt, l.rank, dims);
}

static fl_status infer_max_pool(fl_ctx *c, fl_node *n) {
    return infer_pool_impl(c, n, 2, true);
}
static fl_status infer_avg_pool(fl_ctx *c, fl_node *n) {
    return infer_pool_impl(c, n, 2, false);
}
static fl_status infer_pool3d(fl_ctx *c, fl_node *n) {
    return infer_pool_impl(c, n, 3, false);
}

/* Reads a 4-element known int vector input (MaxPoolV2's ksize / strides);
 * *found false when the value is unknown. */
static fl_status pool_v2_input(fl_ctx *c, const fl_node *n, int i, const char *what, int64_t *out,
                               bool *found) {
    int64_t *v, cnt;
    fl_status st = fl__op_in_int_vector(c, n, i, &v, &cnt);
    *found = false;
    if (st == FL_ENOTFOUND) {
        return FL_OK;
    }
    if (st != FL_OK) {
        return st;
    }
    if (cnt != 4) {
        return fl__node_fail(c->d, FL_EINVAL, n, "input %d ('%s') must have 4 elements, got %lld",
                             i, what, (long long)cnt);
    }
    for (int j = 0; j < 4; j++) {
        if (v[j] <= 0) {
            return fl__node_fail(c->d, FL_EINVAL, n,
                                 "input %d ('%s') entries must be positive, got %lld", i, what,
                                 (long long)v[j]);
        }
        out[j] = v[j];
    }
    *found = true;
    return FL_OK;
}

static fl_status infer_max_pool_v2(fl_ctx *c, fl_node *n) {
    layout l = {0};
    window w;
    fl_status st;
    int dt = FL_DT_INVALID;
    bool have_k, have_s;
    if ((st = fl__nn_get_layout(c, n, 2, &l)) != FL_OK ||
        (st = fl__nn_get_window(c, n, 4, W_NO_STRIDES, &w)) != FL_OK ||
        (st = fl__op_attr_dtype(c, n, "T", 0, &dt)) != FL_OK ||
        (st = pool_v2_input(c, n, 1, "ksize", w.k, &have_k)) != FL_OK ||
        (st = pool_v2_input(c, n, 2, "strides", w.s, &have_s)) != FL_OK) {
        return st;
    }
    if (!l.ok) {
        return fl__op_set_output(c, n, 0, dt, -1, NULL);
    }
    if ((st = fl__nn_need_rank(c, n, 0, "input", 4)) != FL_OK) {
        return st;
    }
    if (!have_k || !have_s) {
        return fl__op_set_output_rank(c, n, 0, dt, 4);
    }
    if ((st = check_pool_batch(c, n, &w)) != FL_OK) {
        return st;
    }
    fl_sym dims[4];
    if ((st = pool_dims(c, n, &l, &w, fl__op_in_shape(n, 0), dims)) != FL_OK) {
        return st;
    }
    return fl__op_set_output(c, n, 0, dt, 4, dims);
}

/* prod(ksize) from the attr (or MaxPoolV2's input 1); unknown if unreadable. */
static fl_sym pool_window(fl_arith *k, const fl_node *n, bool from_input) {
    if (from_input) {
        const fl_value *v = fl_op_in_value(n, 1);
        if (!v || !v->ints) {
            return fl_sym_unknown();
        }
        fl_sym acc = fl_sym_const(1);
        for (int64_t i = 0; i < v->n; i++) {
            acc = fl__ar_mul(k, acc, v->ints[i]);
        }
        return acc;
    }
    const int64_t *ks;
    size_t cnt;
    fl_status st = fl__attr_get_ints(n, "ksize", &ks, &cnt, k->c->d);
    if (st != FL_OK) {
        if (st != FL_ENOTFOUND) {
            k->st = st;
        }
        return fl_sym_unknown();
    }
    return fl__ar_int_prod(k, ks, cnt);
}

static fl_status cost_pool_impl(fl_ctx *c, const fl_node *n, fl_cost *out, bool tfprof_rule,
                                bool v2) {
    fl_arith k = {c, n, FL_OK};
    fl_sym flops = fl__ar_mul(&k, pool_window(&k, n, v2), fl__ar_numel(&k, fl__nn_out_shape(n, 0)));
    fl_sym tf = (tfprof_rule && fl__nn_is_nhwc(n)) ? flops : fl_sym_const(0);
    return fl__ar_put_cost_tf(&k, out, flops, tf, fl_sym_const(0), tfprof_rule);
}

static fl_status cost_pool_tfprof(fl_ctx *c, const fl_node *n, fl_cost *out) {
    return cost_pool_impl(c, n, out, true, false);
}
static fl_status cost_pool_plain(fl_ctx *c, const fl_node *n, fl_cost *out) {
    return cost_pool_impl(c, n, out, false, false);
}
static fl_status cost_max_pool_v2(fl_ctx *c, const fl_node *n, fl_cost *out) {
    return cost_pool_impl(c, n, out, false, true);
}

static fl_status infer_max_pool_grad(fl_ctx *c, fl_node *n) {
    layout l = {0};
    window w;
    fl_status st;
    int dt = FL_DT_INVALID;
    if ((st = fl__nn_get_layout(c, n, 2, &l)) != FL_OK ||
        (st = fl__nn_get_window(c, n, 4, W_KSIZE | W_EXPLICIT, &w)) != FL_OK ||
        (st = fl__op_attr_dtype(c, n, "T", 0, &dt)) != FL_OK) {
        return st;
    }
    if (!l.ok) {
        return fl__op_set_output(c, n, 0, dt, -1, NULL);
    }
    if ((st = fl__nn_need_rank(c, n, 0, "orig_input", 4)) != FL_OK ||
        (st = fl__nn_need_rank(c, n, 1, "orig_output", 4)) != FL_OK ||
        (st = fl__nn_need_rank(c, n, 2, "grad", 4)) != FL_OK) {
        return st;
    }
    const fl_shape *x = fl__op_in_shape(n, 0);
    if (x->rank < 0) {
        return fl__op_set_output_rank(c, n, 0, dt, 4);
    }
    return fl__op_set_output(c, n, 0, dt, 4, x->dims);
}

static fl_status infer_avg_pool_grad(fl_ctx *c, fl_node *n) {
    layout l = {0};
    window w;
    fl_status st;
    int dt = FL_DT_INVALID;
    if ((st = fl__nn_get_layout(c, n, 2, &l)) != FL_OK ||
        (st = fl__nn_get_window(c, n, 4, W_KSIZE, &w)) != FL_OK ||
        (st = fl__op_attr_dtype(c, n, "T", 1, &dt)) != FL_OK) {
        return st;
    }
    if (!l.ok) {
        return fl__op_set_output(c, n, 0, dt, -1, NULL);
    }
    if ((st = fl__nn_need_rank(c, n, 1, "grad", 4)) != FL_OK) {
        return st;
    }
    fl_sym dims[4] = {fl_sym_unknown(), fl_sym_unknown(), fl_sym_unknown(), fl_sym_unknown()};
    dims[0] = fl__shape_dim(fl__op_in_shape(n, 1), 0);
    dims[fl__nn_lay_c(&l)] = fl__shape_dim(fl__op_in_shape(n, 1), fl__nn_lay_c(&l));
    if ((st = fl__nn_sizes_input(c, n, 0, "orig_input_shape", &l, false, dims)) != FL_OK) {
        return st;
    }
    return fl__op_set_output(c, n, 0, dt, 4, dims);
}

static fl_status cost_max_pool_grad(fl_ctx *c, const fl_node *n, fl_cost *out) {
    fl_arith k = {c, n, FL_OK};
    fl_sym e = fl__ar_numel(&k, fl__op_in_shape(n, 1));
    fl_sym flops = fl__ar_mul(&k, fl__ar_add(&k, pool_window(&k, n, false), fl_sym_const(1)), e);
    fl_sym tf = fl__nn_is_nhwc(n) ? flops : fl_sym_const(0);
    return fl__ar_put_cost_tf(&k, out, flops, tf, fl_sym_const(0), true);
}

static fl_status cost_avg_pool_grad(fl_ctx *c, const fl_node *n, fl_cost *out) {
    fl_arith k = {c, n, FL_OK};
    fl_sym e = fl__ar_numel(&k, fl__op_in_shape(n, 1));
    fl_sym flops = fl__ar_scale(&k, fl__ar_mul(&k, pool_window(&k, n, false), e), 2);
    fl_sym tf = fl__nn_is_nhwc(n) ? flops : fl_sym_const(0);
    return fl__ar_put_cost_tf(&k, out, flops, tf, fl_sym_const(0), true);
}

/* Hook sets and descriptors (their rows: pool.def). */
#define HOOKS_max_pool      .infer = infer_max_pool, .cost = cost_pool_tfprof
#define HOOKS_max_pool_v2   .infer = infer_max_pool_v2, .cost = cost_max_pool_v2
#define HOOKS_avg_pool      .infer = infer_avg_pool, .cost = cost_pool_tfprof
#define HOOKS_pool3d        .infer = infer_pool3d, .cost = cost_pool_plain
#define HOOKS_max_pool_grad .infer = infer_max_pool_grad, .cost = cost_max_pool_grad
#define HOOKS_avg_pool_grad .infer = infer_avg_pool_grad, .cost = cost_avg_pool_grad

#define FL_OP FL_OP_DESC
#include "ops/nn/pool.def"
#undef FL_OP
