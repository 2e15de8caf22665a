/*
 * cse.c - Grappler's CommonSubgraphElimination
 * (grappler/optimizers/common_subgraph_elimination.cc).
 *
 * Rule common_subgraph: two nodes with the same op, the same device, the same
 * data inputs (ports included; in either order for commutative binary ops),
 * the same set of control inputs and equal attrs compute the same values; the
 * later one (in topological order) is removed and its consumers read the
 * first. One sweep in topological order reaches the fixpoint: consumers are
 * rewired before they are hashed, so duplicates of duplicates merge too.
 * Linear time: candidates are found through a hash table.
 *
 * Not deduplicated: preserved nodes, unregistered ops and function calls,
 * stateful ops (random ops, variables), control flow (Enter, Exit, Switch,
 * Merge, ...), nodes inside v1 loops, Placeholders, devices containing "SPU".
 * Constants with stripped or undecoded contents are equal only to themselves.
 *
 * A lowered While's cond and body (the nodes named "W/cond/..." and
 * "W/body/...", src/import/funcinline.c) are functions Grappler optimises
 * as items of their own: a node merges only with nodes of the same
 * function (its innermost such prefix; the graph itself outside them), so
 * a constant in a body is never replaced by an equal one outside it.
 */
#include "graph/snapshot.h"
#include "passes/util.h"
#include "util/hash.h"

#include <string.h>

static uint64_t mix(uint64_t h, uint64_t x) {
    h ^= x + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
    return h;
}

static uint64_t str_hash(const void *p, size_t len) {
    return fl__hash_step(FL_HASH_INIT, p, len);
}

static bool commutative(int kind) {
    switch (kind) {
    case FL_OP_ADD:
    case FL_OP_ADD_V2:
    case FL_OP_MUL:
    case FL_OP_MAXIMUM:
    case FL_OP_MINIMUM:
    case FL_OP_EQUAL:
    case FL_OP_NOT_EQUAL:
    case FL_OP_LOGICAL_AND:
    case FL_OP_LOGICAL_OR:
    case FL_OP_SQUARED_DIFFERENCE:
        return true;
    default:
        return false;
    }
}

/* On an ONNX graph a constant is an initializer to ONNX Runtime (Constant
 * nodes become initializers when it loads the model), and its CSE compares
 * inputs by name: two equal initializers stay two, and so do the nodes
 * reading them, except where its ConstantSharing (level 1) makes them one:
 * a single value (rank 0, or shape [1]) of float, float16, double, int32 or
 * int64, equal in type, value and rank. So an ONNX Const is merged only
 * when it is such a value: equal uint8 zero points and equal weights stay
 * apart, and the DequantizeLinear nodes reading them are not merged. */
static bool onnx_shared_const(const fl_node *n) {
    const fl_tensor *t = &n->outputs[0];
    if (t->shape.rank != 0 &&
        (t->shape.rank != 1 || !fl_sym_is_known(t->shape.dims[0]) || t->shape.dims[0].k != 1)) {
        return false;
    }
    switch (t->dtype) {
    case FL_DT_FLOAT:
    case FL_DT_HALF:
    case FL_DT_DOUBLE:
    case FL_DT_INT32:
    case FL_DT_INT64:
        return true;
    default:
        return false;
    }
}

static bool dedupable(const fl_graph *g, const fl_node *n) {
    if (g->onnx.is_onnx && n->kind == FL_OP_CONST && !onnx_shared_const(n)) {
        return false;
    }
    if (fl__preserved(n) || !n->desc || (n->flags & (FL_NODE_IN_LOOP | FL_NODE_FUNC_CALL))) {
        return false;
    }
    if (n->desc->flags & (FL_OPF_STATEFUL | FL_OPF_CONTROL_FLOW | FL_OPF_FUNCTIONAL)) {
        return false;
    }
    if (fl__is_feed(n)) {
        return false;
    }
    return !(n->device && n->device[0] && strstr(n->device, "SPU"));
}

/* ---- attr equality (fl__attr_equal, with CSE's constants) ---- */

/* Two constants are equal when their values are known and the same; a
 * stripped or undecoded one only to itself. */
static bool const_eq(const fl_const *a, const fl_const *b, void *arg) {
    (void)arg;
    if (a == b) {
        return true;
    }
    if (!a || !b || a->dtype != b->dtype || a->shape.rank != b->shape.rank || a->stripped ||
        b->stripped || !a->value || !b->value) {
        return false;
    }
    for (int i = 0; i < a->shape.rank; i++) {
        if (a->shape.dims[i] != b->shape.dims[i]) {
            return false;
        }
    }
    const fl_value *x = a->value, *y = b->value;
    if (x->n != y->n) {
        return false;
    }
    if (x->ints && y->ints) {
        for (int64_t i = 0; i < x->n; i++) {
            if (!fl__sym_eq(x->ints[i], y->ints[i])) {
                return false;
            }
        }
        return true;
    }
    if (x->raw && y->raw) {
        return memcmp(x->raw, y->raw, (size_t)x->n * fl__dtype_size(x->dtype)) == 0;
    }
    return false;
}

/* ---- node keys ---- */

static bool input_eq(const fl_input *a, const fl_input *b) {
    return a->node == b->node && a->port == b->port;
}

/* A hash consistent with const_eq: a constant equal only to itself (stripped,
 * undecoded) hashes its address; otherwise dtype, shape and the first
 * elements. Without it every stripped constant of a model lands in one
 * probe chain, and CSE turns quadratic in the number of initializers. */
static uint64_t const_hash(const fl_const *c) {
    if (!c) {
        return 0;
    }
    if (c->stripped || !c->value) {
        return mix(0x5eedull, (uint64_t)(uintptr_t)c);
    }
    uint64_t h = mix((uint64_t)c->dtype, (uint64_t)c->shape.rank);
    for (int i = 0; i < c->shape.rank; i++) {
        h = mix(h, (uint64_t)c->shape.dims[i]);
    }
    const fl_value *v = c->value;
    if (v->ints) {
        for (int64_t i = 0; i < v->n && i < 16; i++) {
            h = mix(h, fl_sym_is_known(v->ints[i]) ? (uint64_t)v->ints[i].k : 0x5ull);
        }
    } else if (v->raw) {
        size_t bytes = (size_t)v->n * fl__dtype_size(v->dtype);
        h = mix(h, fl__hash_words(v->raw, bytes < 64 ? bytes : 64));
    }
    return h;
}

/* The functions of the lowered While loops: the prefixes "W/body/" and
 * "W/cond/" of each While node with attr _loop "W", and per node the index
 * + 1 of the longest one its name starts with (0: the graph itself). No
 * loops: scope NULL, every node in the graph. */
typedef struct scopes {
    uint32_t *of; /* per node id */
} scopes;

static fl_status scopes_build(fl_pass_ctx *pc, scopes *sc, uint32_t *readers) {
    fl_graph *g = pc->c->g;
    sc->of = NULL;
    size_t nl = 0;
    for (size_t i = 0; i < g->n_nodes; i++) {
        const fl_node *w = g->nodes[i];
        /* the sweep's reader counts, in the same walk over the nodes (on a
         * graph larger than the caches each walk costs a miss a node) */
        for (int k = 0; k < w->n_inputs; k++) {
            readers[w->inputs[k].node->id]++;
        }
        if (w->kind != FL_OP_WHILE && w->kind != FL_OP_STATELESS_WHILE) {
            continue; /* the attr lookup only for the loops */
        }
        const fl_attr *a = fl__node_attr(w, "_loop");
        nl += a && a->kind == FL_ATTR_S;
    }
    if (!nl) {
        return FL_OK;
    }
    const char **pre = fl__arena_calloc(pc->c->a, 2 * nl, sizeof(char *));
    sc->of = fl__arena_calloc(pc->c->a, g->n_nodes + 1, sizeof(uint32_t));
    if (!pre || !sc->of) {
        return fl__diag_oom(pc->c->d);
    }
    size_t np = 0;
    for (size_t i = 0; i < g->n_nodes; i++) {
        const fl_node *w = g->nodes[i];
        if (w->kind != FL_OP_WHILE && w->kind != FL_OP_STATELESS_WHILE) {
            continue;
        }
        const fl_attr *a = fl__node_attr(w, "_loop");
        if (!a || a->kind != FL_ATTR_S) {
            continue;
        }
        for (int side = 0; side < 2; side++) {
            pre[np] = fl__arena_printf(pc->c->a, "%s/%s/", a->v.s.p, side ? "cond" : "body");
            if (!pre[np++]) {
                return fl__diag_oom(pc->c->d);
            }
        }
    }
    for (size_t i = 0; i < g->n_nodes; i++) {
        const fl_node *m = g->nodes[i];
        size_t best = 0;
        for (size_t k = 0; k < np; k++) {
            size_t len = strlen(pre[k]);
            if (strncmp(m->name, pre[k], len) == 0 && (!best || len > strlen(pre[best - 1]))) {
                best = k + 1;
            }
        }
        sc->of[m->id] = (uint32_t)best;
    }
    return FL_OK;
}

static uint32_t scope_of(const scopes *sc, const fl_node *n) {
    return sc->of ? sc->of[n->id] : 0;
}

static uint64_t node_hash(const fl_node *n) {
    /* A registered op's kind stands for its name (one kind per name); the
     * equality test still compares the names. */
    uint64_t h = n->desc ? mix(0x6f70ull, (uint64_t)n->kind) : str_hash(n->op, strlen(n->op));
    const char *dev = fl__dev_of(n);
    h = mix(h, fl__hash_str(dev));
    bool sym = commutative(n->kind) && n->n_inputs == 2;
    uint64_t ih = 0; /* the two inputs of a commutative op hash in either order */
    for (int i = 0; i < n->n_inputs; i++) {
        uint64_t x = mix(0, ((uint64_t)n->inputs[i].node->id << 16) ^ (uint64_t)n->inputs[i].port);
        if (sym) {
            ih += x;
        } else {
            h = mix(h, x);
        }
    }
    h = mix(h, ih);
    uint64_t ch = 0; /* control inputs are a set */
    for (int i = 0; i < n->n_ctrl; i++) {
        ch += mix(0xc0ull, n->ctrl[i]->id);
    }
    h = mix(h, ch);
    /* attrs: order-independent, by kind and value; not by name (equal
     * nodes have the same names, and the names' text, read for every node
     * hashed, is compared only for a node found with the same hash) */
    uint64_t ah = 0;
    for (int i = 0; i < n->n_attrs; i++) {
        const fl_attr *a = &n->attrs[i];
        uint64_t x = mix(0xa7ull, (uint64_t)a->kind);
        if (a->kind == FL_ATTR_I) {
            x = mix(x, (uint64_t)a->v.i);
        } else if (a->kind == FL_ATTR_TYPE) {
            x = mix(x, (uint64_t)a->v.type);
        } else if (a->kind == FL_ATTR_TENSOR) {
            x = mix(x, const_hash(a->v.tensor));
        } else if (a->kind == FL_ATTR_S) {
            x = mix(x, str_hash(a->v.s.p, a->v.s.len));
        }
        ah += x;
    }
    return mix(h, ah);
}

static bool node_eq(const fl_node *a, const fl_node *b) {
    if ((a->op != b->op && strcmp(a->op, b->op) != 0) || !fl__same_device(a, b) ||
        a->n_inputs != b->n_inputs || a->n_ctrl != b->n_ctrl || a->n_attrs != b->n_attrs ||
        a->n_outputs != b->n_outputs) {
        return false;
    }
    bool same = true;
    for (int i = 0; i < a->n_inputs && same; i++) {
        same = input_eq(&a->inputs[i], &b->inputs[i]);
    }
    if (!same &&
        !(commutative(a->kind) && a->n_inputs == 2 && input_eq(&a->inputs[0], &b->inputs[1]) &&
          input_eq(&a->inputs[1], &b->inputs[0]))) {
        return false;
    }
    for (int i = 0; i < a->n_ctrl; i++) { /* as sets; control lists are short */
        bool found = false;
        for (int j = 0; j < b->n_ctrl && !found; j++) {
            found = a->ctrl[i] == b->ctrl[j];
        }
        if (!found) {
            return false;
        }
    }
    for (int i = 0; i < a->n_attrs; i++) {
        /* names are distinct in a node: the attr at the same place when it
         * has the name (nodes of one op usually list their attrs alike) */
        const char *name = a->attrs[i].name;
        const char *bn = b->attrs[i].name;
        const fl_attr *y =
            bn == name || strcmp(bn, name) == 0 ? &b->attrs[i] : fl__node_attr(b, name);
        if (!y || !fl__attr_equal(&a->attrs[i], y, const_eq, NULL)) {
            return false;
        }
    }
    return true;
}

/* Rewrites n's data and control inputs to representatives (`any`: some
 * node has one; else data inputs stay as they are) and drops duplicate
 * control inputs. */
static void resolve_inputs(fl_graph *g, fl_node *n, fl_node *const *rep, bool any) {
    for (int i = 0; any && i < n->n_inputs; i++) {
        fl_node *r = rep[n->inputs[i].node->id];
        if (r) {
            fl__node_set_input(g, n, i, (fl_input){r, n->inputs[i].port});
        }
    }
    if (!n->n_ctrl) {
        return;
    }
    int w = 0;
    for (int i = 0; i < n->n_ctrl; i++) {
        fl_node *c = rep[n->ctrl[i]->id] ? rep[n->ctrl[i]->id] : n->ctrl[i];
        bool dup = c == n;
        for (int j = 0; j < w && !dup; j++) {
            dup = n->ctrl[j] == c;
        }
        if (!dup) {
            fl__node_set_ctrl(g, n, w++, c);
        }
    }
    fl__node_trim_ctrl(g, n, w);
}

/* Does n read (data or control) a node the sweep has not reached (seen[id]
 * 0): a loop's back edge, whose representative the sweep may find later? */
static bool reads_ahead(const fl_node *n, const uint8_t *seen) {
    for (int i = 0; i < n->n_inputs; i++) {
        if (!seen[n->inputs[i].node->id]) {
            return true;
        }
    }
    for (int i = 0; i < n->n_ctrl; i++) {
        if (!seen[n->ctrl[i]->id]) {
            return true;
        }
    }
    return false;
}

/* CSE's table: open addressing, `size` a power of two, sized to the nodes
 * entered (at most half full; it doubles as they come). On a chain only
 * the constants are entered (two nodes of five), so a table sized for every
 * node was 16 bytes x 2n slots of scratch faulted in at random (512 MB on
 * 10M nodes) for 40 % of them. Never two equal nodes of one scope in it, so
 * what a lookup finds does not depend on the size. */
typedef struct cse_slot {
    fl_node *node;
    uint64_t hash;
} cse_slot;

typedef struct cse_table {
    cse_slot *slots;
    size_t size, used;
} cse_table;

#define CSE_TABLE_MIN 64

/* Doubles t (false when out of memory; t unchanged then). */
static bool table_grow(fl_arena *ar, cse_table *t) {
    size_t size = t->size * 2;
    cse_slot *s = fl__arena_scratch(ar, size, sizeof(cse_slot));
    if (!s) {
        return false;
    }
    for (size_t i = 0; i < t->size; i++) {
        if (t->slots[i].node) {
            size_t j = t->slots[i].hash & (size - 1);
            while (s[j].node) {
                j = (j + 1) & (size - 1);
            }
            s[j] = t->slots[i];
        }
    }
    fl__arena_scratch_free(ar, t->slots);
    t->slots = s;
    t->size = size;
    return true;
}

/* Looks n up in the table: *found is the node of n's scope it equals, or
 * NULL after entering n. */
static fl_status insert(fl_pass_ctx *pc, cse_table *t, const scopes *sc, fl_node *n,
                        fl_node **found) {
    /* mix() moves an input's id into the low bits only a few places at a
     * time: unmixed, nodes that differ only in their inputs took a handful
     * of slots, one probe run among them all. */
    uint64_t h = fl__hash_mix(mix(node_hash(n), scope_of(sc, n)));
    size_t j = h & (t->size - 1);
    while (t->slots[j].node) {
        fl_node *m = t->slots[j].node;
        if (t->slots[j].hash == h && scope_of(sc, m) == scope_of(sc, n) && node_eq(m, n)) {
            *found = m;
            return FL_OK;
        }
        j = (j + 1) & (t->size - 1);
    }
    *found = NULL;
    if (2 * (t->used + 1) > t->size) {
        if (!table_grow(pc->c->a, t)) {
            return fl__diag_oom(pc->c->d);
        }
        j = h & (t->size - 1);
        while (t->slots[j].node) {
            j = (j + 1) & (t->size - 1);
        }
    }
    t->slots[j] = (cse_slot){n, h};
    t->used++;
    return FL_OK;
}

/* The sweep of the pass over the graph's nodes in order; rep and lone
 * (n + 1 each, zero), readers (counted by scopes_build) and the table t
 * are described in the pass above. */
static fl_status dedup(fl_pass_ctx *pc, scopes *sc, cse_table *t, fl_node **rep, uint32_t *readers,
                       fl_node **lone, uint8_t *seen) {
    fl_graph *g = pc->c->g;
    size_t n = g->n_nodes;
    fl_node **order = g->order;
    size_t n_rep = 0;
    bool ahead = false; /* some node reads one after it in the order */
    for (size_t i = 0; i < n; i++) {
        fl_node *m = order[i];
        resolve_inputs(g, m, rep, n_rep > 0);
        seen[m->id] = 1;
        if (reads_ahead(m, seen)) {
            seen[m->id] = 2;
            ahead = true;
        }
        if (!dedupable(g, m)) {
            continue;
        }
        if (m->n_inputs > 0) {
            uint32_t first = m->inputs[0].node->id;
            if (readers[first] < 2 && !lone[first]) {
                lone[first] = m;
                continue;
            }
            for (int k = 0; k < m->n_inputs; k++) {
                uint32_t id = m->inputs[k].node->id;
                if (lone[id]) {
                    fl_node *eq; /* a lone reader's equal stays as it is */
                    fl_status st = insert(pc, t, sc, lone[id], &eq);
                    if (st != FL_OK) {
                        return st;
                    }
                    lone[id] = NULL;
                }
            }
        }
        fl_node *found;
        fl_status st = insert(pc, t, sc, m, &found);
        if (st != FL_OK) {
            return st;
        }
        if (!found) {
            continue;
        }
        const char *detail[] = {m->op, " duplicates '", found->name, "': removed"};
        fl__ledger_note_parts(pc, "common_subgraph", m, detail, 4);
        rep[m->id] = found;
        readers[found->id] += readers[m->id];
        n_rep++;
        fl__graph_journal_same(g, m, found); /* m's readers need not be inferred again */
        fl__graph_remove_node(m);
    }
    /* Loop back edges. With nothing removed, the sweep above already left
     * every node's inputs as this would, and so it did for every node that
     * reads only nodes before it in the order (seen[] 1, not 2): their
     * representatives were known when it reached them. */
    for (size_t i = 0; n_rep && ahead && i < n; i++) {
        if (seen[i] == 2 && !(g->nodes[i]->flags & FL_NODE_REMOVED)) {
            resolve_inputs(g, g->nodes[i], rep, true);
        }
    }
    g->order = NULL;
    return FL_OK;
}

fl_status fl__pass_common_subgraph_elimination(fl_pass_ctx *pc) {
    fl_graph *g = pc->c->g;
    size_t n = g->n_nodes;
    /* The table and the arrays below end with the pass: scratch memory
     * (on the 1M chain they were 50 MB of arena memory kept to the end of
     * the analysis, twice). */
    fl_arena *ar = pc->c->a;
    cse_table t = {fl__arena_scratch(ar, CSE_TABLE_MIN, sizeof(cse_slot)), CSE_TABLE_MIN, 0};
    fl_node **rep = t.slots ? fl__arena_scratch(ar, n + 1, sizeof(fl_node *)) : NULL;
    /* Nodes that cannot have a duplicate are not hashed. Two equal nodes
     * read the same inputs (in either order): a node that is the only
     * reader of its first input so far (readers[], data edges on each
     * node, now or once rewired: a removed duplicate's count goes to its
     * representative) is set aside as that input's `lone` reader instead.
     * A node hashed later enters the lone readers of its inputs in the
     * table first, so it finds one it equals as before (the earlier node
     * in the order stays). On a chain, three nodes of five are set aside. */
    uint32_t *readers = rep ? fl__arena_scratch(ar, n + 1, sizeof(uint32_t)) : NULL;
    fl_node **lone = readers ? fl__arena_scratch(ar, n + 1, sizeof(fl_node *)) : NULL;
    uint8_t *seen = lone ? fl__arena_scratch(ar, n + 1, 1) : NULL;
    scopes sc;
    fl_status st = seen ? scopes_build(pc, &sc, readers) : fl__diag_oom(pc->c->d);
    if (st == FL_OK) {
        st = dedup(pc, &sc, &t, rep, readers, lone, seen);
    }
    fl__arena_scratch_free(ar, seen);
    fl__arena_scratch_free(ar, t.slots);
    fl__arena_scratch_free(ar, rep);
    fl__arena_scratch_free(ar, readers);
    fl__arena_scratch_free(ar, lone);
    return st;
}

/* The skip test (pass.h). Two nodes merge when dedupable and node_eq: both
 * read only the node's own fields (op, device, inputs, control inputs,
 * attrs, output count, flags; and the dtype and shape of an ONNX Const's
 * output, which inference sets) and the identity of its producers, not its
 * consumers. If neither node was added or edited since the pass left the
 * graph as it was (nor, for an ONNX Const, inferred again: touched), both
 * were as they are then, and it did not merge them: a new pair has such a
 * node. The sweep edits a node otherwise only to drop a repeated control
 * input (resolve_inputs), which only an edited node can have gained. So:
 * such a node with a repeated control input, or dedupable with an equal
 * node (the scopes of loop bodies aside: more pairs, not fewer), gives
 * work; past LIMIT of them the pass just runs (each is compared with every
 * node). */
bool fl__cse_may_work(const fl_graph *g, const uint8_t *mark) {
    enum { LIMIT = 16 };
    const fl_node *t[LIMIT];
    size_t nt = 0;
    for (size_t i = 0; i < g->n_nodes; i++) {
        const fl_node *m = g->nodes[i];
        if (!(mark[i] & FL_MAY_EDITED) &&
            !((mark[i] & FL_MAY_TOUCHED) && g->onnx.is_onnx && m->kind == FL_OP_CONST)) {
            continue;
        }
        for (int k = 0; k < m->n_ctrl; k++) {
            for (int j = 0; j < k; j++) {
                if (m->ctrl[j] == m->ctrl[k]) {
                    return true;
                }
            }
            if (m->ctrl[k] == m) {
                return true;
            }
        }
        if (dedupable(g, m)) {
            if (nt == LIMIT) {
                return true;
            }
            t[nt++] = m;
        }
    }
    for (size_t i = 0; i < g->n_nodes && nt; i++) {
        const fl_node *m = g->nodes[i];
        for (size_t k = 0; k < nt; k++) {
            const fl_node *u = t[k];
            /* node_eq's first tests, inline: most pairs differ there */
            if (m == u || m->kind != u->kind || m->n_inputs != u->n_inputs ||
                m->n_attrs != u->n_attrs || m->n_ctrl != u->n_ctrl ||
                (m->n_inputs > 0 && m->inputs[0].node != u->inputs[0].node &&
                 m->inputs[0].node != u->inputs[m->n_inputs - 1].node)) {
                continue;
            }
            if (node_eq(m, u) && dedupable(g, m)) {
                return true;
            }
        }
    }
    return false;
}
