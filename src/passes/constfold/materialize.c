/*
 * materialize.c - constant folding's materializations (constant_folding.cc: MaterializeShapes and
 * its kin), tried after materialize_shape (fold.c):
 *  - MaterializeShapes, ShapeN: each consumed port of a known shape reads
 *    ConstantFolding/<n>-matshapes-<p>, control input ^n (TensorArraySizeV3
 *    is in control_flow.c);
 *  - MaterializeBroadcastGradientArgs: inputs Shape or Const, Grappler's
 *    symbolic-dim checks, BCast reduce indices -> ConstantFolding/<n>-
 *    bcastargs-0/1 with ^n;
 *  - MaterializeReductionIndices: full reduction over computed indices ->
 *    Const [0..rank-1] ConstantFolding/<n>-reduction_indices with ^indices;
 *  - MaterializeConstantValuedNode: Fill of constants, ZerosLike/OnesLike of
 *    a known shape -> Const in place, inputs as control inputs.
 *
 * Deliberate difference: MaterializeReductionIndices and
 * MaterializeBroadcastGradientArgs do not fire when the rewrite could make a
 * graph output's shape more known: the driver requires outputs to keep their
 * shapes exactly.
 */
#include "passes/constfold/constfold.h"

#include <stdio.h>
#include <string.h>

/* True when rewiring below n could make a graph output's shape more known:
 * some output reachable from n has a dim or rank inference left unknown.
 * The driver requires every output to keep its shape exactly, so the
 * materializations that can refine shapes (reduction indices,
 * BroadcastGradientArgs) do not fire then. */
static bool may_refine_output(fl_pass_ctx *pc, const fl_node *n) {
    const fl_graph *g = pc->c->g;
    bool *seen = fl__arena_calloc(pc->c->a, g->n_nodes + 1, sizeof(bool));
    const fl_node **stack = fl__arena_calloc(pc->c->a, g->n_nodes + 1, sizeof(fl_node *));
    if (!seen || !stack) {
        return true;
    }
    /* consumers by scan: the graph is small enough for the few candidates */
    size_t sp = 0;
    stack[sp++] = n;
    seen[n->id] = true;
    while (sp) {
        const fl_node *m = stack[--sp];
        if (fl__preserved(m)) {
            for (int k = 0; k < m->n_outputs; k++) {
                if (!fl__shape_is_determined(&m->outputs[k].shape)) {
                    return true;
                }
            }
        }
        for (size_t i = 0; i < g->n_nodes; i++) {
            const fl_node *u = g->nodes[i];
            if (seen[i] || (u->flags & FL_NODE_REMOVED)) {
                continue;
            }
            for (int j = 0; j < u->n_inputs; j++) {
                if (u->inputs[j].node == m) {
                    seen[i] = true;
                    stack[sp++] = u;
                    break;
                }
            }
        }
    }
    return false;
}

bool fl__cf_materialize_shape_n_kinds(const fl_node *n) {
    return n->kind == FL_OP_SHAPE_N;
}

fl_status fl__cf_materialize_shape_n(fl_pass_ctx *pc, fl_node *n, bool *done) {
    if (!fl__cf_materialize_shape_n_kinds(n)) {
        return FL_OK;
    }
    fl_graph *g = pc->c->g;
    if (n->kind != FL_OP_SHAPE_N) {
        return FL_OK;
    }
    for (int p = 0; p < n->n_inputs && p < n->n_outputs; p++) {
        const fl_shape *s = &fl_node_in(n, p)->shape;
        int dt = n->outputs[p].dtype;
        if (!fl__shape_is_concrete(s) || s->rank > 256 ||
            (dt != FL_DT_INT32 && dt != FL_DT_INT64)) {
            continue;
        }
        int64_t dims[256];
        bool fits = true;
        for (int i = 0; i < s->rank; i++) {
            dims[i] = s->dims[i].k;
            fits = fits && (dt == FL_DT_INT64 || dims[i] < INT32_MAX);
        }
        if (!fits) {
            continue;
        }
        bool used = false;
        for (size_t i = 0; i < g->n_nodes && !used; i++) {
            const fl_node *m = g->nodes[i];
            for (int j = 0; j < m->n_inputs && !(m->flags & FL_NODE_REMOVED); j++) {
                used = used || (m->inputs[j].node == n && m->inputs[j].port == p);
            }
        }
        if (!used) {
            continue;
        }
        char suffix[48];
        snprintf(suffix, sizeof suffix, "-matshapes-%d", p);
        const char *name = fl__cf_name(pc, n, suffix);
        if (!name) {
            return fl__diag_oom(pc->c->d);
        }
        fl_node *c = fl__graph_find(g, name);
        if (!c) {
            fl_value *v = fl__cf_int_value(pc, dt, 1, s->rank, dims);
            c = v ? fl__cf_new_const(pc, name, v, n->device, n) : NULL;
            if (!c) {
                return fl__diag_oom(pc->c->d);
            }
        }
        fl__ledger_note(pc, "MaterializeShapes", n, "ShapeN output %d of a known shape -> '%s'", p,
                        c->name);
        fl__graph_replace_uses(g, n, p, c, 0);
        *done = true;
    }
    if (*done) {
        pc->rewritten++;
    }
    return FL_OK;
}

/* One input of BroadcastGradientArgs as Grappler's ExtractShape reads it:
 * known dims, -1 for unknown ones, and one id <= -2 per distinct symbol. */
static bool bcast_shape(const fl_node *m, int port, int64_t *out, int *rank, fl_sym *syms,
                        int *n_syms) {
    if (m->kind == FL_OP_SHAPE) {
        const fl_shape *s = &fl_node_in(m, 0)->shape;
        if (s->rank < 0 || s->rank > 64) {
            return false;
        }
        for (int i = 0; i < s->rank; i++) {
            fl_sym d = s->dims[i];
            if (fl_sym_is_known(d)) {
                out[i] = d.k;
            } else if (fl_sym_is_symbolic(d)) {
                int k = 0;
                while (k < *n_syms && !fl__sym_eq(syms[k], d)) {
                    k++;
                }
                if (k == *n_syms) {
                    syms[(*n_syms)++] = d;
                }
                out[i] = -2 - k;
            } else {
                out[i] = -1;
            }
        }
        *rank = s->rank;
        return true;
    }
    if (!fl__is_const(m) || (m->flags & FL_NODE_STRIPPED)) {
        return false;
    }
    const fl_value *v = m->outputs[port].value;
    int dt = m->outputs[port].dtype;
    if (!v || (dt != FL_DT_INT32 && dt != FL_DT_INT64) || v->n > 64 || !fl__value_is_concrete(v)) {
        return false;
    }
    for (int64_t i = 0; i < v->n; i++) {
        out[i] = fl__cf_ival(v, i);
    }
    *rank = (int)v->n;
    return true;
}

/* BCast's grad_x/grad_y_reduce_idx; false when the shapes do not broadcast. */
static bool bcast_reduce_idx(const int64_t *a, int ra, const int64_t *b, int rb, int64_t *ia,
                             int *na, int64_t *ib, int *nb) {
    *na = *nb = 0;
    if (ra == rb && memcmp(a, b, (size_t)ra * sizeof(int64_t)) == 0) {
        return true;
    }
    int r = ra > rb ? ra : rb;
    int64_t ta[64], tb[64];
    int ka = 0, kb = 0;
    for (int j = 0; j < r; j++) { /* j counts from the innermost dim */
        int64_t x = j < ra ? a[ra - 1 - j] : 1, y = j < rb ? b[rb - 1 - j] : 1;
        bool x1 = x == 1, y1 = y == 1;
        if (!x1 && !y1 && x != y) {
            return false;
        }
        if (x1 && y1) {
            ta[ka++] = r - 1 - j;
            tb[kb++] = r - 1 - j;
        } else if (x1) {
            ta[ka++] = r - 1 - j;
        } else if (y1) {
            tb[kb++] = r - 1 - j;
        }
    }
    for (int i = 0; i < ka; i++) {
        ia[i] = ta[ka - 1 - i];
    }
    for (int i = 0; i < kb; i++) {
        ib[i] = tb[kb - 1 - i];
    }
    *na = ka;
    *nb = kb;
    return true;
}

bool fl__cf_materialize_bcast_args_kinds(const fl_node *n) {
    return fl__is_pass_op(n, FL_POP_BROADCAST_GRADIENT_ARGS);
}

fl_status fl__cf_materialize_bcast_args(fl_pass_ctx *pc, fl_node *n, bool *done) {
    if (!fl__cf_materialize_bcast_args_kinds(n)) {
        return FL_OK;
    }
    fl_graph *g = pc->c->g;
    if (!fl__is_pass_op(n, FL_POP_BROADCAST_GRADIENT_ARGS) || n->n_inputs != 2) {
        return FL_OK;
    }
    const fl_node *s1 = n->inputs[0].node, *s2 = n->inputs[1].node;
    if ((s1->kind != FL_OP_SHAPE && !fl__is_const(s1)) ||
        (s2->kind != FL_OP_SHAPE && !fl__is_const(s2))) {
        return FL_OK;
    }
    const char *f1 = fl__cf_name(pc, n, "-folded-1"), *f2 = fl__cf_name(pc, n, "-folded-2");
    if (!f1 || !f2) {
        return fl__diag_oom(pc->c->d);
    }
    if (fl__graph_find(g, f1) || fl__graph_find(g, f2)) {
        return FL_OK;
    }
    int64_t a[64], b[64];
    int ra, rb, n_syms = 0;
    fl_sym syms[128];
    if (!bcast_shape(s1, n->inputs[0].port, a, &ra, syms, &n_syms) ||
        !bcast_shape(s2, n->inputs[1].port, b, &rb, syms, &n_syms)) {
        return FL_OK;
    }
    int64_t min_id = -1 - n_syms;
    for (int i = 0; i < ra; i++) {
        a[i] = a[i] == -1 ? --min_id : a[i];
    }
    for (int i = 0; i < rb; i++) {
        b[i] = b[i] == -1 ? --min_id : b[i];
    }
    /* Grappler's safety checks (dims compared from the front). */
    int common = ra < rb ? ra : rb;
    for (int i = 0; i < common; i++) {
        if ((a[i] < 0 || b[i] < 0) && a[i] != b[i]) {
            return FL_OK;
        }
    }
    for (int i = common; i < ra; i++) {
        if (a[i] < 0) {
            return FL_OK;
        }
    }
    for (int i = common; i < rb; i++) {
        if (b[i] < 0) {
            return FL_OK;
        }
    }
    int64_t idx[2][64];
    int ni[2];
    if (!bcast_reduce_idx(a, ra, b, rb, idx[0], &ni[0], idx[1], &ni[1])) {
        return FL_OK;
    }
    int t = fl__attr_type(n, "T");
    if ((t != FL_DT_INT32 && t != FL_DT_INT64) || may_refine_output(pc, n)) {
        return FL_OK;
    }
    fl__ledger_note(pc, "MaterializeBroadcastGradientArgs", n,
                    "reduction indices of a known broadcast -> 2 Consts");
    for (int j = 0; j < 2; j++) {
        char suffix[32];
        snprintf(suffix, sizeof suffix, "-bcastargs-%d", j);
        const char *name = fl__cf_name(pc, n, suffix);
        if (!name) {
            return fl__diag_oom(pc->c->d);
        }
        fl_node *c = fl__graph_find(g, name);
        if (!c) {
            fl_value *v = fl__cf_int_value(pc, t, 1, ni[j], idx[j]);
            c = v ? fl__cf_new_const(pc, name, v, n->device, n) : NULL;
            if (!c) {
                return fl__diag_oom(pc->c->d);
            }
        }
        if (j < n->n_outputs) {
            fl__graph_replace_uses(g, n, j, c, 0);
        }
    }
    pc->rewritten++;
    *done = true;
    return FL_OK;
}

bool fl__cf_materialize_reduction_indices_kinds(const fl_node *n) {
    return fl__cf_is_reduction(n->kind);
}

fl_status fl__cf_materialize_reduction_indices(fl_pass_ctx *pc, fl_node *n, bool *done) {
    if (!fl__cf_materialize_reduction_indices_kinds(n)) {
        return FL_OK;
    }
    fl_graph *g = pc->c->g;
    if (!fl__cf_is_reduction(n->kind) || n->n_inputs < 2 || fl__is_const(n->inputs[1].node)) {
        return FL_OK;
    }
    const fl_shape *in = &fl_node_in(n, 0)->shape;
    const fl_tensor *it = fl_node_in(n, 1);
    int dt = it->dtype;
    if (in->rank < 1 || (dt != FL_DT_INT32 && dt != FL_DT_INT64)) {
        return FL_OK;
    }
    int64_t n_idx = fl__shape_is_concrete(&it->shape) ? fl__cf_elems(&it->shape) : -1;
    int out_rank = n->outputs[0].shape.rank;
    bool full = out_rank == 0 || n_idx == in->rank;
    if (!full) {
        fl_node *cons[64];
        size_t nc = fl__consumers_of(g, n, cons, 64);
        if (nc == 0 || nc > 64) {
            return FL_OK;
        }
        for (size_t i = 0; i < nc; i++) {
            const fl_shape *rs = &cons[i]->outputs[0].shape;
            if (cons[i]->kind != FL_OP_RESHAPE || cons[i]->n_outputs != 1 ||
                !fl__shape_is_concrete(rs) || fl__cf_elems(rs) != 1) {
                return FL_OK;
            }
        }
    }
    const char *name = fl__cf_name(pc, n, "-reduction_indices");
    if (!name) {
        return fl__diag_oom(pc->c->d);
    }
    if (fl__graph_find(g, name) || may_refine_output(pc, n)) {
        return FL_OK;
    }
    int64_t iota[256];
    if (in->rank > 256) {
        return FL_OK;
    }
    for (int i = 0; i < in->rank; i++) {
        iota[i] = i;
    }
    fl_value *v = fl__cf_int_value(pc, dt, 1, in->rank, iota);
    fl_node *a = v ? fl__ctrl_anchor(pc, n->inputs[1]) : NULL;
    fl_node *c = a ? fl__cf_new_const(pc, name, v, n->device, a) : NULL;
    if (!c) {
        return fl__diag_oom(pc->c->d);
    }
    fl__ledger_note(pc, "MaterializeReductionIndices", n,
                    "full reduction over computed indices -> Const indices '%s'", name);
    fl__node_set_input(g, n, 1, (fl_input){c, 0});
    n->src = NULL;
    g->order = NULL;
    pc->rewritten++;
    *done = true;
    return FL_OK;
}

bool fl__cf_materialize_constant_valued_kinds(const fl_node *n) {
    return n->kind == FL_OP_FILL || n->kind == FL_OP_ZEROS_LIKE || n->kind == FL_OP_ONES_LIKE;
}

fl_status fl__cf_materialize_constant_valued(fl_pass_ctx *pc, fl_node *n, bool *done) {
    if (!fl__cf_materialize_constant_valued_kinds(n)) {
        return FL_OK;
    }
    if ((n->kind != FL_OP_FILL && n->kind != FL_OP_ZEROS_LIKE && n->kind != FL_OP_ONES_LIKE) ||
        n->n_outputs != 1 || !fl__shape_is_concrete(&n->outputs[0].shape)) {
        return FL_OK;
    }
    if (n->kind == FL_OP_FILL) {
        if (n->n_inputs != 2 || !fl__is_const(n->inputs[0].node) || !fl__cf_const_value(n, 1)) {
            return FL_OK;
        }
        const fl_value *v = n->outputs[0].value;
        if (!v || !fl__value_is_concrete(v)) {
            return FL_OK;
        }
        fl__ledger_note(pc, "MaterializeConstantValuedNode", n, "Fill of constants -> Const");
        pc->rewritten++;
        *done = true;
        return fl__node_make_const(pc, n, v, true);
    }
    return fl__cf_replace_with_filled(pc, n, n->kind == FL_OP_ONES_LIKE ? 1.0 : 0.0,
                                      "MaterializeConstantValuedNode", "of a known shape", done);
}
