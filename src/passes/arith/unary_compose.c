/*
 * unary_compose.c - the arithmetic optimizer's UnaryOpsComposition (stage
 * 28), run in the last reverse sweep from the last op of each chain.
 *  - unary_ops_composition (28, CPU): a chain of >= 2 unary ops
 *    _UnaryOpsComposition supports for T (float, half, double; some ops not
 *    half), same T, read once, no control edges, not preserved ->
 *    "<root>/unary_ops_composition" with T and op_names in execution order.
 */
#include "passes/arith/arith.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* UnaryOpsComposition (28): the ops _UnaryOpsComposition supports for dt. */
static bool composable(const fl_node *n, int dt) {
    static const fl_op_kind all[] = {
        FL_OP_ABS,   FL_OP_CEIL,    FL_OP_COS,   FL_OP_EXPM1, FL_OP_EXP,        FL_OP_FLOOR,
        FL_OP_INV,   FL_OP_LOG,     FL_OP_LOG1P, FL_OP_NEG,   FL_OP_RECIPROCAL, FL_OP_ROUND,
        FL_OP_RSQRT, FL_OP_SIGMOID, FL_OP_SIN,   FL_OP_SQRT,  FL_OP_SQUARE,     FL_OP_TANH,
        FL_OP_ELU,   FL_OP_RELU,    FL_OP_RELU6, FL_OP_SELU};
    static const fl_op_kind no_half[] = {FL_OP_ACOS, FL_OP_ASIN, FL_OP_ATAN, FL_OP_RINT, FL_OP_TAN};
    static const fl_pass_op no_half_x[] = {FL_POP_ACOSH, FL_POP_ASINH, FL_POP_ATANH, FL_POP_COSH,
                                           FL_POP_SINH};
    if (dt != FL_DT_FLOAT && dt != FL_DT_DOUBLE && dt != FL_DT_HALF) {
        return false;
    }
    if (fl__kind_in(n->kind, all, sizeof all / sizeof all[0])) {
        return true;
    }
    if (fl__kind_in(n->kind, no_half, sizeof no_half / sizeof no_half[0]) ||
        fl__pass_op_in(n, no_half_x, sizeof no_half_x / sizeof no_half_x[0])) {
        return dt != FL_DT_HALF;
    }
    return false;
}

static bool compose_ok(const ao *a, const fl_node *n, const bool *fused) {
    return n->n_inputs == 1 && n->n_outputs == 1 && composable(n, fl__attr_type(n, "T")) &&
           !fl__preserved(n) && fl__ao_on_cpu(a, n) && !fused[n->id] && n->n_ctrl == 0 &&
           a->ctrl_uses[n->id] == 0;
}

/* The ops _UnaryOpsComposition supports for some T. */
bool fl__ao_unary_ops_composition_kinds(const fl_node *n) {
    return composable(n, FL_DT_FLOAT) || composable(n, FL_DT_DOUBLE);
}

fl_status fl__ao_unary_ops_composition(ao *a, fl_node *root, bool *fused) {
    if (!fl__ao_unary_ops_composition_kinds(root) || (root->flags & FL_NODE_REMOVED) ||
        !compose_ok(a, root, fused)) {
        return FL_OK;
    }
    int dt = fl__attr_type(root, "T");
    fl_node *chain[256];
    int n = 0;
    chain[n++] = root;
    fl_node *last = root;
    while (n < 256) {
        fl_node *in = last->inputs[0].node;
        if (fl__attr_type(in, "T") != dt || a->uses[in->id] != 1 || !compose_ok(a, in, fused)) {
            break;
        }
        chain[n++] = in;
        last = in;
    }
    if (n < 2) {
        return FL_OK;
    }
    /* (named only now: most roots have no chain, and the name is memory) */
    const char *nm = fl__arena_printf(a->g->arena, "%s/unary_ops_composition", root->name);
    if (!nm) {
        return fl__ao_oom(a);
    }
    if (fl__ao_exists(a, nm)) {
        return FL_OK;
    }
    const char **names = fl__arena_calloc(a->g->arena, (size_t)n, sizeof(char *));
    if (!names) {
        return fl__ao_oom(a);
    }
    for (int i = 0; i < n; i++) {
        fused[chain[i]->id] = true;
        names[i] = chain[n - 1 - i]->op;
    }
    fl_node *c = fl__ao_add(a, nm, fl__op_name(FL_OP_UNARY_OPS_COMPOSITION), root->device, 1,
                            &last->inputs[0]);
    fl_attr on = fl__attr_make_strs(a->g, "op_names", (size_t)n, names);
    if (!c || fl__ao_set_type(a, c, "T", dt) != FL_OK || !on.name ||
        fl__ao_set_attr(a, c, on) != FL_OK) {
        return fl__ao_oom(a);
    }
    fl__ledger_note(a->pc, "unary_ops_composition", root, "%d unary ops -> _UnaryOpsComposition",
                    n);
    fl__ao_forward(a, root, (fl_input){c, 0});
    return FL_OK;
}
