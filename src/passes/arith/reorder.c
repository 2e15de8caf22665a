/*
 * reorder.c - the arithmetic optimizer's stages that bypass or reorder a
 * node across element-wise ops (14, 18, 21).
 *  - remove_redundant_reshape (14), bypass half: Reshape(unary element-wise
 *    chain(Reshape(x))) with the chain and the inner Reshape read once and
 *    not preserved -> the chain reads x (the inner Reshape, when it has no
 *    control consumers, is removed; Grappler turns it into a NoOp).
 *  - reorder_cast_like_and_value_preserving (18): VP(Cast(x)) when the cast
 *    widens, Cast(VP(x)) when it narrows -> copies in the other order,
 *    "..._<src type>_<consumer>" and "..._<dst type>_<producer>" (VP: the
 *    value-preserving ops whose kernels take every real number type, plus
 *    bool except the space/batch ops; cast-like: Cast, IsNan, IsInf,
 *    IsFinite; same device, CPU or GPU).
 *  - convert_sqrt_div_to_rsqrt_mul (21): Div/RealDiv/TruncateDiv(x, Sqrt(y))
 *    -> Mul(x, Rsqrt(y)); Xdivy -> MulNoNan(Rsqrt(y), x); Sqrt read once, not
 *    preserved; in place.
 */
#include "passes/arith/arith.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

bool fl__ao_unary_elementwise(const fl_node *n) {
    static const fl_op_kind ops[] = {
        FL_OP_ABS,      FL_OP_ACOS,          FL_OP_ASIN,     FL_OP_ATAN,    FL_OP_CEIL,
        FL_OP_CONJ,     FL_OP_COS,           FL_OP_ELU,      FL_OP_ERF,     FL_OP_ERFC,
        FL_OP_EXP,      FL_OP_EXPM1,         FL_OP_FLOOR,    FL_OP_INV,     FL_OP_IS_INF,
        FL_OP_IS_NAN,   FL_OP_IS_FINITE,     FL_OP_LOG,      FL_OP_LOG1P,   FL_OP_LOGICAL_NOT,
        FL_OP_NEG,      FL_OP_RECIPROCAL,    FL_OP_RELU,     FL_OP_RELU6,   FL_OP_RINT,
        FL_OP_ROUND,    FL_OP_SELU,          FL_OP_RSQRT,    FL_OP_SIGMOID, FL_OP_SIGN,
        FL_OP_SIN,      FL_OP_SOFTPLUS,      FL_OP_SOFTSIGN, FL_OP_SQRT,    FL_OP_SQUARE,
        FL_OP_TAN,      FL_OP_TANH,          FL_OP_ENTER,    FL_OP_EXIT,    FL_OP_PREVENT_GRADIENT,
        FL_OP_SNAPSHOT, FL_OP_STOP_GRADIENT, FL_OP_IDENTITY};
    static const fl_pass_op ops_x[] = {FL_POP_ACOSH,
                                       FL_POP_ASINH,
                                       FL_POP_ATANH,
                                       FL_POP_COMPLEX_ABS,
                                       FL_POP_COSH,
                                       FL_POP_DIGAMMA,
                                       FL_POP_INVERT,
                                       FL_POP_LGAMMA,
                                       FL_POP_SINH,
                                       FL_POP_CHECK_NUMERICS,
                                       FL_POP_DEBUG_GRADIENT_IDENTITY,
                                       FL_POP_DEEP_COPY,
                                       FL_POP_PRINT};
    if (fl__kind_in(n->kind, ops, sizeof ops / sizeof ops[0]) ||
        fl__pass_op_in(n, ops_x, sizeof ops_x / sizeof ops_x[0])) {
        return true;
    }
    return n->kind == FL_OP_ADD_N && n->n_inputs == 1;
}

bool fl__ao_modifies_frame(const fl_node *n) {
    return n->kind == FL_OP_ENTER || n->kind == FL_OP_EXIT || n->kind == FL_OP_REF_ENTER ||
           n->kind == FL_OP_REF_EXIT;
}

/* RemoveRedundantReshapeOrBroadcastTo, the bypass half:
 * Reshape(unary chain(Reshape(x))) -> the chain reads x. */
bool fl__ao_reshape_of_reshape_kinds(const fl_node *n) {
    return n->kind == FL_OP_RESHAPE;
}

fl_status fl__ao_reshape_of_reshape(ao *a, fl_node *n, bool *fired) {
    if (!fl__ao_reshape_of_reshape_kinds(n) || n->n_inputs < 1) {
        return FL_OK;
    }
    fl_node *tail = n;
    for (int guard = 0; guard < 1 << 16; guard++) {
        if (tail->n_inputs < 1) {
            break;
        }
        fl_node *nx = tail->inputs[0].node;
        if (fl__ao_n_uses(a, nx) > 1 || fl__preserved(nx) || fl__ao_modifies_frame(nx)) {
            return FL_OK;
        }
        if (!fl__ao_unary_elementwise(nx)) {
            break;
        }
        tail = nx;
    }
    if (fl__preserved(tail) || tail->n_inputs < 1) {
        return FL_OK;
    }
    fl_node *inner = tail->inputs[0].node;
    if (inner->kind != FL_OP_RESHAPE || fl__ao_n_uses(a, inner) > 1 || fl__preserved(inner) ||
        inner->n_inputs < 1 || a->ctrl_uses[inner->id]) {
        return FL_OK;
    }
    fl__ledger_note(a->pc, "remove_redundant_reshape", n, "inner Reshape '%s' bypassed",
                    inner->name);
    fl__ao_set_input(a, tail, 0, inner->inputs[0]);
    fl_status st = fl__ao_forward_ctrl(a, tail, inner);
    a->pc->rewritten++;
    if (a->uses[inner->id] == 0) {
        fl__ao_remove(a, inner);
    }
    *fired = true;
    return st;
}

/* Cast-like ops (op_types.cc IsCastLike) that foldline's registry knows. */
static bool cast_like(const fl_node *n) {
    return n->kind == FL_OP_CAST || n->kind == FL_OP_IS_NAN || n->kind == FL_OP_IS_INF ||
           n->kind == FL_OP_IS_FINITE;
}

/* Value-preserving ops whose kernels take any real number type (the new
 * input type of ReorderCastLikeAndValuePreserving must have a kernel). */
static bool reorderable_vp(const fl_node *n) {
    static const fl_op_kind ops[] = {
        FL_OP_IDENTITY,         FL_OP_SNAPSHOT,       FL_OP_STOP_GRADIENT,  FL_OP_PREVENT_GRADIENT,
        FL_OP_RESHAPE,          FL_OP_EXPAND_DIMS,    FL_OP_SQUEEZE,        FL_OP_TRANSPOSE,
        FL_OP_REVERSE_V2,       FL_OP_DEPTH_TO_SPACE, FL_OP_SPACE_TO_DEPTH, FL_OP_BATCH_TO_SPACE_ND,
        FL_OP_SPACE_TO_BATCH_ND};
    if (fl__kind_in(n->kind, ops, sizeof ops / sizeof ops[0])) {
        return true;
    }
    return false;
}

static bool real_number_type(int dt) {
    switch (dt) {
    case FL_DT_INT8:
    case FL_DT_INT16:
    case FL_DT_INT32:
    case FL_DT_INT64:
    case FL_DT_UINT8:
    case FL_DT_UINT16:
    case FL_DT_HALF:
    case FL_DT_BFLOAT16:
    case FL_DT_FLOAT:
    case FL_DT_DOUBLE:
        return true;
    default:
        return false;
    }
}

/* Grappler's IsFixedSizeType: not string, variant, resource or quantized. */
static bool fixed_size(int dt) {
    switch (dt) {
    case FL_DT_QINT8:
    case FL_DT_QUINT8:
    case FL_DT_QINT16:
    case FL_DT_QUINT16:
    case FL_DT_QINT32:
        return false;
    default:
        return fl__dtype_valid(dt) && fl__dtype_size(dt) > 0;
    }
}

/* Whether n runs on CPU or GPU (empty device: the target device). */
static bool on_cpu_or_gpu(const ao *a, const fl_node *n) {
    return fl__node_device(n, a->pc->opt->device) != FL_DEV_OTHER;
}

/* The value-preserving and cast-like ops (AddN: with one input only, which
 * the stage tests itself). */
bool fl__ao_reorder_cast_like_kinds(const fl_node *c) {
    return fl__ao_value_preserving(c) || c->kind == FL_OP_ADD_N || cast_like(c);
}

/* ReorderCastLikeAndValuePreserving (18). */
fl_status fl__ao_reorder_cast_like(ao *a, fl_node *c, bool *fired) {
    if (!fl__ao_reorder_cast_like_kinds(c) || (!fl__ao_value_preserving(c) && !cast_like(c)) ||
        fl__is_pass_op(c, FL_POP_CHECK_NUMERICS) || !on_cpu_or_gpu(a, c) ||
        (fl__op_desc_of(c->kind) && (fl__op_desc_of(c->kind)->flags & FL_OPF_CONTROL_FLOW)) ||
        !fl__ao_replaceable(c) || c->n_inputs < 1) {
        return FL_OK;
    }
    fl_node *p = c->inputs[0].node;
    bool p_cast = cast_like(p);
    bool ok = (p_cast && reorderable_vp(c)) || (reorderable_vp(p) && cast_like(c));
    if (!ok || fl__preserved(p) || !fl__same_device(p, c) || p->n_inputs < 1 || p->n_outputs != 1) {
        return FL_OK;
    }
    const fl_node *cl = p_cast ? p : c;
    int src = fl_node_in(cl, 0)->dtype, dst = cl->outputs[0].dtype;
    if (!fixed_size(src) || !fixed_size(dst)) {
        return FL_OK;
    }
    size_t ss = fl__dtype_size(src), ds = fl__dtype_size(dst);
    if ((p_cast && ds <= ss) || (!p_cast && ds >= ss)) {
        return FL_OK;
    }
    /* the value-preserving op's new input type needs a kernel: real numbers */
    int new_in = p_cast ? src : dst;
    const fl_node *vpn = p_cast ? c : p;
    bool space = strstr(vpn->op, "Space") != NULL;
    if (!real_number_type(new_in) && (new_in != FL_DT_BOOL || space)) {
        return FL_OK;
    }
    const char *pn =
        fl__ao_opt_name2(a, p->name, "ReorderCastLikeAndValuePreserving", fl__dtype_name(dst));
    const char *cn =
        fl__ao_opt_name2(a, c->name, "ReorderCastLikeAndValuePreserving", fl__dtype_name(src));
    if (!pn || !cn) {
        return fl__ao_oom(a);
    }
    if (fl__ao_exists(a, pn) || fl__ao_exists(a, cn)) {
        return FL_OK;
    }
    fl_node *np = fl__ao_copy(a, cn, c);
    if (!np) {
        return fl__ao_oom(a);
    }
    fl__ao_set_input(a, np, 0, p->inputs[0]);
    fl_node *nc = fl__ao_copy(a, pn, p);
    if (!nc) {
        return fl__ao_oom(a);
    }
    fl__ao_set_input(a, nc, 0, (fl_input){np, 0});
    fl_node *vp = p_cast ? np : nc;
    if (fl__ao_set_type(a, vp, "T", new_in) != FL_OK) {
        return fl__ao_oom(a);
    }
    fl__ledger_note(a->pc, "reorder_cast_like_and_value_preserving", c, "%s(%s(x)) -> %s(%s(x))",
                    c->op, p->op, p->op, c->op);
    *fired = true;
    fl__ao_forward(a, c, (fl_input){nc, 0});
    return FL_OK;
}

/* SqrtDivToRsqrtMul (21). */
bool fl__ao_sqrt_div_to_rsqrt_mul_kinds(const fl_node *n) {
    return n->kind == FL_OP_DIV || n->kind == FL_OP_REAL_DIV || n->kind == FL_OP_TRUNCATE_DIV ||
           n->kind == FL_OP_XDIVY;
}

fl_status fl__ao_sqrt_div_to_rsqrt_mul(ao *a, fl_node *n, bool *fired) {
    if (!fl__ao_sqrt_div_to_rsqrt_mul_kinds(n) || n->n_inputs != 2) {
        return FL_OK;
    }
    fl_node *y = n->inputs[1].node;
    if (y->kind != FL_OP_SQRT || fl__preserved(y) || fl__ao_n_uses(a, y) != 1) {
        return FL_OK;
    }
    fl__ledger_note(a->pc, "convert_sqrt_div_to_rsqrt_mul", n, "%s(x, Sqrt(y)) -> %s", n->op,
                    n->kind == FL_OP_XDIVY ? "MulNoNan(Rsqrt(y), x)" : "Mul(x, Rsqrt(y))");
    if (n->kind == FL_OP_XDIVY) {
        fl_input sw[2] = {n->inputs[1], n->inputs[0]};
        fl_status st = fl__ao_set_inputs(a, n, 2, sw);
        if (st != FL_OK) {
            return st;
        }
        fl__node_become(a->g, n, fl__op_name(FL_OP_MUL_NO_NAN));
    } else {
        fl__node_become(a->g, n, fl__op_name(FL_OP_MUL));
    }
    n->src = NULL;
    fl__node_become(a->g, y, fl__op_name(FL_OP_RSQRT));
    y->src = NULL;
    a->pc->rewritten += 2;
    *fired = true;
    return FL_OK;
}
