/*
 * arith.h - what the files of passes/arith/ (Grappler's ArithmeticOptimizer,
 * entry point fl__pass_arithmetic_optimizer in arithmetic_optimizer.c)
 * share: the sweep state (state.c), the predicates (predicates.c), and the
 * stages each file provides to the driver. Private to passes/arith/.
 */
#ifndef FL_PASSES_ARITH_ARITH_H
#define FL_PASSES_ARITH_ARITH_H

#include "ops/common.h"
#include "passes/util.h"

/* A tree of Add (or Mul) nodes that AddOpsRewrite or MinimizeBroadcasts
 * collects from a root. */
typedef struct add_group {
    fl_node **members; /* absorbed nodes */
    size_t n_members, cap_members;
    fl_input *inputs; /* leaves, left to right */
    size_t n_inputs, cap_inputs;
} add_group;

typedef struct ao {
    fl_pass_ctx *pc;
    fl_graph *g;
    size_t cap;                        /* entries of the arrays below (node ids) */
    uint32_t *uses;                    /* data edges reading any output of the node */
    uint32_t *ctrl_uses;               /* control edges on the node */
    fl_input *fwd;                     /* forwarding: node -> tensor its consumers read */
    const struct fl_kind_table *kinds; /* the stages of each kind (fl__ao_stages_of) */
    size_t n_fwd;                      /* entries fl__ao_forward set (none: resolving is a no-op) */
    /* The group the stage at hand collects (one at a time), emptied by
     * fl__ao_group_reset: its arrays are reused from one root to the next, so the
     * sweep allocates only when a group is larger than any before. */
    add_group grp;
} ao;

#define ADD_OPS_TAG "_grappler_ArithmeticOptimizer_AddOpsRewriteStage"

/* Dispatch by op kind (passes/util.h): each stage starts with its kind
 * test; a node meets only the stages whose test its op passes. */

/* The stages, in the order the driver runs them: the forward sweep's
 * (FL_AO_VISIT of them, in Grappler's order), then the first reverse
 * sweep's AddOpsRewrite, MinimizeBroadcasts and ReplacePackWithTileReshape,
 * then the last reverse sweep's UnaryOpsComposition. */
enum {
    FL_AO_VISIT = 23,
    FL_AO_ADD_OPS = FL_AO_VISIT,
    FL_AO_MIN_BCAST,
    FL_AO_PACK,
    FL_AO_UNARY_COMPOSE,
    FL_AO_STAGES
};

typedef fl_status (*fl_ao_stage_fn)(ao *a, fl_node *n, bool *fired);

/* Stage s's kind test (s < FL_AO_STAGES), for the dispatch table and its
 * test; NULL out of range. */
fl_kinds_fn fl__ao_stage_kinds(int s);

/* Forward-sweep stage s (s < FL_AO_VISIT); NULL otherwise. */
fl_ao_stage_fn fl__ao_stage_run(int s);

/* The stages (bit s: stage s) a node of n's op can match. */
uint32_t fl__ao_stages_of(const fl_node *n);

/* The table fl__ao_stages_of reads (built at the first call). */
const struct fl_kind_table *fl__ao_stage_table(void);

/* ---- state.c ---- */

fl_status fl__ao_oom(ao *a);

fl_status fl__ao_init(ao *a, fl_pass_ctx *pc);

/* Releases the per-node arrays of a (after fl__ao_init, failed or not, or
 * on an ao of zeroes). */
void fl__ao_free(ao *a);

void fl__ao_resolve_inputs(ao *a, fl_node *m);

size_t fl__ao_n_uses(const ao *a, const fl_node *n);

/* Single data consumer, no control edges, not preserved: safe to absorb. */
bool fl__ao_absorbable(const ao *a, const fl_node *n);

bool fl__ao_can_forward(const ao *a, const fl_node *n);

/* Marks m removed and drops the edges it held. */
void fl__ao_remove(ao *a, fl_node *m);

/* m's data consumers read `to` from now on (its control consumers wait on
 * to's node); m is removed. */
void fl__ao_forward(ao *a, fl_node *m, fl_input to);

fl_status fl__ao_set_input(ao *a, fl_node *n, int k, fl_input in);

fl_status fl__ao_set_inputs(ao *a, fl_node *n, int n_in, const fl_input *in);

fl_status fl__ao_add_ctrl(ao *a, fl_node *n, fl_node *dep);

/* Copies the control inputs of `from` onto n. */
fl_status fl__ao_forward_ctrl(ao *a, fl_node *n, const fl_node *from);

fl_status fl__ao_set_attr(ao *a, fl_node *n, fl_attr at);

/* "<scope>/ArithmeticOptimizer/<prefix>_<base name>" for node name `of`. */
const char *fl__ao_opt_name(ao *a, const char *of, const char *prefix);

/* Adds node `name` (made unique) of op `op` on n's device with the given
 * inputs and one output; counts it as added. */
fl_node *fl__ao_add(ao *a, const char *name, const char *op, const char *device, int n_in,
                    const fl_input *in);

/* A copy of n (op, device, attrs; inputs and control inputs) named `name`. */
fl_node *fl__ao_copy(ao *a, const char *name, const fl_node *n);

/* A scalar or shaped Const node holding `v` (dtype v->dtype). */
fl_node *fl__ao_add_const(ao *a, const char *name, const char *device, const fl_value *v);

/* ---- predicates.c ---- */

bool fl__ao_is_complex(int dt);

/* Whether n runs on CPU: its device type, or the target device when the
 * device string is empty (as the remapper). */
bool fl__ao_on_cpu(const ao *a, const fl_node *n);

/* A Const whose value is known. */
const fl_value *fl__ao_const_value(const fl_node *n);

/* Every element of v is x (v of a real floating or integer dtype). Unlike
 * fl__value_all_equal, which constant folding uses for Grappler's
 * IsOnes/IsZeros and which holds for an empty value, an empty or complex
 * value is never "all x" for the arithmetic stages (kept as the stages have
 * always had it). */
bool fl__ao_value_all(const fl_value *v, double x);

bool fl__ao_shape_concrete(const fl_shape *s);

bool fl__ao_dim_is_one(fl_sym d);

/* Grappler's ShapesBroadcastable: both shapes symbolically defined and every
 * aligned pair of dims equal or one of them 1. */
bool fl__ao_bcastable(const fl_shape *x, const fl_shape *y);

/* Broadcasting y onto x gives x's shape (known ranks and dims). */
bool fl__ao_bcast_keeps(const fl_shape *x, const fl_shape *y);

/* Grappler's CompareSymbolicallyShapedTensorSizes: left is fl__ao_smaller. Known
 * dims multiply; symbolic dims cancel pairwise between the shapes. */
bool fl__ao_smaller(const fl_shape *l, const fl_shape *r);

bool fl__ao_same_sig(const fl_shape *x, const fl_shape *y);

bool fl__ao_involution(const fl_node *n);

/* Appendix A: value-preserving ops. */
bool fl__ao_value_preserving(const fl_node *n);

/* Element-wise fl__ao_monotonic: 1 non-decreasing, -1 non-increasing, 0 neither. */
int fl__ao_monotonic(const fl_node *n);

const char *fl__ao_inverse_cmp(int kind);

/* Whether perm2 after perm1 (both constant) is the identity. */
bool fl__ao_perms_cancel(const fl_node *outer, const fl_node *inner);

/* Rewrites n in place into op(inputs) with attr T (and no other attrs). */
fl_status fl__ao_become(ao *a, fl_node *n, const char *op, int n_in, const fl_input *in);

/* Turns data input k of n into a control input on its node. */
fl_status fl__ao_input_to_ctrl(ao *a, fl_node *n, int k);

/* Idempotent ops (Appendix A) free of side effects. */
bool fl__ao_idempotent(const fl_node *n);

/* ---- tile.c ---- */

/* A node whose consumers may be moved to a replacement: not preserved, one
 * output (its control inputs are copied onto the replacement by the caller,
 * its control consumers follow the forward). */
bool fl__ao_replaceable(const fl_node *n);

/* The elements of a Const of dtype int32 (int64 too when int64_ok), at most
 * `max` of them: the count, or -1. */
int fl__ao_const_ints(const fl_node *c, bool int64_ok, int64_t *out, int max);

/* An int32 Const: a vector of n elements (rank 1) or a scalar (rank 0). */
fl_node *fl__ao_add_i32(ao *a, const char *name, const char *device, int rank, const int64_t *vals,
                        int n);

/* fl__ao_opt_name with a rule suffix: "<scope>/ArithmeticOptimizer/<stage>_<rule>_<base>". */
const char *fl__ao_opt_name2(ao *a, const char *of, const char *stage, const char *rule);

bool fl__ao_exists(const ao *a, const char *name);

/* Sets attr `name` to dtype dt. */
fl_status fl__ao_set_type(ao *a, fl_node *n, const char *name, int dt);

/* Replaces n by `to` (a node this stage created): n's control inputs move to
 * `to`, its consumers read `to`, n is removed. */
fl_status fl__ao_replace_by(ao *a, fl_node *n, fl_node *to);

bool fl__ao_replace_pack_with_tile_reshape_kinds(const fl_node *n);

fl_status fl__ao_replace_pack_with_tile_reshape(ao *a, fl_node *n, bool *fired);

bool fl__ao_replace_mul_with_tile_kinds(const fl_node *n);

fl_status fl__ao_replace_mul_with_tile(ao *a, fl_node *n, bool *fired);

bool fl__ao_reduce_upsampling_dims_kinds(const fl_node *n);

fl_status fl__ao_reduce_upsampling_dims(ao *a, fl_node *n, bool *fired);

/* ---- add_ops.c ---- */

bool fl__ao_inputs_bcast_to(const fl_node *n);

add_group *fl__ao_group_reset(ao *a);

fl_status fl__ao_group_push(ao *a, void **arr, size_t *n, size_t *cap, size_t elem, const void *x);

bool fl__ao_add_ops_rewrite_kinds(const fl_node *n);

fl_status fl__ao_add_ops_rewrite(ao *a, fl_node *root, bool *fired);

/* ---- fold_into.c ---- */

bool fl__ao_fold_multiply_into_conv_kinds(const fl_node *n);

fl_status fl__ao_fold_multiply_into_conv(ao *a, fl_node *conv, bool *fired);

bool fl__ao_fold_transpose_into_matmul_kinds(const fl_node *n);

fl_status fl__ao_fold_transpose_into_matmul(ao *a, fl_node *n, bool *fired);

bool fl__ao_fold_conjugate_into_transpose_kinds(const fl_node *n);

fl_status fl__ao_fold_conjugate_into_transpose(ao *a, fl_node *n, bool *fired);

/* onnx.c: the forwarding and neutral-element rules over ONNX operators. */
bool fl__ao_onnx_kinds(const fl_node *n);

fl_status fl__ao_onnx(ao *a, fl_node *n, bool *fired);

/* ---- elementwise.c ---- */

bool fl__ao_bitcast_of_bitcast_kinds(const fl_node *n);

fl_status fl__ao_bitcast_of_bitcast(ao *a, fl_node *n, bool *fired);

bool fl__ao_aggregation_of_copies_kinds(const fl_node *n);

fl_status fl__ao_aggregation_of_copies(ao *a, fl_node *n, bool *fired);

bool fl__ao_convert_pow_kinds(const fl_node *n);

fl_status fl__ao_convert_pow(ao *a, fl_node *n, bool *fired);

bool fl__ao_convert_log1p_kinds(const fl_node *n);

fl_status fl__ao_convert_log1p(ao *a, fl_node *n, bool *fired);

bool fl__ao_convert_expm1_kinds(const fl_node *n);

fl_status fl__ao_convert_expm1(ao *a, fl_node *n, bool *fired);

bool fl__ao_max_or_min_of_monotonic_kinds(const fl_node *n);

fl_status fl__ao_max_or_min_of_monotonic(ao *a, fl_node *r, bool *fired);

/* ---- reorder.c ---- */

/* Appendix A: unary element-wise (including the value+order+shape preserving
 * ops). */
bool fl__ao_unary_elementwise(const fl_node *n);

bool fl__ao_modifies_frame(const fl_node *n);

bool fl__ao_reshape_of_reshape_kinds(const fl_node *n);

fl_status fl__ao_reshape_of_reshape(ao *a, fl_node *n, bool *fired);

bool fl__ao_reorder_cast_like_kinds(const fl_node *n);

fl_status fl__ao_reorder_cast_like(ao *a, fl_node *c, bool *fired);

bool fl__ao_sqrt_div_to_rsqrt_mul_kinds(const fl_node *n);

fl_status fl__ao_sqrt_div_to_rsqrt_mul(ao *a, fl_node *n, bool *fired);

/* ---- slice_segment.c ---- */

bool fl__ao_remove_stack_slice_same_axis_kinds(const fl_node *n);

fl_status fl__ao_remove_stack_slice_same_axis(ao *a, fl_node *n, bool *fired);

bool fl__ao_simplify_embedding_lookup_kinds(const fl_node *n);

fl_status fl__ao_simplify_embedding_lookup(ao *a, fl_node *r, bool *fired);

bool fl__ao_remove_cast_into_segment_reduction_kinds(const fl_node *n);

fl_status fl__ao_remove_cast_into_segment_reduction(ao *a, fl_node *r, bool *fired);

/* ---- min_bcast.c ---- */

bool fl__ao_minimize_broadcasts_kinds(const fl_node *n);

fl_status fl__ao_minimize_broadcasts(ao *a, fl_node *root, bool *claimed);

/* ---- hoist.c ---- */

bool fl__ao_is_concat(const fl_node *n);

bool fl__ao_is_split(const fl_node *n);

/* HoistCWiseUnaryChains (20), on a Concat/ConcatV2 or a Split/SplitV. */
fl_status fl__ao_hoist_cwise_unary_chains(ao *a, fl_node *r);

/* ---- unary_compose.c ---- */

bool fl__ao_unary_ops_composition_kinds(const fl_node *n);

fl_status fl__ao_unary_ops_composition(ao *a, fl_node *root, bool *fused);

#endif
