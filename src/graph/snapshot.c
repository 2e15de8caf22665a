/*
 * snapshot.c - restorable copies of a graph's state; see snapshot.h.
 */
#include "graph/snapshot.h"

#include "graph/mutate.h"

#include <stdlib.h>
#include <string.h>

enum { B_NODES, B_PTRS, B_INPUTS, B_CTRL, B_OUTPUTS, B_DIMS, B_INDEX, B_ORDER, B_FUNCS, B_COUNT };

static const size_t elem_size[B_COUNT] = {
    sizeof(fl_node),
    sizeof(fl_node *),
    sizeof(fl_input),
    sizeof(fl_node *),
    sizeof(fl_tensor),
    sizeof(fl_sym),
    sizeof(struct fl_name_slot),
    sizeof(fl_node *),
    sizeof(fl_function),
};

void fl__graph_snapshot_init(fl_graph_snapshot *s) {
    memset(s, 0, sizeof(*s));
}

void fl__graph_snapshot_free(fl_graph_snapshot *s) {
    free(s->nodes);
    free(s->node_ptrs);
    free(s->inputs);
    free(s->ctrl);
    free(s->outputs);
    free(s->dims);
    free(s->index);
    free(s->order);
    free(s->funcs);
    free(s->at);
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

/* The per-node offsets, sized for n nodes. Left out (indexed false: every
 * node then compares as changed) when a pool holds more than 2^32 - 1
 * elements. */
static fl_status index_reserve(fl_graph_snapshot *s, size_t n, const size_t need[B_COUNT],
                               size_t max_bytes, size_t bytes, fl_diag *d) {
    s->indexed = false;
    for (int b = 0; b < B_COUNT; b++) {
        if (need[b] >= UINT32_MAX || n >= UINT32_MAX / 2) {
            return FL_OK;
        }
    }
    size_t cap_at = n <= s->cap_at ? s->cap_at : n + n / 2;
    if (max_bytes && bytes + cap_at * sizeof(*s->at) > max_bytes) {
        return fl__diag_oom(d);
    }
    if (cap_at != s->cap_at) {
        void *np = realloc(s->at, cap_at * sizeof(*s->at));
        if (!np) {
            return fl__diag_oom(d);
        }
        s->at = np;
        s->cap_at = cap_at;
    }
    s->indexed = true;
    return FL_OK;
}

fl_status fl__graph_snapshot_take(fl_graph_snapshot *s, fl_graph *g, size_t max_bytes, fl_diag *d) {
    s->taken = false;
    fl_status st;
    /* The attr arrays are saved by pointer: none may be written in place
     * from now on (fl__node_set_attr and fl__node_del_attr copy an array
     * before editing it unless it is the one they made last). */
    g->attr_tail = (struct fl_attr_tail){NULL, NULL, 0, 0};
    size_t need[B_COUNT] = {0};
    need[B_NODES] = need[B_PTRS] = g->n_nodes;
    for (size_t i = 0; i < g->n_nodes; i++) {
        const fl_node *n = g->nodes[i];
        need[B_INPUTS] += n->n_inputs > 0 ? (size_t)n->n_inputs : 0;
        need[B_CTRL] += n->n_ctrl > 0 ? (size_t)n->n_ctrl : 0;
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
    size_t want[B_COUNT];
    for (int b = 0; b < B_COUNT; b++) {
        want[b] = need[b] <= s->cap[b] ? s->cap[b] : s->cap[b] ? need[b] + need[b] / 2 : need[b];
        bytes += want[b] * elem_size[b];
    }
    if (max_bytes && bytes > max_bytes) {
        return fl__diag_oom(d);
    }
    for (int b = 0; b < B_COUNT; b++) {
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
    st = index_reserve(s, g->n_nodes, need, max_bytes, bytes, d);
    if (st != FL_OK) {
        return st;
    }
    s->bytes = bytes + s->cap_at * sizeof(*s->at);

    s->head = *g;
    s->n_nodes = g->n_nodes;
    s->stamp = g->birth + 1;
    size_t oi = 0, oc = 0, oo = 0, od = 0;
    for (size_t i = 0; i < g->n_nodes; i++) {
        fl_node *n = g->nodes[i];
        s->node_ptrs[i] = n;
        if (s->indexed) {
            n->snap_ix = (uint32_t)i;
            s->at[i] = (struct fl_snapshot_at){(uint32_t)oi, (uint32_t)oo, (uint32_t)od};
        }
        s->nodes[i] = *n;
        if (n->n_inputs > 0) {
            memcpy(s->inputs + oi, n->inputs, (size_t)n->n_inputs * sizeof(fl_input));
            oi += (size_t)n->n_inputs;
        }
        if (n->n_ctrl > 0) {
            memcpy(s->ctrl + oc, n->ctrl, (size_t)n->n_ctrl * sizeof(fl_node *));
            oc += (size_t)n->n_ctrl;
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
        memcpy(s->index, g->index, need[B_INDEX] * sizeof(*s->index));
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
    uint64_t edits = g->edits;
    *g = s->head;
    g->edits = edits + 1; /* never backwards: counts compared across the restore differ */
    write_back(g->nodes, s->node_ptrs, s->n_nodes * sizeof(fl_node *));
    size_t oi = 0, oc = 0, oo = 0, od = 0;
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
        write_back(g->index, s->index, g->index_size * sizeof(*s->index));
    }
    if (g->order && s->n_nodes) {
        write_back(g->order, s->order, s->n_nodes * sizeof(fl_node *));
    }
    if (g->funcs && g->n_funcs) {
        write_back(g->funcs, s->funcs, g->n_funcs * sizeof(fl_function));
    }
}

/* ------------------------------------------------------------------------- */
/* Comparing                                                                  */
/* ------------------------------------------------------------------------- */

/* The index of n in s, or -1. */
static long find(const fl_graph_snapshot *s, const fl_node *n) {
    if (!s->taken || !s->indexed) {
        return -1;
    }
    uint32_t i = n->snap_ix; /* a node added since, or an index another take set: not n's here */
    return i < s->n_nodes && s->node_ptrs[i] == n ? (long)i : -1;
}

bool fl__value_same(const fl_value *a, const fl_value *b) {
    if (a == b) {
        return true;
    }
    if (!a || !b || a->dtype != b->dtype || a->rank != b->rank || a->n != b->n) {
        return false;
    }
    for (int i = 0; i < a->rank; i++) {
        if (a->dims[i] != b->dims[i]) {
            return false;
        }
    }
    if (a->ints && b->ints) {
        for (int64_t i = 0; i < a->n; i++) {
            fl_sym x = a->ints[i], y = b->ints[i];
            if (fl_sym_is_unknown(x) != fl_sym_is_unknown(y) ||
                (!fl_sym_is_unknown(x) && !fl__sym_eq(x, y))) {
                return false;
            }
        }
        return true;
    }
    if (a->raw && b->raw) {
        return memcmp(a->raw, b->raw, (size_t)a->n * fl__dtype_size(a->dtype)) == 0;
    }
    return !a->ints && !b->ints && !a->raw && !b->raw;
}

static bool dims_same(const fl_sym *a, const fl_sym *b, int rank) {
    for (int i = 0; i < rank; i++) {
        if (fl_sym_is_unknown(a[i]) != fl_sym_is_unknown(b[i]) ||
            (!fl_sym_is_unknown(a[i]) && !fl__sym_eq(a[i], b[i]))) {
            return false;
        }
    }
    return true;
}

static bool outputs_differ_at(const fl_graph_snapshot *s, long i, const fl_node *n) {
    const fl_node *o = &s->nodes[i];
    if (o->n_outputs != n->n_outputs) {
        return true;
    }
    if (n->n_outputs <= 0 || !n->outputs || !o->outputs) {
        return n->n_outputs > 0 && (!n->outputs) != (!o->outputs);
    }
    const fl_tensor *saved = s->outputs + s->at[i].outputs;
    /* No dims saved at all (scalars only): NULL, never NULL + 0. */
    const fl_sym *dims = s->dims ? s->dims + s->at[i].dims : NULL;
    for (int k = 0; k < n->n_outputs; k++) {
        const fl_tensor *a = &saved[k], *b = &n->outputs[k];
        if (a->dtype != b->dtype || a->shape.rank != b->shape.rank) {
            return true;
        }
        if (a->shape.rank > 0 && a->shape.dims) {
            if (!b->shape.dims || !dims_same(dims, b->shape.dims, a->shape.rank)) {
                return true;
            }
            dims += a->shape.rank;
        } else if (b->shape.rank > 0 && b->shape.dims) {
            return true;
        }
        if (!fl__value_same(a->value, b->value)) {
            return true;
        }
    }
    return false;
}

bool fl__graph_snapshot_outputs_differ(const fl_graph_snapshot *s, const fl_node *n) {
    long i = find(s, n);
    return i < 0 || outputs_differ_at(s, i, n);
}

bool fl__graph_snapshot_changed(const fl_graph_snapshot *s, const fl_node *n,
                                bool *outputs_differ) {
    long i = find(s, n);
    if (i < 0) {
        *outputs_differ = true;
        return true;
    }
    *outputs_differ = outputs_differ_at(s, i, n);
    const fl_node *o = &s->nodes[i];
    const uint32_t kept = FL_NODE_STRIPPED | FL_NODE_BACK_EDGE | FL_NODE_IN_LOOP |
                          FL_NODE_FUNC_CALL | FL_NODE_OP_NEXT_ITERATION | FL_NODE_OP_MERGE;
    if (o->op != n->op || o->kind != n->kind || o->desc != n->desc || o->func != n->func ||
        o->name != n->name || o->device != n->device || o->n_inputs != n->n_inputs ||
        o->inputs != n->inputs || o->n_attrs != n->n_attrs || o->attrs != n->attrs ||
        o->outputs != n->outputs || (o->flags & kept) != (n->flags & kept)) {
        return true;
    }
    if (n->n_inputs > 0 &&
        memcmp(n->inputs, s->inputs + s->at[i].inputs, (size_t)n->n_inputs * sizeof(fl_input))) {
        return true;
    }
    return false;
}

/* What fl__graph_snapshot_changed compares, saved node o against n. */
static bool fields_differ(const fl_node *o, const fl_node *n) {
    const uint32_t kept = FL_NODE_STRIPPED | FL_NODE_BACK_EDGE | FL_NODE_IN_LOOP |
                          FL_NODE_FUNC_CALL | FL_NODE_OP_NEXT_ITERATION | FL_NODE_OP_MERGE;
    return o->op != n->op || o->kind != n->kind || o->desc != n->desc || o->func != n->func ||
           o->name != n->name || o->device != n->device || o->n_inputs != n->n_inputs ||
           o->inputs != n->inputs || o->n_attrs != n->n_attrs || o->attrs != n->attrs ||
           o->outputs != n->outputs || o->n_ctrl != n->n_ctrl || o->ctrl != n->ctrl ||
           (o->flags & kept) != (n->flags & kept);
}

const fl_node *fl__graph_snapshot_unmarked(const fl_graph_snapshot *s) {
    if (!s->taken) {
        return NULL;
    }
    size_t oi = 0, oc = 0;
    for (size_t i = 0; i < s->n_nodes; i++) {
        const fl_node *n = s->node_ptrs[i], *o = &s->nodes[i];
        /* Offsets, not pointers: the saved arrays are NULL when the graph had
         * no inputs (or no control edges) at all. fields_differ runs first,
         * so a memcmp below compares as many entries as were saved. */
        size_t at_in = oi, at_ctrl = oc;
        oi += o->n_inputs > 0 ? (size_t)o->n_inputs : 0;
        oc += o->n_ctrl > 0 ? (size_t)o->n_ctrl : 0;
        if ((n->flags & FL_NODE_REMOVED) || fl__graph_snapshot_marked(s, n)) {
            continue;
        }
        if (fields_differ(o, n) ||
            (n->n_inputs > 0 &&
             memcmp(n->inputs, s->inputs + at_in, (size_t)n->n_inputs * sizeof(fl_input))) ||
            (n->n_ctrl > 0 &&
             memcmp(n->ctrl, s->ctrl + at_ctrl, (size_t)n->n_ctrl * sizeof(fl_node *))) ||
            (s->indexed && outputs_differ_at(s, (long)i, n))) {
            return n;
        }
    }
    return NULL;
}
