/*
 * arith.c - constant folding's SimplifyArithmeticOperations and
 * ReduceDivToReciprocalMul (constant_folding.cc, SimplifyNode).
 *  - SimplifyArithmeticOperations: 1*y, 0+y, x*1, x/1, x+0, x-0 -> Identity
 *    (multiply_by_one / add_zero; "multiplication" is Mul, MulNoNan,
 *    LogicalAnd, "division" Div, RealDiv, TruncateDiv, Xdivy; BroadcastTo
 *    via ConstantFolding/<n>-broadcastto_shape-<i> when only the other
 *    operand has the output shape), 0-y -> Neg
 *    (ReplaceSubtractionFromZeroByNegation), 1/y -> Reciprocal for
 *    float/complex (ReplaceDivisionOfOnesByReciprocal), LogicalOr with
 *    all-true -> true Const, Mul/LogicalAnd/MatMul/BatchMatMul* by zeros ->
 *    zeros Const (multiply_by_zero; else Identity or BroadcastTo of the
 *    zeros); "ones"/"zeros" are Consts, Fill of them, OnesLike/ZerosLike.
 *  - ReduceDivToReciprocalMul: Div/RealDiv by a Const -> Mul by
 *    ConstantFolding/<n>_recip, integer Div excluded; Xdivy(x, c) ->
 *    MulNoNan(ConstantFolding/<n>_recip, x).
 *
 * Deliberate differences and rules left out:
 *  - 0 / y in AGGRESSIVE mode (foldline runs Grappler's default level).
 *  - QuantizedMatMul by zeros (multiply_by_zero with
 *    AddQuantizedMatMulMinMaxOutConstNodes): Grappler fails the whole pass
 *    when a ConstantFolding/<n>-quantized_matmul_min_out / _max_out name is
 *    taken; here the rule does not fire. (It is not blocked by "quantized
 *    ops are never folded": that is IsFoldable; this is a simplification.)
 */
#include "passes/constfold/constfold.h"

#include <stdio.h>
#include <string.h>

/* The range TensorFlow gives a quantized type, as a float
 * (QuantizedTypeMin/MaxAsFloat); false for other types. */
static bool quantized_range(int dt, double *lo, double *hi) {
    switch (dt) {
    case FL_DT_QINT8:
        *lo = -128.0, *hi = 127.0;
        return true;
    case FL_DT_QUINT8:
        *lo = 0.0, *hi = 255.0;
        return true;
    case FL_DT_QINT16:
        *lo = -32768.0, *hi = 32767.0;
        return true;
    case FL_DT_QUINT16:
        *lo = 0.0, *hi = 65535.0;
        return true;
    case FL_DT_QINT32:
        *lo = -2147483648.0, *hi = 2147483647.0; /* 2^31 as a float */
        return true;
    default:
        return false;
    }
}

/* QuantizedMatMul by zeros (fully known output within the folding limit):
 * the node becomes a zeros Const of Toutput (ReplaceOperationWithConstant),
 * and its outputs 1 and 2 (min_out, max_out) become the float scalar Consts
 * ConstantFolding/<n>-quantized_matmul_min_out / -max_out holding Toutput's
 * range, each waiting on every input of the node, their readers moved to
 * them (AddQuantizedMatMulMinMaxOutConstNodes). TensorFlow fails the pass
 * when those names are taken; here the rule does not fire. */
static fl_status quantized_matmul_by_zero(fl_pass_ctx *pc, fl_node *n, bool *done) {
    fl_graph *g = pc->c->g;
    const fl_tensor *out = &n->outputs[0];
    double lo, hi;
    if (n->n_outputs != 3 || !quantized_range(out->dtype, &lo, &hi)) {
        return FL_OK;
    }
    fl_value *zeros = fl__cf_filled_value(pc, out->dtype, &out->shape, 0.0);
    const char *names[2] = {fl__cf_name(pc, n, "-quantized_matmul_min_out"),
                            fl__cf_name(pc, n, "-quantized_matmul_max_out")};
    if (!zeros || !names[0] || !names[1]) {
        return pc->c->a->failed ? fl__diag_oom(pc->c->d) : FL_OK;
    }
    if (fl__graph_find(g, names[0]) || fl__graph_find(g, names[1])) {
        return FL_OK;
    }
    fl_node *consts[2];
    for (int k = 0; k < 2; k++) {
        fl_value *v = fl__value_new(pc->c->a, FL_DT_FLOAT, 0, NULL);
        if (!v) {
            return fl__diag_oom(pc->c->d);
        }
        fl__value_set_f64(v, 0, k ? hi : lo);
        consts[k] = fl__cf_new_const(pc, names[k], v, n->device, NULL);
        if (!consts[k]) {
            return fl__diag_oom(pc->c->d);
        }
        /* Grappler copies the node's inputs once they are control inputs:
         * the data inputs' anchors, then its own control inputs. */
        for (int i = 0; i < n->n_inputs; i++) {
            fl_status st = fl__add_ctrl_anchor(pc, consts[k], n->inputs[i]);
            if (st != FL_OK) {
                return st;
            }
        }
        for (int i = 0; i < n->n_ctrl; i++) {
            if (fl__node_add_ctrl(g, consts[k], n->ctrl[i]) != FL_OK) {
                return fl__diag_oom(pc->c->d);
            }
        }
        fl__graph_replace_uses(g, n, 1 + k, consts[k], 0);
    }
    fl__ledger_note(pc, "multiply_by_zero", n,
                    "%s by zeros -> Const zeros, min/max outputs -> '%s', '%s'", n->op, names[0],
                    names[1]);
    pc->rewritten++;
    *done = true;
    return fl__node_make_const_anchored(pc, n, zeros);
}

bool fl__cf_simplify_arith_kinds(const fl_node *n) {
    switch (n->kind) {
    case FL_OP_MUL:
    case FL_OP_MUL_NO_NAN:
    case FL_OP_LOGICAL_AND:
    case FL_OP_MATMUL:
    case FL_OP_BATCH_MATMUL:
    case FL_OP_BATCH_MATMUL_V2:
    case FL_OP_BATCH_MATMUL_V3:
    case FL_OP_QUANTIZED_MATMUL:
    case FL_OP_ADD: /* fl__is_add tests Add's T itself */
    case FL_OP_ADD_V2:
    case FL_OP_BIAS_ADD:
    case FL_OP_LOGICAL_OR:
    case FL_OP_SUB:
    case FL_OP_DIV:
    case FL_OP_REAL_DIV:
    case FL_OP_TRUNCATE_DIV:
    case FL_OP_XDIVY:
        return true;
    default:
        return false;
    }
}

fl_status fl__cf_simplify_arith(fl_pass_ctx *pc, fl_node *n, bool *done) {
    if (!fl__cf_simplify_arith_kinds(n)) {
        return FL_OK;
    }
    int k = n->kind;
    bool is_mul = k == FL_OP_MUL || k == FL_OP_MUL_NO_NAN || k == FL_OP_LOGICAL_AND;
    bool is_matmul = k == FL_OP_MATMUL || k == FL_OP_BATCH_MATMUL || k == FL_OP_BATCH_MATMUL_V2 ||
                     k == FL_OP_BATCH_MATMUL_V3 || k == FL_OP_QUANTIZED_MATMUL;
    bool is_add = fl__is_add(n) || k == FL_OP_BIAS_ADD || k == FL_OP_LOGICAL_OR;
    bool is_sub = k == FL_OP_SUB;
    bool is_div =
        k == FL_OP_DIV || k == FL_OP_REAL_DIV || k == FL_OP_TRUNCATE_DIV || k == FL_OP_XDIVY;
    if ((!is_mul && !is_matmul && !is_add && !is_sub && !is_div) || n->n_inputs < 2) {
        return FL_OK;
    }
    const fl_node *x = n->inputs[0].node, *y = n->inputs[1].node;
    const fl_shape *out = &n->outputs[0].shape;
    bool ym = fl__shape_same(out, &fl_node_in(n, 1)->shape);
    bool xm = fl__shape_same(out, &fl_node_in(n, 0)->shape);
    bool x0 = fl__cf_is_zeros(x), x1 = !x0 && fl__cf_is_ones(x);
    if ((is_mul && x1) || (is_add && x0)) {
        const char *rule = is_mul ? "multiply_by_one" : "add_zero";
        if (ym) {
            fl__ledger_note(pc, rule, n, "%s with neutral constant '%s' -> Identity", n->op,
                            x->name);
            pc->rewritten++;
            *done = true;
            return fl__node_make_identity(pc, n, 1);
        }
        return xm ? fl__cf_replace_with_broadcast_to(pc, n, 1, rule, done) : FL_OK;
    }
    if (ym && is_sub && x0) {
        fl__ledger_note(pc, "ReplaceSubtractionFromZeroByNegation", n, "%s(0, y) -> Neg(y)", n->op);
        *done = true;
        return fl__cf_replace_unary_of_y(pc, n, "Neg");
    }
    if (ym && is_div && x1 && fl__cf_float_or_complex(fl__attr_type(n, "T"))) {
        fl__ledger_note(pc, "ReplaceDivisionOfOnesByReciprocal", n, "%s(1, y) -> Reciprocal(y)",
                        n->op);
        *done = true;
        return fl__cf_replace_unary_of_y(pc, n, "Reciprocal");
    }
    bool y0 = fl__cf_is_zeros(y), y1 = !y0 && fl__cf_is_ones(y);
    if (((is_mul || is_div) && y1) || ((is_add || is_sub) && y0)) {
        const char *rule = is_mul || is_div ? "multiply_by_one" : "add_zero";
        if (xm) {
            fl__ledger_note(pc, rule, n, "%s with neutral constant '%s' -> Identity", n->op,
                            y->name);
            pc->rewritten++;
            *done = true;
            return fl__node_make_identity(pc, n, 0);
        }
        return ym ? fl__cf_replace_with_broadcast_to(pc, n, 0, rule, done) : FL_OK;
    }
    bool concrete = fl__shape_is_concrete(out);
    if (concrete && k == FL_OP_LOGICAL_OR && (x1 || y1)) {
        return fl__cf_replace_with_filled(pc, n, 1.0, "logical_or_true", "with an all-true input",
                                          done);
    }
    if ((x0 || y0) && (is_mul || is_matmul)) {
        if (concrete &&
            fl__cf_tensor_bytes(&n->outputs[0]) <= (uint64_t)pc->opt->max_folded_bytes) {
            if (k == FL_OP_QUANTIZED_MATMUL) {
                return quantized_matmul_by_zero(pc, n, done);
            }
            fl_status st =
                fl__cf_replace_with_filled(pc, n, 0.0, "multiply_by_zero", "by zeros", done);
            if (st != FL_OK || *done) {
                return st;
            }
        }
        if (is_mul && x0) {
            if (xm) {
                fl__ledger_note(pc, "multiply_by_zero", n, "%s by zeros '%s' -> Identity", n->op,
                                x->name);
                pc->rewritten++;
                *done = true;
                return fl__node_make_identity(pc, n, 0);
            }
            return ym ? fl__cf_replace_with_broadcast_to(pc, n, 0, "multiply_by_zero", done)
                      : FL_OK;
        }
        if (is_mul && y0) {
            if (ym) {
                fl__ledger_note(pc, "multiply_by_zero", n, "%s by zeros '%s' -> Identity", n->op,
                                y->name);
                pc->rewritten++;
                *done = true;
                return fl__node_make_identity(pc, n, 1);
            }
            return xm ? fl__cf_replace_with_broadcast_to(pc, n, 1, "multiply_by_zero", done)
                      : FL_OK;
        }
    }
    return FL_OK;
}

bool fl__cf_reduce_div_to_reciprocal_mul_kinds(const fl_node *n) {
    return n->kind == FL_OP_DIV || n->kind == FL_OP_REAL_DIV || n->kind == FL_OP_XDIVY;
}

fl_status fl__cf_reduce_div_to_reciprocal_mul(fl_pass_ctx *pc, fl_node *n, bool *done) {
    if (!fl__cf_reduce_div_to_reciprocal_mul_kinds(n)) {
        return FL_OK;
    }
    if ((n->kind != FL_OP_DIV && n->kind != FL_OP_REAL_DIV && n->kind != FL_OP_XDIVY) ||
        n->n_inputs < 2 || !fl__is_const(n->inputs[1].node)) {
        return FL_OK;
    }
    int t = fl__attr_type(n, "T");
    if (t == FL_DT_INVALID || (n->kind == FL_OP_DIV && !fl__cf_float_or_complex(t))) {
        return FL_OK;
    }
    const char *name = fl__cf_name(pc, n, "_recip");
    if (!name) {
        return fl__diag_oom(pc->c->d);
    }
    if (fl__graph_find(pc->c->g, name)) {
        return FL_OK;
    }
    fl_node *r =
        fl__op_add_op(pc->c->g, name, fl__op_name(FL_OP_RECIPROCAL), 1, &n->inputs[1], 1, pc->c->d);
    if (!r || fl__cf_set_type_attr(pc, r, "T", t) != FL_OK) {
        return fl__diag_oom(pc->c->d);
    }
    r->device = n->device;
    pc->added++;
    if (n->kind == FL_OP_XDIVY) {
        /* Xdivy(x, c) -> MulNoNan(Reciprocal(c), x): 0 where x is 0. */
        fl__ledger_note(pc, "ReduceDivToReciprocalMul", n,
                        "Xdivy(x, const '%s') -> MulNoNan(Reciprocal, x)", n->inputs[1].node->name);
        fl__node_set_input(pc->c->g, n, 1, n->inputs[0]);
        fl__node_set_input(pc->c->g, n, 0, (fl_input){r, 0});
        fl__node_become(pc->c->g, n, fl__op_name(FL_OP_MUL_NO_NAN));
        n->src = NULL;
        pc->rewritten++;
        *done = true;
        return fl__cf_settle(pc, r);
    }
    fl__ledger_note(pc, "ReduceDivToReciprocalMul", n, "%s(x, const '%s') -> Mul(x, Reciprocal)",
                    n->op, n->inputs[1].node->name);
    fl__node_set_input(pc->c->g, n, 1, (fl_input){r, 0});
    fl__node_become(pc->c->g, n, fl__op_name(FL_OP_MUL));
    n->src = NULL;
    pc->rewritten++;
    *done = true;
    return fl__cf_settle(pc, r);
}
