/*
 * graph.c - graph IR: nodes, the name index, topological order, verifier and
 * attribute access.
 */
#include "graph/graph.h"

#include "graph/mutate.h"
#include "util/hash.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------------- */
/* Diagnostics about nodes                                                   */
/* ------------------------------------------------------------------------- */

fl_status fl__node_fail(fl_diag *d, fl_status st, const fl_node *n, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    fl__diag_failv(d, st, n ? (n->name ? n->name : "") : NULL, n && n->op ? n->op : "", fmt, ap);
    va_end(ap);
    return st;
}

void fl__node_warn(fl_diag *d, const fl_node *n, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    fl__diag_warnv(d, n ? (n->name ? n->name : "") : NULL, n && n->op ? n->op : "", fmt, ap);
    va_end(ap);
}

/* ------------------------------------------------------------------------- */
/* Nodes and the name index                                                  */
/* ------------------------------------------------------------------------- */

/* FNV's low bits cluster for names that differ only in their last
 * characters ("n1000", "n1001"); mixed before masking (fl__hash_mix). */

/* The name index's hash: 8 bytes a step and mixed (fl__hash_words; names
 * run to tens of bytes, and a byte a step was a tenth of an ONNX import),
 * 32 bits of it, so that a node keeps its name's hash in what was padding
 * (fl_node.name_hash). */
static uint64_t hash_str(const char *s) {
    return (uint32_t)fl__hash_words(s, strlen(s));
}

/* hash_str of the first len bytes of s. */
static uint64_t hash_mem(const char *s, size_t len) {
    return (uint32_t)fl__hash_words(s, len);
}

/* hash_str(n->name), hashed again only when the name changed since. */
static uint64_t node_name_hash(fl_node *n) {
    if (n->hashed_name != n->name) {
        n->name_hash = (uint32_t)hash_str(n->name);
        n->hashed_name = n->name;
    }
    return n->name_hash;
}

/* The word of count v (fl_node_cost); 0 when an integer beyond 63 bits
 * finds no memory to be kept in (*oom set). */
static uint64_t cost_word_slow(fl_arena *a, fl_sym v, bool *oom) {
    if (!fl_sym_is_known(v)) {
        return (uint64_t)(uintptr_t)v.e | 1;
    }
    int64_t *box = fl__arena_alloc_raw(a, sizeof *box);
    if (!box) {
        *oom = true;
        return 0;
    }
    *box = v.k;
    return (uint64_t)(uintptr_t)box | 3;
}

/* 1 when count v is a known integer of 63 bits (kept inline), else 0;
 * unsigned, not bool, so that the six tests of fl__node_set_cost combine without branches. */
static inline unsigned cost_word_small(fl_sym v) {
    return (unsigned)(v.e == NULL) &
           (unsigned)((uint64_t)v.k + ((uint64_t)1 << 62) < ((uint64_t)1 << 63));
}

static uint8_t cost_bits(const fl_cost *k) {
    return (uint8_t)((k->has_rule ? FL_COST_HAS_RULE : 0) |
                     (k->tfprof_rule ? FL_COST_TFPROF_RULE : 0) |
                     (k->incomplete ? FL_COST_INCOMPLETE : 0) |
                     (k->trips_unknown ? FL_COST_TRIPS_UNKNOWN : 0) |
                     (k->per_load ? FL_COST_PER_LOAD : 0));
}

fl_status fl__node_set_cost(fl_graph *g, fl_node *n, const fl_cost *k) {
    fl_node_cost *c = &n->cost;
    c->bits = cost_bits(k);
    if (cost_word_small(k->flops) & cost_word_small(k->tfprof_flops) & cost_word_small(k->macs) &
        cost_word_small(k->int_ops) & cost_word_small(k->bytes_read) &
        cost_word_small(k->bytes_written)) { /* the common case: six known integers */
        c->w[FL_COUNT_FLOPS] = (uint64_t)k->flops.k << 1;
        c->w[FL_COUNT_TFPROF_FLOPS] = (uint64_t)k->tfprof_flops.k << 1;
        c->w[FL_COUNT_MACS] = (uint64_t)k->macs.k << 1;
        c->w[FL_COUNT_INT_OPS] = (uint64_t)k->int_ops.k << 1;
        c->w[FL_COUNT_BYTES_READ] = (uint64_t)k->bytes_read.k << 1;
        c->w[FL_COUNT_BYTES_WRITTEN] = (uint64_t)k->bytes_written.k << 1;
        return FL_OK;
    }
    bool oom = false;
    const fl_sym v[6] = {k->flops,   k->tfprof_flops, k->macs,
                         k->int_ops, k->bytes_read,   k->bytes_written};
    for (int i = 0; i < 6; i++) {
        c->w[i] =
            cost_word_small(v[i]) ? (uint64_t)v[i].k << 1 : cost_word_slow(g->arena, v[i], &oom);
    }
    if (oom) {
        for (int i = 0; i < 6; i++) {
            c->w[i] = fl__cost_word_unknown();
        }
        c->bits = FL_COST_INCOMPLETE;
        return FL_ENOMEM;
    }
    return FL_OK;
}

fl_graph *fl__graph_new(fl_arena *a) {
    fl_graph *g = fl__arena_zalloc(a, sizeof(*g));
    if (!g) {
        return NULL;
    }
    g->arena = a;
    g->syms = fl__symtab_new(a);
    if (!g->syms) {
        return NULL;
    }
    return g;
}

void fl__graph_clear(fl_graph *g) {
    fl_arena *a = g->arena;
    fl_symtab *syms = g->syms;
    memset(g, 0, sizeof(*g));
    g->arena = a;
    g->syms = syms;
}

typedef struct fl_name_slot name_slot;

/* Puts (n, h) into the first empty slot of its probe chain. */
static void slot_put(name_slot *t, size_t mask, fl_node *n, uint64_t h) {
    size_t j = h & mask;
    while (t[j].node) {
        j = (j + 1) & mask;
    }
    t[j].node = n;
    t[j].hash = h;
}

/* The slot holding `name` (hash h), or the empty slot ending its chain. */
static size_t slot_find(const fl_graph *g, const char *name, uint64_t h) {
    size_t mask = g->index_size - 1, j = h & mask;
    const name_slot *t = g->index;
    while (t[j].node && (t[j].hash != h || strcmp(t[j].node->name, name) != 0)) {
        j = (j + 1) & mask;
    }
    return j;
}

/* Whether an index of `size` slots is too small for n names: its load may
 * reach 2/3 (the stored hashes keep the longer probe chains cheap; at 1/2
 * a graph just past a power of two took twice the memory). */
static bool index_full(size_t n, size_t size) {
    return n * 3 > size * 2;
}

/* Makes the index large enough for n_nodes + extra nodes: one new table,
 * the old entries moved by their stored hashes. */
static bool index_reserve(fl_graph *g, size_t extra) {
    if (index_full(g->n_nodes + extra, g->index_size)) {
        size_t ns = g->index_size ? g->index_size * 2 : 64;
        while (index_full(g->n_nodes + extra, ns)) {
            ns *= 2;
        }
        name_slot *ni = fl__arena_table(g->arena, ns, sizeof(*ni));
        if (!ni) {
            return false;
        }
        /* The slots carry their hashes: growing reads no name. */
        for (size_t i = 0; i < g->index_size; i++) {
            if (g->index[i].node) {
                slot_put(ni, ns - 1, g->index[i].node, g->index[i].hash);
            }
        }
        g->index = ni;
        g->index_size = ns;
    }
    return true;
}

/* Room for `extra` more nodes in g->nodes: the capacity doubled (from
 * 64k nodes half again: the old array stays in the arena, and the new one's
 * pages are faulted in as it is taken, used or not), or (exact: an importer
 * that knows its count) that count and an eighth more for the nodes a pass
 * adds, not the next power of two (on 10M nodes, 54 MB less). */
static bool nodes_reserve(fl_graph *g, size_t extra, bool exact) {
    if (g->n_nodes + extra > g->cap_nodes) {
        size_t nc = g->cap_nodes ? g->cap_nodes : 32;
        do {
            nc += nc < 65536 ? nc : nc / 2;
        } while (g->n_nodes + extra > nc);
        if (exact) {
            nc = g->n_nodes + extra + (g->n_nodes + extra) / 8;
        }
        fl_node **nn = fl__arena_grow(g->arena, g->nodes, g->n_nodes, nc, sizeof(*nn));
        if (!nn) {
            return false;
        }
        g->nodes = nn;
        g->cap_nodes = nc;
    }
    return true;
}

fl_status fl__graph_reserve(fl_graph *g, size_t extra, fl_diag *d) {
    if (!nodes_reserve(g, extra, true) || !index_reserve(g, extra)) {
        return fl__diag_oom(d);
    }
    return FL_OK;
}

void fl__graph_prefetch_name(const fl_graph *g, const char *name, size_t len) {
#if defined(__GNUC__)
    if (g->index_size) {
        __builtin_prefetch(&g->index[hash_mem(name, len) & (g->index_size - 1)]);
    }
#else
    (void)g;
    (void)name;
    (void)len;
#endif
}

fl_status fl__graph_reindex(fl_graph *g, fl_diag *d) {
    /* One table of the final size (index_reserve's load factor), reused when
     * the size has not changed: a compaction after every pass must not leave
     * a trail of doubling tables in the arena. Reusing the memory in place
     * is safe for snapshots, which write the whole table back on restore. */
    size_t n = g->n_nodes;
    size_t ns = 64;
    while (index_full(n + 1, ns)) {
        ns *= 2;
    }
    name_slot *ni = g->index;
    if (ni && g->index_size == ns) {
        memset(ni, 0, ns * sizeof(*ni));
    } else {
        ni = fl__arena_table(g->arena, ns, sizeof(*ni));
        if (!ni) {
            return fl__diag_oom(d);
        }
        g->index = ni;
        g->index_size = ns;
    }
    for (size_t i = 0; i < n; i++) {
        fl_node *m = g->nodes[i];
        uint64_t h = node_name_hash(m);
        size_t j = slot_find(g, m->name, h);
        if (ni[j].node) {
            return fl__node_fail(d, FL_EINTERNAL, m, "two live nodes share this name");
        }
        ni[j].node = m;
        ni[j].hash = h;
        if (m->flags & FL_NODE_UNINDEXED) {
            m->flags &= ~(uint32_t)FL_NODE_UNINDEXED;
        }
    }
    return FL_OK;
}

/* Deletes n's entry (under n->name_hash, the hash it was entered with)
 * with backward-shift deletion, so probe chains stay intact; false when n
 * has none. */
static bool index_delete(fl_graph *g, const fl_node *n) {
    name_slot *t = g->index;
    size_t mask = g->index_size - 1;
    size_t j = n->name_hash & mask;
    while (t[j].node && t[j].node != n) {
        j = (j + 1) & mask;
    }
    if (!t[j].node) {
        return false;
    }
    t[j].node = NULL;
    for (size_t k = (j + 1) & mask; t[k].node; k = (k + 1) & mask) {
        size_t home = t[k].hash & mask;
        /* Move the entry back into the hole if its home is not in (j, k]. */
        bool between = j <= k ? (home > j && home <= k) : (home > j || home <= k);
        if (!between) {
            t[j] = t[k];
            t[k].node = NULL;
            j = k;
        }
    }
    return true;
}

fl_status fl__graph_index_update(fl_graph *g, fl_node *const *moved, size_t n_moved, fl_diag *d) {
    if (!g->index_size || index_full(g->n_nodes + 1, g->index_size)) {
        return fl__graph_reindex(g, d);
    }
    for (size_t i = 0; i < n_moved; i++) {
        /* a renamed node's entry is under its old name's hash */
        (void)index_delete(g, moved[i]);
    }
    for (size_t i = 0; i < n_moved; i++) {
        fl_node *m = moved[i];
        if (m->flags & FL_NODE_REMOVED) {
            continue;
        }
        m->flags &= ~(uint32_t)FL_NODE_UNINDEXED;
        uint64_t h = node_name_hash(m);
        size_t j = slot_find(g, m->name, h);
        if (g->index[j].node) {
            return fl__node_fail(d, FL_EINTERNAL, m, "two live nodes share this name");
        }
        g->index[j].node = m;
        g->index[j].hash = h;
    }
    return FL_OK;
}

void fl__graph_index_refill(fl_graph *g) {
    if (!g->index_size) {
        return;
    }
    memset(g->index, 0, g->index_size * sizeof(*g->index));
    for (size_t i = 0; i < g->n_nodes; i++) {
        slot_put(g->index, g->index_size - 1, g->nodes[i], node_name_hash(g->nodes[i]));
    }
}

fl_status fl__graph_rename(fl_graph *g, fl_node *n, const char *name, fl_diag *d) {
    fl_node *other = fl__graph_find(g, name);
    if (other == n) {
        return FL_OK;
    }
    if (other) {
        return fl__node_fail(d, FL_EINTERNAL, n, "cannot rename to '%s': the name is taken", name);
    }
    char *copy = fl__arena_strdup(g->arena, name);
    if (!copy) {
        return fl__diag_oom(d);
    }
    fl__node_touch(g, n);
    /* Delete n's slot (under the hash of its current name), then insert it
     * under the new name. */
    node_name_hash(n);
    if (!index_delete(g, n)) {
        return fl__node_fail(d, FL_EINTERNAL, n, "node missing from the name index");
    }
    n->name = copy;
    slot_put(g->index, g->index_size - 1, n, node_name_hash(n));
    return FL_OK;
}

fl_node *fl__graph_find(const fl_graph *g, const char *name) {
    if (!g->index_size) {
        return NULL;
    }
    return g->index[slot_find(g, name, hash_str(name))].node;
}

struct fl_intern_table {
    struct fl_intern_slot {
        const char *s; /* NULL: empty */
        uint64_t hash;
    } * slots;
    size_t size, n; /* size: a power of two */
};

/* Whether NUL-terminated e is the len bytes at s (none of them NUL): e is
 * read no further than its end. */
static bool str_is(const char *e, const char *s, size_t len) {
    size_t i = 0;
    while (i < len && e[i] == s[i]) {
        i++;
    }
    return i == len && e[i] == '\0';
}

/* The string literal equal to the len bytes at s when they are one of the
 * attr names the ops ask for most, else NULL. Interned as that literal, a
 * name is the very pointer an op passes to fl__node_attr (the linker keeps
 * one copy of equal literals), which then skips the compare. */
static const char *known_attr_name(const char *s, size_t len) {
#define KNOWN(lit)                                                                                 \
    if (len == sizeof(lit) - 1 && memcmp(s, lit, sizeof(lit) - 1) == 0) {                          \
        return lit;                                                                                \
    }
    switch (s[0]) {
    case 'T':
        KNOWN("T") KNOWN("Tidx") KNOWN("Tshape") KNOWN("Tpaddings") KNOWN("Tperm") break;
    case 'N':
        KNOWN("N") break;
    case 'a':
        KNOWN("axis") KNOWN("alpha") break;
    case 'd':
        KNOWN("dtype") KNOWN("data_format") KNOWN("dilations") break;
    case 'e':
        KNOWN("explicit_paddings") KNOWN("epsilon") break;
    case 'f':
        KNOWN("fused_ops") break;
    case 'k':
        KNOWN("ksize") KNOWN("keep_dims") break;
    case 'n':
        KNOWN("num_args") break;
    case 'p':
        KNOWN("padding") break;
    case 's':
        KNOWN("strides") KNOWN("shape") break;
    case 't':
        KNOWN("transpose_a") KNOWN("transpose_b") break;
    case 'v':
        KNOWN("value") break;
    default:
        break;
    }
#undef KNOWN
    return NULL;
}

const char *fl__graph_intern(fl_graph *g, const char *s) {
    return fl__graph_intern_n(g, s, strlen(s));
}

const char *fl__graph_intern_n(fl_graph *g, const char *s, size_t len) {
    struct fl_intern_table *t = g->interned;
    if (!t) {
        t = g->interned = fl__arena_zalloc(g->arena, sizeof(*t));
        if (!t) {
            return NULL;
        }
    }
    uint64_t h = hash_mem(s, len);
    if (t->size) {
        for (size_t j = h & (t->size - 1); t->slots[j].s; j = (j + 1) & (t->size - 1)) {
            const char *e = t->slots[j].s;
            if (t->slots[j].hash == h && str_is(e, s, len)) {
                return t->slots[j].s;
            }
        }
    }
    if ((t->n + 1) * 2 > t->size) {
        size_t ns = t->size ? t->size * 2 : 64;
        struct fl_intern_slot *sl = fl__arena_calloc(g->arena, ns, sizeof(*sl));
        if (!sl) {
            return NULL;
        }
        for (size_t i = 0; i < t->size; i++) {
            if (t->slots[i].s) {
                size_t j = t->slots[i].hash & (ns - 1);
                while (sl[j].s) {
                    j = (j + 1) & (ns - 1);
                }
                sl[j] = t->slots[i];
            }
        }
        t->slots = sl;
        t->size = ns;
    }
    const char *copy = len ? known_attr_name(s, len) : NULL;
    if (!copy && !(copy = fl__arena_strndup(g->arena, s, len))) {
        return NULL;
    }
    size_t j = h & (t->size - 1);
    while (t->slots[j].s) {
        j = (j + 1) & (t->size - 1);
    }
    t->slots[j].s = copy;
    t->slots[j].hash = h;
    t->n++;
    return copy;
}

char *fl__graph_strndup(fl_graph *g, const char *s, size_t len) {
    if (!g->str_pool && !(g->str_pool = fl__arena_zalloc(g->arena, sizeof(*g->str_pool)))) {
        return NULL;
    }
    return fl__arena_pool_strndup(g->arena, g->str_pool, s, len);
}

struct fl_dims_cache {
    struct fl_dims_slot {
        fl_sym *dims; /* NULL: empty */
        int rank;
    } * slots;
    size_t mask;
};

fl_sym *fl__graph_dims(fl_graph *g, int rank, const fl_sym *dims) {
    /* One xor-multiply per 8 bytes, mixed once at the end. */
    const uint64_t prime = 1099511628211ull;
    uint64_t h = (FL_HASH_INIT ^ (uint64_t)rank) * prime;
    for (int i = 0; i < rank; i++) {
        if (fl_sym_is_unknown(dims[i])) {
            return NULL;
        }
        /* By value, not by the expression's address: which shapes share an
         * array (and so how many arrays an analysis allocates) is the same
         * in every run. */
        h = (h ^ fl__sym_hash(dims[i])) * prime;
    }
    struct fl_dims_cache *t = g->dims_cache;
    if (!t) {
        /* Direct-mapped, sized by the graph: a slot per 8 nodes, 32 to 4096
         * slots (a graph has far fewer distinct shapes than nodes). */
        size_t size = 32;
        while (size < 4096 && size * 8 < g->n_nodes) {
            size *= 2;
        }
        t = fl__arena_zalloc(g->arena, sizeof(*t));
        struct fl_dims_slot *slots = t ? fl__arena_calloc(g->arena, size, sizeof(*slots)) : NULL;
        if (!slots) {
            return NULL;
        }
        t->slots = slots;
        t->mask = size - 1;
        g->dims_cache = t;
    }
    struct fl_dims_slot *s = &t->slots[fl__hash_mix(h) & t->mask];
    if (s->dims && s->rank == rank &&
        (rank == 0 || memcmp(s->dims, dims, (size_t)rank * sizeof(fl_sym)) == 0)) {
        return s->dims;
    }
    fl_sym *d = fl__arena_alloc(g->arena, (rank ? (size_t)rank : 1) * sizeof(fl_sym));
    if (!d) {
        return NULL;
    }
    if (rank) {
        memcpy(d, dims, (size_t)rank * sizeof(fl_sym));
    }
    s->dims = d;
    s->rank = rank;
    return d;
}

const fl_function *fl__graph_find_function(const fl_graph *g, const char *name) {
    for (size_t i = 0; i < g->n_funcs; i++) {
        if (strcmp(g->funcs[i].name, name) == 0) {
            return &g->funcs[i];
        }
    }
    return NULL;
}

/* Adds a node; copy: name and op are copied into the arena, otherwise they
 * are kept as given. One probe of the index serves the duplicate test and
 * the insertion. A name a node has is an error, or with `taken` set true
 * instead. */
/* n, made in g's arena and named, becomes g's last node (room reserved). */
static void node_append(fl_graph *g, fl_node *n) {
    n->device = "";
    n->id = (uint32_t)g->n_nodes;
    n->born = g->birth;
    g->nodes[g->n_nodes++] = n;
}

static fl_node *add_node(fl_graph *g, const char *name, const char *op, bool copy, bool *taken,
                         fl_diag *d) {
    uint64_t h = hash_str(name);
    if (!nodes_reserve(g, 1, false) || !index_reserve(g, 1)) {
        fl__diag_oom(d);
        return NULL;
    }
    size_t j = slot_find(g, name, h);
    if (g->index[j].node) {
        if (taken) {
            *taken = true;
        } else {
            fl__diag_fail(d, FL_EINVAL, "duplicate node name '%s' (field: node.name)", name);
        }
        return NULL;
    }
    fl_node *n = fl__arena_zalloc(g->arena, sizeof(*n));
    if (!n) {
        fl__diag_oom(d);
        return NULL;
    }
    n->name = copy ? fl__arena_strdup(g->arena, name) : name;
    n->op = copy ? fl__arena_strdup(g->arena, op) : op;
    if (!n->name || !n->op) {
        fl__diag_oom(d);
        return NULL;
    }
    g->index[j].node = n;
    g->index[j].hash = h;
    n->hashed_name = n->name;
    n->name_hash = (uint32_t)h;
    node_append(g, n);
    return n;
}

fl_node *fl__graph_add_node(fl_graph *g, const char *name, const char *op, fl_diag *d) {
    return add_node(g, name, op, true, NULL, d);
}

fl_node *fl__graph_add_node_view(fl_graph *g, const char *name, const char *op, fl_diag *d) {
    return add_node(g, name, op, false, NULL, d);
}

fl_node *fl__graph_add_node_view_if_free(fl_graph *g, const char *name, const char *op, bool *taken,
                                         fl_diag *d) {
    *taken = false;
    return add_node(g, name, op, false, taken, d);
}

fl_node *fl__graph_add_node_unindexed(fl_graph *g, const char *name, const char *op, fl_diag *d) {
    if (!nodes_reserve(g, 1, false)) {
        fl__diag_oom(d);
        return NULL;
    }
    fl_node *n = fl__arena_zalloc(g->arena, sizeof(*n));
    if (!n) {
        fl__diag_oom(d);
        return NULL;
    }
    n->name = name;
    n->op = op;
    node_append(g, n);
    return n;
}

/* How many nodes ahead fl__graph_index_nodes hashes a name and prefetches
 * its slot. */
#define INDEX_AHEAD 8

fl_status fl__graph_index_nodes(fl_graph *g, size_t from, fl_diag *d) {
    if (!index_reserve(g, 0)) {
        return fl__diag_oom(d);
    }
    size_t n = g->n_nodes;
    for (size_t i = from; i < n + INDEX_AHEAD; i++) {
        if (i < n) {
            uint64_t h = node_name_hash(g->nodes[i]);
#if defined(__GNUC__)
            __builtin_prefetch(&g->index[h & (g->index_size - 1)], 1);
#endif
        }
        if (i < from + INDEX_AHEAD) {
            continue;
        }
        fl_node *m = g->nodes[i - INDEX_AHEAD];
        uint64_t h = m->name_hash;
        size_t j = slot_find(g, m->name, h);
        if (g->index[j].node) {
            const char *name = fl__graph_unique_name(g, m->name);
            if (!name) {
                return fl__diag_oom(d);
            }
            m->name = name;
            h = node_name_hash(m);
            j = slot_find(g, name, h);
        }
        g->index[j].node = m;
        g->index[j].hash = h;
    }
    return FL_OK;
}

fl_node *fl__graph_add_node_taking_name(fl_graph *g, fl_node *old, const char *op, fl_diag *d) {
    if (!nodes_reserve(g, 1, false)) {
        fl__diag_oom(d);
        return NULL;
    }
    fl_node *n = fl__arena_zalloc(g->arena, sizeof(*n));
    /* One copy of an op type for every node a pass adds with it (a fused
     * op on many layers), not 16 bytes or more each. */
    const char *op_copy = fl__graph_intern(g, op);
    if (!n || !op_copy) {
        fl__diag_oom(d);
        return NULL;
    }
    /* The index keeps mapping the name to old (or to the node it replaced):
     * no probe, and the name stays taken until the compaction, which indexes
     * n under it. */
    n->name = old->name;
    n->hashed_name = old->hashed_name;
    n->name_hash = old->name_hash;
    n->op = op_copy;
    n->flags |= FL_NODE_UNINDEXED;
    node_append(g, n);
    return n;
}

fl_status fl__node_alloc_outputs(fl_graph *g, fl_node *n, int n_outputs) {
    fl__node_touch(g, n);
    n->n_outputs = n_outputs;
    if (n_outputs == 0) {
        n->outputs = NULL;
        return FL_OK;
    }
    n->outputs = fl__arena_calloc(g->arena, (size_t)n_outputs, sizeof(fl_tensor));
    if (!n->outputs) {
        return FL_ENOMEM;
    }
    for (int i = 0; i < n_outputs; i++) {
        n->outputs[i].shape.rank = -1;
        n->outputs[i].producer = n;
        n->outputs[i].port = i;
    }
    return FL_OK;
}

/* ------------------------------------------------------------------------- */
/* Topological order                                                          */
/* ------------------------------------------------------------------------- */

/* A bound op (ops/ops.h) carries its loop role in its flags, so the sort
 * reads no string for it: it asks for every node, and the strings live all
 * over the arena. An op the registry does not know is compared by name. */
static bool is_next_iteration(const fl_node *n) {
    if (n->desc) {
        return (n->flags & FL_NODE_OP_NEXT_ITERATION) != 0;
    }
    return strcmp(n->op, "NextIteration") == 0 || strcmp(n->op, "RefNextIteration") == 0;
}

static bool is_merge(const fl_node *n) {
    if (n->desc) {
        return (n->flags & FL_NODE_OP_MERGE) != 0;
    }
    return strcmp(n->op, "Merge") == 0 || strcmp(n->op, "RefMerge") == 0;
}

/* An edge from `src` into data input of `dst` that closes a loop. */
static bool is_back_edge(const fl_node *src, const fl_node *dst) {
    return is_merge(dst) && is_next_iteration(src);
}

/* As is_back_edge, with is_merge(dst) known: the sort looks at every edge
 * twice and most nodes are not Merges (no string compare per edge). */
static bool is_back_edge_into(const fl_node *src, bool dst_is_merge) {
    return dst_is_merge && is_next_iteration(src);
}

/* The sort stopped short: some node is on a cycle (or downstream of one).
 * Names a node on the cycle, found by walking predecessors that are still
 * blocked (indeg != 0). */
static fl_status cycle_error(const fl_graph *g, const uint32_t *indeg, fl_diag *d) {
    size_t n = g->n_nodes, bad = 0;
    while (bad < n && indeg[bad] == 0) {
        bad++;
    }
    fl_node *m = g->nodes[bad];
    for (size_t steps = 0; steps < n; steps++) {
        fl_node *pred = NULL;
        for (int k = 0; k < m->n_inputs && !pred; k++) {
            fl_node *src = m->inputs[k].node;
            if (!is_back_edge(src, m) && indeg[src->id] != 0) {
                pred = src;
            }
        }
        for (int k = 0; k < m->n_ctrl && !pred; k++) {
            if (indeg[m->ctrl[k]->id] != 0) {
                pred = m->ctrl[k];
            }
        }
        if (!pred) {
            break;
        }
        m = pred;
    }
    return fl__node_fail(d, FL_EINVAL, m,
                         "graph has a cycle through this node that is not a while-loop "
                         "(only NextIteration -> Merge edges may close a cycle; field: input)");
}

/* The sort's working arrays (scratch memory, freed by sort_free). */
typedef struct sort_work {
    uint32_t *indeg, *off, *esrc, *succ, *queue;
    bool *zeroed;
    size_t cap, n_edges;
} sort_work;

static void sort_free(fl_arena *a, sort_work *w) {
    fl__arena_scratch_free(a, w->indeg);
    fl__arena_scratch_free(a, w->off);
    fl__arena_scratch_free(a, w->esrc);
    fl__arena_scratch_free(a, w->succ);
    fl__arena_scratch_free(a, w->queue);
    fl__arena_scratch_free(a, w->zeroed);
    memset(w, 0, sizeof(*w));
}

/* Zeroes m's consumer counts the first time the walk meets it. */
static void zero_consumers(sort_work *w, fl_node *m) {
    if (w->zeroed[m->id]) {
        return;
    }
    w->zeroed[m->id] = true;
    for (int k = 0; k < m->n_outputs; k++) {
        m->outputs[k].n_consumers = 0;
    }
    m->n_ctrl_consumers = 0;
}

/* Doubles w->esrc (false when out of memory). */
__attribute__((noinline)) static bool grow_edges(fl_arena *a, sort_work *w) {
    size_t nc = w->cap * 2 + 16;
    uint32_t *ns = fl__arena_scratch_grow(a, w->esrc, w->cap, nc, sizeof(uint32_t));
    if (!ns) {
        return false;
    }
    w->esrc = ns;
    w->cap = nc;
    return true;
}

/* Keeps a sort edge from node `src` into node i (w->esrc grown as needed).
 * Inline: it runs once per edge of every sort (a call per edge was a
 * fifth of a sort's instructions). */
static inline __attribute__((always_inline)) bool add_edge(fl_arena *a, sort_work *w, uint32_t src,
                                                           size_t i) {
    if (w->n_edges == w->cap && !grow_edges(a, w)) {
        return false;
    }
    w->esrc[w->n_edges++] = src;
    w->off[src]++;
    w->indeg[i]++;
    return true;
}

/* The one walk over the nodes: counts consumers again (a node's counts are
 * zeroed when the walk first meets it, as a node or as a producer) and
 * keeps the sort's edges as their sources' ids, node by node (indeg[i] of
 * them for node i), so that the successor lists are filled without reading
 * the nodes again: on a graph larger than the caches, each walk over the
 * nodes and their input lists costs a miss or more per node. */
static bool count_edges(fl_graph *g, sort_work *w) {
    for (size_t i = 0; i < g->n_nodes; i++) {
        fl_node *m = g->nodes[i];
        zero_consumers(w, m);
        bool merge = m->n_inputs > 0 && is_merge(m);
        for (int k = 0; k < m->n_inputs; k++) {
            fl_node *src = m->inputs[k].node;
            zero_consumers(w, src);
            src->outputs[m->inputs[k].port].n_consumers++;
            if (is_back_edge_into(src, merge)) {
                m->flags |= FL_NODE_BACK_EDGE;
            } else if (!add_edge(g->arena, w, src->id, i)) {
                return false;
            }
        }
        for (int k = 0; k < m->n_ctrl; k++) {
            fl_node *src = m->ctrl[k];
            zero_consumers(w, src);
            src->n_ctrl_consumers++;
            if (!add_edge(g->arena, w, src->id, i)) {
                return false;
            }
        }
    }
    return true;
}

/* Successor lists in CSR form from the kept edges: off[s] is the start of
 * s's list in succ. */
static bool fill_successors(fl_arena *a, sort_work *w, size_t n) {
    w->succ = fl__arena_scratch_raw(a, w->n_edges ? w->n_edges : 1, sizeof(uint32_t));
    if (!w->succ) {
        return false;
    }
    uint32_t acc = 0;
    for (size_t i = 0; i <= n; i++) {
        uint32_t c = w->off[i];
        w->off[i] = acc;
        acc += c;
    }
    /* off[s] serves as s's cursor, which leaves it at the start of s + 1's
     * list: shifted back by one afterwards. */
    for (size_t i = 0, e = 0; i < n; i++) {
        for (uint32_t j = 0; j < w->indeg[i]; j++, e++) {
            w->succ[w->off[w->esrc[e]]++] = (uint32_t)i;
        }
    }
    for (size_t i = n; i > 0; i--) {
        w->off[i] = w->off[i - 1];
    }
    w->off[0] = 0;
    return true;
}

fl_status fl__graph_toposort(fl_graph *g, fl_diag *d) {
    size_t n = g->n_nodes;
    fl_arena *a = g->arena;
    sort_work w = {0};
    w.cap = 2 * n + n / 2 + 16; /* grown when a graph has more edges */
    w.indeg = fl__arena_scratch(a, n ? n : 1, sizeof(uint32_t));
    w.off = w.indeg ? fl__arena_scratch(a, n + 1, sizeof(uint32_t)) : NULL;
    w.zeroed = w.off ? fl__arena_scratch(a, n ? n : 1, sizeof(bool)) : NULL;
    /* esrc, succ, queue and the order are written before they are read:
     * not zeroed (on swin_t, a sixth of the sort's instructions) */
    w.esrc = w.zeroed ? fl__arena_scratch_raw(a, w.cap, sizeof(uint32_t)) : NULL;
    if (!w.esrc || !count_edges(g, &w)) {
        sort_free(a, &w);
        return fl__diag_oom(d);
    }
    /* the walk's arrays go before the order's are taken */
    fl__arena_scratch_free(a, w.zeroed);
    w.zeroed = NULL;
    bool ok = fill_successors(a, &w, n);
    fl__arena_scratch_free(a, w.esrc);
    w.esrc = NULL;
    w.queue = ok ? fl__arena_scratch_raw(a, n ? n : 1, sizeof(uint32_t)) : NULL;
    fl_node **order = w.queue ? fl__arena_alloc_raw(a, (n ? n : 1) * sizeof(fl_node *)) : NULL;
    if (!order) {
        sort_free(a, &w);
        return fl__diag_oom(d);
    }
    /* Kahn, seeded in node order so the result is deterministic. */
    size_t head = 0, tail = 0;
    for (size_t i = 0; i < n; i++) {
        if (w.indeg[i] == 0) {
            w.queue[tail++] = (uint32_t)i;
        }
    }
    while (head < tail) {
        uint32_t v = w.queue[head++];
        order[head - 1] = g->nodes[v];
        for (uint32_t e = w.off[v]; e < w.off[v + 1]; e++) {
            if (--w.indeg[w.succ[e]] == 0) {
                w.queue[tail++] = w.succ[e];
            }
        }
    }
    fl_status st = FL_OK;
    if (tail != n) {
        st = cycle_error(g, w.indeg, d);
    } else {
        g->order = order;
    }
    sort_free(a, &w);
    return st;
}

fl_status fl__graph_verify(const fl_graph *g, fl_diag *d) {
    for (size_t i = 0; i < g->n_nodes; i++) {
        const fl_node *n = g->nodes[i];
        if (n->id != i) {
            return fl__node_fail(d, FL_EINTERNAL, n, "verifier: id %u at index %zu", n->id, i);
        }
        if (fl__graph_find(g, n->name) != n) {
            return fl__node_fail(d, FL_EINTERNAL, n, "verifier: name index is stale");
        }
        for (int k = 0; k < n->n_inputs; k++) {
            const fl_input *in = &n->inputs[k];
            if (!in->node || in->node->id >= g->n_nodes || g->nodes[in->node->id] != in->node ||
                in->port < 0 || in->port >= in->node->n_outputs) {
                return fl__node_fail(d, FL_EINTERNAL, n, "verifier: input %d dangles", k);
            }
        }
        for (int k = 0; k < n->n_outputs; k++) {
            if (n->outputs[k].producer != n || n->outputs[k].port != k) {
                return fl__node_fail(d, FL_EINTERNAL, n, "verifier: output %d back-pointer", k);
            }
        }
    }
    /* every live node finds itself (above), and the index holds no more */
    size_t entries = 0;
    for (size_t i = 0; i < g->index_size; i++) {
        entries += g->index[i].node != NULL;
    }
    if (g->index_size && entries != g->n_nodes) {
        return fl__diag_fail(d, FL_EINTERNAL,
                             "verifier: the name index holds %zu entries for %zu nodes", entries,
                             g->n_nodes);
    }
    return FL_OK;
}

/* ------------------------------------------------------------------------- */
/* Attributes                                                                 */
/* ------------------------------------------------------------------------- */

static const char *const kind_names[FL_ATTR_COUNT] = {
    [FL_ATTR_NONE] = "none",   [FL_ATTR_S] = "string",
    [FL_ATTR_I] = "int",       [FL_ATTR_F] = "float",
    [FL_ATTR_B] = "bool",      [FL_ATTR_TYPE] = "type",
    [FL_ATTR_SHAPE] = "shape", [FL_ATTR_TENSOR] = "tensor",
    [FL_ATTR_FUNC] = "func",   [FL_ATTR_PLACEHOLDER] = "placeholder",
    [FL_ATTR_LIST] = "list",
};

const fl_attr *fl__node_attr(const fl_node *n, const char *name) {
    /* The first characters are compared inline: most attrs of a node differ
     * there, and every op asks for several attrs of every node. The rest
     * too, byte by byte: attr names are short, and a strcmp call cost more
     * than the comparison. */
    char c0 = name[0];
    for (int i = 0; i < n->n_attrs; i++) {
        const char *a = n->attrs[i].name, *b = name;
        if (a[0] != c0) {
            continue;
        }
        if (a == b) {
            return &n->attrs[i]; /* an interned known name (known_attr_name) */
        }
        while (*a == *b && *a) {
            a++;
            b++;
        }
        if (*a == *b) {
            return &n->attrs[i];
        }
    }
    return NULL;
}

static const char *attr_kind_text(const fl_attr *a) {
    return a->kind == FL_ATTR_LIST ? "list" : kind_names[a->kind];
}

/* Finds attr `name` of kind `kind` (a list of `kind` when list is true). An
 * empty list matches any list kind. */
static fl_status get(const fl_node *n, const char *name, fl_attr_kind kind, bool list,
                     const fl_attr **out, fl_diag *d) {
    *out = NULL;
    const fl_attr *a = fl__node_attr(n, name);
    if (!a) {
        return FL_ENOTFOUND;
    }
    bool ok =
        list ? (a->kind == FL_ATTR_LIST && (a->n == 0 || a->list_kind == kind)) : a->kind == kind;
    if (!ok) {
        return fl__node_fail(d, FL_EINVAL, n, "attr '%s' must be %s%s%s, got %s", name,
                             list ? "list(" : "", kind_names[kind], list ? ")" : "",
                             attr_kind_text(a));
    }
    *out = a;
    return FL_OK;
}

fl_status fl__attr_get_int(const fl_node *n, const char *name, int64_t *out, fl_diag *d) {
    const fl_attr *a;
    fl_status st = get(n, name, FL_ATTR_I, false, &a, d);
    if (st == FL_OK) {
        *out = a->v.i;
    }
    return st;
}

fl_status fl__attr_get_float(const fl_node *n, const char *name, float *out, fl_diag *d) {
    const fl_attr *a;
    fl_status st = get(n, name, FL_ATTR_F, false, &a, d);
    if (st == FL_OK) {
        *out = a->v.f;
    }
    return st;
}

fl_status fl__attr_get_bool(const fl_node *n, const char *name, bool *out, fl_diag *d) {
    const fl_attr *a;
    fl_status st = get(n, name, FL_ATTR_B, false, &a, d);
    if (st == FL_OK) {
        *out = a->v.b;
    }
    return st;
}

fl_status fl__attr_get_type(const fl_node *n, const char *name, int *out, fl_diag *d) {
    const fl_attr *a;
    fl_status st = get(n, name, FL_ATTR_TYPE, false, &a, d);
    if (st == FL_OK) {
        *out = a->v.type;
    }
    return st;
}

fl_status fl__attr_get_str(const fl_node *n, const char *name, fl_str *out, fl_diag *d) {
    const fl_attr *a;
    fl_status st = get(n, name, FL_ATTR_S, false, &a, d);
    if (st == FL_OK) {
        *out = a->v.s;
    }
    return st;
}

fl_status fl__attr_get_shape(const fl_node *n, const char *name, fl_shape_lit *out, fl_diag *d) {
    const fl_attr *a;
    fl_status st = get(n, name, FL_ATTR_SHAPE, false, &a, d);
    if (st == FL_OK) {
        *out = a->v.shape;
    }
    return st;
}

fl_status fl__attr_get_tensor(const fl_node *n, const char *name, const fl_const **out,
                              fl_diag *d) {
    const fl_attr *a;
    fl_status st = get(n, name, FL_ATTR_TENSOR, false, &a, d);
    if (st == FL_OK) {
        *out = a->v.tensor;
    }
    return st;
}

fl_status fl__attr_get_func(const fl_node *n, const char *name, const fl_func_ref **out,
                            fl_diag *d) {
    const fl_attr *a;
    fl_status st = get(n, name, FL_ATTR_FUNC, false, &a, d);
    if (st == FL_OK) {
        *out = &a->v.func;
    }
    return st;
}

fl_status fl__attr_get_ints(const fl_node *n, const char *name, const int64_t **out, size_t *n_out,
                            fl_diag *d) {
    const fl_attr *a;
    fl_status st = get(n, name, FL_ATTR_I, true, &a, d);
    if (st == FL_OK) {
        *out = a->n ? a->v.list.i : NULL;
        *n_out = a->n;
    }
    return st;
}

fl_status fl__attr_get_types(const fl_node *n, const char *name, const int **out, size_t *n_out,
                             fl_diag *d) {
    const fl_attr *a;
    fl_status st = get(n, name, FL_ATTR_TYPE, true, &a, d);
    if (st == FL_OK) {
        *out = a->n ? a->v.list.type : NULL;
        *n_out = a->n;
    }
    return st;
}

fl_status fl__attr_get_strs(const fl_node *n, const char *name, const fl_str **out, size_t *n_out,
                            fl_diag *d) {
    const fl_attr *a;
    fl_status st = get(n, name, FL_ATTR_S, true, &a, d);
    if (st == FL_OK) {
        *out = a->n ? a->v.list.s : NULL;
        *n_out = a->n;
    }
    return st;
}

fl_status fl__attr_get_shapes(const fl_node *n, const char *name, const fl_shape_lit **out,
                              size_t *n_out, fl_diag *d) {
    const fl_attr *a;
    fl_status st = get(n, name, FL_ATTR_SHAPE, true, &a, d);
    if (st == FL_OK) {
        *out = a->n ? a->v.list.shape : NULL;
        *n_out = a->n;
    }
    return st;
}

fl_status fl__attr_int_or(const fl_node *n, const char *name, int64_t dflt, int64_t *out,
                          fl_diag *d) {
    fl_status st = fl__attr_get_int(n, name, out, d);
    if (st == FL_ENOTFOUND) {
        *out = dflt;
        return FL_OK;
    }
    return st;
}

fl_status fl__attr_bool_or(const fl_node *n, const char *name, bool dflt, bool *out, fl_diag *d) {
    fl_status st = fl__attr_get_bool(n, name, out, d);
    if (st == FL_ENOTFOUND) {
        *out = dflt;
        return FL_OK;
    }
    return st;
}

fl_status fl__attr_float_or(const fl_node *n, const char *name, float dflt, float *out,
                            fl_diag *d) {
    fl_status st = fl__attr_get_float(n, name, out, d);
    if (st == FL_ENOTFOUND) {
        *out = dflt;
        return FL_OK;
    }
    return st;
}

fl_status fl__attr_str_or(const fl_node *n, const char *name, const char *dflt, const char **out,
                          fl_diag *d) {
    fl_str s;
    fl_status st = fl__attr_get_str(n, name, &s, d);
    if (st == FL_ENOTFOUND) {
        *out = dflt;
        return FL_OK;
    }
    if (st == FL_OK) {
        *out = s.p;
    }
    return st;
}

fl_status fl__attr_need_int(const fl_node *n, const char *name, int64_t *out, fl_diag *d) {
    fl_status st = fl__attr_get_int(n, name, out, d);
    if (st == FL_ENOTFOUND) {
        return fl__node_fail(d, FL_EINVAL, n, "missing required attr '%s' (int)", name);
    }
    return st;
}

fl_status fl__attr_need_str(const fl_node *n, const char *name, const char **out, fl_diag *d) {
    fl_str s;
    fl_status st = fl__attr_get_str(n, name, &s, d);
    if (st == FL_ENOTFOUND) {
        return fl__node_fail(d, FL_EINVAL, n, "missing required attr '%s' (string)", name);
    }
    if (st == FL_OK) {
        *out = s.p;
    }
    return st;
}

fl_status fl__attr_need_pos_int(const fl_node *n, const char *name, int64_t *out, fl_diag *d) {
    fl_status st = fl__attr_need_int(n, name, out, d);
    if (st == FL_OK && *out <= 0) {
        return fl__node_fail(d, FL_EINVAL, n, "attr '%s' is %lld, want > 0", name, (long long)*out);
    }
    return st;
}

fl_status fl__attr_need_type(const fl_node *n, const char *name, int *out, fl_diag *d) {
    fl_status st = fl__attr_get_type(n, name, out, d);
    if (st == FL_ENOTFOUND) {
        return fl__node_fail(d, FL_EINVAL, n, "missing required attr '%s' (type)", name);
    }
    if (st == FL_OK && !fl__dtype_valid(*out)) {
        return fl__node_fail(d, FL_EINVAL, n, "attr '%s' holds invalid DataType %d", name, *out);
    }
    return st;
}

fl_status fl__attr_need_ints(const fl_node *n, const char *name, const int64_t **out, size_t *n_out,
                             fl_diag *d) {
    fl_status st = fl__attr_get_ints(n, name, out, n_out, d);
    if (st == FL_ENOTFOUND) {
        return fl__node_fail(d, FL_EINVAL, n, "missing required attr '%s' (list(int))", name);
    }
    return st;
}
