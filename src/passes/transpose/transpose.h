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
 *               and how the node's attrs change (axes, axis, perm).
 *
 * The pass models the families ONNX Runtime pushes through for elementwise
 * work (unary, broadcasting n-ary), reductions, Concat/Split/Softmax-like
 * axis ops, Transpose itself and a Reshape that acts as one. Where ONNX
 * Runtime would push through a family not modelled here (Shape, Pad, Slice,
 * Tile, Squeeze, Unsqueeze, ArgMin/ArgMax, QuantizeLinear/DequantizeLinear),
 * or change a graph
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
    TPF_NO_PUSH,   /* a handler that never pushes before partitioning (MaxPool, Resize) */
    TPF_UNMODELLED /* a handler ONNX Runtime has and this pass does not model */
} tp_family;

tp_family fl__tp_family(const fl_node *n);
/* Does the family's handler put Transposes on the node's outputs? */
bool fl__tp_transposes_outputs(tp_family f);
/* The inputs a Transpose may be pushed from (ONNX Runtime's
 * transposible_inputs_fn); their count. */
int fl__tp_inputs(const fl_node *n, tp_family f, int *out, int cap);
/* Pushes the Transpose `t` (perm) through n; false when the handler
 * declines without changing anything. */
bool fl__tp_handle(tp_ctx *x, fl_node *t, fl_node *n, const tp_perm *perm, tp_family f,
                   const int *inputs, int n_inputs);

/* ---- edit.c ---- */
bool fl__tp_is_transpose(const fl_node *n);
bool fl__tp_perm_of(const fl_node *t, tp_perm *out); /* valid perm attr */
void fl__tp_invert(const tp_perm *p, tp_perm *out);
bool fl__tp_same(const tp_perm *a, const tp_perm *b);
bool fl__tp_identity(const tp_perm *p);
/* The live nodes reading n's output `port` (each once); their count. */
size_t fl__tp_readers(const tp_ctx *x, const fl_node *n, int port, fl_node **out, size_t cap);
bool fl__tp_has_readers(const tp_ctx *x, const fl_node *n, int port);
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
