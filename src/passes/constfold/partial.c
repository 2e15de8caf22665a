/*
 * partial.c - constant folding's partial folds (constant_folding.cc, SimplifyNode):
 *  - PartialConstPropThroughIdentityN: consumers of an IdentityN output
 *    whose input is a Const read the Const (an IdentityN without control
 *    inputs; preserved ones too: the node and its outputs stay).
 *  - PartialAssocOpConstFolding: AddN/AccumulateNV2 of > 2 inputs, >= 2 but
 *    not all constant -> an AddN ConstantFolding/<n>_partial_split_<k>;
 *    AccumulateNV2 of > 2 inputs all constant -> AddN.
 *  - MergeConcat: a ConcatV2 whose only consumer is a ConcatV2 on the same
 *    axis, not all of its inputs constant, is merged into that consumer
 *    (whose placed inputs must all be on one task).
 *  - PartialConcatConstFolding: runs of constant inputs ->
 *    ConstantFolding/<n>_partial_split_<first>.
 */
#include "passes/constfold/constfold.h"

#include <stdio.h>
#include <string.h>

fl_status fl__cf_partial_identity_n(fl_pass_ctx *pc, fl_node *n, bool *done) {
    if (n->kind != FL_OP_IDENTITY_N || n->n_inputs < 1 || n->n_ctrl) {
        return FL_OK;
    }
    size_t moved = 0;
    for (int i = 0; i < n->n_inputs && i < n->n_outputs; i++) {
        if (fl__is_const(n->inputs[i].node)) {
            moved += fl__graph_replace_uses(pc->c->g, n, i, n->inputs[i].node, n->inputs[i].port);
        }
    }
    if (moved) {
        fl__ledger_note(pc, "PartialConstPropThroughIdentityN", n,
                        "%zu consumers now read the constant inputs directly", moved);
        pc->rewritten++;
        *done = true;
    }
    return FL_OK;
}

bool fl__cf_partial_addn_kinds(const fl_node *n) {
    return n->kind == FL_OP_ADD_N || n->kind == FL_OP_ACCUMULATE_NV2;
}

fl_status fl__cf_partial_addn(fl_pass_ctx *pc, fl_node *n, bool *done) {
    if (!fl__cf_partial_addn_kinds(n)) {
        return FL_OK;
    }
    bool acc = n->kind == FL_OP_ACCUMULATE_NV2;
    if ((n->kind != FL_OP_ADD_N && !acc) || n->n_inputs <= 2) {
        return FL_OK;
    }
    int nc = 0;
    for (int i = 0; i < n->n_inputs; i++) {
        nc += fl__is_const(n->inputs[i].node);
    }
    if (acc && nc == n->n_inputs) {
        /* AccumulateNV2 of constants -> AddN, which folds (Grappler: next round). */
        fl__ledger_note(pc, "PartialAssocOpConstFolding", n,
                        "AccumulateNV2 of %d constants -> AddN", nc);
        fl_node old = *n;
        fl_status st = fl__cf_copy_attrs(pc, n, &old);
        if (st != FL_OK) {
            return st;
        }
        if (fl__node_del_attr(pc->c->g, n, "shape") != FL_OK) {
            return fl__diag_oom(pc->c->d);
        }
        fl__node_become(pc->c->g, n, fl__op_name(FL_OP_ADD_N));
        n->src = NULL;
        pc->rewritten++;
        *done = true;
        return fl__cf_settle(pc, n);
    }
    if (nc <= 1 || nc >= n->n_inputs) {
        return FL_OK;
    }
    char suffix[48];
    snprintf(suffix, sizeof suffix, "_partial_split_%d", nc);
    const char *name = fl__cf_name(pc, n, suffix);
    fl_input *ci = fl__arena_calloc(pc->c->a, (size_t)n->n_inputs, sizeof(fl_input));
    fl_input *keep = fl__arena_calloc(pc->c->a, (size_t)n->n_inputs, sizeof(fl_input));
    if (!name || !ci || !keep) {
        return fl__diag_oom(pc->c->d);
    }
    if (fl__graph_find(pc->c->g, name)) {
        return FL_OK;
    }
    int k = 0, w = 0;
    for (int i = 0; i < n->n_inputs; i++) {
        if (fl__is_const(n->inputs[i].node)) {
            ci[k++] = n->inputs[i];
        }
    }
    fl_node *m = fl__cf_new_op_like(pc, name, fl__op_name(FL_OP_ADD_N), n, k, ci);
    if (!m || fl__cf_set_int_attr(pc, m, "N", k) != FL_OK) {
        return fl__diag_oom(pc->c->d);
    }
    /* the split of an AccumulateNV2 is an AddN */
    if (fl__node_del_attr(pc->c->g, m, "shape") != FL_OK) {
        return fl__diag_oom(pc->c->d);
    }
    bool first = true;
    for (int i = 0; i < n->n_inputs; i++) {
        if (!fl__is_const(n->inputs[i].node)) {
            keep[w++] = n->inputs[i];
        } else if (first) {
            keep[w++] = (fl_input){m, 0};
            first = false;
        }
    }
    fl__ledger_note(pc, "PartialAssocOpConstFolding", n, "%d constant inputs of %d -> AddN '%s'", k,
                    n->n_inputs, name);
    if (fl__node_set_inputs(pc->c->g, n, w, keep) != FL_OK ||
        fl__cf_set_int_attr(pc, n, "N", w) != FL_OK) {
        return fl__diag_oom(pc->c->d);
    }
    n->src = NULL;
    pc->rewritten++;
    *done = true;
    return fl__cf_settle(pc, m);
}

bool fl__cf_partial_concat_kinds(const fl_node *n) {
    return n->kind == FL_OP_CONCAT || n->kind == FL_OP_CONCAT_V2;
}

fl_status fl__cf_partial_concat(fl_pass_ctx *pc, fl_node *n, bool *done) {
    if (!fl__cf_partial_concat_kinds(n)) {
        return FL_OK;
    }
    fl_graph *g = pc->c->g;
    if ((n->kind != FL_OP_CONCAT && n->kind != FL_OP_CONCAT_V2) ||
        strstr(n->name, "_partial_split_") || n->n_inputs <= 3) {
        return FL_OK;
    }
    int begin = 0, end = n->n_inputs, axis = 0;
    if (n->kind == FL_OP_CONCAT) {
        begin = 1;
    } else {
        end = n->n_inputs - 1;
        axis = n->n_inputs - 1;
    }
    int runs[64][2], n_runs = 0;
    for (int first = begin, last = begin; last < end && n_runs < 64; first = last) {
        while (first < end && !fl__is_const(n->inputs[first].node)) {
            first++;
        }
        last = first + 1;
        while (last < end && fl__is_const(n->inputs[last].node)) {
            last++;
        }
        if (first < end && last - first > 1) {
            runs[n_runs][0] = first;
            runs[n_runs][1] = last;
            n_runs++;
        }
    }
    if (!n_runs || (n_runs == 1 && runs[0][0] == begin && runs[0][1] == end)) {
        return FL_OK;
    }
    bool *drop = fl__arena_calloc(pc->c->a, (size_t)n->n_inputs, sizeof(bool));
    fl_input *in = fl__arena_calloc(pc->c->a, (size_t)n->n_inputs + 1, sizeof(fl_input));
    fl_node **added = fl__arena_calloc(pc->c->a, (size_t)n_runs, sizeof(fl_node *));
    if (!drop || !in || !added) {
        return fl__diag_oom(pc->c->d);
    }
    fl__ledger_note(pc, "PartialConcatConstFolding", n, "%d run(s) of constant inputs -> ConcatV2",
                    n_runs);
    for (int r = 0; r < n_runs; r++) {
        int first = runs[r][0], len = runs[r][1] - first;
        const char *name = fl__cf_name(pc, n, "_partial_split");
        do {
            name = name ? fl__arena_printf(pc->c->a, "%s_%d", name, first) : NULL;
        } while (name && fl__graph_find(g, name));
        if (!name) {
            return fl__diag_oom(pc->c->d);
        }
        memcpy(in, &n->inputs[first], (size_t)len * sizeof(fl_input));
        in[len] = n->inputs[axis];
        fl_node *m = fl__cf_new_op_like(pc, name, fl__op_name(FL_OP_CONCAT_V2), n, len + 1, in);
        if (!m || fl__cf_set_int_attr(pc, m, "N", len) != FL_OK) {
            return fl__diag_oom(pc->c->d);
        }
        added[r] = m;
        fl__node_set_input(g, n, first, (fl_input){m, 0});
        for (int i = first + 1; i < first + len; i++) {
            drop[i] = true;
        }
    }
    int w = 0;
    for (int i = 0; i < n->n_inputs; i++) {
        if (!drop[i]) {
            in[w++] = n->inputs[i];
        }
    }
    if (fl__node_set_inputs(g, n, w, in) != FL_OK ||
        fl__cf_set_int_attr(pc, n, "N", w - 1) != FL_OK) {
        return fl__diag_oom(pc->c->d);
    }
    n->src = NULL;
    pc->rewritten++;
    *done = true;
    for (int r = 0; r < n_runs; r++) {
        fl_status st = fl__cf_settle(pc, added[r]);
        if (st != FL_OK) {
            return st;
        }
    }
    return FL_OK;
}

/* ConcatV2's constant axis (GetConcatAxis). */
static bool concat_axis(const fl_node *n, int64_t *axis) {
    if (n->kind != FL_OP_CONCAT_V2 || n->n_inputs < 2) {
        return false;
    }
    const fl_value *v = fl__cf_const_value(n, n->n_inputs - 1);
    if (!v || v->n != 1 || !v->ints) {
        return false;
    }
    *axis = fl__cf_ival(v, 0);
    return true;
}

/* The task part of a device name ("/job:w/replica:0/task:1"), or "". */
static size_t task_len(const char *d) {
    const char *p = strstr(d, "/device:");
    return p ? (size_t)(p - d) : strlen(d);
}

bool fl__cf_merge_concat_kinds(const fl_node *n) {
    return n->kind == FL_OP_CONCAT_V2; /* concat_axis */
}

fl_status fl__cf_merge_concat(fl_pass_ctx *pc, fl_node *n, bool *done) {
    if (!fl__cf_merge_concat_kinds(n)) {
        return FL_OK;
    }
    fl_graph *g = pc->c->g;
    int64_t axis, paxis;
    fl_node *parent;
    if (!concat_axis(n, &axis) || fl__consumers_of(g, n, &parent, 1) != 1) {
        return FL_OK;
    }
    bool all_const = true;
    for (int i = 0; i < n->n_inputs - 1 && all_const; i++) {
        all_const = fl__is_const(n->inputs[i].node);
    }
    if (all_const || !concat_axis(parent, &paxis) || axis != paxis) {
        return FL_OK;
    }
    const char *task = NULL;
    size_t tl = 0;
    for (int i = 0; i < parent->n_inputs - 1; i++) {
        const char *d = fl__dev_of(parent->inputs[i].node);
        if (!*d) {
            continue;
        }
        size_t l = task_len(d);
        if (task && (l != tl || strncmp(task, d, l) != 0)) {
            return FL_OK; /* inputs from two tasks */
        }
        task = d;
        tl = l;
    }
    int w = 0, cap = parent->n_inputs + n->n_inputs;
    fl_input *in = fl__arena_calloc(pc->c->a, (size_t)cap, sizeof(fl_input));
    if (!in) {
        return fl__diag_oom(pc->c->d);
    }
    for (int i = 0; i < parent->n_inputs; i++) {
        if (parent->inputs[i].node == n && parent->inputs[i].port == 0) {
            for (int j = 0; j < n->n_inputs - 1; j++) {
                in[w++] = n->inputs[j];
            }
        } else {
            in[w++] = parent->inputs[i];
        }
    }
    fl__ledger_note(pc, "MergeConcat", n, "ConcatV2 merged into its consumer '%s'", parent->name);
    if (fl__node_set_inputs(g, parent, w, in) != FL_OK ||
        fl__cf_set_int_attr(pc, parent, "N", w - 1) != FL_OK) {
        return fl__diag_oom(pc->c->d);
    }
    fl_node **cs = n->ctrl;
    int ncs = n->n_ctrl;
    for (int k = ncs - 1; k >= 0; k--) {
        if (fl__node_add_ctrl(g, parent, cs[k]) != FL_OK) {
            return fl__diag_oom(pc->c->d);
        }
    }
    parent->src = NULL;
    /* The child becomes a NoOp on its old inputs (ReplaceOperationWithNoOp);
     * nothing reads it any more. */
    fl__node_clear_ctrl(g, n);
    for (int i = 0; i < n->n_inputs; i++) {
        fl_status st = fl__add_ctrl_anchor(pc, n, n->inputs[i]);
        if (st != FL_OK) {
            return st;
        }
    }
    fl__node_trim_inputs(g, n, 0);
    fl__node_set_attrs(g, n, 0, NULL);
    n->n_outputs = 0;
    fl__node_become(g, n, fl__op_name(FL_OP_NO_OP));
    n->src = NULL;
    pc->rewritten += 2;
    *done = true;
    return FL_OK;
}
