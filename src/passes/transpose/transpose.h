/*
 * transpose.h - ONNX Runtime's transpose optimizer (its level-1 graph
 * transformer TransposeOptimizer, onnxruntime/core/optimizer/
 * transpose_optimization/) on ONNX graphs: Transposes are pushed through the
 * operators that allow it toward the graph's ends, where inverse pairs
 * cancel and neighbours merge.
 *
 * What the files hold:
 *   optimize.c  the pass: which values lead to a Transpose, the walk in
 *               topological order, the cost check, the repeat until nothing
 *               changes;
 *   edit.c      the graph edits every rule shares: a Transpose (or the
 *               rank's leading 1s) put on a node's input, undone where the
 *               input is itself a Transpose (or a Squeeze), folded into an
 *               input constant, or shared with an existing one; Transposes
 *               put on a node's outputs;
 *   handlers.c  the op families: which inputs a Transpose is pushed from,
 *               and how the node's attrs change (axis, axes, perm), for
 *               elementwise, axis, reduction and Transpose/Reshape nodes;
 *   shape_ops.c the same for Shape, Squeeze, Unsqueeze, Slice, Tile, Pad,
 *               ArgMin/ArgMax.
 *
 * The pass models every family of ONNX Runtime's table for the onnx domain
 * but QuantizeLinear/DequantizeLinear (graphs with those are not taken).
 * Where ONNX Runtime would push through a family not modelled here (its
 * com.microsoft QLinear operators), a Pad with an axes input, or change a
 * graph
 * output, the pass fails and the driver leaves the graph as it was: never a
 * different graph from ONNX Runtime's.
 */
#ifndef FL_PASSES_TRANSPOSE_TRANSPOSE_H
#define FL_PASSES_TRANSPOSE_TRANSPOSE_H

#include "passes/util.h"

#define TP_MAX_RANK 16

/* A permutation of rank n (n <= TP_MAX_RANK). */
typedef struct tp_perm {
    int n;
    int64_t p[TP_MAX_RANK];
} tp_perm;

typedef struct tp_ctx {
    fl_pass_ctx *pc;
    fl_graph *g;
    fl_diag *d;
    int64_t opset;
    fl_status st;         /* first error; the pass stops */
    const char *declined; /* why the graph is one the pass does not model */
    const fl_node *declined_at;
    /* outputs leading to a Transpose (ONNX Runtime's
     * outputs_leading_to_transpose): one byte per (node id, port < 8) */
    uint8_t *lead;
    size_t n_lead;
    int pushed; /* rules fired in this round */
    /* Who reads whom in this round (graph/mutate.h's edge index): built at
     * the round's first reader lookup, noted by every edit that makes an
     * edge (fl__tp_set_input, fl__tp_note, fl__tp_add_node), dropped at the
     * round's end (the next round compacts, which renumbers the nodes). */
    fl_edge_index index;
    fl_node **rbuf; /* a lookup's readers */
    size_t rcap;
} tp_ctx;

/* The op families (ONNX Runtime's handler table, onnx domain). */
typedef enum tp_family {
    TPF_NONE = 0,  /* no handler: a Transpose stops here */
    TPF_SIMPLE,    /* unary elementwise: every input and output */
    TPF_FIRST,     /* Clip, CastLike: the first input only */
    TPF_BROADCAST, /* broadcasting n-ary: every input of rank > 0 */
    TPF_CONCAT,    /* axis attr, every input */
    TPF_SPLIT,     /* axis attr (default 0), first input */
    TPF_SOFTMAX,   /* Softmax, LogSoftmax, Hardmax */
    TPF_REDUCE,    /* Reduce* */
    TPF_TRANSPOSE, /* merge or cancel */
    TPF_RESHAPE,   /* a Reshape that only moves dims of 1: as a Transpose */
    TPF_SHAPE,     /* Shape: Gather of the input's shape after it */
    TPF_SQUEEZE,
    TPF_UNSQUEEZE,
    TPF_SLICE,
    TPF_TILE,
    TPF_PAD,
    TPF_ARG,       /* ArgMin, ArgMax */
    TPF_NO_PUSH,   /* a handler that never pushes before partitioning (MaxPool, Resize) */
    TPF_UNMODELLED /* a handler ONNX Runtime has and this pass does not model */
} tp_family;

tp_family fl__tp_family(const fl_node *n);
/* QuantizeLinear or DequantizeLinear of any domain (graphs with one are
 * not taken). */
bool fl__tp_is_qdq(const fl_node *n);
/* Does the family's handler put Transposes on the node's outputs? */
bool fl__tp_transposes_outputs(tp_family f);
/* The inputs a Transpose may be pushed from (ONNX Runtime's
 * transposible_inputs_fn); their count. */
int fl__tp_inputs(const fl_node *n, tp_family f, int *out, int cap);
/* Pushes the Transpose `t` (perm) through n; false when the handler
 * declines without changing anything. */
bool fl__tp_handle(tp_ctx *x, fl_node *t, fl_node *n, const tp_perm *perm, tp_family f,
                   const int *inputs, int n_inputs);

/* Shared by the handlers (handlers.c). */
bool fl__tp_absent(const fl_node *n, int i);
bool fl__tp_norm_axis(int64_t *a, int rank);
bool fl__tp_norm_axes(int64_t *axes, int len, int rank); /* distinct, in range */
int fl__tp_sorted_axes(const int64_t *axes, int len, const tp_perm *perm, int64_t *out);
void fl__tp_squeeze_perm(const int64_t *axes, int len, const tp_perm *perm, tp_perm *out);
void fl__tp_first_input(tp_ctx *x, fl_node *n, const tp_perm *perm_inv, const tp_perm *perm);
/* n inferred again, its outputs transposed by out_perm; true. */
bool fl__tp_finish(tp_ctx *x, fl_node *n, const tp_perm *out_perm);
/* shape_ops.c: the families from TPF_SHAPE on. */
bool fl__tp_handle_shape_op(tp_ctx *x, fl_node *n, const tp_perm *perm, const tp_perm *inv,
                            tp_family f);

/* ---- edit.c ---- */
fl_node *fl__tp_add_node(tp_ctx *x, const fl_node *near, const char *base, const char *op, int kind,
                         int n_in, const fl_input *in);
void fl__tp_set_int(tp_ctx *x, fl_node *n, const char *name, int64_t v);
void fl__tp_set_ints(tp_ctx *x, fl_node *n, const char *name, int len, const int64_t *v);
/* An int list: attr `name` before opset `since`, else constant input
 * `input`; false when absent or not constant. */
bool fl__tp_attr_or_input(const tp_ctx *x, const fl_node *s, const char *name, int input,
                          int64_t since, int64_t *axes, int *len);
/* perm widened by the dims of 1 inserted at (sorted, distinct) axes. */
void fl__tp_unsqueeze_perm(const int64_t *axes, int k, const tp_perm *perm, tp_perm *out);
/* A new integer (int32 or int64) 1-D constant named after n. */
fl_node *fl__tp_int_const(tp_ctx *x, const fl_node *n, const char *suffix, int dt, int len,
                          const int64_t *v);
bool fl__tp_is_transpose(const fl_node *n);
bool fl__tp_perm_of(const fl_node *t, tp_perm *out); /* valid perm attr */
void fl__tp_invert(const tp_perm *p, tp_perm *out);
bool fl__tp_same(const tp_perm *a, const tp_perm *b);
bool fl__tp_identity(const tp_perm *p);
/* The live nodes reading n's output `port` (each once, in node order: the
 * first `cap` of them in out); their count. From the round's edge index; a
 * walk over every node checks it when checks are on (util/check.h). */
size_t fl__tp_readers(tp_ctx *x, const fl_node *n, int port, fl_node **out, size_t cap);
bool fl__tp_has_readers(tp_ctx *x, const fl_node *n, int port);
/* Sets input i of n (fl__node_set_input) and notes the edge in the index;
 * every edit of an existing node's inputs in this pass goes through here
 * or is followed by fl__tp_note. */
void fl__tp_set_input(tp_ctx *x, fl_node *n, int i, fl_input in);
/* Notes n's inputs in the round's index (after fl__node_set_inputs). */
void fl__tp_note(tp_ctx *x, fl_node *n);
/* Drops the round's index (before the next compaction). */
void fl__tp_round_end(tp_ctx *x);
bool fl__tp_is_constant(const fl_node *n);
/* Non-1 dims of a value (5 when its rank is unknown). */
int fl__tp_value_rank(const fl_input *in);
/* Removes n when nothing reads it (and it is no graph output). */
void fl__tp_drop_if_unused(tp_ctx *x, fl_node *n);
/* Infers n again after an edit (its outputs' shapes). */
void fl__tp_infer(tp_ctx *x, fl_node *n);
/* Sets input i of n to its transpose by perm (perm_inv undoes it). */
void fl__tp_transpose_input(tp_ctx *x, fl_node *n, int i, const tp_perm *perm,
                            const tp_perm *perm_inv);
/* Prefixes input i of n with `k` dims of 1. */
void fl__tp_unsqueeze_input(tp_ctx *x, fl_node *n, int i, int k);
/* A new Transpose of `in` by perm, on near's device. */
fl_node *fl__tp_new_transpose(tp_ctx *x, const fl_node *near, fl_input in, const tp_perm *perm);
/* Every reader of n's output `port` but `keep` reads `to` instead; false
 * (the graph declined) past 64 readers. */
bool fl__tp_redirect(tp_ctx *x, fl_node *n, int port, fl_input to, const fl_node *keep);
/* Puts a Transpose by perm after every output of n (none for the identity). */
void fl__tp_transpose_outputs(tp_ctx *x, fl_node *n, const tp_perm *perm);
/* A new int64 1-D constant named after n. */
fl_node *fl__tp_int64_const(tp_ctx *x, const fl_node *n, const char *suffix, int len,
                            const int64_t *v);
/* Reads an int64 constant input (NULL-free); false when not constant. */
bool fl__tp_const_ints(const fl_node *n, int i, int64_t *out, int cap, int *len);
/* Declines the whole graph (the pass fails and is rolled back). */
void fl__tp_decline(tp_ctx *x, const fl_node *at, const char *why);

#endif
