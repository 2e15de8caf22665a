/*
 * util.h - helpers shared by the ONNX op families (src/ops/onnx/ and the
 * files of src/ops/onnxops/): absent optional inputs, axes, the TensorFlow
 * twin hooks and the per-element cost rules.
 */
#ifndef FL_OPS_ONNXOPS_UTIL_H
#define FL_OPS_ONNXOPS_UTIL_H

#include "ops/common.h"

/* True when optional input i is not given (past the end, or the importer's
 * onnx::_absent marker). */
bool fl__ox_absent(const fl_node *n, int i);

/* The value of input i when it is one known element (a bool cond: If's,
 * Loop's), nonzero as true; false when absent or not known. */
bool fl__ox_known_bool(const fl_node *n, int i, bool *v);

/* Base dtype of input i; FL_DT_INVALID when absent. */
int fl__ox_in_dtype(const fl_node *n, int i);

/* Reads ints attr `name`, which must have `want` entries, into out; when it
 * is absent, every entry is `dflt`. */
fl_status fl__ox_ints_attr(fl_ctx *c, const fl_node *n, const char *name, int want, int64_t dflt,
                           int64_t *out);

/* Normalises `axis` against `rank`; fails naming `what` when out of range. */
fl_status fl__ox_norm_axis(fl_ctx *c, const fl_node *n, int64_t axis, int rank, const char *what,
                           int *out);

/* An int list given as input `i` (known value) or, when that input is absent,
 * as attr `attr`. *found false when neither is there; FL_ENOTFOUND when the
 * input exists but its value is unknown. */
fl_status fl__ox_ints_in_or_attr(fl_ctx *c, const fl_node *n, int i, const char *attr,
                                 const int64_t **out, int64_t *cnt, bool *found);

/* Runs TensorFlow kind `tf_kind`'s infer (eval false) or eval hook on a copy
 * of n carrying that kind; the outputs are n's. */
fl_status fl__ox_twin(fl_ctx *c, fl_node *n, int tf_kind, bool eval);

/* Every output := input 0's dtype and shape. */
fl_status fl__ox_infer_same(fl_ctx *c, fl_node *n);

/* Sets output `port` when the node has it (optional ONNX outputs). */
fl_status fl__ox_set_out(fl_ctx *c, fl_node *n, int port, int dtype, int rank, const fl_sym *dims);

/* Cost `per` * E(output 0), complete convention, no MACs. */
fl_status fl__ox_cost_per_out(fl_ctx *c, const fl_node *n, fl_cost *out, int64_t per);
/* Cost `per` * E(input 0). */
fl_status fl__ox_cost_per_in(fl_ctx *c, const fl_node *n, fl_cost *out, int64_t per);

/* ONNX reductions' output: axes from input 1 (ReduceSum >= 13, every
 * Reduce* >= 18) or attr `axes`, keepdims (default 1), noop_with_empty_axes;
 * dtype of input 0. */
fl_status fl__ox_infer_reduce(fl_ctx *c, fl_node *n);
/* The axes an ONNX reduction reduces, mask[0..x->rank) (x->rank known):
 * input 1 or attr `axes`, every axis when none are given (none with
 * noop_with_empty_axes = 1). *known false: input 1's value is unknown. */
fl_status fl__ox_reduce_axes(fl_ctx *c, const fl_node *n, const fl_shape *x, bool *mask,
                             bool *known);

/* A delegated input slot that is absent (fl__ox_delegate's idx). */
#define FL_OX_SLOT_ABSENT (-1)

/* Runs the infer hook of op `kind` on a copy of n whose inputs are n's
 * inputs idx[0..n_idx): QLinearConv's x and w through Conv's inference. An
 * entry FL_OX_SLOT_ABSENT, or an index past n's inputs, is an absent input:
 * dropped at the end, an absent marker (fl__ox_absent) before a present
 * one, never another input. */
fl_status fl__ox_delegate(fl_ctx *c, fl_node *n, int kind, const int *idx, int n_idx);

/* As fl__ox_delegate, the delegate's input `at` (a position in idx) read
 * from `view` instead: a stand-in for n's input idx[at] with another shape
 * or value (the contrib Pad's pads [1, 2r] as [2r]). */
fl_status fl__ox_delegate_view(fl_ctx *c, fl_node *n, int kind, const int *idx, int n_idx, int at,
                               fl_tensor *view);

/* As fl__ox_delegate for the cost hook of `kind`. */
fl_status fl__ox_cost_delegate(fl_ctx *c, const fl_node *n, int kind, const int *idx, int n_idx,
                               fl_cost *out);

/* Output 0's dtype := dt, shape kept. */
fl_status fl__ox_retype(fl_ctx *c, fl_node *n, int port, int dt);

/* Numpy broadcast of inputs 0 and 1 into output 0 of dtype dt. */
fl_status fl__ox_infer_bcast(fl_ctx *c, fl_node *n, int dt);

/* String attr `name` (default dflt), which must be one of choices (a NULL-
 * ended list): *idx is its index; any other value fails naming the attr,
 * the value and the choices ("attr 'mode' is 'x' (a, b or c)"). */
fl_status fl__ox_attr_pick(fl_ctx *c, const fl_node *n, const char *name, const char *dflt,
                           const char *const *choices, int *idx);

/* Whether n's graph is an ONNX model importing ai.onnx opset 1 .. v - 1:
 * an op whose definition changed at opset v reads the older one. */
bool fl__ox_opset_before(const fl_ctx *c, int64_t v);

/* Whether BatchNormalization node n (of graph g) runs in training mode,
 * normalising X by the batch's own mean and variance: attr training_mode 1
 * from opset 14; at opsets 7-13, any output beyond Y (the running and saved
 * statistics are outputs of training mode only); before opset 7, attr
 * is_test 0, its default. */
bool fl__ox_bn_training(const fl_graph *g, const fl_node *n);

/* Opsets 1-6, before numpy broadcasting: Add, Sub, Mul, Div, Pow, And, Or,
 * Xor, Equal, Greater and Less take attr broadcast (default 0) and axis.
 * Whether n is such a node of such a model. */
bool fl__ox_legacy_bcast(const fl_ctx *c, const fl_node *n);

/* A legacy broadcasting node (fl__ox_legacy_bcast): B (input 1) has A's
 * shape, or with broadcast 1 one element or A's dims axis .. axis + rank(B)
 * - 1 (axis default rank(A) - rank(B), aligned to the back); anything else
 * fails naming the attrs and dims. Output 0 := A's shape, dtype dt.
 * *aligned (may be NULL): numpy broadcasting gives the same values, so the
 * TensorFlow twin may fold them. */
fl_status fl__ox_infer_legacy_bcast(fl_ctx *c, fl_node *n, int dt, bool *aligned);

/* A legacy broadcasting node whose B lies along a middle axis of A (attr
 * axis not aligning it to the back, B of more than one element): numpy
 * broadcasting would read it otherwise, so rewrite rules must not touch it. */
bool fl__ox_legacy_unaligned(const fl_ctx *c, const fl_node *n);

/* Each of the NULL-terminated `names`, int attrs the op's schema requires
 * but its count does not read (the cuBLASLt orders of the QOrdered ops), is
 * present: FL_EINVAL naming the first missing one. */
fl_status fl__ox_need_int_attrs(fl_ctx *c, const fl_node *n, const char *const *names);

/* Input 0 of the com.microsoft attention ops: rank 3 (batch, sequence,
 * hidden) when the rank is known, failing naming input 0 otherwise; its dims
 * (unknown when the rank is) into b, s, h. */
fl_status fl__ox_bsh_input(fl_ctx *c, const fl_node *n, fl_sym *b, fl_sym *s, fl_sym *h);

/* Attention's and PackedAttention's Q, K and V hidden sizes: attr
 * qkv_hidden_sizes (three positive ints, summing to `cols`, input 1
 * (weights)'s columns, when known), else `cols` in three equal parts (unknown
 * unless cols is known). Into hq, hk, hv; failing naming the attr or input. */
fl_status fl__ox_qkv_sizes(fl_ctx *c, const fl_node *n, fl_sym cols, fl_sym *hq, fl_sym *hk,
                           fl_sym *hv);

#endif
