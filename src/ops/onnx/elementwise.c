/*
 * onnx/elementwise.c - element-wise ONNX ops: the TensorFlow twins, variadic
 * Sum/Max/Min/Mean, PRelu, unary ops, Clip, Cast (rules in onnx.h).
 */
#include "ops/onnx/onnx.h"

#include <string.h>
#include <strings.h>

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
    case FL_OP_ONNX_RECIPROCAL:
        return FL_OP_RECIPROCAL;
    default:
        return 0;
    }
}

/* Opsets 1-6's legacy broadcasting (fl__ox_legacy_bcast): C has A's shape;
 * comparisons and logic give bool. */
static fl_status infer_legacy(fl_ctx *c, fl_node *n, bool *aligned) {
    int dt = fl__ox_in_dtype(n, 0);
    switch (n->kind) {
    case FL_OP_ONNX_EQUAL:
    case FL_OP_ONNX_LESS:
    case FL_OP_ONNX_GREATER:
    case FL_OP_ONNX_AND:
    case FL_OP_ONNX_OR:
        dt = FL_DT_BOOL;
        break;
    default:
        break;
    }
    return fl__ox_infer_legacy_bcast(c, n, dt, aligned);
}

fl_status fl__onnx_infer_twin(fl_ctx *c, fl_node *n) {
    if (fl__ox_legacy_bcast(c, n)) {
        return infer_legacy(c, n, NULL);
    }
    return fl__ox_twin(c, n, tf_twin(n->kind), false);
}

fl_status fl__onnx_eval_twin(fl_ctx *c, fl_node *n) {
    bool aligned = true;
    if (fl__ox_legacy_bcast(c, n)) {
        fl_status st = infer_legacy(c, n, &aligned);
        if (st != FL_OK || !aligned) {
            return st; /* B along a middle axis: numpy's values differ, not folded */
        }
    }
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

/* Cast-1 (opsets 1-5) names attr to's type as a string, TensorProto's
 * DataType name ("FLOAT"); the number of that name, or -1. */
static int64_t cast1_type(fl_str name) {
    static const char *const names[] = {"FLOAT",  "UINT8",  "INT8",   "UINT16",    "INT16",
                                        "INT32",  "INT64",  "STRING", "BOOL",      "FLOAT16",
                                        "DOUBLE", "UINT32", "UINT64", "COMPLEX64", "COMPLEX128"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        if (strlen(names[i]) == name.len && !strncasecmp(names[i], name.p, name.len)) {
            return (int64_t)i + 1;
        }
    }
    return -1;
}

static fl_status infer_cast(fl_ctx *c, fl_node *n) {
    int64_t to;
    const fl_attr *a = fl__node_attr(n, "to");
    fl_status st = FL_OK;
    if (a && a->kind == FL_ATTR_S) {
        if ((to = cast1_type(a->v.s)) < 0) {
            return fl__node_fail(c->d, FL_EINVAL, n,
                                 "attr 'to' is '%.*s', not a TensorProto data type name (Cast-1: "
                                 "FLOAT, INT64, ...)",
                                 (int)(a->v.s.len > 64 ? 64 : a->v.s.len), a->v.s.p);
        }
    } else if ((st = fl__attr_need_int(n, "to", &to, c->d)) != FL_OK) {
        return st;
    }
    fl_dtype dt = fl__onnx_dtype((int32_t)to);
    if (dt == FL_DT_INVALID || to != (int32_t)to) {
        return fl__node_fail(c->d, FL_EINVAL, n, "attr 'to' holds unsupported data type %lld",
                             (long long)to);
    }
    static const char *const round_modes[] = {"up", "down", "nearest", NULL};
    int rm;
    if ((st = fl__ox_attr_pick(c, n, "round_mode", "up", round_modes, &rm)) != FL_OK) {
        return st;
    }
    const fl_tensor *x = fl_node_in(n, 0);
    return fl__op_set_output(c, n, 0, dt, x->shape.rank, x->shape.dims);
}

/* ------------------------------------------------------------------------- */
/* Broadcasting: variadic ops, Expand                                         */
/* ------------------------------------------------------------------------- */

/* Sum, Max, Min and Mean before opset 8: every input has input 0's shape
 * (no broadcasting). */
static fl_status infer_variadic_equal(fl_ctx *c, fl_node *n) {
    const fl_shape *a = fl__op_in_shape(n, 0);
    for (int i = 1; i < n->n_inputs && a->rank >= 0; i++) {
        const fl_shape *b = fl__op_in_shape(n, i);
        if (b->rank >= 0 && b->rank != a->rank) {
            return fl__node_fail(c->d, FL_EINVAL, n,
                                 "input %d has rank %d, input 0 rank %d: opset %lld's %s takes "
                                 "inputs of one shape (broadcasting from opset 8)",
                                 i, b->rank, a->rank, (long long)c->g->onnx.opset, n->op);
        }
        for (int j = 0; j < b->rank; j++) {
            fl_sym x = a->dims[j], y = b->dims[j];
            if (fl_sym_is_known(x) && fl_sym_is_known(y) && x.k != y.k) {
                return fl__node_fail(c->d, FL_EINVAL, n,
                                     "input %d's dim %d is %lld, input 0's %lld: opset %lld's %s "
                                     "takes inputs of one shape (broadcasting from opset 8)",
                                     i, j, (long long)y.k, (long long)x.k,
                                     (long long)c->g->onnx.opset, n->op);
            }
        }
    }
    return fl__op_set_output(c, n, 0, fl__ox_in_dtype(n, 0), a->rank, a->dims);
}

static fl_status infer_variadic(fl_ctx *c, fl_node *n) {
    if (n->kind != FL_OP_ONNX_PRELU && fl__ox_opset_before(c, 8)) {
        return infer_variadic_equal(c, n);
    }
    fl_shape acc = *fl__op_in_shape(n, 0);
    for (int i = 1; i < n->n_inputs; i++) {
        fl_status st = fl__op_broadcast(c, n, &acc, fl__op_in_shape(n, i), &acc);
        if (st != FL_OK) {
            return st;
        }
    }
    return fl__op_set_output(c, n, 0, fl__ox_in_dtype(n, 0), acc.rank, acc.dims);
}

/* PRelu: slope broadcast to X; before opset 7 (PRelu-1/6) a slope of one
 * element, or of one per channel (X's dim 1, any shape), too. Y has X's
 * shape. */
static fl_status infer_prelu(fl_ctx *c, fl_node *n) {
    const fl_shape *x = fl__op_in_shape(n, 0), *s = fl__op_in_shape(n, 1);
    if (fl__ox_opset_before(c, 7) && x->rank >= 0 && s->rank >= 0) {
        fl_arith k = {c, n, FL_OK};
        fl_sym e = fl__ar_numel(&k, s);
        if (k.st != FL_OK) {
            return k.st;
        }
        if (fl_sym_is_known(e) &&
            (e.k == 1 || (x->rank >= 2 && fl_sym_is_known(x->dims[1]) && x->dims[1].k == e.k))) {
            return fl__op_set_output(c, n, 0, fl__ox_in_dtype(n, 0), x->rank, x->dims);
        }
    }
    return infer_variadic(c, n);
}

/* Sum, Max and Min of one or two known inputs (broadcasting, opset 8 on):
 * the input itself, or the TensorFlow twin's evaluation (AddV2, Maximum,
 * Minimum). Mean, and three or more inputs, are not evaluated. */
static fl_status eval_variadic(fl_ctx *c, fl_node *n) {
    if (fl__ox_opset_before(c, 8) || n->kind == FL_OP_ONNX_MEAN || n->n_inputs > 2) {
        return FL_OK;
    }
    if (n->n_inputs == 1) {
        const fl_tensor *x = fl_node_in(n, 0);
        if (x->value && x->dtype == n->outputs[0].dtype) {
            fl__op_set_value(n, 0, x->value); /* output 0 has input 0's shape */
        }
        return FL_OK;
    }
    int kind = n->kind == FL_OP_ONNX_SUM   ? FL_OP_ADD_V2
               : n->kind == FL_OP_ONNX_MAX ? FL_OP_MAXIMUM
                                           : FL_OP_MINIMUM;
    return fl__ox_twin(c, n, kind, true);
}

/* Hook sets and descriptors (their rows: elementwise.def). */
#define HOOKS_twin     .infer = fl__onnx_infer_twin, .eval = fl__onnx_eval_twin, .cost = cost_ew
#define HOOKS_variadic .infer = infer_variadic, .eval = eval_variadic, .cost = cost_variadic
#define HOOKS_prelu    .infer = infer_prelu, .cost = cost_ew2
#define HOOKS_unary    .infer = infer_unary_twin, .cost = cost_ew
#define HOOKS_clip     .infer = fl__ox_infer_same, .cost = cost_ew
#define HOOKS_cast     .infer = infer_cast, .eval = fl__onnx_eval_twin, .cost = cost_ew

#define FL_OP FL_OP_DESC
#include "ops/onnx/elementwise.def"
#undef FL_OP
