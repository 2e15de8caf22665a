/*
 * state.c - the arithmetic optimizer's sweep state: exact data and control
 * use counts per node, kept through every rewrite so that the stages'
 * single-consumer conditions hold for the graph as rewritten so far;
 * forwarding (a removed node's consumers read another tensor, resolved
 * when a node is visited); and creating, copying and rewiring nodes through
 * that bookkeeping.
 */
#include "passes/arith/arith.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

fl_status fl__ao_oom(ao *a) {
    return fl__diag_oom(a->pc->c->d);
}

static fl_status ao_grow(ao *a, size_t need) {
    if (need <= a->cap) {
        return FL_OK;
    }
    size_t nc = a->cap * 2 + 16;
    while (nc < need) {
        nc *= 2;
    }
    /* Scratch (the new entries zero), released by fl__ao_free: 24 bytes
     * per node that arena memory kept to the end of the analysis. Each
     * array is replaced as soon as its copy is made, so that a failure
     * leaves every array whole for fl__ao_free. */
    fl_arena *ar = a->pc->c->a;
    uint32_t *u = fl__arena_scratch_grow(ar, a->uses, a->cap, nc, sizeof(uint32_t));
    if (u) {
        a->uses = u;
    }
    uint32_t *cu =
        u ? fl__arena_scratch_grow(ar, a->ctrl_uses, a->cap, nc, sizeof(uint32_t)) : NULL;
    if (cu) {
        a->ctrl_uses = cu;
    }
    fl_input *f = cu ? fl__arena_scratch_grow(ar, a->fwd, a->cap, nc, sizeof(fl_input)) : NULL;
    if (!f) {
        return fl__ao_oom(a);
    }
    a->fwd = f;
    a->cap = nc;
    return FL_OK;
}

void fl__ao_free(ao *a) {
    if (a->pc) {
        fl__arena_scratch_free(a->pc->c->a, a->uses);
        fl__arena_scratch_free(a->pc->c->a, a->ctrl_uses);
        fl__arena_scratch_free(a->pc->c->a, a->fwd);
    }
    a->uses = a->ctrl_uses = NULL;
    a->fwd = NULL;
    a->cap = 0;
}

fl_status fl__ao_init(ao *a, fl_pass_ctx *pc) {
    memset(a, 0, sizeof(*a));
    a->pc = pc;
    a->g = pc->c->g;
    fl_status st = ao_grow(a, a->g->n_nodes + 1);
    if (st != FL_OK) {
        return st;
    }
    for (size_t i = 0; i < a->g->n_nodes; i++) {
        const fl_node *m = a->g->nodes[i];
        if (m->flags & FL_NODE_REMOVED) {
            continue;
        }
        for (int k = 0; k < m->n_inputs; k++) {
            a->uses[m->inputs[k].node->id]++;
        }
        for (int k = 0; k < m->n_ctrl; k++) {
            a->ctrl_uses[m->ctrl[k]->id]++;
        }
    }
    return FL_OK;
}

void fl__ao_resolve_inputs(ao *a, fl_node *m) {
    for (int k = 0; a->n_fwd && k < m->n_inputs; k++) {
        fl__node_set_input(a->g, m, k, fl__resolve(a->fwd, m->inputs[k]));
    }
}

size_t fl__ao_n_uses(const ao *a, const fl_node *n) {
    return a->uses[n->id];
}

bool fl__ao_absorbable(const ao *a, const fl_node *n) {
    return !fl__preserved(n) && n->n_outputs == 1 && a->uses[n->id] == 1 && !a->ctrl_uses[n->id] &&
           n->n_ctrl == 0;
}

bool fl__ao_can_forward(const ao *a, const fl_node *n) {
    return !fl__preserved(n) && n->n_ctrl == 0 && !a->ctrl_uses[n->id] && n->n_outputs == 1;
}

void fl__ao_remove(ao *a, fl_node *m) {
    for (int k = 0; k < m->n_inputs; k++) {
        a->uses[m->inputs[k].node->id]--;
    }
    for (int k = 0; k < m->n_ctrl; k++) {
        a->ctrl_uses[m->ctrl[k]->id]--;
    }
    fl__node_trim_inputs(a->g, m, 0);
    fl__node_trim_ctrl(a->g, m, 0);
    fl__graph_remove_node(m);
    a->pc->removed++;
}

void fl__ao_forward(ao *a, fl_node *m, fl_input to) {
    a->fwd[m->id] = to;
    a->n_fwd++;
    a->uses[to.node->id] += a->uses[m->id];
    if (a->ctrl_uses[m->id]) {
        a->ctrl_uses[to.node->id] += (uint32_t)fl__graph_replace_ctrl_uses(a->g, m, to.node);
    }
    a->uses[m->id] = 0;
    a->ctrl_uses[m->id] = 0;
    fl__ao_remove(a, m);
}

fl_status fl__ao_set_input(ao *a, fl_node *n, int k, fl_input in) {
    a->uses[n->inputs[k].node->id]--;
    a->uses[in.node->id]++;
    fl__node_set_input(a->g, n, k, in);
    a->g->order = NULL;
    return FL_OK;
}

fl_status fl__ao_set_inputs(ao *a, fl_node *n, int n_in, const fl_input *in) {
    fl_input copy[8];
    if (n_in > 8) {
        return FL_EINTERNAL;
    }
    memcpy(copy, in, (size_t)n_in * sizeof(fl_input));
    for (int k = 0; k < n->n_inputs; k++) {
        a->uses[n->inputs[k].node->id]--;
    }
    for (int k = 0; k < n_in; k++) {
        a->uses[copy[k].node->id]++;
    }
    return fl__node_set_inputs(a->g, n, n_in, copy) == FL_OK ? FL_OK : fl__ao_oom(a);
}

fl_status fl__ao_add_ctrl(ao *a, fl_node *n, fl_node *dep) {
    for (int k = 0; k < n->n_ctrl; k++) {
        if (n->ctrl[k] == dep) {
            return FL_OK;
        }
    }
    if (fl__node_add_ctrl(a->g, n, dep) != FL_OK) {
        return fl__ao_oom(a);
    }
    a->ctrl_uses[dep->id]++;
    return FL_OK;
}

fl_status fl__ao_forward_ctrl(ao *a, fl_node *n, const fl_node *from) {
    for (int k = 0; k < from->n_ctrl; k++) {
        fl_status st = fl__ao_add_ctrl(a, n, from->ctrl[k]);
        if (st != FL_OK) {
            return st;
        }
    }
    return FL_OK;
}

fl_status fl__ao_set_attr(ao *a, fl_node *n, fl_attr at) {
    if (!at.name || fl__node_set_attr(a->g, n, &at) != FL_OK) {
        return fl__ao_oom(a);
    }
    return FL_OK;
}

const char *fl__ao_opt_name(ao *a, const char *of, const char *prefix) {
    const char *slash = strrchr(of, '/');
    int scope_len = slash ? (int)(slash - of) + 1 : 0;
    const char *base = slash ? slash + 1 : of;
    return fl__arena_printf(a->g->arena, "%.*sArithmeticOptimizer/%s_%s", scope_len, of, prefix,
                            base);
}

fl_node *fl__ao_add(ao *a, const char *name, const char *op, const char *device, int n_in,
                    const fl_input *in) {
    const char *nm = name ? fl__graph_unique_name(a->g, name) : NULL;
    fl_node *nn = nm ? fl__op_add_op(a->g, nm, op, n_in, in, 1, a->pc->c->d) : NULL;
    if (!nn || ao_grow(a, a->g->n_nodes + 1) != FL_OK) {
        fl__ao_oom(a);
        return NULL;
    }
    nn->device = device;
    for (int k = 0; k < n_in; k++) {
        a->uses[in[k].node->id]++;
    }
    a->pc->added++;
    return nn;
}

fl_node *fl__ao_copy(ao *a, const char *name, const fl_node *n) {
    fl_node *c = fl__ao_add(a, name, n->op, n->device, n->n_inputs, n->inputs);
    if (!c) {
        return NULL;
    }
    if (n->n_attrs) {
        fl_attr *at = fl__arena_calloc(a->g->arena, (size_t)n->n_attrs, sizeof(fl_attr));
        if (!at) {
            fl__ao_oom(a);
            return NULL;
        }
        memcpy(at, n->attrs, (size_t)n->n_attrs * sizeof(fl_attr));
        fl__node_set_attrs(a->g, c, n->n_attrs, at);
    }
    if (fl__ao_forward_ctrl(a, c, n) != FL_OK) {
        return NULL;
    }
    return c;
}

fl_node *fl__ao_add_const(ao *a, const char *name, const char *device, const fl_value *v) {
    fl_node *c = fl__ao_add(a, name, fl__op_name(FL_OP_CONST), device, 0, NULL);
    if (!c || fl__ao_set_attr(a, c, fl__attr_make_type(a->g, "dtype", v->dtype)) != FL_OK) {
        return NULL;
    }
    fl_attr val = fl__attr_make_tensor(a->g, "value", v->dtype, v->rank, v->dims, v);
    if (!val.v.tensor || fl__ao_set_attr(a, c, val) != FL_OK) {
        fl__ao_oom(a);
        return NULL;
    }
    if (fl__infer_node(a->pc, c) != FL_OK) {
        return NULL;
    }
    return c;
}
