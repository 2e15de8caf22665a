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

/* s no longer journals g's edits. */
static void detach(fl_graph_snapshot *s) {
    if (s->g && s->g->journal.s == s) {
        s->g->journal = (struct fl_journal_ref){NULL, 0};
    }
    s->g = NULL;
    s->journal = false;
}

void fl__graph_snapshot_free(fl_graph_snapshot *s) {
    detach(s);
    fl__mem_free(s->list);
    fl__mem_free(s->nodes);
    fl__mem_free(s->node_ptrs);
    fl__mem_free(s->inputs);
    fl__mem_free(s->ctrl);
    fl__mem_free(s->outputs);
    fl__mem_free(s->dims);
    fl__mem_free(s->index);
    fl__mem_free(s->order);
    fl__mem_free(s->funcs);
    fl__mem_free(s->at);
    fl__mem_free(s->same);
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
        return fl__diag_over_limit(d);
    }
    if (cap_at != s->cap_at) {
        void *np = fl__mem_realloc(s->at, cap_at * sizeof(*s->at));
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
    detach(s);
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
        return fl__diag_over_limit(d);
    }
    for (int b = 0; b < B_COUNT; b++) {
        if (want[b] == s->cap[b]) {
            continue;
        }
        void **p = buffer(s, b);
        void *np = fl__mem_realloc(*p, want[b] * elem_size[b]);
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
            s->at[i] =
                (struct fl_snapshot_at){(uint32_t)oi, (uint32_t)oc, (uint32_t)oo, (uint32_t)od};
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

/* Writes every saved node's struct and arrays back. */
static void restore_nodes(const fl_graph_snapshot *s) {
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
}

static long find(const fl_graph_snapshot *s, const fl_node *n);
static void journal_restore(fl_graph_snapshot *s, fl_graph *g);

void fl__graph_snapshot_restore(fl_graph_snapshot *s, fl_graph *g) {
    if (!s->taken) {
        return;
    }
    if (s->journal) {
        journal_restore(s, g);
        return;
    }
    uint64_t edits = g->edits;
    struct fl_journal_ref journal = g->journal; /* open on the graph, not part of its state */
    *g = s->head;
    g->edits = edits + 1; /* never backwards: counts compared across the restore differ */
    g->journal = journal;
    write_back(g->nodes, s->node_ptrs, s->n_nodes * sizeof(fl_node *));
    restore_nodes(s);
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

const fl_node *fl__graph_snapshot_saved(const fl_graph_snapshot *s, const fl_node *n) {
    long i = find(s, n);
    return i >= 0 ? &s->nodes[i] : NULL;
}

bool fl__graph_snapshot_saved_edges(const fl_graph_snapshot *s, const fl_node *n,
                                    const fl_input **inputs, int *n_inputs, fl_node *const **ctrl,
                                    int *n_ctrl) {
    long i = find(s, n);
    if (i < 0) {
        return false;
    }
    const fl_node *o = &s->nodes[i];
    *n_inputs = o->n_inputs > 0 ? o->n_inputs : 0;
    *n_ctrl = o->n_ctrl > 0 ? o->n_ctrl : 0;
    /* no saved edges of a kind leave its array NULL: no offset on it */
    *inputs = *n_inputs > 0 ? s->inputs + s->at[i].inputs : NULL;
    *ctrl = *n_ctrl > 0 ? s->ctrl + s->at[i].ctrl : NULL;
    return true;
}

fl_node *const *fl__graph_journal_opened(const fl_graph_snapshot *s) {
    return s->list_saved ? s->list : s->head.nodes;
}

/* n symbols alike bit for bit, so alike by meaning (expressions are
 * interned; one unknown marker). */
_Static_assert(sizeof(fl_sym) == sizeof(int64_t) + sizeof(const void *),
               "a fl_sym has no padding: memcmp compares its two fields");
static bool syms_bits_same(const fl_sym *a, const fl_sym *b, int64_t n) {
    return n <= 0 || memcmp(a, b, (size_t)n * sizeof(fl_sym)) == 0;
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
        if (syms_bits_same(a->ints, b->ints, a->n)) {
            return true;
        }
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
    if (syms_bits_same(a, b, rank)) {
        return true;
    }
    for (int i = 0; i < rank; i++) {
        if (fl_sym_is_unknown(a[i]) != fl_sym_is_unknown(b[i]) ||
            (!fl_sym_is_unknown(a[i]) && !fl__sym_eq(a[i], b[i]))) {
            return false;
        }
    }
    return true;
}

/* Whether two input lists of n entries differ, entry by entry: a memcmp
 * would also compare the padding after `port`, which nothing initialises
 * (a pass writes entries by member), and so could see a change where there
 * is none. */
static bool inputs_differ(const fl_input *a, const fl_input *b, int n) {
    for (int k = 0; k < n; k++) {
        if (a[k].node != b[k].node || a[k].port != b[k].port) {
            return true;
        }
    }
    return false;
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

/* Output `port` of p as s holds it (saved: the copy, its dims at *dims),
 * or as p has it (not saved: unwritten since the snapshot); NULL when p
 * has no such output. */
static const fl_tensor *tensor_then(const fl_graph_snapshot *s, const fl_node *p, int port,
                                    const fl_sym **dims) {
    long j = find(s, p);
    const fl_node *o = j >= 0 ? &s->nodes[j] : p;
    if (port < 0 || port >= o->n_outputs || !o->outputs) {
        return NULL;
    }
    if (j < 0) {
        *dims = p->outputs[port].shape.dims;
        return &p->outputs[port];
    }
    const fl_tensor *saved = s->outputs + s->at[j].outputs;
    const fl_sym *d = s->dims ? s->dims + s->at[j].dims : NULL;
    for (int k = 0; k < port; k++) {
        if (saved[k].shape.rank > 0 && saved[k].shape.dims) {
            d += saved[k].shape.rank;
        }
    }
    *dims = saved[port].shape.rank > 0 && saved[port].shape.dims ? d : NULL;
    return &saved[port];
}

/* Whether saved node o and n have the same op, kind, descriptor, function,
 * name, device, input count, attrs, outputs array and the flags that are
 * the node's own (the input array itself is compared by the callers). */
static bool fields_same(const fl_node *o, const fl_node *n) {
    const uint32_t kept = FL_NODE_STRIPPED | FL_NODE_BACK_EDGE | FL_NODE_IN_LOOP |
                          FL_NODE_FUNC_CALL | FL_NODE_OP_NEXT_ITERATION | FL_NODE_OP_MERGE;
    return o->op == n->op && o->kind == n->kind && o->desc == n->desc && o->func == n->func &&
           o->name == n->name && o->device == n->device && o->n_inputs == n->n_inputs &&
           o->n_attrs == n->n_attrs && o->attrs == n->attrs && o->outputs == n->outputs &&
           (o->flags & kept) == (n->flags & kept);
}

bool fl__graph_snapshot_reads_same(const fl_graph_snapshot *s, const fl_node *n) {
    long i = find(s, n);
    if (i < 0) {
        return false;
    }
    if (!fields_same(&s->nodes[i], n) || outputs_differ_at(s, i, n)) {
        return false;
    }
    const fl_input *saved = n->n_inputs > 0 ? s->inputs + s->at[i].inputs : NULL;
    for (int k = 0; k < n->n_inputs; k++) {
        const fl_input *a = &n->inputs[k], *w = &saved[k];
        const fl_node *q = a->node;
        const fl_sym *dw = NULL;
        const fl_tensor *then = tensor_then(s, w->node, w->port, &dw);
        if (!then || a->port != w->port || a->port < 0 || a->port >= q->n_outputs || !q->outputs) {
            return false;
        }
        const fl_tensor *now = &q->outputs[a->port];
        if (then->dtype != now->dtype || then->shape.rank != now->shape.rank) {
            return false;
        }
        bool dt = then->shape.rank > 0 && then->shape.dims,
             dn = now->shape.rank > 0 && now->shape.dims;
        if (dt != dn || (dt && !dims_same(dw, now->shape.dims, now->shape.rank)) ||
            !fl__value_same(then->value, now->value)) {
            return false;
        }
    }
    return true;
}

/* No node recorded as equal to another (fl__graph_journal_same). */
static void same_clear(fl_graph_snapshot *s) {
    if (s->n_same) {
        memset(s->same, 0, s->cap_same * sizeof(*s->same));
        s->n_same = 0;
    }
}

/* The slot of `from` in s->same (cap_same > 0): its pair, or the empty slot
 * where it goes. */
static struct fl_same_pair *same_slot(const fl_graph_snapshot *s, const fl_node *from) {
    size_t mask = s->cap_same - 1;
    size_t i = (size_t)(((uint64_t)(uintptr_t)from >> 4) * 0x9E3779B97F4A7C15ull >> 32) & mask;
    while (s->same[i].from && s->same[i].from != from) {
        i = (i + 1) & mask;
    }
    return &s->same[i];
}

/* Whether n's inputs differ from those saved (`saved`), an input moved from
 * a node onto one recorded as having its outputs (fl__graph_journal_same),
 * at the same port, counting as the same. */
static bool inputs_changed(const fl_graph_snapshot *s, const fl_input *a, const fl_input *saved,
                           int n) {
    for (int k = 0; k < n; k++) {
        if (a[k].node == saved[k].node && a[k].port == saved[k].port) {
            continue;
        }
        if (!s->n_same || a[k].port != saved[k].port ||
            same_slot(s, saved[k].node)->to != a[k].node) {
            return true;
        }
    }
    return false;
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
    if (!fields_same(o, n) || o->inputs != n->inputs) {
        return true;
    }
    if (n->n_inputs > 0 && inputs_changed(s, n->inputs, s->inputs + s->at[i].inputs, n->n_inputs)) {
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
    if (!s->taken || s->journal) {
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
            (n->n_inputs > 0 && inputs_differ(n->inputs, s->inputs + at_in, n->n_inputs)) ||
            (n->n_ctrl > 0 &&
             memcmp(n->ctrl, s->ctrl + at_ctrl, (size_t)n->n_ctrl * sizeof(fl_node *))) ||
            (s->indexed && outputs_differ_at(s, (long)i, n))) {
            return n;
        }
    }
    return NULL;
}

/* ------------------------------------------------------------------------- */
/* Journal                                                                    */
/* ------------------------------------------------------------------------- */

/* Room for `need` elements of `elem` bytes in *buf (capacity *cap), grown to
 * twice that; false when that passes s->max_bytes or malloc fails. (Grown
 * by half, the buffers of one swin_t analysis were copied into larger ones
 * 59 times, 1.9 MB.) The size does not depend on the limit, so that a
 * larger limit never fails where a smaller one passed (a buffer grown by
 * half near the limit left more room to the rest of the analysis). */
static bool room_grow(fl_graph_snapshot *s, void **buf, size_t *cap, size_t need, size_t elem) {
    size_t nc = 2 * need + 16;
    size_t grow = (nc - *cap) * elem;
    if (s->max_bytes && s->bytes + grow > s->max_bytes) {
        s->over_limit = true;
        return false;
    }
    void *np = fl__mem_realloc(*buf, nc * elem);
    if (!np) {
        return false;
    }
    *buf = np;
    *cap = nc;
    s->bytes += grow;
    return true;
}

/* Room for `need` elements in *buf (capacity *cap): grown by half when
 * short. The check inline: the journal asks six times per node it saves. */
static inline bool room(fl_graph_snapshot *s, void **buf, size_t *cap, size_t need, size_t elem) {
    return need <= *cap || room_grow(s, buf, cap, need, elem);
}

static inline bool room_in(fl_graph_snapshot *s, int b, size_t need) {
    return need <= s->cap[b] || room_grow(s, buffer(s, b), &s->cap[b], need, elem_size[b]);
}

void fl__graph_journal_same(fl_graph *g, const fl_node *from, const fl_node *to) {
    fl_graph_snapshot *s = g->journal.s;
    if (!s || s->oom || from->kind != to->kind || from->desc != to->desc ||
        from->n_outputs != to->n_outputs ||
        (from->n_outputs > 0 && (!from->outputs || !to->outputs))) {
        return;
    }
    for (int k = 0; k < from->n_outputs; k++) {
        const fl_tensor *a = &from->outputs[k], *b = &to->outputs[k];
        if (a->dtype != b->dtype || a->shape.rank != b->shape.rank ||
            (a->shape.rank > 0 && (!a->shape.dims) != (!b->shape.dims)) ||
            (a->shape.rank > 0 && a->shape.dims &&
             !dims_same(a->shape.dims, b->shape.dims, a->shape.rank)) ||
            !fl__value_same(a->value, b->value)) {
            return;
        }
    }
    if (2 * (s->n_same + 1) > s->cap_same) { /* grown (doubled) and filled again */
        size_t cap = s->cap_same ? 2 * s->cap_same : 64,
               grow = (cap - s->cap_same) * sizeof(*s->same);
        if (s->max_bytes && s->bytes + grow > s->max_bytes) {
            /* Past the limit, as the journal's other buffers. (Left out,
             * the readers were inferred again: under a small limit the
             * analysis took another course, with other memory, than under
             * a larger one.) */
            s->oom = s->over_limit = true;
            return;
        }
        struct fl_same_pair *old = s->same, *nw = fl__mem_realloc(NULL, cap * sizeof(*nw));
        if (!nw) {
            return;
        }
        memset(nw, 0, cap * sizeof(*nw));
        size_t old_cap = s->cap_same;
        s->same = nw;
        s->cap_same = cap;
        s->bytes += grow;
        for (size_t i = 0; i < old_cap; i++) {
            if (old[i].from) {
                *same_slot(s, old[i].from) = old[i];
            }
        }
        fl__mem_free(old);
    }
    struct fl_same_pair *p = same_slot(s, from);
    s->n_same += !p->from;
    *p = (struct fl_same_pair){from, to};
}

fl_status fl__graph_journal_open(fl_graph_snapshot *s, fl_graph *g, size_t max_bytes,
                                 const fl_graph_snapshot *check, fl_diag *d) {
    s->taken = false;
    detach(s);
    g->attr_tail = (struct fl_attr_tail){NULL, NULL, 0, 0};
    s->max_bytes = max_bytes;
    s->over_limit = false;
    same_clear(s);
    s->bytes = s->cap_list * sizeof(fl_node *) + s->cap_at * sizeof(*s->at) +
               s->cap_same * sizeof(*s->same);
    for (int b = 0; b < B_COUNT; b++) {
        s->bytes += s->cap[b] * elem_size[b];
    }
    if (max_bytes && s->bytes > max_bytes) {
        return fl__diag_over_limit(d);
    }
    if (g->funcs && g->n_funcs) {
        if (!room_in(s, B_FUNCS, g->n_funcs)) {
            return s->over_limit ? fl__diag_over_limit(d) : fl__diag_oom(d);
        }
        memcpy(s->funcs, g->funcs, g->n_funcs * sizeof(fl_function));
    }
    s->journal = true;
    s->g = g;
    s->n_nodes = 0;
    memset(s->used, 0, sizeof(s->used));
    s->list_saved = false;
    s->oom = false;
    s->check = check;
    s->early = NULL;
    s->indexed = true;
    s->stamp = g->birth + 1;
    g->journal = (struct fl_journal_ref){s, s->stamp};
    s->head = *g;
    s->taken = true;
    return FL_OK;
}

/* What fl__graph_snapshot_unmarked compares, node i of full snapshot s
 * against n (s indexed). */
static bool node_differs(const fl_graph_snapshot *s, long i, const fl_node *n) {
    const fl_node *o = &s->nodes[i];
    return fields_differ(o, n) ||
           (n->n_inputs > 0 &&
            inputs_differ(n->inputs, s->inputs + s->at[i].inputs, n->n_inputs)) ||
           (n->n_ctrl > 0 &&
            memcmp(n->ctrl, s->ctrl + s->at[i].ctrl, (size_t)n->n_ctrl * sizeof(fl_node *))) ||
           outputs_differ_at(s, i, n);
}

void fl__graph_journal_save(fl_graph *g, fl_node *n) {
    fl_graph_snapshot *s = g->journal.s;
    if (!s || s->oom || n->born >= s->stamp || find(s, n) >= 0) {
        return;
    }
    if (s->check && s->check->indexed && !s->early) {
        long j = find(s->check, n);
        if (j >= 0 && node_differs(s->check, j, n)) {
            s->early = n; /* written before fl__node_touch */
        }
    }
    size_t ni = n->n_inputs > 0 ? (size_t)n->n_inputs : 0;
    size_t nc = n->n_ctrl > 0 ? (size_t)n->n_ctrl : 0;
    size_t no = n->n_outputs > 0 && n->outputs ? (size_t)n->n_outputs : 0, nd = 0;
    for (size_t k = 0; k < no; k++) {
        const fl_shape *sh = &n->outputs[k].shape;
        nd += sh->rank > 0 && sh->dims ? (size_t)sh->rank : 0;
    }
    size_t i = s->n_nodes;
    size_t *u = s->used;
    if (i + 1 >= UINT32_MAX / 2 || u[0] + ni >= UINT32_MAX || u[1] + nc >= UINT32_MAX ||
        u[2] + no >= UINT32_MAX || u[3] + nd >= UINT32_MAX || !room_in(s, B_NODES, i + 1) ||
        !room_in(s, B_PTRS, i + 1) || !room_in(s, B_INPUTS, u[0] + ni) ||
        !room_in(s, B_CTRL, u[1] + nc) || !room_in(s, B_OUTPUTS, u[2] + no) ||
        !room_in(s, B_DIMS, u[3] + nd) ||
        !room(s, (void **)&s->at, &s->cap_at, i + 1, sizeof(*s->at))) {
        s->oom = true;
        return;
    }
    s->node_ptrs[i] = n;
    s->nodes[i] = *n;
    s->at[i] =
        (struct fl_snapshot_at){(uint32_t)u[0], (uint32_t)u[1], (uint32_t)u[2], (uint32_t)u[3]};
    if (ni) {
        memcpy(s->inputs + u[0], n->inputs, ni * sizeof(fl_input));
    }
    if (nc) {
        memcpy(s->ctrl + u[1], n->ctrl, nc * sizeof(fl_node *));
    }
    if (no) {
        memcpy(s->outputs + u[2], n->outputs, no * sizeof(fl_tensor));
        size_t od = u[3];
        for (size_t k = 0; k < no; k++) {
            const fl_shape *sh = &n->outputs[k].shape;
            if (sh->rank > 0 && sh->dims) {
                memcpy(s->dims + od, sh->dims, (size_t)sh->rank * sizeof(fl_sym));
                od += (size_t)sh->rank;
            }
        }
    }
    u[0] += ni;
    u[1] += nc;
    u[2] += no;
    u[3] += nd;
    s->n_nodes = i + 1;
    n->snap_ix = (uint32_t)i;
}

void fl__graph_journal_save_all(fl_graph *g) {
    for (size_t i = 0; g->journal.s && i < g->n_nodes; i++) {
        fl__graph_journal_save(g, g->nodes[i]);
    }
}

void fl__graph_journal_save_nodes(fl_graph *g) {
    fl_graph_snapshot *s = g->journal.s;
    if (!s || s->list_saved || s->oom || g->nodes != s->head.nodes || !s->head.n_nodes) {
        return; /* an array grown since is a new one: the old stays as it was */
    }
    if (!room(s, (void **)&s->list, &s->cap_list, s->head.n_nodes, sizeof(fl_node *))) {
        s->oom = true;
        return;
    }
    memcpy(s->list, g->nodes, s->head.n_nodes * sizeof(fl_node *));
    s->list_saved = true;
}

static void journal_restore(fl_graph_snapshot *s, fl_graph *g) {
    uint64_t edits = g->edits;
    *g = s->head;
    g->edits = edits + 1;
    if (s->list_saved) {
        write_back(g->nodes, s->list, g->n_nodes * sizeof(fl_node *));
    }
    restore_nodes(s);
    /* What no entry holds: ids, the marks of removal and of walks (clear
     * outside a pass), consumer counts, the name index. */
    for (size_t i = 0; i < g->n_nodes; i++) {
        fl_node *m = g->nodes[i];
        m->id = (uint32_t)i;
        if (find(s, m) < 0) {
            m->flags &= ~(uint32_t)(FL_NODE_REMOVED | FL_NODE_MARK);
        }
        for (int k = 0; k < m->n_outputs; k++) {
            m->outputs[k].n_consumers = 0;
        }
        m->n_ctrl_consumers = 0;
    }
    for (size_t i = 0; i < g->n_nodes; i++) {
        const fl_node *m = g->nodes[i];
        for (int k = 0; k < m->n_inputs; k++) {
            m->inputs[k].node->outputs[m->inputs[k].port].n_consumers++;
        }
        for (int k = 0; k < m->n_ctrl; k++) {
            m->ctrl[k]->n_ctrl_consumers++;
        }
    }
    fl__graph_index_refill(g);
    if (g->funcs && g->n_funcs) {
        write_back(g->funcs, s->funcs, g->n_funcs * sizeof(fl_function));
    }
    /* The graph is as opened: an empty journal again. */
    same_clear(s);
    s->n_nodes = 0;
    memset(s->used, 0, sizeof(s->used));
    s->list_saved = false;
    s->early = NULL;
}

const char *fl__graph_snapshot_mismatch(const fl_graph_snapshot *s, const fl_graph *g,
                                        const fl_node **at) {
    *at = NULL;
    if (!s->taken || s->journal || !s->indexed) {
        return NULL;
    }
    const fl_graph *h = &s->head;
    if (g->nodes != h->nodes || g->n_nodes != h->n_nodes || g->cap_nodes != h->cap_nodes ||
        g->index != h->index || g->index_size != h->index_size || g->order != h->order ||
        g->funcs != h->funcs || g->n_funcs != h->n_funcs || g->birth != h->birth ||
        g->attr_tail.attrs != h->attr_tail.attrs || g->interned != h->interned) {
        return "the graph's header";
    }
    if (s->n_nodes && memcmp(g->nodes, s->node_ptrs, s->n_nodes * sizeof(fl_node *)) != 0) {
        return "the node array";
    }
    for (size_t i = 0; i < s->n_nodes; i++) {
        const fl_node *n = g->nodes[i], *o = &s->nodes[i];
        *at = n;
        if (fields_differ(o, n) || o->id != n->id || o->flags != n->flags ||
            o->n_ctrl_consumers != n->n_ctrl_consumers || o->edited != n->edited ||
            o->born != n->born || o->n_outputs != n->n_outputs || o->src != n->src ||
            !fl__node_cost_same(&o->cost, &n->cost)) {
            return "the node's fields";
        }
        if (n->n_inputs > 0 && inputs_differ(n->inputs, s->inputs + s->at[i].inputs, n->n_inputs)) {
            return "the node's inputs";
        }
        if (n->n_ctrl > 0 &&
            memcmp(n->ctrl, s->ctrl + s->at[i].ctrl, (size_t)n->n_ctrl * sizeof(fl_node *))) {
            return "the node's control inputs";
        }
        if (n->n_outputs > 0 && n->outputs) {
            if (memcmp(n->outputs, s->outputs + s->at[i].outputs,
                       (size_t)n->n_outputs * sizeof(fl_tensor))) {
                return "the node's outputs";
            }
            const fl_sym *dims = s->dims ? s->dims + s->at[i].dims : NULL;
            for (int k = 0; k < n->n_outputs; k++) {
                const fl_shape *sh = &n->outputs[k].shape;
                if (sh->rank > 0 && sh->dims) {
                    if (memcmp(sh->dims, dims, (size_t)sh->rank * sizeof(fl_sym))) {
                        return "the node's output shapes";
                    }
                    dims += sh->rank;
                }
            }
        }
        if (fl__graph_find(g, n->name) != n) {
            return "the name index";
        }
    }
    *at = NULL;
    size_t live = 0;
    for (size_t i = 0; i < g->index_size; i++) {
        live += g->index[i].node != NULL;
    }
    if (live != g->n_nodes) {
        return "the name index";
    }
    if (g->order && s->n_nodes && memcmp(g->order, s->order, s->n_nodes * sizeof(fl_node *))) {
        return "the order";
    }
    if (g->funcs && g->n_funcs && memcmp(g->funcs, s->funcs, g->n_funcs * sizeof(fl_function))) {
        return "the functions";
    }
    return NULL;
}
