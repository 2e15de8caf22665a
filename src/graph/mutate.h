/*
 * mutate.h - rewriting the graph IR in place.
 *
 * The protocol (XNNPACK's): build the use lists, match, redirect uses to the
 * replacement, mark replaced nodes removed, and at the end of a sweep call
 * fl__graph_compact(), which drops removed nodes, renumbers ids, rebuilds the
 * name index, recomputes consumer counts and clears the topological order
 * (so the next inference re-sorts). Nodes are never freed individually: their
 * memory belongs to the arena.
 *
 * Use lists go stale after any edit; rebuild them (fl__uses_build) before the
 * next match that needs them.
 */
#ifndef FL_GRAPH_MUTATE_H
#define FL_GRAPH_MUTATE_H

#include "graph/graph.h"
#include "util/check.h"

enum fl_node_mutate_flags {
    FL_NODE_REMOVED = 1u << 8,  /* dropped by the next fl__graph_compact */
    FL_NODE_PRESERVE = 1u << 9, /* a graph output or fetch: never removed or renamed */
};
_Static_assert(((FL_NODE_REMOVED | FL_NODE_PRESERVE) & FL_NODE_GRAPH_FLAGS) == 0,
               "the passes' node marks share a bit with a graph flag (graph/graph.h)");

/* One use of an output: data input `input` of node `node`. */
typedef struct fl_use {
    fl_node *node;
    int input;
} fl_use;

/* Use lists of every output of every live node, in CSR form. */
typedef struct fl_uses {
    const fl_graph *g;
    uint32_t *port_base; /* per node id: index of its output 0 in `offsets` */
    uint32_t *offsets;   /* per (node, port): start in `uses`; one extra at the end */
    fl_use *uses;
    uint32_t *ctrl_counts; /* per node id: control consumers */
} fl_uses;

/* Builds the use lists (memory from g's arena). The first build after
 * fl__uses_release reuses the buffers of the last released build (no new
 * memory while the graph does not grow); further builds before the next
 * release allocate their own, so use lists a caller still holds stay valid
 * until it is released. */
fl_status fl__uses_build(fl_graph *g, fl_uses *u, fl_diag *d);

/* Declares that no use lists built so far are used any more: the next
 * fl__uses_build may overwrite them. The pass driver calls it after each pass
 * (a pass's use lists do not outlive it). */
void fl__uses_release(fl_graph *g);

/* The uses of output `port` of n: *count entries. */
const fl_use *fl__uses_of(const fl_uses *u, const fl_node *n, int port, size_t *count);

/* Number of data uses of every output of n, plus control uses. */
size_t fl__uses_total(const fl_uses *u, const fl_node *n);

/* Redirects every data input that reads (from, from_port) to (to, to_port).
 * Returns how many inputs changed. Control edges are not touched. */
size_t fl__graph_replace_uses(fl_graph *g, const fl_node *from, int from_port, fl_node *to,
                              int to_port);

/* Makes every control edge on `from` point at `to` instead (or drops it when
 * to is NULL). Returns how many changed. */
size_t fl__graph_replace_ctrl_uses(fl_graph *g, const fl_node *from, fl_node *to);

/* A reverse index of data and control edges, for a rewrite that replaces
 * many nodes (each fl__graph_replace_uses walks the whole graph; through the
 * index a replacement visits only the nodes that read the replaced one).
 * It lists, per node, nodes that may read it: a superset (an entry goes
 * stale when its edge is moved, and is skipped then), never missing one as
 * long as the rewrite creates edges only through fl__edge_index_note (a node
 * it added, or whose inputs or control inputs it set) and the two replace
 * functions below. Scratch memory of g's arena (counted against its limit,
 * util/arena.h) held until fl__edge_index_free; valid until the next
 * compaction.
 * The full-walk and indexed replacements change the same edges and return
 * the same counts. */
typedef struct fl_edge_index {
    fl_graph *g;
    uint32_t *head; /* per node id: 1 + its first entry, 0 when none */
    /* The entries, in segments of seg_cap: entry i is seg[i / seg_cap][i %
     * seg_cap]. A full index takes one more segment; the entries stay where
     * they are (growing one array copied it, and the copy's fresh pages
     * were a fifth of the 1M chain's page faults with the passes). An
     * entry names its reader by id, 8 bytes where a pointer made it 16. */
    struct fl_edge_entry {
        uint32_t reader; /* the reader's id (g->nodes[reader]) */
        uint32_t next;   /* 1 + the next entry of the same node, 0 at the end */
    } * *seg;
    size_t cap_head, n_e, seg_cap, n_seg;
} fl_edge_index;

/* The entry `at` (1 + its index, as head[] and next give them). */
static inline struct fl_edge_entry *fl__edge_index_at(const fl_edge_index *x, uint32_t at) {
    size_t i = (size_t)at - 1;
    if (i < x->seg_cap) { /* the first segment, no division */
        return &x->seg[0][i];
    }
    return &x->seg[i / x->seg_cap][i % x->seg_cap];
}

/* The reader of entry `at`. */
static inline fl_node *fl__edge_index_reader(const fl_edge_index *x, uint32_t at) {
    return x->g->nodes[fl__edge_index_at(x, at)->reader];
}

/* 1 + the first entry of the nodes that may read n, 0 when none. */
static inline uint32_t fl__edge_index_first(const fl_edge_index *x, const fl_node *n) {
    return n->id < x->cap_head ? x->head[n->id] : 0;
}

fl_status fl__edge_index_build(fl_graph *g, fl_edge_index *x, fl_diag *d);
/* An index of g built at its first use instead (fl__edge_index_note, the
 * two replacements, fl__edge_index_need), from g as it is then: a rewrite
 * that replaces nothing builds none. Until then head is NULL and cap_head
 * 0 (fl__edge_index_first finds no reader: call fl__edge_index_need before
 * reading the lists). */
void fl__edge_index_defer(fl_graph *g, fl_edge_index *x);
/* Builds a deferred index now, if not built yet. */
fl_status fl__edge_index_need(fl_edge_index *x, fl_diag *d);
/* Releases the index's memory (also after a failed build); x is empty after. */
void fl__edge_index_free(fl_edge_index *x);
/* Records m as a reader of every node of its inputs and control inputs. */
fl_status fl__edge_index_note(fl_edge_index *x, fl_node *m, fl_diag *d);
size_t fl__edge_index_replace_uses(fl_edge_index *x, const fl_node *from, int from_port,
                                   fl_node *to, int to_port, fl_diag *d);
size_t fl__edge_index_replace_ctrl_uses(fl_edge_index *x, const fl_node *from, fl_node *to,
                                        fl_diag *d);

/* Marks n removed (FL_NODE_REMOVED). Its uses must be redirected before the
 * next compaction, or compaction fails naming it. Every removal goes through
 * here (no code sets the flag itself): see fl__graph_removals. */
void fl__graph_remove_node(fl_node *n);

/* How many nodes fl__graph_remove_node has marked removed in this thread
 * (a node marked already is not counted again). The pass driver compares it
 * before and after a pass: a pass that removed nothing and left the node
 * count as it was added and removed no node, and the walk that counts them
 * is not needed. */
uint64_t fl__graph_removals(void);

/* Drops removed nodes and restores the invariants of graph.h. Fails with
 * FL_EINTERNAL (naming the nodes) if a live node still reads a removed one. */
fl_status fl__graph_compact(fl_graph *g, fl_diag *d);

/* fl__graph_compact without the consumer counts: for a caller that sorts
 * the graph (fl__graph_toposort counts them again) before anything reads
 * them. Until then they are stale; a journal that saves a node meanwhile
 * keeps them so, and its restore counts them again (snapshot.h). */
fl_status fl__graph_compact_to_sort(fl_graph *g, fl_diag *d);

/* (fl__graph_rename in graph.h renames a node in O(1): a fused node can take
 * the name of the node it replaces once that node was renamed or compacted
 * away.) */

/* A name not used by any node: `base` itself if free, else base_1, base_2... */
const char *fl__graph_unique_name(fl_graph *g, const char *base);

/* Adds node `name` (must be unused; see fl__graph_unique_name) of op type `op`
 * with the given data inputs and `n_outputs` outputs (dtype and shape are set
 * by the next inference). */
fl_node *fl__graph_add_op(fl_graph *g, const char *name, const char *op, int n_inputs,
                          const fl_input *inputs, int n_outputs, fl_diag *d);

/* fl__graph_add_op under the name of `old` (fl__graph_add_node_taking_name,
 * graph.h: old must be marked removed before the next compaction, and
 * until then the index still finds old under the name). */
fl_node *fl__graph_add_op_taking_name(fl_graph *g, fl_node *old, const char *op, int n_inputs,
                                      const fl_input *inputs, int n_outputs, fl_diag *d);

/* Replaces n's data inputs with a copy of `inputs`. */
fl_status fl__node_set_inputs(fl_graph *g, fl_node *n, int n_inputs, const fl_input *inputs);

/* Adds a control input (no-op if already present). */
fl_status fl__node_add_ctrl(fl_graph *g, fl_node *n, fl_node *dep);

/* Sets attr `a->name` on n, replacing an attr of that name (the attr is
 * copied shallowly: its arrays must live in g's arena or be static). An attr
 * array is not written in place once a snapshot may hold it: these two copy
 * it first (graph/snapshot.h saves the array pointers, not their contents),
 * so every edit of an attr array goes through them. FL_ENOMEM: n unchanged
 * (also for an attr its constructor below could not make: no name, or a
 * string attr without its string). */
fl_status fl__node_set_attr(fl_graph *g, fl_node *n, const fl_attr *a);

/* Gives n a fresh array holding a copy of `attrs` (n_attrs of them, names
 * distinct), with room for `room` more: the next fl__node_set_attr calls on
 * n fill it in place. One allocation where setting the attrs one by one
 * grows the array several times. With room 0 the array is never written in
 * place (fl__node_set_attr and fl__node_del_attr copy it), so other nodes
 * may be given it too (fl__node_set_attrs). FL_ENOMEM: n unchanged. */
fl_status fl__node_init_attrs(fl_graph *g, fl_node *n, int n_attrs, const fl_attr *attrs, int room);

/* Removes attr `name` if present. */
fl_status fl__node_del_attr(fl_graph *g, fl_node *n, const char *name);

/* Gives n the attr array `attrs` (n_attrs of them; NULL with 0): a fresh
 * array of g's arena or static, which nothing writes in place afterwards. */
void fl__node_set_attrs(fl_graph *g, fl_node *n, int n_attrs, fl_attr *attrs);

/* Edits of one edge or of an edge count, in place. Each marks n edited
 * (fl__node_touch, graph.h: before the write) when the value changes and
 * writes nothing when it does not (a sweep writing back what it read dirties no memory). They
 * leave g->order as it is: a rewrite that changes edges clears it itself
 * (the functions above that replace arrays do). Every edit of an existing
 * node's inputs or control inputs goes through these or the functions above;
 * fields a rewrite sets itself (outputs it computes, device, flags) are
 * preceded by fl__node_touch. */
static inline void fl__node_set_input(fl_graph *g, fl_node *n, int k, fl_input in) {
    FL_DCHECK(k >= 0 && k < n->n_inputs);
    fl_input *at = &n->inputs[k];
    if (at->node != in.node || at->port != in.port) {
        fl__node_touch(g, n);
        *at = in;
    }
}
void fl__node_trim_inputs(fl_graph *g, fl_node *n, int count); /* count <= n_inputs */
static inline void fl__node_set_ctrl(fl_graph *g, fl_node *n, int k, fl_node *dep) {
    FL_DCHECK(k >= 0 && k < n->n_ctrl);
    if (n->ctrl[k] != dep) {
        fl__node_touch(g, n);
        n->ctrl[k] = dep;
    }
}
void fl__node_trim_ctrl_to(fl_graph *g, fl_node *n, int count);
/* count <= n_ctrl; inline, as the sweeps trim every node's (mostly empty)
 * control list to the count they kept. */
static inline void fl__node_trim_ctrl(fl_graph *g, fl_node *n, int count) {
    if (count != n->n_ctrl) {
        fl__node_trim_ctrl_to(g, n, count);
    }
}
/* No control inputs (n->ctrl NULL). */
void fl__node_clear_ctrl(fl_graph *g, fl_node *n);

/* Attr constructors (name copied into g's arena). */
fl_attr fl__attr_make_int(fl_graph *g, const char *name, int64_t v);
fl_attr fl__attr_make_float(fl_graph *g, const char *name, float v);
fl_attr fl__attr_make_bool(fl_graph *g, const char *name, bool v);
fl_attr fl__attr_make_type(fl_graph *g, const char *name, int dtype);
fl_attr fl__attr_make_str(fl_graph *g, const char *name, const char *v);
fl_attr fl__attr_make_strs(fl_graph *g, const char *name, size_t n, const char *const *v);
fl_attr fl__attr_make_ints(fl_graph *g, const char *name, size_t n, const int64_t *v);
/* A tensor attr holding `v` (a concrete value), or, with v == NULL, a
 * stripped constant of dtype and shape (content unknown). */
fl_attr fl__attr_make_tensor(fl_graph *g, const char *name, int dtype, int rank,
                             const int64_t *dims, const fl_value *v);

#endif
