/*
 * graph.h - foldline's graph IR.
 *
 * A graph owns, through one arena, its nodes, their typed attributes, the data
 * and control edges between them, and every node's output tensors with dtype,
 * shape (dimensions are fl_sym: known, symbolic or unknown) and, where known, a
 * value. Importers build it; shape inference fills tensors; the cost model and
 * the passes read and rewrite it.
 *
 * Invariants (checked by fl__graph_verify):
 *  - node names are unique; g->nodes[i]->id == i;
 *  - every data input names an existing node and a port < that node's
 *    n_outputs; control inputs name existing nodes;
 *  - tensor.producer/port point back to the owning node and output index;
 *  - after fl__graph_toposort, g->order lists every node once, producers before
 *    consumers, except along NextIteration -> Merge back edges of loops.
 */
#ifndef FL_GRAPH_GRAPH_H
#define FL_GRAPH_GRAPH_H

#include "foldline/status.h"
#include "graph/dtype.h"
#include "sym/sym.h"
#include "util/arena.h"
#include "util/diag.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

typedef struct fl_node fl_node;
typedef struct fl_graph fl_graph;

/* ------------------------------------------------------------------------- */
/* Shapes and values                                                          */
/* ------------------------------------------------------------------------- */

/* A shape with symbolic dimensions. rank < 0: unknown rank (dims NULL). */
typedef struct fl_shape {
    int rank;
    fl_sym *dims;
} fl_shape;

/* A shape as written in a graph file: dims of -1 are unknown; rank -1 is
 * unknown rank. */
typedef struct fl_shape_lit {
    int rank;
    const int64_t *dims;
} fl_shape_lit;

/*
 * A tensor's known contents. Integer and bool tensors hold `ints` (each
 * element an fl_sym, possibly symbolic: a shape vector computed from a
 * symbolic input shape); floating-point tensors hold `raw`, little-endian
 * elements of `dtype`. Values are immutable once attached to a tensor.
 */
typedef struct fl_value {
    fl_dtype dtype;
    int rank;
    const int64_t *dims; /* concrete: a value's shape is always known */
    int64_t n;           /* element count = product of dims */
    const fl_sym *ints;  /* integer/bool dtypes: n elements, else NULL */
    const void *raw;     /* float/complex dtypes: n * fl__dtype_size bytes, else NULL */
    bool view;           /* raw points into the model's bytes (read only when used) */
} fl_value;

/* One output of a node. */
typedef struct fl_tensor {
    fl_dtype dtype;        /* FL_DT_INVALID while unknown */
    fl_shape shape;        /* rank -1 while unknown */
    const fl_value *value; /* known contents, or NULL */
    fl_node *producer;
    int port;
    uint32_t n_consumers; /* data edges reading this output */
} fl_tensor;

/* ------------------------------------------------------------------------- */
/* Attributes                                                                 */
/* ------------------------------------------------------------------------- */

typedef enum fl_attr_kind {
    FL_ATTR_NONE = 0, /* a list's element kind when the list is empty */
    FL_ATTR_S,
    FL_ATTR_I,
    FL_ATTR_F,
    FL_ATTR_B,
    FL_ATTR_TYPE,
    FL_ATTR_SHAPE,
    FL_ATTR_TENSOR,
    FL_ATTR_FUNC,
    FL_ATTR_PLACEHOLDER,
    FL_ATTR_LIST,
    FL_ATTR_COUNT
} fl_attr_kind;

typedef struct fl_str {
    const char *p; /* NUL-terminated copy (the bytes may contain NULs; len is exact) */
    size_t len;
} fl_str;

/* A constant tensor as stored in a graph (Const's value, an attr tensor). */
typedef struct fl_const {
    fl_dtype dtype;
    fl_shape_lit shape;
    int64_t n;              /* element count */
    uint64_t content_bytes; /* bytes of content it holds or held (stripped: the original size) */
    bool stripped;          /* content removed from the file: value unknown */
    const fl_value *value;  /* decoded contents; NULL when stripped, string or too large */
    const void *src;        /* the TensorProto it came from (protobuf-c), or NULL */
} fl_const;

typedef struct fl_func_ref {
    const char *name;
    int n_attrs;
    struct fl_attr *attrs;
} fl_func_ref;

typedef struct fl_attr {
    const char *name;
    fl_attr_kind kind;
    fl_attr_kind list_kind; /* kind == FL_ATTR_LIST: element kind (NONE when empty) */
    size_t n;               /* kind == FL_ATTR_LIST: element count */
    union {
        fl_str s;
        int64_t i;
        float f;
        bool b;
        int type;
        fl_shape_lit shape;
        const fl_const *tensor;
        fl_func_ref func;
        const char *placeholder;
        union {
            const fl_str *s;
            const int64_t *i;
            const float *f;
            const bool *b;
            const int *type;
            const fl_shape_lit *shape;
            const fl_const *const *tensor;
            const fl_func_ref *func;
        } list;
    } v;
} fl_attr;

/* ------------------------------------------------------------------------- */
/* Nodes                                                                      */
/* ------------------------------------------------------------------------- */

typedef struct fl_input {
    fl_node *node;
    int port;
} fl_input;

enum fl_node_flags {
    FL_NODE_STRIPPED = 1u << 0,   /* Const whose content was stripped */
    FL_NODE_BACK_EDGE = 1u << 1,  /* Merge with a NextIteration input (loop header) */
    FL_NODE_IN_LOOP = 1u << 2,    /* inside a v1 while-loop frame */
    FL_NODE_FUNC_CALL = 1u << 3,  /* op names a function of the library */
    FL_NODE_INCOMPLETE = 1u << 4, /* some output shape is not fully determined */
    FL_NODE_MARK = 1u << 5,       /* scratch mark of one O(n) walk; clear outside it */
    /* The op's role in a v1 while loop, set when the op is bound to the
     * registry (ops/ops.h): the graph layer's topological sort needs it and
     * knows no op kinds. */
    FL_NODE_OP_NEXT_ITERATION = 1u << 6, /* NextIteration, RefNextIteration */
    FL_NODE_OP_MERGE = 1u << 7,          /* Merge, RefMerge */
    /* Runs attr _repeat times per inference (a TFLite WHILE body with a
     * known trip count): the cost model multiplies its counts. */
    FL_NODE_REPEATED = 1u << 11,
    /* ONNX: produces a declared graph output (which other nodes may read
     * too); the pass driver preserves it. */
    FL_NODE_GRAPH_OUTPUT = 1u << 10,
    /* Not (or not yet) in the name index: added under a name another node
     * holds there (fl__graph_add_node_taking_name) or unindexed; the
     * compaction indexes it (fl__graph_index_update). */
    FL_NODE_UNINDEXED = 1u << 12,
    /* v1 control flow's dead tensors, as TensorFlow's executor passes them
     * (set by the shape inference of each node): a Switch whose predicate
     * value is known (and not a loop's LoopCond) marks its untaken output,
     * port 0 (output_false) or port 1 (output_true); a node reading a dead
     * tensor or with a control input from a dead node is dead, but a Merge
     * only when all its data inputs are. A dead node does not run. */
    FL_NODE_DEAD = 1u << 13,
    FL_NODE_DEAD_PORT0 = 1u << 14,
    FL_NODE_DEAD_PORT1 = 1u << 15,
    /* Bits 8-9 are the passes' marks (graph/mutate.h), which checks at
     * compile time that they meet none of these. */
    FL_NODE_GRAPH_FLAGS = FL_NODE_STRIPPED | FL_NODE_BACK_EDGE | FL_NODE_IN_LOOP |
                          FL_NODE_FUNC_CALL | FL_NODE_INCOMPLETE | FL_NODE_MARK |
                          FL_NODE_OP_NEXT_ITERATION | FL_NODE_OP_MERGE | FL_NODE_REPEATED |
                          FL_NODE_GRAPH_OUTPUT | FL_NODE_UNINDEXED | FL_NODE_DEAD |
                          FL_NODE_DEAD_PORT0 | FL_NODE_DEAD_PORT1,
    FL_NODE_DEADNESS = FL_NODE_DEAD | FL_NODE_DEAD_PORT0 | FL_NODE_DEAD_PORT1,
};

/* Per-node cost, filled by the cost model (src/cost). */
typedef struct fl_cost {
    fl_sym flops;         /* "complete" convention */
    fl_sym tfprof_flops;  /* tfprof's registered statistics; 0 when unregistered */
    fl_sym macs;          /* multiply-accumulates of conv/matmul-family ops */
    fl_sym int_ops;       /* integer operations of quantized ops (not in flops/macs) */
    fl_sym bytes_read;    /* data inputs, by dtype size */
    fl_sym bytes_written; /* outputs */
    bool has_rule;        /* the op has a real FLOP rule in the complete convention */
    bool tfprof_rule;     /* tfprof registers the op */
    bool incomplete;      /* a count depends on an unknown dimension: not summed */
    bool trips_unknown;   /* a loop whose trip count is unknown: its counts (body and cond
                           * once) are summed, but the node counts as incomplete */
    bool per_load;        /* runs once, when the model is prepared (TFLite's DEQUANTIZE of a
                           * constant): no per-inference bytes or dispatch */
} fl_cost;

/*
 * fl_cost as a node keeps it (fl_node.cost; fl__node_cost and
 * fl__node_set_cost convert): each count in one 64-bit word where an fl_sym
 * takes two, the flags in bits. A word with bit 0 clear is a known integer k
 * of 63 bits, k * 2 (a zero word, as a fresh node has, is a known 0); with
 * bit 0 set and bit 1 clear, the count's expression | 1 (symbolic, or
 * fl__sym_unknown_expr); with both set, a known integer beyond 63 bits kept
 * in the graph's arena, its address | 3. A count has one word (the boxed
 * integer aside), so comparing words compares counts.
 */
typedef struct fl_node_cost {
    uint64_t w[6]; /* by fl_node_count */
    uint8_t bits;  /* fl_node_cost_bits */
} fl_node_cost;

/* The counts' words in fl_node_cost.w, in fl_cost's order. */
enum fl_node_count {
    FL_COUNT_FLOPS,
    FL_COUNT_TFPROF_FLOPS,
    FL_COUNT_MACS,
    FL_COUNT_INT_OPS,
    FL_COUNT_BYTES_READ,
    FL_COUNT_BYTES_WRITTEN,
};

enum fl_node_cost_bits {
    FL_COST_HAS_RULE = 1u << 0,
    FL_COST_TFPROF_RULE = 1u << 1,
    FL_COST_INCOMPLETE = 1u << 2,
    FL_COST_TRIPS_UNKNOWN = 1u << 3,
    FL_COST_PER_LOAD = 1u << 4,
};

/* The count word w holds. */
static inline __attribute__((always_inline)) fl_sym fl__cost_word_sym(uint64_t w) {
    if (__builtin_expect(!(w & 1), 1)) {
        return fl_sym_const((int64_t)w >> 1);
    }
    if (w & 2) {
        return fl_sym_const(*(const int64_t *)(uintptr_t)(w & ~(uint64_t)3));
    }
    fl_sym s = {0, (const fl_expr *)(uintptr_t)(w & ~(uint64_t)1)};
    return s;
}

/* The word of an unknown count. */
static inline uint64_t fl__cost_word_unknown(void) {
    return (uint64_t)(uintptr_t)fl__sym_unknown_expr | 1;
}

struct fl_node {
    uint32_t id; /* index in g->nodes */
    uint32_t n_ctrl_consumers;
    const char *name;
    const char *op; /* op type as in the file */
    const char *device;
    int kind;                       /* fl_op_kind; FL_OP_UNKNOWN when unregistered */
    uint32_t snap_ix;               /* its index in the last snapshot taken (graph/snapshot.h) */
    const struct fl_op_desc *desc;  /* NULL when unregistered */
    const struct fl_function *func; /* op names a library function */

    int n_inputs;
    int n_ctrl;
    fl_input *inputs; /* data inputs, in order */
    fl_node **ctrl;   /* control inputs */

    int n_attrs;
    /* The name index's hash of the string hashed_name points to (NULL:
     * none yet). Names are never written in place, so while name ==
     * hashed_name the hash is the name's, and rebuilding the index at a
     * compaction hashes only the names set since (code may set name
     * directly: a fused node taking the replaced node's). In what was
     * padding: no larger a node. */
    uint32_t name_hash;
    fl_attr *attrs;
    const char *hashed_name;

    int n_outputs;
    /* g->birth when the node was last edited through graph/mutate.h (its
     * edges, op, attrs, device or outputs set by a rewrite): with `born`,
     * which nodes a pass touched, without comparing them to a copy. */
    uint32_t edited;
    fl_tensor *outputs;

    uint32_t flags; /* fl_node_flags */
    /* g->birth when the node was added (the pass driver's count of pass
     * runs); beside flags, so that a walk reading both reads one line. */
    uint32_t born;
    fl_node_cost cost; /* fl__node_cost, fl__node_set_cost */
    const void *src;   /* the NodeDef it came from (protobuf-c message), or NULL */
};

/* n's counts, as the cost model left them (all known 0 before it ran). */
static inline fl_cost fl__node_cost(const fl_node *n) {
    const fl_node_cost *p = &n->cost;
    fl_cost k;
    k.flops = fl__cost_word_sym(p->w[0]);
    k.tfprof_flops = fl__cost_word_sym(p->w[1]);
    k.macs = fl__cost_word_sym(p->w[2]);
    k.int_ops = fl__cost_word_sym(p->w[3]);
    k.bytes_read = fl__cost_word_sym(p->w[4]);
    k.bytes_written = fl__cost_word_sym(p->w[5]);
    k.has_rule = p->bits & FL_COST_HAS_RULE;
    k.tfprof_rule = p->bits & FL_COST_TFPROF_RULE;
    k.incomplete = p->bits & FL_COST_INCOMPLETE;
    k.trips_unknown = p->bits & FL_COST_TRIPS_UNKNOWN;
    k.per_load = p->bits & FL_COST_PER_LOAD;
    return k;
}

/* n's count i (fl_node_count). */
static inline fl_sym fl__node_count(const fl_node *n, int i) {
    return fl__cost_word_sym(n->cost.w[i]);
}

/* Whether n's counts are those of an fl_cost with `incomplete` set. */
static inline bool fl__node_cost_incomplete(const fl_node *n) {
    return n->cost.bits & FL_COST_INCOMPLETE;
}

/* Whether n's counts are those of an fl_cost with `per_load` set. */
static inline bool fl__node_cost_per_load(const fl_node *n) {
    return n->cost.bits & FL_COST_PER_LOAD;
}

/* Whether the two kept costs are the same, word for word (an expression,
 * and a boxed integer, by its address: the same count boxed twice differs):
 * what a snapshot's restore must give back, and what lets the totals' update
 * skip a node saved since whose counts did not change. */
static inline bool fl__node_cost_same(const fl_node_cost *a, const fl_node_cost *b) {
    return a->w[0] == b->w[0] && a->w[1] == b->w[1] && a->w[2] == b->w[2] && a->w[3] == b->w[3] &&
           a->w[4] == b->w[4] && a->w[5] == b->w[5] && a->bits == b->bits;
}

/* A function of the graph's FunctionDefLibrary, kept for calls and write-back. */
typedef struct fl_function {
    const char *name;
    int n_in, n_out;
    const int *in_types;  /* FL_DT_INVALID where given by an attr */
    const int *out_types; /* FL_DT_INVALID where given by an attr */
    int n_nodes;          /* body nodes */
    const void *src;      /* the FunctionDef */
} fl_function;

struct fl_graph {
    fl_arena *arena;
    fl_symtab *syms;

    fl_node **nodes;
    size_t n_nodes;
    size_t cap_nodes;

    /* name -> node, open addressing with linear probing; size is a power of
     * two. Each slot keeps its name's hash (0 in an empty slot), so that a
     * probe past another name, and a lookup of an absent name, read no node
     * and no string. */
    struct fl_name_slot {
        fl_node *node; /* NULL: empty */
        uint64_t hash;
    } * index;
    size_t index_size;

    fl_node **order; /* topological order, after fl__graph_toposort */

    fl_function *funcs;
    size_t n_funcs;

    int producer;    /* versions.producer */
    const void *src; /* the GraphDef (protobuf-c), or NULL */

    /* Set by shape inference during its first walk over the graph: a
     * loop's NextIteration -> Merge inputs are not inferred yet, and Merge
     * leaves them out. Otherwise a Merge counts every input, an unknown one
     * included. */
    bool infer_first_round;

    /* ONNX only (the importer sets them; zero for TensorFlow): the model's
     * producer name and version (NULL when absent), the ai.onnx opset, the
     * counts of initializers and graph inputs, and the declared graph
     * outputs (value names) in order. */
    struct fl_onnx_info {
        bool is_onnx;
        const char *producer_name, *producer_version;
        int64_t opset;
        int64_t n_initializers;
        const char **outputs;
        size_t n_outputs;
        const void *model; /* the imported ModelProto (protobuf-c), for write-back */
    } onnx;

    /* Stamped on every node added (fl_node.born): 0 while importing; the
     * pass driver sets a new value before each pass, so the nodes a pass
     * added are those with its stamp (no copy of the node set to compare). */
    uint32_t birth;

    /* Counts the edits of fl__node_touch (graph/mutate.h), compactions and
     * snapshot restores: equal before and after a stretch of work, no edge,
     * op, attr or output array of an existing node changed in it (added and
     * removed nodes are seen from n_nodes and fl__graph_removals). Never
     * goes backwards, also across a snapshot restore. */
    uint64_t edits;

    /* Strings shared through fl__graph_intern (attr names of rewritten
     * nodes); behind a pointer, so that restoring a snapshot of the graph
     * header keeps the table whole. NULL until the first call. */
    struct fl_intern_table *interned;

    /* Output dims arrays shared through fl__graph_dims; behind a pointer as
     * `interned`. NULL until the first call. */
    struct fl_dims_cache *dims_cache;

    /* Where fl__graph_strndup packs strings; behind a pointer as
     * `interned`. NULL until the first call. */
    struct fl_str_pool *str_pool;

    /* The attr array fl__node_set_attr or fl__node_del_attr last made, with
     * room for `cap` attrs: editing the same node again, while it still has
     * the `n` attrs left there, writes in place. No snapshot holds it
     * (taking one clears this). */
    struct fl_attr_tail {
        const fl_node *node;
        fl_attr *attrs;
        int n, cap;
    } attr_tail;

    /* Buffers of the last fl__uses_build (graph/mutate.h), reused by the next
     * build once released (fl__uses_release): the pass driver releases them
     * after every pass, so the passes of a pipeline share one set. */
    struct fl_uses_cache {
        uint32_t *port_base, *ctrl_counts, *offsets;
        struct fl_use *uses;
        size_t cap_nodes, cap_ports, cap_uses;
        bool busy; /* handed out and not released: a build allocates anew */
        /* The buffers hold the lists of the graph as it was at g->edits ==
         * edits with n_nodes nodes and fl__graph_removals() == removals:
         * while those hold, no edge, output array or node changed since and
         * the next build hands the same lists out again. */
        bool valid;
        uint64_t edits, removals;
        size_t n_nodes;
    } uses_cache;

    /* The same key for the last fl__graph_compact: while it holds, the
     * graph is as that compaction left it and compacting again changes
     * nothing (the remapper compacts, then the pass driver would again). */
    struct fl_compact_key {
        bool valid;
        uint64_t edits, removals;
        size_t n_nodes;
    } compacted;

    /* The last consumer marks of the passes (fl__consumed_snapshot,
     * passes/util.h: per node, whether it had a consumer), taken at g->edits
     * == edits with n_nodes nodes and fl__graph_removals() == removals:
     * while those hold, the consumer counts are as they were (only edits,
     * compactions and sorts write them, and a sort counts the same edges
     * again), and the next snapshot hands the same marks out again. */
    struct fl_consumed_cache {
        bool *marks; /* arena memory; NULL: none taken */
        uint64_t edits, removals;
        size_t n_nodes;
    } consumed;

    /* The journal open on the graph (graph/snapshot.h), or NULL: the first
     * fl__node_touch of a node the journal has not saved, since `stamp`,
     * saves the node's state before the edit. */
    struct fl_journal_ref {
        struct fl_graph_snapshot *s;
        uint32_t stamp;
    } journal;
};

/* Records an error about node `n` and returns `st` (fl__diag_fail's rules):
 * the message is prefixed "node 'NAME' (OP): " so it names the node at
 * fault; n NULL gives the bare message. */
fl_status fl__node_fail(fl_diag *d, fl_status st, const fl_node *n, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* Records a warning about node `n`, prefixed as fl__node_fail's messages. */
void fl__node_warn(fl_diag *d, const fl_node *n, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Sets n's counts to k's (fl_node_cost's words). An integer beyond 63 bits
 * takes 8 bytes of g's arena: FL_ENOMEM when they cannot be had (n's counts
 * are then all unknown and n incomplete), else FL_OK. */
fl_status fl__node_set_cost(fl_graph *g, fl_node *n, const fl_cost *k);

/* Creates an empty graph whose memory comes from `a`. NULL on OOM. */
fl_graph *fl__graph_new(fl_arena *a);

/* Makes g empty again, as fl__graph_new made it, keeping its arena and
 * symbol table (which callers may hold): for an importer that gives up
 * half-way and reads the model again another way. The memory the dropped
 * nodes took stays in the arena until it is freed. */
void fl__graph_clear(fl_graph *g);

/* Adds a node named `name` of op type `op` (both copied). Returns NULL and
 * fails `d` with FL_EINVAL if the name is taken, FL_ENOMEM on OOM. The node
 * has no inputs, attrs or outputs yet, and its kind is FL_OP_UNKNOWN with no
 * descriptor: the graph layer knows no op registry. Callers above it bind the
 * op (fl__op_bind in ops/ops.h, or fl__op_add_node which does both). */
fl_node *fl__graph_add_node(fl_graph *g, const char *name, const char *op, fl_diag *d);

/* fl__graph_add_node without the copies: `name` and `op` must stay valid and
 * unchanged as long as the graph (an importer's decoded message in g's
 * arena). */
fl_node *fl__graph_add_node_view(fl_graph *g, const char *name, const char *op, fl_diag *d);

/* fl__graph_add_node_view, but a name a node already has is not an error:
 * NULL with *taken set, nothing added and nothing reported (one hash and
 * probe of the name, where a lookup first took two). */
fl_node *fl__graph_add_node_view_if_free(fl_graph *g, const char *name, const char *op, bool *taken,
                                         fl_diag *d);

/* fl__graph_add_node_view without the name index: the node is not found by
 * name (and its name not checked) until fl__graph_index_nodes enters it.
 * For an importer adding many nodes before anything looks a name up. */
fl_node *fl__graph_add_node_unindexed(fl_graph *g, const char *name, const char *op, fl_diag *d);

/* Enters nodes [from, n_nodes), added by fl__graph_add_node_unindexed, in
 * the name index, in their order, each name hashed a few nodes ahead and
 * its slot prefetched (the index is a table read at random places). A node
 * whose name an earlier node has gets fl__graph_unique_name's variant of
 * it, as fl__graph_add_node_view_if_free and a unique name would give. */
fl_status fl__graph_index_nodes(fl_graph *g, size_t from, fl_diag *d);

/* Adds a node of op type `op` (copied) under the name of `old` (the same
 * string), for a rewrite that replaces old by a node of another op under its
 * name. The name index is not touched: it keeps mapping the name to old
 * until the next fl__graph_compact, so the name stays taken (no
 * fl__graph_unique_name hands it out) and no name is made, hashed or
 * probed. The caller marks old removed before that compaction, which
 * indexes the new node under the name; until then fl__graph_find(name)
 * gives old, so the rewrite refers to the new node by pointer. NULL on OOM
 * (d failed). */
fl_node *fl__graph_add_node_taking_name(fl_graph *g, fl_node *old, const char *op, fl_diag *d);

/* Room for `extra` more nodes in the node array and the name index, so that
 * adding them grows neither (an importer that knows its node count: no
 * trail of doubled tables in the arena). FL_ENOMEM on OOM. */
fl_status fl__graph_reserve(fl_graph *g, size_t extra, fl_diag *d);

/* A hint that the name (its first len bytes) is looked up soon: brings its
 * slot of the name index towards the cache. No effect on results. */
void fl__graph_prefetch_name(const fl_graph *g, const char *name, size_t len);

/* Rebuilds the name index from g->nodes (after nodes were dropped or
 * renamed). Fails with FL_EINTERNAL if two nodes share a name. */
fl_status fl__graph_reindex(fl_graph *g, fl_diag *d);

/* Whether n's entry in the name index (if any) is not under its name: a
 * name set directly since it was indexed, or FL_NODE_UNINDEXED. */
static inline bool fl__graph_index_stale(const fl_node *n) {
    return (n->flags & FL_NODE_UNINDEXED) || n->hashed_name != n->name;
}

/* The name index brought up to date after a compaction that dropped or
 * kept the n_moved nodes `moved` (every node removed or index-stale, from
 * before it): their entries deleted, the kept ones put under their names;
 * the other entries stay where they are. Rebuilt (fl__graph_reindex) when
 * there is none or it is too small. Fails with FL_EINTERNAL if two live
 * nodes share a name. */
fl_status fl__graph_index_update(fl_graph *g, fl_node *const *moved, size_t n_moved, fl_diag *d);

/* Rebuilds the name index in place (g->index, g->index_size kept) from
 * g->nodes, allocating nothing: for a restore that puts back a node set the
 * table held before. The table must have room for every node. */
void fl__graph_index_refill(fl_graph *g);

/* Renames n (the new name is copied); O(1). Fails with FL_EINTERNAL if the
 * name belongs to another node. */
fl_status fl__graph_rename(fl_graph *g, fl_node *n, const char *name, fl_diag *d);

/* A copy of `s` in g's arena, the same one for every call with an equal
 * string: for short strings that repeat over many nodes (attr names), which
 * then take no memory per node and stay in cache. The attr names the ops
 * ask for most are a static string literal instead (never written: none
 * is). NULL on OOM. */
const char *fl__graph_intern(fl_graph *g, const char *s);

/* fl__graph_intern of the first len bytes of s (no NUL among them), which
 * need not be NUL-terminated: a name read where it lies in the input. */
const char *fl__graph_intern_n(fl_graph *g, const char *s, size_t len);

/* A copy of the first len bytes of s and a NUL, packed with the other
 * strings of g at byte alignment (an arena allocation rounds to 16 bytes:
 * a node name of 8 took 16). For the many short strings of an import (node
 * names). NULL on OOM. */
char *fl__graph_strndup(fl_graph *g, const char *s, size_t len);

/* A dims array equal to the `rank` dims at `dims`, in g's arena, shared by
 * the calls that ask for equal dims (a cache of the shapes met last, by
 * hash): an output shape many nodes have (every activation of a layer
 * stack) takes no memory per node. Only for dims none of which is unknown:
 * the few writers into an output's dims array write only unknown dims
 * (shape refinement), and nothing writes into a shared one; NULL for
 * others, and on OOM (g's arena failed). The caller does not write into
 * the result. */
fl_sym *fl__graph_dims(fl_graph *g, int rank, const fl_sym *dims);

/* The node called `name`, or NULL. */
fl_node *fl__graph_find(const fl_graph *g, const char *name);

/* The library function called `name`, or NULL. */
const fl_function *fl__graph_find_function(const fl_graph *g, const char *name);

/* Saves n's state into the journal open on g (graph/snapshot.h), unless it
 * holds n already or n was added since it was opened; nothing without a
 * journal. */
void fl__graph_journal_save(fl_graph *g, fl_node *n);
/* The same for every node of g (before a step that writes all of them). */
void fl__graph_journal_save_all(fl_graph *g);
/* Saves g->nodes, once, before a compaction rewrites it in place. */
void fl__graph_journal_save_nodes(fl_graph *g);

/* Marks n edited by the current rewrite (fl_node.edited = g->birth) and
 * counts the edit (g->edits). Every change of an existing node's edges, op,
 * attrs, device, flags that inference reads, or output array or contents
 * goes through a function that calls this before it writes anything of the
 * node (graph/mutate.h lists them; a rewrite that sets a field itself calls
 * it first): the first call since a journal was opened saves the node as it
 * still is. The pass driver's verifier checks that every node differing
 * from the state before a pass was marked (or added) by it, and that none
 * was written before its mark. */
static inline void fl__node_touch(fl_graph *g, fl_node *n) {
    if (g->journal.s && n->edited < g->journal.stamp && n->born < g->journal.stamp) {
        fl__graph_journal_save(g, n);
    }
    n->edited = g->birth;
    g->edits++;
}

/* Allocates n outputs for the node (dtype invalid, rank unknown). */
fl_status fl__node_alloc_outputs(fl_graph *g, fl_node *n, int n_outputs);

/* Computes g->order (Kahn's algorithm over data and control edges; the edge
 * from a NextIteration into a Merge is a loop back edge and is ignored). A
 * cycle that does not pass through such an edge fails `d` with FL_EINVAL,
 * naming one node of the cycle. Also recomputes consumer counts. */
fl_status fl__graph_toposort(fl_graph *g, fl_diag *d);

/* Checks the invariants above; FL_EINTERNAL with a message when broken. */
fl_status fl__graph_verify(const fl_graph *g, fl_diag *d);

/* The tensor feeding data input i of n. */
static inline fl_tensor *fl_node_in(const fl_node *n, int i) {
    return &n->inputs[i].node->outputs[n->inputs[i].port];
}

/* Whether data input i of n reads a dead tensor (FL_NODE_DEAD). */
static inline bool fl__node_in_dead(const fl_node *n, int i) {
    uint32_t f = n->inputs[i].node->flags;
    int port = n->inputs[i].port;
    return (f & FL_NODE_DEAD) || (port == 0 && (f & FL_NODE_DEAD_PORT0)) ||
           (port == 1 && (f & FL_NODE_DEAD_PORT1));
}

/* ------------------------------------------------------------------------- */
/* Attribute access. Each getter returns FL_OK, FL_ENOTFOUND when the attr is
 * absent (d untouched: the caller decides whether that is an error or means
 * the default), or FL_EINVAL (d failed, naming node and attr) when the attr
 * has the wrong kind.                                                        */
/* ------------------------------------------------------------------------- */

const fl_attr *fl__node_attr(const fl_node *n, const char *name);

/* fl__node_attr inline, for a name the sweeps ask of every node and most
 * nodes lack (the engine's own "_..." attrs: cost.c, cond.c): only first
 * characters are compared until one matches, without a call per node. */
static inline const fl_attr *fl__node_attr_rare(const fl_node *n, const char *name) {
    for (int i = 0; i < n->n_attrs; i++) {
        const char *a = n->attrs[i].name;
        if (a[0] == name[0] && strcmp(a, name) == 0) {
            return &n->attrs[i];
        }
    }
    return NULL;
}

/* Whether two constants (tensor attrs) count as equal for fl__attr_equal;
 * arg is fl__attr_equal's. */
typedef bool (*fl_const_eq_fn)(const fl_const *a, const fl_const *b, void *arg);
/* True when a and b are the same attr: name, kind and value. Strings and
 * shapes element by element, floats bit for bit, lists in order (the element
 * kind only when not empty), function references by name and their attrs in
 * order; attrs without a value are equal. Constants, at any depth, are
 * compared by const_eq: CSE asks for the same values, a reader test for the
 * same IR. */
bool fl__attr_equal(const fl_attr *a, const fl_attr *b, fl_const_eq_fn const_eq, void *arg);
fl_status fl__attr_get_int(const fl_node *n, const char *name, int64_t *out, fl_diag *d);
fl_status fl__attr_get_float(const fl_node *n, const char *name, float *out, fl_diag *d);
fl_status fl__attr_get_bool(const fl_node *n, const char *name, bool *out, fl_diag *d);
fl_status fl__attr_get_type(const fl_node *n, const char *name, int *out, fl_diag *d);
fl_status fl__attr_get_str(const fl_node *n, const char *name, fl_str *out, fl_diag *d);
fl_status fl__attr_get_shape(const fl_node *n, const char *name, fl_shape_lit *out, fl_diag *d);
fl_status fl__attr_get_tensor(const fl_node *n, const char *name, const fl_const **out, fl_diag *d);
/* list(int): *out points at n_out elements (an empty list gives 0). */
fl_status fl__attr_get_ints(const fl_node *n, const char *name, const int64_t **out, size_t *n_out,
                            fl_diag *d);
fl_status fl__attr_get_types(const fl_node *n, const char *name, const int **out, size_t *n_out,
                             fl_diag *d);
fl_status fl__attr_get_strs(const fl_node *n, const char *name, const fl_str **out, size_t *n_out,
                            fl_diag *d);
fl_status fl__attr_get_shapes(const fl_node *n, const char *name, const fl_shape_lit **out,
                              size_t *n_out, fl_diag *d);
fl_status fl__attr_get_func(const fl_node *n, const char *name, const fl_func_ref **out,
                            fl_diag *d);

/* Conveniences with a default for an absent attr (wrong kind still fails). */
fl_status fl__attr_int_or(const fl_node *n, const char *name, int64_t dflt, int64_t *out,
                          fl_diag *d);
fl_status fl__attr_bool_or(const fl_node *n, const char *name, bool dflt, bool *out, fl_diag *d);
fl_status fl__attr_float_or(const fl_node *n, const char *name, float dflt, float *out, fl_diag *d);
/* String attr compared with `dflt` when absent; *out is NUL-terminated. */
fl_status fl__attr_str_or(const fl_node *n, const char *name, const char *dflt, const char **out,
                          fl_diag *d);
/* Required attrs: absent fails d with FL_EINVAL naming the attr. */
fl_status fl__attr_need_int(const fl_node *n, const char *name, int64_t *out, fl_diag *d);
/* As fl__attr_need_int, and FL_EINVAL naming the attr when it is not > 0. */
fl_status fl__attr_need_pos_int(const fl_node *n, const char *name, int64_t *out, fl_diag *d);
fl_status fl__attr_need_type(const fl_node *n, const char *name, int *out, fl_diag *d);
/* A required string attr; *out is NUL-terminated. */
fl_status fl__attr_need_str(const fl_node *n, const char *name, const char **out, fl_diag *d);
fl_status fl__attr_need_ints(const fl_node *n, const char *name, const int64_t **out, size_t *n_out,
                             fl_diag *d);

/* ------------------------------------------------------------------------- */
/* Values                                                                     */
/* ------------------------------------------------------------------------- */

/* Element i of an integer/bool value as fl_sym (known or symbolic). */
fl_sym fl__value_int(const fl_value *v, int64_t i);
/* Element i of a float value (half/bfloat16/float/double) widened to double;
 * integer values with a known element are converted too. Returns false when
 * the element is symbolic or the dtype has no numeric reading. */
bool fl__value_f64(const fl_value *v, int64_t i, double *out);
/* Elements [i, i + n) as fl__value_f64 reads them, into out[0..n); false
 * when the range is out of bounds or an element has no reading (out is then
 * partly written). A float value is read in one loop. */
bool fl__value_f64_run(const fl_value *v, int64_t i, int64_t n, double *out);
/* True when every element is a known number. */
bool fl__value_is_concrete(const fl_value *v);

/* Allocates a value of dtype and shape: ints (integer/bool) or raw (others)
 * zero-filled. The caller fills it before attaching it to a tensor. NULL on
 * OOM, or when the element count overflows. */
fl_value *fl__value_new(fl_arena *a, fl_dtype dtype, int rank, const int64_t *dims);

/* A float/complex value whose elements are the little-endian bytes at
 * `bytes` (n * element size of them, any alignment), borrowed from the
 * model's input, which outlives the graph: nothing is copied or read here.
 * NULL for integer/bool/string dtypes, on overflow or when memory runs out. */
fl_value *fl__value_view(fl_arena *a, fl_dtype dtype, int rank, const int64_t *dims,
                         const void *bytes);

/* A value of src's elements in another shape of the same element count
 * (Reshape, Squeeze, Identity): the elements are src's own, not copied,
 * which values' immutability once attached allows. NULL when the counts
 * differ, on overflow or when memory runs out. */
fl_value *fl__value_reshaped(fl_arena *a, const fl_value *src, int rank, const int64_t *dims);

/* Encodes a double as element i of a float value of its dtype (rounding to
 * nearest-even for half/bfloat16/float). */
void fl__value_set_f64(fl_value *v, int64_t i, double x);
/* fl__value_set_f64 of x[0..n) as elements [i, i + n); nothing written
 * when the range is out of bounds. */
void fl__value_set_f64_run(fl_value *v, int64_t i, int64_t n, const double *x);

#endif
