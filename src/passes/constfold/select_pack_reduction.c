/*
 * select_pack_reduction.c - constant folding's SimplifySelect, SimplifyPack
 * and SimplifyReduction (constant_folding.cc, SimplifyNode).
 *  - SimplifySelect: a Select/SelectV2 whose condition is all true or all
 *    false -> Identity of the live branch, or BroadcastTo.
 *  - SimplifyPack: one input -> ExpandDims with ConstantFolding/<n>_const_axis,
 *    not when the input is a feed.
 *  - SimplifyReduction: a single-element reduction without keep_dims ->
 *    Reshape to ones via ConstantFolding/<n>_shape_const.
 */
#include "passes/constfold/constfold.h"

#include <stdio.h>
#include <string.h>

bool fl__cf_simplify_select_kinds(const fl_node *n) {
    return n->kind == FL_OP_SELECT || n->kind == FL_OP_SELECT_V2;
}

fl_status fl__cf_simplify_select(fl_pass_ctx *pc, fl_node *n, bool *done) {
    if (!fl__cf_simplify_select_kinds(n)) {
        return FL_OK;
    }
    if ((n->kind != FL_OP_SELECT && n->kind != FL_OP_SELECT_V2) || n->n_inputs < 3) {
        return FL_OK;
    }
    const fl_node *p = n->inputs[0].node;
    bool all_true = fl__cf_is_ones(p), all_false = !all_true && fl__cf_is_zeros(p);
    if (!all_true && !all_false) {
        return FL_OK;
    }
    int live = all_true ? 1 : 2, dead = all_true ? 2 : 1;
    const fl_shape *ps = &fl_node_in(n, 0)->shape;
    const fl_shape *ts = &fl_node_in(n, 1)->shape, *es = &fl_node_in(n, 2)->shape;
    if (fl__shape_same(ts, es) && (fl__shape_same(ps, ts) || ps->rank == 0)) {
        fl__ledger_note(pc, "SimplifySelect", n, "%s with an all-%s predicate -> Identity(%s)",
                        n->op, all_true ? "true" : "false", n->inputs[live].node->name);
        /* Grappler's order: the live input, then the others as control
         * inputs in their swapped positions. */
        fl_node *ap = fl__ctrl_anchor(pc, n->inputs[0]);
        fl_node *ad = ap ? fl__ctrl_anchor(pc, n->inputs[dead]) : NULL;
        if (!ad) {
            return pc->c->d->status != FL_OK ? pc->c->d->status : fl__diag_oom(pc->c->d);
        }
        fl_node *cin[2] = {live == 1 ? ap : ad, live == 1 ? ad : ap};
        fl_input in = n->inputs[live];
        if (fl__node_set_inputs(pc->c->g, n, 1, &in) != FL_OK) {
            return fl__diag_oom(pc->c->d);
        }
        fl_status st = fl__cf_set_ctrl(pc, n, cin, 2, NULL, 0);
        if (st != FL_OK) {
            return st;
        }
        fl__cf_drop_ctrl(pc->c->g, n, in.node);
        fl__node_become(pc->c->g, n, fl__op_name(FL_OP_IDENTITY));
        n->src = NULL;
        pc->rewritten++;
        *done = true;
        return FL_OK;
    }
    return fl__cf_replace_with_broadcast_to(pc, n, live, "SimplifySelect", done);
}

bool fl__cf_simplify_pack_kinds(const fl_node *n) {
    return n->kind == FL_OP_PACK;
}

fl_status fl__cf_simplify_pack(fl_pass_ctx *pc, fl_node *n, bool *done) {
    if (!fl__cf_simplify_pack_kinds(n)) {
        return FL_OK;
    }
    if (n->kind != FL_OP_PACK || n->n_inputs != 1 || fl__is_feed(n->inputs[0].node)) {
        return FL_OK;
    }
    const char *name = fl__cf_name(pc, n, "_const_axis");
    if (!name) {
        return fl__diag_oom(pc->c->d);
    }
    if (fl__graph_find(pc->c->g, name)) {
        return FL_OK;
    }
    int64_t axis = fl__attr_int(n, "axis", 0);
    fl_value *v = fl__cf_int_value(pc, FL_DT_INT32, 0, 1, &axis);
    fl_node *a = v ? fl__ctrl_anchor(pc, n->inputs[0]) : NULL;
    fl_node *c = a ? fl__cf_new_const(pc, name, v, n->device, a) : NULL;
    if (!c) {
        return fl__diag_oom(pc->c->d);
    }
    fl__ledger_note(pc, "SimplifyPack", n, "Pack of one input -> ExpandDims(%s, %lld)",
                    n->inputs[0].node->name, (long long)axis);
    fl_input in[2] = {n->inputs[0], {c, 0}};
    if (fl__node_set_inputs(pc->c->g, n, 2, in) != FL_OK) {
        return fl__diag_oom(pc->c->d);
    }
    if (fl__node_del_attr(pc->c->g, n, "axis") != FL_OK ||
        fl__node_del_attr(pc->c->g, n, "N") != FL_OK) {
        return fl__diag_oom(pc->c->d);
    }
    fl_status st = fl__cf_set_type_attr(pc, n, "Tdim", FL_DT_INT32);
    fl__node_become(pc->c->g, n, fl__op_name(FL_OP_EXPAND_DIMS));
    n->src = NULL;
    pc->rewritten++;
    *done = true;
    return st;
}

bool fl__cf_is_reduction(int k) {
    return k == FL_OP_SUM || k == FL_OP_MEAN || k == FL_OP_MAX || k == FL_OP_MIN ||
           k == FL_OP_PROD || k == FL_OP_ALL || k == FL_OP_ANY;
}

int64_t fl__cf_elems(const fl_shape *s) {
    int64_t e = 1;
    for (int i = 0; i < s->rank; i++) {
        e *= s->dims[i].k;
    }
    return e;
}

/* A single-element reduction without keep_dims -> Reshape to [1, ..., 1]. */
bool fl__cf_simplify_reduction_kinds(const fl_node *n) {
    return fl__cf_is_reduction(n->kind);
}

fl_status fl__cf_simplify_reduction(fl_pass_ctx *pc, fl_node *n, bool *done) {
    if (!fl__cf_simplify_reduction_kinds(n)) {
        return FL_OK;
    }
    if (!fl__cf_is_reduction(n->kind) || n->n_inputs < 2) {
        return FL_OK;
    }
    const fl_value *idx = fl__cf_const_value(n, 1);
    const fl_shape *in = &fl_node_in(n, 0)->shape, *out = &n->outputs[0].shape;
    if (!idx || idx->n == 0 || !fl__shape_is_concrete(in) || !fl__shape_is_concrete(out) ||
        fl__cf_elems(in) != 1 || fl__cf_elems(out) != 1 || fl__attr_int(n, "keep_dims", 0) ||
        fl__attr_type(n, "T") == FL_DT_INVALID) {
        return FL_OK;
    }
    const fl_attr *kd = fl__node_attr(n, "keep_dims");
    if (kd && kd->kind == FL_ATTR_B && kd->v.b) {
        return FL_OK;
    }
    const char *name = fl__cf_name(pc, n, "_shape_const");
    if (!name) {
        return fl__diag_oom(pc->c->d);
    }
    if (fl__graph_find(pc->c->g, name)) {
        return FL_OK;
    }
    int64_t ones[256];
    for (int i = 0; i < out->rank && i < 256; i++) {
        ones[i] = 1;
    }
    fl_value *v = out->rank <= 256 ? fl__cf_int_value(pc, FL_DT_INT32, 1, out->rank, ones) : NULL;
    fl_node *c = v ? fl__cf_new_const(pc, name, v, n->device, n->inputs[1].node) : NULL;
    if (!c) {
        return fl__diag_oom(pc->c->d);
    }
    fl__ledger_note(pc, "SimplifyReduction", n, "%s of a single element -> Reshape", n->op);
    fl__node_set_input(pc->c->g, n, 1, (fl_input){c, 0});
    if (fl__node_del_attr(pc->c->g, n, "keep_dims") != FL_OK ||
        fl__node_del_attr(pc->c->g, n, "Tidx") != FL_OK) {
        return fl__diag_oom(pc->c->d);
    }
    fl_status st = fl__cf_set_type_attr(pc, n, "Tshape", FL_DT_INT32);
    fl__node_become(pc->c->g, n, fl__op_name(FL_OP_RESHAPE));
    n->src = NULL;
    pc->rewritten++;
    *done = true;
    return st;
}
