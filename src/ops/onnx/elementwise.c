/*
 * onnx/elementwise.c - element-wise ONNX ops: the TensorFlow twins, variadic
 * Sum/Max/Min/Mean, PRelu, unary ops, Clip, Cast (rules in onnx.h).
 */
#include "ops/onnx/onnx.h"

#include <string.h>

/* The TensorFlow op with the same semantics as an ONNX kind, or 0. */
static int tf_twin(int kind) {
    switch (kind) {
    case FL_OP_ONNX_ADD:
        return FL_OP_ADD_V2;
    case FL_OP_ONNX_SUB:
        return FL_OP_SUB;
    case FL_OP_ONNX_MUL:
        return FL_OP_MUL;
    case FL_OP_ONNX_DIV:
        return FL_OP_DIV;
    case FL_OP_ONNX_POW:
        return FL_OP_POW;
    case FL_OP_ONNX_EQUAL:
        return FL_OP_EQUAL;
    case FL_OP_ONNX_LESS:
        return FL_OP_LESS;
    case FL_OP_ONNX_GREATER:
        return FL_OP_GREATER;
    case FL_OP_ONNX_AND:
        return FL_OP_LOGICAL_AND;
    case FL_OP_ONNX_OR:
        return FL_OP_LOGICAL_OR;
    case FL_OP_ONNX_NOT:
        return FL_OP_LOGICAL_NOT;
    case FL_OP_ONNX_WHERE:
        return FL_OP_SELECT_V2;
    case FL_OP_ONNX_RANGE:
        return FL_OP_RANGE;
    case FL_OP_ONNX_CAST:
        return FL_OP_CAST;
    case FL_OP_ONNX_RELU:
        return FL_OP_RELU;
    case FL_OP_ONNX_NEG:
        return FL_OP_NEG;
    case FL_OP_ONNX_ABS:
        return FL_OP_ABS;
    case FL_OP_ONNX_FLOOR:
        return FL_OP_FLOOR;
    case FL_OP_ONNX_CEIL:
        return FL_OP_CEIL;
    case FL_OP_ONNX_SQRT:
        return FL_OP_SQRT;
    default:
        return 0;
    }
}

fl_status fl__onnx_infer_twin(fl_ctx *c, fl_node *n) {
    return fl__ox_twin(c, n, tf_twin(n->kind), false);
}

fl_status fl__onnx_eval_twin(fl_ctx *c, fl_node *n) {
    return fl__ox_twin(c, n, tf_twin(n->kind), true);
}

static fl_status cost_ew(fl_ctx *c, const fl_node *n, fl_cost *out) {
    return fl__ox_cost_per_out(c, n, out, 1);
}

static fl_status cost_ew2(fl_ctx *c, const fl_node *n, fl_cost *out) {
    return fl__ox_cost_per_out(c, n, out, 2);
}

/* Variadic Sum/Max/Min: (inputs - 1) * E(out); Mean one more (the divide). */
static fl_status cost_variadic(fl_ctx *c, const fl_node *n, fl_cost *out) {
    int64_t per = n->n_inputs - (n->kind == FL_OP_ONNX_MEAN ? 0 : 1);
    if ((n->kind == FL_OP_ONNX_MAX || n->kind == FL_OP_ONNX_MIN) &&
        fl__dtype_is_integer(n->outputs[0].dtype)) {
        fl_arith k = {c, n, FL_OK};
        fl_sym f = fl__ar_scale(&k, fl__ar_numel(&k, &n->outputs[0].shape), per > 0 ? per : 0);
        return fl__ar_put_int_cost(&k, out, fl_sym_const(0), fl_sym_const(0), f);
    }
    return fl__ox_cost_per_out(c, n, out, per > 0 ? per : 0);
}

static fl_status infer_unary_twin(fl_ctx *c, fl_node *n) {
    return tf_twin(n->kind) ? fl__onnx_infer_twin(c, n) : fl__ox_infer_same(c, n);
}

static fl_status infer_cast(fl_ctx *c, fl_node *n) {
    int64_t to;
    fl_status st = fl__attr_need_int(n, "to", &to, c->d);
    if (st != FL_OK) {
        return st;
    }
    fl_dtype dt = fl__onnx_dtype((int32_t)to);
    if (dt == FL_DT_INVALID || to != (int32_t)to) {
        return fl__node_fail(c->d, FL_EINVAL, n, "attr 'to' holds unsupported data type %lld",
                             (long long)to);
    }
    const char *rm;
    if ((st = fl__attr_str_or(n, "round_mode", "up", &rm, c->d)) != FL_OK) {
        return st;
    }
    if (strcmp(rm, "up") != 0 && strcmp(rm, "down") != 0 && strcmp(rm, "nearest") != 0) {
        return fl__node_fail(c->d, FL_EINVAL, n,
                             "attr 'round_mode' is '%s' (up, down or nearest; opset 24)", rm);
    }
    const fl_tensor *x = fl_node_in(n, 0);
    return fl__op_set_output(c, n, 0, dt, x->shape.rank, x->shape.dims);
}

/* ------------------------------------------------------------------------- */
/* Broadcasting: variadic ops, Expand                                         */
/* ------------------------------------------------------------------------- */

static fl_status infer_variadic(fl_ctx *c, fl_node *n) {
    fl_shape acc = *fl__op_in_shape(n, 0);
    for (int i = 1; i < n->n_inputs; i++) {
        fl_status st = fl__op_broadcast(c, n, &acc, fl__op_in_shape(n, i), &acc);
        if (st != FL_OK) {
            return st;
        }
    }
    return fl__op_set_output(c, n, 0, fl__ox_in_dtype(n, 0), acc.rank, acc.dims);
}

/* Hook sets and descriptors (their rows: elementwise.def). */
#define HOOKS_twin     .infer = fl__onnx_infer_twin, .eval = fl__onnx_eval_twin, .cost = cost_ew
#define HOOKS_variadic .infer = infer_variadic, .cost = cost_variadic
#define HOOKS_prelu    .infer = infer_variadic, .cost = cost_ew2
#define HOOKS_unary    .infer = infer_unary_twin, .cost = cost_ew
#define HOOKS_clip     .infer = fl__ox_infer_same, .cost = cost_ew
#define HOOKS_cast     .infer = infer_cast, .eval = fl__onnx_eval_twin, .cost = cost_ew

#define FL_OP FL_OP_DESC
#include "ops/onnx/elementwise.def"
#undef FL_OP
