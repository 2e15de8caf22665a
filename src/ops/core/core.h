/*
 * core.h - what the core family's files share (defined in common.c): shapes
 * from attr literals and shape-vector inputs, merging the shapes seen on
 * several inputs or writes, and following a handle (TensorArray, TensorList,
 * resource) back to the op that made it.
 */
#ifndef FL_OPS_CORE_CORE_H
#define FL_OPS_CORE_CORE_H

#include "ops/common.h"

/* A shape literal (-1 dims unknown) as an arena shape; an absent literal or
 * an unknown rank gives an unknown rank. `what` names the attr for the
 * message about other negative dims. */
fl_status fl__core_shape_from_lit(fl_ctx *c, const fl_node *n, const fl_shape_lit *lit,
                                  const char *what, fl_shape *out);

/* A shape given as the value of input i (a shape vector: -1 entries are
 * unknown dims; with scalar_unknown a scalar -1 is an unknown rank). Without
 * a value, a vector input of known length gives that rank with unknown dims.
 * `what` names the input for messages. */
fl_status fl__core_shape_from_input(fl_ctx *c, const fl_node *n, int i, bool scalar_unknown,
                                    const char *what, fl_shape *out);

/* The dtype attr T stands in for an input dtype that is not known (its
 * producer is an op foldline does not know): attr T of a single type, or
 * entry `index` of a list(type) T (IdentityN). Read leniently, since it only
 * fills a gap; FL_DT_INVALID when absent. */
int fl__core_dtype_from_t(const fl_node *n, int index);

/* Refines `base` with what `more` knows: an unknown rank takes `more`
 * entirely; with equal ranks, unknown dims take `more`'s dims. Both shapes'
 * dims must be arena arrays; base's is written. */
fl_status fl__core_refine_shape(fl_ctx *c, fl_shape *base, const fl_shape *more);

/* Merges one more observation of a shape into `acc` (acc->rank == -2: none
 * yet): dims that agree stay, others become unknown; different ranks give
 * unknown rank. `lead_unknown` replaces the first of `dims` by unknown. */
fl_status fl__core_merge_shape(fl_ctx *c, fl_shape *acc, int rank, const fl_sym *dims,
                               bool lead_unknown);

/* [lead] + s, or unknown rank when s has unknown rank. */
fl_status fl__core_prepend_dim(fl_ctx *c, fl_sym lead, const fl_shape *s, fl_shape *out);

/* The node that produced the handle read by input `in` of n, following
 * forwarding ops back (Identity, Snapshot, Enter, Exit, NextIteration,
 * Switch, IdentityN, TensorListSetItem, the Ref forms; a Merge through its
 * first input that is not a NextIteration). *port_out = the output port of
 * that node. NULL when the chain is broken or too long. */
const fl_node *fl__core_trace_source(const fl_node *n, int in, int *port_out);

/* The integer a scalar input `in` of n holds, for counting (a loop's limit
 * or trip count): its inferred value when it has one, known or symbolic;
 * else, when it comes (through Identity nodes) from an integer scalar
 * Placeholder without a value, the symbol named after that input (a symbol
 * binding of that name binds the input's value: src/shape/infer.c); else
 * unknown. Fails only on memory exhaustion. */
fl_status fl__count_value(fl_ctx *c, const fl_node *n, int in, fl_sym *out);

static inline fl_status fl__core_set_shape(fl_ctx *c, fl_node *n, int port, int dtype,
                                           const fl_shape *s) {
    return fl__op_set_output(c, n, port, dtype, s->rank, s->dims);
}

static inline fl_status fl__core_set_scalar(fl_ctx *c, fl_node *n, int port, int dtype) {
    return fl__op_set_output(c, n, port, dtype, 0, NULL);
}

/* Sets a value or clears a stale one from an earlier visit. */
static inline void fl__core_put_value(fl_node *n, int port, const fl_value *v) {
    if (v) {
        fl__op_set_value(n, port, v);
    } else if (port >= 0 && port < n->n_outputs) {
        n->outputs[port].value = NULL;
    }
}

/* A tensor the driver has not inferred yet: a TensorList/TensorArray write
 * later in the order. (A Merge's back edge is told by fl_graph.infer_first_round,
 * not by its contents: an input inferred as unknown looks the same.) */
static inline bool fl__core_not_inferred(const fl_tensor *t) {
    return t->dtype == FL_DT_INVALID && t->shape.rank < 0;
}

#endif
