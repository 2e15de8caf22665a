/*
 * math.c - ai.onnx element-wise math beyond src/ops/onnx.c: trigonometric
 * and hyperbolic functions, Sign, Round, Softsign, Celu, ThresholdedRelu,
 * Shrink, Mish, IsNaN, IsInf, Mod, the comparisons LessOrEqual and
 * GreaterOrEqual, Xor, BitShift, the Bitwise* ops (opset 18), CastLike, Det.
 *
 * Shapes: unary ops keep their input's shape and dtype (IsNaN, IsInf: bool);
 * binary ops broadcast as numpy (comparisons and Xor: bool). CastLike takes
 * input 0's shape and input 1's dtype; Det drops the last two dims.
 *
 * Evaluation (small integer math a shape computation may meet): where the
 * TensorFlow op has exactly ONNX's semantics its eval hook runs (Sin, Cos,
 * Tan, Asin, Acos, Atan, Sign, Round (half to even in both), Softsign,
 * IsNaN, IsInf with both detect attrs 1, LessEqual, GreaterEqual, Mod as
 * FloorMod (fmod 0, the divisor's sign) or TruncateMod (fmod 1), CastLike
 * as Cast to the target's dtype); Xor,
 * BitShift and Bitwise* are evaluated here on integer values.
 *
 * FLOP rules ("complete" convention, E(t) = element count of t, no MACs):
 *   every unary and binary op here  1 * E(out) (one operation per element;
 *                        activations such as Celu, Mish, Shrink count their
 *                        whole formula as one, as Relu/Elu/Gelu in onnx.c)
 *   CastLike             1 * E(out), as Cast
 *   Det                  n^3 per n x n matrix: LU elimination's leading
 *                        term, n^3/3 multiply-adds = 2n^3/3 FLOPs, rounded
 *                        up to n^3 to cover pivoting and the diagonal
 *                        product (an integer rule for symbolic n)
 */
#include "ops/onnxops/util.h"

#include <string.h>

/* ------------------------------------------------------------------------- */
/* Unary                                                                      */
/* ------------------------------------------------------------------------- */

static int tf_twin(int kind) {
    switch (kind) {
    case FL_OP_ONNX_SIN:
        return FL_OP_SIN;
    case FL_OP_ONNX_COS:
        return FL_OP_COS;
    case FL_OP_ONNX_TAN:
        return FL_OP_TAN;
    case FL_OP_ONNX_ASIN:
        return FL_OP_ASIN;
    case FL_OP_ONNX_ACOS:
        return FL_OP_ACOS;
    case FL_OP_ONNX_ATAN:
        return FL_OP_ATAN;
    case FL_OP_ONNX_SIGN:
        return FL_OP_SIGN;
    case FL_OP_ONNX_ROUND:
        return FL_OP_ROUND;
    case FL_OP_ONNX_SOFTSIGN:
        return FL_OP_SOFTSIGN;
    case FL_OP_ONNX_IS_NAN:
        return FL_OP_IS_NAN;
    case FL_OP_ONNX_IS_INF:
        return FL_OP_IS_INF;
    case FL_OP_ONNX_LESS_OR_EQUAL:
        return FL_OP_LESS_EQUAL;
    case FL_OP_ONNX_GREATER_OR_EQUAL:
        return FL_OP_GREATER_EQUAL;
    default:
        return 0;
    }
}

static fl_status infer_twin(fl_ctx *c, fl_node *n) {
    return fl__ox_twin(c, n, tf_twin(n->kind), false);
}

static fl_status eval_twin(fl_ctx *c, fl_node *n) {
    return fl__ox_twin(c, n, tf_twin(n->kind), true);
}

static fl_status infer_bool_same(fl_ctx *c, fl_node *n) {
    const fl_tensor *x = fl_node_in(n, 0);
    return fl__op_set_output(c, n, 0, FL_DT_BOOL, x->shape.rank, x->shape.dims);
}

static fl_status eval_is_inf(fl_ctx *c, fl_node *n) {
    int64_t pos, neg;
    fl_status st = fl__attr_int_or(n, "detect_positive", 1, &pos, c->d);
    if (st == FL_OK) {
        st = fl__attr_int_or(n, "detect_negative", 1, &neg, c->d);
    }
    if (st != FL_OK || !pos || !neg) {
        return st;
    }
    return fl__ox_twin(c, n, FL_OP_IS_INF, true);
}

static fl_status cost_ew(fl_ctx *c, const fl_node *n, fl_cost *out) {
    return fl__ox_cost_per_out(c, n, out, 1);
}

/* CastLike(input, target_type): input's shape, target's dtype. */
static fl_status infer_cast_like(fl_ctx *c, fl_node *n) {
    const fl_tensor *x = fl_node_in(n, 0);
    int dt = fl__ox_in_dtype(n, 1);
    return fl__op_set_output(c, n, 0, dt, x->shape.rank, x->shape.dims);
}

/* CastLike's value: input 0 cast as Cast casts it (the target's dtype is the
 * output's, set by infer_cast_like; its value is not needed). */
static fl_status eval_cast_like(fl_ctx *c, fl_node *n) {
    fl_node p = *n;
    p.n_inputs = 1;
    return fl__ox_twin(c, &p, FL_OP_CAST, true);
}

static fl_status infer_det(fl_ctx *c, fl_node *n) {
    const fl_shape *x = &fl_node_in(n, 0)->shape;
    int dt = fl__ox_in_dtype(n, 0);
    if (x->rank < 0) {
        return fl__op_set_output(c, n, 0, dt, -1, NULL);
    }
    if (x->rank < 2) {
        return fl__node_fail(c->d, FL_EINVAL, n, "input X has rank %d, Det needs at least 2",
                             x->rank);
    }
    fl_sym m;
    fl_status st = fl__op_merge_dim(c, n, x->dims[x->rank - 2], x->dims[x->rank - 1],
                                    "the matrix's two dims", &m);
    return st == FL_OK ? fl__op_set_output(c, n, 0, dt, x->rank - 2, x->dims) : st;
}

static fl_status cost_det(fl_ctx *c, const fl_node *n, fl_cost *out) {
    fl_arith k = {c, n, FL_OK};
    const fl_shape *x = &fl_node_in(n, 0)->shape;
    fl_sym f = fl_sym_unknown();
    if (x->rank >= 2) {
        fl_sym d = x->dims[x->rank - 1];
        f = fl__ar_mul(&k, fl__ar_numel(&k, &n->outputs[0].shape),
                       fl__ar_mul(&k, d, fl__ar_mul(&k, d, d)));
    }
    return fl__ar_put_cost(&k, out, f, fl_sym_const(0));
}

/* ------------------------------------------------------------------------- */
/* Binary                                                                     */
/* ------------------------------------------------------------------------- */

static int mod_twin(fl_ctx *c, const fl_node *n, fl_status *st) {
    int64_t fmod;
    *st = fl__attr_int_or(n, "fmod", 0, &fmod, c->d);
    if (*st == FL_OK && fmod != 0 && fmod != 1) {
        *st = fl__node_fail(c->d, FL_EINVAL, n, "attr 'fmod' is %lld, must be 0 or 1",
                            (long long)fmod);
    }
    if (*st == FL_OK && !fmod && fl__dtype_is_float(fl__ox_in_dtype(n, 0))) {
        *st = fl__node_fail(c->d, FL_EINVAL, n,
                            "attr 'fmod' is 0 but the inputs are floating point (ONNX needs "
                            "fmod = 1 for them)");
    }
    return fmod ? FL_OP_TRUNCATE_MOD : FL_OP_FLOOR_MOD;
}

static fl_status infer_mod(fl_ctx *c, fl_node *n) {
    fl_status st;
    (void)mod_twin(c, n, &st);
    return st == FL_OK ? fl__ox_infer_bcast(c, n, fl__ox_in_dtype(n, 0)) : st;
}

static fl_status eval_mod(fl_ctx *c, fl_node *n) {
    fl_status st;
    int k = mod_twin(c, n, &st);
    return st == FL_OK ? fl__ox_twin(c, n, k, true) : st;
}

static fl_status infer_bcast_same(fl_ctx *c, fl_node *n) {
    return fl__ox_infer_bcast(c, n, fl__ox_in_dtype(n, 0));
}

static fl_status infer_bcast_bool(fl_ctx *c, fl_node *n) {
    if (fl__ox_legacy_bcast(c, n)) { /* Xor before opset 7 */
        return fl__ox_infer_legacy_bcast(c, n, FL_DT_BOOL, NULL);
    }
    return fl__ox_infer_bcast(c, n, FL_DT_BOOL);
}

/* Offset into an input of shape `in` (rank <= out rank, right-aligned) of
 * output element i of concrete shape `out`. */
static int64_t bcast_offset(const fl_shape *out, const fl_value *in, int64_t i) {
    int64_t off = 0, stride = 1;
    for (int d = out->rank - 1, e = in->rank - 1; d >= 0; d--, e--) {
        int64_t od = out->dims[d].k, idx = i % od;
        i /= od;
        if (e >= 0) {
            off += (in->dims[e] == 1 ? 0 : idx) * stride;
            stride *= in->dims[e];
        }
    }
    return off;
}

static int64_t int_op(int kind, int64_t a, int64_t b, bool right, int bits) {
    switch (kind) {
    case FL_OP_ONNX_XOR:
        return (a != 0) != (b != 0);
    case FL_OP_ONNX_BITWISE_AND:
        return a & b;
    case FL_OP_ONNX_BITWISE_OR:
        return a | b;
    case FL_OP_ONNX_BITWISE_XOR:
        return a ^ b;
    default: /* BitShift on unsigned types */
        if (b < 0 || b >= bits) {
            return 0;
        }
        return right ? (int64_t)((uint64_t)a >> b)
                     : (int64_t)(((uint64_t)a << b) & (bits == 64 ? ~0ull : (1ull << bits) - 1));
    }
}

/* Xor, BitShift, Bitwise* on known integer values. */
static fl_status eval_int_binary(fl_ctx *c, fl_node *n) {
    bool aligned = true;
    if (fl__ox_legacy_bcast(c, n)) {
        fl_status st = fl__ox_infer_legacy_bcast(c, n, FL_DT_BOOL, &aligned);
        if (st != FL_OK || !aligned) {
            return st; /* B along a middle axis: not folded */
        }
    }
    const fl_value *a = fl_op_in_value(n, 0), *b = fl_op_in_value(n, 1);
    if (!a || !b || !a->ints || !b->ints || !fl__value_is_concrete(a) ||
        !fl__value_is_concrete(b)) {
        return FL_OK;
    }
    bool right = false;
    if (n->kind == FL_OP_ONNX_BIT_SHIFT) {
        const char *dir;
        fl_status st = fl__attr_str_or(n, "direction", "", &dir, c->d);
        if (st != FL_OK) {
            return st;
        }
        right = strcmp(dir, "RIGHT") == 0;
    }
    fl_value *v = fl__op_new_value(c, n, 0);
    if (!v) {
        return c->a->failed ? fl__diag_oom(c->d) : FL_OK;
    }
    int bits = (int)fl__dtype_size(v->dtype) * 8;
    const fl_shape *os = &n->outputs[0].shape;
    for (int64_t i = 0; i < v->n; i++) {
        int64_t x = a->ints[bcast_offset(os, a, i)].k, y = b->ints[bcast_offset(os, b, i)].k;
        ((fl_sym *)v->ints)[i] = fl_sym_const(int_op(n->kind, x, y, right, bits));
    }
    fl__op_set_value(n, 0, v);
    return FL_OK;
}

static fl_status infer_bit_shift(fl_ctx *c, fl_node *n) {
    const char *dir;
    fl_status st = fl__attr_need_str(n, "direction", &dir, c->d);
    if (st != FL_OK) {
        return st;
    }
    if (strcmp(dir, "LEFT") != 0 && strcmp(dir, "RIGHT") != 0) {
        return fl__node_fail(c->d, FL_EINVAL, n, "attr 'direction' is '%s', must be LEFT or RIGHT",
                             dir);
    }
    return infer_bcast_same(c, n);
}

/* ------------------------------------------------------------------------- */
/* Hook sets and descriptors (their rows: onnxops/math.def)                   */
/* ------------------------------------------------------------------------- */

#define HOOKS_twin       .infer = infer_twin, .eval = eval_twin, .cost = cost_ew
#define HOOKS_same       .infer = fl__ox_infer_same, .cost = cost_ew
#define HOOKS_bool_twin  .infer = infer_bool_same, .eval = eval_twin, .cost = cost_ew
#define HOOKS_is_inf     .infer = infer_bool_same, .eval = eval_is_inf, .cost = cost_ew
#define HOOKS_cast_like  .infer = infer_cast_like, .eval = eval_cast_like, .cost = cost_ew
#define HOOKS_det        .infer = infer_det, .cost = cost_det
#define HOOKS_mod        .infer = infer_mod, .eval = eval_mod, .cost = cost_ew
#define HOOKS_compare    .infer = infer_bcast_bool, .eval = eval_twin, .cost = cost_ew
#define HOOKS_xor        .infer = infer_bcast_bool, .eval = eval_int_binary, .cost = cost_ew
#define HOOKS_bit_shift  .infer = infer_bit_shift, .eval = eval_int_binary, .cost = cost_ew
#define HOOKS_int_binary .infer = infer_bcast_same, .eval = eval_int_binary, .cost = cost_ew

#define FL_OP FL_OP_DESC
#include "ops/onnxops/math.def"
#undef FL_OP
