/*
 * snapshot.c - restorable copies of a graph's state; see snapshot.h.
 */
#include "graph/snapshot.h"

#include <stdlib.h>
#include <string.h>

enum { B_NODES, B_PTRS, B_INPUTS, B_CTRL, B_ATTRS, B_OUTPUTS, B_DIMS, B_INDEX, B_ORDER, B_FUNCS };

static const size_t elem_size[10] = {
    sizeof(fl_node),   sizeof(fl_node *), sizeof(fl_input),  sizeof(fl_node *), sizeof(fl_attr),
    sizeof(fl_tensor), sizeof(fl_sym),    sizeof(fl_node *), sizeof(fl_node *), sizeof(fl_function),
};

void fl__graph_snapshot_init(fl_graph_snapshot *s) {
    memset(s, 0, sizeof(*s));
}

void fl__graph_snapshot_free(fl_graph_snapshot *s) {
    free(s->nodes);
    free(s->node_ptrs);
    free(s->inputs);
    free(s->ctrl);
    free(s->attrs);
    free(s->outputs);
    free(s->dims);
    free(s->index);
    free(s->order);
    free(s->funcs);
    fl__graph_snapshot_init(s);
}

static void **buffer(fl_graph_snapshot *s, int b) {
    switch (b) {
    case B_NODES:
        return (void **)&s->nodes;
    case B_PTRS:
        return (void **)&s->node_ptrs;
    case B_INPUTS:
        return (void **)&s->inputs;
    case B_CTRL:
        return (void **)&s->ctrl;
    case B_ATTRS:
        return (void **)&s->attrs;
    case B_OUTPUTS:
        return (void **)&s->outputs;
    case B_DIMS:
        return (void **)&s->dims;
    case B_INDEX:
        return (void **)&s->index;
    case B_ORDER:
        return (void **)&s->order;
    default:
        return (void **)&s->funcs;
    }
}

/* Copies src's contents over dst only where they differ: a restore after a
 * rewrite that left most arrays alone writes (and dirties) little. */
static void write_back(void *dst, const void *src, size_t bytes) {
    if (bytes && memcmp(dst, src, bytes) != 0) {
        memcpy(dst, src, bytes);
    }
}

fl_status fl__graph_snapshot_take(fl_graph_snapshot *s, const fl_graph *g, size_t max_bytes,
                                  fl_diag *d) {
    s->taken = false;
    size_t need[10] = {0};
    need[B_NODES] = need[B_PTRS] = g->n_nodes;
    for (size_t i = 0; i < g->n_nodes; i++) {
        const fl_node *n = g->nodes[i];
        need[B_INPUTS] += n->n_inputs > 0 ? (size_t)n->n_inputs : 0;
        need[B_CTRL] += n->n_ctrl > 0 ? (size_t)n->n_ctrl : 0;
        need[B_ATTRS] += n->n_attrs > 0 && n->attrs ? (size_t)n->n_attrs : 0;
        if (n->n_outputs > 0 && n->outputs) {
            need[B_OUTPUTS] += (size_t)n->n_outputs;
            for (int k = 0; k < n->n_outputs; k++) {
                const fl_shape *sh = &n->outputs[k].shape;
                need[B_DIMS] += sh->rank > 0 && sh->dims ? (size_t)sh->rank : 0;
            }
        }
    }
    need[B_INDEX] = g->index ? g->index_size : 0;
    need[B_ORDER] = g->order ? g->n_nodes : 0;
    need[B_FUNCS] = g->funcs ? g->n_funcs : 0;

    /* Grow the buffers that are too small: to the exact size the first time,
     * then by half again, so that a graph growing by a few nodes per pass
     * does not reallocate every time. */
    size_t bytes = 0;
    size_t want[10];
    for (int b = 0; b < 10; b++) {
        want[b] = need[b] <= s->cap[b] ? s->cap[b] : s->cap[b] ? need[b] + need[b] / 2 : need[b];
        bytes += want[b] * elem_size[b];
    }
    if (max_bytes && bytes > max_bytes) {
        return fl__diag_oom(d);
    }
    for (int b = 0; b < 10; b++) {
        if (want[b] == s->cap[b]) {
            continue;
        }
        void **p = buffer(s, b);
        void *np = realloc(*p, want[b] * elem_size[b]);
        if (!np) {
            return fl__diag_oom(d);
        }
        *p = np;
        s->cap[b] = want[b];
    }
    s->bytes = bytes;

    s->head = *g;
    s->n_nodes = g->n_nodes;
    size_t oi = 0, oc = 0, oa = 0, oo = 0, od = 0;
    for (size_t i = 0; i < g->n_nodes; i++) {
        const fl_node *n = g->nodes[i];
        s->node_ptrs[i] = g->nodes[i];
        s->nodes[i] = *n;
        if (n->n_inputs > 0) {
            memcpy(s->inputs + oi, n->inputs, (size_t)n->n_inputs * sizeof(fl_input));
            oi += (size_t)n->n_inputs;
        }
        if (n->n_ctrl > 0) {
            memcpy(s->ctrl + oc, n->ctrl, (size_t)n->n_ctrl * sizeof(fl_node *));
            oc += (size_t)n->n_ctrl;
        }
        if (n->n_attrs > 0 && n->attrs) {
            memcpy(s->attrs + oa, n->attrs, (size_t)n->n_attrs * sizeof(fl_attr));
            oa += (size_t)n->n_attrs;
        }
        if (n->n_outputs > 0 && n->outputs) {
            memcpy(s->outputs + oo, n->outputs, (size_t)n->n_outputs * sizeof(fl_tensor));
            oo += (size_t)n->n_outputs;
            for (int k = 0; k < n->n_outputs; k++) {
                const fl_shape *sh = &n->outputs[k].shape;
                if (sh->rank > 0 && sh->dims) {
                    memcpy(s->dims + od, sh->dims, (size_t)sh->rank * sizeof(fl_sym));
                    od += (size_t)sh->rank;
                }
            }
        }
    }
    if (need[B_INDEX]) {
        memcpy(s->index, g->index, need[B_INDEX] * sizeof(fl_node *));
    }
    if (need[B_ORDER]) {
        memcpy(s->order, g->order, need[B_ORDER] * sizeof(fl_node *));
    }
    if (need[B_FUNCS]) {
        memcpy(s->funcs, g->funcs, need[B_FUNCS] * sizeof(fl_function));
    }
    s->taken = true;
    return FL_OK;
}

void fl__graph_snapshot_restore(const fl_graph_snapshot *s, fl_graph *g) {
    if (!s->taken) {
        return;
    }
    *g = s->head;
    write_back(g->nodes, s->node_ptrs, s->n_nodes * sizeof(fl_node *));
    size_t oi = 0, oc = 0, oa = 0, oo = 0, od = 0;
    for (size_t i = 0; i < s->n_nodes; i++) {
        fl_node *n = s->node_ptrs[i];
        *n = s->nodes[i];
        if (n->n_inputs > 0) {
            write_back(n->inputs, s->inputs + oi, (size_t)n->n_inputs * sizeof(fl_input));
            oi += (size_t)n->n_inputs;
        }
        if (n->n_ctrl > 0) {
            write_back(n->ctrl, s->ctrl + oc, (size_t)n->n_ctrl * sizeof(fl_node *));
            oc += (size_t)n->n_ctrl;
        }
        if (n->n_attrs > 0 && n->attrs) {
            write_back(n->attrs, s->attrs + oa, (size_t)n->n_attrs * sizeof(fl_attr));
            oa += (size_t)n->n_attrs;
        }
        if (n->n_outputs > 0 && n->outputs) {
            /* The tensors first (they hold the dims pointers), then dims. */
            write_back(n->outputs, s->outputs + oo, (size_t)n->n_outputs * sizeof(fl_tensor));
            oo += (size_t)n->n_outputs;
            for (int k = 0; k < n->n_outputs; k++) {
                fl_shape *sh = &n->outputs[k].shape;
                if (sh->rank > 0 && sh->dims) {
                    write_back(sh->dims, s->dims + od, (size_t)sh->rank * sizeof(fl_sym));
                    od += (size_t)sh->rank;
                }
            }
        }
    }
    if (g->index && g->index_size) {
        write_back(g->index, s->index, g->index_size * sizeof(fl_node *));
    }
    if (g->order && s->n_nodes) {
        write_back(g->order, s->order, s->n_nodes * sizeof(fl_node *));
    }
    if (g->funcs && g->n_funcs) {
        write_back(g->funcs, s->funcs, g->n_funcs * sizeof(fl_function));
    }
}
