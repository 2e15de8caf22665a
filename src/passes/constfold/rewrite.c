/*
 * rewrite.c - what constant folding's rules share: reading constant inputs,
 * Grappler's IsOnes / IsZeros (Consts, Fill of them, OnesLike/ZerosLike),
 * building nodes named ConstantFolding/<node><suffix> (Grappler's
 * OptimizedNodeName), control-input edits, and the in-place replacements:
 * a Const of zeros or ones (ReplaceOperationWithConstant), a unary op of y
 * (Neg, Reciprocal), or BroadcastTo via ConstantFolding/<n>-broadcastto_
 * shape-<i> when only the other operand has the output shape.
 *
 * Deliberate difference: zeros/ones constants and materialized
 * Fill/ZerosLike/OnesLike are built only up to the analysis's value limit
 * (max_value_elems), and zeros of multiply_by_zero only up to
 * max_folded_bytes: foldline stores constants uncompressed, Grappler stores
 * repeated values compressed.
 */
#include "passes/constfold/constfold.h"

#include <stdio.h>
#include <string.h>

const fl_value *fl__cf_const_value(const fl_node *n, int i) {
    if (i >= n->n_inputs || !fl__is_const(n->inputs[i].node) ||
        (n->inputs[i].node->flags & FL_NODE_STRIPPED)) {
        return NULL;
    }
    const fl_value *v = fl_node_in(n, i)->value;
    return v && fl__value_is_concrete(v) ? v : NULL;
}

int64_t fl__cf_ival(const fl_value *v, int64_t i) {
    return fl__value_int(v, i).k;
}

bool fl__cf_float_or_complex(int dt) {
    return fl__dtype_is_float(dt) || fl__dtype_is_complex(dt);
}

const char *fl__cf_name(fl_pass_ctx *pc, const fl_node *n, const char *suffix) {
    return fl__arena_printf(pc->c->a, "ConstantFolding/%s%s", n->name, suffix);
}

int fl__cf_data_uses(const fl_graph *g, const fl_node *n) {
    int k = 0;
    for (size_t i = 0; i < g->n_nodes; i++) {
        const fl_node *m = g->nodes[i];
        if (m->flags & FL_NODE_REMOVED) {
            continue;
        }
        for (int j = 0; j < m->n_inputs; j++) {
            k += m->inputs[j].node == n;
        }
    }
    return k;
}

void fl__cf_drop_ctrl(fl_graph *g, fl_node *n, const fl_node *dep) {
    int w = 0;
    for (int k = 0; k < n->n_ctrl; k++) {
        if (n->ctrl[k] != dep) {
            fl__node_set_ctrl(g, n, w++, n->ctrl[k]);
        }
    }
    fl__node_trim_ctrl(g, n, w);
}

fl_status fl__cf_set_ctrl(fl_pass_ctx *pc, fl_node *n, fl_node *const *first, int n_first,
                          fl_node *const *last, int n_last) {
    fl_graph *g = pc->c->g;
    fl_node **old = n->ctrl;
    int n_old = n->n_ctrl;
    fl__node_clear_ctrl(g, n);
    for (int k = 0; k < n_first + n_old + n_last; k++) {
        fl_node *d = k < n_first           ? first[k]
                     : k < n_first + n_old ? old[k - n_first]
                                           : last[k - n_first - n_old];
        if (fl__node_add_ctrl(g, n, d) != FL_OK) {
            return fl__diag_oom(pc->c->d);
        }
    }
    return FL_OK;
}

fl_status fl__cf_copy_attrs(fl_pass_ctx *pc, fl_node *n, const fl_node *src) {
    fl__node_set_attrs(pc->c->g, n, 0, NULL);
    if (src->n_attrs) {
        fl_attr *a = fl__arena_calloc(pc->c->a, (size_t)src->n_attrs, sizeof(fl_attr));
        if (!a) {
            return fl__diag_oom(pc->c->d);
        }
        memcpy(a, src->attrs, (size_t)src->n_attrs * sizeof(fl_attr));
        fl__node_set_attrs(pc->c->g, n, src->n_attrs, a);
    }
    return FL_OK;
}

fl_status fl__cf_set_type_attr(fl_pass_ctx *pc, fl_node *n, const char *name, int dt) {
    fl_attr a = fl__attr_make_type(pc->c->g, name, dt);
    if (!a.name || fl__node_set_attr(pc->c->g, n, &a) != FL_OK) {
        return fl__diag_oom(pc->c->d);
    }
    return FL_OK;
}

fl_status fl__cf_set_int_attr(fl_pass_ctx *pc, fl_node *n, const char *name, int64_t v) {
    fl_attr a = fl__attr_make_int(pc->c->g, name, v);
    if (!a.name || fl__node_set_attr(pc->c->g, n, &a) != FL_OK) {
        return fl__diag_oom(pc->c->d);
    }
    return FL_OK;
}

fl_value *fl__cf_int_value(fl_pass_ctx *pc, int dtype, int rank, int64_t n, const int64_t *vals) {
    int64_t dims[1] = {n};
    fl_value *v = fl__value_new(pc->c->a, dtype, rank, dims);
    if (!v) {
        fl__diag_oom(pc->c->d);
        return NULL;
    }
    for (int64_t i = 0; i < n; i++) {
        ((fl_sym *)v->ints)[i] = fl_sym_const(vals ? vals[i] : 0);
    }
    return v;
}

fl_value *fl__cf_filled_value(fl_pass_ctx *pc, int dtype, const fl_shape *s, double x) {
    int64_t dims[256];
    int64_t n = 1;
    if (!fl__shape_is_concrete(s) || s->rank > 256 || fl__dtype_is_complex(dtype)) {
        return NULL;
    }
    for (int i = 0; i < s->rank; i++) {
        dims[i] = s->dims[i].k;
        n = dims[i] && n > pc->c->max_value_elems / dims[i] ? pc->c->max_value_elems + 1
                                                            : n * dims[i];
    }
    if (n > pc->c->max_value_elems) {
        return NULL;
    }
    fl_value *v = fl__value_new(pc->c->a, dtype, s->rank, dims);
    if (!v) {
        return NULL;
    }
    for (int64_t i = 0; i < v->n; i++) {
        if (v->ints) {
            ((fl_sym *)v->ints)[i] = fl_sym_const((int64_t)x);
        } else if (x != 0) {
            fl__value_set_f64(v, i, x);
        }
    }
    return v;
}

fl_node *fl__cf_new_const(fl_pass_ctx *pc, const char *name, const fl_value *v, const char *device,
                          fl_node *ctrl) {
    fl_graph *g = pc->c->g;
    fl_node *c = fl__op_add_op(g, name, fl__op_name(FL_OP_CONST), 0, NULL, 1, pc->c->d);
    fl_sym *dims = fl__arena_calloc(pc->c->a, (size_t)v->rank + 1, sizeof(fl_sym));
    if (!c || !dims) {
        fl__diag_oom(pc->c->d);
        return NULL;
    }
    for (int i = 0; i < v->rank; i++) {
        dims[i] = fl_sym_const(v->dims[i]);
    }
    c->device = device;
    c->outputs[0].dtype = v->dtype;
    c->outputs[0].shape.rank = v->rank;
    c->outputs[0].shape.dims = dims;
    c->outputs[0].value = v;
    if (fl__node_make_const(pc, c, v, false) != FL_OK ||
        (ctrl && fl__node_add_ctrl(g, c, ctrl) != FL_OK)) {
        fl__diag_oom(pc->c->d);
        return NULL;
    }
    pc->added++;
    return c;
}

fl_node *fl__cf_new_op_like(fl_pass_ctx *pc, const char *name, const char *op, const fl_node *like,
                            int n_in, const fl_input *in) {
    fl_node *m = fl__op_add_op(pc->c->g, name, op, n_in, in, 1, pc->c->d);
    if (!m) {
        return NULL;
    }
    m->device = like->device;
    if (fl__cf_copy_attrs(pc, m, like) != FL_OK) {
        return NULL;
    }
    pc->added++;
    return m;
}

fl_status fl__cf_settle(fl_pass_ctx *pc, fl_node *n) {
    fl_status st = fl__infer_node(pc, n);
    if (st != FL_OK) {
        return st;
    }
    for (int k = 0; k < n->n_outputs; k++) {
        if (!n->outputs[k].n_consumers) {
            n->outputs[k].n_consumers = 1;
        }
    }
    bool done = false;
    return fl__cf_try_fold(pc, n, &done);
}

static bool value_all(const fl_node *m, double x) {
    if (!fl__is_const(m) || (m->flags & FL_NODE_STRIPPED) || m->n_outputs < 1) {
        return false;
    }
    const fl_value *v = m->outputs[0].value;
    if (!v || !fl__value_is_concrete(v) || fl__dtype_is_complex(v->dtype)) {
        return false;
    }
    return fl__value_all_equal(v, x);
}

bool fl__cf_is_ones(const fl_node *m) {
    if (m->kind == FL_OP_ONES_LIKE) {
        return true;
    }
    if (m->kind == FL_OP_FILL) {
        return m->n_inputs == 2 && value_all(m->inputs[1].node, 1.0);
    }
    return value_all(m, 1.0);
}

bool fl__cf_is_zeros(const fl_node *m) {
    if (m->kind == FL_OP_ZEROS_LIKE) {
        return true;
    }
    if (m->kind == FL_OP_FILL) {
        return m->n_inputs == 2 && value_all(m->inputs[1].node, 0.0);
    }
    return value_all(m, 0.0);
}

fl_status fl__cf_replace_with_filled(fl_pass_ctx *pc, fl_node *n, double x, const char *rule,
                                     const char *what, bool *done) {
    const fl_tensor *out = &n->outputs[0];
    if (out->dtype == FL_DT_VARIANT) {
        return FL_OK;
    }
    fl_value *v = fl__cf_filled_value(pc, out->dtype, &out->shape, x);
    if (!v) {
        return FL_OK;
    }
    fl__ledger_note(pc, rule, n, "%s %s -> Const %s", n->op, what, x != 0 ? "ones" : "zeros");
    pc->rewritten++;
    *done = true;
    return fl__node_make_const_anchored(pc, n, v);
}

fl_status fl__cf_replace_unary_of_y(fl_pass_ctx *pc, fl_node *n, const char *op) {
    fl_input x = n->inputs[0];
    fl_input y = n->inputs[1];
    fl_node *a = x.node == y.node ? NULL : fl__ctrl_anchor(pc, x);
    if (x.node != y.node && !a) {
        return pc->c->d->status != FL_OK ? pc->c->d->status : fl__diag_oom(pc->c->d);
    }
    if (fl__node_set_inputs(pc->c->g, n, 1, &y) != FL_OK) {
        return fl__diag_oom(pc->c->d);
    }
    fl__node_become(pc->c->g, n, op);
    n->src = NULL;
    pc->rewritten++;
    return a ? fl__cf_set_ctrl(pc, n, &a, 1, NULL, 0) : FL_OK;
}

fl_status fl__cf_replace_with_broadcast_to(fl_pass_ctx *pc, fl_node *n, int keep, const char *rule,
                                           bool *done) {
    fl_graph *g = pc->c->g;
    const fl_tensor *out = &n->outputs[0];
    if (out->dtype == FL_DT_INVALID || !fl__shape_is_concrete(&out->shape) ||
        out->shape.rank > 256 || n->n_inputs > 64) {
        return FL_OK;
    }
    char suffix[64];
    snprintf(suffix, sizeof suffix, "-broadcastto_shape-%d", keep);
    const char *name = fl__cf_name(pc, n, suffix);
    if (!name) {
        return fl__diag_oom(pc->c->d);
    }
    if (fl__graph_find(g, name)) {
        return FL_OK;
    }
    int64_t dims[256];
    for (int i = 0; i < out->shape.rank; i++) {
        dims[i] = out->shape.dims[i].k;
        if (dims[i] > INT32_MAX) {
            return FL_OK;
        }
    }
    fl_value *v = fl__cf_int_value(pc, FL_DT_INT32, 1, out->shape.rank, dims);
    fl_node *c = v ? fl__cf_new_const(pc, name, v, n->device, NULL) : NULL;
    if (!c) {
        return fl__diag_oom(pc->c->d);
    }
    /* Grappler's input order after its swaps: kept input, the shape, then the
     * others as control inputs (second one first... the first other last). */
    fl_input in[64];
    memcpy(in, n->inputs, (size_t)n->n_inputs * sizeof(fl_input));
    fl_input t = in[0];
    in[0] = in[keep];
    in[keep] = t;
    /* The shape constant's control inputs: Grappler anchors the other
     * inputs by node name, so a Switch output gets the port-0 anchor
     * ConstantFoldingCtrl/<switch>_0 whatever its port. */
    for (int i = 0; i < n->n_inputs; i++) {
        fl_status st =
            i == keep ? FL_OK : fl__add_ctrl_anchor(pc, c, (fl_input){n->inputs[i].node, 0});
        if (st != FL_OK) {
            return st;
        }
    }
    fl_node *others[64], *last = NULL;
    int n_others = 0;
    for (int i = 1; i < n->n_inputs; i++) {
        fl_node *a = fl__ctrl_anchor(pc, in[i]);
        if (!a) {
            return pc->c->d->status != FL_OK ? pc->c->d->status : fl__diag_oom(pc->c->d);
        }
        if (i == 1) {
            last = a;
        } else {
            others[n_others++] = a;
        }
    }
    fl_input ni[2] = {in[0], {c, 0}};
    fl_attr tattr = fl__attr_make_type(g, "T", out->dtype);
    fl_attr iattr = fl__attr_make_type(g, "Tidx", FL_DT_INT32);
    if (!tattr.name || !iattr.name || fl__node_set_inputs(g, n, 2, ni) != FL_OK) {
        return fl__diag_oom(pc->c->d);
    }
    fl_status st = fl__cf_set_ctrl(pc, n, others, n_others, last ? &last : NULL, last ? 1 : 0);
    if (st != FL_OK) {
        return st;
    }
    fl__node_set_attrs(g, n, 0, NULL);
    if (fl__node_set_attr(g, n, &tattr) != FL_OK || fl__node_set_attr(g, n, &iattr) != FL_OK) {
        return fl__diag_oom(pc->c->d);
    }
    fl__node_become(g, n, fl__op_name(FL_OP_BROADCAST_TO));
    n->src = NULL;
    fl__ledger_note(pc, rule, n, "broadcasting input %d -> BroadcastTo(%s, %s)", keep,
                    n->inputs[0].node->name, c->name);
    pc->rewritten++;
    *done = true;
    return FL_OK;
}
