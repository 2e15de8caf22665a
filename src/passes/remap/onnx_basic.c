/*
 * onnx_basic.c - a rewrite rule of ONNX Runtime's level 1 ('basic') that
 * the remapper runs first on ONNX graphs (its first sweep, before every
 * fusion, as ONNX Runtime runs its level-1 rules before its fusions).
 *
 *  eliminate_dropout (EliminateDropout): Dropout(x[, ratio[, training_mode]])
 *    whose mask output (output 1) nothing reads  =>  its readers read x and
 *    the Dropout goes. Conditions: the model's ai.onnx opset below 22 (ONNX
 *    Runtime matches Dropout of versions 1, 6, 7, 10, 12 and 13), the
 *    Dropout not a graph output, no control edges. As in ONNX Runtime's
 *    inference build, ratio and training_mode are not looked at (an
 *    exporter writes training_mode false for an eval-mode model; a Dropout
 *    the runtime keeps would drop nothing at inference either).
 */
#include "passes/remap/remap.h"

bool fl__rm_onnx_eliminate_dropout(rctx *r, fl_node *n) {
    if (n->kind != FL_OP_ONNX_DROPOUT || n->n_inputs < 1 || r->g->onnx.opset >= 22 ||
        fl__preserved(n) || fl__rm_has_ctrl(r, n) || n->id >= r->n0 ||
        fl__rm_fanout(r, n, 1) != 0) {
        return false;
    }
    fl_input x = n->inputs[0];
    fl__ledger_note(r->pc, "eliminate_dropout", n, "Dropout whose mask is unread removed");
    fl__edge_index_replace_uses(&r->edges, n, 0, x.node, x.port, r->d);
    fl__rm_drop(r, n);
    return true;
}
