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
#include "ops/ops.h"

typedef struct fl_infer_result {
    int64_t n_unknown_nodes; /* nodes whose op type is not registered (function calls excluded) */
    int64_t n_incomplete;    /* nodes with an output whose shape is not determined */
} fl_infer_result;

/* Infers shapes for every node of c->g. Fails (with c->d naming the node or
 * the binding) on graphs TensorFlow would reject or on bindings that name no
 * input, do not fit an input's declared shape, or name no symbol. */
fl_status fl__infer_shapes(fl_ctx *c, const fl_options *opt, fl_infer_result *res);

/* The symbol name of dim `axis` of placeholder `name`: "name.axis". */
char *fl__infer_symbol_name(fl_arena *a, const char *name, int axis);

#endif
