/*
 * tflite/tfl.h - what the TFLite operator files share (fl__tfl_*): the
 * check of an inferred shape against the one the file stores, and the hooks
 * of array.c (data movement through TensorFlow's descriptors, GATHER) and
 * rnn.c (recurrent cells).
 */
#ifndef FL_OPS_TFLITE_TFL_H
#define FL_OPS_TFLITE_TFL_H

#include "ops/common.h"

/* Output `port` from the shape and type the file stores. */
fl_status fl__tfl_from_stored(fl_ctx *c, fl_node *n, int port);

/* Passes st through, then compares every output with its stored shape: a
 * known dim that differs is a warning naming the tensor (the stored shape is
 * then used); an unknown dim takes the stored one. */
fl_status fl__tfl_check_all(fl_ctx *c, fl_node *n, fl_status st);

/* Operators whose semantics are TensorFlow's (SLICE, STRIDED_SLICE,
 * TRANSPOSE, SPLIT, PACK, ...): shape inference and evaluation by the
 * TensorFlow descriptor, then the stored-shape check. */
fl_status fl__tfl_infer_twin(fl_ctx *c, fl_node *n);
fl_status fl__tfl_eval_twin(fl_ctx *c, fl_node *n);

/* GATHER (axis and batch_dims options) and EMBEDDING_LOOKUP (ids, params):
 * TensorFlow's GatherV2 with the axis as an input. */
fl_status fl__tfl_infer_gather(fl_ctx *c, fl_node *n);
fl_status fl__tfl_eval_gather(fl_ctx *c, fl_node *n);

/* RESHAPE whose shape input holds symbolic elements (a Shape -> StridedSlice
 * -> Pack chain over a free batch dim): TensorFlow's Reshape. FL_ENOTFOUND
 * when input 1 has no such value. */
fl_status fl__tfl_reshape_sym(fl_ctx *c, fl_node *n);

/* Recurrent cells (RNN, UNIDIRECTIONAL_SEQUENCE_RNN, LSTM,
 * UNIDIRECTIONAL_SEQUENCE_LSTM): shapes from the input and weights; costs
 * from the weight matrices (rnn.c's header). */
fl_status fl__tfl_infer_rnn(fl_ctx *c, fl_node *n);
fl_status fl__tfl_cost_rnn(fl_ctx *c, const fl_node *n, fl_cost *out);

/* StableHLO ops whose shape follows from operands and options (DOT_GENERAL,
 * CONCATENATE, SLICE, TRANSPOSE, PAD, DYNAMIC_SLICE, DYNAMIC_UPDATE_SLICE,
 * REDUCE, REDUCE_WINDOW: stablehlo.c's header); DOT_GENERAL's MACs, the
 * reductions' combines, 0 for the others. */
fl_status fl__tfl_infer_hlo(fl_ctx *c, fl_node *n);
fl_status fl__tfl_cost_hlo(fl_ctx *c, const fl_node *n, fl_cost *out);

/* stablehlo.c's option readers, shared with stablehlo_general.c (each
 * false after a warning naming the tensor): an int list of `want` entries
 * (want < 0: any; absent: empty), a dim index within `rank`, a per-dim list
 * of `want` entries defaulting to `dflt` when absent. */
bool fl__tfl_hlo_ints(fl_ctx *c, const fl_node *n, const char *name, int want, const int64_t **v,
                      size_t *cnt);
bool fl__tfl_hlo_dim_ok(fl_ctx *c, const fl_node *n, const char *name, int64_t d, int rank);
bool fl__tfl_hlo_per_dim(fl_ctx *c, const fl_node *n, const char *name, int want, int64_t dflt,
                         int64_t *out);
/* StableHLO's window count along one dim (convolution, reduce_window): the
 * operand length d dilated by bdil ((d - 1) * bdil + 1; 0 stays 0), padded
 * by lo and hi, under a window of win dilated by wdil, at stride s (>= 1):
 * (padded - dilated window) / s + 1, or 0 when the window does not fit.
 * False when a term overflows 64-bit integers. */
bool fl__tfl_hlo_window(int64_t d, int64_t bdil, int64_t lo, int64_t hi, int64_t win, int64_t wdil,
                        int64_t s, int64_t *out);
/* One application of n's body subgraph (attr _body_nodes, set by the
 * importer for REDUCE, REDUCE_WINDOW, SCATTER and SORT): the sum of its
 * nodes' FLOPs, MACs and int ops; false when n has no body. */
bool fl__tfl_hlo_body(fl_ctx *c, const fl_node *n, fl_cost *one);

/* CONVOLUTION, GATHER, SCATTER, SORT, BROADCAST_IN_DIM, IOTA
 * (stablehlo_general.c's header): called by the two hooks above. */
fl_status fl__tfl_infer_hlo_general(fl_ctx *c, fl_node *n);
fl_status fl__tfl_cost_hlo_general(fl_ctx *c, const fl_node *n, fl_cost *out);

/* Input i's shape: unknown (rank -1) when the node has no input i or it is
 * an absent optional input. */
static inline const fl_shape *fl__tfl_in_shape(const fl_node *n, int i) {
    static const fl_shape unknown = {-1, NULL};
    return i < n->n_inputs && n->inputs[i].node->kind != FL_OP_ONNX_ABSENT
               ? &fl_node_in(n, i)->shape
               : &unknown;
}

/* Input i's dtype (FL_DT_INVALID when there is none). */
static inline int fl__tfl_in_dtype(const fl_node *n, int i) {
    return i < n->n_inputs ? (int)fl_node_in(n, i)->dtype : FL_DT_INVALID;
}

#endif
