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
        f = fl__ar_reduce_ops(&k, ein, 1, fl__ar_numel(&k, &n->outputs[0].shape));
    }
    if ((n->kind == FL_OP_ONNX_REDUCE_MAX || n->kind == FL_OP_ONNX_REDUCE_MIN) &&
        fl__dtype_is_integer(fl__ox_in_dtype(n, 0))) {
        return fl__ar_put_int_cost(&k, out, fl_sym_const(0), fl_sym_const(0), f);
    }
    return fl__ar_put_cost(&k, out, f, fl_sym_const(0));
}

/* The TensorFlow reduction with the same semantics. */
static int tf_reduce(int kind) {
    switch (kind) {
    case FL_OP_ONNX_REDUCE_MEAN:
        return FL_OP_MEAN;
    case FL_OP_ONNX_REDUCE_SUM:
        return FL_OP_SUM;
    case FL_OP_ONNX_REDUCE_MAX:
        return FL_OP_MAX;
    case FL_OP_ONNX_REDUCE_MIN:
        return FL_OP_MIN;
    default:
        return FL_OP_PROD;
    }
}

/* A known input reduced by the TensorFlow twin's evaluation, its
 * reduction_indices the ONNX axes (attr, input 1 or every axis) and
 * keep_dims the ONNX keepdims: ReduceMin over a constant image size. */
static fl_status eval_reduce(fl_ctx *c, fl_node *n) {
    const fl_shape *x = fl__op_in_shape(n, 0);
    if (!fl_op_in_value(n, 0) || x->rank < 0 || x->rank > 254) {
        return FL_OK;
    }
    int64_t keep;
    bool mask[256], known;
    fl_status st = fl__attr_int_or(n, "keepdims", 1, &keep, c->d);
    if (st == FL_OK) {
        st = fl__ox_reduce_axes(c, n, x, mask, &known);
    }
    if (st != FL_OK || !known) {
        return st;
    }
    int64_t cnt = 0;
    for (int i = 0; i < x->rank; i++) {
        cnt += mask[i];
    }
    fl_value *ax = fl__value_new(c->a, FL_DT_INT64, 1, &cnt);
    if (!ax) {
        return fl__diag_oom(c->d);
    }
    fl_sym *axv = (fl_sym *)ax->ints;
    for (int i = 0, k = 0; i < x->rank; i++) {
        if (mask[i]) {
            axv[k++] = fl_sym_const(i);
        }
    }
    fl_tensor axt = {.dtype = FL_DT_INT64, .shape = {1, NULL}, .value = ax};
    fl_sym axdim = fl_sym_const(cnt);
    axt.shape.dims = &axdim;
    fl_node src = {.name = n->name, .n_outputs = 1, .outputs = &axt};
    fl_input ins[2] = {n->inputs[0], {&src, 0}};
    fl_attr kd = {.name = "keep_dims", .kind = FL_ATTR_B, .v.b = keep != 0};
    fl_node p = *n;
    p.kind = tf_reduce(n->kind);
    p.desc = fl__op_desc_of(p.kind);
    p.inputs = ins;
    p.n_inputs = 2;
    p.attrs = &kd;
    p.n_attrs = 1;
    if (!p.desc || !p.desc->eval) {
        return fl__node_fail(c->d, FL_EINTERNAL, n, "no TensorFlow twin op");
    }
    return p.desc->eval(c, &p);
}

/* Hook sets and descriptors (their rows: reduce.def). */
#define HOOKS_reduce .infer = infer_reduce, .eval = eval_reduce, .cost = cost_reduce

#define FL_OP FL_OP_DESC
#include "ops/onnx/reduce.def"
#undef FL_OP
