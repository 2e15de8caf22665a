/*
 * mutate.c - rewriting the graph IR in place; see mutate.h for the protocol.
 */
#include "graph/mutate.h"

#include "util/check.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------------- */
/* Use lists                                                                  */
/* ------------------------------------------------------------------------- */

void fl__uses_release(fl_graph *g) {
    g->uses_cache.busy = false;
}

/* `n` elements of `elem` bytes, zeroed: from the cache slot (*buf, *cap),
 * grown by a quarter when too small, if `cached`; else fresh. */
static void *uses_buf(fl_arena *a, bool cached, void **buf, size_t *cap, size_t n, size_t elem) {
    if (!cached) {
        return fl__arena_calloc(a, n, elem);
    }
    if (n > *cap) {
        size_t nc = n + n / 4 + 16;
        void *p = fl__arena_calloc(a, nc, elem);
        if (!p) {
            return NULL;
        }
        *buf = p;
        *cap = nc;
        return p; /* fresh arena memory is zero */
    }
    memset(*buf, 0, n * elem);
    return *buf;
}

/* The lists in the cache, for a graph that has not changed since. */
static void uses_from_cache(fl_graph *g, fl_uses *u) {
    struct fl_uses_cache *uc = &g->uses_cache;
    memset(u, 0, sizeof(*u));
    u->g = g;
    u->port_base = uc->port_base;
    u->ctrl_counts = uc->port_base + g->n_nodes + 1;
    u->offsets = uc->offsets;
    u->uses = uc->uses;
    uc->busy = true;
}

static bool uses_same(const fl_uses *a, const fl_uses *b, size_t n) {
    size_t ports = a->port_base[n];
    return !memcmp(a->port_base, b->port_base, 2 * (n + 1) * sizeof(uint32_t)) &&
           !memcmp(a->offsets, b->offsets, (ports + 1) * sizeof(uint32_t)) &&
           !memcmp(a->uses, b->uses, a->offsets[ports] * sizeof(fl_use));
}

static fl_status uses_build_new(fl_graph *g, fl_uses *u, fl_diag *d);

fl_status fl__uses_build(fl_graph *g, fl_uses *u, fl_diag *d) {
    struct fl_uses_cache *uc = &g->uses_cache;
    if (uc->busy || !uc->valid || uc->edits != g->edits || uc->n_nodes != g->n_nodes ||
        uc->removals != fl__graph_removals()) {
        return uses_build_new(g, u, d);
    }
    uses_from_cache(g, u);
    if (!fl__checks_on()) {
        return FL_OK;
    }
    /* Self-check: a build from scratch (into new memory: the cache is
     * busy) gives the same lists, or an edit was not counted. */
    fl_uses fresh;
    fl_status st = uses_build_new(g, &fresh, d);
    if (st == FL_OK && !uses_same(u, &fresh, g->n_nodes)) {
        return fl__diag_fail(d, FL_EINTERNAL,
                             "internal error: use lists kept since an earlier build differ from "
                             "the graph's (an edit was not marked, graph/mutate.h)");
    }
    return st;
}

/* The data edges of the live nodes as the one walk over the nodes meets
 * them: node i's n_in[i] inputs, each as its producer's id and port
 * (scratch memory, freed by edges_free). */
typedef struct use_edges {
    uint32_t *n_in, *src, *port;
    size_t n, cap;
} use_edges;

static void edges_free(fl_arena *a, use_edges *e) {
    fl__arena_scratch_free(a, e->n_in);
    fl__arena_scratch_free(a, e->src);
    fl__arena_scratch_free(a, e->port);
}

/* Grows e for `more` edges past its count (false when out of memory). */
__attribute__((noinline)) static bool edges_grow(fl_arena *a, use_edges *e, size_t more) {
    size_t nc = e->cap * 2 + more + 16;
    uint32_t *ns = fl__arena_scratch_grow(a, e->src, e->cap, nc, sizeof(uint32_t));
    if (ns) {
        e->src = ns;
    }
    uint32_t *np = ns ? fl__arena_scratch_grow(a, e->port, e->cap, nc, sizeof(uint32_t)) : NULL;
    if (!np) {
        return false;
    }
    e->port = np;
    e->cap = nc;
    return true;
}

/* Room for `more` edges past e's count; inline, as the walk asks for every
 * node. */
static inline __attribute__((always_inline)) bool edges_room(fl_arena *a, use_edges *e,
                                                             size_t more) {
    return e->n + more <= e->cap || edges_grow(a, e, more);
}

/* The walk: port_base (the prefix sum of the output counts), control
 * consumer counts and the data edges, reading each node and its input list
 * once (on a graph larger than the caches each walk over the nodes costs a
 * miss or more per node; the build walked them three times). Returns the
 * number of ports, or SIZE_MAX when out of memory. */
static size_t uses_walk(fl_graph *g, fl_uses *u, use_edges *e) {
    size_t ports = 0;
    for (size_t i = 0; i < g->n_nodes; i++) {
        const fl_node *m = g->nodes[i];
        u->port_base[i] = (uint32_t)ports;
        ports += (size_t)m->n_outputs;
        if (m->flags & FL_NODE_REMOVED) {
            continue;
        }
        if (!edges_room(g->arena, e, (size_t)m->n_inputs)) {
            return SIZE_MAX;
        }
        for (int k = 0; k < m->n_inputs; k++) {
            const fl_input *in = &m->inputs[k];
            e->src[e->n] = in->node->id;
            e->port[e->n++] = (uint32_t)in->port;
        }
        e->n_in[i] = (uint32_t)m->n_inputs;
        for (int k = 0; k < m->n_ctrl; k++) {
            u->ctrl_counts[m->ctrl[k]->id]++;
        }
    }
    u->port_base[g->n_nodes] = (uint32_t)ports;
    return ports;
}

static fl_status uses_build_new(fl_graph *g, fl_uses *u, fl_diag *d) {
    fl_arena *a = g->arena;
    struct fl_uses_cache *uc = &g->uses_cache;
    bool cached = !uc->busy;
    size_t n = g->n_nodes;
    if (cached) {
        uc->valid = false; /* until the build below completes */
    }
    memset(u, 0, sizeof(*u));
    u->g = g;
    /* port_base and ctrl_counts share one buffer of 2 * (n + 1). */
    uint32_t *base =
        uses_buf(a, cached, (void **)&uc->port_base, &uc->cap_nodes, 2 * (n + 1), sizeof(uint32_t));
    /* Room for two and a half edges a node, grown when a graph has more
     * (pages never written are never faulted in). */
    use_edges e = {0};
    e.n_in = base ? fl__arena_scratch(a, n + 1, sizeof(uint32_t)) : NULL;
    if (!e.n_in || !edges_room(a, &e, 2 * n + n / 2)) {
        edges_free(a, &e);
        return fl__diag_oom(d);
    }
    u->port_base = base;
    u->ctrl_counts = base + n + 1;
    size_t ports = uses_walk(g, u, &e);
    u->offsets = ports == SIZE_MAX ? NULL
                                   : uses_buf(a, cached, (void **)&uc->offsets, &uc->cap_ports,
                                              ports + 1, sizeof(uint32_t));
    if (!u->offsets) {
        edges_free(a, &e);
        return fl__diag_oom(d);
    }
    for (size_t j = 0; j < e.n; j++) {
        u->offsets[u->port_base[e.src[j]] + e.port[j]]++;
    }
    uint32_t acc = 0;
    for (size_t p = 0; p <= ports; p++) {
        uint32_t c = u->offsets[p];
        u->offsets[p] = acc;
        acc += c;
    }
    u->uses = uses_buf(a, cached, (void **)&uc->uses, &uc->cap_uses, e.n + 1, sizeof(fl_use));
    if (!u->uses) {
        edges_free(a, &e);
        return fl__diag_oom(d);
    }
    /* offsets[p] serves as p's cursor, which leaves it at the start of
     * p + 1's list: shifted back by one afterwards. */
    for (size_t i = 0, j = 0; i < n; i++) {
        for (uint32_t k = 0; k < e.n_in[i]; k++, j++) {
            fl_use *slot = &u->uses[u->offsets[u->port_base[e.src[j]] + e.port[j]]++];
            slot->node = g->nodes[i];
            slot->input = (int)k;
        }
    }
    for (size_t p = ports; p > 0; p--) {
        u->offsets[p] = u->offsets[p - 1];
    }
    u->offsets[0] = 0;
    edges_free(a, &e);
    if (cached) {
        uc->valid = true;
        uc->edits = g->edits;
        uc->n_nodes = n;
        uc->removals = fl__graph_removals();
    }
    uc->busy = true;
    return FL_OK;
}

const fl_use *fl__uses_of(const fl_uses *u, const fl_node *n, int port, size_t *count) {
    if (n->id >= u->g->n_nodes || port < 0 || port >= n->n_outputs) {
        *count = 0;
        return NULL;
    }
    uint32_t p = u->port_base[n->id] + (uint32_t)port;
    *count = u->offsets[p + 1] - u->offsets[p];
    return &u->uses[u->offsets[p]];
}

size_t fl__uses_total(const fl_uses *u, const fl_node *n) {
    if (n->id >= u->g->n_nodes) {
        return 0;
    }
    size_t total = u->ctrl_counts[n->id];
    for (int k = 0; k < n->n_outputs; k++) {
        size_t c;
        fl__uses_of(u, n, k, &c);
        total += c;
    }
    return total;
}

/* ------------------------------------------------------------------------- */
/* Edges                                                                      */
/* ------------------------------------------------------------------------- */

/* Redirects m's data inputs reading (from, from_port); returns how many. */
static size_t replace_in(fl_graph *g, fl_node *m, const fl_node *from, int from_port, fl_node *to,
                         int to_port) {
    size_t changed = 0;
    for (int k = 0; k < m->n_inputs; k++) {
        if (m->inputs[k].node == from && m->inputs[k].port == from_port) {
            fl__node_set_input(g, m, k, (fl_input){to, to_port});
            changed++;
        }
    }
    return changed;
}

/* Moves m's control edges on `from` to `to` (dropped when to is NULL, a
 * self edge, or already present); returns how many changed. */
static size_t replace_ctrl_in(fl_graph *g, fl_node *m, const fl_node *from, fl_node *to) {
    size_t changed = 0;
    int w = 0;
    for (int k = 0; k < m->n_ctrl; k++) {
        fl_node *c = m->ctrl[k];
        if (c == from) {
            changed++;
            c = to;
            for (int j = 0; c && j < w; j++) {
                if (m->ctrl[j] == c) {
                    c = NULL;
                }
            }
            if (c == m) {
                c = NULL;
            }
        }
        if (c) {
            fl__node_set_ctrl(g, m, w++, c);
        }
    }
    fl__node_trim_ctrl(g, m, w);
    return changed;
}

size_t fl__graph_replace_uses(fl_graph *g, const fl_node *from, int from_port, fl_node *to,
                              int to_port) {
    size_t changed = 0;
    for (size_t i = 0; i < g->n_nodes; i++) {
        fl_node *m = g->nodes[i];
        if (!(m->flags & FL_NODE_REMOVED)) {
            changed += replace_in(g, m, from, from_port, to, to_port);
        }
    }
    g->order = NULL;
    return changed;
}

size_t fl__graph_replace_ctrl_uses(fl_graph *g, const fl_node *from, fl_node *to) {
    size_t changed = 0;
    for (size_t i = 0; i < g->n_nodes; i++) {
        fl_node *m = g->nodes[i];
        if (!(m->flags & FL_NODE_REMOVED)) {
            changed += replace_ctrl_in(g, m, from, to);
        }
    }
    g->order = NULL;
    return changed;
}

/* ------------------------------------------------------------------------- */
/* Edge index                                                                 */
/* ------------------------------------------------------------------------- */

/* Records `reader` as reading node `of`. */
static fl_status index_add(fl_edge_index *x, const fl_node *of, fl_node *reader, fl_diag *d) {
    fl_arena *a = x->g->arena;
    if (of->id >= x->cap_head) {
        size_t nc = x->g->n_nodes + x->g->n_nodes / 4 + 16;
        nc = nc > of->id ? nc : (size_t)of->id + 16;
        uint32_t *nh = fl__arena_scratch_grow(a, x->head, x->cap_head, nc, sizeof(uint32_t));
        if (!nh) {
            return fl__diag_oom(d);
        }
        x->head = nh;
        x->cap_head = nc;
    }
    if (x->n_e == x->n_seg * x->seg_cap) {
        if (x->n_e + x->seg_cap >= UINT32_MAX) {
            return fl__diag_oom(d);
        }
        struct fl_edge_entry **ns =
            fl__arena_scratch_grow(a, x->seg, x->n_seg, x->n_seg + 1, sizeof(*ns));
        if (!ns) {
            return fl__diag_oom(d);
        }
        x->seg = ns;
        /* entries are written before they are read: not zeroed */
        ns[x->n_seg] = fl__arena_scratch_raw(a, x->seg_cap, sizeof(struct fl_edge_entry));
        if (!ns[x->n_seg]) {
            return fl__diag_oom(d);
        }
        x->n_seg++;
    }
    x->seg[x->n_seg - 1][x->n_e - (x->n_seg - 1) * x->seg_cap] =
        (struct fl_edge_entry){reader->id, x->head[of->id]};
    x->head[of->id] = (uint32_t)++x->n_e;
    return FL_OK;
}

void fl__edge_index_defer(fl_graph *g, fl_edge_index *x) {
    memset(x, 0, sizeof(*x));
    x->g = g;
}

fl_status fl__edge_index_need(fl_edge_index *x, fl_diag *d) {
    if (x->head) {
        return FL_OK;
    }
    fl_graph *g = x->g;
    fl_status st = fl__edge_index_build(g, x, d);
    x->g = g; /* still deferred after a failed build */
    return st;
}

fl_status fl__edge_index_note(fl_edge_index *x, fl_node *m, fl_diag *d) {
    if (!x->head) {
        /* deferred: the build notes every live node, m among them */
        return fl__edge_index_need(x, d);
    }
    for (int k = 0; k < m->n_inputs; k++) {
        if (index_add(x, m->inputs[k].node, m, d) != FL_OK) {
            return d->status;
        }
    }
    for (int k = 0; k < m->n_ctrl; k++) {
        if (index_add(x, m->ctrl[k], m, d) != FL_OK) {
            return d->status;
        }
    }
    return FL_OK;
}

fl_status fl__edge_index_build(fl_graph *g, fl_edge_index *x, fl_diag *d) {
    memset(x, 0, sizeof(*x));
    x->g = g;
    /* Room for two and a half edges a node, grown by index_add when a
     * graph has more: counting them first was a walk over the nodes of its
     * own (a miss or more per node on a graph larger than the caches), and
     * the pages of room never written are never faulted in. */
    x->cap_head = g->n_nodes + g->n_nodes / 4 + 16;
    x->seg_cap = 2 * g->n_nodes + g->n_nodes / 2 + 64;
    x->head = fl__arena_scratch(g->arena, x->cap_head, sizeof(uint32_t));
    if (!x->head) {
        fl__edge_index_free(x);
        return fl__diag_oom(d);
    }
    for (size_t i = 0; i < g->n_nodes; i++) {
        fl_node *m = g->nodes[i];
        if (!(m->flags & FL_NODE_REMOVED) && fl__edge_index_note(x, m, d) != FL_OK) {
            fl__edge_index_free(x);
            return d->status;
        }
    }
    return FL_OK;
}

void fl__edge_index_free(fl_edge_index *x) {
    if (x->g) {
        fl__arena_scratch_free(x->g->arena, x->head);
        for (size_t i = 0; i < x->n_seg; i++) {
            fl__arena_scratch_free(x->g->arena, x->seg[i]);
        }
        fl__arena_scratch_free(x->g->arena, x->seg);
    }
    memset(x, 0, sizeof(*x));
}

size_t fl__edge_index_replace_uses(fl_edge_index *x, const fl_node *from, int from_port,
                                   fl_node *to, int to_port, fl_diag *d) {
    size_t changed = 0;
    if (fl__edge_index_need(x, d) != FL_OK) {
        x->g->order = NULL;
        return 0;
    }
    for (uint32_t at = fl__edge_index_first(x, from); at; at = fl__edge_index_at(x, at)->next) {
        fl_node *m = fl__edge_index_reader(x, at);
        size_t k =
            m->flags & FL_NODE_REMOVED ? 0 : replace_in(x->g, m, from, from_port, to, to_port);
        if (k && index_add(x, to, m, d) != FL_OK) {
            break;
        }
        changed += k;
    }
    x->g->order = NULL;
    return changed;
}

size_t fl__edge_index_replace_ctrl_uses(fl_edge_index *x, const fl_node *from, fl_node *to,
                                        fl_diag *d) {
    size_t changed = 0;
    if (fl__edge_index_need(x, d) != FL_OK) {
        x->g->order = NULL;
        return 0;
    }
    for (uint32_t at = fl__edge_index_first(x, from); at; at = fl__edge_index_at(x, at)->next) {
        fl_node *m = fl__edge_index_reader(x, at);
        size_t k = m->flags & FL_NODE_REMOVED ? 0 : replace_ctrl_in(x->g, m, from, to);
        if (k && to && index_add(x, to, m, d) != FL_OK) {
            break;
        }
        changed += k;
    }
    x->g->order = NULL;
    return changed;
}

static _Thread_local uint64_t removals;

void fl__graph_remove_node(fl_node *n) {
    removals += !(n->flags & FL_NODE_REMOVED);
    n->flags |= FL_NODE_REMOVED;
}

uint64_t fl__graph_removals(void) {
    return removals;
}

/* ------------------------------------------------------------------------- */
/* Compaction                                                                 */
/* ------------------------------------------------------------------------- */

/* fl__graph_compact, and with `count` the consumer counts. */
static fl_status compact(fl_graph *g, fl_diag *d, bool count) {
    struct fl_compact_key *ck = &g->compacted;
    if (ck->valid && ck->edits == g->edits && ck->n_nodes == g->n_nodes &&
        ck->removals == fl__graph_removals()) {
        g->order = NULL;
        return FL_OK; /* as the last compaction left it */
    }
    /* Every live node must read only live nodes. */
    for (size_t i = 0; i < g->n_nodes; i++) {
        fl_node *m = g->nodes[i];
        if (m->flags & FL_NODE_REMOVED) {
            continue;
        }
        for (int k = 0; k < m->n_inputs; k++) {
            if (m->inputs[k].node->flags & FL_NODE_REMOVED) {
                return fl__node_fail(d, FL_EINTERNAL, m,
                                     "rewrite left input %d reading removed node '%s'", k,
                                     m->inputs[k].node->name);
            }
        }
        /* Control edges on removed nodes are dropped: the removed node's
         * ordering obligations are the pass's to forward. */
        if (!m->n_ctrl) {
            continue;
        }
        int w = 0;
        for (int k = 0; k < m->n_ctrl; k++) {
            if (!(m->ctrl[k]->flags & FL_NODE_REMOVED)) {
                fl__node_set_ctrl(g, m, w++, m->ctrl[k]);
            }
        }
        fl__node_trim_ctrl(g, m, w);
    }
    g->edits++; /* ids change */
    /* The node array is written in place below: the journal keeps the one it
     * was opened on (ids and consumer counts it recomputes on a restore). */
    fl__graph_journal_save_nodes(g);
    /* The nodes the name index must move (removed, renamed, unindexed),
     * collected in the walk below, are moved in place while they are few;
     * past an eighth of the nodes the index is rebuilt: each entry moved is
     * a probe at a random place of a table the pass left cold, where a
     * rebuild clears it in one sweep and fills it warm (CSE removing half
     * of swin_t's nodes took longer in place). */
    size_t cap = g->n_nodes / 8, n_moved = 0;
    fl_node **moved =
        cap && g->index_size ? fl__arena_scratch_raw(g->arena, cap, sizeof(*moved)) : NULL;
    size_t w = 0;
    for (size_t i = 0; i < g->n_nodes; i++) {
        fl_node *m = g->nodes[i];
        bool removed = (m->flags & FL_NODE_REMOVED) != 0;
        if (removed || fl__graph_index_stale(m)) {
            if (n_moved < cap && moved) {
                moved[n_moved] = m;
            }
            n_moved++;
        }
        if (!removed) {
            m->id = (uint32_t)w;
            g->nodes[w++] = m;
        }
    }
    g->n_nodes = w;
    g->order = NULL;
    fl_status st = moved && n_moved <= cap ? fl__graph_index_update(g, moved, n_moved, d)
                                           : fl__graph_reindex(g, d);
    fl__arena_scratch_free(g->arena, moved);
    if (st != FL_OK) {
        return st;
    }
    /* Consumer counts. */
    for (size_t i = 0; count && i < g->n_nodes; i++) {
        fl_node *m = g->nodes[i];
        m->n_ctrl_consumers = 0;
        for (int k = 0; k < m->n_outputs; k++) {
            m->outputs[k].n_consumers = 0;
        }
    }
    for (size_t i = 0; count && i < g->n_nodes; i++) {
        fl_node *m = g->nodes[i];
        for (int k = 0; k < m->n_inputs; k++) {
            m->inputs[k].node->outputs[m->inputs[k].port].n_consumers++;
        }
        for (int k = 0; k < m->n_ctrl; k++) {
            m->ctrl[k]->n_ctrl_consumers++;
        }
    }
    *ck = (struct fl_compact_key){true, g->edits, fl__graph_removals(), g->n_nodes};
    return FL_OK;
}

fl_status fl__graph_compact(fl_graph *g, fl_diag *d) {
    return compact(g, d, true);
}

fl_status fl__graph_compact_to_sort(fl_graph *g, fl_diag *d) {
    return compact(g, d, false);
}

/* ------------------------------------------------------------------------- */
/* Nodes                                                                      */
/* ------------------------------------------------------------------------- */

const char *fl__graph_unique_name(fl_graph *g, const char *base) {
    if (!fl__graph_find(g, base)) {
        return fl__arena_strdup(g->arena, base);
    }
    for (unsigned i = 1;; i++) {
        char *cand = fl__arena_printf(g->arena, "%s_%u", base, i);
        if (!cand || !fl__graph_find(g, cand)) {
            return cand;
        }
    }
}

fl_status fl__node_set_inputs(fl_graph *g, fl_node *n, int n_inputs, const fl_input *inputs) {
    /* IR invariants (util/check.h): an input is a live node of this graph
     * read at one of its ports (-1 would be a control edge, kept apart). */
    for (int i = 0; i < n_inputs; i++) {
        FL_DCHECK(inputs[i].node && inputs[i].node != n);
        FL_DCHECK(!(inputs[i].node->flags & FL_NODE_REMOVED));
        FL_DCHECK(inputs[i].port >= 0 &&
                  (inputs[i].node->n_outputs == 0 || inputs[i].port < inputs[i].node->n_outputs));
    }
    fl_input *copy =
        fl__arena_calloc(g->arena, n_inputs > 0 ? (size_t)n_inputs : 1, sizeof(fl_input));
    if (!copy) {
        return FL_ENOMEM;
    }
    if (n_inputs > 0) {
        memcpy(copy, inputs, (size_t)n_inputs * sizeof(fl_input));
    }
    fl__node_touch(g, n);
    n->inputs = copy;
    n->n_inputs = n_inputs;
    g->order = NULL;
    return FL_OK;
}

/* The inputs and outputs of a node just added. */
static fl_node *init_op(fl_graph *g, fl_node *n, int n_inputs, const fl_input *inputs,
                        int n_outputs, fl_diag *d) {
    if (!n) {
        return NULL;
    }
    n->ctrl = NULL;
    n->n_ctrl = 0;
    if (fl__node_set_inputs(g, n, n_inputs, inputs) != FL_OK ||
        fl__node_alloc_outputs(g, n, n_outputs) != FL_OK) {
        fl__diag_oom(d);
        return NULL;
    }
    n->attrs = NULL;
    n->n_attrs = 0;
    return n;
}

fl_node *fl__graph_add_op(fl_graph *g, const char *name, const char *op, int n_inputs,
                          const fl_input *inputs, int n_outputs, fl_diag *d) {
    return init_op(g, fl__graph_add_node(g, name, op, d), n_inputs, inputs, n_outputs, d);
}

fl_node *fl__graph_add_op_taking_name(fl_graph *g, fl_node *old, const char *op, int n_inputs,
                                      const fl_input *inputs, int n_outputs, fl_diag *d) {
    return init_op(g, fl__graph_add_node_taking_name(g, old, op, d), n_inputs, inputs, n_outputs,
                   d);
}

fl_status fl__node_add_ctrl(fl_graph *g, fl_node *n, fl_node *dep) {
    FL_DCHECK(dep && dep != n && !(dep->flags & FL_NODE_REMOVED));
    for (int k = 0; k < n->n_ctrl; k++) {
        if (n->ctrl[k] == dep) {
            return FL_OK;
        }
    }
    fl_node **nc = fl__arena_grow(g->arena, n->ctrl, (size_t)n->n_ctrl, (size_t)n->n_ctrl + 1,
                                  sizeof(fl_node *));
    if (!nc) {
        return FL_ENOMEM;
    }
    fl__node_touch(g, n);
    nc[n->n_ctrl++] = dep;
    n->ctrl = nc;
    g->order = NULL;
    return FL_OK;
}

/* n's attr array, writable, with room for `room` more attrs: in place only
 * when it is the array last made here (g->attr_tail) for this node, still
 * holding the attrs it held then; otherwise a copy (into which n's attrs
 * move). An array any snapshot holds is never written: taking a snapshot
 * forgets the tail (graph/snapshot.h), so its arrays are copied first. A
 * fused node gets its attrs one at a time; copying the array for each was
 * quadratic in time and memory, hence the spare room. NULL: out of memory. */
static fl_attr *own_attrs(fl_graph *g, fl_node *n, int room) {
    struct fl_attr_tail *t = &g->attr_tail;
    if (t->node == n && t->attrs == n->attrs && t->n == n->n_attrs && n->n_attrs + room <= t->cap) {
        return n->attrs;
    }
    int need = n->n_attrs + room;
    int cap = need < 4 ? 4 : 2 * need;
    fl_attr *na =
        fl__arena_grow(g->arena, n->attrs, (size_t)n->n_attrs, (size_t)cap, sizeof(fl_attr));
    if (!na) {
        return NULL;
    }
    n->attrs = na;
    *t = (struct fl_attr_tail){n, na, n->n_attrs, cap};
    return na;
}

static int attr_index(const fl_node *n, const char *name) {
    for (int i = 0; i < n->n_attrs; i++) {
        if (strcmp(n->attrs[i].name, name) == 0) {
            return i;
        }
    }
    return -1;
}

fl_status fl__node_set_attr(fl_graph *g, fl_node *n, const fl_attr *a) {
    if (!a->name || (a->kind == FL_ATTR_S && !a->v.s.p)) {
        return FL_ENOMEM; /* its constructor ran out of memory (attr_named) */
    }
    int i = attr_index(n, a->name);
    fl__node_touch(g, n); /* before own_attrs sets n->attrs */
    fl_attr *arr = own_attrs(g, n, i < 0);
    if (!arr) {
        return FL_ENOMEM;
    }
    if (i >= 0) {
        arr[i] = *a;
        return FL_OK;
    }
    arr[n->n_attrs++] = *a;
    g->attr_tail.n = n->n_attrs;
    return FL_OK;
}

fl_status fl__node_del_attr(fl_graph *g, fl_node *n, const char *name) {
    int i = attr_index(n, name);
    if (i < 0) {
        return FL_OK;
    }
    fl__node_touch(g, n);
    fl_attr *arr = own_attrs(g, n, 0);
    if (!arr) {
        return FL_ENOMEM;
    }
    memmove(&arr[i], &arr[i + 1], (size_t)(n->n_attrs - i - 1) * sizeof(fl_attr));
    n->n_attrs--;
    g->attr_tail.n = n->n_attrs;
    return FL_OK;
}

fl_status fl__node_init_attrs(fl_graph *g, fl_node *n, int n_attrs, const fl_attr *attrs,
                              int room) {
    int cap = n_attrs + room > 0 ? n_attrs + room : 1;
    fl_attr *na = fl__arena_alloc(g->arena, (size_t)cap * sizeof(fl_attr));
    if (!na) {
        return FL_ENOMEM;
    }
    if (n_attrs > 0) {
        memcpy(na, attrs, (size_t)n_attrs * sizeof(fl_attr));
    }
    fl__node_touch(g, n);
    n->attrs = na;
    n->n_attrs = n_attrs;
    if (room > 0) {
        g->attr_tail = (struct fl_attr_tail){n, na, n_attrs, cap};
    } else if (g->attr_tail.node == n) {
        g->attr_tail = (struct fl_attr_tail){NULL, NULL, 0, 0};
    }
    return FL_OK;
}

void fl__node_set_attrs(fl_graph *g, fl_node *n, int n_attrs, fl_attr *attrs) {
    fl__node_touch(g, n);
    n->attrs = attrs;
    n->n_attrs = n_attrs;
}

void fl__node_trim_inputs(fl_graph *g, fl_node *n, int count) {
    FL_DCHECK(count >= 0 && count <= n->n_inputs);
    if (count != n->n_inputs) {
        fl__node_touch(g, n);
        n->n_inputs = count;
    }
}

void fl__node_trim_ctrl_to(fl_graph *g, fl_node *n, int count) {
    FL_DCHECK(count >= 0 && count <= n->n_ctrl);
    fl__node_touch(g, n);
    n->n_ctrl = count;
}

void fl__node_clear_ctrl(fl_graph *g, fl_node *n) {
    if (n->n_ctrl || n->ctrl) {
        fl__node_touch(g, n);
        n->ctrl = NULL;
        n->n_ctrl = 0;
    }
}

/* ------------------------------------------------------------------------- */
/* Attr constructors                                                          */
/* ------------------------------------------------------------------------- */

static fl_attr attr_named(fl_graph *g, const char *name, fl_attr_kind kind) {
    fl_attr a;
    memset(&a, 0, sizeof a);
    a.name = fl__graph_intern(g, name); /* names repeat on every rewritten node */
    a.kind = kind;
    return a;
}

fl_attr fl__attr_make_int(fl_graph *g, const char *name, int64_t v) {
    fl_attr a = attr_named(g, name, FL_ATTR_I);
    a.v.i = v;
    return a;
}

fl_attr fl__attr_make_float(fl_graph *g, const char *name, float v) {
    fl_attr a = attr_named(g, name, FL_ATTR_F);
    a.v.f = v;
    return a;
}

fl_attr fl__attr_make_bool(fl_graph *g, const char *name, bool v) {
    fl_attr a = attr_named(g, name, FL_ATTR_B);
    a.v.b = v;
    return a;
}

fl_attr fl__attr_make_type(fl_graph *g, const char *name, int dtype) {
    fl_attr a = attr_named(g, name, FL_ATTR_TYPE);
    a.v.type = dtype;
    return a;
}

fl_attr fl__attr_make_str(fl_graph *g, const char *name, const char *v) {
    fl_attr a = attr_named(g, name, FL_ATTR_S);
    a.v.s.p = fl__arena_strdup(g->arena, v);
    a.v.s.len = strlen(v);
    return a;
}

fl_attr fl__attr_make_strs(fl_graph *g, const char *name, size_t n, const char *const *v) {
    fl_attr a = attr_named(g, name, FL_ATTR_LIST);
    fl_str *s = fl__arena_calloc(g->arena, n ? n : 1, sizeof(fl_str));
    if (s) {
        for (size_t i = 0; i < n; i++) {
            s[i].p = fl__arena_strdup(g->arena, v[i]);
            s[i].len = strlen(v[i]);
        }
    }
    a.list_kind = n ? FL_ATTR_S : FL_ATTR_NONE;
    a.n = s ? n : 0;
    a.v.list.s = s;
    return a;
}

fl_attr fl__attr_make_ints(fl_graph *g, const char *name, size_t n, const int64_t *v) {
    fl_attr a = attr_named(g, name, FL_ATTR_LIST);
    int64_t *c = fl__arena_calloc(g->arena, n ? n : 1, sizeof(int64_t));
    if (c && n) {
        memcpy(c, v, n * sizeof(int64_t));
    }
    a.list_kind = n ? FL_ATTR_I : FL_ATTR_NONE;
    a.n = c ? n : 0;
    a.v.list.i = c;
    return a;
}

fl_attr fl__attr_make_tensor(fl_graph *g, const char *name, int dtype, int rank,
                             const int64_t *dims, const fl_value *v) {
    fl_attr a = attr_named(g, name, FL_ATTR_TENSOR);
    fl_const *c = fl__arena_zalloc(g->arena, sizeof(*c));
    int64_t *d = fl__arena_calloc(g->arena, rank > 0 ? (size_t)rank : 1, sizeof(int64_t));
    if (!c || !d) {
        return a; /* tensor NULL; the arena's failure flag reports OOM */
    }
    int64_t n = 1;
    for (int i = 0; i < rank; i++) {
        d[i] = dims[i];
        n *= dims[i];
    }
    c->dtype = (fl_dtype)dtype;
    c->shape.rank = rank;
    c->shape.dims = d;
    c->n = n;
    c->content_bytes = (uint64_t)n * fl__dtype_size(dtype);
    c->stripped = v == NULL;
    c->value = v;
    a.v.tensor = c;
    return a;
}
