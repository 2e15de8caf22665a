/*
 * ops.h - the op registry: one descriptor per op type.
 *
 * ops.def is the only list of op types: one row per op, in the list of the
 * family file that implements it (src/ops/FAMILY/FILE.def, included by
 * ops.def), giving the op's kind, name, family, input and output counts,
 * flags and hook set. The rows generate enum fl_op_kind, the name lookup and
 * the descriptor table; each family file defines its ops' descriptors,
 * `const struct fl_op_desc fl__desc_<ENUM>`, from its list and its hook sets
 * (FL_OP_DESC, ops/common.h). Adding an op: a row in FILE.def and, unless an
 * existing hook set fits, its hooks and a HOOKS_<set> macro in FILE.c
 * (ops.def has the details).
 *
 * Hooks run during shape inference (infer, eval) and costing (cost), in
 * topological order, one node at a time, with every producer already done.
 * They read input tensors through fl_node_in(n, i) and attrs through the
 * fl_attr_* getters; they report bad input with fl__node_fail(c->d, FL_EINVAL,
 * n, "...") naming the attr or input, and never crash on any graph.
 */
#ifndef FL_OPS_OPS_H
#define FL_OPS_OPS_H

#include "graph/graph.h"

#include <stdbool.h>
#include <stdint.h>

typedef enum fl_op_kind {
    FL_OP_UNKNOWN = 0,
#define FL_OP(e, ...) FL_OP_##e,
#include "ops/ops.def"
#undef FL_OP
    FL_OP_COUNT
} fl_op_kind;

/* What a hook gets: the graph, its symbol table and arena, the diagnostics,
 * and the limits of the analysis. */
typedef struct fl_ctx {
    fl_graph *g;
    fl_symtab *st;
    fl_arena *a;
    fl_diag *d;
    int64_t max_value_elems; /* values larger than this are not computed */
} fl_ctx;

enum fl_op_flags {
    FL_OPF_STATEFUL = 1u << 0,     /* never folded or evaluated (random ops, variables) */
    FL_OPF_ALIAS = 1u << 1,        /* output aliases input: moves no bytes (Identity, Reshape) */
    FL_OPF_META = 1u << 2,         /* reads only metadata of its inputs (Shape, Size, Rank) */
    FL_OPF_NO_BYTES = 1u << 3,     /* moves no bytes at all (Const, Placeholder, NoOp) */
    FL_OPF_CONTROL_FLOW = 1u << 4, /* Switch/Merge/Enter/Exit/NextIteration/LoopCond */
    FL_OPF_FUNCTIONAL = 1u << 5,   /* While/If/PartitionedCall: calls library functions */
    /* its infer, eval and cost read its attrs and input tensors only, never a
     * producer's op or attrs: rewired onto a producer with equal outputs, it
     * needs no re-inference (shape/incremental.c) */
    FL_OPF_READS_TENSORS = 1u << 6,
    /* nothing is known of its inputs (a TFLite custom or delegate op): any
     * of them may be absent */
    FL_OPF_OPAQUE_INPUTS = 1u << 7,
    /* Bits 8-63 (FL_OPF_OPTIONAL_IN(i)): input i may be absent.
     *  - ONNX ops (an empty input name): every input at or past min_inputs
     *    is optional, so a row marks only the optional inputs (or those of
     *    a variadic run) that come before a required one; the importer
     *    rejects an empty name for any other input below min_inputs, as
     *    ONNX's checker does (fl__op_input_optional).
     *  - TFLite builtins (an operator's input -1): a row marks every input
     *    its kernel accepts as -1, below min_inputs or not; TFLite's kernels
     *    read every other input they are given, and the importer rejects a
     *    -1 there (fl__op_input_may_be_minus1). */
    FL_OPF_OPTIONAL_IN0 = 1u << 8,
};

#define FL_OPF_MAX_OPTIONAL_IN 56
#define FL_OPF_OPTIONAL_IN(i)  ((uint64_t)FL_OPF_OPTIONAL_IN0 << (i))

struct fl_op_desc {
    const char *name; /* TensorFlow op type */
    int16_t min_inputs;
    int16_t max_inputs; /* -1: variadic */
    int16_t n_outputs;  /* fixed output count; -1: count_outputs decides */
    uint64_t flags;     /* fl_op_flags, and FL_OPF_OPTIONAL_IN marks */

    /* (optional when n_outputs >= 0) Output count from attrs (Split's
     * num_split, Unpack's num, IdentityN's T); -1 with d failed on bad attrs. */
    int (*count_outputs)(const fl_node *n, fl_diag *d);

    /* Sets every output's dtype and shape (symbolic where needed); may also set
     * output values that follow from shapes alone (Shape, Size, Rank). Unknown
     * input shapes give unknown output dims, never an error. FL_EINVAL (with d
     * failed) for graphs TensorFlow would reject: bad attrs, rank or dimension
     * mismatches that are certain. */
    fl_status (*infer)(fl_ctx *c, fl_node *n);

    /* (optional: NULL = never evaluated) Computes output values when every
     * data input has a value. Called after infer. Returns FL_OK without setting
     * a value when it cannot (too large, unsupported dtype). */
    fl_status (*eval)(fl_ctx *c, fl_node *n);

    /* Fills out->flops, tfprof_flops, macs, has_rule, tfprof_rule from the
     * inferred shapes (bytes are computed by the cost model from flags).
     * Sets out->incomplete when a needed dimension is unknown. NULL: no rule,
     * 0 FLOPs (has_rule false). */
    fl_status (*cost)(fl_ctx *c, const fl_node *n, fl_cost *out);
};

/* Whether input i of an op described by d may be absent: at or past
 * min_inputs, or marked FL_OPF_OPTIONAL_IN. True for an unregistered op
 * (d NULL): nothing is known of its inputs. */
static inline bool fl__op_input_optional(const struct fl_op_desc *d, size_t i) {
    return !d || i >= (size_t)(d->min_inputs > 0 ? d->min_inputs : 0) ||
           (i < FL_OPF_MAX_OPTIONAL_IN && (d->flags & FL_OPF_OPTIONAL_IN(i)));
}

/* Whether a TFLite operator of row d may give -1 (no tensor) as input i:
 * the row marks it optional, or the op's inputs are opaque (or d is NULL:
 * not registered). */
static inline bool fl__op_input_may_be_minus1(const struct fl_op_desc *d, size_t i) {
    return !d || (d->flags & FL_OPF_OPAQUE_INPUTS) ||
           (i < FL_OPF_MAX_OPTIONAL_IN && (d->flags & FL_OPF_OPTIONAL_IN(i)));
}

/* Binds n to the registry by its op string: sets kind, desc (NULL when the
 * op is not registered) and the loop-role flags the graph layer reads
 * (FL_NODE_OP_NEXT_ITERATION, FL_NODE_OP_MERGE). Every node is bound once
 * created, and again when its op changes. */
void fl__op_bind(fl_node *n);

/* As fl__op_bind with the kind given (the ONNX importer, whose ops are
 * registered under domain-qualified names that differ from n->op). */
void fl__op_bind_kind(fl_node *n, int kind);

/* fl__graph_add_node and fl__graph_add_op (graph/mutate.h) followed by
 * fl__op_bind. */
fl_node *fl__op_add_node(fl_graph *g, const char *name, const char *op, fl_diag *d);
fl_node *fl__op_add_op(fl_graph *g, const char *name, const char *op, int n_inputs,
                       const fl_input *inputs, int n_outputs, fl_diag *d);
/* fl__graph_add_op_taking_name (graph/mutate.h) followed by fl__op_bind. */
fl_node *fl__op_add_op_taking_name(fl_graph *g, fl_node *old, const char *op, int n_inputs,
                                   const fl_input *inputs, int n_outputs, fl_diag *d);

/* Descriptor of a kind; NULL for FL_OP_UNKNOWN or out of range. */
const struct fl_op_desc *fl__op_desc_of(int kind);

/* Kind of an op type name; FL_OP_UNKNOWN when not registered. */
fl_op_kind fl__op_lookup(const char *name);

/* fl__op_lookup of the len bytes at p (no NUL among them; p need not be
 * NUL-terminated: an op's name where it lies in the input). */
fl_op_kind fl__op_lookup_n(const char *p, size_t len);

/* Name of a kind ("Conv2D"); "?" for unknown. */
const char *fl__op_name(int kind);

#define FL_OP(e, ...) extern const struct fl_op_desc fl__desc_##e;
#include "ops/ops.def"
#undef FL_OP

#endif
