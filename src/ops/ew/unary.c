/*
 * unary.c - unary math and activations (ew family), ZerosLike, OnesLike,
 * _UnaryOpsComposition.
 *
 * Shapes: TensorFlow's UnchangedShape (IsNan/IsInf/IsFinite/LogicalNot give
 * bool). eval: element by element (arith.c); Conj and _UnaryOpsComposition
 * are not evaluated. ZerosLike/OnesLike get their value in infer from a
 * concrete shape.
 *
 * FLOP rules ("complete" convention):
 *  - unary math and activations, LeakyRelu, Conj: 1 * E(out).
 *  - Rsqrt: 2 * E(out) (tfprof's count: sqrt + reciprocal).
 *  - _MklSwish: 2 * E(out) (the Sigmoid and the Mul it fuses).
 *  - Gelu: the element-wise ops of its definition, as nn/ counts the
 *    remapper's fused GeluExact / GeluApproximate (so fusing the op or its
 *    unfused subgraph into _FusedMatMul leaves the FLOPs unchanged): exact
 *    5 * E(out) (Mul 1/sqrt2, Erf, Add 1, Mul 1/2, Mul x), approximate
 *    (attr approximate) 9 * E(out) (Square, Mul, Mul c, Add, Mul, Tanh,
 *    Add 1, Mul 1/2, Mul x).
 *  - _UnaryOpsComposition: the sum of its op_names' factors above times
 *    E(out) (Rsqrt counts 2); tfprof_rule false.
 *  - ZerosLike, OnesLike: 0 (fills; a real rule, has_rule true).
 * tfprof convention (tfprof_flops): see cost.c. MACs: always 0.
 */
#include "ops/ew/ew.h"

static fl_status infer_unary(fl_ctx *c, fl_node *n) {
    const fl_tensor *x = fl_node_in(n, 0);
    int dt = FL_DT_INVALID;
    fl_status st = fl__op_attr_dtype(c, n, "T", 0, &dt);
    if (st != FL_OK) {
        return st;
    }
    switch (n->kind) {
    case FL_OP_IS_NAN:
    case FL_OP_IS_INF:
    case FL_OP_IS_FINITE:
    case FL_OP_LOGICAL_NOT:
        dt = FL_DT_BOOL;
        break;
    default:
        break;
    }
    ew_op o;
    st = fl__ew_op_setup(c, n, &o); /* validates LeakyRelu's alpha, Gelu's approximate */
    if (st != FL_OK) {
        return st;
    }
    return fl__op_set_output(c, n, 0, dt, x->shape.rank, x->shape.dims);
}

static fl_status infer_like(fl_ctx *c, fl_node *n) {
    const fl_tensor *x = fl_node_in(n, 0);
    int dt = FL_DT_INVALID;
    fl_status st = fl__op_attr_dtype(c, n, "T", 0, &dt);
    if (st == FL_OK) {
        st = fl__op_set_output(c, n, 0, dt, x->shape.rank, x->shape.dims);
    }
    if (st != FL_OK) {
        return st;
    }
    /* The value follows from the shape alone. */
    if (fl__ew_vkind(dt) == VK_NONE || !fl__shape_is_concrete(&n->outputs[0].shape)) {
        return FL_OK;
    }
    fl_value *v = fl__op_new_value(c, n, 0);
    if (!v) {
        return fl__ew_no_value(c);
    }
    if (n->kind == FL_OP_ONES_LIKE) {
        ew_num one = {false, 1.0, fl_sym_const(1)};
        for (int64_t i = 0; i < v->n; i++) {
            fl__ew_put_num(v, i, &one);
        }
    }
    fl__op_set_value(n, 0, v);
    return FL_OK;
}

/* Hook sets and descriptors (their rows: ew/unary.def). */
#define HOOKS_unary       .infer = infer_unary, .eval = fl__ew_eval, .cost = fl__ew_cost
#define HOOKS_conj        .infer = infer_unary, .cost = fl__ew_cost
#define HOOKS_composition .infer = infer_unary, .cost = fl__ew_cost_unary_composition
#define HOOKS_like        .infer = infer_like, .cost = fl__ew_cost

#define FL_OP FL_OP_DESC
#include "ops/ew/unary.def"
#undef FL_OP
