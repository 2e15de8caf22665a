/*
 * nn/bias.c - BiasAdd, BiasAddV1, BiasAddGrad (rules in nn.h).
 */
#include "ops/nn/nn.h"

#include <inttypes.h>
#include <string.h>

/* ------------------------------------------------------------------------- */
/* BiasAdd, BiasAddV1, BiasAddGrad                                            */
/* ------------------------------------------------------------------------- */

/* Channel position of BiasAdd's data_format; *nchw set for NCHW. */
static fl_status bias_format(fl_ctx *c, const fl_node *n, bool v1, bool *nchw) {
    *nchw = false;
    if (v1) {
        return FL_OK;
    }
    const char *f;
    fl_status st = fl__attr_str_or(n, "data_format", "NHWC", &f, c->d);
    if (st != FL_OK) {
        return st;
    }
    if (strcmp(f, "NCHW") == 0) {
        *nchw = true;
    } else if (strcmp(f, "NHWC") != 0) {
        return fl__node_fail(c->d, FL_EINVAL, n,
                             "attr 'data_format' must be NHWC or NCHW, got '%s'", f);
    }
    return FL_OK;
}

static fl_status infer_bias_add_impl(fl_ctx *c, fl_node *n, bool v1) {
    fl_status st;
    int dt = FL_DT_INVALID;
    bool nchw;
    if ((st = bias_format(c, n, v1, &nchw)) != FL_OK ||
        (st = fl__op_attr_dtype(c, n, "T", 0, &dt)) != FL_OK ||
        (st = fl__nn_need_rank_at_least(c, n, 0, "value", nchw ? 3 : 2)) != FL_OK ||
        (st = fl__nn_need_rank(c, n, 1, "bias", 1)) != FL_OK) {
        return st;
    }
    const fl_shape *x = fl__op_in_shape(n, 0);
    if (x->rank < 0) {
        return fl__op_set_output(c, n, 0, dt, -1, NULL);
    }
    /* The output dims are built on the stack for the usual ranks
     * (fl__op_set_output keeps its own copy): a BiasAdd takes no memory
     * beyond its output. */
    fl_sym local[8];
    fl_sym *dims = x->rank <= 8 ? local : fl__arena_calloc(c->a, (size_t)x->rank, sizeof(fl_sym));
    if (!dims) {
        return fl__diag_oom(c->d);
    }
    for (int i = 0; i < x->rank; i++) {
        dims[i] = x->dims[i];
    }
    int ci = nchw ? 1 : x->rank - 1;
    if ((st = fl__op_merge_dim(c, n, dims[ci], fl__shape_dim(fl__op_in_shape(n, 1), 0),
                               "channel dim of 'value' and length of 'bias'", &dims[ci])) !=
        FL_OK) {
        return st;
    }
    return fl__op_set_output(c, n, 0, dt, x->rank, dims);
}

static fl_status infer_bias_add(fl_ctx *c, fl_node *n) {
    return infer_bias_add_impl(c, n, false);
}
static fl_status infer_bias_add_v1(fl_ctx *c, fl_node *n) {
    return infer_bias_add_impl(c, n, true);
}

/* tfprof's E(in0) is read from the output, which has in0's shape with the
 * channel dim merged with the bias length. */
static fl_status cost_bias_add(fl_ctx *c, const fl_node *n, fl_cost *out) {
    fl_arith k = {c, n, FL_OK};
    fl_sym e = fl__ar_numel(&k, fl__nn_out_shape(n, 0));
    return fl__ar_put_cost_tf(&k, out, e, e, fl_sym_const(0), true);
}

static fl_status cost_bias_add_v1(fl_ctx *c, const fl_node *n, fl_cost *out) {
    fl_arith k = {c, n, FL_OK};
    return fl__ar_put_cost_tf(&k, out, fl__ar_numel(&k, fl__nn_out_shape(n, 0)), fl_sym_const(0),
                              fl_sym_const(0), false);
}

static fl_status infer_bias_add_grad(fl_ctx *c, fl_node *n) {
    fl_status st;
    int dt = FL_DT_INVALID;
    bool nchw;
    if ((st = bias_format(c, n, false, &nchw)) != FL_OK ||
        (st = fl__op_attr_dtype(c, n, "T", 0, &dt)) != FL_OK ||
        (st = fl__nn_need_rank_at_least(c, n, 0, "out_backprop", nchw ? 3 : 2)) != FL_OK) {
        return st;
    }
    fl_sym ch = fl__shape_dim(fl__op_in_shape(n, 0), nchw ? 1 : -1);
    return fl__op_set_output(c, n, 0, dt, 1, &ch);
}

static fl_status cost_bias_add_grad(fl_ctx *c, const fl_node *n, fl_cost *out) {
    fl_arith k = {c, n, FL_OK};
    fl_sym f = fl__ar_sub(&k, fl__ar_numel(&k, fl__op_in_shape(n, 0)),
                          fl__ar_numel(&k, fl__nn_out_shape(n, 0)));
    return fl__ar_put_cost_tf(&k, out, f, f, fl_sym_const(0), true);
}

/* Hook sets and descriptors (their rows: bias.def). */
#define HOOKS_bias_add      .infer = infer_bias_add, .cost = cost_bias_add
#define HOOKS_bias_add_v1   .infer = infer_bias_add_v1, .cost = cost_bias_add_v1
#define HOOKS_bias_add_grad .infer = infer_bias_add_grad, .cost = cost_bias_add_grad

#define FL_OP FL_OP_DESC
#include "ops/nn/bias.def"
#undef FL_OP
