/*
 * predicates.c - the arithmetic optimizer's small predicates shared by its
 * stages: dtype and attr reads, constant values, broadcast compatibility of
 * symbolic shapes (which shape is smaller, as Grappler's ShapesSymbolically
 * Equal / ShapeIsSymbolicallyDefined), the op families (involutions,
 * value-preserving, monotonic, inverse comparisons, idempotent), cancelling
 * permutations, and the in-place rewrite into another op.
 */
#include "passes/arith/arith.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

bool fl__ao_is_complex(int dt) {
    return dt == FL_DT_COMPLEX64 || dt == FL_DT_COMPLEX128;
}

bool fl__ao_on_cpu(const ao *a, const fl_node *n) {
    return fl__node_device(n, a->pc->opt->device) == FL_DEV_CPU;
}

const fl_value *fl__ao_const_value(const fl_node *n) {
    if (n->kind != FL_OP_CONST || n->n_outputs < 1) {
        return NULL;
    }
    const fl_value *v = n->outputs[0].value;
    return v && fl__value_is_concrete(v) ? v : NULL;
}

bool fl__ao_value_all(const fl_value *v, double x) {
    return !fl__ao_is_complex(v->dtype) && v->n >= 1 && fl__value_all_equal(v, x);
}

bool fl__ao_shape_concrete(const fl_shape *s) {
    if (s->rank < 0) {
        return false;
    }
    for (int i = 0; i < s->rank; i++) {
        if (!fl_sym_is_known(s->dims[i]) || s->dims[i].k < 0) {
            return false;
        }
    }
    return true;
}

bool fl__ao_dim_is_one(fl_sym d) {
    return fl_sym_is_known(d) && d.k == 1;
}

bool fl__ao_bcastable(const fl_shape *x, const fl_shape *y) {
    if (!fl__shape_is_determined(x) || !fl__shape_is_determined(y)) {
        return false;
    }
    for (int i = 1; i <= x->rank && i <= y->rank; i++) {
        fl_sym p = x->dims[x->rank - i], q = y->dims[y->rank - i];
        if (!fl__sym_eq(p, q) && !fl__ao_dim_is_one(p) && !fl__ao_dim_is_one(q)) {
            return false;
        }
    }
    return true;
}

bool fl__ao_bcast_keeps(const fl_shape *x, const fl_shape *y) {
    if (!fl__shape_is_determined(x) || !fl__shape_is_determined(y) || y->rank > x->rank) {
        return false;
    }
    for (int i = 1; i <= y->rank; i++) {
        fl_sym p = x->dims[x->rank - i], q = y->dims[y->rank - i];
        if (!fl__sym_eq(p, q) && !fl__ao_dim_is_one(q)) {
            return false;
        }
    }
    return true;
}

bool fl__ao_smaller(const fl_shape *l, const fl_shape *r) {
    if (l->rank < 0 || r->rank < 0) {
        return false;
    }
    int64_t ls = 1, rs = 1;
    int lu = 0, ru = 0;
    bool used[256] = {false};
    for (int i = 0; i < r->rank; i++) {
        if (fl_sym_is_known(r->dims[i]) && r->dims[i].k > 0) {
            rs *= r->dims[i].k;
        }
    }
    for (int i = 0; i < l->rank; i++) {
        fl_sym d = l->dims[i];
        if (fl_sym_is_known(d)) {
            ls *= d.k > 0 ? d.k : 1;
            continue;
        }
        bool matched = false;
        for (int j = 0; j < r->rank && j < 256 && fl_sym_is_symbolic(d); j++) {
            if (!used[j] && fl_sym_is_symbolic(r->dims[j]) && fl__sym_eq(d, r->dims[j])) {
                used[j] = matched = true;
                break;
            }
        }
        lu += !matched;
    }
    for (int j = 0; j < r->rank; j++) {
        ru += !fl_sym_is_known(r->dims[j]) && !(j < 256 && used[j]);
    }
    if (lu == 0 && ru == 0) {
        return ls < rs;
    }
    return ls <= rs && lu == 0 && ru > 0;
}

bool fl__ao_same_sig(const fl_shape *x, const fl_shape *y) {
    if (x->rank != y->rank) {
        return false;
    }
    for (int i = 0; i < x->rank; i++) {
        if (!fl__sym_eq(x->dims[i], y->dims[i])) {
            return false;
        }
    }
    return true;
}

bool fl__ao_involution(const fl_node *n) {
    return n->kind == FL_OP_NEG || n->kind == FL_OP_RECIPROCAL || n->kind == FL_OP_LOGICAL_NOT ||
           n->kind == FL_OP_CONJ || fl__is_pass_op(n, FL_POP_INVERT);
}

bool fl__ao_value_preserving(const fl_node *n) {
    switch (n->kind) {
    case FL_OP_ENTER:
    case FL_OP_EXIT:
    case FL_OP_PREVENT_GRADIENT:
    case FL_OP_SNAPSHOT:
    case FL_OP_STOP_GRADIENT:
    case FL_OP_IDENTITY:
    case FL_OP_EXPAND_DIMS:
    case FL_OP_RESHAPE:
    case FL_OP_SQUEEZE:
    case FL_OP_REVERSE_V2:
    case FL_OP_TRANSPOSE:
    case FL_OP_DEPTH_TO_SPACE:
    case FL_OP_SPACE_TO_DEPTH:
    case FL_OP_BATCH_TO_SPACE_ND:
    case FL_OP_SPACE_TO_BATCH_ND:
        return true;
    default:
        break;
    }
    static const fl_pass_op ops_x[] = {
        FL_POP_CHECK_NUMERICS, FL_POP_DEBUG_GRADIENT_IDENTITY, FL_POP_DEEP_COPY,
        FL_POP_PRINT,          FL_POP_INVERT_PERMUTATION,      FL_POP_REVERSE,
        FL_POP_ROLL,           FL_POP_BATCH_TO_SPACE,          FL_POP_SPACE_TO_BATCH};
    if (fl__pass_op_in(n, ops_x, sizeof ops_x / sizeof ops_x[0])) {
        return true;
    }
    return (n->kind == FL_OP_ADD_N && n->n_inputs == 1);
}

int fl__ao_monotonic(const fl_node *n) {
    static const fl_op_kind up[] = {FL_OP_ASIN,     FL_OP_ATAN,     FL_OP_CEIL,    FL_OP_ELU,
                                    FL_OP_ERF,      FL_OP_EXP,      FL_OP_EXPM1,   FL_OP_FLOOR,
                                    FL_OP_LOG,      FL_OP_LOG1P,    FL_OP_RELU,    FL_OP_RELU6,
                                    FL_OP_RINT,     FL_OP_SELU,     FL_OP_SIGMOID, FL_OP_SIGN,
                                    FL_OP_SOFTSIGN, FL_OP_SOFTPLUS, FL_OP_SQRT,    FL_OP_TANH};
    static const fl_pass_op up_x[] = {FL_POP_ACOSH, FL_POP_ASINH, FL_POP_ATANH, FL_POP_SINH};
    static const fl_op_kind down[] = {FL_OP_ACOS, FL_OP_ERFC, FL_OP_NEG, FL_OP_RSQRT};
    if (n->n_inputs != 1) {
        return 0;
    }
    if (fl__kind_in(n->kind, up, sizeof up / sizeof up[0]) ||
        fl__pass_op_in(n, up_x, sizeof up_x / sizeof up_x[0])) {
        return 1;
    }
    if (fl__kind_in(n->kind, down, sizeof down / sizeof down[0])) {
        return -1;
    }
    return 0;
}

const char *fl__ao_inverse_cmp(int kind) {
    switch (kind) {
    case FL_OP_EQUAL:
        return fl__op_name(FL_OP_NOT_EQUAL);
    case FL_OP_NOT_EQUAL:
        return fl__op_name(FL_OP_EQUAL);
    case FL_OP_LESS:
        return fl__op_name(FL_OP_GREATER_EQUAL);
    case FL_OP_LESS_EQUAL:
        return fl__op_name(FL_OP_GREATER);
    case FL_OP_GREATER:
        return fl__op_name(FL_OP_LESS_EQUAL);
    case FL_OP_GREATER_EQUAL:
        return fl__op_name(FL_OP_LESS);
    default:
        return NULL;
    }
}

bool fl__ao_perms_cancel(const fl_node *outer, const fl_node *inner) {
    const fl_value *p2 = fl_node_in(outer, 1)->value, *p1 = fl_node_in(inner, 1)->value;
    if (!p1 || !p2 || !fl__value_is_concrete(p1) || !fl__value_is_concrete(p2) || p1->n != p2->n) {
        return false;
    }
    /* out[i] = mid[p2[i]] = x[p1[p2[i]]] */
    for (int64_t i = 0; i < p2->n; i++) {
        int64_t a = fl__value_int(p2, i).k;
        if (a < 0 || a >= p1->n || fl__value_int(p1, a).k != i) {
            return false;
        }
    }
    return true;
}

fl_status fl__ao_become(ao *a, fl_node *n, const char *op, int n_in, const fl_input *in) {
    fl_graph *g = a->g;
    int dt = fl_node_in(n, 0)->dtype;
    fl_attr t = fl__attr_make_type(g, "T", dt);
    if (!t.name) {
        return fl__ao_oom(a);
    }
    fl_status st = fl__ao_set_inputs(a, n, n_in, in);
    if (st != FL_OK) {
        return st;
    }
    fl__node_set_attrs(g, n, 0, NULL);
    n->src = NULL;
    fl__node_become(g, n, op);
    if (fl__node_set_attr(g, n, &t) != FL_OK) {
        return fl__ao_oom(a);
    }
    a->pc->rewritten++;
    return FL_OK;
}

fl_status fl__ao_input_to_ctrl(ao *a, fl_node *n, int k) {
    fl_node *dep = n->inputs[k].node;
    fl_input keep[8];
    int w = 0;
    for (int i = 0; i < n->n_inputs && w < 8; i++) {
        if (i != k) {
            keep[w++] = n->inputs[i];
        }
    }
    fl_status st = fl__ao_set_inputs(a, n, w, keep);
    return st == FL_OK ? fl__ao_add_ctrl(a, n, dep) : st;
}

bool fl__ao_idempotent(const fl_node *n) {
    static const fl_op_kind ops[] = {FL_OP_IDENTITY, FL_OP_SNAPSHOT, FL_OP_STOP_GRADIENT,
                                     FL_OP_PREVENT_GRADIENT};
    static const fl_pass_op ops_x[] = {FL_POP_DEBUG_GRADIENT_IDENTITY};
    if (fl__kind_in(n->kind, ops, sizeof ops / sizeof ops[0]) ||
        fl__pass_op_in(n, ops_x, sizeof ops_x / sizeof ops_x[0])) {
        return true;
    }
    return false;
}
