/*
 * fold.c - constant folding's rules 1 and 3 (constant_folding.cc: IsFoldable, FoldGraph) and the
 * foldability test they share.
 *  1. materialize_shape: Shape/Size/Rank (and ONNX Shape/Size) whose value
 *     shape inference knows as plain numbers -> Const in place; the data
 *     input becomes a control input (through its anchor; ONNX: dropped, ONNX
 *     has no control edges). Not for a Shape of a shape with a leading 0, as
 *     Grappler.
 *  3. fold: every data input is a Const -> the node's values, computed by the
 *     op's eval hook during shape inference, become a Const in place (one
 *     output; a preserved single-output node keeps its name) or one new Const
 *     per output named ConstantFolding/<node>-folded-<i> (several outputs).
 *     When some input Const is stripped (value unknown) and the output shapes
 *     are fully known, the result is a stripped Const of that shape
 *     (fold_stripped).
 *
 * Never folded: stateful ops (random ops, variables), control flow and
 * functional ops, Placeholders, AccumulateNV2, ops whose name has Save/Restore/Reader/
 * Quantized or starts with Sparse, nodes with a "_tpu_" attr, string,
 * resource or variant outputs or string inputs, nodes nothing consumes
 * (unless preserved), and nodes whose output would exceed max_folded_bytes
 * while being larger than their inputs together.
 */
#include "passes/constfold/constfold.h"

#include <stdio.h>
#include <string.h>

bool fl__cf_bad_dtype(int dt) {
    int b = dt > FL_DT_REF_OFFSET ? dt - FL_DT_REF_OFFSET : dt;
    return b == FL_DT_INVALID || b == FL_DT_STRING || b == FL_DT_RESOURCE || b == FL_DT_VARIANT;
}

/* The Grappler conditions on the op and the node itself (3.2). */
static bool foldable_op(const fl_node *n) {
    if (!n->desc || n->kind == FL_OP_CONST || n->n_inputs < 1 || n->n_outputs < 1) {
        return false;
    }
    if (n->desc->flags & (FL_OPF_STATEFUL | FL_OPF_CONTROL_FLOW | FL_OPF_FUNCTIONAL)) {
        return false;
    }
    if (n->kind == FL_OP_PLACEHOLDER || n->kind == FL_OP_PLACEHOLDER_WITH_DEFAULT ||
        n->kind == FL_OP_ACCUMULATE_NV2 || (n->flags & FL_NODE_IN_LOOP)) {
        return false;
    }
    const char *op = n->op;
    if (strstr(op, "Save") || strstr(op, "Restore") || strstr(op, "Reader") ||
        strstr(op, "Quantized") || strncmp(op, "Sparse", 6) == 0) {
        return false;
    }
    if (fl__has_tpu_attr(n)) {
        return false;
    }
    for (int k = 0; k < n->n_outputs; k++) {
        if (fl__cf_bad_dtype(n->outputs[k].dtype)) {
            return false;
        }
    }
    if (!fl__preserved(n)) {
        bool consumed = n->n_ctrl_consumers > 0;
        for (int k = 0; k < n->n_outputs && !consumed; k++) {
            consumed = n->outputs[k].n_consumers > 0;
        }
        if (!consumed) {
            return false;
        }
    }
    return true;
}

uint64_t fl__cf_tensor_bytes(const fl_tensor *t) {
    uint64_t b = fl__dtype_size(t->dtype);
    for (int i = 0; i < t->shape.rank; i++) {
        b *= (uint64_t)t->shape.dims[i].k;
    }
    return b;
}

/* Replaces multi-output node n by one Const per consumed output. */
static fl_status fold_multi(fl_pass_ctx *pc, fl_node *n) {
    fl_graph *g = pc->c->g;
    for (int k = 0; k < n->n_outputs; k++) {
        if (!n->outputs[k].n_consumers) {
            continue;
        }
        char base[600];
        snprintf(base, sizeof base, "ConstantFolding/%.400s-folded-%d", n->name, k);
        const char *name = fl__graph_unique_name(g, base);
        fl_node *c =
            name ? fl__op_add_op(g, name, fl__op_name(FL_OP_CONST), 0, NULL, 1, pc->c->d) : NULL;
        if (!c) {
            return fl__diag_oom(pc->c->d);
        }
        c->device = n->device;
        c->outputs[0].dtype = n->outputs[k].dtype;
        c->outputs[0].shape = n->outputs[k].shape;
        c->outputs[0].value = n->outputs[k].value;
        /* Keep the folded node's and its inputs' control dependencies. */
        for (int j = 0; j < n->n_ctrl; j++) {
            if (fl__node_add_ctrl(g, c, n->ctrl[j]) != FL_OK) {
                return fl__diag_oom(pc->c->d);
            }
        }
        fl_node tmp = *c;
        tmp.inputs = n->inputs;
        tmp.n_inputs = n->n_inputs;
        fl_status st = fl__node_make_const(pc, &tmp, n->outputs[k].value, false);
        if (st != FL_OK) {
            return st;
        }
        *c = tmp;
        fl__graph_replace_uses(g, n, k, c, 0);
    }
    fl__graph_remove_node(n);
    return FL_OK;
}

/* Evaluates n again when an input became a constant in this sweep (its
 * value was unknown when shapes were inferred). An evaluation that fails
 * leaves the node unfolded, as during inference. */
static fl_status eval_again(fl_pass_ctx *pc, fl_node *n) {
    for (int k = 0; k < n->n_outputs; k++) {
        if (!n->outputs[k].value) {
            fl_diag *d = pc->c->d;
            fl_status saved = d->status;
            char *saved_msg = d->msg;
            bool had = false; /* a value the failure below clears: an edit */
            for (int j = 0; j < n->n_outputs && !had; j++) {
                had = n->outputs[j].value != NULL;
            }
            fl__graph_journal_save(pc->c->g, n); /* eval writes its outputs */
            fl_status st = n->desc->eval ? n->desc->eval(pc->c, n) : FL_OK;
            if (st == FL_ENOMEM) {
                return fl__diag_oom(d);
            }
            if (st != FL_OK) {
                d->status = saved;
                d->msg = saved_msg;
                for (int j = 0; j < n->n_outputs; j++) {
                    n->outputs[j].value = NULL;
                }
                if (had) {
                    fl__node_touch(pc->c->g, n);
                }
            }
            return FL_OK;
        }
    }
    return FL_OK;
}

/* Rule 2; returns true in *done when n was folded. */
fl_status fl__cf_try_fold(fl_pass_ctx *pc, fl_node *n, bool *done) {
    *done = false;
    fl_status st;
    /* Every input a constant, tested first: it is the cheap test that fails
     * on almost every node (foldable_op reads the op's and attrs' strings). */
    for (int i = 0; i < n->n_inputs; i++) {
        if (!fl__is_const(n->inputs[i].node)) {
            return FL_OK;
        }
    }
    if (!foldable_op(n)) {
        return FL_OK;
    }
    uint64_t in_bytes = 0;
    bool stripped = false;
    for (int i = 0; i < n->n_inputs; i++) {
        const fl_node *in = n->inputs[i].node;
        const fl_tensor *t = fl_node_in(n, i);
        if (!fl__is_const(in) || fl__cf_bad_dtype(t->dtype)) {
            return FL_OK;
        }
        if (in->flags & FL_NODE_STRIPPED) {
            stripped = true;
        } else if (!t->value) {
            return FL_OK; /* too large to decode: values unknown */
        }
        if (fl__shape_is_concrete(&t->shape)) {
            in_bytes += fl__cf_tensor_bytes(t);
        }
    }
    if (!stripped) {
        st = eval_again(pc, n);
        if (st != FL_OK) {
            return st;
        }
    }
    bool valued = true;
    for (int k = 0; k < n->n_outputs; k++) {
        const fl_tensor *t = &n->outputs[k];
        if (!fl__shape_is_concrete(&t->shape)) {
            return FL_OK;
        }
        uint64_t ob = fl__cf_tensor_bytes(t);
        if (ob > in_bytes && ob > (uint64_t)pc->opt->max_folded_bytes) {
            return FL_OK;
        }
        if (!t->value || !fl__value_is_concrete(t->value)) {
            valued = false;
        }
    }
    if (!valued && !stripped) {
        return FL_OK;
    }
    if (n->n_outputs == 1) {
        const fl_value *v = valued ? n->outputs[0].value : NULL;
        fl__ledger_note(pc, valued ? "fold" : "fold_stripped", n,
                        valued ? "%s of constants -> Const"
                               : "%s of constants, some stripped -> stripped Const of known shape",
                        n->op);
        st = fl__node_make_const(pc, n, v, false);
        if (st == FL_OK) {
            pc->rewritten++;
            *done = true;
        }
        return st;
    }
    if (fl__preserved(n) || n->n_ctrl_consumers || !valued) {
        return FL_OK;
    }
    fl__ledger_note(pc, "fold", n, "%s of constants -> %d Consts", n->op, n->n_outputs);
    *done = true;
    return fold_multi(pc, n);
}

/* Rule 1. */
bool fl__cf_try_materialize_kinds(const fl_node *n) {
    return n->kind == FL_OP_SHAPE || n->kind == FL_OP_SIZE || n->kind == FL_OP_RANK ||
           n->kind == FL_OP_ONNX_SHAPE || n->kind == FL_OP_ONNX_SIZE;
}

fl_status fl__cf_try_materialize(fl_pass_ctx *pc, fl_node *n, bool *done) {
    if (!fl__cf_try_materialize_kinds(n)) {
        return FL_OK;
    }
    *done = false;
    bool onnx = n->kind == FL_OP_ONNX_SHAPE || n->kind == FL_OP_ONNX_SIZE;
    if ((n->kind != FL_OP_SHAPE && n->kind != FL_OP_SIZE && n->kind != FL_OP_RANK && !onnx) ||
        n->n_inputs != 1 || n->n_outputs != 1) {
        return FL_OK;
    }
    const fl_tensor *t = &n->outputs[0];
    if (!t->value || !fl__value_is_concrete(t->value) || !fl__shape_is_concrete(&t->shape)) {
        return FL_OK;
    }
    const fl_shape *in = &fl_node_in(n, 0)->shape;
    if (n->kind == FL_OP_SHAPE && in->rank > 0 && fl_sym_is_known(in->dims[0]) &&
        in->dims[0].k == 0) {
        return FL_OK; /* Grappler skips shapes with a leading 0 */
    }
    fl__ledger_note(pc, "materialize_shape", n, "%s of a fully known shape -> Const", n->op);
    pc->rewritten++;
    *done = true;
    /* ONNX has no control edges: the input is simply no longer read. */
    return onnx ? fl__node_make_const(pc, n, t->value, false)
                : fl__node_make_const_anchored(pc, n, t->value);
}
