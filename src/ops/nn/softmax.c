/*
 * nn/softmax.c - Softmax, LogSoftmax, L2Loss (rules in nn.h).
 */
#include "ops/nn/nn.h"

#include <inttypes.h>
#include <string.h>

/* ------------------------------------------------------------------------- */
/* Softmax, LogSoftmax, L2Loss                                                */
/* ------------------------------------------------------------------------- */

static fl_status infer_softmax(fl_ctx *c, fl_node *n) {
    fl_status st;
    int dt = FL_DT_INVALID;
    if ((st = fl__op_attr_dtype(c, n, "T", 0, &dt)) != FL_OK ||
        (st = fl__nn_need_rank_at_least(c, n, 0, "logits", 1)) != FL_OK) {
        return st;
    }
    const fl_shape *x = fl__op_in_shape(n, 0);
    return fl__op_set_output(c, n, 0, dt, x->rank, x->dims);
}

static fl_status cost_softmax_impl(fl_ctx *c, const fl_node *n, fl_cost *out, bool tfprof) {
    fl_arith k = {c, n, FL_OK};
    fl_sym f = fl__ar_scale(&k, fl__ar_numel(&k, fl__op_in_shape(n, 0)), 5);
    return fl__ar_put_cost_tf(&k, out, f, tfprof ? f : fl_sym_const(0), fl_sym_const(0), tfprof);
}

static fl_status cost_softmax(fl_ctx *c, const fl_node *n, fl_cost *out) {
    return cost_softmax_impl(c, n, out, true);
}
static fl_status cost_log_softmax(fl_ctx *c, const fl_node *n, fl_cost *out) {
    return cost_softmax_impl(c, n, out, false);
}

static fl_status infer_l2_loss(fl_ctx *c, fl_node *n) {
    int dt = FL_DT_INVALID;
    fl_status st = fl__op_attr_dtype(c, n, "T", 0, &dt);
    if (st != FL_OK) {
        return st;
    }
    return fl__op_set_output(c, n, 0, dt, 0, NULL);
}

static fl_status cost_l2_loss(fl_ctx *c, const fl_node *n, fl_cost *out) {
    fl_arith k = {c, n, FL_OK};
    fl_sym e = fl__ar_numel(&k, fl__op_in_shape(n, 0));
    fl_sym tf = fl__ar_sub(&k, fl__ar_scale(&k, e, 3), fl_sym_const(1));
    return fl__ar_put_cost_tf(&k, out, fl__ar_scale(&k, e, 2), tf, fl_sym_const(0), true);
}

/* Hook sets and descriptors (their rows: softmax.def). */
#define HOOKS_softmax     .infer = infer_softmax, .cost = cost_softmax
#define HOOKS_log_softmax .infer = infer_softmax, .cost = cost_log_softmax
#define HOOKS_l2_loss     .infer = infer_l2_loss, .cost = cost_l2_loss

#define FL_OP FL_OP_DESC
#include "ops/nn/softmax.def"
#undef FL_OP
