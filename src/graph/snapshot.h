/*
 * snapshot.h - a restorable copy of a graph's state, for rolling back a
 * rewrite that failed (Grappler's meta-optimizer keeps the graph as it was
 * before an optimizer that failed).
 *
 *     fl_graph_snapshot s;
 *     fl__graph_snapshot_init(&s);
 *     st = fl__graph_snapshot_take(&s, g, 0, d);   // O(nodes + edges)
 *     ... rewrite g in place; it fails ...
 *     fl__graph_snapshot_restore(&s, g);           // g is exactly as at take
 *     fl__graph_snapshot_free(&s);
 *
 * What is saved: the graph header (node array, name index, order, functions,
 * counts), every node's struct (name, op, flags, cost, ...) and the contents
 * of its arrays: data inputs, control inputs, outputs (dtype, shape dims,
 * value pointer; values are immutable and shared, consumer counts). Attr
 * arrays are saved by pointer only: once a snapshot may hold one it is never
 * written (fl__node_set_attr and fl__node_del_attr, graph/mutate.h, edit a
 * copy; take clears g->attr_tail, the one array they may still edit in
 * place), so the array a node pointed to at take still holds what it held.
 * Attrs were the largest of the copied arrays.
 *
 * Restoring writes that state back into the same memory: the node structs
 * and arrays the graph had at take time are never freed while the arena
 * lives (rewrites abandon arrays, they do not free them), so after a restore
 * every pointer (nodes, names, arrays) is the one the graph had, and nothing
 * is allocated (restoring cannot fail, also after the arena ran out of
 * memory). Nodes a rewrite added are dropped with the rest of its work; their
 * memory stays in the arena unused. Symbols the rewrite interned stay in the
 * symbol table (it is append-only; nothing refers to them).
 *
 * The copy lives in malloc'd buffers that the snapshot keeps and reuses from
 * one take to the next (a driver taking one before every pass allocates only
 * while the graph grows). Precondition of take: g->order, when set, lists the
 * g->n_nodes nodes (fl__graph_toposort's result for the current node set).
 *
 * A journal (fl__graph_journal_open) is the same state saved lazily, copy on
 * first write: opening it saves the graph header and the function table
 * only (O(1) in the nodes); the first fl__node_touch of a node afterwards
 * (graph.h: it comes before the edit) saves that node's struct and arrays,
 * as take saves every node, and the one compaction that rewrites the node
 * array in place saves the array first. A rewrite that changes k nodes
 * costs O(k) to save. Steps that write nodes without marking them save
 * them explicitly (fl__graph_journal_save: re-inference before it infers a
 * node, fl__graph_journal_save_all before the whole inference). What no
 * journal entry holds is restored from invariants: ids are the positions in
 * the restored node array, consumer counts are counted from its edges again,
 * the removal and walk marks (FL_NODE_REMOVED, FL_NODE_MARK) are cleared,
 * and the name index is filled again in place. Restoring is O(nodes +
 * edges) (a rollback is rare) and allocates nothing. The comparisons below
 * work on a journal too, for the nodes it holds (every marked one).
 */
#ifndef FL_GRAPH_SNAPSHOT_H
#define FL_GRAPH_SNAPSHOT_H

#include "graph/graph.h"

typedef struct fl_graph_snapshot {
    bool taken;
    fl_graph head; /* the graph struct as it was */
    size_t n_nodes;
    fl_node *nodes; /* struct copies, in g->nodes order; head.nodes[i] is the original */
    fl_node **node_ptrs;
    fl_input *inputs; /* pools: every node's arrays, back to back in node order */
    fl_node **ctrl;
    fl_tensor *outputs;
    fl_sym *dims;
    struct fl_name_slot *index;
    fl_node **order;
    fl_function *funcs;
    size_t cap[9]; /* capacities of the buffers above, in elements */
    size_t bytes;  /* bytes the buffers hold */
    /* Per saved node: where its arrays start in the pools (absent, indexed
     * false, when a pool holds 2^32 - 1 elements or more: every node then
     * compares as changed). A node's index is its fl_node.snap_ix, valid
     * while node_ptrs[snap_ix] is that node. */
    struct fl_snapshot_at {
        uint32_t inputs, ctrl, outputs, dims;
    } * at;
    size_t cap_at;
    bool indexed;
    /* g->birth + 1 at take: a node stamped (fl_node.born or .edited) with
     * this or a later value was added or edited since. */
    uint32_t stamp;

    /* Journal mode (fl__graph_journal_open): n_nodes counts the nodes saved
     * so far, in the order saved; head.n_nodes is the graph's count. */
    bool journal;
    fl_graph *g;
    size_t used[4]; /* fill of the inputs, ctrl, outputs and dims pools */
    fl_node **list; /* g->nodes as opened, once a compaction was to rewrite it */
    size_t cap_list;
    bool list_saved;
    size_t max_bytes;
    bool oom;        /* a save did not fit (max_bytes or malloc): no restore possible */
    bool over_limit; /* that was max_bytes */
    /* With `check` (a full snapshot taken at the same time, the verifier's),
     * each node saved is compared with its state there: `early` is the first
     * one written before it was marked. */
    const struct fl_graph_snapshot *check;
    const fl_node *early;
    /* The nodes a pass moved readers from, each with the node whose outputs
     * equal its own that they read now (fl__graph_journal_same): open
     * addressing by `from`, cap_same a power of two (0: none), at most half
     * full. */
    struct fl_same_pair {
        const fl_node *from;
        const fl_node *to;
    } * same;
    size_t cap_same, n_same;
} fl_graph_snapshot;

/* An empty snapshot (holds no memory). */
void fl__graph_snapshot_init(fl_graph_snapshot *s);

/* Saves g's state into s (replacing what s held). With max_bytes > 0 the
 * copy may not need more than that many bytes of buffers: larger, it fails
 * with FL_ENOMEM (d failed) and s holds no snapshot; likewise when malloc
 * fails. Clears g->attr_tail (see above) and sets every node's snap_ix
 * (which the saved node structs hold too); nothing else of g is written. */
fl_status fl__graph_snapshot_take(fl_graph_snapshot *s, fl_graph *g, size_t max_bytes, fl_diag *d);

/* Opens a journal of g in s (replacing what s held; see above): O(1) in the
 * nodes. Saves that would make its buffers larger than max_bytes (> 0), or
 * that malloc refuses, set s->oom. `check`: NULL, or a full snapshot of g
 * taken just before, compared with every node saved (s->early). The journal
 * stays open (g->journal) until fl__graph_snapshot_free(s) or another open
 * or take on g. Clears g->attr_tail as take does. */
fl_status fl__graph_journal_open(fl_graph_snapshot *s, fl_graph *g, size_t max_bytes,
                                 const fl_graph_snapshot *check, fl_diag *d);

/* Puts g back into the state s saved (s must have been taken of g; a journal
 * must not have s->oom). s stays valid: it may be restored again (a journal
 * is empty again then: the graph is as it was opened). Allocates nothing. */
void fl__graph_snapshot_restore(fl_graph_snapshot *s, fl_graph *g);

/* After a restore: whether g is exactly the state full snapshot s saved
 * (header, node array, every node's struct and arrays, consumer counts,
 * order, functions, and the name index finding the same nodes). NULL when
 * it is, else what differs (a static string; *at the node, or NULL). */
const char *fl__graph_snapshot_mismatch(const fl_graph_snapshot *s, const fl_graph *g,
                                        const fl_node **at);

/* Comparing the graph with a snapshot, to bring only what a rewrite changed
 * up to date. fl__graph_snapshot_changed: n was not in the graph at take,
 * or its op, kind, descriptor, function, name, device, inputs, attr array
 * (pointer or count: an edited array is a new one) or output array differ
 * from then (control inputs are not compared: they order execution and
 * change no shape or count). Sets *outputs_differ when its outputs' dtypes,
 * shapes or values differ from those saved (a rewrite may set them itself);
 * a new node gives true there too. O(the node's inputs and outputs).
 * fl__graph_snapshot_outputs_differ: only the latter test (after re-inference: did n's results
 * change?). Values are compared by content. */
bool fl__graph_snapshot_changed(const fl_graph_snapshot *s, const fl_node *n, bool *outputs_differ);
bool fl__graph_snapshot_outputs_differ(const fl_graph_snapshot *s, const fl_node *n);

/* Whether n, saved by s, reads now what it read then: its op, attrs and
 * outputs as saved, and each input, rewired or not, a tensor (dtype, dims,
 * value) equal to the one its saved input was (the producer's as s saved
 * it, or as it is when s did not save it). For the caller to skip
 * re-inferring and re-costing a reader whose inference and cost depend on
 * its input tensors only (not on its producers' ops). */
bool fl__graph_snapshot_reads_same(const fl_graph_snapshot *s, const fl_node *n);

/* Records in the journal open on g that the readers of `from`, which the
 * pass removes, are moved onto `to`, whose outputs equal from's: the same
 * kind and descriptor, as many outputs, each of the same dtype, dims and
 * value (by meaning). fl__graph_snapshot_changed then takes a reader's
 * input moved from `from` to `to` (same port) as unchanged: the reader's
 * op, attrs and input tensors are as they were, so re-inferring and
 * re-costing it would give what it has. Nothing is recorded (the reader
 * is inferred again) when the outputs differ, no journal is open, or the
 * record does not fit. */
void fl__graph_journal_same(fl_graph *g, const fl_node *from, const fl_node *to);

/* n's state as s saved it (at take, or at its first write since a journal
 * was opened), or NULL when s holds none: n was added since, or a journal
 * has not saved it (it was not written). */
const fl_node *fl__graph_snapshot_saved(const fl_graph_snapshot *s, const fl_node *n);

/* The data and control inputs n had as s saved it (copies in s's pools:
 * what the node array read then, whatever was written since), or false
 * when s holds none (see fl__graph_snapshot_saved). */
bool fl__graph_snapshot_saved_edges(const fl_graph_snapshot *s, const fl_node *n,
                                    const fl_input **inputs, int *n_inputs, fl_node *const **ctrl,
                                    int *n_ctrl);

/* The node array of the graph as journal s was opened: its first
 * s->head.n_nodes entries are the nodes the graph had then (those removed
 * since included), whatever compactions ran since. */
fl_node *const *fl__graph_journal_opened(const fl_graph_snapshot *s);

/* n was added or marked edited (fl__node_touch) since s was taken. */
static inline bool fl__graph_snapshot_marked(const fl_graph_snapshot *s, const fl_node *n) {
    return n->born >= s->stamp || n->edited >= s->stamp;
}

/* The check of the marks (the pass driver's verifier): the first node saved
 * in s that is neither removed nor marked since the take, yet differs from
 * its saved state in what fl__graph_snapshot_changed compares, in its
 * control inputs or in its outputs' dtypes, shapes or values; NULL when
 * there is none. O(nodes + edges). A full snapshot's (NULL for a journal). */
const fl_node *fl__graph_snapshot_unmarked(const fl_graph_snapshot *s);

/* Two values with the same dtype, shape and elements (NULL equals NULL). */
bool fl__value_same(const fl_value *a, const fl_value *b);

/* Releases the buffers; s is empty again (fl__graph_snapshot_init). */
void fl__graph_snapshot_free(fl_graph_snapshot *s);

#endif
