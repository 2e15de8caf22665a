/*
 * constant_folding.c - Grappler's ConstantFolding (grappler.md 3), the parts
 * foldline can do exactly.
 *
 * One sweep in topological order; for each node the first rule that fires.
 * Rule names in the ledger are Grappler's function names where it has one.
 *  1. materialize_shape: Shape/Size/Rank whose value shape inference knows as
 *     plain numbers -> Const in place; the data input becomes a control input.
 *  2. materializations (3.3): MaterializeShapes (ShapeN: each consumed port
 *     of a known shape reads ConstantFolding/<n>-matshapes-<p>, control input
 *     ^n); TensorArraySizeV3 (MaterializeShapes: the handle's producer has a
 *     Const int32 size input whose first element is not 0 and no true
 *     dynamic_size -> a copy of that Const in place, control inputs
 *     ^<handle producer> and the anchor of the flow producer, see below);
 *     MaterializeBroadcastGradientArgs (inputs Shape or Const, Grappler's
 *     symbolic-dim checks, BCast reduce indices -> ConstantFolding/<n>-
 *     bcastargs-0/1 with ^n); MaterializeReductionIndices (full reduction over
 *     computed indices -> Const [0..rank-1] ConstantFolding/<n>-reduction_
 *     indices with ^indices); MaterializeConstantValuedNode (Fill of
 *     constants, ZerosLike/OnesLike of a known shape -> Const in place, inputs
 *     as control inputs).
 *  3. fold: every data input is a Const -> the node's values, computed by the
 *     op's eval hook during shape inference, become a Const in place (one
 *     output; a preserved single-output node keeps its name) or one new Const
 *     per output named ConstantFolding/<node>-folded-<i> (several outputs).
 *     When some input Const is stripped (value unknown) and the output shapes
 *     are fully known, the result is a stripped Const of that shape.
 *  4. simplifications (3.4, SimplifyNode order):
 *     Split/SplitV with one piece, identity Transpose, RemoveRandomShuffle
 *     (RandomShuffle of a scalar or of dim 0 == 1), ReverseV2 of size-1
 *     axes, full Slice, SimplifyStridedSlice (identity StridedSlice, ellipsis
 *     expanded as Grappler does), Tile by ones, Pad by zeros, Squeeze of no
 *     size-1 dim -> Identity; SimplifyPack (one input -> ExpandDims with
 *     ConstantFolding/<n>_const_axis, not when the input is a feed);
 *     MoveConstantsPastEnter (Enter/RefEnter with is_constant of a Const c:
 *     its data consumers read the copy ConstantFolding/<c>_enter with
 *     ^<enter>); SimplifySwitch (Switch(x, x): readers of output 0 / 1 read
 *     ConstantFolding/<sw>_const_false / _const_true, with control inputs
 *     ConstantFoldingCtrl/<sw>_0 / _1; only when the Switch has exactly two
 *     consumer nodes, not both data-unused Identities: Grappler's
 *     already-optimized test);
 *     reductions over no axis or with keep_dims over size-1 axes -> Identity,
 *     SimplifyReduction (single element, no keep_dims -> Reshape to ones via
 *     ConstantFolding/<n>_shape_const); Reshape to the same shape -> Identity;
 *     SimplifyArithmeticOperations: 1*y, 0+y, x*1, x/1, x+0, x-0 -> Identity
 *     (multiply_by_one / add_zero; "multiplication" is Mul, MulNoNan,
 *     LogicalAnd, "division" Div, RealDiv, TruncateDiv, Xdivy; BroadcastTo
 *     via ConstantFolding/<n>-
 *     broadcastto_shape-<i> when only the other operand has the output
 *     shape), 0-y -> Neg (ReplaceSubtractionFromZeroByNegation), 1/y ->
 *     Reciprocal for float/complex (ReplaceDivisionOfOnesByReciprocal),
 *     LogicalOr with all-true -> true Const, Mul/LogicalAnd/MatMul/
 *     BatchMatMul* by zeros -> zeros Const (multiply_by_zero; else Identity or
 *     BroadcastTo of the zeros); "ones"/"zeros" are Consts, Fill of them,
 *     OnesLike/ZerosLike; ReduceDivToReciprocalMul (Div/RealDiv by a Const ->
 *     Mul by ConstantFolding/<n>_recip, integer Div excluded; Xdivy(x, c) ->
 *     MulNoNan(ConstantFolding/<n>_recip, x)); ConstantPushDown
 *     (Add/AddV2/Sub/Mul/Div trees with sign tracking; Sub/Div only for
 *     float/complex; not bf16/half; child single-use, not preserved; same
 *     devices; the constant not larger than the leaf); MulConvPushDown (the
 *     conv takes the Mul's name, the Mul becomes <conv>/merged_input on the
 *     filter; Mul or MulNoNan); PartialConstPropThroughIdentityN;
 *     PartialAssocOpConstFolding (AddN/AccumulateNV2 of > 2 inputs, >= 2 but
 *     not all constant -> an AddN ConstantFolding/<n>_partial_split_<k>;
 *     AccumulateNV2 of > 2 inputs all constant -> AddN); MergeConcat;
 *     PartialConcatConstFolding (runs -> ConstantFolding/<n>_partial_split_
 *     <first>); ConstantPushDownBiasAdd; SimplifyCase (Case with a Const
 *     int32 branch index -> PartitionedCall f=branches[i], index input
 *     dropped, output_shapes[i] appended to _output_shapes as Grappler
 *     does); SimplifySelect (-> Identity of the live branch, or
 *     BroadcastTo); RemoveRedundantVariableUpdates (AssignAdd/AssignSub,
 *     ScatterAdd/ScatterSub, ScatterNdAdd/ScatterNdSub by zeros and
 *     ScatterMul/ScatterDiv by ones -> Identity(ref) with T and the other
 *     inputs' anchors as control inputs; AssignAddVariableOp/
 *     AssignSubVariableOp, ResourceScatterAdd/Sub, ResourceScatterNdAdd/Sub
 *     by zeros and ResourceScatterMul/Div by ones -> NoOp, inputs as control
 *     inputs; Grappler's list also names ScatterNdMul/Div and their resource
 *     forms, which TensorFlow does not register).
 *     New nodes whose inputs are all constants (the Reciprocal, the partial
 *     AddN/ConcatV2, the Mul on the filter, a pushed-down child, an
 *     AccumulateNV2 turned AddN) are folded at once: Grappler folds them in
 *     its next internal round.
 *  Anchors (Grappler's AddControlDependency, fl__ctrl_anchor in pipeline.c):
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
 * Never folded: stateful ops (random ops, variables), control flow and
 * functional ops, Placeholders, AccumulateNV2, ops whose name has Save/Restore/Reader/
 * Quantized or starts with Sparse, nodes with a "_tpu_" attr, string,
 * resource or variant outputs or string inputs, nodes nothing consumes
 * (unless preserved), and nodes whose output would exceed max_folded_bytes
 * while being larger than their inputs together. Nodes the folding left
 * without consumers are removed afterwards (not preserved ones).
 *
 * Deliberate differences and rules left out:
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
 *  - Zeros/ones constants and materialized Fill/ZerosLike/OnesLike are built
 *    only up to the analysis's value limit (max_value_elems), and zeros of
 *    multiply_by_zero only up to max_folded_bytes: foldline stores constants
 *    uncompressed, Grappler stores repeated values compressed.
 *  - MaterializeReductionIndices and MaterializeBroadcastGradientArgs do not
 *    fire when the rewrite could make a graph output's shape more known:
 *    the driver requires outputs to keep their shapes exactly.
 *  - 0 / y in AGGRESSIVE mode (foldline runs Grappler's default level).
 *  - SimplifyCase does not fire when foldline would lose an output shape:
 *    Grappler infers the PartitionedCall's shapes from the branch function,
 *    foldline only from _output_shapes (one entry per output, else none),
 *    so with several outputs, or a branch index past the first output's
 *    entry, known Case output shapes would become unknown.
 *  - MoveConstantsPastEnter leaves a consumer's control edge on the Enter
 *    alone (Grappler rewrites it into a data input, a malformed NodeDef);
 *    SimplifySwitch never rewires the ConstantFoldingCtrl anchors it uses
 *    (Grappler would when they already existed, making a cycle).
 *  - QuantizedMatMul by zeros (multiply_by_zero with
 *    AddQuantizedMatMulMinMaxOutConstNodes): Grappler fails the whole pass
 *    when a ConstantFolding/<n>-quantized_matmul_min_out / _max_out name is
 *    taken; here the rule does not fire. (It is not blocked by "quantized
 *    ops are never folded": that is IsFoldable; this is a simplification.)
 */
#include "ops/common.h"
#include "passes/pipeline.h"

#include <stdio.h>
#include <string.h>

static bool is_const(const fl_node *n) {
    return n->kind == FL_OP_CONST && !(n->flags & FL_NODE_REMOVED);
}

static bool bad_dtype(int dt) {
    int b = dt > FL_DT_REF_OFFSET ? dt - FL_DT_REF_OFFSET : dt;
    return b == FL_DT_INVALID || b == FL_DT_STRING || b == FL_DT_RESOURCE || b == FL_DT_VARIANT;
}

/* The Grappler conditions on the op and the node itself (3.2). */
static bool foldable_op(const fl_node *n) {
    if (!n->desc || n->kind == FL_OP_CONST || n->n_inputs < 1 || n->n_outputs < 1) {
        return false;
    }
    if (n->desc->flags & (FL_OPF_STATEFUL | FL_OPF_CONTROL_FLOW | FL_OPF_FUNCTIONAL)) {
        return false;
    }
    if (n->kind == FL_OP_PLACEHOLDER || n->kind == FL_OP_PLACEHOLDER_WITH_DEFAULT ||
        n->kind == FL_OP_ACCUMULATE_NV2 || (n->flags & FL_NODE_IN_LOOP)) {
        return false;
    }
    const char *op = n->op;
    if (strstr(op, "Save") || strstr(op, "Restore") || strstr(op, "Reader") ||
        strstr(op, "Quantized") || strncmp(op, "Sparse", 6) == 0) {
        return false;
    }
    for (int i = 0; i < n->n_attrs; i++) {
        if (strstr(n->attrs[i].name, "_tpu_")) {
            return false;
        }
    }
    for (int k = 0; k < n->n_outputs; k++) {
        if (bad_dtype(n->outputs[k].dtype)) {
            return false;
        }
    }
    if (!fl__preserved(n)) {
        bool consumed = n->n_ctrl_consumers > 0;
        for (int k = 0; k < n->n_outputs && !consumed; k++) {
            consumed = n->outputs[k].n_consumers > 0;
        }
        if (!consumed) {
            return false;
        }
    }
    return true;
}

static uint64_t tensor_bytes(const fl_tensor *t) {
    uint64_t b = fl__dtype_size(t->dtype);
    for (int i = 0; i < t->shape.rank; i++) {
        b *= (uint64_t)t->shape.dims[i].k;
    }
    return b;
}

/* ------------------------------------------------------------------------- */
/* Folding                                                                    */
/* ------------------------------------------------------------------------- */

/* Replaces multi-output node n by one Const per consumed output. */
static fl_status fold_multi(fl_pass_ctx *pc, fl_node *n) {
    fl_graph *g = pc->c->g;
    for (int k = 0; k < n->n_outputs; k++) {
        if (!n->outputs[k].n_consumers) {
            continue;
        }
        char base[600];
        snprintf(base, sizeof base, "ConstantFolding/%.400s-folded-%d", n->name, k);
        const char *name = fl__graph_unique_name(g, base);
        fl_node *c = name ? fl__op_add_op(g, name, "Const", 0, NULL, 1, pc->c->d) : NULL;
        if (!c) {
            return fl__diag_oom(pc->c->d);
        }
        c->device = n->device;
        c->outputs[0].dtype = n->outputs[k].dtype;
        c->outputs[0].shape = n->outputs[k].shape;
        c->outputs[0].value = n->outputs[k].value;
        /* Keep the folded node's and its inputs' control dependencies. */
        for (int j = 0; j < n->n_ctrl; j++) {
            if (fl__node_add_ctrl(g, c, n->ctrl[j]) != FL_OK) {
                return fl__diag_oom(pc->c->d);
            }
        }
        fl_node tmp = *c;
        tmp.inputs = n->inputs;
        tmp.n_inputs = n->n_inputs;
        fl_status st = fl__node_make_const(pc, &tmp, n->outputs[k].value, false);
        if (st != FL_OK) {
            return st;
        }
        *c = tmp;
        fl__graph_replace_uses(g, n, k, c, 0);
    }
    fl__graph_remove_node(n);
    return FL_OK;
}

/* Evaluates n again when an input became a constant in this sweep (its
 * value was unknown when shapes were inferred). An evaluation that fails
 * leaves the node unfolded, as during inference. */
static fl_status eval_again(fl_pass_ctx *pc, fl_node *n) {
    for (int k = 0; k < n->n_outputs; k++) {
        if (!n->outputs[k].value) {
            fl_diag *d = pc->c->d;
            fl_status saved = d->status;
            char *saved_msg = d->msg;
            fl_status st = n->desc->eval ? n->desc->eval(pc->c, n) : FL_OK;
            if (st == FL_ENOMEM) {
                return fl__diag_oom(d);
            }
            if (st != FL_OK) {
                d->status = saved;
                d->msg = saved_msg;
                for (int j = 0; j < n->n_outputs; j++) {
                    n->outputs[j].value = NULL;
                }
            }
            return FL_OK;
        }
    }
    return FL_OK;
}

/* Rule 2; returns true in *done when n was folded. */
static fl_status try_fold(fl_pass_ctx *pc, fl_node *n, bool *done) {
    *done = false;
    fl_status st;
    if (!foldable_op(n)) {
        return FL_OK;
    }
    uint64_t in_bytes = 0;
    bool stripped = false;
    for (int i = 0; i < n->n_inputs; i++) {
        const fl_node *in = n->inputs[i].node;
        const fl_tensor *t = fl_node_in(n, i);
        if (!is_const(in) || bad_dtype(t->dtype)) {
            return FL_OK;
        }
        if (in->flags & FL_NODE_STRIPPED) {
            stripped = true;
        } else if (!t->value) {
            return FL_OK; /* too large to decode: values unknown */
        }
        if (fl__shape_is_concrete(&t->shape)) {
            in_bytes += tensor_bytes(t);
        }
    }
    if (!stripped) {
        st = eval_again(pc, n);
        if (st != FL_OK) {
            return st;
        }
    }
    bool valued = true;
    for (int k = 0; k < n->n_outputs; k++) {
        const fl_tensor *t = &n->outputs[k];
        if (!fl__shape_is_concrete(&t->shape)) {
            return FL_OK;
        }
        uint64_t ob = tensor_bytes(t);
        if (ob > in_bytes && ob > (uint64_t)pc->opt->max_folded_bytes) {
            return FL_OK;
        }
        if (!t->value || !fl__value_is_concrete(t->value)) {
            valued = false;
        }
    }
    if (!valued && !stripped) {
        return FL_OK;
    }
    if (n->n_outputs == 1) {
        const fl_value *v = valued ? n->outputs[0].value : NULL;
        fl__ledger_note(pc, valued ? "fold" : "fold_stripped", n,
                        valued ? "%s of constants -> Const"
                               : "%s of constants, some stripped -> stripped Const of known shape",
                        n->op);
        st = fl__node_make_const(pc, n, v, false);
        if (st == FL_OK) {
            pc->rewritten++;
            *done = true;
        }
        return st;
    }
    if (fl__preserved(n) || n->n_ctrl_consumers || !valued) {
        return FL_OK;
    }
    fl__ledger_note(pc, "fold", n, "%s of constants -> %d Consts", n->op, n->n_outputs);
    *done = true;
    return fold_multi(pc, n);
}

/* Rule 1. */
static fl_status try_materialize(fl_pass_ctx *pc, fl_node *n, bool *done) {
    *done = false;
    if ((n->kind != FL_OP_SHAPE && n->kind != FL_OP_SIZE && n->kind != FL_OP_RANK) ||
        n->n_inputs != 1 || n->n_outputs != 1) {
        return FL_OK;
    }
    const fl_tensor *t = &n->outputs[0];
    if (!t->value || !fl__value_is_concrete(t->value) || !fl__shape_is_concrete(&t->shape)) {
        return FL_OK;
    }
    const fl_shape *in = &fl_node_in(n, 0)->shape;
    if (n->kind == FL_OP_SHAPE && in->rank > 0 && fl_sym_is_known(in->dims[0]) &&
        in->dims[0].k == 0) {
        return FL_OK; /* Grappler skips shapes with a leading 0 */
    }
    fl__ledger_note(pc, "materialize_shape", n, "%s of a fully known shape -> Const", n->op);
    pc->rewritten++;
    *done = true;
    return fl__node_make_const_anchored(pc, n, t->value);
}

/* ------------------------------------------------------------------------- */
/* Simplifications                                                            */
/* ------------------------------------------------------------------------- */

/* The value of data input i when it is a non-stripped Const with concrete
 * contents, else NULL. */
static const fl_value *const_value(const fl_node *n, int i) {
    if (i >= n->n_inputs || !is_const(n->inputs[i].node) ||
        (n->inputs[i].node->flags & FL_NODE_STRIPPED)) {
        return NULL;
    }
    const fl_value *v = fl_node_in(n, i)->value;
    return v && fl__value_is_concrete(v) ? v : NULL;
}

/* True when every element of v equals x. */
static bool all_equal(const fl_value *v, double x) {
    for (int64_t i = 0; i < v->n; i++) {
        double e;
        if (!fl__value_f64(v, i, &e) || e != x) {
            return false;
        }
    }
    return true;
}

static int64_t ival(const fl_value *v, int64_t i) {
    return fl__value_int(v, i).k;
}

/* ------------------------------------------------------------------------- */
/* Helpers for the rewrites that add or rewire nodes                          */
/* ------------------------------------------------------------------------- */

static const char *dev_of(const fl_node *n) {
    return n->device ? n->device : "";
}

static bool same_device(const fl_node *a, const fl_node *b) {
    return strcmp(dev_of(a), dev_of(b)) == 0;
}

static bool float_or_complex(int dt) {
    return fl__dtype_is_float(dt) || fl__dtype_is_complex(dt);
}

static int type_attr(const fl_node *n, const char *name) {
    const fl_attr *a = fl__node_attr(n, name);
    return a && a->kind == FL_ATTR_TYPE ? a->v.type : FL_DT_INVALID;
}

static int64_t int_attr(const fl_node *n, const char *name, int64_t dflt) {
    const fl_attr *a = fl__node_attr(n, name);
    return a && a->kind == FL_ATTR_I ? a->v.i : dflt;
}

static bool is_feed(const fl_node *n) {
    return n->kind == FL_OP_PLACEHOLDER || n->kind == FL_OP_PLACEHOLDER_WITH_DEFAULT;
}

/* Grappler's IsAdd: AddV2, or Add of a non-string type. */
static bool is_add_op(const fl_node *n) {
    return n->kind == FL_OP_ADD_V2 || (n->kind == FL_OP_ADD && type_attr(n, "T") != FL_DT_STRING);
}

/* "ConstantFolding/<node><suffix>" (Grappler's OptimizedNodeName). */
static const char *cf_name(fl_pass_ctx *pc, const fl_node *n, const char *suffix) {
    return fl__arena_printf(pc->c->a, "ConstantFolding/%s%s", n->name, suffix);
}

/* Data edges reading any output of n (Grappler's NumNonControlOutputs). */
static int data_uses(const fl_graph *g, const fl_node *n) {
    int k = 0;
    for (size_t i = 0; i < g->n_nodes; i++) {
        const fl_node *m = g->nodes[i];
        if (m->flags & FL_NODE_REMOVED) {
            continue;
        }
        for (int j = 0; j < m->n_inputs; j++) {
            k += m->inputs[j].node == n;
        }
    }
    return k;
}

/* Distinct live nodes reading n by a data or control edge; at most `cap`
 * are stored, the count is returned. */
static size_t consumers_of(const fl_graph *g, const fl_node *n, fl_node **out, size_t cap) {
    size_t k = 0;
    for (size_t i = 0; i < g->n_nodes; i++) {
        fl_node *m = g->nodes[i];
        if (m->flags & FL_NODE_REMOVED) {
            continue;
        }
        bool reads = false;
        for (int j = 0; j < m->n_inputs && !reads; j++) {
            reads = m->inputs[j].node == n;
        }
        for (int j = 0; j < m->n_ctrl && !reads; j++) {
            reads = m->ctrl[j] == n;
        }
        if (reads) {
            if (k < cap) {
                out[k] = m;
            }
            k++;
        }
    }
    return k;
}

static bool has_ctrl(const fl_node *n, const fl_node *dep) {
    for (int k = 0; k < n->n_ctrl; k++) {
        if (n->ctrl[k] == dep) {
            return true;
        }
    }
    return false;
}

static void drop_ctrl(fl_node *n, const fl_node *dep) {
    int w = 0;
    for (int k = 0; k < n->n_ctrl; k++) {
        if (n->ctrl[k] != dep) {
            n->ctrl[w++] = n->ctrl[k];
        }
    }
    n->n_ctrl = w;
}

/* Replaces n's control inputs with `first` (in order), then its old ones,
 * then `last`, without duplicates. */
static fl_status set_ctrl(fl_pass_ctx *pc, fl_node *n, fl_node *const *first, int n_first,
                          fl_node *const *last, int n_last) {
    fl_graph *g = pc->c->g;
    fl_node **old = n->ctrl;
    int n_old = n->n_ctrl;
    n->ctrl = NULL;
    n->n_ctrl = 0;
    for (int k = 0; k < n_first + n_old + n_last; k++) {
        fl_node *d = k < n_first           ? first[k]
                     : k < n_first + n_old ? old[k - n_first]
                                           : last[k - n_first - n_old];
        if (fl__node_add_ctrl(g, n, d) != FL_OK) {
            return fl__diag_oom(pc->c->d);
        }
    }
    return FL_OK;
}

/* Gives n its own copy of src's attrs (so later edits do not reach src). */
static fl_status copy_attrs(fl_pass_ctx *pc, fl_node *n, const fl_node *src) {
    n->n_attrs = 0;
    n->attrs = NULL;
    if (src->n_attrs) {
        fl_attr *a = fl__arena_calloc(pc->c->a, (size_t)src->n_attrs, sizeof(fl_attr));
        if (!a) {
            return fl__diag_oom(pc->c->d);
        }
        memcpy(a, src->attrs, (size_t)src->n_attrs * sizeof(fl_attr));
        n->attrs = a;
        n->n_attrs = src->n_attrs;
    }
    return FL_OK;
}

static fl_status set_type_attr(fl_pass_ctx *pc, fl_node *n, const char *name, int dt) {
    fl_attr a = fl__attr_make_type(pc->c->g, name, dt);
    if (!a.name || fl__node_set_attr(pc->c->g, n, &a) != FL_OK) {
        return fl__diag_oom(pc->c->d);
    }
    return FL_OK;
}

static fl_status set_int_attr(fl_pass_ctx *pc, fl_node *n, const char *name, int64_t v) {
    fl_attr a = fl__attr_make_int(pc->c->g, name, v);
    if (!a.name || fl__node_set_attr(pc->c->g, n, &a) != FL_OK) {
        return fl__diag_oom(pc->c->d);
    }
    return FL_OK;
}

/* An int32/int64 value of rank 0 (n == 1) or 1 holding vals. */
static fl_value *int_value(fl_pass_ctx *pc, int dtype, int rank, int64_t n, const int64_t *vals) {
    int64_t dims[1] = {n};
    fl_value *v = fl__value_new(pc->c->a, dtype, rank, dims);
    if (!v) {
        fl__diag_oom(pc->c->d);
        return NULL;
    }
    for (int64_t i = 0; i < n; i++) {
        ((fl_sym *)v->ints)[i] = fl_sym_const(vals ? vals[i] : 0);
    }
    return v;
}

/* A value of dtype and concrete shape whose elements all equal x (0 or 1);
 * NULL when larger than the value limit or of a dtype without a numeric
 * encoding here (complex, quantized). */
static fl_value *filled_value(fl_pass_ctx *pc, int dtype, const fl_shape *s, double x) {
    int64_t dims[256];
    int64_t n = 1;
    if (!fl__shape_is_concrete(s) || s->rank > 256 || fl__dtype_is_complex(dtype)) {
        return NULL;
    }
    for (int i = 0; i < s->rank; i++) {
        dims[i] = s->dims[i].k;
        n = dims[i] && n > pc->c->max_value_elems / dims[i] ? pc->c->max_value_elems + 1
                                                            : n * dims[i];
    }
    if (n > pc->c->max_value_elems) {
        return NULL;
    }
    fl_value *v = fl__value_new(pc->c->a, dtype, s->rank, dims);
    if (!v) {
        return NULL;
    }
    for (int64_t i = 0; i < v->n; i++) {
        if (v->ints) {
            ((fl_sym *)v->ints)[i] = fl_sym_const((int64_t)x);
        } else if (x != 0) {
            fl__value_set_f64(v, i, x);
        }
    }
    return v;
}

/* A new Const `name` holding v on `device`, with control input ctrl (or
 * none). */
static fl_node *new_const(fl_pass_ctx *pc, const char *name, const fl_value *v, const char *device,
                          fl_node *ctrl) {
    fl_graph *g = pc->c->g;
    fl_node *c = fl__op_add_op(g, name, "Const", 0, NULL, 1, pc->c->d);
    fl_sym *dims = fl__arena_calloc(pc->c->a, (size_t)v->rank + 1, sizeof(fl_sym));
    if (!c || !dims) {
        fl__diag_oom(pc->c->d);
        return NULL;
    }
    for (int i = 0; i < v->rank; i++) {
        dims[i] = fl_sym_const(v->dims[i]);
    }
    c->device = device;
    c->outputs[0].dtype = v->dtype;
    c->outputs[0].shape.rank = v->rank;
    c->outputs[0].shape.dims = dims;
    c->outputs[0].value = v;
    if (fl__node_make_const(pc, c, v, false) != FL_OK ||
        (ctrl && fl__node_add_ctrl(g, c, ctrl) != FL_OK)) {
        fl__diag_oom(pc->c->d);
        return NULL;
    }
    pc->added++;
    return c;
}

/* A new node of op type `op` with n's device and attrs, reading `in`. */
static fl_node *new_op_like(fl_pass_ctx *pc, const char *name, const char *op, const fl_node *like,
                            int n_in, const fl_input *in) {
    fl_node *m = fl__op_add_op(pc->c->g, name, op, n_in, in, 1, pc->c->d);
    if (!m) {
        return NULL;
    }
    m->device = like->device;
    if (copy_attrs(pc, m, like) != FL_OK) {
        return NULL;
    }
    pc->added++;
    return m;
}

/* Infers a node the pass created or rewired, and folds it at once when all
 * its data inputs are constants (Grappler folds it in its next round). */
static fl_status settle(fl_pass_ctx *pc, fl_node *n) {
    fl_status st = fl__infer_node(pc, n);
    if (st != FL_OK) {
        return st;
    }
    for (int k = 0; k < n->n_outputs; k++) {
        if (!n->outputs[k].n_consumers) {
            n->outputs[k].n_consumers = 1;
        }
    }
    bool done = false;
    return try_fold(pc, n, &done);
}

/* ------------------------------------------------------------------------- */
/* Ones and zeros (Grappler's IsOnes / IsZeros)                               */
/* ------------------------------------------------------------------------- */

static bool value_all(const fl_node *m, double x) {
    if (!is_const(m) || (m->flags & FL_NODE_STRIPPED) || m->n_outputs < 1) {
        return false;
    }
    const fl_value *v = m->outputs[0].value;
    if (!v || !fl__value_is_concrete(v) || fl__dtype_is_complex(v->dtype)) {
        return false;
    }
    return all_equal(v, x);
}

static bool is_ones(const fl_node *m) {
    if (m->kind == FL_OP_ONES_LIKE) {
        return true;
    }
    if (m->kind == FL_OP_FILL) {
        return m->n_inputs == 2 && value_all(m->inputs[1].node, 1.0);
    }
    return value_all(m, 1.0);
}

static bool is_zeros(const fl_node *m) {
    if (m->kind == FL_OP_ZEROS_LIKE) {
        return true;
    }
    if (m->kind == FL_OP_FILL) {
        return m->n_inputs == 2 && value_all(m->inputs[1].node, 0.0);
    }
    return value_all(m, 0.0);
}

/* ------------------------------------------------------------------------- */
/* In-place replacements                                                      */
/* ------------------------------------------------------------------------- */

/* n := Const of n's output dtype and shape, all elements x; data inputs
 * become control inputs (ReplaceOperationWithConstant). Returns false in
 * *done when the value cannot be built. */
static fl_status replace_with_filled(fl_pass_ctx *pc, fl_node *n, double x, const char *rule,
                                     const char *what, bool *done) {
    const fl_tensor *out = &n->outputs[0];
    if (out->dtype == FL_DT_VARIANT) {
        return FL_OK;
    }
    fl_value *v = filled_value(pc, out->dtype, &out->shape, x);
    if (!v) {
        return FL_OK;
    }
    fl__ledger_note(pc, rule, n, "%s %s -> Const %s", n->op, what, x != 0 ? "ones" : "zeros");
    pc->rewritten++;
    *done = true;
    return fl__node_make_const_anchored(pc, n, v);
}

/* n(x, y) := op(y, ^x): Neg for 0 - y, Reciprocal for 1 / y; attrs kept;
 * x's control input through its anchor. */
static fl_status replace_unary_of_y(fl_pass_ctx *pc, fl_node *n, const char *op) {
    fl_input x = n->inputs[0];
    fl_input y = n->inputs[1];
    fl_node *a = x.node == y.node ? NULL : fl__ctrl_anchor(pc, x);
    if (x.node != y.node && !a) {
        return pc->c->d->status != FL_OK ? pc->c->d->status : fl__diag_oom(pc->c->d);
    }
    if (fl__node_set_inputs(pc->c->g, n, 1, &y) != FL_OK) {
        return fl__diag_oom(pc->c->d);
    }
    fl__node_become(pc->c->g, n, op);
    n->src = NULL;
    pc->rewritten++;
    return a ? set_ctrl(pc, n, &a, 1, NULL, 0) : FL_OK;
}

/* n := BroadcastTo(input `keep`, shape of n's output), the other data inputs
 * becoming control inputs of n and of the new shape constant
 * ConstantFolding/<n>-broadcastto_shape-<keep> (ReplaceOperationWithBroadcastTo).
 * Needs a fully known output shape. */
static fl_status replace_with_broadcast_to(fl_pass_ctx *pc, fl_node *n, int keep, const char *rule,
                                           bool *done) {
    fl_graph *g = pc->c->g;
    const fl_tensor *out = &n->outputs[0];
    if (out->dtype == FL_DT_INVALID || !fl__shape_is_concrete(&out->shape) ||
        out->shape.rank > 256 || n->n_inputs > 64) {
        return FL_OK;
    }
    char suffix[64];
    snprintf(suffix, sizeof suffix, "-broadcastto_shape-%d", keep);
    const char *name = cf_name(pc, n, suffix);
    if (!name) {
        return fl__diag_oom(pc->c->d);
    }
    if (fl__graph_find(g, name)) {
        return FL_OK;
    }
    int64_t dims[256];
    for (int i = 0; i < out->shape.rank; i++) {
        dims[i] = out->shape.dims[i].k;
        if (dims[i] > INT32_MAX) {
            return FL_OK;
        }
    }
    fl_value *v = int_value(pc, FL_DT_INT32, 1, out->shape.rank, dims);
    fl_node *c = v ? new_const(pc, name, v, n->device, NULL) : NULL;
    if (!c) {
        return fl__diag_oom(pc->c->d);
    }
    /* Grappler's input order after its swaps: kept input, the shape, then the
     * others as control inputs (second one first... the first other last). */
    fl_input in[64];
    memcpy(in, n->inputs, (size_t)n->n_inputs * sizeof(fl_input));
    fl_input t = in[0];
    in[0] = in[keep];
    in[keep] = t;
    /* The shape constant's control inputs: Grappler anchors the other
     * inputs by node name, so a Switch output gets the port-0 anchor
     * ConstantFoldingCtrl/<switch>_0 whatever its port. */
    for (int i = 0; i < n->n_inputs; i++) {
        fl_status st =
            i == keep ? FL_OK : fl__add_ctrl_anchor(pc, c, (fl_input){n->inputs[i].node, 0});
        if (st != FL_OK) {
            return st;
        }
    }
    fl_node *others[64], *last = NULL;
    int n_others = 0;
    for (int i = 1; i < n->n_inputs; i++) {
        fl_node *a = fl__ctrl_anchor(pc, in[i]);
        if (!a) {
            return pc->c->d->status != FL_OK ? pc->c->d->status : fl__diag_oom(pc->c->d);
        }
        if (i == 1) {
            last = a;
        } else {
            others[n_others++] = a;
        }
    }
    fl_input ni[2] = {in[0], {c, 0}};
    fl_attr tattr = fl__attr_make_type(g, "T", out->dtype);
    fl_attr iattr = fl__attr_make_type(g, "Tidx", FL_DT_INT32);
    if (!tattr.name || !iattr.name || fl__node_set_inputs(g, n, 2, ni) != FL_OK) {
        return fl__diag_oom(pc->c->d);
    }
    fl_status st = set_ctrl(pc, n, others, n_others, last ? &last : NULL, last ? 1 : 0);
    if (st != FL_OK) {
        return st;
    }
    n->attrs = NULL;
    n->n_attrs = 0;
    if (fl__node_set_attr(g, n, &tattr) != FL_OK || fl__node_set_attr(g, n, &iattr) != FL_OK) {
        return fl__diag_oom(pc->c->d);
    }
    fl__node_become(g, n, "BroadcastTo");
    n->src = NULL;
    fl__ledger_note(pc, rule, n, "broadcasting input %d -> BroadcastTo(%s, %s)", keep,
                    n->inputs[0].node->name, c->name);
    pc->rewritten++;
    *done = true;
    return FL_OK;
}

/* ------------------------------------------------------------------------- */
/* SimplifyArithmeticOperations                                               */

/* The range TensorFlow gives a quantized type, as a float
 * (QuantizedTypeMin/MaxAsFloat); false for other types. */
static bool quantized_range(int dt, double *lo, double *hi) {
    switch (dt) {
    case FL_DT_QINT8:
        *lo = -128.0, *hi = 127.0;
        return true;
    case FL_DT_QUINT8:
        *lo = 0.0, *hi = 255.0;
        return true;
    case FL_DT_QINT16:
        *lo = -32768.0, *hi = 32767.0;
        return true;
    case FL_DT_QUINT16:
        *lo = 0.0, *hi = 65535.0;
        return true;
    case FL_DT_QINT32:
        *lo = -2147483648.0, *hi = 2147483647.0; /* 2^31 as a float */
        return true;
    default:
        return false;
    }
}

/* QuantizedMatMul by zeros (fully known output within the folding limit):
 * the node becomes a zeros Const of Toutput (ReplaceOperationWithConstant),
 * and its outputs 1 and 2 (min_out, max_out) become the float scalar Consts
 * ConstantFolding/<n>-quantized_matmul_min_out / -max_out holding Toutput's
 * range, each waiting on every input of the node, their readers moved to
 * them (AddQuantizedMatMulMinMaxOutConstNodes). TensorFlow fails the pass
 * when those names are taken; here the rule does not fire. */
static fl_status quantized_matmul_by_zero(fl_pass_ctx *pc, fl_node *n, bool *done) {
    fl_graph *g = pc->c->g;
    const fl_tensor *out = &n->outputs[0];
    double lo, hi;
    if (n->n_outputs != 3 || !quantized_range(out->dtype, &lo, &hi)) {
        return FL_OK;
    }
    fl_value *zeros = filled_value(pc, out->dtype, &out->shape, 0.0);
    const char *names[2] = {cf_name(pc, n, "-quantized_matmul_min_out"),
                            cf_name(pc, n, "-quantized_matmul_max_out")};
    if (!zeros || !names[0] || !names[1]) {
        return pc->c->a->failed ? fl__diag_oom(pc->c->d) : FL_OK;
    }
    if (fl__graph_find(g, names[0]) || fl__graph_find(g, names[1])) {
        return FL_OK;
    }
    fl_node *consts[2];
    for (int k = 0; k < 2; k++) {
        fl_value *v = fl__value_new(pc->c->a, FL_DT_FLOAT, 0, NULL);
        if (!v) {
            return fl__diag_oom(pc->c->d);
        }
        fl__value_set_f64(v, 0, k ? hi : lo);
        consts[k] = new_const(pc, names[k], v, n->device, NULL);
        if (!consts[k]) {
            return fl__diag_oom(pc->c->d);
        }
        /* Grappler copies the node's inputs once they are control inputs:
         * the data inputs' anchors, then its own control inputs. */
        for (int i = 0; i < n->n_inputs; i++) {
            fl_status st = fl__add_ctrl_anchor(pc, consts[k], n->inputs[i]);
            if (st != FL_OK) {
                return st;
            }
        }
        for (int i = 0; i < n->n_ctrl; i++) {
            if (fl__node_add_ctrl(g, consts[k], n->ctrl[i]) != FL_OK) {
                return fl__diag_oom(pc->c->d);
            }
        }
        fl__graph_replace_uses(g, n, 1 + k, consts[k], 0);
    }
    fl__ledger_note(pc, "multiply_by_zero", n,
                    "%s by zeros -> Const zeros, min/max outputs -> '%s', '%s'", n->op, names[0],
                    names[1]);
    pc->rewritten++;
    *done = true;
    return fl__node_make_const_anchored(pc, n, zeros);
}

/* ------------------------------------------------------------------------- */

static fl_status simplify_arith(fl_pass_ctx *pc, fl_node *n, bool *done) {
    int k = n->kind;
    bool is_mul = k == FL_OP_MUL || k == FL_OP_MUL_NO_NAN || k == FL_OP_LOGICAL_AND;
    bool is_matmul = k == FL_OP_MATMUL || k == FL_OP_BATCH_MATMUL || k == FL_OP_BATCH_MATMUL_V2 ||
                     k == FL_OP_BATCH_MATMUL_V3 || k == FL_OP_QUANTIZED_MATMUL;
    bool is_add = is_add_op(n) || k == FL_OP_BIAS_ADD || k == FL_OP_LOGICAL_OR;
    bool is_sub = k == FL_OP_SUB;
    bool is_div =
        k == FL_OP_DIV || k == FL_OP_REAL_DIV || k == FL_OP_TRUNCATE_DIV || k == FL_OP_XDIVY;
    if ((!is_mul && !is_matmul && !is_add && !is_sub && !is_div) || n->n_inputs < 2) {
        return FL_OK;
    }
    const fl_node *x = n->inputs[0].node, *y = n->inputs[1].node;
    const fl_shape *out = &n->outputs[0].shape;
    bool ym = fl__shape_same(out, &fl_node_in(n, 1)->shape);
    bool xm = fl__shape_same(out, &fl_node_in(n, 0)->shape);
    bool x0 = is_zeros(x), x1 = !x0 && is_ones(x);
    if ((is_mul && x1) || (is_add && x0)) {
        const char *rule = is_mul ? "multiply_by_one" : "add_zero";
        if (ym) {
            fl__ledger_note(pc, rule, n, "%s with neutral constant '%s' -> Identity", n->op,
                            x->name);
            pc->rewritten++;
            *done = true;
            return fl__node_make_identity(pc, n, 1);
        }
        return xm ? replace_with_broadcast_to(pc, n, 1, rule, done) : FL_OK;
    }
    if (ym && is_sub && x0) {
        fl__ledger_note(pc, "ReplaceSubtractionFromZeroByNegation", n, "%s(0, y) -> Neg(y)", n->op);
        *done = true;
        return replace_unary_of_y(pc, n, "Neg");
    }
    if (ym && is_div && x1 && float_or_complex(type_attr(n, "T"))) {
        fl__ledger_note(pc, "ReplaceDivisionOfOnesByReciprocal", n, "%s(1, y) -> Reciprocal(y)",
                        n->op);
        *done = true;
        return replace_unary_of_y(pc, n, "Reciprocal");
    }
    bool y0 = is_zeros(y), y1 = !y0 && is_ones(y);
    if (((is_mul || is_div) && y1) || ((is_add || is_sub) && y0)) {
        const char *rule = is_mul || is_div ? "multiply_by_one" : "add_zero";
        if (xm) {
            fl__ledger_note(pc, rule, n, "%s with neutral constant '%s' -> Identity", n->op,
                            y->name);
            pc->rewritten++;
            *done = true;
            return fl__node_make_identity(pc, n, 0);
        }
        return ym ? replace_with_broadcast_to(pc, n, 0, rule, done) : FL_OK;
    }
    bool concrete = fl__shape_is_concrete(out);
    if (concrete && k == FL_OP_LOGICAL_OR && (x1 || y1)) {
        return replace_with_filled(pc, n, 1.0, "logical_or_true", "with an all-true input", done);
    }
    if ((x0 || y0) && (is_mul || is_matmul)) {
        if (concrete && tensor_bytes(&n->outputs[0]) <= (uint64_t)pc->opt->max_folded_bytes) {
            if (k == FL_OP_QUANTIZED_MATMUL) {
                return quantized_matmul_by_zero(pc, n, done);
            }
            fl_status st = replace_with_filled(pc, n, 0.0, "multiply_by_zero", "by zeros", done);
            if (st != FL_OK || *done) {
                return st;
            }
        }
        if (is_mul && x0) {
            if (xm) {
                fl__ledger_note(pc, "multiply_by_zero", n, "%s by zeros '%s' -> Identity", n->op,
                                x->name);
                pc->rewritten++;
                *done = true;
                return fl__node_make_identity(pc, n, 0);
            }
            return ym ? replace_with_broadcast_to(pc, n, 0, "multiply_by_zero", done) : FL_OK;
        }
        if (is_mul && y0) {
            if (ym) {
                fl__ledger_note(pc, "multiply_by_zero", n, "%s by zeros '%s' -> Identity", n->op,
                                y->name);
                pc->rewritten++;
                *done = true;
                return fl__node_make_identity(pc, n, 1);
            }
            return xm ? replace_with_broadcast_to(pc, n, 1, "multiply_by_zero", done) : FL_OK;
        }
    }
    return FL_OK;
}

/* Rule 3, ops that leave their input unchanged for these parameters. Returns
 * the data input to keep, or -1. */
static int noop_input(const fl_node *n, const char **rule) {
    if (n->n_outputs < 1) {
        return -1;
    }
    const fl_shape *out = &n->outputs[0].shape;
    const fl_shape *x = n->n_inputs ? &fl_node_in(n, 0)->shape : NULL;
    const fl_value *p = const_value(n, 1);
    switch (n->kind) {
    case FL_OP_SPLIT:
        *rule = "split_one";
        return n->n_outputs == 1 && n->n_inputs == 2 ? 1 : -1;
    case FL_OP_SPLIT_V:
        *rule = "split_one";
        return n->n_outputs == 1 && n->n_inputs == 3 ? 0 : -1;
    case FL_OP_RANDOM_SHUFFLE:
        /* RemoveRandomShuffle: a scalar, or dim 0 of size 1. */
        *rule = "RemoveRandomShuffle";
        return x && x->rank >= 0 &&
                       (x->rank == 0 || (fl_sym_is_known(x->dims[0]) && x->dims[0].k == 1))
                   ? 0
                   : -1;
    case FL_OP_TILE:
        *rule = "tile_by_ones";
        if (!p) {
            return -1;
        }
        for (int64_t i = 0; i < p->n; i++) {
            if (ival(p, i) != 1) {
                return -1;
            }
        }
        return 0;
    case FL_OP_PAD:
        *rule = "pad_by_zeros";
        if (!p) {
            return -1;
        }
        for (int64_t i = 0; i < p->n; i++) {
            if (ival(p, i) != 0) {
                return -1;
            }
        }
        return 0;
    case FL_OP_TRANSPOSE: {
        *rule = "identity_transpose";
        if (!p || !x || x->rank < 0 || p->n != x->rank) {
            return -1;
        }
        /* The dims that are not known 1 must keep their order. */
        int64_t last = -1;
        for (int64_t i = 0; i < p->n; i++) {
            int64_t a = ival(p, i);
            if (a < 0 || a >= x->rank) {
                return -1;
            }
            fl_sym d = x->dims[a];
            if (fl_sym_is_known(d) && d.k == 1) {
                continue;
            }
            if (a < last) {
                return -1;
            }
            last = a;
        }
        return 0;
    }
    case FL_OP_SLICE: {
        *rule = "full_slice";
        const fl_value *sz = const_value(n, 2);
        if (!p || !sz || !x || x->rank < 0 || p->n != x->rank || sz->n != x->rank) {
            return -1;
        }
        for (int i = 0; i < x->rank; i++) {
            int64_t s = ival(sz, i);
            if (ival(p, i) != 0) {
                return -1;
            }
            if (s != -1 && !(fl_sym_is_known(x->dims[i]) && x->dims[i].k == s)) {
                return -1;
            }
        }
        return 0;
    }
    case FL_OP_RESHAPE:
        *rule = "reshape_to_same_shape";
        return p && x && fl__shape_is_concrete(x) && fl__shape_same(x, out) ? 0 : -1;
    case FL_OP_SQUEEZE:
        *rule = "squeeze_nothing";
        if (!x || !fl__shape_is_concrete(x)) {
            return -1;
        }
        for (int i = 0; i < x->rank; i++) {
            if (x->dims[i].k <= 1) {
                return -1;
            }
        }
        return 0;
    case FL_OP_REVERSE_V2:
        *rule = "reverse_size_one";
        if (!p || !x || x->rank < 0) {
            return -1;
        }
        for (int64_t i = 0; i < p->n; i++) {
            int64_t a = ival(p, i);
            a = a < 0 ? a + x->rank : a;
            if (a < 0 || a >= x->rank || !fl_sym_is_known(x->dims[a]) || x->dims[a].k != 1) {
                return -1;
            }
        }
        return 0;
    case FL_OP_SUM:
    case FL_OP_MEAN:
    case FL_OP_MAX:
    case FL_OP_MIN:
    case FL_OP_PROD:
    case FL_OP_ALL:
    case FL_OP_ANY: {
        *rule = "reduce_nothing";
        if (!p || !x || x->rank < 0) {
            return -1;
        }
        if (p->n == 0) {
            return fl__shape_same(x, out) ? 0 : -1;
        }
        const fl_attr *kd = fl__node_attr(n, "keep_dims");
        if (!kd || kd->kind != FL_ATTR_B || !kd->v.b) {
            return -1;
        }
        for (int64_t i = 0; i < p->n; i++) {
            int64_t a = ival(p, i);
            a = a < 0 ? a + x->rank : a;
            if (a < 0 || a >= x->rank || !fl_sym_is_known(x->dims[a]) || x->dims[a].k != 1) {
                return -1;
            }
        }
        return 0;
    }
    case FL_OP_STRIDED_SLICE: {
        *rule = "SimplifyStridedSlice";
        const fl_value *e = const_value(n, 2), *st = const_value(n, 3);
        if (n->n_inputs != 4 || !p || !e || !st || !x || x->rank < 0 ||
            int_attr(n, "new_axis_mask", 0) || int_attr(n, "shrink_axis_mask", 0)) {
            return -1;
        }
        for (int j = 0; j < x->rank; j++) {
            if (!fl_sym_is_known(x->dims[j])) {
                return -1;
            }
        }
        int64_t bm = int_attr(n, "begin_mask", 0), em = int_attr(n, "end_mask", 0);
        int64_t ell = int_attr(n, "ellipsis_mask", 0), ns = st->n;
        /* Which input dims an ellipsis (given, or implied after the last
         * stride) covers. */
        int eidx = -1, n_exp = 0;
        bool expanded[64] = {false};
        if (x->rank > 64) {
            return -1;
        }
        for (int j = 0; j < x->rank; j++) {
            if ((j < 63 && (ell & ((int64_t)1 << j))) || (eidx == -1 && j >= ns)) {
                eidx = j;
            }
            if (eidx != -1 && x->rank > ns + j - eidx) {
                expanded[j] = true;
                n_exp++;
            }
        }
        for (int j = 0; j < x->rank; j++) {
            if (expanded[j]) {
                continue;
            }
            int i = eidx != -1 && j >= eidx + n_exp ? j - n_exp : j;
            if (i < 0 || i >= p->n || i >= e->n || i >= ns || i > 62) {
                return -1;
            }
            bool b_ok = (bm & ((int64_t)1 << i)) || ival(p, i) == 0;
            bool e_ok = (em & ((int64_t)1 << i)) || ival(e, i) == x->dims[j].k;
            if (!b_ok || !e_ok || ival(st, i) != 1) {
                return -1;
            }
        }
        return 0;
    }
    default:
        return -1;
    }
}

/* ------------------------------------------------------------------------- */
/* ReduceDivToReciprocalMul                                                   */
/* ------------------------------------------------------------------------- */

static fl_status reduce_div_to_reciprocal_mul(fl_pass_ctx *pc, fl_node *n, bool *done) {
    if ((n->kind != FL_OP_DIV && n->kind != FL_OP_REAL_DIV && n->kind != FL_OP_XDIVY) ||
        n->n_inputs < 2 || !is_const(n->inputs[1].node)) {
        return FL_OK;
    }
    int t = type_attr(n, "T");
    if (t == FL_DT_INVALID || (n->kind == FL_OP_DIV && !float_or_complex(t))) {
        return FL_OK;
    }
    const char *name = cf_name(pc, n, "_recip");
    if (!name) {
        return fl__diag_oom(pc->c->d);
    }
    if (fl__graph_find(pc->c->g, name)) {
        return FL_OK;
    }
    fl_node *r = fl__op_add_op(pc->c->g, name, "Reciprocal", 1, &n->inputs[1], 1, pc->c->d);
    if (!r || set_type_attr(pc, r, "T", t) != FL_OK) {
        return fl__diag_oom(pc->c->d);
    }
    r->device = n->device;
    pc->added++;
    if (n->kind == FL_OP_XDIVY) {
        /* Xdivy(x, c) -> MulNoNan(Reciprocal(c), x): 0 where x is 0. */
        fl__ledger_note(pc, "ReduceDivToReciprocalMul", n,
                        "Xdivy(x, const '%s') -> MulNoNan(Reciprocal, x)", n->inputs[1].node->name);
        n->inputs[1] = n->inputs[0];
        n->inputs[0] = (fl_input){r, 0};
        fl__node_become(pc->c->g, n, "MulNoNan");
        n->src = NULL;
        pc->rewritten++;
        *done = true;
        return settle(pc, r);
    }
    fl__ledger_note(pc, "ReduceDivToReciprocalMul", n, "%s(x, const '%s') -> Mul(x, Reciprocal)",
                    n->op, n->inputs[1].node->name);
    n->inputs[1] = (fl_input){r, 0};
    fl__node_become(pc->c->g, n, "Mul");
    n->src = NULL;
    pc->rewritten++;
    *done = true;
    return settle(pc, r);
}

/* ------------------------------------------------------------------------- */
/* ConstantPushDown, ConstantPushDownBiasAdd                                  */
/* ------------------------------------------------------------------------- */

typedef struct push_down {
    fl_node *op_child, *const_child, *left_leaf, *right_leaf;
    bool left_child_const, left_leaf_const, right_leaf_const;
} push_down;

/* PrepareConstantPushDown: parent(C, op_child(leaf, leaf)) with exactly one
 * constant child... */
static bool prepare_push_down(const fl_graph *g, const fl_node *parent, push_down *x) {
    if (parent->n_inputs != 2) {
        return false;
    }
    fl_node *l = parent->inputs[0].node, *r = parent->inputs[1].node;
    bool lc = is_const(l), rc = is_const(r);
    if (!lc && !rc) {
        return false;
    }
    x->left_child_const = lc;
    x->op_child = lc ? r : l;
    x->const_child = lc ? l : r;
    if (!same_device(parent, x->op_child) || !same_device(parent, x->const_child)) {
        return false;
    }
    fl_node *c = x->op_child;
    if (c->n_inputs < 2 || fl__preserved(c) || data_uses(g, c) > 1) {
        return false;
    }
    int t = type_attr(parent, "T");
    if (t == FL_DT_INVALID || t == FL_DT_BFLOAT16 || t == FL_DT_HALF) {
        return false;
    }
    if (has_ctrl(x->const_child, c)) {
        return false; /* the swap would close a cycle */
    }
    x->left_leaf = c->inputs[0].node;
    x->right_leaf = c->inputs[1].node;
    x->left_leaf_const = is_const(x->left_leaf);
    x->right_leaf_const = is_const(x->right_leaf);
    if (x->left_leaf_const && x->right_leaf_const) {
        return false; /* the child folds by itself */
    }
    return same_device(parent, x->left_leaf) && same_device(parent, x->right_leaf);
}

/* Dim of s as Grappler sees it: the size, or -1 when not a known number. */
static int64_t gdim(const fl_shape *s, int i) {
    return fl_sym_is_known(s->dims[i]) ? s->dims[i].k : -1;
}

static fl_status constant_push_down(fl_pass_ctx *pc, fl_node *n, bool *done) {
    bool is_add = is_add_op(n), is_mul = n->kind == FL_OP_MUL, is_sub = n->kind == FL_OP_SUB,
         is_div = n->kind == FL_OP_DIV;
    if (!is_add && !is_mul && !is_sub && !is_div) {
        return FL_OK;
    }
    bool sym = is_add || is_mul;
    push_down x;
    if (!prepare_push_down(pc->c->g, n, &x)) {
        return FL_OK;
    }
    fl_node *c = x.op_child;
    bool c_add = is_add_op(c), c_mul = c->kind == FL_OP_MUL, c_sub = c->kind == FL_OP_SUB,
         c_div = c->kind == FL_OP_DIV;
    bool add_sub = (is_add || is_sub) && (c_add || c_sub);
    bool mul_div = (is_mul || is_div) && (c_mul || c_div);
    if (!add_sub && !mul_div) {
        return FL_OK;
    }
    bool c_sym = c_add || c_mul;
    if (!(sym && c_sym) && !float_or_complex(type_attr(n, "T"))) {
        return FL_OK;
    }
    /* The constant must not be larger than the leaf it trades places with
     * (checked against the shape Grappler reads, see the file header). */
    const fl_node *y_node = x.left_leaf_const ? x.left_leaf : x.right_leaf;
    if (!is_const(y_node)) {
        const fl_shape *cs = &fl_node_in(n, x.left_child_const ? 0 : 1)->shape;
        const fl_shape *xs = &fl_node_in(c, x.left_leaf_const ? 0 : 1)->shape;
        if (fl__shape_is_concrete(cs) && fl__shape_is_concrete(xs)) {
            uint64_t ce = 1, xe = 1;
            for (int i = 0; i < cs->rank; i++) {
                ce *= (uint64_t)cs->dims[i].k;
            }
            for (int i = 0; i < xs->rank; i++) {
                xe *= (uint64_t)xs->dims[i].k;
            }
            if (ce > xe) {
                return FL_OK;
            }
        } else if (cs->rank > 0 && xs->rank >= 0) {
            for (int i = 0; i < cs->rank && i < xs->rank; i++) {
                if (gdim(xs, i) >= 0 && gdim(cs, i) > gdim(xs, i)) {
                    return FL_OK;
                }
            }
        }
    }
    int xi = x.left_leaf_const ? 1 : 0;
    fl_input in_x = c->inputs[xi], in_y = c->inputs[1 - xi];
    fl_input in_c = n->inputs[x.left_child_const ? 0 : 1];
    fl_input in_op = n->inputs[x.left_child_const ? 1 : 0];
    fl__ledger_note(pc, "ConstantPushDown", n,
                    "%s(%s, %s) with constant '%s' -> constant pushed into '%s'", n->op,
                    n->inputs[0].node->name, n->inputs[1].node->name, x.const_child->name, c->name);
    if (sym && c_sym) {
        n->inputs[0] = in_x;
        n->inputs[1] = in_op;
        c->inputs[0] = in_c;
        c->inputs[1] = in_y;
    } else {
        bool child_neg = !sym && x.left_child_const;
        bool neg_c = !sym && !x.left_child_const;
        bool neg_x = (!c_sym && x.left_leaf_const) != child_neg;
        bool neg_y = (!c_sym && !x.left_leaf_const) != child_neg;
        const char *sym_op = is_add || is_sub ? "Add" : "Mul";
        const char *nonsym_op = is_add || is_sub ? "Sub" : "Div";
        fl__node_become(pc->c->g, n, neg_x || (neg_c && neg_y) ? nonsym_op : sym_op);
        n->inputs[0] = neg_x ? in_op : in_x;
        n->inputs[1] = neg_x ? in_x : in_op;
        fl__node_become(pc->c->g, c, neg_c != neg_y ? nonsym_op : sym_op);
        c->inputs[0] = neg_c ? in_y : in_c;
        c->inputs[1] = neg_c ? in_c : in_y;
    }
    n->src = NULL;
    c->src = NULL;
    pc->c->g->order = NULL;
    pc->rewritten += 2;
    *done = true;
    return settle(pc, c);
}

static fl_status constant_push_down_bias_add(fl_pass_ctx *pc, fl_node *n, bool *done) {
    bool parent_bias = n->kind == FL_OP_BIAS_ADD;
    if (!parent_bias && !is_add_op(n)) {
        return FL_OK;
    }
    push_down x;
    if (!prepare_push_down(pc->c->g, n, &x) || (x.left_child_const && parent_bias)) {
        return FL_OK;
    }
    fl_node *c = x.op_child;
    bool child_bias = c->kind == FL_OP_BIAS_ADD;
    if (!child_bias && !is_add_op(c)) {
        return FL_OK;
    }
    const fl_tensor *p0 = fl_node_in(n, 0), *p1 = fl_node_in(n, 1);
    const fl_tensor *c0 = fl_node_in(c, 0), *c1 = fl_node_in(c, 1);
    if (p0->shape.rank < 0 || p1->shape.rank < 0 || c0->shape.rank < 0 || c1->shape.rank < 0) {
        return FL_OK;
    }
    if (c0->shape.rank != 1 && c1->shape.rank != 1) {
        return FL_OK;
    }
    int vec = c0->shape.rank == 1 ? 0 : 1, mat = 1 - vec;
    const fl_tensor *vt = fl_node_in(c, vec), *mt = fl_node_in(c, mat);
    int ci = x.left_child_const ? 0 : 1;
    const fl_tensor *ct = fl_node_in(n, ci);
    int swap = -1;
    if (!parent_bias && child_bias && ct->shape.rank == mt->shape.rank && ct->dtype == mt->dtype) {
        swap = mat;
    } else if (ct->shape.rank == 1 && ct->dtype == vt->dtype) {
        swap = vec;
    }
    if (swap < 0 || is_const(c->inputs[swap].node)) {
        return FL_OK;
    }
    fl__ledger_note(pc, "ConstantPushDownBiasAdd", n, "constant '%s' swapped with '%s' of '%s'",
                    x.const_child->name, c->inputs[swap].node->name, c->name);
    fl_input t = n->inputs[ci];
    n->inputs[ci] = c->inputs[swap];
    c->inputs[swap] = t;
    n->src = NULL;
    c->src = NULL;
    pc->c->g->order = NULL;
    pc->rewritten += 2;
    *done = true;
    return settle(pc, c);
}

/* ------------------------------------------------------------------------- */
/* MulConvPushDown                                                            */
/* ------------------------------------------------------------------------- */

/* IsValidConstShapeForMulConvPushDown. */
static bool mul_conv_const_ok(const char *fmt, const fl_shape *filter, const fl_shape *cs) {
    if (!fl__shape_is_concrete(cs)) {
        return false;
    }
    int64_t ne = 1;
    for (int i = 0; i < cs->rank; i++) {
        ne *= cs->dims[i].k;
    }
    if (cs->rank <= (int)strlen(fmt) && ne == 1) {
        return true;
    }
    if (strcmp(fmt, "NHWC") != 0 && strcmp(fmt, "NDHWC") != 0) {
        return false;
    }
    /* Broadcasting the constant onto the filter must leave the filter's
     * shape, and only the last (output channel) dim may exceed 1. */
    if (!fl__shape_is_concrete(filter) || cs->rank > filter->rank) {
        return false;
    }
    for (int i = 0; i < cs->rank; i++) {
        int64_t c = cs->dims[i].k, f = filter->dims[filter->rank - cs->rank + i].k;
        if (c != f && c != 1) {
            return false;
        }
        if (i < cs->rank - 1 && c > 1) {
            return false;
        }
    }
    return true;
}

static fl_status mul_conv_push_down(fl_pass_ctx *pc, fl_node *n, bool *done) {
    fl_graph *g = pc->c->g;
    if ((n->kind != FL_OP_MUL && n->kind != FL_OP_MUL_NO_NAN) || n->n_inputs != 2) {
        return FL_OK;
    }
    fl_node *l = n->inputs[0].node, *r = n->inputs[1].node;
    bool lc = is_const(l), rc = is_const(r);
    if (!lc && !rc) {
        return FL_OK;
    }
    fl_node *conv = lc ? r : l, *cst = lc ? l : r;
    if ((conv->kind != FL_OP_CONV2D && conv->kind != FL_OP_CONV3D) || !same_device(n, l) ||
        !same_device(n, r)) {
        return FL_OK;
    }
    if (conv->n_inputs < 2 || data_uses(g, conv) > 1 || fl__preserved(conv)) {
        return FL_OK;
    }
    bool cl = is_const(conv->inputs[0].node), cr = is_const(conv->inputs[1].node);
    if (cl == cr) {
        return FL_OK; /* no constant operand, or the conv folds by itself */
    }
    if (!fl__shape_same(&n->outputs[0].shape, &conv->outputs[0].shape)) {
        return FL_OK;
    }
    const char *fmt = "NHWC";
    const fl_attr *df = fl__node_attr(conv, "data_format");
    if (df && df->kind == FL_ATTR_S) {
        fmt = df->v.s.p;
    }
    if (!mul_conv_const_ok(fmt, &fl_node_in(conv, 1)->shape, &fl_node_in(n, lc ? 0 : 1)->shape)) {
        return FL_OK;
    }
    const char *new_name = fl__arena_printf(pc->c->a, "%s/merged_input", conv->name);
    if (!new_name) {
        return fl__diag_oom(pc->c->d);
    }
    if (fl__graph_find(g, new_name)) {
        return FL_OK;
    }
    int ci = cl ? 0 : 1;
    fl_input wc = conv->inputs[ci];
    if (has_ctrl(cst, conv)) {
        drop_ctrl(cst, conv);
        if (fl__node_add_ctrl(g, cst, wc.node) != FL_OK) {
            return fl__diag_oom(pc->c->d);
        }
    }
    fl__ledger_note(pc, "MulConvPushDown", n, "%s(%s, '%s') -> %s with filter %s(%s, '%s')", n->op,
                    conv->op, cst->name, conv->op, n->op, wc.node->name, cst->name);
    /* The conv takes the Mul's place: its consumers, its name, its role as
     * an output. */
    const char *mul_name = n->name;
    fl__graph_replace_uses(g, n, 0, conv, 0);
    fl__graph_replace_ctrl_uses(g, n, conv);
    if (fl__graph_rename(g, n, new_name, pc->c->d) != FL_OK ||
        fl__graph_rename(g, conv, mul_name, pc->c->d) != FL_OK) {
        return pc->c->d->status;
    }
    if (fl__preserved(n)) {
        n->flags &= ~(uint32_t)FL_NODE_PRESERVE;
        conv->flags |= FL_NODE_PRESERVE;
    }
    conv->inputs[ci] = (fl_input){n, 0};
    n->inputs[lc ? 1 : 0] = wc;
    n->src = NULL;
    conv->src = NULL;
    g->order = NULL;
    conv->outputs[0].n_consumers = n->outputs[0].n_consumers;
    n->outputs[0].n_consumers = 1;
    pc->rewritten += 2;
    *done = true;
    return settle(pc, n);
}

/* ------------------------------------------------------------------------- */
/* PartialConstPropThroughIdentityN                                           */
/* ------------------------------------------------------------------------- */

static fl_status partial_identity_n(fl_pass_ctx *pc, fl_node *n, bool *done) {
    if (n->kind != FL_OP_IDENTITY_N || n->n_inputs < 1 || n->n_ctrl) {
        return FL_OK;
    }
    size_t moved = 0;
    for (int i = 0; i < n->n_inputs && i < n->n_outputs; i++) {
        if (is_const(n->inputs[i].node)) {
            moved += fl__graph_replace_uses(pc->c->g, n, i, n->inputs[i].node, n->inputs[i].port);
        }
    }
    if (moved) {
        fl__ledger_note(pc, "PartialConstPropThroughIdentityN", n,
                        "%zu consumers now read the constant inputs directly", moved);
        pc->rewritten++;
        *done = true;
    }
    return FL_OK;
}

/* ------------------------------------------------------------------------- */
/* PartialAssocOpConstFolding (AddN), PartialConcatConstFolding, MergeConcat  */
/* ------------------------------------------------------------------------- */

static fl_status partial_addn(fl_pass_ctx *pc, fl_node *n, bool *done) {
    bool acc = n->kind == FL_OP_ACCUMULATE_NV2;
    if ((n->kind != FL_OP_ADD_N && !acc) || n->n_inputs <= 2) {
        return FL_OK;
    }
    int nc = 0;
    for (int i = 0; i < n->n_inputs; i++) {
        nc += is_const(n->inputs[i].node);
    }
    if (acc && nc == n->n_inputs) {
        /* AccumulateNV2 of constants -> AddN, which folds (Grappler: next round). */
        fl__ledger_note(pc, "PartialAssocOpConstFolding", n,
                        "AccumulateNV2 of %d constants -> AddN", nc);
        fl_node old = *n;
        fl_status st = copy_attrs(pc, n, &old);
        if (st != FL_OK) {
            return st;
        }
        fl__node_del_attr(n, "shape");
        fl__node_become(pc->c->g, n, "AddN");
        n->src = NULL;
        pc->rewritten++;
        *done = true;
        return settle(pc, n);
    }
    if (nc <= 1 || nc >= n->n_inputs) {
        return FL_OK;
    }
    char suffix[48];
    snprintf(suffix, sizeof suffix, "_partial_split_%d", nc);
    const char *name = cf_name(pc, n, suffix);
    fl_input *ci = fl__arena_calloc(pc->c->a, (size_t)n->n_inputs, sizeof(fl_input));
    fl_input *keep = fl__arena_calloc(pc->c->a, (size_t)n->n_inputs, sizeof(fl_input));
    if (!name || !ci || !keep) {
        return fl__diag_oom(pc->c->d);
    }
    if (fl__graph_find(pc->c->g, name)) {
        return FL_OK;
    }
    int k = 0, w = 0;
    for (int i = 0; i < n->n_inputs; i++) {
        if (is_const(n->inputs[i].node)) {
            ci[k++] = n->inputs[i];
        }
    }
    fl_node *m = new_op_like(pc, name, "AddN", n, k, ci);
    if (!m || set_int_attr(pc, m, "N", k) != FL_OK) {
        return fl__diag_oom(pc->c->d);
    }
    fl__node_del_attr(m, "shape"); /* the split of an AccumulateNV2 is an AddN */
    bool first = true;
    for (int i = 0; i < n->n_inputs; i++) {
        if (!is_const(n->inputs[i].node)) {
            keep[w++] = n->inputs[i];
        } else if (first) {
            keep[w++] = (fl_input){m, 0};
            first = false;
        }
    }
    fl__ledger_note(pc, "PartialAssocOpConstFolding", n, "%d constant inputs of %d -> AddN '%s'", k,
                    n->n_inputs, name);
    if (fl__node_set_inputs(pc->c->g, n, w, keep) != FL_OK ||
        set_int_attr(pc, n, "N", w) != FL_OK) {
        return fl__diag_oom(pc->c->d);
    }
    n->src = NULL;
    pc->rewritten++;
    *done = true;
    return settle(pc, m);
}

static fl_status partial_concat(fl_pass_ctx *pc, fl_node *n, bool *done) {
    fl_graph *g = pc->c->g;
    if ((n->kind != FL_OP_CONCAT && n->kind != FL_OP_CONCAT_V2) ||
        strstr(n->name, "_partial_split_") || n->n_inputs <= 3) {
        return FL_OK;
    }
    int begin = 0, end = n->n_inputs, axis = 0;
    if (n->kind == FL_OP_CONCAT) {
        begin = 1;
    } else {
        end = n->n_inputs - 1;
        axis = n->n_inputs - 1;
    }
    int runs[64][2], n_runs = 0;
    for (int first = begin, last = begin; last < end && n_runs < 64; first = last) {
        while (first < end && !is_const(n->inputs[first].node)) {
            first++;
        }
        last = first + 1;
        while (last < end && is_const(n->inputs[last].node)) {
            last++;
        }
        if (first < end && last - first > 1) {
            runs[n_runs][0] = first;
            runs[n_runs][1] = last;
            n_runs++;
        }
    }
    if (!n_runs || (n_runs == 1 && runs[0][0] == begin && runs[0][1] == end)) {
        return FL_OK;
    }
    bool *drop = fl__arena_calloc(pc->c->a, (size_t)n->n_inputs, sizeof(bool));
    fl_input *in = fl__arena_calloc(pc->c->a, (size_t)n->n_inputs + 1, sizeof(fl_input));
    fl_node **added = fl__arena_calloc(pc->c->a, (size_t)n_runs, sizeof(fl_node *));
    if (!drop || !in || !added) {
        return fl__diag_oom(pc->c->d);
    }
    fl__ledger_note(pc, "PartialConcatConstFolding", n, "%d run(s) of constant inputs -> ConcatV2",
                    n_runs);
    for (int r = 0; r < n_runs; r++) {
        int first = runs[r][0], len = runs[r][1] - first;
        const char *name = cf_name(pc, n, "_partial_split");
        do {
            name = name ? fl__arena_printf(pc->c->a, "%s_%d", name, first) : NULL;
        } while (name && fl__graph_find(g, name));
        if (!name) {
            return fl__diag_oom(pc->c->d);
        }
        memcpy(in, &n->inputs[first], (size_t)len * sizeof(fl_input));
        in[len] = n->inputs[axis];
        fl_node *m = new_op_like(pc, name, "ConcatV2", n, len + 1, in);
        if (!m || set_int_attr(pc, m, "N", len) != FL_OK) {
            return fl__diag_oom(pc->c->d);
        }
        added[r] = m;
        n->inputs[first] = (fl_input){m, 0};
        for (int i = first + 1; i < first + len; i++) {
            drop[i] = true;
        }
    }
    int w = 0;
    for (int i = 0; i < n->n_inputs; i++) {
        if (!drop[i]) {
            in[w++] = n->inputs[i];
        }
    }
    if (fl__node_set_inputs(g, n, w, in) != FL_OK || set_int_attr(pc, n, "N", w - 1) != FL_OK) {
        return fl__diag_oom(pc->c->d);
    }
    n->src = NULL;
    pc->rewritten++;
    *done = true;
    for (int r = 0; r < n_runs; r++) {
        fl_status st = settle(pc, added[r]);
        if (st != FL_OK) {
            return st;
        }
    }
    return FL_OK;
}

/* ConcatV2's constant axis (GetConcatAxis). */
static bool concat_axis(const fl_node *n, int64_t *axis) {
    if (n->kind != FL_OP_CONCAT_V2 || n->n_inputs < 2) {
        return false;
    }
    const fl_value *v = const_value(n, n->n_inputs - 1);
    if (!v || v->n != 1 || !v->ints) {
        return false;
    }
    *axis = ival(v, 0);
    return true;
}

/* The task part of a device name ("/job:w/replica:0/task:1"), or "". */
static size_t task_len(const char *d) {
    const char *p = strstr(d, "/device:");
    return p ? (size_t)(p - d) : strlen(d);
}

static fl_status merge_concat(fl_pass_ctx *pc, fl_node *n, bool *done) {
    fl_graph *g = pc->c->g;
    int64_t axis, paxis;
    fl_node *parent;
    if (!concat_axis(n, &axis) || consumers_of(g, n, &parent, 1) != 1) {
        return FL_OK;
    }
    bool all_const = true;
    for (int i = 0; i < n->n_inputs - 1 && all_const; i++) {
        all_const = is_const(n->inputs[i].node);
    }
    if (all_const || !concat_axis(parent, &paxis) || axis != paxis) {
        return FL_OK;
    }
    const char *task = NULL;
    size_t tl = 0;
    for (int i = 0; i < parent->n_inputs - 1; i++) {
        const char *d = dev_of(parent->inputs[i].node);
        if (!*d) {
            continue;
        }
        size_t l = task_len(d);
        if (task && (l != tl || strncmp(task, d, l) != 0)) {
            return FL_OK; /* inputs from two tasks */
        }
        task = d;
        tl = l;
    }
    int w = 0, cap = parent->n_inputs + n->n_inputs;
    fl_input *in = fl__arena_calloc(pc->c->a, (size_t)cap, sizeof(fl_input));
    if (!in) {
        return fl__diag_oom(pc->c->d);
    }
    for (int i = 0; i < parent->n_inputs; i++) {
        if (parent->inputs[i].node == n && parent->inputs[i].port == 0) {
            for (int j = 0; j < n->n_inputs - 1; j++) {
                in[w++] = n->inputs[j];
            }
        } else {
            in[w++] = parent->inputs[i];
        }
    }
    fl__ledger_note(pc, "MergeConcat", n, "ConcatV2 merged into its consumer '%s'", parent->name);
    if (fl__node_set_inputs(g, parent, w, in) != FL_OK ||
        set_int_attr(pc, parent, "N", w - 1) != FL_OK) {
        return fl__diag_oom(pc->c->d);
    }
    fl_node **cs = n->ctrl;
    int ncs = n->n_ctrl;
    for (int k = ncs - 1; k >= 0; k--) {
        if (fl__node_add_ctrl(g, parent, cs[k]) != FL_OK) {
            return fl__diag_oom(pc->c->d);
        }
    }
    parent->src = NULL;
    /* The child becomes a NoOp on its old inputs (ReplaceOperationWithNoOp);
     * nothing reads it any more. */
    n->n_ctrl = 0;
    n->ctrl = NULL;
    for (int i = 0; i < n->n_inputs; i++) {
        fl_status st = fl__add_ctrl_anchor(pc, n, n->inputs[i]);
        if (st != FL_OK) {
            return st;
        }
    }
    n->n_inputs = 0;
    n->attrs = NULL;
    n->n_attrs = 0;
    n->n_outputs = 0;
    fl__node_become(g, n, "NoOp");
    n->src = NULL;
    pc->rewritten += 2;
    *done = true;
    return FL_OK;
}

/* ------------------------------------------------------------------------- */
/* SimplifySelect, SimplifyPack, SimplifyReduction (to Reshape)               */
/* ------------------------------------------------------------------------- */

static fl_status simplify_select(fl_pass_ctx *pc, fl_node *n, bool *done) {
    if ((n->kind != FL_OP_SELECT && n->kind != FL_OP_SELECT_V2) || n->n_inputs < 3) {
        return FL_OK;
    }
    const fl_node *p = n->inputs[0].node;
    bool all_true = is_ones(p), all_false = !all_true && is_zeros(p);
    if (!all_true && !all_false) {
        return FL_OK;
    }
    int live = all_true ? 1 : 2, dead = all_true ? 2 : 1;
    const fl_shape *ps = &fl_node_in(n, 0)->shape;
    const fl_shape *ts = &fl_node_in(n, 1)->shape, *es = &fl_node_in(n, 2)->shape;
    if (fl__shape_same(ts, es) && (fl__shape_same(ps, ts) || ps->rank == 0)) {
        fl__ledger_note(pc, "SimplifySelect", n, "%s with an all-%s predicate -> Identity(%s)",
                        n->op, all_true ? "true" : "false", n->inputs[live].node->name);
        /* Grappler's order: the live input, then the others as control
         * inputs in their swapped positions. */
        fl_node *ap = fl__ctrl_anchor(pc, n->inputs[0]);
        fl_node *ad = ap ? fl__ctrl_anchor(pc, n->inputs[dead]) : NULL;
        if (!ad) {
            return pc->c->d->status != FL_OK ? pc->c->d->status : fl__diag_oom(pc->c->d);
        }
        fl_node *cin[2] = {live == 1 ? ap : ad, live == 1 ? ad : ap};
        fl_input in = n->inputs[live];
        if (fl__node_set_inputs(pc->c->g, n, 1, &in) != FL_OK) {
            return fl__diag_oom(pc->c->d);
        }
        fl_status st = set_ctrl(pc, n, cin, 2, NULL, 0);
        if (st != FL_OK) {
            return st;
        }
        drop_ctrl(n, in.node);
        fl__node_become(pc->c->g, n, "Identity");
        n->src = NULL;
        pc->rewritten++;
        *done = true;
        return FL_OK;
    }
    return replace_with_broadcast_to(pc, n, live, "SimplifySelect", done);
}

static fl_status simplify_pack(fl_pass_ctx *pc, fl_node *n, bool *done) {
    if (n->kind != FL_OP_PACK || n->n_inputs != 1 || is_feed(n->inputs[0].node)) {
        return FL_OK;
    }
    const char *name = cf_name(pc, n, "_const_axis");
    if (!name) {
        return fl__diag_oom(pc->c->d);
    }
    if (fl__graph_find(pc->c->g, name)) {
        return FL_OK;
    }
    int64_t axis = int_attr(n, "axis", 0);
    fl_value *v = int_value(pc, FL_DT_INT32, 0, 1, &axis);
    fl_node *a = v ? fl__ctrl_anchor(pc, n->inputs[0]) : NULL;
    fl_node *c = a ? new_const(pc, name, v, n->device, a) : NULL;
    if (!c) {
        return fl__diag_oom(pc->c->d);
    }
    fl__ledger_note(pc, "SimplifyPack", n, "Pack of one input -> ExpandDims(%s, %lld)",
                    n->inputs[0].node->name, (long long)axis);
    fl_input in[2] = {n->inputs[0], {c, 0}};
    if (fl__node_set_inputs(pc->c->g, n, 2, in) != FL_OK) {
        return fl__diag_oom(pc->c->d);
    }
    fl__node_del_attr(n, "axis");
    fl__node_del_attr(n, "N");
    fl_status st = set_type_attr(pc, n, "Tdim", FL_DT_INT32);
    fl__node_become(pc->c->g, n, "ExpandDims");
    n->src = NULL;
    pc->rewritten++;
    *done = true;
    return st;
}

static bool is_reduction(int k) {
    return k == FL_OP_SUM || k == FL_OP_MEAN || k == FL_OP_MAX || k == FL_OP_MIN ||
           k == FL_OP_PROD || k == FL_OP_ALL || k == FL_OP_ANY;
}

static int64_t elems(const fl_shape *s) {
    int64_t e = 1;
    for (int i = 0; i < s->rank; i++) {
        e *= s->dims[i].k;
    }
    return e;
}

/* A single-element reduction without keep_dims -> Reshape to [1, ..., 1]. */
static fl_status simplify_reduction(fl_pass_ctx *pc, fl_node *n, bool *done) {
    if (!is_reduction(n->kind) || n->n_inputs < 2) {
        return FL_OK;
    }
    const fl_value *idx = const_value(n, 1);
    const fl_shape *in = &fl_node_in(n, 0)->shape, *out = &n->outputs[0].shape;
    if (!idx || idx->n == 0 || !fl__shape_is_concrete(in) || !fl__shape_is_concrete(out) ||
        elems(in) != 1 || elems(out) != 1 || int_attr(n, "keep_dims", 0) ||
        type_attr(n, "T") == FL_DT_INVALID) {
        return FL_OK;
    }
    const fl_attr *kd = fl__node_attr(n, "keep_dims");
    if (kd && kd->kind == FL_ATTR_B && kd->v.b) {
        return FL_OK;
    }
    const char *name = cf_name(pc, n, "_shape_const");
    if (!name) {
        return fl__diag_oom(pc->c->d);
    }
    if (fl__graph_find(pc->c->g, name)) {
        return FL_OK;
    }
    int64_t ones[256];
    for (int i = 0; i < out->rank && i < 256; i++) {
        ones[i] = 1;
    }
    fl_value *v = out->rank <= 256 ? int_value(pc, FL_DT_INT32, 1, out->rank, ones) : NULL;
    fl_node *c = v ? new_const(pc, name, v, n->device, n->inputs[1].node) : NULL;
    if (!c) {
        return fl__diag_oom(pc->c->d);
    }
    fl__ledger_note(pc, "SimplifyReduction", n, "%s of a single element -> Reshape", n->op);
    n->inputs[1] = (fl_input){c, 0};
    fl__node_del_attr(n, "keep_dims");
    fl__node_del_attr(n, "Tidx");
    fl_status st = set_type_attr(pc, n, "Tshape", FL_DT_INT32);
    fl__node_become(pc->c->g, n, "Reshape");
    n->src = NULL;
    pc->rewritten++;
    *done = true;
    return st;
}

/* ------------------------------------------------------------------------- */
/* Materialization: ShapeN, BroadcastGradientArgs, reduction indices, Fill,   */
/* ZerosLike and OnesLike                                                     */
/* ------------------------------------------------------------------------- */

/* True when rewiring below n could make a graph output's shape more known:
 * some output reachable from n has a dim or rank inference left unknown.
 * The driver requires every output to keep its shape exactly, so the
 * materializations that can refine shapes (reduction indices,
 * BroadcastGradientArgs) do not fire then. */
static bool may_refine_output(fl_pass_ctx *pc, const fl_node *n) {
    const fl_graph *g = pc->c->g;
    bool *seen = fl__arena_calloc(pc->c->a, g->n_nodes + 1, sizeof(bool));
    const fl_node **stack = fl__arena_calloc(pc->c->a, g->n_nodes + 1, sizeof(fl_node *));
    if (!seen || !stack) {
        return true;
    }
    /* consumers by scan: the graph is small enough for the few candidates */
    size_t sp = 0;
    stack[sp++] = n;
    seen[n->id] = true;
    while (sp) {
        const fl_node *m = stack[--sp];
        if (fl__preserved(m)) {
            for (int k = 0; k < m->n_outputs; k++) {
                if (!fl__shape_is_determined(&m->outputs[k].shape)) {
                    return true;
                }
            }
        }
        for (size_t i = 0; i < g->n_nodes; i++) {
            const fl_node *u = g->nodes[i];
            if (seen[i] || (u->flags & FL_NODE_REMOVED)) {
                continue;
            }
            for (int j = 0; j < u->n_inputs; j++) {
                if (u->inputs[j].node == m) {
                    seen[i] = true;
                    stack[sp++] = u;
                    break;
                }
            }
        }
    }
    return false;
}

static fl_status materialize_shape_n(fl_pass_ctx *pc, fl_node *n, bool *done) {
    fl_graph *g = pc->c->g;
    if (n->kind != FL_OP_SHAPE_N) {
        return FL_OK;
    }
    for (int p = 0; p < n->n_inputs && p < n->n_outputs; p++) {
        const fl_shape *s = &fl_node_in(n, p)->shape;
        int dt = n->outputs[p].dtype;
        if (!fl__shape_is_concrete(s) || s->rank > 256 ||
            (dt != FL_DT_INT32 && dt != FL_DT_INT64)) {
            continue;
        }
        int64_t dims[256];
        bool fits = true;
        for (int i = 0; i < s->rank; i++) {
            dims[i] = s->dims[i].k;
            fits = fits && (dt == FL_DT_INT64 || dims[i] < INT32_MAX);
        }
        if (!fits) {
            continue;
        }
        bool used = false;
        for (size_t i = 0; i < g->n_nodes && !used; i++) {
            const fl_node *m = g->nodes[i];
            for (int j = 0; j < m->n_inputs && !(m->flags & FL_NODE_REMOVED); j++) {
                used = used || (m->inputs[j].node == n && m->inputs[j].port == p);
            }
        }
        if (!used) {
            continue;
        }
        char suffix[48];
        snprintf(suffix, sizeof suffix, "-matshapes-%d", p);
        const char *name = cf_name(pc, n, suffix);
        if (!name) {
            return fl__diag_oom(pc->c->d);
        }
        fl_node *c = fl__graph_find(g, name);
        if (!c) {
            fl_value *v = int_value(pc, dt, 1, s->rank, dims);
            c = v ? new_const(pc, name, v, n->device, n) : NULL;
            if (!c) {
                return fl__diag_oom(pc->c->d);
            }
        }
        fl__ledger_note(pc, "MaterializeShapes", n, "ShapeN output %d of a known shape -> '%s'", p,
                        c->name);
        fl__graph_replace_uses(g, n, p, c, 0);
        *done = true;
    }
    if (*done) {
        pc->rewritten++;
    }
    return FL_OK;
}

/* One input of BroadcastGradientArgs as Grappler's ExtractShape reads it:
 * known dims, -1 for unknown ones, and one id <= -2 per distinct symbol. */
static bool bcast_shape(const fl_node *m, int port, int64_t *out, int *rank, fl_sym *syms,
                        int *n_syms) {
    if (m->kind == FL_OP_SHAPE) {
        const fl_shape *s = &fl_node_in(m, 0)->shape;
        if (s->rank < 0 || s->rank > 64) {
            return false;
        }
        for (int i = 0; i < s->rank; i++) {
            fl_sym d = s->dims[i];
            if (fl_sym_is_known(d)) {
                out[i] = d.k;
            } else if (fl_sym_is_symbolic(d)) {
                int k = 0;
                while (k < *n_syms && !fl__sym_eq(syms[k], d)) {
                    k++;
                }
                if (k == *n_syms) {
                    syms[(*n_syms)++] = d;
                }
                out[i] = -2 - k;
            } else {
                out[i] = -1;
            }
        }
        *rank = s->rank;
        return true;
    }
    if (!is_const(m) || (m->flags & FL_NODE_STRIPPED)) {
        return false;
    }
    const fl_value *v = m->outputs[port].value;
    int dt = m->outputs[port].dtype;
    if (!v || (dt != FL_DT_INT32 && dt != FL_DT_INT64) || v->n > 64 || !fl__value_is_concrete(v)) {
        return false;
    }
    for (int64_t i = 0; i < v->n; i++) {
        out[i] = ival(v, i);
    }
    *rank = (int)v->n;
    return true;
}

/* BCast's grad_x/grad_y_reduce_idx; false when the shapes do not broadcast. */
static bool bcast_reduce_idx(const int64_t *a, int ra, const int64_t *b, int rb, int64_t *ia,
                             int *na, int64_t *ib, int *nb) {
    *na = *nb = 0;
    if (ra == rb && memcmp(a, b, (size_t)ra * sizeof(int64_t)) == 0) {
        return true;
    }
    int r = ra > rb ? ra : rb;
    int64_t ta[64], tb[64];
    int ka = 0, kb = 0;
    for (int j = 0; j < r; j++) { /* j counts from the innermost dim */
        int64_t x = j < ra ? a[ra - 1 - j] : 1, y = j < rb ? b[rb - 1 - j] : 1;
        bool x1 = x == 1, y1 = y == 1;
        if (!x1 && !y1 && x != y) {
            return false;
        }
        if (x1 && y1) {
            ta[ka++] = r - 1 - j;
            tb[kb++] = r - 1 - j;
        } else if (x1) {
            ta[ka++] = r - 1 - j;
        } else if (y1) {
            tb[kb++] = r - 1 - j;
        }
    }
    for (int i = 0; i < ka; i++) {
        ia[i] = ta[ka - 1 - i];
    }
    for (int i = 0; i < kb; i++) {
        ib[i] = tb[kb - 1 - i];
    }
    *na = ka;
    *nb = kb;
    return true;
}

static fl_status materialize_bcast_args(fl_pass_ctx *pc, fl_node *n, bool *done) {
    fl_graph *g = pc->c->g;
    if (strcmp(n->op, "BroadcastGradientArgs") != 0 || n->n_inputs != 2) {
        return FL_OK;
    }
    const fl_node *s1 = n->inputs[0].node, *s2 = n->inputs[1].node;
    if ((s1->kind != FL_OP_SHAPE && !is_const(s1)) || (s2->kind != FL_OP_SHAPE && !is_const(s2))) {
        return FL_OK;
    }
    const char *f1 = cf_name(pc, n, "-folded-1"), *f2 = cf_name(pc, n, "-folded-2");
    if (!f1 || !f2) {
        return fl__diag_oom(pc->c->d);
    }
    if (fl__graph_find(g, f1) || fl__graph_find(g, f2)) {
        return FL_OK;
    }
    int64_t a[64], b[64];
    int ra, rb, n_syms = 0;
    fl_sym syms[128];
    if (!bcast_shape(s1, n->inputs[0].port, a, &ra, syms, &n_syms) ||
        !bcast_shape(s2, n->inputs[1].port, b, &rb, syms, &n_syms)) {
        return FL_OK;
    }
    int64_t min_id = -1 - n_syms;
    for (int i = 0; i < ra; i++) {
        a[i] = a[i] == -1 ? --min_id : a[i];
    }
    for (int i = 0; i < rb; i++) {
        b[i] = b[i] == -1 ? --min_id : b[i];
    }
    /* Grappler's safety checks (dims compared from the front). */
    int common = ra < rb ? ra : rb;
    for (int i = 0; i < common; i++) {
        if ((a[i] < 0 || b[i] < 0) && a[i] != b[i]) {
            return FL_OK;
        }
    }
    for (int i = common; i < ra; i++) {
        if (a[i] < 0) {
            return FL_OK;
        }
    }
    for (int i = common; i < rb; i++) {
        if (b[i] < 0) {
            return FL_OK;
        }
    }
    int64_t idx[2][64];
    int ni[2];
    if (!bcast_reduce_idx(a, ra, b, rb, idx[0], &ni[0], idx[1], &ni[1])) {
        return FL_OK;
    }
    int t = type_attr(n, "T");
    if ((t != FL_DT_INT32 && t != FL_DT_INT64) || may_refine_output(pc, n)) {
        return FL_OK;
    }
    fl__ledger_note(pc, "MaterializeBroadcastGradientArgs", n,
                    "reduction indices of a known broadcast -> 2 Consts");
    for (int j = 0; j < 2; j++) {
        char suffix[32];
        snprintf(suffix, sizeof suffix, "-bcastargs-%d", j);
        const char *name = cf_name(pc, n, suffix);
        if (!name) {
            return fl__diag_oom(pc->c->d);
        }
        fl_node *c = fl__graph_find(g, name);
        if (!c) {
            fl_value *v = int_value(pc, t, 1, ni[j], idx[j]);
            c = v ? new_const(pc, name, v, n->device, n) : NULL;
            if (!c) {
                return fl__diag_oom(pc->c->d);
            }
        }
        if (j < n->n_outputs) {
            fl__graph_replace_uses(g, n, j, c, 0);
        }
    }
    pc->rewritten++;
    *done = true;
    return FL_OK;
}

static fl_status materialize_reduction_indices(fl_pass_ctx *pc, fl_node *n, bool *done) {
    fl_graph *g = pc->c->g;
    if (!is_reduction(n->kind) || n->n_inputs < 2 || is_const(n->inputs[1].node)) {
        return FL_OK;
    }
    const fl_shape *in = &fl_node_in(n, 0)->shape;
    const fl_tensor *it = fl_node_in(n, 1);
    int dt = it->dtype;
    if (in->rank < 1 || (dt != FL_DT_INT32 && dt != FL_DT_INT64)) {
        return FL_OK;
    }
    int64_t n_idx = fl__shape_is_concrete(&it->shape) ? elems(&it->shape) : -1;
    int out_rank = n->outputs[0].shape.rank;
    bool full = out_rank == 0 || n_idx == in->rank;
    if (!full) {
        fl_node *cons[64];
        size_t nc = consumers_of(g, n, cons, 64);
        if (nc == 0 || nc > 64) {
            return FL_OK;
        }
        for (size_t i = 0; i < nc; i++) {
            const fl_shape *rs = &cons[i]->outputs[0].shape;
            if (cons[i]->kind != FL_OP_RESHAPE || cons[i]->n_outputs != 1 ||
                !fl__shape_is_concrete(rs) || elems(rs) != 1) {
                return FL_OK;
            }
        }
    }
    const char *name = cf_name(pc, n, "-reduction_indices");
    if (!name) {
        return fl__diag_oom(pc->c->d);
    }
    if (fl__graph_find(g, name) || may_refine_output(pc, n)) {
        return FL_OK;
    }
    int64_t iota[256];
    if (in->rank > 256) {
        return FL_OK;
    }
    for (int i = 0; i < in->rank; i++) {
        iota[i] = i;
    }
    fl_value *v = int_value(pc, dt, 1, in->rank, iota);
    fl_node *a = v ? fl__ctrl_anchor(pc, n->inputs[1]) : NULL;
    fl_node *c = a ? new_const(pc, name, v, n->device, a) : NULL;
    if (!c) {
        return fl__diag_oom(pc->c->d);
    }
    fl__ledger_note(pc, "MaterializeReductionIndices", n,
                    "full reduction over computed indices -> Const indices '%s'", name);
    n->inputs[1] = (fl_input){c, 0};
    n->src = NULL;
    g->order = NULL;
    pc->rewritten++;
    *done = true;
    return FL_OK;
}

static fl_status materialize_constant_valued(fl_pass_ctx *pc, fl_node *n, bool *done) {
    if ((n->kind != FL_OP_FILL && n->kind != FL_OP_ZEROS_LIKE && n->kind != FL_OP_ONES_LIKE) ||
        n->n_outputs != 1 || !fl__shape_is_concrete(&n->outputs[0].shape)) {
        return FL_OK;
    }
    if (n->kind == FL_OP_FILL) {
        if (n->n_inputs != 2 || !is_const(n->inputs[0].node) || !const_value(n, 1)) {
            return FL_OK;
        }
        const fl_value *v = n->outputs[0].value;
        if (!v || !fl__value_is_concrete(v)) {
            return FL_OK;
        }
        fl__ledger_note(pc, "MaterializeConstantValuedNode", n, "Fill of constants -> Const");
        pc->rewritten++;
        *done = true;
        return fl__node_make_const(pc, n, v, true);
    }
    return replace_with_filled(pc, n, n->kind == FL_OP_ONES_LIKE ? 1.0 : 0.0,
                               "MaterializeConstantValuedNode", "of a known shape", done);
}

/* ------------------------------------------------------------------------- */
/* v1 control flow, TensorArraySizeV3, Case, variable updates                 */
/* ------------------------------------------------------------------------- */

/* Drops n's regular attrs (names not starting with '_'; Grappler's
 * EraseRegularNodeAttributes), and `also` when given, on a copy. */
static fl_status erase_regular_attrs(fl_pass_ctx *pc, fl_node *n, const char *const *also,
                                     int n_also) {
    fl_node old = *n;
    fl_status st = copy_attrs(pc, n, &old);
    if (st != FL_OK) {
        return st;
    }
    int w = 0;
    for (int i = 0; i < n->n_attrs; i++) {
        bool drop = n->attrs[i].name[0] != '_';
        for (int k = 0; k < n_also && !drop; k++) {
            drop = strcmp(n->attrs[i].name, also[k]) == 0;
        }
        if (!drop) {
            n->attrs[w++] = n->attrs[i];
        }
    }
    n->n_attrs = w;
    return FL_OK;
}

/* Materializes TensorArraySizeV3 (in Grappler's MaterializeShapes): the node
 * producing its handle has a size input that is a Const of dtype int32
 * whose first element is not 0, and no true dynamic_size -> the node becomes
 * a copy of that Const (its attrs), with control inputs ^<handle producer>
 * and the anchor of its flow input's producer (port 0: Grappler takes the
 * node name). Grappler does not check that the producer is a TensorArrayV3;
 * neither do we. */
static fl_status materialize_ta_size(fl_pass_ctx *pc, fl_node *n, bool *done) {
    fl_graph *g = pc->c->g;
    if (n->kind != FL_OP_TENSOR_ARRAY_SIZE_V3 || n->n_inputs != 2 || n->n_outputs != 1) {
        return FL_OK;
    }
    fl_node *arr = n->inputs[0].node;
    const fl_attr *dyn = fl__node_attr(arr, "dynamic_size");
    if (arr->n_inputs < 1 || (dyn && dyn->kind == FL_ATTR_B && dyn->v.b)) {
        return FL_OK;
    }
    fl_node *size = arr->inputs[0].node;
    if (!is_const(size) || (size->flags & FL_NODE_STRIPPED) || size->n_outputs != 1) {
        return FL_OK;
    }
    const fl_value *v = size->outputs[0].value;
    if (!v || v->dtype != FL_DT_INT32 || v->n < 1 || !v->ints || !fl_sym_is_known(v->ints[0]) ||
        v->ints[0].k == 0) {
        return FL_OK; /* no value, not int32, or 0 (Grappler skips 0 sizes) */
    }
    fl__ledger_note(pc, "MaterializeShapes", n,
                    "TensorArraySizeV3 of an array of size %lld -> Const", (long long)v->ints[0].k);
    fl_node *first[2] = {arr, fl__ctrl_anchor(pc, (fl_input){n->inputs[1].node, 0})};
    if (!first[1]) {
        return fl__diag_oom(pc->c->d);
    }
    fl_status st = set_ctrl(pc, n, first, 2, NULL, 0);
    if (st != FL_OK || (st = copy_attrs(pc, n, size)) != FL_OK) {
        return st;
    }
    n->n_inputs = 0;
    fl__node_become(g, n, "Const");
    n->flags &= ~(uint32_t)FL_NODE_STRIPPED;
    n->src = NULL;
    n->outputs[0].dtype = size->outputs[0].dtype;
    n->outputs[0].shape = size->outputs[0].shape;
    n->outputs[0].value = v;
    pc->rewritten++;
    *done = true;
    return FL_OK;
}

/* MoveConstantsPastEnter: Enter/RefEnter with is_constant=true of a Const c
 * -> the Enter's data consumers that are not Consts read a copy of c,
 * ConstantFolding/<c>_enter, on the Enter's device with control input
 * ^<enter>. Not when that copy exists or no such consumer reads the Enter.
 * (A consumer's control edge on the Enter is left alone: Grappler turns it
 * into a data input by mistake.) */
static fl_status move_constants_past_enter(fl_pass_ctx *pc, fl_node *n, bool *done) {
    fl_graph *g = pc->c->g;
    const fl_attr *ic = fl__node_attr(n, "is_constant");
    if ((n->kind != FL_OP_ENTER && n->kind != FL_OP_REF_ENTER) || n->n_inputs < 1 || !ic ||
        ic->kind != FL_ATTR_B || !ic->v.b || !is_const(n->inputs[0].node)) {
        return FL_OK;
    }
    fl_node *c = n->inputs[0].node;
    const char *name = cf_name(pc, c, "_enter");
    if (!name) {
        return fl__diag_oom(pc->c->d);
    }
    if (fl__graph_find(g, name)) {
        return FL_OK;
    }
    bool any = false;
    for (size_t i = 0; i < g->n_nodes && !any; i++) {
        const fl_node *m = g->nodes[i];
        if ((m->flags & FL_NODE_REMOVED) || m->kind == FL_OP_CONST) {
            continue;
        }
        for (int j = 0; j < m->n_inputs && !any; j++) {
            any = m->inputs[j].node == n && m->inputs[j].port == 0;
        }
    }
    if (!any) {
        return FL_OK;
    }
    fl_node *k = new_op_like(pc, name, "Const", c, 0, NULL);
    if (!k || fl__node_add_ctrl(g, k, n) != FL_OK) {
        return fl__diag_oom(pc->c->d);
    }
    k->device = n->device;
    k->flags |= c->flags & FL_NODE_STRIPPED;
    k->outputs[0] = c->outputs[0];
    k->outputs[0].producer = k;
    k->outputs[0].port = 0;
    k->outputs[0].n_consumers = 0;
    size_t moved = 0;
    for (size_t i = 0; i < g->n_nodes; i++) {
        fl_node *m = g->nodes[i];
        if ((m->flags & FL_NODE_REMOVED) || m->kind == FL_OP_CONST) {
            continue;
        }
        for (int j = 0; j < m->n_inputs; j++) {
            if (m->inputs[j].node == n && m->inputs[j].port == 0) {
                m->inputs[j] = (fl_input){k, 0};
                k->outputs[0].n_consumers++;
                moved++;
            }
        }
    }
    g->order = NULL;
    fl__ledger_note(pc, "MoveConstantsPastEnter", n,
                    "constant '%s' copied into the frame as '%s' for %zu inputs", c->name, name,
                    moved);
    pc->rewritten++;
    *done = true;
    return FL_OK;
}

/* SimplifySwitch: Switch(x, x) (one tensor as data and predicate) -> what
 * reads output 0 reads ConstantFolding/<sw>_const_false, what reads output 1
 * ConstantFolding/<sw>_const_true (bool scalars on the Switch's device),
 * with control inputs ConstantFoldingCtrl/<sw>_0 and _1, so that each
 * constant is alive only when its port is. Grappler's conditions: neither
 * constant exists yet; and its "already optimized" test, which holds unless
 * the Switch has exactly two consumer nodes (data or control) not both an
 * Identity (or one-input IdentityN) without data consumers -- so with one or
 * three consumers the rule does not fire either. */
static fl_status simplify_switch(fl_pass_ctx *pc, fl_node *n, bool *done) {
    fl_graph *g = pc->c->g;
    if (n->kind != FL_OP_SWITCH || n->n_inputs != 2 || n->n_outputs != 2 ||
        n->inputs[0].node != n->inputs[1].node || n->inputs[0].port != n->inputs[1].port) {
        return FL_OK;
    }
    const char *fname = cf_name(pc, n, "_const_false");
    const char *tname = cf_name(pc, n, "_const_true");
    if (!fname || !tname) {
        return fl__diag_oom(pc->c->d);
    }
    if (fl__graph_find(g, fname) || fl__graph_find(g, tname)) {
        return FL_OK;
    }
    fl_node *fan[2];
    if (consumers_of(g, n, fan, 2) != 2) {
        return FL_OK;
    }
    bool optimized = true;
    for (int i = 0; i < 2 && optimized; i++) {
        bool ident = fan[i]->kind == FL_OP_IDENTITY ||
                     (fan[i]->kind == FL_OP_IDENTITY_N && fan[i]->n_inputs == 1);
        optimized = ident && data_uses(g, fan[i]) == 0;
    }
    if (optimized) {
        return FL_OK;
    }
    int64_t zero = 0, one = 1;
    fl_value *fv = int_value(pc, FL_DT_BOOL, 0, 1, &zero);
    fl_value *tv = int_value(pc, FL_DT_BOOL, 0, 1, &one);
    fl_node *cf = fv ? new_const(pc, fname, fv, n->device, NULL) : NULL;
    fl_node *ct = tv ? new_const(pc, tname, tv, n->device, NULL) : NULL;
    fl_node *a0 = cf && ct ? fl__ctrl_anchor(pc, (fl_input){n, 0}) : NULL;
    fl_node *a1 = a0 ? fl__ctrl_anchor(pc, (fl_input){n, 1}) : NULL;
    if (!a1 || fl__node_add_ctrl(g, cf, a0) != FL_OK || fl__node_add_ctrl(g, ct, a1) != FL_OK) {
        return fl__diag_oom(pc->c->d);
    }
    /* The consumers the Switch had (not the anchors just made) read the
     * constants. */
    size_t moved = 0;
    for (size_t i = 0; i < g->n_nodes; i++) {
        fl_node *m = g->nodes[i];
        if ((m->flags & FL_NODE_REMOVED) || m == a0 || m == a1) {
            continue;
        }
        for (int j = 0; j < m->n_inputs; j++) {
            if (m->inputs[j].node == n) {
                fl_node *c = m->inputs[j].port == 0 ? cf : ct;
                m->inputs[j] = (fl_input){c, 0};
                c->outputs[0].n_consumers++;
                moved++;
            }
        }
    }
    g->order = NULL;
    fl__ledger_note(pc, "SimplifySwitch", n, "Switch(%s, %s): %zu inputs now read '%s' / '%s'",
                    n->inputs[0].node->name, n->inputs[0].node->name, moved, fname, tname);
    pc->rewritten++;
    *done = true;
    return FL_OK;
}

/* Shapes equally known: same rank (or both unknown), each dim unknown on
 * both sides or the same known/symbolic value. */
static bool shape_equally_known(const fl_shape *a, const fl_shape *b) {
    if (a->rank < 0 || b->rank < 0) {
        return a->rank < 0 && b->rank < 0;
    }
    if (a->rank != b->rank) {
        return false;
    }
    for (int i = 0; i < a->rank; i++) {
        bool ua = fl_sym_is_unknown(a->dims[i]), ub = fl_sym_is_unknown(b->dims[i]);
        if (ua != ub || (!ua && !fl__sym_eq(a->dims[i], b->dims[i]))) {
            return false;
        }
    }
    return true;
}

/* SimplifyCase: Case whose branch_index is a Const (int32 scalar) naming a
 * branch -> PartitionedCall of that branch (attr f), the index input
 * dropped (no control edge: Grappler drops it), the other attrs kept but
 * branches and output_shapes; Grappler appends output_shapes[<index>] (the
 * entry at the *branch* index) to _output_shapes when there is one.
 * Deliberate difference: Grappler infers a call's shapes from the function
 * body, foldline only from _output_shapes (all outputs or none), so the rule
 * does not fire when that would leave an output shape less known than the
 * Case's. */
static fl_status simplify_case(fl_pass_ctx *pc, fl_node *n, bool *done) {
    fl_graph *g = pc->c->g;
    if (n->kind != FL_OP_CASE || n->n_inputs < 1) {
        return FL_OK;
    }
    const fl_value *v = const_value(n, 0);
    const fl_attr *br = fl__node_attr(n, "branches");
    if (!v || v->dtype != FL_DT_INT32 || v->n != 1 || !br || br->kind != FL_ATTR_LIST ||
        br->list_kind != FL_ATTR_FUNC) {
        return FL_OK;
    }
    int64_t idx = ival(v, 0);
    if (idx < 0 || (size_t)idx >= br->n) {
        return FL_OK;
    }
    const fl_attr *os = fl__node_attr(n, "output_shapes");
    const fl_attr *old = fl__node_attr(n, "_output_shapes");
    size_t n_old = old && old->kind == FL_ATTR_LIST && old->list_kind == FL_ATTR_SHAPE ? old->n : 0;
    bool add =
        os && os->kind == FL_ATTR_LIST && os->list_kind == FL_ATTR_SHAPE && os->n > (size_t)idx;
    size_t n_new = n_old + (add ? 1 : 0);
    fl_shape_lit *lits = fl__arena_calloc(pc->c->a, n_new + 1, sizeof(fl_shape_lit));
    fl_attr *attrs = fl__arena_calloc(pc->c->a, (size_t)n->n_attrs + 2, sizeof(fl_attr));
    fl_input *in = fl__arena_calloc(pc->c->a, (size_t)n->n_inputs, sizeof(fl_input));
    if (!lits || !attrs || !in) {
        return fl__diag_oom(pc->c->d);
    }
    for (size_t i = 0; i < n_old; i++) {
        lits[i] = old->v.list.shape[i];
    }
    if (add) {
        lits[n_old] = os->v.list.shape[idx];
    }
    /* What PartitionedCall's inference will give: every output from
     * _output_shapes when it has one entry per output, else unknown. */
    for (int k = 0; k < n->n_outputs; k++) {
        fl_shape s = {-1, NULL};
        if (n_new == (size_t)n->n_outputs && lits[k].rank >= 0) {
            s.rank = lits[k].rank;
            s.dims = fl__arena_calloc(pc->c->a, (size_t)s.rank + 1, sizeof(fl_sym));
            if (!s.dims) {
                return fl__diag_oom(pc->c->d);
            }
            for (int i = 0; i < s.rank; i++) {
                int64_t d = lits[k].dims ? lits[k].dims[i] : -1;
                s.dims[i] = d >= 0 ? fl_sym_const(d) : fl_sym_unknown();
            }
        }
        if (!shape_equally_known(&s, &n->outputs[k].shape)) {
            return FL_OK;
        }
    }
    int w = 0;
    for (int i = 0; i < n->n_attrs; i++) {
        const char *an = n->attrs[i].name;
        if (strcmp(an, "branches") && strcmp(an, "output_shapes") && strcmp(an, "_output_shapes")) {
            attrs[w++] = n->attrs[i];
        }
    }
    const char *fname = br->v.list.func[idx].name;
    attrs[w].name = fl__arena_strdup(pc->c->a, "f");
    attrs[w].kind = FL_ATTR_FUNC;
    attrs[w].v.func = br->v.list.func[idx];
    if (!attrs[w++].name) {
        return fl__diag_oom(pc->c->d);
    }
    if (n_new) {
        attrs[w].name = fl__arena_strdup(pc->c->a, "_output_shapes");
        attrs[w].kind = FL_ATTR_LIST;
        attrs[w].list_kind = FL_ATTR_SHAPE;
        attrs[w].n = n_new;
        attrs[w].v.list.shape = lits;
        if (!attrs[w++].name) {
            return fl__diag_oom(pc->c->d);
        }
    }
    fl__ledger_note(pc, "SimplifyCase", n,
                    "Case with constant branch index %lld -> "
                    "PartitionedCall of '%s'",
                    (long long)idx, fname ? fname : "?");
    int n_in = n->n_inputs - 1;
    memcpy(in, n->inputs + 1, (size_t)n_in * sizeof(fl_input));
    if (fl__node_set_inputs(g, n, n_in, in) != FL_OK) {
        return fl__diag_oom(pc->c->d);
    }
    n->attrs = attrs;
    n->n_attrs = w;
    fl__node_become(g, n, "PartitionedCall");
    n->src = NULL;
    pc->rewritten++;
    *done = true;
    return FL_OK;
}

/* The variable updates RemoveRedundantVariableUpdates knows (Grappler's
 * kVariableReadOps; its ScatterNdMul/Div and ResourceScatterNdMul/Div are
 * not TensorFlow ops): 1 for the ref forms, 2 for the resource forms, 0 for
 * the others. */
static int variable_update_form(int kind) {
    switch (kind) {
    case FL_OP_ASSIGN_ADD:
    case FL_OP_ASSIGN_SUB:
    case FL_OP_SCATTER_ADD:
    case FL_OP_SCATTER_SUB:
    case FL_OP_SCATTER_MUL:
    case FL_OP_SCATTER_DIV:
    case FL_OP_SCATTER_ND_ADD:
    case FL_OP_SCATTER_ND_SUB:
        return 1;
    case FL_OP_ASSIGN_ADD_VARIABLE_OP:
    case FL_OP_ASSIGN_SUB_VARIABLE_OP:
    case FL_OP_RESOURCE_SCATTER_ADD:
    case FL_OP_RESOURCE_SCATTER_SUB:
    case FL_OP_RESOURCE_SCATTER_MUL:
    case FL_OP_RESOURCE_SCATTER_DIV:
    case FL_OP_RESOURCE_SCATTER_ND_ADD:
    case FL_OP_RESOURCE_SCATTER_ND_SUB:
        return 2;
    default:
        return 0;
    }
}

/* RemoveRedundantVariableUpdates: AssignAdd/AssignSub, ScatterAdd/ScatterSub,
 * ScatterNdAdd/ScatterNdSub (ref), AssignAddVariableOp/AssignSubVariableOp,
 * ResourceScatterAdd/ResourceScatterSub, ResourceScatterNdAdd/
 * ResourceScatterNdSub (resource) whose delta (input 2 for the Scatter ops,
 * else input 1) is zeros (IsZeros), and ScatterMul/ScatterDiv,
 * ResourceScatterMul/ResourceScatterDiv whose updates are ones (IsOnes): the
 * op name has "Add" or "Sub" or not. The resource forms have no outputs and
 * become NoOp (ReplaceOperationWithNoOp: attrs but '_' ones and
 * _output_shapes dropped, data inputs as control inputs through their
 * anchors, in input order); they are rewritten even when preserved, as
 * Grappler does: nothing reads them and the update changes nothing. The ref
 * forms become Identity(ref) with T = attr T and the other data inputs as
 * control inputs in input order (ReplaceOperationWithIdentity), not when
 * preserved. ScatterMax/Min/Update, ScatterNdMax/Min/Update and their
 * resource forms are not in Grappler's list. */
static fl_status remove_redundant_variable_update(fl_pass_ctx *pc, fl_node *n, bool *done) {
    fl_graph *g = pc->c->g;
    int form = variable_update_form(n->kind);
    bool resource = form == 2, ref = form == 1;
    int vi = strstr(n->op, "Scatter") ? 2 : 1;
    if (!form || n->n_inputs != vi + 1) {
        return FL_OK;
    }
    bool add_or_sub = strstr(n->op, "Add") || strstr(n->op, "Sub");
    const fl_node *delta = n->inputs[vi].node;
    if (!(add_or_sub ? is_zeros(delta) : is_ones(delta)) ||
        (ref && (fl__preserved(n) || type_attr(n, "T") == FL_DT_INVALID))) {
        return FL_OK;
    }
    fl_input in[3];
    memcpy(in, n->inputs, (size_t)n->n_inputs * sizeof(fl_input));
    int n_in = n->n_inputs;
    fl_node *old_ctrl[64];
    int n_old = n->n_ctrl < 64 ? n->n_ctrl : 64;
    if (n->n_ctrl > 64) {
        return FL_OK;
    }
    memcpy(old_ctrl, n->ctrl, (size_t)n_old * sizeof(fl_node *));
    n->ctrl = NULL;
    n->n_ctrl = 0;
    fl_status st = FL_OK;
    const char *what = add_or_sub ? "zeros" : "ones";
    if (resource) {
        static const char *const out_attrs[] = {"_output_shapes", "_xla_inferred_shapes"};
        fl__ledger_note(pc, "RemoveRedundantVariableUpdates", n, "%s by %s '%s' -> NoOp", n->op,
                        what, delta->name);
        st = erase_regular_attrs(pc, n, out_attrs, 2);
        for (int i = 0; i < n_in && st == FL_OK; i++) {
            st = fl__add_ctrl_anchor(pc, n, in[i]);
        }
        n->n_inputs = 0;
        fl__node_become(g, n, "NoOp");
    } else {
        int t = (int)fl_dtype_base(type_attr(n, "T"));
        fl__ledger_note(pc, "RemoveRedundantVariableUpdates", n, "%s by %s '%s' -> Identity", n->op,
                        what, delta->name);
        st = erase_regular_attrs(pc, n, NULL, 0);
        if (st == FL_OK) {
            st = set_type_attr(pc, n, "T", t);
        }
        for (int i = 1; i < n_in && st == FL_OK; i++) {
            st = fl__add_ctrl_anchor(pc, n, in[i]);
        }
        n->n_inputs = 1;
        fl__node_become(g, n, "Identity");
    }
    for (int k = 0; k < n_old && st == FL_OK; k++) {
        st = fl__node_add_ctrl(g, n, old_ctrl[k]) == FL_OK ? FL_OK : fl__diag_oom(pc->c->d);
    }
    if (st != FL_OK) {
        return st;
    }
    g->order = NULL;
    n->src = NULL;
    pc->rewritten++;
    *done = true;
    return FL_OK;
}

static fl_status simplify(fl_pass_ctx *pc, fl_node *n, bool *done) {
    *done = false;
    for (int i = 0; i < n->n_attrs; i++) {
        if (strstr(n->attrs[i].name, "_tpu_")) {
            return FL_OK;
        }
    }
    /* Rules that keep the node and its outputs: preserved nodes too. */
    switch (n->kind) {
    case FL_OP_IDENTITY_N:
        return partial_identity_n(pc, n, done); /* rewires consumers only */
    case FL_OP_ENTER:
    case FL_OP_REF_ENTER:
        return move_constants_past_enter(pc, n, done);
    case FL_OP_SWITCH:
        return simplify_switch(pc, n, done);
    default:
        if (variable_update_form(n->kind) == 2) {
            return remove_redundant_variable_update(pc, n, done); /* no outputs */
        }
        break;
    }
    if (fl__preserved(n) || !n->desc) {
        return FL_OK;
    }
    if (n->kind == FL_OP_CASE) {
        return simplify_case(pc, n, done);
    }
    if (variable_update_form(n->kind) == 1) {
        return remove_redundant_variable_update(pc, n, done);
    }
    if (n->kind == FL_OP_QUANTIZED_MATMUL) {
        return simplify_arith(pc, n, done); /* three outputs: by zeros only */
    }
    if (n->n_outputs != 1 || bad_dtype(n->outputs[0].dtype)) {
        return FL_OK;
    }
    const char *rule = NULL;
    int keep = noop_input(n, &rule);
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
    static fl_status (*const rules[])(fl_pass_ctx *, fl_node *, bool *) = {
        simplify_pack,      simplify_reduction,
        simplify_arith,     reduce_div_to_reciprocal_mul,
        constant_push_down, mul_conv_push_down,
        partial_addn,       merge_concat,
        partial_concat,     constant_push_down_bias_add,
        simplify_select,
    };
    for (size_t r = 0; r < sizeof rules / sizeof rules[0]; r++) {
        fl_status st = rules[r](pc, n, done);
        if (st != FL_OK || *done) {
            return st;
        }
    }
    return FL_OK;
}

/* The materializations (3.3) beyond Shape/Size/Rank. */
static fl_status materialize_more(fl_pass_ctx *pc, fl_node *n, bool *done) {
    static fl_status (*const rules[])(fl_pass_ctx *, fl_node *, bool *) = {
        materialize_shape_n,           materialize_ta_size,         materialize_bcast_args,
        materialize_reduction_indices, materialize_constant_valued,
    };
    *done = false;
    for (size_t r = 0; r < sizeof rules / sizeof rules[0]; r++) {
        fl_status st = rules[r](pc, n, done);
        if (st != FL_OK || *done) {
            return st;
        }
    }
    return FL_OK;
}

fl_status fl__pass_constant_folding(fl_pass_ctx *pc) {
    fl_graph *g = pc->c->g;
    size_t n0 = g->n_nodes;
    bool *had_consumers = fl__consumed_snapshot(pc);
    if (!had_consumers) {
        return fl__diag_oom(pc->c->d);
    }
    fl_node **order = g->order; /* edits clear g->order; the sweep keeps its copy */
    for (size_t i = 0; i < n0; i++) {
        fl_node *n = order[i];
        if (n->flags & FL_NODE_REMOVED) {
            continue;
        }
        bool done = false;
        fl_status st = try_materialize(pc, n, &done);
        if (st == FL_OK && !done) {
            st = materialize_more(pc, n, &done);
        }
        if (st == FL_OK && !done) {
            st = try_fold(pc, n, &done);
        }
        if (st == FL_OK && !done) {
            st = simplify(pc, n, &done);
        }
        if (st != FL_OK) {
            return st;
        }
    }
    g->order = NULL;
    return fl__remove_dead(pc, had_consumers, n0, "remove_unused");
}
