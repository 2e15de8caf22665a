/*
 * constfold.h - what the files of passes/constfold/ (Grappler's
 * ConstantFolding, entry point fl__pass_constant_folding in
 * constant_folding.c) share: the rules each family file provides to the
 * driver, and the helpers the rules use. Private to passes/constfold/.
 */
#ifndef FL_PASSES_CONSTFOLD_CONSTFOLD_H
#define FL_PASSES_CONSTFOLD_CONSTFOLD_H

#include "ops/common.h"
#include "passes/util.h"

/* ---- fold.c ---- */

bool fl__cf_bad_dtype(int dt);

uint64_t fl__cf_tensor_bytes(const fl_tensor *t);

fl_status fl__cf_try_fold(fl_pass_ctx *pc, fl_node *n, bool *done);

bool fl__cf_try_materialize_kinds(const fl_node *n);

fl_status fl__cf_try_materialize(fl_pass_ctx *pc, fl_node *n, bool *done);

/* Rule 0 (onnx_constant.c): an ONNX Constant node -> an initializer. */
bool fl__cf_onnx_constant_kinds(const fl_node *n);

fl_status fl__cf_onnx_constant(fl_pass_ctx *pc, fl_node *n, bool *done);

/* Rule 1 (onnx_reshape.c): ONNX Runtime's ReshapeFusion, Shape chains of
 * a Reshape's own input in its shape Concat -> 0 in a constant. */
bool fl__cf_onnx_reshape_kinds(const fl_node *n);

fl_status fl__cf_onnx_reshape(fl_pass_ctx *pc, fl_node *n, bool *done);

/* ---- rewrite.c ---- */

/* The value of data input i when it is a non-stripped Const with concrete
 * contents, else NULL. */
const fl_value *fl__cf_const_value(const fl_node *n, int i);

int64_t fl__cf_ival(const fl_value *v, int64_t i);

bool fl__cf_float_or_complex(int dt);

/* "ConstantFolding/<node><suffix>" (Grappler's OptimizedNodeName). */
const char *fl__cf_name(fl_pass_ctx *pc, const fl_node *n, const char *suffix);

/* Data edges reading any output of n (Grappler's NumNonControlOutputs). */
int fl__cf_data_uses(const fl_graph *g, const fl_node *n);

void fl__cf_drop_ctrl(fl_graph *g, fl_node *n, const fl_node *dep);

/* Replaces n's control inputs with `first` (in order), then its old ones,
 * then `last`, without duplicates. */
fl_status fl__cf_set_ctrl(fl_pass_ctx *pc, fl_node *n, fl_node *const *first, int n_first,
                          fl_node *const *last, int n_last);

/* Gives n its own copy of src's attrs (so later edits do not reach src). */
fl_status fl__cf_copy_attrs(fl_pass_ctx *pc, fl_node *n, const fl_node *src);

fl_status fl__cf_set_type_attr(fl_pass_ctx *pc, fl_node *n, const char *name, int dt);

fl_status fl__cf_set_int_attr(fl_pass_ctx *pc, fl_node *n, const char *name, int64_t v);

/* An int32/int64 value of rank 0 (n == 1) or 1 holding vals. */
fl_value *fl__cf_int_value(fl_pass_ctx *pc, int dtype, int rank, int64_t n, const int64_t *vals);

/* A value of dtype and concrete shape whose elements all equal x (0 or 1);
 * NULL when larger than the value limit or of a dtype without a numeric
 * encoding here (complex, quantized). */
fl_value *fl__cf_filled_value(fl_pass_ctx *pc, int dtype, const fl_shape *s, double x);

/* A new Const `name` holding v on `device`, with control input ctrl (or
 * none). */
fl_node *fl__cf_new_const(fl_pass_ctx *pc, const char *name, const fl_value *v, const char *device,
                          fl_node *ctrl);

/* A new node of op type `op` with n's device and attrs, reading `in`. */
fl_node *fl__cf_new_op_like(fl_pass_ctx *pc, const char *name, const char *op, const fl_node *like,
                            int n_in, const fl_input *in);

/* Infers a node the pass created or rewired, and folds it at once when all
 * its data inputs are constants (Grappler folds it in its next round). */
fl_status fl__cf_settle(fl_pass_ctx *pc, fl_node *n);

bool fl__cf_is_ones(const fl_node *m);

bool fl__cf_is_zeros(const fl_node *m);

/* n := Const of n's output dtype and shape, all elements x; data inputs
 * become control inputs (ReplaceOperationWithConstant). Returns false in
 * *done when the value cannot be built. */
fl_status fl__cf_replace_with_filled(fl_pass_ctx *pc, fl_node *n, double x, const char *rule,
                                     const char *what, bool *done);

/* n(x, y) := op(y, ^x): Neg for 0 - y, Reciprocal for 1 / y; attrs kept;
 * x's control input through its anchor. */
fl_status fl__cf_replace_unary_of_y(fl_pass_ctx *pc, fl_node *n, const char *op);

/* n := BroadcastTo(input `keep`, shape of n's output), the other data inputs
 * becoming control inputs of n and of the new shape constant
 * ConstantFolding/<n>-broadcastto_shape-<keep> (ReplaceOperationWithBroadcastTo).
 * Needs a fully known output shape. */
fl_status fl__cf_replace_with_broadcast_to(fl_pass_ctx *pc, fl_node *n, int keep, const char *rule,
                                           bool *done);

/* ---- noop.c ---- */

/* Rule 3, ops that leave their input unchanged for these parameters. Returns
 * the data input to keep, or -1. */
/* The kinds fl__cf_noop_input can keep an input of. */
bool fl__cf_noop_input_kinds(const fl_node *n);

int fl__cf_noop_input(const fl_node *n, const char **rule);

/* ---- arith.c ---- */

bool fl__cf_simplify_arith_kinds(const fl_node *n);

fl_status fl__cf_simplify_arith(fl_pass_ctx *pc, fl_node *n, bool *done);

bool fl__cf_reduce_div_to_reciprocal_mul_kinds(const fl_node *n);

fl_status fl__cf_reduce_div_to_reciprocal_mul(fl_pass_ctx *pc, fl_node *n, bool *done);

/* ---- push_down.c ---- */

bool fl__cf_constant_push_down_kinds(const fl_node *n);

fl_status fl__cf_constant_push_down(fl_pass_ctx *pc, fl_node *n, bool *done);

bool fl__cf_constant_push_down_bias_add_kinds(const fl_node *n);

fl_status fl__cf_constant_push_down_bias_add(fl_pass_ctx *pc, fl_node *n, bool *done);

bool fl__cf_mul_conv_push_down_kinds(const fl_node *n);

fl_status fl__cf_mul_conv_push_down(fl_pass_ctx *pc, fl_node *n, bool *done);

/* ---- partial.c ---- */

fl_status fl__cf_partial_identity_n(fl_pass_ctx *pc, fl_node *n, bool *done);

bool fl__cf_partial_addn_kinds(const fl_node *n);

fl_status fl__cf_partial_addn(fl_pass_ctx *pc, fl_node *n, bool *done);

bool fl__cf_partial_concat_kinds(const fl_node *n);

fl_status fl__cf_partial_concat(fl_pass_ctx *pc, fl_node *n, bool *done);

bool fl__cf_merge_concat_kinds(const fl_node *n);

fl_status fl__cf_merge_concat(fl_pass_ctx *pc, fl_node *n, bool *done);

/* ---- select_pack_reduction.c ---- */

bool fl__cf_simplify_select_kinds(const fl_node *n);

fl_status fl__cf_simplify_select(fl_pass_ctx *pc, fl_node *n, bool *done);

bool fl__cf_simplify_pack_kinds(const fl_node *n);

fl_status fl__cf_simplify_pack(fl_pass_ctx *pc, fl_node *n, bool *done);

bool fl__cf_is_reduction(int k);

int64_t fl__cf_elems(const fl_shape *s);

bool fl__cf_simplify_reduction_kinds(const fl_node *n);

fl_status fl__cf_simplify_reduction(fl_pass_ctx *pc, fl_node *n, bool *done);

/* ---- materialize.c ---- */

bool fl__cf_materialize_shape_n_kinds(const fl_node *n);

fl_status fl__cf_materialize_shape_n(fl_pass_ctx *pc, fl_node *n, bool *done);

bool fl__cf_materialize_bcast_args_kinds(const fl_node *n);

fl_status fl__cf_materialize_bcast_args(fl_pass_ctx *pc, fl_node *n, bool *done);

bool fl__cf_materialize_reduction_indices_kinds(const fl_node *n);

fl_status fl__cf_materialize_reduction_indices(fl_pass_ctx *pc, fl_node *n, bool *done);

bool fl__cf_materialize_constant_valued_kinds(const fl_node *n);

fl_status fl__cf_materialize_constant_valued(fl_pass_ctx *pc, fl_node *n, bool *done);

/* ---- control_flow.c ---- */

bool fl__cf_materialize_ta_size_kinds(const fl_node *n);

fl_status fl__cf_materialize_ta_size(fl_pass_ctx *pc, fl_node *n, bool *done);

fl_status fl__cf_move_constants_past_enter(fl_pass_ctx *pc, fl_node *n, bool *done);

fl_status fl__cf_simplify_switch(fl_pass_ctx *pc, fl_node *n, bool *done);

fl_status fl__cf_simplify_case(fl_pass_ctx *pc, fl_node *n, bool *done);

/* The variable updates RemoveRedundantVariableUpdates knows (Grappler's
 * kVariableReadOps; its ScatterNdMul/Div and ResourceScatterNdMul/Div are
 * not TensorFlow ops): 1 for the ref forms, 2 for the resource forms, 0 for
 * the others. */
int fl__cf_variable_update_form(int kind);

fl_status fl__cf_remove_redundant_variable_update(fl_pass_ctx *pc, fl_node *n, bool *done);

/* ---- constant_folding.c: dispatch by op kind (passes/util.h) ---- */

typedef fl_status (*fl_cf_rule_fn)(fl_pass_ctx *pc, fl_node *n, bool *done);

/* The rules with a kind test (each its first test), in the order the pass
 * runs them: fl__cf_rule_count() of them. */
int fl__cf_rule_count(void);

/* Rule r's kind test; NULL out of range. */
fl_kinds_fn fl__cf_rule_kinds(int r);

/* Rule r; NULL out of range and for fl__cf_noop_input (not a rule_fn: the
 * pass turns the node it names into an Identity). */
fl_cf_rule_fn fl__cf_rule_run(int r);

/* The rules (bit r: rule r) a node of n's op can match. */
uint32_t fl__cf_rules_of(const fl_node *n);

#endif
