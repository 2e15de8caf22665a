/*
 * onnx_constant.c - constant folding's rule for ONNX Constant operators.
 *
 *  constant_to_initializer: an ONNX Constant node (kind Const, op type
 *  "Constant") -> the same constant as an initializer (op type "Const",
 *  which the report counts as a value, not an operator). Its value, dtype,
 *  shape and name are kept; only what the node is changes. TensorFlow has no
 *  twin of this rule (its Const is both); it is what ONNX Runtime's constant
 *  folding does first, and what lets the ONNX writer emit the constant as a
 *  graph initializer.
 *
 * The other constant folding rules apply to ONNX operators as they are:
 * materialize_shape takes ONNX Shape and Size (fold.c), and fold takes any
 * registered, stateless ONNX operator whose inputs are all constants (the
 * Gather/Unsqueeze/Concat of a Shape chain, initializer arithmetic), its
 * value computed by the operator's eval hook.
 */
#include "passes/constfold/constfold.h"

#include <string.h>

bool fl__cf_onnx_constant_kinds(const fl_node *n) {
    return n->kind == FL_OP_CONST;
}

fl_status fl__cf_onnx_constant(fl_pass_ctx *pc, fl_node *n, bool *done) {
    if (!fl__cf_onnx_constant_kinds(n)) {
        return FL_OK;
    }
    *done = false;
    fl_graph *g = pc->c->g;
    if (!g->onnx.is_onnx || n->kind != FL_OP_CONST || strcmp(n->op, "Constant") != 0) {
        return FL_OK;
    }
    fl__ledger_note(pc, "constant_to_initializer", n, "Constant -> initializer");
    fl__node_become(g, n, fl__op_name(FL_OP_CONST));
    if (g->arena->failed) {
        return fl__diag_oom(pc->c->d);
    }
    pc->rewritten++;
    *done = true;
    return FL_OK;
}
