/*
 * tflite_loop.h - how often each TFLite subgraph runs per inference: WHILE
 * trip counts derived from the cond and body subgraphs (tflite_loop.c).
 */
#ifndef FL_IMPORT_TFLITE_LOOP_H
#define FL_IMPORT_TFLITE_LOOP_H

#include "graph/graph.h"

/* One imported subgraph. */
typedef struct fl_tfl_subgraph {
    const char *name;
    size_t first, end; /* its nodes: g->nodes[first, end) */
    int n_in, n_out;
    fl_node **in;  /* its input nodes, in order (NULL: not imported) */
    fl_input *out; /* the producers of its outputs ({NULL, 0}: none) */
} fl_tfl_subgraph;

/* Walks the control flow from subgraph 0: a WHILE (or STABLEHLO_WHILE)
 * whose trip count follows from its cond and body (a loop variable stepped
 * by a constant in the body, compared with a constant in the cond, from a
 * constant initial value) runs its body that many times and its cond once
 * more; one whose limit is a loop variable with a non-constant initial value
 * gets attr _trip_form and its body's and cond's nodes _trip_loops /
 * _trip_plus (counted from the limit's inferred value by src/cost/cost.c);
 * any other WHILE counts both once with a warning naming the op; IF and
 * CALL pass their count on. Every node of a subgraph that runs other than
 * once gets attr _repeat and FL_NODE_REPEATED (the cost model multiplies its
 * counts). Subgraphs no control flow reaches (CALL_ONCE initialisers) are
 * counted once. */
fl_status fl__tfl_loops(fl_graph *g, fl_diag *d, const fl_tfl_subgraph *sg, int n_sg);

/* A counted loop whose limit is a loop variable the body passes on
 * unchanged but whose initial value (w's input `limit_input`) is not a
 * constant: `i CMP limit` (CMP an fl_trip_cmp, src/util/reserved.h) from
 * `start` by `step`. limit_input -1: no such loop. */
typedef struct fl_loop_form {
    int cmp;
    int64_t start, step;
    int limit_input;
} fl_loop_form;

/* The trip count of loop w whose cond and body are given as subgraphs (in:
 * the loop variables as each reads them, out: what each returns; w's data
 * inputs are the initial values), when it is a counted loop (the pattern
 * in tflite_loop.c's header, TFLite's and TensorFlow's ops alike, Identity
 * nodes between values skipped). Else false with the reason in why, and,
 * when `form` is not NULL, the loop's form when only its limit's value is
 * missing (a single comparison, not a LOGICAL_AND). Serves TFLite's WHILE
 * and TensorFlow's While (src/import/tf_loop.c). */
bool fl__loop_trips(const fl_node *w, const fl_tfl_subgraph *cond, const fl_tfl_subgraph *body,
                    int64_t *trips, char *why, size_t why_size, fl_loop_form *form);

#endif
