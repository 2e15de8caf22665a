/*
 * qdq.h - what the files of passes/qdq/ (the qdq pass, entry point
 * fl__pass_qdq in fuse.c) share. Private to passes/qdq/.
 *
 *  fuse.c       ONNX Runtime's QDQ fusion ('extended' level): groups of
 *               DequantizeLinear -> op -> QuantizeLinear become the integer
 *               (QOperator) operators;
 *  propagate.c  ONNX Runtime's QDQ propagation ('basic' level), which runs
 *               before the fusion: QuantizeLinear moved backward and
 *               DequantizeLinear forward across data-movement ops, so the
 *               fusion finds the groups around them;
 *  act_q.c      ONNX Runtime's ReluQuantFusion and ClipQuantFusion, which
 *               run before the fusion: a Relu/Clip made redundant by the
 *               QuantizeLinear reading it is removed;
 *  nbits.c      the fusion's DequantizeLinear (4-bit blockwise) -> MatMul
 *               => com.microsoft MatMulNBits rule.
 */
#ifndef FL_PASSES_QDQ_QDQ_H
#define FL_PASSES_QDQ_QDQ_H

#include "passes/pass.h"

/* ONNX Runtime's QDQPropagationTransformer on pc's graph (propagate.c's
 * header states the rule): inserts QuantizeLinear -> DequantizeLinear
 * pairs, one ledger record (qdq_propagation) each; removes nothing. Clears
 * the graph's topological order when it changed the graph. */
fl_status fl__qdq_propagate(fl_pass_ctx *pc);

/* ORT's ReluQuantFusion and ClipQuantFusion on pc's graph (act_q.c's
 * header states the rules): removes each Relu/Clip a QuantizeLinear makes
 * redundant, one ledger record (qdq_relu_quant, qdq_clip_quant) each. */
fl_status fl__qdq_drop_activations(fl_pass_ctx *pc);

/* *len = the element count of shape s (-1 when a dim or the rank is not
 * known); whether it is 1. */
bool fl__qdq_one_elem(const fl_shape *s, int64_t *len);

/* A bound of Clip c: input i from opset 11 (absent: unbounded), else attr
 * `attr` (absent: dflt). False when the input is not a known value. */
bool fl__qdq_clip_bound(const fl_node *c, int i, const char *attr, double dflt, double *v);

/* ORT's DQMatMulToMatMulNBits at MatMul t (nbits.c's header states the
 * rule): a DequantizeLinear of 4-bit blockwise weights -> t becomes
 * com.microsoft MatMulNBits with the weights re-laid. `uses`, `edges` and
 * n0 are those of the fusion's sweep; *st takes a failure. Returns whether
 * it rewrote. */
bool fl__qdq_matmul_nbits(fl_pass_ctx *pc, const fl_uses *uses, fl_edge_index *edges, size_t n0,
                          fl_node *t, fl_status *st);

#endif
