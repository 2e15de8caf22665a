/*
 * constant_folding.c - Grappler's ConstantFolding (grappler/optimizers/constant_folding.cc), the
 * parts foldline can do exactly: the pass's entry point and the order its rules run in. Each rule
 * family lives in its own file of passes/constfold/, whose header states the rules (pattern,
 * conditions, names of the nodes it adds) and where foldline deliberately differs from Grappler.
 *
 * One sweep in topological order; for each node the first rule that fires.
 * A node meets only the rules whose kind test its op passes (passes/util.h,
 * "dispatch by op kind"; the fold and the rules before the no-op rewrites in
 * simplify() have none and meet every node).
 * Rule names in the ledger are Grappler's function names where it has one.
 *  0. constant_to_initializer (onnx_constant.c): an ONNX Constant node ->
 *     an initializer (ONNX graphs only).
 *  0b. reshape_fusion (onnx_reshape.c): ONNX Runtime's ReshapeFusion, a
 *     Reshape's shape Concat of constants and Shape/Gather/Unsqueeze dims
 *     of its own input -> a constant with 0 for those dims (ONNX graphs).
 *  1. materialize_shape (fold.c): Shape/Size/Rank whose value shape
 *     inference knows as plain numbers -> Const in place.
 *  2. materializations (3.3; materialize.c, TensorArraySizeV3 in
 *     control_flow.c): MaterializeShapes (ShapeN, TensorArraySizeV3),
 *     MaterializeBroadcastGradientArgs, MaterializeReductionIndices,
 *     MaterializeConstantValuedNode.
 *  3. fold (fold.c): every data input is a Const -> the node's values
 *     become a Const.
 *  4. simplifications (3.4, SimplifyNode order): first those that keep the
 *     node and its outputs, on preserved nodes too
 *     (PartialConstPropThroughIdentityN in partial.c, MoveConstantsPastEnter
 *     and SimplifySwitch and the resource variable updates in
 *     control_flow.c); then, on other nodes, SimplifyCase and
 *     RemoveRedundantVariableUpdates (control_flow.c), the rewrites of a
 *     node that leaves its input unchanged into Identity (noop.c), and in
 *     order SimplifyPack, SimplifyReduction (select_pack_reduction.c),
 *     SimplifyArithmeticOperations, ReduceDivToReciprocalMul (arith.c),
 *     ConstantPushDown, MulConvPushDown (push_down.c), PartialAssocOpConst-
 *     Folding, MergeConcat, PartialConcatConstFolding (partial.c),
 *     ConstantPushDownBiasAdd (push_down.c), SimplifySelect
 *     (select_pack_reduction.c).
 *     New nodes whose inputs are all constants (the Reciprocal, the partial
 *     AddN/ConcatV2, the Mul on the filter, a pushed-down child, an
 *     AccumulateNV2 turned AddN) are folded at once (settle() in
 *     rewrite.c): Grappler folds them in its next internal round.
 * Nodes the folding left without consumers are removed afterwards
 * (remove_unused; not preserved ones).
 *
 *  Anchors (Grappler's AddControlDependency, fl__ctrl_anchor in passes/util):
 *  where the rules above turn a data input into a control input, an input
 *  read from a Switch/RefSwitch port becomes
 *  ^ConstantFoldingCtrl/<switch>_<port>, an Identity of that port made once
 *  and reused (a control edge on the Switch itself would fire on both
 *  branches). As in Grappler: materialized Shape/Size/Rank, ZerosLike/
 *  OnesLike and every Const made in place (ReplaceOperationWithConstant),
 *  every Identity (ReplaceOperationWithIdentity: split_one, identity
 *  Transpose/Slice/..., multiply_by_one, add_zero, multiply_by_zero),
 *  Neg/Reciprocal, BroadcastTo (its shape constant anchors by node name, so
 *  a Switch output there gets the port-0 anchor, as in Grappler), Select,
 *  the NoOps of variable updates and MergeConcat, the axis of SimplifyPack,
 *  the reduction indices, the QuantizedMatMul min/max constants,
 *  TensorArraySizeV3's flow (by node name: port 0) and SimplifySwitch.
 *  Grappler writes plain control edges (AsControlDependency) for a
 *  materialized Fill, reductions and Reshapes turned Identity, the
 *  SimplifyReduction shape constant and MulConvPushDown; their inputs there
 *  are Consts, never Switch outputs. The other passes keep plain edges
 *  (fl__node_make_const), as Grappler's arithmetic and shape optimizers do.
 *
 * Deliberate differences that concern the whole pass (each file lists its
 * own):
 *  - Simplifications never touch preserved nodes (graph outputs, feeds),
 *    where Grappler rewrites fetch nodes in place; only the
 *    materializations and the rules that keep the node and its outputs
 *    (IdentityN forwarding, MoveConstantsPastEnter, SimplifySwitch, and the
 *    resource variable updates, which have no outputs) do.
 *  - One sweep per pass run, not Grappler's loop to a fixed point (beyond the
 *    immediate folding above); the meta-optimizer's second iteration
 *    continues. Fetches are always known here (outputs are given or
 *    inferred), so has_fetch conditions hold.
 *  - Identity is used where Grappler would use Snapshot in graphs with
 *    Assign/in-place ops.
 */
#include "passes/constfold/constfold.h"

#include <pthread.h>
#include <stdio.h>
#include <string.h>

/* The rules with a kind test, in the order they run (rule r: bit r of a
 * node's rules). */
enum {
    R_ONNX_CONSTANT,
    R_ONNX_RESHAPE,
    R_MATERIALIZE,
    R_MORE, /* materialize_more's five */
    R_NOOP = R_MORE + 5,
    R_SIMPLIFY, /* simplify's eleven, in Grappler's SimplifyNode order */
    R_COUNT = R_SIMPLIFY + 11
};

static const fl_cf_rule_fn rule_run[R_COUNT] = {
    fl__cf_onnx_constant,
    fl__cf_onnx_reshape,
    fl__cf_try_materialize,
    fl__cf_materialize_shape_n,
    fl__cf_materialize_ta_size,
    fl__cf_materialize_bcast_args,
    fl__cf_materialize_reduction_indices,
    fl__cf_materialize_constant_valued,
    NULL, /* fl__cf_noop_input */
    fl__cf_simplify_pack,
    fl__cf_simplify_reduction,
    fl__cf_simplify_arith,
    fl__cf_reduce_div_to_reciprocal_mul,
    fl__cf_constant_push_down,
    fl__cf_mul_conv_push_down,
    fl__cf_partial_addn,
    fl__cf_merge_concat,
    fl__cf_partial_concat,
    fl__cf_constant_push_down_bias_add,
    fl__cf_simplify_select,
};

static const fl_kinds_fn rule_kinds[R_COUNT] = {
    fl__cf_onnx_constant_kinds,
    fl__cf_onnx_reshape_kinds,
    fl__cf_try_materialize_kinds,
    fl__cf_materialize_shape_n_kinds,
    fl__cf_materialize_ta_size_kinds,
    fl__cf_materialize_bcast_args_kinds,
    fl__cf_materialize_reduction_indices_kinds,
    fl__cf_materialize_constant_valued_kinds,
    fl__cf_noop_input_kinds,
    fl__cf_simplify_pack_kinds,
    fl__cf_simplify_reduction_kinds,
    fl__cf_simplify_arith_kinds,
    fl__cf_reduce_div_to_reciprocal_mul_kinds,
    fl__cf_constant_push_down_kinds,
    fl__cf_mul_conv_push_down_kinds,
    fl__cf_partial_addn_kinds,
    fl__cf_merge_concat_kinds,
    fl__cf_partial_concat_kinds,
    fl__cf_constant_push_down_bias_add_kinds,
    fl__cf_simplify_select_kinds,
};

static fl_kind_table rule_table;
static pthread_once_t rule_table_once = PTHREAD_ONCE_INIT;

static void rule_table_build(void) {
    fl__kind_table_build(&rule_table, rule_kinds, R_COUNT);
}

static const fl_kind_table *rules_table(void) {
    pthread_once(&rule_table_once, rule_table_build);
    return &rule_table;
}

uint32_t fl__cf_rules_of(const fl_node *n) {
    return fl__kind_table_rules(rules_table(), n, 0, R_COUNT);
}

int fl__cf_rule_count(void) {
    return R_COUNT;
}

fl_kinds_fn fl__cf_rule_kinds(int r) {
    return r >= 0 && r < R_COUNT ? rule_kinds[r] : NULL;
}

fl_cf_rule_fn fl__cf_rule_run(int r) {
    return r >= 0 && r < R_COUNT ? rule_run[r] : NULL;
}

/* Rules first..last-1 that n's op can match, in order, until one fires.
 * (n's rules are asked again when a rule that ran changed n's op: the table
 * holds for the op each rule starts on.) */
static fl_status run_rules(fl_pass_ctx *pc, const fl_kind_table *kt, fl_node *n, int first,
                           int last, bool *done) {
    const char *op = n->op;
    uint32_t rules = fl__kind_table_rules(kt, n, first, last);
    *done = false;
    /* the set bits in order (rules holds only bits first..last-1) */
    while (rules) {
        int r = __builtin_ctz(rules);
        fl_status st = rule_run[r](pc, n, done);
        if (st != FL_OK || *done) {
            return st;
        }
        if (n->op != op) {
            op = n->op;
            rules = fl__kind_table_rules(kt, n, first, last);
        }
        rules &= ~((2u << r) - 1); /* the rules after r */
    }
    return FL_OK;
}

/* Is kind one that simplify handles itself (not through the table)? */
static bool simplify_own_kind(int kind) {
    switch (kind) {
    case FL_OP_IDENTITY_N:
    case FL_OP_ENTER:
    case FL_OP_REF_ENTER:
    case FL_OP_SWITCH:
    case FL_OP_CASE:
    case FL_OP_QUANTIZED_MATMUL:
        return true;
    default:
        return fl__cf_variable_update_form(kind) != 0;
    }
}

/* Does simplify have anything to try on n: a kind it handles itself, or a
 * rule from R_NOOP on in the kind table? (Asked before fl__has_tpu_attr,
 * which reads every attr's name: on most nodes nothing applies.) */
static bool simplify_applies(const fl_kind_table *kt, const fl_node *n) {
    return simplify_own_kind(n->kind) || fl__kind_table_rules(kt, n, R_NOOP, R_COUNT) != 0;
}

static fl_status simplify(fl_pass_ctx *pc, const fl_kind_table *kt, fl_node *n, bool *done) {
    *done = false;
    if (!simplify_applies(kt, n) || fl__has_tpu_attr(n)) {
        return FL_OK;
    }
    /* Rules that keep the node and its outputs: preserved nodes too. */
    switch (n->kind) {
    case FL_OP_IDENTITY_N:
        return fl__cf_partial_identity_n(pc, n, done); /* rewires consumers only */
    case FL_OP_ENTER:
    case FL_OP_REF_ENTER:
        return fl__cf_move_constants_past_enter(pc, n, done);
    case FL_OP_SWITCH:
        return fl__cf_simplify_switch(pc, n, done);
    default:
        if (fl__cf_variable_update_form(n->kind) == 2) {
            return fl__cf_remove_redundant_variable_update(pc, n, done); /* no outputs */
        }
        break;
    }
    if (fl__preserved(n) || !n->desc) {
        return FL_OK;
    }
    if (n->kind == FL_OP_CASE) {
        return fl__cf_simplify_case(pc, n, done);
    }
    if (fl__cf_variable_update_form(n->kind) == 1) {
        return fl__cf_remove_redundant_variable_update(pc, n, done);
    }
    if (n->kind == FL_OP_QUANTIZED_MATMUL) {
        return fl__cf_simplify_arith(pc, n, done); /* three outputs: by zeros only */
    }
    if (n->n_outputs != 1 || fl__cf_bad_dtype(n->outputs[0].dtype)) {
        return FL_OK;
    }
    const char *rule = NULL;
    int keep = fl__kind_table_rules(kt, n, R_NOOP, R_NOOP + 1) ? fl__cf_noop_input(n, &rule) : -1;
    if (keep >= 0) {
        const fl_tensor *x = fl_node_in(n, keep);
        if (x->dtype == n->outputs[0].dtype && fl__shape_same(&x->shape, &n->outputs[0].shape)) {
            fl__ledger_note(pc, rule, n, "%s leaves its input unchanged -> Identity", n->op);
            pc->rewritten++;
            *done = true;
            return fl__node_make_identity(pc, n, keep);
        }
    }
    /* Grappler's SimplifyNode order; each returns with *done when it fired. */
    return run_rules(pc, kt, n, R_SIMPLIFY, R_COUNT, done);
}

fl_status fl__pass_constant_folding(fl_pass_ctx *pc) {
    fl_graph *g = pc->c->g;
    size_t n0 = g->n_nodes;
    const bool *had_consumers = fl__consumed_snapshot(pc);
    if (!had_consumers) {
        return fl__diag_oom(pc->c->d);
    }
    fl_node **order = g->order; /* edits clear g->order; the sweep keeps its copy */
    const fl_kind_table *kt = rules_table();
    /* the ONNX rules do nothing on other graphs (not asked there) */
    int first = g->onnx.is_onnx ? R_ONNX_CONSTANT : R_MATERIALIZE;
    for (size_t i = 0; i < n0; i++) {
        fl_node *n = order[i];
        if (n->flags & FL_NODE_REMOVED) {
            continue;
        }
        bool done = false;
        fl_status st = run_rules(pc, kt, n, first, R_NOOP, &done);
        if (st == FL_OK && !done) {
            st = fl__cf_try_fold(pc, n, &done);
        }
        if (st == FL_OK && !done) {
            st = simplify(pc, kt, n, &done);
        }
        if (st != FL_OK) {
            return st;
        }
    }
    g->order = NULL;
    return fl__remove_dead(pc, had_consumers, n0, "remove_unused");
}

/* The skip test (pass.h). The sweep tries on each node the rules its kind
 * passes (the table: the ONNX rules, the materializations, the no-op
 * rewrites and SimplifyNode's rules), the simplifications that switch on
 * the kind themselves (simplify_own_kind), and the fold; remove_unused
 * follows the pass's own rewrites. Rules of the first two kinds reach
 * several nodes from their root (ConstantPushDown, MulConvPushDown): a
 * graph with a node they may start on gives work, whatever changed. The
 * fold starts on any op, but reads only the node (op, attrs, outputs, its
 * consumers) and its producers (Consts, their values): a node that was not
 * touched and whose producers and consumers were not, folded no more than
 * before - so a marked node with inputs, all of them Consts, gives work. */
bool fl__constant_folding_may_work(const fl_graph *g, const uint8_t *mark) {
    const fl_kind_table *kt = rules_table();
    /* the ONNX rules do nothing on other graphs */
    int first = g->onnx.is_onnx ? 0 : R_MATERIALIZE;
    for (size_t i = 0; i < g->n_nodes; i++) {
        const fl_node *m = g->nodes[i];
        if (fl__kind_table_rules(kt, m, first, R_COUNT) || simplify_own_kind(m->kind)) {
            return true;
        }
        bool all_const = mark[i] && m->n_inputs > 0;
        for (int k = 0; k < m->n_inputs && all_const; k++) {
            all_const = fl__is_const(m->inputs[k].node);
        }
        if (all_const) {
            return true;
        }
    }
    return false;
}
