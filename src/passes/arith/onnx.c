/*
 * onnx.c - the arithmetic optimizer's forwarding stages and constant
 * folding's neutral-element rules (SimplifyArithmeticOperations) over ONNX
 * operators, which foldline's IR keeps as their own kinds (TensorFlow's
 * stages do not match them). A forwarding rule removes the node and its
 * readers read the tensor named; it fires only when that tensor has the
 * node's output dtype and shape (no broadcast, no cast), so every value is
 * the same. Ledger names are Grappler's (merge_transposes: ONNX Runtime's
 * transpose optimizer, which Grappler has no rule for).
 *
 *  remove_identity_transpose: Transpose whose permutation is the identity
 *    -> x; Transpose(Transpose(x, p1), p2) with p1[p2[j]] = j for every j
 *    -> x.
 *  merge_transposes: Transpose(Transpose(x, p1), p2) otherwise, the inner
 *    read only by the outer -> Transpose(x, q), q[j] = p1[p2[j]], in place
 *    of the outer (the inner goes as dead).
 *  remove_involution: Neg(Neg(x)), Not(Not(x)) -> x (exact: negation and
 *    logical not are their own inverses; Reciprocal is not, in floating
 *    point, and is left alone).
 *  remove_redundant_reshape: Reshape, Flatten, Squeeze, Unsqueeze whose
 *    output shape equals its input's -> x.
 *  remove_redundant_cast: Cast to x's dtype -> x.
 *  remove_identity: Identity -> x.
 *  multiply_by_one / add_zero: Mul(x, 1), Mul(1, x), Div(x, 1), Add(x, 0),
 *    Add(0, x), Sub(x, 0), the constant of one element (ONNX Runtime's
 *    NoopElimination, which a larger all-ones or all-zeros constant does
 *    not meet: a layer norm's initial scale and bias stay, and fuse), of
 *    type float, half, double, int32 or int64, and of a shape that leaves
 *    x's shape as the output's -> x. x + 0 for x = -0 is +0, which compares
 *    equal: Grappler takes the rule the same way.
 * Conditions: the node is not a graph output, has no control edges and one
 * output (fl__ao_can_forward).
 */
#include "passes/arith/arith.h"

#include <string.h>

/* The permutation of an ONNX Transpose of a rank-r input (absent: the
 * reverse); false when the attr is malformed. */
static bool onnx_perm(const fl_node *t, int64_t *p, int r) {
    const fl_attr *pa = fl__node_attr(t, "perm");
    if (!pa) {
        for (int i = 0; i < r; i++) {
            p[i] = r - 1 - i;
        }
        return true;
    }
    if (pa->kind != FL_ATTR_LIST || (pa->list_kind != FL_ATTR_I && pa->n) || (int)pa->n != r) {
        return false;
    }
    for (int i = 0; i < r; i++) {
        p[i] = pa->v.list.i[i];
        if (p[i] < 0 || p[i] >= r) {
            return false;
        }
    }
    return true;
}

#define MAX_PERM 32

/* The Transpose rules on n; *fired when one applied. */
static fl_status transposes(ao *a, fl_node *n, bool *fired) {
    int r = fl_node_in(n, 0)->shape.rank;
    int64_t p2[MAX_PERM], p1[MAX_PERM], q[MAX_PERM];
    if (r < 0 || r > MAX_PERM || !onnx_perm(n, p2, r)) {
        return FL_OK;
    }
    bool ident = true;
    for (int i = 0; i < r; i++) {
        ident &= p2[i] == i;
    }
    if (ident) {
        fl__ledger_note(a->pc, "remove_identity_transpose", n,
                        "Transpose with the identity permutation removed");
        fl__ao_forward(a, n, n->inputs[0]);
        *fired = true;
        return FL_OK;
    }
    fl_node *in = n->inputs[0].node;
    if (in->kind != FL_OP_ONNX_TRANSPOSE || in->n_inputs != 1 || n->inputs[0].port != 0 ||
        fl_node_in(in, 0)->shape.rank != r || !onnx_perm(in, p1, r)) {
        return FL_OK;
    }
    for (int j = 0; j < r; j++) {
        q[j] = p1[p2[j]];
    }
    ident = true;
    for (int j = 0; j < r; j++) {
        ident &= q[j] == j;
    }
    if (ident) {
        fl__ledger_note(a->pc, "remove_identity_transpose", n,
                        "Transpose(Transpose(x)) with cancelling permutations -> x");
        fl__ao_forward(a, n, in->inputs[0]);
        *fired = true;
        return FL_OK;
    }
    if (!fl__ao_absorbable(a, in)) {
        return FL_OK;
    }
    fl_attr perm = fl__attr_make_ints(a->g, "perm", (size_t)r, q);
    if (!perm.name) {
        return fl__ao_oom(a);
    }
    fl__ledger_note(a->pc, "merge_transposes", n, "Transpose(Transpose(x)) -> one Transpose");
    fl_status st = fl__ao_set_input(a, n, 0, in->inputs[0]);
    if (st == FL_OK) {
        st = fl__ao_set_attr(a, n, perm);
    }
    a->pc->rewritten++;
    *fired = true;
    return st;
}

/* The constant feeding input k of n has one element, equal to want, and
 * a type NoopElimination reads. */
static bool one_equal(const fl_node *n, int k, double want) {
    const fl_tensor *t = fl_node_in(n, k);
    const fl_value *v = t->value;
    int dt = t->dtype;
    double x;
    return fl__is_const(n->inputs[k].node) && v && fl__value_is_concrete(v) && v->n == 1 &&
           (dt == FL_DT_FLOAT || dt == FL_DT_HALF || dt == FL_DT_DOUBLE || dt == FL_DT_INT32 ||
            dt == FL_DT_INT64) &&
           fl__value_f64(v, 0, &x) && x == want;
}

/* The input n forwards to under the neutral-element rules, or -1. */
static int neutral_operand(const fl_node *n, const char **rule) {
    int k = n->kind;
    if (n->n_inputs != 2) {
        return -1;
    }
    *rule = k == FL_OP_ONNX_MUL || k == FL_OP_ONNX_DIV ? "multiply_by_one" : "add_zero";
    if (k == FL_OP_ONNX_MUL || k == FL_OP_ONNX_ADD) {
        double e = k == FL_OP_ONNX_MUL ? 1.0 : 0.0;
        return one_equal(n, 1, e) ? 0 : one_equal(n, 0, e) ? 1 : -1;
    }
    if (k == FL_OP_ONNX_DIV || k == FL_OP_ONNX_SUB) {
        return one_equal(n, 1, k == FL_OP_ONNX_DIV ? 1.0 : 0.0) ? 0 : -1;
    }
    return -1;
}

/* The input n's readers can read instead of n (rules other than the
 * Transpose ones), or -1. */
static int forward_input(const fl_node *n, const char **rule) {
    const fl_node *in = n->inputs[0].node;
    switch (n->kind) {
    case FL_OP_ONNX_NEG:
    case FL_OP_ONNX_NOT:
        *rule = "remove_involution";
        return in->kind == n->kind && in->n_inputs == 1 && n->inputs[0].port == 0 ? 0 : -1;
    case FL_OP_ONNX_RESHAPE:
    case FL_OP_ONNX_FLATTEN:
    case FL_OP_ONNX_SQUEEZE:
    case FL_OP_ONNX_UNSQUEEZE:
        *rule = "remove_redundant_reshape";
        return 0;
    case FL_OP_ONNX_CAST:
        *rule = "remove_redundant_cast";
        return 0;
    case FL_OP_ONNX_IDENTITY:
        *rule = "remove_identity";
        return 0;
    default:
        return neutral_operand(n, rule);
    }
}

/* The kinds fl__ao_onnx matches: the Transpose rules', forward_input's and
 * neutral_operand's. */
bool fl__ao_onnx_kinds(const fl_node *n) {
    switch (n->kind) {
    case FL_OP_ONNX_TRANSPOSE:
    case FL_OP_ONNX_NEG:
    case FL_OP_ONNX_NOT:
    case FL_OP_ONNX_RESHAPE:
    case FL_OP_ONNX_FLATTEN:
    case FL_OP_ONNX_SQUEEZE:
    case FL_OP_ONNX_UNSQUEEZE:
    case FL_OP_ONNX_CAST:
    case FL_OP_ONNX_IDENTITY:
    case FL_OP_ONNX_MUL:
    case FL_OP_ONNX_ADD:
    case FL_OP_ONNX_DIV:
    case FL_OP_ONNX_SUB:
        return true;
    default:
        return false;
    }
}

fl_status fl__ao_onnx(ao *a, fl_node *n, bool *fired) {
    if (!fl__ao_onnx_kinds(n) || !a->g->onnx.is_onnx || n->n_inputs < 1 ||
        !fl__ao_can_forward(a, n)) {
        return FL_OK;
    }
    if (n->kind == FL_OP_ONNX_TRANSPOSE && n->n_inputs == 1) {
        return transposes(a, n, fired);
    }
    const char *rule = NULL;
    int k = forward_input(n, &rule);
    if (k < 0) {
        return FL_OK;
    }
    fl_input to = n->inputs[k];
    if (n->kind == FL_OP_ONNX_NEG || n->kind == FL_OP_ONNX_NOT) {
        to = n->inputs[0].node->inputs[0];
    }
    const fl_tensor *x = &to.node->outputs[to.port], *out = &n->outputs[0];
    if (x->dtype != out->dtype || x->dtype == FL_DT_INVALID || x->shape.rank < 0 ||
        !fl__shape_same(&x->shape, &out->shape)) {
        return FL_OK;
    }
    fl__ledger_note(a->pc, rule, n, "%s removed; readers read '%s'", n->op, to.node->name);
    fl__ao_forward(a, n, to);
    *fired = true;
    return FL_OK;
}
