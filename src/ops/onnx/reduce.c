/*
 * onnx/reduce.c - the reductions (rules in onnx.h).
 */
#include "ops/onnx/onnx.h"

#include <string.h>

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
    if ((n->kind == FL_OP_ONNX_REDUCE_MAX || n->kind == FL_OP_ONNX_REDUCE_MIN) &&
        fl__dtype_is_integer(fl__ox_in_dtype(n, 0))) {
        return fl__ar_put_int_cost(&k, out, fl_sym_const(0), fl_sym_const(0), f);
    }
    return fl__ar_put_cost(&k, out, f, fl_sym_const(0));
}

/* Hook sets and descriptors (their rows: reduce.def). */
#define HOOKS_reduce .infer = infer_reduce, .cost = cost_reduce

#define FL_OP FL_OP_DESC
#include "ops/onnx/reduce.def"
#undef FL_OP
