/*
 * infer.h - shape inference driver.
 *
 * Walks the graph in topological order calling each op's infer hook (and its
 * eval hook when every input value is known), after binding the inputs the
 * user gave. Loops (NextIteration -> Merge) are iterated until the loop-header
 * shapes stop changing, generalising a dim that changes across iterations to
 * unknown. Unknown op types get outputs of unknown shape and are counted.
 */
#ifndef FL_SHAPE_INFER_H
#define FL_SHAPE_INFER_H

#include "foldline/foldline.h"
#include "graph/snapshot.h"
#include "ops/ops.h"

typedef struct fl_infer_result {
    int64_t n_unknown_nodes; /* nodes whose op type is not registered (function calls excluded) */
    int64_t n_incomplete;    /* nodes with an output whose shape is not determined */
} fl_infer_result;

/* Infers shapes for every node of c->g. Fails (with c->d naming the node or
 * the binding) on graphs TensorFlow would reject or on bindings that name no
 * input, do not fit an input's declared shape, or name no symbol. */
fl_status fl__infer_shapes(fl_ctx *c, const fl_options *opt, fl_infer_result *res);

/* Clears the outputs of the graph's feeds (Placeholder, PlaceholderWithDefault),
 * which keep an output once inferred ("bound by the driver"), so that the
 * next fl__infer_shapes reads their attrs and the bindings again. */
void fl__infer_clear_feeds(fl_graph *g);

/* Infers one node from its inputs as the walk does (placeholders excepted:
 * they take bindings): fl__infer_one runs its shape function (an op the
 * registry does not know gets unknown outputs), fl__infer_node_again also
 * evaluates it when its inputs' values are known. */
fl_status fl__infer_one(fl_ctx *c, fl_node *n);
/* n makes symbols (an input's INPUT.AXIS, a cond Merge's NODE.AXIS): the
 * whole inference infers it, with the bindings and equations. */
bool fl__infer_makes_symbols(const fl_node *n);
fl_status fl__infer_node_again(fl_ctx *c, fl_node *n);

/* Brings shapes up to date after a rewrite of c->g that `before` (a
 * snapshot or journal opened before it, graph/snapshot.h, which holds every
 * node the rewrite marked) describes: only the nodes the rewrite changed, and the consumers of
 * every node whose outputs came out different, are inferred again, in topological order; the other
 * nodes keep theirs. c->g must be compacted. On success *redone is a malloc'd mask by node id of
 * the nodes inferred again (to cost them again, the caller frees it); it is NULL when the graph
 * needs the whole inference instead (loops, symbol bindings, a changed placeholder, a new symbol
 * equation): the caller then runs fl__infer_shapes. */
fl_status fl__infer_refresh(fl_ctx *c, const fl_options *opt, const fl_graph_snapshot *before,
                            uint8_t **redone);

/* Analyses and costs the bodies of the ONNX If/Loop/Scan nodes of c->g
 * (src/shape/bodies.c), keeping their output types and totals on each node
 * for its hooks; fl__infer_shapes runs it after each inference of the
 * graph (`round` 0, 1, ...), and again while it sets *again (a node's
 * outputs changed: the graph is to be inferred again). */
fl_status fl__infer_onnx_bodies(fl_ctx *c, const fl_options *opt, int round, bool *again);

/* After an incremental re-inference (fl__infer_refresh): analyses again
 * the bodies of the ONNX If/Loop/Scan nodes whose bodies see something
 * different now (their inputs' or the outer values' types: the body
 * models' key), re-infers those nodes from what the bodies give and marks
 * them in `redo` (by node id) to be costed again; *whole when a node's
 * outputs changed (the whole inference must then run). */
fl_status fl__refresh_onnx_bodies(fl_ctx *c, const fl_options *opt, uint8_t *redo, bool *whole);

/* The symbol name of dim `axis` of placeholder `name`: "name.axis". */
char *fl__infer_symbol_name(fl_arena *a, const char *name, int axis);

#endif
