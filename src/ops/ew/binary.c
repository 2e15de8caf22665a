/*
 * binary.c - binary ops with numpy broadcasting (ew family): arithmetic,
 * comparisons, logical ops, Prelu, and the training ops RsqrtGrad and
 * ReluGrad.
 *
 * Shapes: TensorFlow's broadcasting helper; comparisons and logical ops give
 * bool. Equal/NotEqual with incompatible_shape_error false on shapes that
 * cannot broadcast give TensorFlow's scalar (false/true). eval: element by
 * element (arith.c); RsqrtGrad and ReluGrad are not evaluated.
 *
 * FLOP rules ("complete" convention):
 *  - binary arithmetic (incl. Pow, Atan2, FloorMod), comparisons, logical
 *    ops, Xdivy, Xlogy, Xlog1py, MulNoNan (the test for zero is not counted,
 *    as DivNoNan's is not), ReluGrad (a select per element): 1 * E(out).
 *  - SquaredDifference: 2 * E(out) (subtract + multiply).
 *  - Prelu: 2 * E(out) (a multiply by alpha + a select per element), as nn/
 *    counts a Prelu fused into _FusedConv2D.
 *  - RsqrtGrad: 4 * E(out) (dy * -0.5 * y^3: four multiplies, as tfprof).
 * tfprof convention (tfprof_flops): see cost.c. MACs: always 0.
 */
#include "ops/ew/ew.h"

static fl_status infer_binary(fl_ctx *c, fl_node *n) {
    const fl_tensor *x = fl_node_in(n, 0), *y = fl_node_in(n, 1);
    int dt = FL_DT_INVALID;
    fl_status st = fl__op_attr_dtype(c, n, "T", 0, &dt);
    if (st != FL_OK) {
        return st;
    }
    if (fl__ew_is_compare(n->kind) || fl__ew_is_logical(n->kind)) {
        dt = FL_DT_BOOL;
    }
    if (n->kind == FL_OP_EQUAL || n->kind == FL_OP_NOT_EQUAL) {
        bool strict;
        st = fl__attr_bool_or(n, "incompatible_shape_error", true, &strict, c->d);
        if (st != FL_OK) {
            return st;
        }
        if (!strict && fl__ew_bcast_incompatible(&x->shape, &y->shape)) {
            /* TensorFlow then returns a scalar: false for Equal, true for NotEqual. */
            st = fl__op_set_output(c, n, 0, FL_DT_BOOL, 0, NULL);
            if (st != FL_OK) {
                return st;
            }
            fl_value *v = fl__op_new_value(c, n, 0);
            if (!v) {
                return fl__ew_no_value(c);
            }
            ((fl_sym *)v->ints)[0] = fl_sym_const(n->kind == FL_OP_NOT_EQUAL);
            fl__op_set_value(n, 0, v);
            return FL_OK;
        }
    }
    fl_shape out;
    st = fl__op_broadcast(c, n, &x->shape, &y->shape, &out);
    if (st != FL_OK) {
        return st;
    }
    return fl__op_set_output(c, n, 0, dt, out.rank, out.dims);
}

static fl_status eval_binary(fl_ctx *c, fl_node *n) {
    if (n->outputs[0].value) {
        return FL_OK; /* set by infer (Equal of incompatible shapes) */
    }
    return fl__ew_eval(c, n);
}

/* Hook sets and descriptors (their rows: ew/binary.def). */
#define HOOKS_binary .infer = infer_binary, .eval = eval_binary, .cost = fl__ew_cost
#define HOOKS_grad   .infer = infer_binary, .cost = fl__ew_cost

#define FL_OP FL_OP_DESC
#include "ops/ew/binary.def"
#undef FL_OP
