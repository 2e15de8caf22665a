/*
 * fold_into.c - the arithmetic optimizer's Fold*Into* stages (2, 3, 4).
 *  - fold_multiply_into_conv (3): Conv2D/Conv3D(chain(Mul(x, s)), W) with W a
 *    Const, s a scalar Const of W's dtype, the Mul read once and not
 *    preserved, the chain value-preserving, single-consumer, not preserved
 *    -> the chain reads x and the conv reads Mul(W, s), a new node
 *    "<W scope>/ArithmeticOptimizer/FoldMultiplyIntoConv_scaled_<conv>_<W>".
 *  - fold_transpose_into_matmul (4): MatMul/BatchMatMul* (not preserved)
 *    whose operand is a Transpose/ConjugateTranspose swapping only the two
 *    innermost dims (constant perm) -> a copy
 *    "ArithmeticOptimizer/FoldTransposeIntoMatMul_<name>" with
 *    transpose_a/b (adj_x/adj_y) flipped reading the transpose's input
 *    (complex: only Transpose for MatMul, only ConjugateTranspose for
 *    BatchMatMul).
 *  - fold_conjugate_into_transpose (2): Conj(Transpose(x)) and
 *    Transpose(Conj(x)) -> ConjugateTranspose(x), Conj(ConjugateTranspose(x))
 *    -> Transpose(x): a copy of the transpose
 *    "ArithmeticOptimizer/FoldConjugateIntoTranspose_<name>" replaces the node
 *    (not preserved).
 */
#include "passes/arith/arith.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* FoldMultiplyIntoConv. */
bool fl__ao_fold_multiply_into_conv_kinds(const fl_node *n) {
    return n->kind == FL_OP_CONV2D || n->kind == FL_OP_CONV3D;
}

fl_status fl__ao_fold_multiply_into_conv(ao *a, fl_node *conv, bool *fired) {
    if (!fl__ao_fold_multiply_into_conv_kinds(conv) || conv->n_inputs < 2) {
        return FL_OK;
    }
    fl_node *w = conv->inputs[1].node;
    if (w->kind != FL_OP_CONST) {
        return FL_OK;
    }
    /* tail of the value-preserving, single-consumer chain above the conv */
    fl_node *tail = conv;
    for (int guard = 0; guard < 1 << 16; guard++) {
        if (tail->n_inputs < 1) {
            break;
        }
        fl_node *nx = tail->inputs[0].node;
        if (fl__preserved(nx) || !fl__ao_value_preserving(nx) || fl__ao_n_uses(a, nx) != 1) {
            break;
        }
        tail = nx;
    }
    if (tail->n_inputs < 1) {
        return FL_OK;
    }
    fl_node *mul = tail->inputs[0].node;
    if ((mul->kind != FL_OP_MUL && mul->kind != FL_OP_MUL_NO_NAN) || mul->n_inputs != 2 ||
        fl__ao_n_uses(a, mul) != 1 || fl__preserved(mul)) {
        return FL_OK;
    }
    int ii = 0, si = 1;
    if (mul->inputs[1].node->kind != FL_OP_CONST && mul->inputs[0].node->kind == FL_OP_CONST) {
        ii = 1;
        si = 0;
    }
    fl_node *scale = mul->inputs[si].node;
    if (scale->kind != FL_OP_CONST || scale->outputs[0].shape.rank != 0) {
        return FL_OK;
    }
    int wdt = fl__attr_type(w, "dtype");
    if (wdt == FL_DT_INVALID || fl__attr_type(scale, "dtype") != wdt) {
        return FL_OK;
    }
    /* The name test (Grappler's first) last: it formats a name for every
     * conv, and the tests above have no side effect to order after it. */
    char pre[600];
    snprintf(pre, sizeof pre, "FoldMultiplyIntoConv_scaled_%.500s", conv->name);
    const char *scaled_name = fl__ao_opt_name(a, w->name, pre);
    if (!scaled_name) {
        return fl__ao_oom(a);
    }
    if (fl__graph_find(a->g, scaled_name)) {
        return FL_OK;
    }
    fl_input in[2] = {conv->inputs[1], mul->inputs[si]};
    fl_node *sw = fl__ao_add(a, scaled_name, mul->op, w->device, 2, in);
    if (!sw || fl__ao_set_attr(a, sw, fl__attr_make_type(a->g, "T", wdt)) != FL_OK ||
        fl__ao_forward_ctrl(a, sw, mul) != FL_OK) {
        return fl__ao_oom(a);
    }
    fl__ledger_note(a->pc, "fold_multiply_into_conv", conv, "%s by scalar '%s' folded into '%s'",
                    mul->op, scale->name, w->name);
    fl__ao_set_input(a, conv, 1, (fl_input){sw, 0});
    fl__ao_set_input(a, tail, 0, mul->inputs[ii]);
    a->pc->rewritten++;
    if (a->uses[mul->id] == 0 && a->ctrl_uses[mul->id] == 0) {
        fl__ao_remove(a, mul);
    }
    *fired = true;
    return FL_OK;
}

/* perm of a Transpose-like node swaps only the two innermost dims. */
static bool inner_matrix_transpose(const fl_node *t) {
    if ((t->kind != FL_OP_TRANSPOSE && t->kind != FL_OP_CONJUGATE_TRANSPOSE) || t->n_inputs != 2) {
        return false;
    }
    const fl_value *p = fl__ao_const_value(t->inputs[1].node);
    if (!p || p->n < 2 || (p->dtype != FL_DT_INT32 && p->dtype != FL_DT_INT64)) {
        return false;
    }
    int64_t n = p->n;
    for (int64_t i = 0; i < n - 2; i++) {
        if (fl__value_int(p, i).k != i) {
            return false;
        }
    }
    return fl__value_int(p, n - 1).k == n - 2 && fl__value_int(p, n - 2).k == n - 1;
}

/* FoldTransposeIntoMatMul. */
bool fl__ao_fold_transpose_into_matmul_kinds(const fl_node *n) {
    return n->kind == FL_OP_MATMUL || n->kind == FL_OP_BATCH_MATMUL ||
           n->kind == FL_OP_BATCH_MATMUL_V2 || n->kind == FL_OP_BATCH_MATMUL_V3;
}

fl_status fl__ao_fold_transpose_into_matmul(ao *a, fl_node *n, bool *fired) {
    if (!fl__ao_fold_transpose_into_matmul_kinds(n) || !fl__ao_can_forward(a, n) ||
        n->n_inputs != 2) {
        return FL_OK;
    }
    bool batch = n->kind != FL_OP_MATMUL;
    bool cplx = fl__ao_is_complex(fl__attr_type(n, "T"));
    fl_op_kind only = !cplx ? FL_OP_UNKNOWN : batch ? FL_OP_CONJUGATE_TRANSPOSE : FL_OP_TRANSPOSE;
    bool fold[2];
    for (int k = 0; k < 2; k++) {
        const fl_node *t = n->inputs[k].node;
        fold[k] = inner_matrix_transpose(t) && (only == FL_OP_UNKNOWN || t->kind == (int)only);
    }
    if (!fold[0] && !fold[1]) {
        return FL_OK; /* before the name is formatted: most MatMuls read no transpose */
    }
    const char *nm = fl__ao_opt_name(a, n->name, "FoldTransposeIntoMatMul");
    if (!nm) {
        return fl__ao_oom(a);
    }
    if (fl__graph_find(a->g, nm)) {
        return FL_OK;
    }
    fl_node *c = fl__ao_copy(a, nm, n);
    if (!c) {
        return fl__ao_oom(a);
    }
    static const char *const flag[2][2] = {{"transpose_a", "transpose_b"}, {"adj_x", "adj_y"}};
    for (int k = 0; k < 2; k++) {
        if (!fold[k]) {
            continue;
        }
        fl_node *t = n->inputs[k].node;
        const char *f = flag[batch][k];
        if (fl__ao_set_attr(a, c, fl__attr_make_bool(a->g, f, !fl__attr_bool(n, f, false))) !=
                FL_OK ||
            fl__ao_forward_ctrl(a, c, t) != FL_OK) {
            return fl__ao_oom(a);
        }
        fl__ao_set_input(a, c, k, t->inputs[0]);
    }
    fl__ledger_note(a->pc, "fold_transpose_into_matmul", n, "%s%s%s folded into %s",
                    fold[0] ? n->inputs[0].node->name : "", fold[0] && fold[1] ? ", " : "",
                    fold[1] ? n->inputs[1].node->name : "", n->op);
    fl__ao_forward(a, n, (fl_input){c, 0});
    *fired = true;
    return FL_OK;
}

/* FoldConjugateIntoTranspose (2). */
bool fl__ao_fold_conjugate_into_transpose_kinds(const fl_node *n) {
    return n->kind == FL_OP_CONJ || n->kind == FL_OP_TRANSPOSE ||
           n->kind == FL_OP_CONJUGATE_TRANSPOSE;
}

fl_status fl__ao_fold_conjugate_into_transpose(ao *a, fl_node *n, bool *fired) {
    bool conj = n->kind == FL_OP_CONJ;
    if (!fl__ao_fold_conjugate_into_transpose_kinds(n) || n->n_inputs < 1 ||
        !fl__ao_replaceable(n)) {
        return FL_OK;
    }
    const char *nm = fl__ao_opt_name(a, n->name, "FoldConjugateIntoTranspose");
    if (!nm) {
        return fl__ao_oom(a);
    }
    if (fl__ao_exists(a, nm)) {
        return FL_OK;
    }
    fl_node *in = n->inputs[0].node;
    fl_node *t = conj ? in : n, *c = conj ? n : in;
    if ((t->kind != FL_OP_TRANSPOSE && t->kind != FL_OP_CONJUGATE_TRANSPOSE) || t->n_inputs != 2 ||
        c->kind != FL_OP_CONJ || c->n_inputs != 1 || in->n_inputs < 1) {
        return FL_OK;
    }
    const char *op = t->kind == FL_OP_TRANSPOSE ? fl__op_name(FL_OP_CONJUGATE_TRANSPOSE)
                                                : fl__op_name(FL_OP_TRANSPOSE);
    fl_node *nt = fl__ao_copy(a, nm, t);
    if (!nt) {
        return fl__ao_oom(a);
    }
    fl__node_become(a->g, nt, op);
    fl__ao_set_input(a, nt, 0, in->inputs[0]);
    if (fl__ao_forward_ctrl(a, nt, in) != FL_OK) {
        return fl__ao_oom(a);
    }
    fl__ledger_note(a->pc, "fold_conjugate_into_transpose", n, "%s(%s(x)) -> %s(x)", n->op, in->op,
                    op);
    *fired = true;
    return fl__ao_replace_by(a, n, nt);
}
