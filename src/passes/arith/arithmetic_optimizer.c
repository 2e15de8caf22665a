/*
 * arithmetic_optimizer.c - Grappler's ArithmeticOptimizer
 * (grappler/optimizers/arithmetic_optimizer.cc), the default-on stages that are exact on foldline's
 * IR: the pass's entry point, the order of the stages, and the small stages that only forward a
 * node or rewrite it in place. The other stages live in the files of
 * passes/arith/, one per stage or family, each with its rules in its header.
 *
 * Driver. Grappler pops nodes from the end of the topologically sorted graph
 * (consumers first) and runs each through the stages in a fixed order; the
 * first stage that fires wins. Here: one sweep in reverse topological order
 * runs the stages that must see the consumer-most node of a group first
 * (AddOpsRewrite, then MinimizeBroadcasts, from the roots of Add/Mul trees;
 * ReplacePackWithTileReshape from the outermost Pack of a chain), then one
 * sweep in topological order runs every other stage in Grappler's order
 * (a root MinimizeBroadcasts took is skipped there, as Grappler's pipeline
 * stops at it), then one more reverse sweep runs UnaryOpsComposition (stage
 * 28, near the end of Grappler's order) from the last op of each chain.
 * HoistCWiseUnaryChains (20) runs consumer-first as in Grappler's LIFO
 * queue: on a Concat in the first reverse sweep (Grappler pops the Concat
 * before the chains feeding it, so the hoist precedes every stage on them),
 * on a Split in the last one, just before its producers' UnaryOpsComposition
 * (Grappler pops a Split after the chains it feeds, so those chains have met
 * the other stages, UnaryOpsComposition included, first). Use
 * counts (data edges and control edges per node) are kept exact through the
 * sweeps (state.c), so the single-consumer conditions hold for the graph as
 * rewritten so far. Nodes created by a stage are not revisited in the same
 * sweep (the pipeline's second iteration sees them). A node meets only the
 * stages whose kind test its op passes (passes/util.h, "dispatch by op kind"):
 * each stage's first test, asked of every registered kind once per process.
 *
 * "Forward" means the node's consumers read the given tensor instead and the
 * node is removed (it must not be preserved and must have no control inputs
 * or control consumers); "in place" means the node keeps its name and
 * becomes the new op (allowed on a preserved node only when its dtype and
 * shape stay the same); "replaced" means the consumers (and control
 * consumers) move to a new node that takes the node's control inputs. New
 * nodes are named as Grappler names them:
 * "<scope>/ArithmeticOptimizer/<Stage>_<rule>_<name>". Ledger rules carry the
 * stage's option name (rewriter_config's flag). A stage that would need an
 * unknown value or shape does not fire.
 *
 * Stages in this file:
 *  - remove_identity_transpose (7): Transpose(Transpose(x, p1), p2) whose
 *    constant perms compose to the identity -> forward x.
 *  - remove_involution (8): f(f(x)) for Neg, Reciprocal, Conj, Invert,
 *    LogicalNot -> forward x.
 *  - remove_redundant_bitcast (9): Bitcast with T == type -> forward its
 *    input (the Bitcast(Bitcast(x)) half is in elementwise.c).
 *  - remove_redundant_cast (10): Cast with SrcT == DstT -> forward its input.
 *  - remove_redundant_reshape (14): Reshape or BroadcastTo whose input shape
 *    equals its output shape (symbolically) -> forward its input (the
 *    bypass half is in reorder.c).
 *  - remove_negation (15): x + Neg(y) -> Sub(x, y); x - Neg(y) -> AddV2(x, y),
 *    in place (Add/AddV2/Sub, same dtype).
 *  - replace_mul_with_square (16): Mul(x, x), not complex -> Square(x) in
 *    place.
 *  - remove_logical_not (17): LogicalNot(cmp(a, b)) with the comparison read
 *    only there -> the inverse comparison in place (Equal<->NotEqual,
 *    Less->GreaterEqual, LessEqual->Greater, Greater->LessEqual,
 *    GreaterEqual->Less).
 *  - simplify_aggregation (19): AddN with one input -> forward it (copies of
 *    one tensor: elementwise.c).
 *  - remove_idempotent (22): f(f(x)) for Identity, Snapshot, StopGradient,
 *    PreventGradient, DebugGradientIdentity on the same device -> forward
 *    f(x) (CheckNumerics, DeepCopy and Print are left: stateful).
 *  - convert_log_softmax (25): Log(Softmax(x)) with the Softmax read only
 *    there -> LogSoftmax(x) in place.
 *  - fuse_squared_diff (32): Square(Sub(a, b)) with the Sub read only there,
 *    not complex -> SquaredDifference(a, b) in place.
 * Elsewhere: combine_add_to_addn (1, add_ops.c); fold_conjugate_into_
 * transpose (2), fold_multiply_into_conv (3), fold_transpose_into_matmul (4)
 * (fold_into.c); minimize_broadcasts (6, min_bcast.c); replace_pack_with_
 * tile_reshape (11), replace_mul_with_tile (12), reduce_upsampling_dims (13)
 * (tile.c); the bypass half of 14, reorder_cast_like_and_value_preserving
 * (18), convert_sqrt_div_to_rsqrt_mul (21) (reorder.c); the copies half of
 * 19, remove_redundant_bitcast's Bitcast(Bitcast), convert_pow (23),
 * convert_log1p (24), optimize_max_or_min_of_monotonic (26), convert_expm1
 * (27) (elementwise.c); hoist_cwise_unary_chains (20, hoist.c);
 * unary_ops_composition (28, unary_compose.c); remove_stack_slice_same_axis
 * (29), simplify_embedding_lookup (30), remove_cast_into_segment_reduction
 * (31) (slice_segment.c).
 *
 * Off by default in TensorFlow, so not run: HoistCommonFactorOutOfAggregation
 * (AGGRESSIVE level only in recent TensorFlow; the AddN-of-equal-inputs
 * rewrite belongs to simplify_aggregation, above), ReorderReshapeAroundUnary
 * (newest snapshots only).
 *
 * Every default-on stage of the reference snapshot is implemented.
 */
#include "passes/arith/arith.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The forwarding stages of one group (0: 7-10, 1: 14, 2: 19, 3: 22): returns
 * the tensor n's consumers should read, with *rule set, or an input with
 * node NULL. */
static fl_input forward_target(const ao *a, const fl_node *n, int group, const char **rule) {
    fl_input none = {NULL, 0};
    if (!fl__ao_can_forward(a, n) || n->n_inputs < 1) {
        return none;
    }
    if (group == 3) {
        const fl_node *in = n->inputs[0].node;
        if (n->n_inputs == 1 && fl__ao_idempotent(n) && strcmp(in->op, n->op) == 0 &&
            fl__same_device(in, n)) {
            *rule = "remove_idempotent";
            return n->inputs[0];
        }
        return none;
    }
    const fl_tensor *x = fl_node_in(n, 0);
    const fl_tensor *out = &n->outputs[0];
    const fl_node *in = n->inputs[0].node;
    if (group == 0 && n->kind == FL_OP_TRANSPOSE && in->kind == FL_OP_TRANSPOSE &&
        n->n_inputs == 2 && in->n_inputs == 2 && fl__ao_perms_cancel(n, in)) {
        *rule = "remove_identity_transpose";
        return in->inputs[0];
    }
    if (group == 0 && fl__ao_involution(n) && n->n_inputs == 1 && strcmp(in->op, n->op) == 0 &&
        in->n_inputs == 1 && n->inputs[0].port == 0) {
        *rule = "remove_involution";
        return in->inputs[0];
    }
    if (group == 0 && fl__is_pass_op(n, FL_POP_BITCAST) && n->n_inputs == 1 &&
        fl__attr_type(n, "T") != FL_DT_INVALID &&
        fl__attr_type(n, "T") == fl__attr_type(n, "type")) {
        *rule = "remove_redundant_bitcast";
        return n->inputs[0];
    }
    if (group == 0 && n->kind == FL_OP_CAST && x->dtype == out->dtype &&
        x->dtype != FL_DT_INVALID) {
        *rule = "remove_redundant_cast";
        return n->inputs[0];
    }
    if (group == 1 && (n->kind == FL_OP_RESHAPE || n->kind == FL_OP_BROADCAST_TO) &&
        fl__shape_same(&x->shape, &out->shape) && x->dtype == out->dtype) {
        *rule = "remove_redundant_reshape";
        return n->inputs[0];
    }
    if (group == 2 && n->kind == FL_OP_ADD_N && n->n_inputs == 1 && x->dtype == out->dtype) {
        *rule = "simplify_aggregation";
        return n->inputs[0];
    }
    return none;
}

/* The older in-place stages (15, 16, 17, 25, 32). */
static bool rewrite_kinds(const fl_node *n) {
    switch (n->kind) {
    case FL_OP_MUL:
    case FL_OP_ADD:
    case FL_OP_ADD_V2:
    case FL_OP_SUB:
    case FL_OP_SQUARE:
    case FL_OP_LOG:
    case FL_OP_LOGICAL_NOT:
        return true;
    default:
        return false;
    }
}

static fl_status rewrite(ao *a, fl_node *n, bool *fired) {
    if (!rewrite_kinds(n) || fl__preserved(n) || n->n_outputs != 1 || n->n_inputs < 1) {
        return FL_OK;
    }
    int dt = fl_node_in(n, 0)->dtype;
    const fl_node *in0 = n->inputs[0].node;
    if (n->kind == FL_OP_MUL && n->n_inputs == 2 && n->inputs[0].node == n->inputs[1].node &&
        n->inputs[0].port == n->inputs[1].port && !fl__ao_is_complex(dt)) {
        fl__ledger_note(a->pc, "replace_mul_with_square", n, "Mul(x, x) -> Square(x)");
        fl_input x = n->inputs[0];
        *fired = true;
        return fl__ao_become(a, n, fl__op_name(FL_OP_SQUARE), 1, &x);
    }
    if ((n->kind == FL_OP_ADD || n->kind == FL_OP_ADD_V2 || n->kind == FL_OP_SUB) &&
        n->n_inputs == 2 && n->inputs[1].node->kind == FL_OP_NEG &&
        n->inputs[1].node->n_inputs == 1 && (int)fl_node_in(n, 1)->dtype == dt &&
        dt != FL_DT_STRING) {
        const char *op = n->kind == FL_OP_SUB ? fl__op_name(FL_OP_ADD_V2) : fl__op_name(FL_OP_SUB);
        fl_input in[2] = {n->inputs[0], n->inputs[1].node->inputs[0]};
        fl__ledger_note(a->pc, "remove_negation", n, "%s(x, Neg(y)) -> %s(x, y)", n->op, op);
        *fired = true;
        return fl__ao_become(a, n, op, 2, in);
    }
    if (n->kind == FL_OP_SQUARE && in0->kind == FL_OP_SUB && in0->n_inputs == 2 &&
        fl__ao_absorbable(a, in0) && !fl__ao_is_complex(dt)) {
        fl_input in[2] = {in0->inputs[0], in0->inputs[1]};
        fl__ledger_note(a->pc, "fuse_squared_diff", n,
                        "Square(Sub(a, b)) -> SquaredDifference(a, b)");
        *fired = true;
        return fl__ao_become(a, n, fl__op_name(FL_OP_SQUARED_DIFFERENCE), 2, in);
    }
    if (n->kind == FL_OP_LOG && in0->kind == FL_OP_SOFTMAX && in0->n_inputs == 1 &&
        fl__ao_absorbable(a, in0)) {
        fl_input x = in0->inputs[0];
        fl__ledger_note(a->pc, "convert_log_softmax", n, "Log(Softmax(x)) -> LogSoftmax(x)");
        *fired = true;
        return fl__ao_become(a, n, fl__op_name(FL_OP_LOG_SOFTMAX), 1, &x);
    }
    const char *inv = n->kind == FL_OP_LOGICAL_NOT ? fl__ao_inverse_cmp(in0->kind) : NULL;
    if (inv && in0->n_inputs == 2 && fl__ao_absorbable(a, in0)) {
        fl_input in[2] = {in0->inputs[0], in0->inputs[1]};
        int t = fl_node_in(in0, 0)->dtype;
        fl__ledger_note(a->pc, "remove_logical_not", n, "LogicalNot(%s) -> %s", in0->op, inv);
        *fired = true;
        fl_status st = fl__ao_become(a, n, inv, 2, in);
        return st == FL_OK ? fl__ao_set_attr(a, n, fl__attr_make_type(a->g, "T", t)) : st;
    }
    return FL_OK;
}

/* The kinds forward_target can match in each group. */
static bool forward_kinds(const fl_node *n, int group) {
    switch (group) {
    case 0:
        return n->kind == FL_OP_TRANSPOSE || fl__ao_involution(n) ||
               fl__is_pass_op(n, FL_POP_BITCAST) || n->kind == FL_OP_CAST;
    case 1:
        return n->kind == FL_OP_RESHAPE || n->kind == FL_OP_BROADCAST_TO;
    case 2:
        return n->kind == FL_OP_ADD_N;
    default:
        return fl__ao_idempotent(n);
    }
}

static fl_status forward_group(ao *a, fl_node *m, bool *fired, int group) {
    if (!forward_kinds(m, group)) {
        return FL_OK;
    }
    const char *rule = NULL;
    fl_input to = forward_target(a, m, group, &rule);
    if (to.node) {
        fl__ledger_note(a->pc, rule, m, "%s removed; consumers read '%s'", m->op, to.node->name);
        fl__ao_forward(a, m, to);
        *fired = true;
    }
    return FL_OK;
}

static bool fwd_early_kinds(const fl_node *n) {
    return forward_kinds(n, 0);
}

static bool fwd_reshape_kinds(const fl_node *n) {
    return forward_kinds(n, 1);
}

static bool fwd_addn_kinds(const fl_node *n) {
    return forward_kinds(n, 2);
}

static bool fwd_idempotent_kinds(const fl_node *n) {
    return forward_kinds(n, 3);
}

static fl_status fwd_early(ao *a, fl_node *m, bool *fired) {
    return forward_group(a, m, fired, 0);
}

static fl_status fwd_reshape(ao *a, fl_node *m, bool *fired) {
    return forward_group(a, m, fired, 1);
}

static fl_status fwd_addn(ao *a, fl_node *m, bool *fired) {
    return forward_group(a, m, fired, 2);
}

static fl_status fwd_idempotent(ao *a, fl_node *m, bool *fired) {
    return forward_group(a, m, fired, 3);
}

/* The forward sweep's stages in Grappler's order, each with its kind test;
 * then the kind tests of the reverse sweeps' stages (FL_AO_ADD_OPS on). */
static const struct {
    fl_ao_stage_fn run;
    fl_kinds_fn kinds;
} stages[FL_AO_STAGES] = {
    {fl__ao_onnx, fl__ao_onnx_kinds},
    {fl__ao_fold_conjugate_into_transpose, fl__ao_fold_conjugate_into_transpose_kinds},
    {fl__ao_fold_multiply_into_conv, fl__ao_fold_multiply_into_conv_kinds},
    {fl__ao_fold_transpose_into_matmul, fl__ao_fold_transpose_into_matmul_kinds},
    {fwd_early, fwd_early_kinds},
    {fl__ao_bitcast_of_bitcast, fl__ao_bitcast_of_bitcast_kinds},
    {fl__ao_replace_mul_with_tile, fl__ao_replace_mul_with_tile_kinds},
    {fl__ao_reduce_upsampling_dims, fl__ao_reduce_upsampling_dims_kinds},
    {fwd_reshape, fwd_reshape_kinds},
    {fl__ao_reshape_of_reshape, fl__ao_reshape_of_reshape_kinds},
    {rewrite, rewrite_kinds},
    {fl__ao_reorder_cast_like, fl__ao_reorder_cast_like_kinds},
    {fwd_addn, fwd_addn_kinds},
    {fl__ao_aggregation_of_copies, fl__ao_aggregation_of_copies_kinds},
    {fl__ao_sqrt_div_to_rsqrt_mul, fl__ao_sqrt_div_to_rsqrt_mul_kinds},
    {fwd_idempotent, fwd_idempotent_kinds},
    {fl__ao_convert_pow, fl__ao_convert_pow_kinds},
    {fl__ao_convert_log1p, fl__ao_convert_log1p_kinds},
    {fl__ao_max_or_min_of_monotonic, fl__ao_max_or_min_of_monotonic_kinds},
    {fl__ao_convert_expm1, fl__ao_convert_expm1_kinds},
    {fl__ao_remove_stack_slice_same_axis, fl__ao_remove_stack_slice_same_axis_kinds},
    {fl__ao_simplify_embedding_lookup, fl__ao_simplify_embedding_lookup_kinds},
    {fl__ao_remove_cast_into_segment_reduction, fl__ao_remove_cast_into_segment_reduction_kinds},
    [FL_AO_ADD_OPS] = {NULL, fl__ao_add_ops_rewrite_kinds},
    [FL_AO_MIN_BCAST] = {NULL, fl__ao_minimize_broadcasts_kinds},
    [FL_AO_PACK] = {NULL, fl__ao_replace_pack_with_tile_reshape_kinds},
    [FL_AO_UNARY_COMPOSE] = {NULL, fl__ao_unary_ops_composition_kinds},
};

_Static_assert(FL_AO_STAGES <= 32, "a stage is a bit of a uint32_t");

fl_kinds_fn fl__ao_stage_kinds(int s) {
    return s >= 0 && s < FL_AO_STAGES ? stages[s].kinds : NULL;
}

fl_ao_stage_fn fl__ao_stage_run(int s) {
    return s >= 0 && s < FL_AO_VISIT ? stages[s].run : NULL;
}

static fl_kind_table stage_table;
static pthread_once_t stage_table_once = PTHREAD_ONCE_INIT;

static void stage_table_build(void) {
    fl_kinds_fn tests[FL_AO_STAGES];
    for (int s = 0; s < FL_AO_STAGES; s++) {
        tests[s] = stages[s].kinds;
    }
    fl__kind_table_build(&stage_table, tests, FL_AO_STAGES);
}

const fl_kind_table *fl__ao_stage_table(void) {
    pthread_once(&stage_table_once, stage_table_build);
    return &stage_table;
}

uint32_t fl__ao_stages_of(const fl_node *n) {
    return fl__kind_table_rules(fl__ao_stage_table(), n, 0, FL_AO_STAGES);
}

/* One node through the stages its kind can match, in Grappler's order; the
 * first that fires wins. (The stages are asked again when a stage that ran
 * changed the node's op: the table holds for the op each stage starts on.) */
static fl_status visit(ao *a, fl_node *m) {
    bool fired = false;
    const char *op = m->op;
    uint32_t run = fl__kind_table_rules(a->kinds, m, 0, FL_AO_VISIT);
    /* the set bits in order (run holds only bits 0..FL_AO_VISIT-1) */
    while (run) {
        int s = __builtin_ctz(run);
        fl_status st = stages[s].run(a, m, &fired);
        if (st != FL_OK || fired) {
            return st;
        }
        if (m->op != op) {
            op = m->op;
            run = fl__kind_table_rules(a->kinds, m, 0, FL_AO_VISIT);
        }
        run &= ~((2u << s) - 1); /* the stages after s */
    }
    return FL_OK;
}

/* Whether stage s (of the reverse sweeps) can match m. */
static bool has_stage(const ao *a, const fl_node *m, int s) {
    return fl__kind_table_rules(a->kinds, m, s, s + 1) != 0;
}

static fl_status optimize(fl_pass_ctx *pc, ao *a) {
    fl_graph *g = pc->c->g;
    size_t n = g->n_nodes;
    const bool *snap = fl__consumed_snapshot(pc);
    if (!snap) {
        return fl__diag_oom(pc->c->d);
    }
    fl_status st = fl__ao_init(a, pc);
    if (st != FL_OK) {
        return st;
    }
    a->kinds = fl__ao_stage_table();
    fl_node **order = g->order;
    /* claimed: roots MinimizeBroadcasts took (Grappler's pipeline stops
     * there); fused: nodes already in a unary composition */
    bool *claimed = fl__arena_calloc(pc->c->a, n + 1, sizeof(bool));
    bool *fused = fl__arena_calloc(pc->c->a, n + 1, sizeof(bool));
    if (!claimed || !fused) {
        return fl__diag_oom(pc->c->d);
    }
    /* Reverse sweep: the stages that must see the consumer-most node of a
     * group first (AddOpsRewrite from the roots of Add trees,
     * ReplacePackWithTileReshape from the outermost Pack of a chain). */
    for (size_t i = n; i-- > 0;) {
        fl_node *m = order[i];
        if (m->flags & FL_NODE_REMOVED) {
            continue;
        }
        bool fired = false;
        if (has_stage(a, m, FL_AO_ADD_OPS)) {
            st = fl__ao_add_ops_rewrite(a, m, &fired);
        }
        if (st == FL_OK && !fired && has_stage(a, m, FL_AO_MIN_BCAST)) {
            st = fl__ao_minimize_broadcasts(a, m, &claimed[m->id]);
        }
        if (st == FL_OK && !fired && has_stage(a, m, FL_AO_PACK)) {
            st = fl__ao_replace_pack_with_tile_reshape(a, m, &fired);
        }
        if (st == FL_OK && !fired && fl__ao_is_concat(m)) {
            st = fl__ao_hoist_cwise_unary_chains(a, m);
        }
        if (st != FL_OK) {
            return st;
        }
    }
    /* Forward sweep: every other stage. */
    for (size_t i = 0; i < n; i++) {
        fl_node *m = order[i];
        if (m->flags & FL_NODE_REMOVED) {
            continue;
        }
        fl__ao_resolve_inputs(a, m);
        st = claimed[m->id] ? FL_OK : visit(a, m);
        if (st != FL_OK) {
            return st;
        }
    }
    /* UnaryOpsComposition (28, CPU) from the consumer-most op of a chain,
     * after the other stages. */
    for (size_t i = n; i-- > 0;) {
        fl_node *m = order[i];
        if (m->flags & FL_NODE_REMOVED) {
            continue;
        }
        fl__ao_resolve_inputs(a, m);
        if (fl__ao_is_split(m)) {
            st = fl__ao_hoist_cwise_unary_chains(a, m);
        } else if (has_stage(a, m, FL_AO_UNARY_COMPOSE)) {
            st = fl__ao_unary_ops_composition(a, m, fused);
        }
        if (st != FL_OK) {
            return st;
        }
    }
    for (size_t i = 0; i < g->n_nodes; i++) {
        fl__ao_resolve_inputs(a, g->nodes[i]);
    }
    g->order = NULL;
    return fl__remove_dead(pc, snap, n, "remove_dead");
}

fl_status fl__pass_arithmetic_optimizer(fl_pass_ctx *pc) {
    ao a;
    memset(&a, 0, sizeof(a));
    fl_status st = optimize(pc, &a);
    fl__ao_free(&a);
    return st;
}

/* The skip test (pass.h). Every rewrite of the pass starts at a node whose
 * kind passes one of its stages' kind tests (fl__ao_stages_of: the forward
 * sweep's stages, AddOpsRewrite, MinimizeBroadcasts,
 * ReplacePackWithTileReshape, UnaryOpsComposition) or at a Concat or Split
 * (HoistCWiseUnaryChains); remove_dead and the forwarding only follow the
 * pass's own rewrites. The patterns reach several nodes from their root, so
 * the test is the graph's: one without such a node gives no work, whatever
 * changed (its marks are not read). A max or min (MaxPool, ArgMax, Max, ...)
 * counts only when its input is monotonic (fl__ao_monotonic of the node it
 * reads: the stage's first test beyond the root, and the only stage such a
 * root has). */
bool fl__arithmetic_optimizer_may_work(const fl_graph *g, const uint8_t *mark) {
    (void)mark;
    uint32_t mono = 0; /* OptimizeMaxOrMinOfMonotonic's bit */
    for (int s = 0; s < FL_AO_STAGES; s++) {
        mono |= stages[s].kinds == fl__ao_max_or_min_of_monotonic_kinds ? 1u << s : 0;
    }
    for (size_t i = 0; i < g->n_nodes; i++) {
        const fl_node *m = g->nodes[i];
        uint32_t run = fl__ao_stages_of(m);
        /* OptimizeMaxOrMinOfMonotonic needs a monotonic op as its input
         * (its first condition on a node other than the root) */
        if (run == mono && (m->n_inputs < 1 || !fl__ao_monotonic(m->inputs[0].node))) {
            run = 0;
        }
        if (run || fl__ao_is_concat(m) || fl__ao_is_split(m)) {
            return true;
        }
    }
    return false;
}
