/*
 * registry.c - the descriptor table and name lookup generated from ops.def.
 */
#include "graph/mutate.h"
#include "ops/ops.h"
#include "util/hash.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

static const struct fl_op_desc *const table[FL_OP_COUNT] = {
#define FL_OP(e, ...) [FL_OP_##e] = &fl__desc_##e,
#include "ops/ops.def"
#undef FL_OP
};

static const char *const names[FL_OP_COUNT] = {
    [FL_OP_UNKNOWN] = "?",
#define FL_OP(e, name, ...) [FL_OP_##e] = name,
#include "ops/ops.def"
#undef FL_OP
};

/* Lookup runs once per imported node: a scan over the names cost more than
 * decoding the node on large graphs. It uses an open-addressing hash table
 * (FNV-1a, linear probing; slots hold kinds, 0 empty) of at least four slots
 * per op, a power of two sized from FL_OP_COUNT, built at the first lookup
 * (hashing the names takes microseconds: start-up does not notice it, see
 * tests/bench/bench_startup.sh). Building is lock-free: the thread that moves
 * `state` from EMPTY to BUILDING fills the slots and publishes them with a
 * release store of READY; lookups that see anything but READY (with acquire)
 * scan the names as before, so every thread gets the same answers whatever
 * the timing, and nothing needs linking with a thread library. Names are
 * unique in ops.def; were one not, the table keeps its first kind, as the
 * scan would. */
/* The smallest power of two >= n (n <= 65536). */
#define POW2_AT_LEAST(n)                                                                           \
    ((n) <= 1u << 9    ? 1u << 9                                                                   \
     : (n) <= 1u << 10 ? 1u << 10                                                                  \
     : (n) <= 1u << 11 ? 1u << 11                                                                  \
     : (n) <= 1u << 12 ? 1u << 12                                                                  \
     : (n) <= 1u << 13 ? 1u << 13                                                                  \
     : (n) <= 1u << 14 ? 1u << 14                                                                  \
     : (n) <= 1u << 15 ? 1u << 15                                                                  \
                       : 1u << 16)
#define N_SLOTS POW2_AT_LEAST(4u * FL_OP_COUNT)
_Static_assert(4u * FL_OP_COUNT <= N_SLOTS, "more than 16384 ops: extend POW2_AT_LEAST");
_Static_assert(FL_OP_COUNT <= UINT16_MAX, "slots hold kinds in 16 bits");

enum { EMPTY, BUILDING, READY };
static atomic_int state = EMPTY;
static uint16_t slots[N_SLOTS];

static uint32_t hash(const char *s) {
    uint64_t h = fl__hash_str(s);
    return (uint32_t)(h ^ (h >> 32));
}

static void build(void) {
    for (int k = 1; k < FL_OP_COUNT; k++) {
        uint32_t i = hash(names[k]) & (N_SLOTS - 1);
        for (; slots[i]; i = (i + 1) & (N_SLOTS - 1)) {
            if (strcmp(names[slots[i]], names[k]) == 0) {
                break;
            }
        }
        if (!slots[i]) {
            slots[i] = (uint16_t)k;
        }
    }
}

static fl_op_kind scan(const char *name) {
    for (int k = 1; k < FL_OP_COUNT; k++) {
        if (names[k][0] == name[0] && strcmp(names[k], name) == 0) {
            return (fl_op_kind)k;
        }
    }
    return FL_OP_UNKNOWN;
}

static bool table_ready(void) {
    int s = atomic_load_explicit(&state, memory_order_acquire);
    if (s == READY) {
        return true;
    }
    int expect = EMPTY;
    if (s == EMPTY && atomic_compare_exchange_strong_explicit(
                          &state, &expect, BUILDING, memory_order_acq_rel, memory_order_acquire)) {
        build();
        atomic_store_explicit(&state, READY, memory_order_release);
        return true;
    }
    return false; /* another thread is building: scan meanwhile */
}

const struct fl_op_desc *fl__op_desc_of(int kind) {
    if (kind <= FL_OP_UNKNOWN || kind >= FL_OP_COUNT) {
        return NULL;
    }
    return table[kind];
}

/* Whether NUL-terminated name is the len bytes at p (none of them NUL). */
static bool name_is(const char *name, const char *p, size_t len) {
    size_t i = 0;
    while (i < len && name[i] == p[i]) {
        i++;
    }
    return i == len && name[i] == '\0';
}

fl_op_kind fl__op_lookup_n(const char *p, size_t len) {
    if (!table_ready()) {
        for (int k = 1; k < FL_OP_COUNT; k++) {
            if (name_is(names[k], p, len)) {
                return (fl_op_kind)k;
            }
        }
        return FL_OP_UNKNOWN;
    }
    uint64_t h = FL_HASH_INIT; /* hash()'s, over the len bytes */
    for (size_t i = 0; i < len; i++) {
        h = (h ^ (unsigned char)p[i]) * 1099511628211ull;
    }
    for (uint32_t i = (uint32_t)(h ^ (h >> 32)) & (N_SLOTS - 1); slots[i];
         i = (i + 1) & (N_SLOTS - 1)) {
        if (name_is(names[slots[i]], p, len)) {
            return (fl_op_kind)slots[i];
        }
    }
    return FL_OP_UNKNOWN;
}

fl_op_kind fl__op_lookup(const char *name) {
    if (!table_ready()) {
        return scan(name);
    }
    for (uint32_t i = hash(name) & (N_SLOTS - 1); slots[i]; i = (i + 1) & (N_SLOTS - 1)) {
        if (strcmp(names[slots[i]], name) == 0) {
            return (fl_op_kind)slots[i];
        }
    }
    return FL_OP_UNKNOWN;
}

const char *fl__op_name(int kind) {
    if (kind <= FL_OP_UNKNOWN || kind >= FL_OP_COUNT) {
        return "?";
    }
    return names[kind];
}

void fl__op_bind_kind(fl_node *n, int kind) {
    n->kind = kind;
    n->desc = fl__op_desc_of(kind);
    n->flags &= ~(uint32_t)(FL_NODE_OP_NEXT_ITERATION | FL_NODE_OP_MERGE);
    if (kind == FL_OP_NEXT_ITERATION || kind == FL_OP_REF_NEXT_ITERATION) {
        n->flags |= FL_NODE_OP_NEXT_ITERATION;
    } else if (kind == FL_OP_MERGE || kind == FL_OP_REF_MERGE) {
        n->flags |= FL_NODE_OP_MERGE;
    }
}

void fl__op_bind(fl_node *n) {
    fl__op_bind_kind(n, fl__op_lookup(n->op));
}

fl_node *fl__op_add_node(fl_graph *g, const char *name, const char *op, fl_diag *d) {
    fl_node *n = fl__graph_add_node(g, name, op, d);
    if (n) {
        fl__op_bind(n);
    }
    return n;
}

fl_node *fl__op_add_op_taking_name(fl_graph *g, fl_node *old, const char *op, int n_inputs,
                                   const fl_input *inputs, int n_outputs, fl_diag *d) {
    fl_node *n = fl__graph_add_op_taking_name(g, old, op, n_inputs, inputs, n_outputs, d);
    if (n) {
        fl__op_bind(n);
    }
    return n;
}

fl_node *fl__op_add_op(fl_graph *g, const char *name, const char *op, int n_inputs,
                       const fl_input *inputs, int n_outputs, fl_diag *d) {
    fl_node *n = fl__graph_add_op(g, name, op, n_inputs, inputs, n_outputs, d);
    if (n) {
        fl__op_bind(n);
    }
    return n;
}
