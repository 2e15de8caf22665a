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
 *               fusion finds the groups around them.
 */
#ifndef FL_PASSES_QDQ_QDQ_H
#define FL_PASSES_QDQ_QDQ_H

#include "passes/pass.h"

/* ONNX Runtime's QDQPropagationTransformer on pc's graph (propagate.c's
 * header states the rule): inserts QuantizeLinear -> DequantizeLinear
 * pairs, one ledger record (qdq_propagation) each; removes nothing. Clears
 * the graph's topological order when it changed the graph. */
fl_status fl__qdq_propagate(fl_pass_ctx *pc);

#endif
