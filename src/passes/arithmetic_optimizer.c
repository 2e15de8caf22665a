/*
 * arithmetic_optimizer.c - Grappler's ArithmeticOptimizer (grappler.md 4),
 * the default-on stages that are exact on foldline's IR.
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
 * sweeps, so the single-consumer conditions hold for the graph as rewritten
 * so far. Nodes created by a stage are not revisited in the same sweep (the
 * pipeline's second iteration sees them).
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
 * Stages:
 *  - combine_add_to_addn (AddOpsRewrite, 1): a tree of Add/AddV2/AddN nodes
 *    (not preserved, no control edges, members read once, every node's
 *    inputs broadcastable to its symbolically known shape) -> one AddN of
 *    the leaves per distinct input shape ("AddOpsRewrite_Leaf_<i>_<root>")
 *    and a chain of AddV2 combining them smallest first
 *    ("AddOpsRewrite_Internal_<i>_<root>"), rooted at "AddOpsRewrite_<root>".
 *    All members are tagged _grappler_ArithmeticOptimizer_AddOpsRewriteStage.
 *  - fold_multiply_into_conv (3): Conv2D/Conv3D(chain(Mul(x, s)), W) with W a
 *    Const, s a scalar Const of W's dtype, the Mul read once and not
 *    preserved, the chain value-preserving, single-consumer, not preserved
 *    -> the chain reads x and the conv reads Mul(W, s), a new node
 *    "<W scope>/ArithmeticOptimizer/FoldMultiplyIntoConv_scaled_<conv>_<W>".
 *  - fold_transpose_into_matmul (4): MatMul/BatchMatMul* (not preserved)
 *    whose operand is a Transpose/ConjugateTranspose swapping only the two
 *    innermost dims (constant perm) -> a copy
 *    "ArithmeticOptimizer/FoldTransposeIntoMatMul_<name>" with
 *    transpose_a/b (adj_x/adj_y) flipped reading the transpose's input
 *    (complex: only Transpose for MatMul, only ConjugateTranspose for
 *    BatchMatMul).
 *  - remove_identity_transpose (7): Transpose(Transpose(x, p1), p2) whose
 *    constant perms compose to the identity -> forward x.
 *  - remove_involution (8): f(f(x)) for Neg, Reciprocal, Conj, Invert,
 *    LogicalNot -> forward x.
 *  - remove_redundant_bitcast (9): Bitcast with T == type -> forward its
 *    input; Bitcast(Bitcast(x)) (inner not preserved) -> Bitcast(x) in place
 *    with the inner T.
 *  - remove_redundant_cast (10): Cast with SrcT == DstT -> forward its input.
 *  - remove_redundant_reshape (14): Reshape or BroadcastTo whose input shape
 *    equals its output shape (symbolically) -> forward its input.
 *  - remove_negation (15): x + Neg(y) -> Sub(x, y); x - Neg(y) -> AddV2(x, y),
 *    in place (Add/AddV2/Sub, same dtype).
 *  - replace_mul_with_square (16): Mul(x, x), not complex -> Square(x) in
 *    place.
 *  - remove_logical_not (17): LogicalNot(cmp(a, b)) with the comparison read
 *    only there -> the inverse comparison in place (Equal<->NotEqual,
 *    Less->GreaterEqual, LessEqual->Greater, Greater->LessEqual,
 *    GreaterEqual->Less).
 *  - simplify_aggregation (19): AddN with one input -> forward it;
 *    Add/AddV2/AddN of N copies of one tensor (not variant, not string, not
 *    preserved) -> Mul(Const N, x) as "SimplifyAggregation_Mul_<name>" with
 *    the Const "SimplifyAggregation_Const_<name>" (control input on x).
 *  - convert_pow (23): Pow(x, c), c a Const with all elements equal (real
 *    dtypes), x's shape equal to the output's: 2 -> Square, 0.5 -> Sqrt,
 *    -0.5 -> Rsqrt, -1 -> Reciprocal, 1 -> Identity, in place with c as a
 *    control input; 3 (CPU) -> Mul(x, Square(x)) with the Square
 *    "ConvertPow__inner_<name>"; 0 (fully known shape, int32/int64/float/
 *    double) -> a Const of ones in place, x and c as control inputs.
 *  - convert_log1p (24): Log(Add(x, c)) with c a Const of ones (float
 *    dtypes), c's shape fully known and not broadcasting x -> Log1p(x) in
 *    place, c as a control input.
 *  - convert_log_softmax (25): Log(Softmax(x)) with the Softmax read only
 *    there -> LogSoftmax(x) in place.
 *  - optimize_max_or_min_of_monotonic (26): Max/Min/ArgMax/ArgMin/MaxPool
 *    (not preserved) of f(x) with f element-wise monotonic, read only there,
 *    not preserved, and not a Relu/Relu6 fed by FusedBatchNorm or BiasAdd ->
 *    f(reduce(x)) (Max<->Min when f is non-increasing; MaxPool only for
 *    non-decreasing f; under ArgMax/ArgMin f becomes Identity).
 *  - convert_expm1 (27): Sub(Exp(x), c) with c a Const of ones (float dtypes)
 *    not broadcasting Exp(x) -> Expm1(x) in place, c as a control input.
 *  - fuse_squared_diff (32): Square(Sub(a, b)) with the Sub read only there,
 *    not complex -> SquaredDifference(a, b) in place.
 *
 *  - fold_conjugate_into_transpose (2): Conj(Transpose(x)) and
 *    Transpose(Conj(x)) -> ConjugateTranspose(x), Conj(ConjugateTranspose(x))
 *    -> Transpose(x): a copy of the transpose
 *    "ArithmeticOptimizer/FoldConjugateIntoTranspose_<name>" replaces the node
 *    (not preserved).
 *  - minimize_broadcasts (6): a tree of one binary op (Mul, or Add/AddV2 that
 *    AddOpsRewrite left; members not preserved, not tagged by either stage,
 *    no control edges, read once, same device, inputs broadcastable to the
 *    node's defined shape) with more than one leaf shape: leaves sorted
 *    smallest first (stable), paired front to front into the members (last
 *    member first, the root last; a rebuilt node counts as a scalar, an odd
 *    largest leaf joins the root), in place. Root and members are tagged
 *    _grappler_ArithmeticOptimizer_MinimizeBroadcasts (also when one shape).
 *  - replace_pack_with_tile_reshape (11): a chain of Packs of N copies of one
 *    tensor x (port 0, fully known shape, no packing on the last axis) ->
 *    Reshape(Tile(x, Multiples), Shape) with "..._Multiples_", "..._Tile_",
 *    "..._Shape_", "..._Reshape_<name>" (the Consts wait on x).
 *  - replace_mul_with_tile (12): Mul(x, ones) with ones a float Const of 1s,
 *    x not a Const, neither preserved, same rank, x's shape growing by known
 *    multiples -> Tile(x, "..._Const_<name>") as "..._Tile_<name>".
 *  - reduce_upsampling_dims (13): Reshape(Tile(Reshape(x, 6-D int32 shape
 *    with dims 2 and 4 equal 1), 6-D int32 multiples with 3 and 5 equal 1))
 *    (Tile read once, none preserved) -> the outer Reshape reads the 4-D
 *    Tile(Reshape(x)) (new "..._Multiples_", "..._Shape_", "..._Reshape_",
 *    "..._Tile_<name>"), in place.
 *  - remove_redundant_reshape (14), bypass half: Reshape(unary element-wise
 *    chain(Reshape(x))) with the chain and the inner Reshape read once and
 *    not preserved -> the chain reads x (the inner Reshape, when it has no
 *    control consumers, is removed; Grappler turns it into a NoOp).
 *  - reorder_cast_like_and_value_preserving (18): VP(Cast(x)) when the cast
 *    widens, Cast(VP(x)) when it narrows -> copies in the other order,
 *    "..._<src type>_<consumer>" and "..._<dst type>_<producer>" (VP: the
 *    value-preserving ops whose kernels take every real number type, plus
 *    bool except the space/batch ops; cast-like: Cast, IsNan, IsInf,
 *    IsFinite; same device, CPU or GPU).
 *  - hoist_cwise_unary_chains (20): Concat/ConcatV2 (N > 1, the N value
 *    inputs distinct, not preserved) whose every value input ends the same
 *    chain of unary element-wise ops -> the chain once after the Concat (the
 *    first input's chain is reused, reading the Concat; the Concat's
 *    consumers read its end; the other chains are removed);
 *    Split/SplitV (num_split > 1, at most num_split data edges out, no
 *    control consumers, not preserved) whose every consumer takes it as
 *    input 0 and starts the same chain -> a copy of the first output's chain
 *    before the Split, named "<split scope>/ArithmeticOptimizer/_<node>_
 *    <split>" (Grappler's stage name is empty), the chains' consumers read
 *    the Split's outputs. Chains grow one level at a time while every link
 *    has the same op, is unary element-wise (not Enter/Exit), on the root's
 *    device, not preserved, read by at most one node (control edges
 *    included), and is not a Relu/Relu6 fed by BiasAdd or FusedBatchNorm*
 *    (kept for the remapper). The links' control inputs move to the Concat
 *    (to the first copy for a Split; a Split whose chains wait on a node
 *    that depends on it is left, as that would close a cycle). Not in
 *    Grappler: a link whose output dtype differs from its input's (IsNan,
 *    IsInf, IsFinite, ComplexAbs) ends the chain, since the Concat/Split's T
 *    would have to change; Concats of more than 512 inputs are left. The
 *    newest TensorFlow also looks through Reshapes inside the chains
 *    (UnwrapReshape); that variant is not in the reference snapshot and is
 *    not done.
 *  - convert_sqrt_div_to_rsqrt_mul (21): Div/RealDiv/TruncateDiv(x, Sqrt(y))
 *    -> Mul(x, Rsqrt(y)); Xdivy -> MulNoNan(Rsqrt(y), x); Sqrt read once, not
 *    preserved; in place.
 *  - remove_idempotent (22): f(f(x)) for Identity, Snapshot, StopGradient,
 *    PreventGradient, DebugGradientIdentity on the same device -> forward
 *    f(x) (CheckNumerics, DeepCopy and Print are left: stateful).
 *  - unary_ops_composition (28, CPU): a chain of >= 2 unary ops
 *    _UnaryOpsComposition supports for T (float, half, double; some ops not
 *    half), same T, read once, no control edges, not preserved ->
 *    "<root>/unary_ops_composition" with T and op_names in execution order.
 *  - remove_stack_slice_same_axis (29): Slice/StridedSlice (strides 1, no
 *    ellipsis or new axis; on a dim that is not known only a full range) of
 *    a Pack taking exactly input i on the pack axis -> Identity(input i)
 *    (axis shrunk) or ExpandDims(input i, "..._Axis_<name>") as
 *    "ArithmeticOptimizer/RemoveStackStridedSliceSameAxis_<name>".
 *  - simplify_embedding_lookup (30): SparseSegment{Sum,Mean,SqrtN}[...]
 *    (Gather/GatherV2 axis 0 (params, Unique/UniqueV2(ids)), Unique:1, seg)
 *    -> (params, ids, seg) with Tidx the ids' type, in place.
 *  - remove_cast_into_segment_reduction (31): an int32/int64 Cast feeding a
 *    sparse segment reduction's indices or segment ids is bypassed; Tidx /
 *    Tsegmentids become the Cast's source type, in place.
 *
 * Off by default in TensorFlow, so not run: HoistCommonFactorOutOfAggregation
 * (AGGRESSIVE level only in recent TensorFlow; the AddN-of-equal-inputs
 * rewrite belongs to simplify_aggregation, above), ReorderReshapeAroundUnary
 * (newest snapshots only).
 *
 * Every default-on stage of the reference snapshot is implemented.
 */
#include "ops/common.h"
#include "passes/pipeline.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------------- */
/* Sweep state: exact use counts, forwarding, node creation                   */
/* ------------------------------------------------------------------------- */

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
    size_t cap;          /* entries of the arrays below (node ids) */
    uint32_t *uses;      /* data edges reading any output of the node */
    uint32_t *ctrl_uses; /* control edges on the node */
    fl_input *fwd;       /* forwarding: node -> tensor its consumers read */
    /* The group the stage at hand collects (one at a time), emptied by
     * group_reset: its arrays are reused from one root to the next, so the
     * sweep allocates only when a group is larger than any before. */
    add_group grp;
} ao;

static fl_status ao_oom(ao *a) {
    return fl__diag_oom(a->pc->c->d);
}

static fl_status ao_grow(ao *a, size_t need) {
    if (need <= a->cap) {
        return FL_OK;
    }
    size_t nc = a->cap * 2 + 16;
    while (nc < need) {
        nc *= 2;
    }
    fl_arena *ar = a->pc->c->a;
    uint32_t *u = fl__arena_grow(ar, a->uses, a->cap, nc, sizeof(uint32_t));
    uint32_t *cu = u ? fl__arena_grow(ar, a->ctrl_uses, a->cap, nc, sizeof(uint32_t)) : NULL;
    fl_input *f = cu ? fl__arena_grow(ar, a->fwd, a->cap, nc, sizeof(fl_input)) : NULL;
    if (!f) {
        return ao_oom(a);
    }
    memset(u + a->cap, 0, (nc - a->cap) * sizeof(uint32_t));
    memset(cu + a->cap, 0, (nc - a->cap) * sizeof(uint32_t));
    memset(f + a->cap, 0, (nc - a->cap) * sizeof(fl_input));
    a->uses = u;
    a->ctrl_uses = cu;
    a->fwd = f;
    a->cap = nc;
    return FL_OK;
}

static fl_status ao_init(ao *a, fl_pass_ctx *pc) {
    memset(a, 0, sizeof(*a));
    a->pc = pc;
    a->g = pc->c->g;
    fl_status st = ao_grow(a, a->g->n_nodes + 1);
    if (st != FL_OK) {
        return st;
    }
    for (size_t i = 0; i < a->g->n_nodes; i++) {
        const fl_node *m = a->g->nodes[i];
        if (m->flags & FL_NODE_REMOVED) {
            continue;
        }
        for (int k = 0; k < m->n_inputs; k++) {
            a->uses[m->inputs[k].node->id]++;
        }
        for (int k = 0; k < m->n_ctrl; k++) {
            a->ctrl_uses[m->ctrl[k]->id]++;
        }
    }
    return FL_OK;
}

static void ao_resolve_inputs(ao *a, fl_node *m) {
    for (int k = 0; k < m->n_inputs; k++) {
        m->inputs[k] = fl__resolve(a->fwd, m->inputs[k]);
    }
}

static size_t n_uses(const ao *a, const fl_node *n) {
    return a->uses[n->id];
}

/* Single data consumer, no control edges, not preserved: safe to absorb. */
static bool absorbable(const ao *a, const fl_node *n) {
    return !fl__preserved(n) && n->n_outputs == 1 && a->uses[n->id] == 1 && !a->ctrl_uses[n->id] &&
           n->n_ctrl == 0;
}

static bool can_forward(const ao *a, const fl_node *n) {
    return !fl__preserved(n) && n->n_ctrl == 0 && !a->ctrl_uses[n->id] && n->n_outputs == 1;
}

/* Marks m removed and drops the edges it held. */
static void ao_remove(ao *a, fl_node *m) {
    for (int k = 0; k < m->n_inputs; k++) {
        a->uses[m->inputs[k].node->id]--;
    }
    for (int k = 0; k < m->n_ctrl; k++) {
        a->ctrl_uses[m->ctrl[k]->id]--;
    }
    m->n_inputs = 0;
    m->n_ctrl = 0;
    fl__graph_remove_node(m);
    a->pc->removed++;
}

/* m's data consumers read `to` from now on (its control consumers wait on
 * to's node); m is removed. */
static void ao_forward(ao *a, fl_node *m, fl_input to) {
    a->fwd[m->id] = to;
    a->uses[to.node->id] += a->uses[m->id];
    if (a->ctrl_uses[m->id]) {
        a->ctrl_uses[to.node->id] += (uint32_t)fl__graph_replace_ctrl_uses(a->g, m, to.node);
    }
    a->uses[m->id] = 0;
    a->ctrl_uses[m->id] = 0;
    ao_remove(a, m);
}

static fl_status ao_set_input(ao *a, fl_node *n, int k, fl_input in) {
    a->uses[n->inputs[k].node->id]--;
    a->uses[in.node->id]++;
    n->inputs[k] = in;
    a->g->order = NULL;
    return FL_OK;
}

static fl_status ao_set_inputs(ao *a, fl_node *n, int n_in, const fl_input *in) {
    fl_input copy[8];
    if (n_in > 8) {
        return FL_EINTERNAL;
    }
    memcpy(copy, in, (size_t)n_in * sizeof(fl_input));
    for (int k = 0; k < n->n_inputs; k++) {
        a->uses[n->inputs[k].node->id]--;
    }
    for (int k = 0; k < n_in; k++) {
        a->uses[copy[k].node->id]++;
    }
    return fl__node_set_inputs(a->g, n, n_in, copy) == FL_OK ? FL_OK : ao_oom(a);
}

static fl_status ao_add_ctrl(ao *a, fl_node *n, fl_node *dep) {
    for (int k = 0; k < n->n_ctrl; k++) {
        if (n->ctrl[k] == dep) {
            return FL_OK;
        }
    }
    if (fl__node_add_ctrl(a->g, n, dep) != FL_OK) {
        return ao_oom(a);
    }
    a->ctrl_uses[dep->id]++;
    return FL_OK;
}

/* Copies the control inputs of `from` onto n. */
static fl_status ao_forward_ctrl(ao *a, fl_node *n, const fl_node *from) {
    for (int k = 0; k < from->n_ctrl; k++) {
        fl_status st = ao_add_ctrl(a, n, from->ctrl[k]);
        if (st != FL_OK) {
            return st;
        }
    }
    return FL_OK;
}

static fl_status ao_set_attr(ao *a, fl_node *n, fl_attr at) {
    if (!at.name || fl__node_set_attr(a->g, n, &at) != FL_OK) {
        return ao_oom(a);
    }
    return FL_OK;
}

/* "<scope>/ArithmeticOptimizer/<prefix>_<base name>" for node name `of`. */
static const char *opt_name(ao *a, const char *of, const char *prefix) {
    const char *slash = strrchr(of, '/');
    int scope_len = slash ? (int)(slash - of) + 1 : 0;
    const char *base = slash ? slash + 1 : of;
    return fl__arena_printf(a->g->arena, "%.*sArithmeticOptimizer/%s_%s", scope_len, of, prefix,
                            base);
}

/* Adds node `name` (made unique) of op `op` on n's device with the given
 * inputs and one output; counts it as added. */
static fl_node *ao_add(ao *a, const char *name, const char *op, const char *device, int n_in,
                       const fl_input *in) {
    const char *nm = name ? fl__graph_unique_name(a->g, name) : NULL;
    fl_node *nn = nm ? fl__op_add_op(a->g, nm, op, n_in, in, 1, a->pc->c->d) : NULL;
    if (!nn || ao_grow(a, a->g->n_nodes + 1) != FL_OK) {
        ao_oom(a);
        return NULL;
    }
    nn->device = device;
    for (int k = 0; k < n_in; k++) {
        a->uses[in[k].node->id]++;
    }
    a->pc->added++;
    return nn;
}

/* A copy of n (op, device, attrs; inputs and control inputs) named `name`. */
static fl_node *ao_copy(ao *a, const char *name, const fl_node *n) {
    fl_node *c = ao_add(a, name, n->op, n->device, n->n_inputs, n->inputs);
    if (!c) {
        return NULL;
    }
    if (n->n_attrs) {
        fl_attr *at = fl__arena_calloc(a->g->arena, (size_t)n->n_attrs, sizeof(fl_attr));
        if (!at) {
            ao_oom(a);
            return NULL;
        }
        memcpy(at, n->attrs, (size_t)n->n_attrs * sizeof(fl_attr));
        c->attrs = at;
        c->n_attrs = n->n_attrs;
    }
    if (ao_forward_ctrl(a, c, n) != FL_OK) {
        return NULL;
    }
    return c;
}

/* A scalar or shaped Const node holding `v` (dtype v->dtype). */
static fl_node *ao_add_const(ao *a, const char *name, const char *device, const fl_value *v) {
    fl_node *c = ao_add(a, name, "Const", device, 0, NULL);
    if (!c || ao_set_attr(a, c, fl__attr_make_type(a->g, "dtype", v->dtype)) != FL_OK) {
        return NULL;
    }
    fl_attr val = fl__attr_make_tensor(a->g, "value", v->dtype, v->rank, v->dims, v);
    if (!val.v.tensor || ao_set_attr(a, c, val) != FL_OK) {
        ao_oom(a);
        return NULL;
    }
    if (fl__infer_node(a->pc, c) != FL_OK) {
        return NULL;
    }
    return c;
}

/* ------------------------------------------------------------------------- */
/* Small predicates                                                           */
/* ------------------------------------------------------------------------- */

static bool is_complex(int dt) {
    return dt == FL_DT_COMPLEX64 || dt == FL_DT_COMPLEX128;
}

static bool is_op(const fl_node *n, const char *op) {
    return strcmp(n->op, op) == 0;
}

static int attr_type(const fl_node *n, const char *name) {
    const fl_attr *at = fl__node_attr(n, name);
    return at && at->kind == FL_ATTR_TYPE ? at->v.type : FL_DT_INVALID;
}

static bool attr_bool(const fl_node *n, const char *name) {
    const fl_attr *at = fl__node_attr(n, name);
    return at && at->kind == FL_ATTR_B && at->v.b;
}

/* Whether n runs on CPU: its device type, or the target device when the
 * device string is empty (as the remapper). */
static bool on_cpu(const ao *a, const fl_node *n) {
    return fl__node_device(n, a->pc->opt->device) == FL_DEV_CPU;
}

/* A Const whose value is known. */
static const fl_value *const_value(const fl_node *n) {
    if (n->kind != FL_OP_CONST || n->n_outputs < 1) {
        return NULL;
    }
    const fl_value *v = n->outputs[0].value;
    return v && fl__value_is_concrete(v) ? v : NULL;
}

/* Every element of v is x (v of a real floating or integer dtype). */
static bool value_all(const fl_value *v, double x) {
    if (is_complex(v->dtype) || v->n < 1) {
        return false;
    }
    for (int64_t i = 0; i < v->n; i++) {
        double e;
        if (!fl__value_f64(v, i, &e) || e != x) {
            return false;
        }
    }
    return true;
}

static bool shape_concrete(const fl_shape *s) {
    if (s->rank < 0) {
        return false;
    }
    for (int i = 0; i < s->rank; i++) {
        if (!fl_sym_is_known(s->dims[i]) || s->dims[i].k < 0) {
            return false;
        }
    }
    return true;
}

static bool dim_is_one(fl_sym d) {
    return fl_sym_is_known(d) && d.k == 1;
}

/* Grappler's ShapesBroadcastable: both shapes symbolically defined and every
 * aligned pair of dims equal or one of them 1. */
static bool bcastable(const fl_shape *x, const fl_shape *y) {
    if (!fl__shape_is_determined(x) || !fl__shape_is_determined(y)) {
        return false;
    }
    for (int i = 1; i <= x->rank && i <= y->rank; i++) {
        fl_sym p = x->dims[x->rank - i], q = y->dims[y->rank - i];
        if (!fl__sym_eq(p, q) && !dim_is_one(p) && !dim_is_one(q)) {
            return false;
        }
    }
    return true;
}

/* Broadcasting y onto x gives x's shape (known ranks and dims). */
static bool bcast_keeps(const fl_shape *x, const fl_shape *y) {
    if (!fl__shape_is_determined(x) || !fl__shape_is_determined(y) || y->rank > x->rank) {
        return false;
    }
    for (int i = 1; i <= y->rank; i++) {
        fl_sym p = x->dims[x->rank - i], q = y->dims[y->rank - i];
        if (!fl__sym_eq(p, q) && !dim_is_one(q)) {
            return false;
        }
    }
    return true;
}

/* Grappler's CompareSymbolicallyShapedTensorSizes: left is smaller. Known
 * dims multiply; symbolic dims cancel pairwise between the shapes. */
static bool smaller(const fl_shape *l, const fl_shape *r) {
    if (l->rank < 0 || r->rank < 0) {
        return false;
    }
    int64_t ls = 1, rs = 1;
    int lu = 0, ru = 0;
    bool used[256] = {false};
    for (int i = 0; i < r->rank; i++) {
        if (fl_sym_is_known(r->dims[i]) && r->dims[i].k > 0) {
            rs *= r->dims[i].k;
        }
    }
    for (int i = 0; i < l->rank; i++) {
        fl_sym d = l->dims[i];
        if (fl_sym_is_known(d)) {
            ls *= d.k > 0 ? d.k : 1;
            continue;
        }
        bool matched = false;
        for (int j = 0; j < r->rank && j < 256 && fl_sym_is_symbolic(d); j++) {
            if (!used[j] && fl_sym_is_symbolic(r->dims[j]) && fl__sym_eq(d, r->dims[j])) {
                used[j] = matched = true;
                break;
            }
        }
        lu += !matched;
    }
    for (int j = 0; j < r->rank; j++) {
        ru += !fl_sym_is_known(r->dims[j]) && !(j < 256 && used[j]);
    }
    if (lu == 0 && ru == 0) {
        return ls < rs;
    }
    return ls <= rs && lu == 0 && ru > 0;
}

static bool same_sig(const fl_shape *x, const fl_shape *y) {
    if (x->rank != y->rank) {
        return false;
    }
    for (int i = 0; i < x->rank; i++) {
        if (!fl__sym_eq(x->dims[i], y->dims[i])) {
            return false;
        }
    }
    return true;
}

static bool involution(int kind, const char *op) {
    return kind == FL_OP_NEG || kind == FL_OP_RECIPROCAL || kind == FL_OP_LOGICAL_NOT ||
           strcmp(op, "Conj") == 0 || strcmp(op, "Invert") == 0;
}

static bool is_add(const fl_node *n) {
    return n->kind == FL_OP_ADD_V2 || (n->kind == FL_OP_ADD && attr_type(n, "T") != FL_DT_STRING);
}

/* Appendix A: value-preserving ops. */
static bool value_preserving(const fl_node *n) {
    static const char *const ops[] = {"CheckNumerics", "DebugGradientIdentity",
                                      "DeepCopy",      "Enter",
                                      "Exit",          "PreventGradient",
                                      "Print",         "Snapshot",
                                      "StopGradient",  "Identity",
                                      "ExpandDims",    "Reshape",
                                      "Squeeze",       "InvertPermutation",
                                      "Reverse",       "ReverseV2",
                                      "Roll",          "Transpose",
                                      "DepthToSpace",  "SpaceToDepth",
                                      "BatchToSpace",  "BatchToSpaceND",
                                      "SpaceToBatch",  "SpaceToBatchND"};
    for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++) {
        if (strcmp(n->op, ops[i]) == 0) {
            return true;
        }
    }
    return (n->kind == FL_OP_ADD_N && n->n_inputs == 1);
}

/* Element-wise monotonic: 1 non-decreasing, -1 non-increasing, 0 neither. */
static int monotonic(const fl_node *n) {
    static const char *const up[] = {"Acosh", "Asin", "Asinh",    "Atan",     "Atanh", "Ceil",
                                     "Elu",   "Erf",  "Exp",      "Expm1",    "Floor", "Log",
                                     "Log1p", "Relu", "Relu6",    "Rint",     "Selu",  "Sigmoid",
                                     "Sign",  "Sinh", "Softsign", "Softplus", "Sqrt",  "Tanh"};
    static const char *const down[] = {"Acos", "Erfc", "Neg", "Rsqrt"};
    if (n->n_inputs != 1) {
        return 0;
    }
    for (size_t i = 0; i < sizeof up / sizeof up[0]; i++) {
        if (strcmp(n->op, up[i]) == 0) {
            return 1;
        }
    }
    for (size_t i = 0; i < sizeof down / sizeof down[0]; i++) {
        if (strcmp(n->op, down[i]) == 0) {
            return -1;
        }
    }
    return 0;
}

static const char *inverse_cmp(int kind) {
    switch (kind) {
    case FL_OP_EQUAL:
        return "NotEqual";
    case FL_OP_NOT_EQUAL:
        return "Equal";
    case FL_OP_LESS:
        return "GreaterEqual";
    case FL_OP_LESS_EQUAL:
        return "Greater";
    case FL_OP_GREATER:
        return "LessEqual";
    case FL_OP_GREATER_EQUAL:
        return "Less";
    default:
        return NULL;
    }
}

/* Whether perm2 after perm1 (both constant) is the identity. */
static bool perms_cancel(const fl_node *outer, const fl_node *inner) {
    const fl_value *p2 = fl_node_in(outer, 1)->value, *p1 = fl_node_in(inner, 1)->value;
    if (!p1 || !p2 || !fl__value_is_concrete(p1) || !fl__value_is_concrete(p2) || p1->n != p2->n) {
        return false;
    }
    /* out[i] = mid[p2[i]] = x[p1[p2[i]]] */
    for (int64_t i = 0; i < p2->n; i++) {
        int64_t a = fl__value_int(p2, i).k;
        if (a < 0 || a >= p1->n || fl__value_int(p1, a).k != i) {
            return false;
        }
    }
    return true;
}

/* Rewrites n in place into op(inputs) with attr T (and no other attrs). */
static fl_status become(ao *a, fl_node *n, const char *op, int n_in, const fl_input *in) {
    fl_graph *g = a->g;
    int dt = fl_node_in(n, 0)->dtype;
    fl_attr t = fl__attr_make_type(g, "T", dt);
    if (!t.name) {
        return ao_oom(a);
    }
    fl_status st = ao_set_inputs(a, n, n_in, in);
    if (st != FL_OK) {
        return st;
    }
    n->attrs = NULL;
    n->n_attrs = 0;
    n->src = NULL;
    fl__node_become(g, n, op);
    if (fl__node_set_attr(g, n, &t) != FL_OK) {
        return ao_oom(a);
    }
    a->pc->rewritten++;
    return FL_OK;
}

/* Turns data input k of n into a control input on its node. */
static fl_status input_to_ctrl(ao *a, fl_node *n, int k) {
    fl_node *dep = n->inputs[k].node;
    fl_input keep[8];
    int w = 0;
    for (int i = 0; i < n->n_inputs && w < 8; i++) {
        if (i != k) {
            keep[w++] = n->inputs[i];
        }
    }
    fl_status st = ao_set_inputs(a, n, w, keep);
    return st == FL_OK ? ao_add_ctrl(a, n, dep) : st;
}

/* ------------------------------------------------------------------------- */
/* AddOpsRewrite (reverse sweep)                                              */
/* ------------------------------------------------------------------------- */

#define ADD_OPS_TAG "_grappler_ArithmeticOptimizer_AddOpsRewriteStage"

static bool add_can_optimize(const ao *a, const fl_node *n) {
    if (!is_add(n) && n->kind != FL_OP_ADD_N) {
        return false;
    }
    if (fl__preserved(n) || (n->flags & FL_NODE_REMOVED) || fl__node_attr(n, ADD_OPS_TAG)) {
        return false;
    }
    return n->n_ctrl == 0 && a->ctrl_uses[n->id] == 0 && n->n_outputs == 1;
}

static bool inputs_bcast_to(const fl_node *n) {
    const fl_shape *s = &n->outputs[0].shape;
    for (int k = 0; k < n->n_inputs; k++) {
        if (!bcastable(s, &fl_node_in(n, k)->shape)) {
            return false;
        }
    }
    return true;
}

static bool add_absorbable(const ao *a, const fl_node *root, const fl_node *n) {
    if (!add_can_optimize(a, n)) {
        return false;
    }
    const char *d1 = root->device ? root->device : "", *d2 = n->device ? n->device : "";
    return strcmp(d1, d2) == 0 && a->uses[n->id] == 1 && inputs_bcast_to(n);
}

static add_group *group_reset(ao *a) {
    a->grp.n_members = 0;
    a->grp.n_inputs = 0;
    return &a->grp;
}

static fl_status group_push(ao *a, void **arr, size_t *n, size_t *cap, size_t elem, const void *x) {
    if (*n == *cap) {
        size_t nc = *cap ? *cap * 2 : 16;
        void *p = fl__arena_grow(a->pc->c->a, *arr, *cap, nc, elem);
        if (!p) {
            return ao_oom(a);
        }
        *arr = p;
        *cap = nc;
    }
    memcpy((char *)*arr + *n * elem, x, elem);
    (*n)++;
    return FL_OK;
}

/* Depth-first, left to right: absorbable nodes join the group, anything else
 * is a leaf input. */
static fl_status add_absorb(ao *a, const fl_node *root, fl_input in, add_group *gr, int depth) {
    fl_node *m = in.node;
    if (depth < 10000 && add_absorbable(a, root, m)) {
        fl_status st = group_push(a, (void **)&gr->members, &gr->n_members, &gr->cap_members,
                                  sizeof(fl_node *), &m);
        for (int k = 0; k < m->n_inputs && st == FL_OK; k++) {
            st = add_absorb(a, root, m->inputs[k], gr, depth + 1);
        }
        return st;
    }
    return group_push(a, (void **)&gr->inputs, &gr->n_inputs, &gr->cap_inputs, sizeof(fl_input),
                      &in);
}

static fl_status tag(ao *a, fl_node *n) {
    return ao_set_attr(a, n, fl__attr_make_bool(a->g, ADD_OPS_TAG, true));
}

static fl_status add_ops_rewrite(ao *a, fl_node *root, bool *fired) {
    if (!add_can_optimize(a, root) || !fl__shape_is_determined(&root->outputs[0].shape) ||
        !inputs_bcast_to(root)) {
        return FL_OK;
    }
    add_group *gr = group_reset(a);
    fl_status st = FL_OK;
    for (int k = 0; k < root->n_inputs && st == FL_OK; k++) {
        st = add_absorb(a, root, root->inputs[k], gr, 0);
    }
    if (st != FL_OK || gr->n_members == 0) {
        return st;
    }
    int dt = attr_type(root, "T");
    if (dt == FL_DT_INVALID) {
        return FL_OK;
    }
    /* Distinct shapes in order of first appearance, then sorted smallest
     * first (stable). */
    size_t ni = gr->n_inputs;
    int *sig = fl__arena_calloc(a->pc->c->a, ni + 1, sizeof(int));
    size_t *order = fl__arena_calloc(a->pc->c->a, ni + 1, sizeof(size_t));
    fl_input *leaf_in = fl__arena_calloc(a->pc->c->a, ni + 1, sizeof(fl_input));
    if (!sig || !order || !leaf_in) {
        return ao_oom(a);
    }
    size_t n_sig = 0;
    for (size_t i = 0; i < ni; i++) {
        const fl_shape *s = &gr->inputs[i].node->outputs[gr->inputs[i].port].shape;
        size_t j = 0;
        for (; j < n_sig; j++) {
            const fl_shape *r =
                &gr->inputs[order[j]].node->outputs[gr->inputs[order[j]].port].shape;
            if (same_sig(s, r)) {
                break;
            }
        }
        if (j == n_sig) {
            order[n_sig++] = i;
        }
        sig[i] = (int)j;
    }
    /* sort representative indices: insertion sort, stable */
    size_t *rank_of = fl__arena_calloc(a->pc->c->a, n_sig + 1, sizeof(size_t));
    size_t *sorted = fl__arena_calloc(a->pc->c->a, n_sig + 1, sizeof(size_t));
    if (!rank_of || !sorted) {
        return ao_oom(a);
    }
    for (size_t j = 0; j < n_sig; j++) {
        sorted[j] = j;
    }
    for (size_t j = 1; j < n_sig; j++) {
        size_t x = sorted[j], p = j;
        const fl_input *xi = &gr->inputs[order[x]];
        while (p > 0) {
            const fl_input *yi = &gr->inputs[order[sorted[p - 1]]];
            if (!smaller(&xi->node->outputs[xi->port].shape, &yi->node->outputs[yi->port].shape)) {
                break;
            }
            sorted[p] = sorted[p - 1];
            p--;
        }
        sorted[p] = x;
    }
    fl__ledger_note(a->pc, "combine_add_to_addn", root,
                    "%zu Add/AddN nodes over %zu inputs (%zu shapes) -> AddN", gr->n_members + 1,
                    ni, n_sig);
    fl_input result = {NULL, 0};
    fl_input *leaves = fl__arena_calloc(a->pc->c->a, n_sig + 1, sizeof(fl_input));
    if (!leaves) {
        return ao_oom(a);
    }
    for (size_t j = 0; j < n_sig; j++) {
        size_t s = sorted[j], cnt = 0;
        for (size_t i = 0; i < ni; i++) {
            if ((size_t)sig[i] == s) {
                leaf_in[cnt++] = gr->inputs[i];
            }
        }
        if (cnt == 1) {
            leaves[j] = leaf_in[0];
            continue;
        }
        char pre[64];
        snprintf(pre, sizeof pre, "AddOpsRewrite_Leaf_%zu", j);
        const char *nm = opt_name(a, root->name, n_sig == 1 ? "AddOpsRewrite" : pre);
        fl_node *addn = ao_add(a, nm, "AddN", root->device, (int)cnt, leaf_in);
        if (!addn || ao_set_attr(a, addn, fl__attr_make_type(a->g, "T", dt)) != FL_OK ||
            ao_set_attr(a, addn, fl__attr_make_int(a->g, "N", (int64_t)cnt)) != FL_OK ||
            tag(a, addn) != FL_OK) {
            return ao_oom(a);
        }
        leaves[j] = (fl_input){addn, 0};
    }
    /* left-deep chain of AddV2, smallest shapes first */
    result = leaves[0];
    for (size_t j = 1; j < n_sig; j++) {
        char pre[64];
        snprintf(pre, sizeof pre, "AddOpsRewrite_Internal_%zu", j - 1);
        const char *nm = opt_name(a, root->name, j + 1 == n_sig ? "AddOpsRewrite" : pre);
        fl_input in[2] = {result, leaves[j]};
        fl_node *add = ao_add(a, nm, "AddV2", root->device, 2, in);
        if (!add || ao_set_attr(a, add, fl__attr_make_type(a->g, "T", dt)) != FL_OK ||
            tag(a, add) != FL_OK) {
            return ao_oom(a);
        }
        result = (fl_input){add, 0};
    }
    ao_forward(a, root, result);
    for (size_t i = 0; i < gr->n_members; i++) {
        ao_remove(a, gr->members[i]);
    }
    *fired = true;
    return FL_OK;
}

/* ------------------------------------------------------------------------- */
/* Stages of the forward sweep                                                */
/* ------------------------------------------------------------------------- */

/* FoldMultiplyIntoConv. */
static fl_status fold_multiply_into_conv(ao *a, fl_node *conv, bool *fired) {
    if ((conv->kind != FL_OP_CONV2D && conv->kind != FL_OP_CONV3D) || conv->n_inputs < 2) {
        return FL_OK;
    }
    fl_node *w = conv->inputs[1].node;
    if (w->kind != FL_OP_CONST) {
        return FL_OK;
    }
    char pre[600];
    snprintf(pre, sizeof pre, "FoldMultiplyIntoConv_scaled_%.500s", conv->name);
    const char *scaled_name = opt_name(a, w->name, pre);
    if (!scaled_name) {
        return ao_oom(a);
    }
    if (fl__graph_find(a->g, scaled_name)) {
        return FL_OK;
    }
    /* tail of the value-preserving, single-consumer chain above the conv */
    fl_node *tail = conv;
    for (int guard = 0; guard < 1 << 16; guard++) {
        if (tail->n_inputs < 1) {
            break;
        }
        fl_node *nx = tail->inputs[0].node;
        if (fl__preserved(nx) || !value_preserving(nx) || n_uses(a, nx) != 1) {
            break;
        }
        tail = nx;
    }
    if (tail->n_inputs < 1) {
        return FL_OK;
    }
    fl_node *mul = tail->inputs[0].node;
    if ((mul->kind != FL_OP_MUL && !is_op(mul, "MulNoNan")) || mul->n_inputs != 2 ||
        n_uses(a, mul) != 1 || fl__preserved(mul)) {
        return FL_OK;
    }
    int ii = 0, si = 1;
    if (mul->inputs[1].node->kind != FL_OP_CONST && mul->inputs[0].node->kind == FL_OP_CONST) {
        ii = 1;
        si = 0;
    }
    fl_node *scale = mul->inputs[si].node;
    if (scale->kind != FL_OP_CONST || scale->outputs[0].shape.rank != 0) {
        return FL_OK;
    }
    int wdt = attr_type(w, "dtype");
    if (wdt == FL_DT_INVALID || attr_type(scale, "dtype") != wdt) {
        return FL_OK;
    }
    fl_input in[2] = {conv->inputs[1], mul->inputs[si]};
    fl_node *sw = ao_add(a, scaled_name, mul->op, w->device, 2, in);
    if (!sw || ao_set_attr(a, sw, fl__attr_make_type(a->g, "T", wdt)) != FL_OK ||
        ao_forward_ctrl(a, sw, mul) != FL_OK) {
        return ao_oom(a);
    }
    fl__ledger_note(a->pc, "fold_multiply_into_conv", conv, "%s by scalar '%s' folded into '%s'",
                    mul->op, scale->name, w->name);
    ao_set_input(a, conv, 1, (fl_input){sw, 0});
    ao_set_input(a, tail, 0, mul->inputs[ii]);
    a->pc->rewritten++;
    if (a->uses[mul->id] == 0 && a->ctrl_uses[mul->id] == 0) {
        ao_remove(a, mul);
    }
    *fired = true;
    return FL_OK;
}

/* perm of a Transpose-like node swaps only the two innermost dims. */
static bool inner_matrix_transpose(const fl_node *t) {
    if ((!is_op(t, "Transpose") && !is_op(t, "ConjugateTranspose")) || t->n_inputs != 2) {
        return false;
    }
    const fl_value *p = const_value(t->inputs[1].node);
    if (!p || p->n < 2 || (p->dtype != FL_DT_INT32 && p->dtype != FL_DT_INT64)) {
        return false;
    }
    int64_t n = p->n;
    for (int64_t i = 0; i < n - 2; i++) {
        if (fl__value_int(p, i).k != i) {
            return false;
        }
    }
    return fl__value_int(p, n - 1).k == n - 2 && fl__value_int(p, n - 2).k == n - 1;
}

/* FoldTransposeIntoMatMul. */
static fl_status fold_transpose_into_matmul(ao *a, fl_node *n, bool *fired) {
    bool batch = n->kind == FL_OP_BATCH_MATMUL || n->kind == FL_OP_BATCH_MATMUL_V2 ||
                 n->kind == FL_OP_BATCH_MATMUL_V3;
    if ((n->kind != FL_OP_MATMUL && !batch) || !can_forward(a, n) || n->n_inputs != 2) {
        return FL_OK;
    }
    const char *nm = opt_name(a, n->name, "FoldTransposeIntoMatMul");
    if (!nm) {
        return ao_oom(a);
    }
    if (fl__graph_find(a->g, nm)) {
        return FL_OK;
    }
    bool cplx = is_complex(attr_type(n, "T"));
    const char *only = !cplx ? NULL : batch ? "ConjugateTranspose" : "Transpose";
    bool fold[2];
    for (int k = 0; k < 2; k++) {
        const fl_node *t = n->inputs[k].node;
        fold[k] = inner_matrix_transpose(t) && (!only || is_op(t, only));
    }
    if (!fold[0] && !fold[1]) {
        return FL_OK;
    }
    fl_node *c = ao_copy(a, nm, n);
    if (!c) {
        return ao_oom(a);
    }
    static const char *const flag[2][2] = {{"transpose_a", "transpose_b"}, {"adj_x", "adj_y"}};
    for (int k = 0; k < 2; k++) {
        if (!fold[k]) {
            continue;
        }
        fl_node *t = n->inputs[k].node;
        const char *f = flag[batch][k];
        if (ao_set_attr(a, c, fl__attr_make_bool(a->g, f, !attr_bool(n, f))) != FL_OK ||
            ao_forward_ctrl(a, c, t) != FL_OK) {
            return ao_oom(a);
        }
        ao_set_input(a, c, k, t->inputs[0]);
    }
    fl__ledger_note(a->pc, "fold_transpose_into_matmul", n, "%s%s%s folded into %s",
                    fold[0] ? n->inputs[0].node->name : "", fold[0] && fold[1] ? ", " : "",
                    fold[1] ? n->inputs[1].node->name : "", n->op);
    ao_forward(a, n, (fl_input){c, 0});
    *fired = true;
    return FL_OK;
}

/* RemoveRedundantBitcast, the in-place half (the forward half is in
 * forward_target). */
static fl_status bitcast_of_bitcast(ao *a, fl_node *n, bool *fired) {
    if (!is_op(n, "Bitcast") || n->n_inputs != 1) {
        return FL_OK;
    }
    fl_node *in = n->inputs[0].node;
    int t = attr_type(in, "T");
    if (!is_op(in, "Bitcast") || in->n_inputs != 1 || fl__preserved(in) || t == FL_DT_INVALID) {
        return FL_OK;
    }
    fl__ledger_note(a->pc, "remove_redundant_bitcast", n, "Bitcast(Bitcast(x)) -> Bitcast(x)");
    ao_set_input(a, n, 0, in->inputs[0]);
    fl_status st = ao_set_attr(a, n, fl__attr_make_type(a->g, "T", t));
    a->pc->rewritten++;
    /* Bitcast is not in the registry, so fl__remove_dead keeps it: drop the
     * inner one here when nothing reads it any more. */
    if (a->uses[in->id] == 0 && a->ctrl_uses[in->id] == 0 && in->n_ctrl == 0) {
        ao_remove(a, in);
    }
    *fired = true;
    return st;
}

/* SimplifyAggregation of N copies of one tensor. */
static fl_status aggregation_of_copies(ao *a, fl_node *n, bool *fired) {
    bool agg = n->kind == FL_OP_ADD_N || n->kind == FL_OP_ADD_V2 || n->kind == FL_OP_ADD;
    int dt = attr_type(n, "T");
    if (!agg || n->n_inputs < 2 || dt == FL_DT_VARIANT || dt == FL_DT_STRING ||
        dt == FL_DT_INVALID || !can_forward(a, n)) {
        return FL_OK;
    }
    for (int k = 1; k < n->n_inputs; k++) {
        if (n->inputs[k].node != n->inputs[0].node || n->inputs[k].port != n->inputs[0].port) {
            return FL_OK;
        }
    }
    if (!fl__dtype_is_float(dt) && !fl__dtype_is_integer(dt)) {
        return FL_OK;
    }
    const char *cn = opt_name(a, n->name, "SimplifyAggregation_Const");
    const char *mn = opt_name(a, n->name, "SimplifyAggregation_Mul");
    if (!cn || !mn) {
        return ao_oom(a);
    }
    if (fl__graph_find(a->g, cn) || fl__graph_find(a->g, mn)) {
        return FL_OK;
    }
    fl_value *v = fl__value_new(a->g->arena, (fl_dtype)dt, 0, NULL);
    if (!v) {
        return ao_oom(a);
    }
    if (v->ints) {
        ((fl_sym *)v->ints)[0] = fl_sym_const(n->n_inputs);
    } else {
        fl__value_set_f64(v, 0, (double)n->n_inputs);
    }
    fl_input x = n->inputs[0];
    fl_node *c = ao_add_const(a, cn, n->device, v);
    if (!c || ao_add_ctrl(a, c, x.node) != FL_OK) {
        return ao_oom(a);
    }
    fl_input in[2] = {{c, 0}, x};
    fl_node *mul = ao_add(a, mn, "Mul", n->device, 2, in);
    if (!mul || ao_set_attr(a, mul, fl__attr_make_type(a->g, "T", dt)) != FL_OK) {
        return ao_oom(a);
    }
    fl__ledger_note(a->pc, "simplify_aggregation", n, "%s of %d copies of '%s' -> Mul(%d, x)",
                    n->op, n->n_inputs, x.node->name, n->n_inputs);
    ao_forward(a, n, (fl_input){mul, 0});
    *fired = true;
    return FL_OK;
}

/* ConvertPow. */
static fl_status convert_pow(ao *a, fl_node *n, bool *fired) {
    if (n->kind != FL_OP_POW || n->n_inputs != 2 || n->n_outputs != 1) {
        return FL_OK;
    }
    const fl_value *c = const_value(n->inputs[1].node);
    const fl_tensor *x = fl_node_in(n, 0), *out = &n->outputs[0];
    if (!c || c->n < 1 || is_complex(c->dtype) || !fl__shape_same(&x->shape, &out->shape) ||
        x->dtype != out->dtype) {
        return FL_OK;
    }
    double e;
    if (!fl__value_f64(c, 0, &e) || !value_all(c, e)) {
        return FL_OK;
    }
    const char *op = e == 2.0    ? "Square"
                     : e == 0.5  ? "Sqrt"
                     : e == -0.5 ? "Rsqrt"
                     : e == -1.0 ? "Reciprocal"
                     : e == 1.0  ? "Identity"
                                 : NULL;
    fl_graph *g = a->g;
    if (op) {
        fl__ledger_note(a->pc, "convert_pow", n, "Pow(x, %g) -> %s(x)", e, op);
        fl_status st = input_to_ctrl(a, n, 1);
        if (st == FL_OK) {
            fl__node_become(g, n, op);
            n->src = NULL;
            a->pc->rewritten++;
            *fired = true;
        }
        return st;
    }
    if (e == 3.0 && on_cpu(a, n)) {
        const char *nm = opt_name(a, n->name, "ConvertPow__inner");
        if (!nm) {
            return ao_oom(a);
        }
        fl_node *sq = fl__graph_find(g, nm);
        if (!sq) {
            sq = ao_add(a, nm, "Square", n->device, 1, &n->inputs[0]);
            if (!sq || ao_set_attr(a, sq, fl__attr_make_type(g, "T", x->dtype)) != FL_OK ||
                ao_forward_ctrl(a, sq, n) != FL_OK) {
                return ao_oom(a);
            }
        }
        fl__ledger_note(a->pc, "convert_pow", n, "Pow(x, 3) -> Mul(x, Square(x))");
        fl_node *y = n->inputs[1].node;
        ao_set_input(a, n, 1, (fl_input){sq, 0});
        fl__node_become(g, n, "Mul");
        n->src = NULL;
        a->pc->rewritten++;
        *fired = true;
        return ao_add_ctrl(a, n, y);
    }
    int dt = out->dtype;
    bool ones_ok =
        dt == FL_DT_INT32 || dt == FL_DT_INT64 || dt == FL_DT_FLOAT || dt == FL_DT_DOUBLE;
    if (e == 0.0 && ones_ok && shape_concrete(&out->shape)) {
        int64_t dims[256];
        for (int i = 0; i < out->shape.rank && i < 256; i++) {
            dims[i] = out->shape.dims[i].k;
        }
        fl_value *v = fl__value_new(g->arena, (fl_dtype)dt, out->shape.rank, dims);
        if (v && v->n > a->pc->c->max_value_elems) {
            v = NULL; /* too large to hold: a stripped Const of ones */
        } else if (!v) {
            return ao_oom(a);
        }
        for (int64_t i = 0; v && i < v->n; i++) {
            if (v->ints) {
                ((fl_sym *)v->ints)[i] = fl_sym_const(1);
            } else {
                fl__value_set_f64(v, i, 1.0);
            }
        }
        fl__ledger_note(a->pc, "convert_pow", n, "Pow(x, 0) -> Const ones");
        for (int k = 0; k < n->n_inputs; k++) {
            a->uses[n->inputs[k].node->id]--;
            a->ctrl_uses[n->inputs[k].node->id]++;
        }
        for (int k = 0; k < n->n_inputs; k++) {
            const fl_node *in = n->inputs[k].node;
            for (int j = 0; j < in->n_ctrl; j++) {
                bool dup = false;
                for (int q = 0; q < n->n_ctrl; q++) {
                    dup = dup || n->ctrl[q] == in->ctrl[j];
                }
                a->ctrl_uses[in->ctrl[j]->id] += !dup;
            }
        }
        fl_status st = fl__node_make_const(a->pc, n, v, true);
        a->pc->rewritten++;
        *fired = true;
        return st;
    }
    return FL_OK;
}

/* A Const of ones whose shape is fully known, of a float dtype (Log1p and
 * Expm1 take bfloat16, half, float, double). */
static bool float_ones_const(const fl_node *c) {
    const fl_value *v = const_value(c);
    return v && fl__dtype_is_float(v->dtype) && value_all(v, 1.0);
}

/* ConvertLog1p. */
static fl_status convert_log1p(ao *a, fl_node *n, bool *fired) {
    if (n->kind != FL_OP_LOG || n->n_inputs != 1) {
        return FL_OK;
    }
    fl_node *add = n->inputs[0].node;
    if (!is_add(add) || add->n_inputs != 2) {
        return FL_OK;
    }
    for (int i = 0; i < 2; i++) {
        int j = 1 - i;
        const fl_shape *t = &fl_node_in(add, i)->shape, *c = &fl_node_in(add, j)->shape;
        if (!shape_concrete(c) || !bcast_keeps(t, c) || !float_ones_const(add->inputs[j].node)) {
            continue;
        }
        fl_node *y = add->inputs[j].node;
        fl__ledger_note(a->pc, "convert_log1p", n, "Log(Add(x, 1)) -> Log1p(x)");
        ao_set_input(a, n, 0, add->inputs[i]);
        fl__node_become(a->g, n, "Log1p");
        n->src = NULL;
        a->pc->rewritten++;
        *fired = true;
        fl_status st = ao_add_ctrl(a, n, y);
        return st == FL_OK ? ao_forward_ctrl(a, n, add) : st;
    }
    return FL_OK;
}

/* ConvertExpm1. */
static fl_status convert_expm1(ao *a, fl_node *n, bool *fired) {
    if (n->kind != FL_OP_SUB || n->n_inputs != 2) {
        return FL_OK;
    }
    fl_node *ex = n->inputs[0].node;
    if (ex->kind != FL_OP_EXP || ex->n_inputs != 1) {
        return FL_OK;
    }
    const fl_shape *t = &fl_node_in(n, 0)->shape, *c = &fl_node_in(n, 1)->shape;
    if (!bcast_keeps(t, c) || !float_ones_const(n->inputs[1].node)) {
        return FL_OK;
    }
    fl__ledger_note(a->pc, "convert_expm1", n, "Sub(Exp(x), 1) -> Expm1(x)");
    ao_set_input(a, n, 0, ex->inputs[0]);
    fl_status st = input_to_ctrl(a, n, 1);
    if (st != FL_OK) {
        return st;
    }
    fl__node_become(a->g, n, "Expm1");
    n->src = NULL;
    a->pc->rewritten++;
    *fired = true;
    return ao_forward_ctrl(a, n, ex);
}

/* OptimizeMaxOrMinOfMonotonic. */
static fl_status max_or_min_of_monotonic(ao *a, fl_node *r, bool *fired) {
    bool arg = r->kind == FL_OP_ARG_MAX || r->kind == FL_OP_ARG_MIN;
    bool pool =
        r->kind == FL_OP_MAX_POOL || r->kind == FL_OP_MAX_POOL_V2 || r->kind == FL_OP_MAX_POOL3D;
    bool red = r->kind == FL_OP_MAX || r->kind == FL_OP_MIN || is_op(r, "SegmentMax") ||
               is_op(r, "SegmentMin") || is_op(r, "UnsortedSegmentMax") ||
               is_op(r, "UnsortedSegmentMin");
    if ((!arg && !pool && !red) || fl__preserved(r) || r->n_inputs < 1 || r->n_outputs != 1 ||
        r->outputs[0].dtype == FL_DT_INVALID) {
        return FL_OK;
    }
    fl_node *f = r->inputs[0].node;
    int mono = monotonic(f);
    if (mono == 0 || fl__preserved(f) || n_uses(a, f) != 1 || a->ctrl_uses[f->id] ||
        f->n_outputs != 1 || (pool && mono < 0)) {
        return FL_OK;
    }
    const fl_node *fin = f->inputs[0].node;
    if ((f->kind == FL_OP_RELU || f->kind == FL_OP_RELU6) &&
        (strncmp(fin->op, "FusedBatchNorm", 14) == 0 || fin->kind == FL_OP_BIAS_ADD)) {
        return FL_OK;
    }
    const char *op = r->op;
    if (mono < 0) {
        char *flipped = fl__arena_printf(a->g->arena, "%s", r->op);
        char *p = flipped ? strstr(flipped, "Max") : NULL;
        if (!flipped) {
            return ao_oom(a);
        }
        if (p) {
            memcpy(p, "Min", 3);
        } else if ((p = strstr(flipped, "Min")) != NULL) {
            memcpy(p, "Max", 3);
        }
        op = flipped;
    }
    fl__ledger_note(a->pc, "optimize_max_or_min_of_monotonic", r, "%s(%s(x)) -> %s(%s(x))", r->op,
                    f->op, arg ? "Identity" : f->op, op);
    /* consumers of r read f; r reads x; f reads r (r's consumers all come
     * later in the sweep: none has been forwarded yet) */
    size_t moved = fl__graph_replace_uses(a->g, r, 0, f, 0);
    a->uses[f->id] += (uint32_t)moved;
    a->uses[r->id] -= (uint32_t)moved;
    ao_set_input(a, r, 0, f->inputs[0]);
    ao_set_input(a, f, 0, (fl_input){r, 0});
    if (r->op != op) {
        fl__node_become(a->g, r, op);
        r->src = NULL;
    }
    a->pc->rewritten += 2;
    *fired = true;
    if (arg) {
        int dt = r->outputs[0].dtype;
        f->attrs = NULL;
        f->n_attrs = 0;
        f->src = NULL;
        fl__node_become(a->g, f, "Identity");
        return ao_set_attr(a, f, fl__attr_make_type(a->g, "T", dt));
    }
    return FL_OK;
}

/* ------------------------------------------------------------------------- */
/* Stages added in the second set                                             */
/* ------------------------------------------------------------------------- */

static bool same_device(const fl_node *x, const fl_node *y) {
    return strcmp(x->device ? x->device : "", y->device ? y->device : "") == 0;
}

/* A node whose consumers may be moved to a replacement: not preserved, one
 * output (its control inputs are copied onto the replacement by the caller,
 * its control consumers follow the forward). */
static bool replaceable(const fl_node *n) {
    return !fl__preserved(n) && n->n_outputs == 1;
}

/* The elements of a Const of dtype int32 (int64 too when int64_ok), at most
 * `max` of them: the count, or -1. */
static int const_ints(const fl_node *c, bool int64_ok, int64_t *out, int max) {
    const fl_value *v = const_value(c);
    if (!v || !v->ints || v->n > max ||
        (v->dtype != FL_DT_INT32 && !(int64_ok && v->dtype == FL_DT_INT64))) {
        return -1;
    }
    for (int64_t i = 0; i < v->n; i++) {
        out[i] = fl__value_int(v, i).k;
    }
    return (int)v->n;
}

/* An int32 Const: a vector of n elements (rank 1) or a scalar (rank 0). */
static fl_node *ao_add_i32(ao *a, const char *name, const char *device, int rank,
                           const int64_t *vals, int n) {
    int64_t dims[1] = {n};
    fl_value *v = fl__value_new(a->g->arena, FL_DT_INT32, rank, rank ? dims : NULL);
    if (!v) {
        ao_oom(a);
        return NULL;
    }
    for (int i = 0; i < n && i < v->n; i++) {
        ((fl_sym *)v->ints)[i] = fl_sym_const(vals[i]);
    }
    return ao_add_const(a, name, device, v);
}

/* opt_name with a rule suffix: "<scope>/ArithmeticOptimizer/<stage>_<rule>_<base>". */
static const char *opt_name2(ao *a, const char *of, const char *stage, const char *rule) {
    const char *pre = fl__arena_printf(a->g->arena, "%s_%s", stage, rule);
    return pre ? opt_name(a, of, pre) : NULL;
}

static bool exists(const ao *a, const char *name) {
    return name && fl__graph_find(a->g, name) != NULL;
}

/* Sets attr `name` to dtype dt. */
static fl_status set_type(ao *a, fl_node *n, const char *name, int dt) {
    return ao_set_attr(a, n, fl__attr_make_type(a->g, name, dt));
}

/* Replaces n by `to` (a node this stage created): n's control inputs move to
 * `to`, its consumers read `to`, n is removed. */
static fl_status replace_by(ao *a, fl_node *n, fl_node *to) {
    fl_status st = ao_forward_ctrl(a, to, n);
    if (st == FL_OK) {
        ao_forward(a, n, (fl_input){to, 0});
    }
    return st;
}

/* ReplacePackWithTileReshape (11). */
static fl_status replace_pack_with_tile_reshape(ao *a, fl_node *n, bool *fired) {
    if (n->kind != FL_OP_PACK || n->n_inputs < 2 || !replaceable(n) ||
        (a->uses[n->id] == 0 && a->ctrl_uses[n->id] == 0)) {
        return FL_OK; /* (a Pack left dead by an outer chain) */
    }
    fl_node *chain[64];
    int n_chain = 0;
    fl_input in = {n, 0};
    while (in.node->kind == FL_OP_PACK && !fl__preserved(in.node) && in.node->n_inputs >= 1 &&
           n_chain < 64) {
        fl_node *p = in.node;
        bool equal = true;
        for (int k = 1; k < p->n_inputs; k++) {
            equal = equal && p->inputs[k].node == p->inputs[0].node &&
                    p->inputs[k].port == p->inputs[0].port;
        }
        if (!equal) {
            break;
        }
        chain[n_chain++] = p;
        in = p->inputs[0];
    }
    if (n_chain == 0 || in.port != 0) {
        return FL_OK;
    }
    static const char *const rules[4] = {"Multiples", "Tile", "Shape", "Reshape"};
    const char *nm[4];
    for (int i = 0; i < 4; i++) {
        nm[i] = opt_name2(a, n->name, "ReplacePackWithTileReshape", rules[i]);
        if (!nm[i]) {
            return ao_oom(a);
        }
        if (exists(a, nm[i])) {
            return FL_OK;
        }
    }
    const fl_tensor *x = &in.node->outputs[0], *out = &n->outputs[0];
    int dt = attr_type(n, "T");
    if (!shape_concrete(&x->shape) || !shape_concrete(&out->shape) || x->shape.rank > 64 ||
        out->shape.rank > 128 || dt == FL_DT_INVALID) {
        return FL_OK;
    }
    /* multiples per dim of x; dims[j]: the dim of x that axis j of the
     * current (partially packed) shape comes from */
    int64_t mult[64], dims[128];
    int rank = x->shape.rank, n_dims = rank;
    for (int i = 0; i < rank; i++) {
        mult[i] = 1;
        dims[i] = i;
    }
    for (int c = n_chain - 1; c >= 0; c--) {
        int64_t axis, cnt;
        const fl_attr *ax = fl__node_attr(chain[c], "axis"), *na = fl__node_attr(chain[c], "N");
        if (!ax || ax->kind != FL_ATTR_I || !na || na->kind != FL_ATTR_I) {
            return FL_OK;
        }
        axis = ax->v.i;
        cnt = na->v.i;
        if (axis < 0 || axis >= n_dims || n_dims >= 128) {
            return FL_OK; /* Grappler does not handle packing on the last axis */
        }
        int64_t m = mult[dims[axis]] * cnt;
        if (m > 2147483647 || m < 1) {
            return FL_OK;
        }
        mult[dims[axis]] = m;
        memmove(dims + axis + 1, dims + axis, (size_t)(n_dims - axis) * sizeof(int64_t));
        n_dims++;
    }
    int64_t shape[128];
    for (int i = 0; i < out->shape.rank; i++) {
        shape[i] = out->shape.dims[i].k;
    }
    fl_node *xn = in.node;
    fl_node *mc = ao_add_i32(a, nm[0], n->device, 1, mult, rank);
    if (!mc || ao_add_ctrl(a, mc, xn) != FL_OK) {
        return ao_oom(a);
    }
    fl_input tin[2] = {in, {mc, 0}};
    fl_node *tile = ao_add(a, nm[1], "Tile", n->device, 2, tin);
    if (!tile || set_type(a, tile, "T", dt) != FL_OK ||
        set_type(a, tile, "Tmultiples", FL_DT_INT32) != FL_OK) {
        return ao_oom(a);
    }
    for (int c = 0; c < n_chain; c++) {
        if (ao_forward_ctrl(a, tile, chain[c]) != FL_OK) {
            return ao_oom(a);
        }
    }
    fl_node *sc = ao_add_i32(a, nm[2], n->device, 1, shape, out->shape.rank);
    if (!sc || ao_add_ctrl(a, sc, xn) != FL_OK) {
        return ao_oom(a);
    }
    fl_input rin[2] = {{tile, 0}, {sc, 0}};
    fl_node *rs = ao_add(a, nm[3], "Reshape", n->device, 2, rin);
    if (!rs || set_type(a, rs, "T", dt) != FL_OK ||
        set_type(a, rs, "Tshape", FL_DT_INT32) != FL_OK) {
        return ao_oom(a);
    }
    fl__ledger_note(a->pc, "replace_pack_with_tile_reshape", n,
                    "%d Pack node(s) of '%s' -> Reshape(Tile(x))", n_chain, xn->name);
    *fired = true;
    return replace_by(a, n, rs);
}

/* ReplaceMulWithBroadcastByTile (12). */
static fl_status replace_mul_with_tile(ao *a, fl_node *n, bool *fired) {
    if (n->kind != FL_OP_MUL || n->n_inputs != 2 || !replaceable(n)) {
        return FL_OK;
    }
    fl_node *x = n->inputs[0].node, *ones = n->inputs[1].node;
    const fl_value *ov = const_value(ones);
    if (fl__preserved(x) || fl__preserved(ones) || x->kind == FL_OP_CONST || !ov ||
        ov->dtype != FL_DT_FLOAT || !value_all(ov, 1.0) || n->inputs[0].port != 0) {
        return FL_OK;
    }
    const char *tn = opt_name2(a, n->name, "ReplaceMulWithBroadcastByTile", "Tile");
    const char *cn = opt_name2(a, n->name, "ReplaceMulWithBroadcastByTile", "Const");
    if (!tn || !cn) {
        return ao_oom(a);
    }
    if (exists(a, tn) || exists(a, cn)) {
        return FL_OK;
    }
    const fl_shape *xs = &fl_node_in(n, 0)->shape, *os = &fl_node_in(n, 1)->shape;
    if (!bcastable(xs, os) || xs->rank != os->rank || xs->rank > 64) {
        return FL_OK;
    }
    int64_t mult[64];
    bool grows = false;
    for (int i = 0; i < xs->rank; i++) {
        fl_sym p = xs->dims[i], q = os->dims[i];
        if (fl__sym_eq(p, q) || dim_is_one(q)) {
            mult[i] = 1;
        } else if (dim_is_one(p) && fl_sym_is_known(q)) {
            mult[i] = q.k;
            grows = true;
        } else {
            return FL_OK; /* the multiple would be a symbol */
        }
    }
    if (!grows) {
        return FL_OK; /* the shape does not change */
    }
    int dt = attr_type(n, "T");
    fl_node *c = ao_add_i32(a, cn, n->device, 1, mult, xs->rank);
    if (!c || ao_forward_ctrl(a, c, ones) != FL_OK) {
        return ao_oom(a);
    }
    fl_input tin[2] = {n->inputs[0], {c, 0}};
    fl_node *tile = ao_add(a, tn, "Tile", n->device, 2, tin);
    if (!tile || set_type(a, tile, "T", dt == FL_DT_INVALID ? FL_DT_FLOAT : dt) != FL_OK ||
        set_type(a, tile, "Tmultiples", FL_DT_INT32) != FL_OK) {
        return ao_oom(a);
    }
    fl__ledger_note(a->pc, "replace_mul_with_tile", n, "Mul('%s', ones '%s') -> Tile", x->name,
                    ones->name);
    *fired = true;
    return replace_by(a, n, tile);
}

/* ReduceUpsamplingDims (13). */
static fl_status reduce_upsampling_dims(ao *a, fl_node *n, bool *fired) {
    if (n->kind != FL_OP_RESHAPE || fl__preserved(n) || n->n_inputs != 2) {
        return FL_OK;
    }
    fl_node *tile = n->inputs[0].node;
    if (tile->kind != FL_OP_TILE || fl__preserved(tile) || n_uses(a, tile) != 1 ||
        tile->n_inputs != 2) {
        return FL_OK;
    }
    fl_node *rs = tile->inputs[0].node;
    if (rs->kind != FL_OP_RESHAPE || fl__preserved(rs) || rs->n_inputs != 2) {
        return FL_OK;
    }
    fl_node *mul = tile->inputs[1].node, *shp = rs->inputs[1].node;
    static const char *const rules[4] = {"Reshape", "Tile", "Multiples", "Shape"};
    const char *nm[4];
    for (int i = 0; i < 4; i++) {
        nm[i] = opt_name2(a, n->name, "ReduceUpsamplingDims", rules[i]);
        if (!nm[i]) {
            return ao_oom(a);
        }
        if (exists(a, nm[i])) {
            return FL_OK;
        }
    }
    int64_t m[6], s[6];
    if (const_ints(mul, false, m, 6) != 6 || m[3] != 1 || m[5] != 1 ||
        const_ints(shp, false, s, 6) != 6 || s[2] != 1 || s[4] != 1) {
        return FL_OK;
    }
    int64_t m4[4] = {m[0], m[1], m[2], m[4]}, s4[4] = {s[0], s[1], s[3], s[5]};
    fl_node *nmul = ao_add_i32(a, nm[2], mul->device, 1, m4, 4);
    fl_node *nshp = nmul ? ao_add_i32(a, nm[3], shp->device, 1, s4, 4) : NULL;
    if (!nshp) {
        return ao_oom(a);
    }
    fl_input rin[2] = {rs->inputs[0], {nshp, 0}};
    fl_node *nrs = ao_add(a, nm[0], "Reshape", rs->device, 2, rin);
    if (!nrs || set_type(a, nrs, "T", attr_type(rs, "T")) != FL_OK ||
        set_type(a, nrs, "Tshape", attr_type(rs, "Tshape")) != FL_OK) {
        return ao_oom(a);
    }
    fl_input tin[2] = {{nrs, 0}, {nmul, 0}};
    fl_node *nt = ao_add(a, nm[1], "Tile", tile->device, 2, tin);
    if (!nt || set_type(a, nt, "T", attr_type(tile, "T")) != FL_OK ||
        set_type(a, nt, "Tmultiples", attr_type(tile, "Tmultiples")) != FL_OK ||
        ao_forward_ctrl(a, nt, tile) != FL_OK || ao_forward_ctrl(a, nmul, mul) != FL_OK ||
        ao_forward_ctrl(a, nrs, rs) != FL_OK || ao_forward_ctrl(a, nshp, shp) != FL_OK) {
        return ao_oom(a);
    }
    fl__ledger_note(a->pc, "reduce_upsampling_dims", n, "6-D Reshape/Tile of '%s' -> 4-D",
                    rs->name);
    ao_set_input(a, n, 0, (fl_input){nt, 0});
    a->pc->rewritten++;
    *fired = true;
    return FL_OK;
}

/* Appendix A: unary element-wise (including the value+order+shape preserving
 * ops). */
static bool unary_elementwise(const fl_node *n) {
    static const char *const ops[] = {
        "Abs",        "Acos",       "Acosh",         "Asin",
        "Asinh",      "Atan",       "Atanh",         "Ceil",
        "ComplexAbs", "Conj",       "Cos",           "Cosh",
        "Digamma",    "Elu",        "Erf",           "Erfc",
        "Exp",        "Expm1",      "Floor",         "Inv",
        "Invert",     "IsInf",      "IsNan",         "IsFinite",
        "Lgamma",     "Log",        "Log1p",         "LogicalNot",
        "Neg",        "Reciprocal", "Relu",          "Relu6",
        "Rint",       "Round",      "Selu",          "Rsqrt",
        "Sigmoid",    "Sign",       "Sin",           "Sinh",
        "Softplus",   "Softsign",   "Sqrt",          "Square",
        "Tan",        "Tanh",       "CheckNumerics", "DebugGradientIdentity",
        "DeepCopy",   "Enter",      "Exit",          "PreventGradient",
        "Print",      "Snapshot",   "StopGradient",  "Identity"};
    for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++) {
        if (strcmp(n->op, ops[i]) == 0) {
            return true;
        }
    }
    return n->kind == FL_OP_ADD_N && n->n_inputs == 1;
}

static bool modifies_frame(const fl_node *n) {
    return is_op(n, "Enter") || is_op(n, "Exit") || is_op(n, "RefEnter") || is_op(n, "RefExit");
}

/* RemoveRedundantReshapeOrBroadcastTo, the bypass half:
 * Reshape(unary chain(Reshape(x))) -> the chain reads x. */
static fl_status reshape_of_reshape(ao *a, fl_node *n, bool *fired) {
    if (n->kind != FL_OP_RESHAPE || n->n_inputs < 1) {
        return FL_OK;
    }
    fl_node *tail = n;
    for (int guard = 0; guard < 1 << 16; guard++) {
        if (tail->n_inputs < 1) {
            break;
        }
        fl_node *nx = tail->inputs[0].node;
        if (n_uses(a, nx) > 1 || fl__preserved(nx) || modifies_frame(nx)) {
            return FL_OK;
        }
        if (!unary_elementwise(nx)) {
            break;
        }
        tail = nx;
    }
    if (fl__preserved(tail) || tail->n_inputs < 1) {
        return FL_OK;
    }
    fl_node *inner = tail->inputs[0].node;
    if (inner->kind != FL_OP_RESHAPE || n_uses(a, inner) > 1 || fl__preserved(inner) ||
        inner->n_inputs < 1 || a->ctrl_uses[inner->id]) {
        return FL_OK;
    }
    fl__ledger_note(a->pc, "remove_redundant_reshape", n, "inner Reshape '%s' bypassed",
                    inner->name);
    ao_set_input(a, tail, 0, inner->inputs[0]);
    fl_status st = ao_forward_ctrl(a, tail, inner);
    a->pc->rewritten++;
    if (a->uses[inner->id] == 0) {
        ao_remove(a, inner);
    }
    *fired = true;
    return st;
}

/* Cast-like ops (op_types.cc IsCastLike) that foldline's registry knows. */
static bool cast_like(const fl_node *n) {
    return n->kind == FL_OP_CAST || n->kind == FL_OP_IS_NAN || n->kind == FL_OP_IS_INF ||
           n->kind == FL_OP_IS_FINITE;
}

/* Value-preserving ops whose kernels take any real number type (the new
 * input type of ReorderCastLikeAndValuePreserving must have a kernel). */
static bool reorderable_vp(const fl_node *n) {
    static const char *const ops[] = {
        "Identity",     "Snapshot",       "StopGradient",  "PreventGradient", "Reshape",
        "ExpandDims",   "Squeeze",        "Transpose",     "ReverseV2",       "DepthToSpace",
        "SpaceToDepth", "BatchToSpaceND", "SpaceToBatchND"};
    for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++) {
        if (strcmp(n->op, ops[i]) == 0) {
            return true;
        }
    }
    return false;
}

static bool real_number_type(int dt) {
    switch (dt) {
    case FL_DT_INT8:
    case FL_DT_INT16:
    case FL_DT_INT32:
    case FL_DT_INT64:
    case FL_DT_UINT8:
    case FL_DT_UINT16:
    case FL_DT_HALF:
    case FL_DT_BFLOAT16:
    case FL_DT_FLOAT:
    case FL_DT_DOUBLE:
        return true;
    default:
        return false;
    }
}

/* Grappler's IsFixedSizeType: not string, variant, resource or quantized. */
static bool fixed_size(int dt) {
    switch (dt) {
    case FL_DT_QINT8:
    case FL_DT_QUINT8:
    case FL_DT_QINT16:
    case FL_DT_QUINT16:
    case FL_DT_QINT32:
        return false;
    default:
        return fl__dtype_valid(dt) && fl__dtype_size(dt) > 0;
    }
}

/* Whether n runs on CPU or GPU (empty device: the target device). */
static bool on_cpu_or_gpu(const ao *a, const fl_node *n) {
    return fl__node_device(n, a->pc->opt->device) != FL_DEV_OTHER;
}

/* ReorderCastLikeAndValuePreserving (18). */
static fl_status reorder_cast_like(ao *a, fl_node *c, bool *fired) {
    if ((!value_preserving(c) && !cast_like(c)) || is_op(c, "CheckNumerics") ||
        !on_cpu_or_gpu(a, c) ||
        (fl__op_desc_of(c->kind) && (fl__op_desc_of(c->kind)->flags & FL_OPF_CONTROL_FLOW)) ||
        !replaceable(c) || c->n_inputs < 1) {
        return FL_OK;
    }
    fl_node *p = c->inputs[0].node;
    bool p_cast = cast_like(p);
    bool ok = (p_cast && reorderable_vp(c)) || (reorderable_vp(p) && cast_like(c));
    if (!ok || fl__preserved(p) || !same_device(p, c) || p->n_inputs < 1 || p->n_outputs != 1) {
        return FL_OK;
    }
    const fl_node *cl = p_cast ? p : c;
    int src = fl_node_in(cl, 0)->dtype, dst = cl->outputs[0].dtype;
    if (!fixed_size(src) || !fixed_size(dst)) {
        return FL_OK;
    }
    size_t ss = fl__dtype_size(src), ds = fl__dtype_size(dst);
    if ((p_cast && ds <= ss) || (!p_cast && ds >= ss)) {
        return FL_OK;
    }
    /* the value-preserving op's new input type needs a kernel: real numbers */
    int new_in = p_cast ? src : dst;
    const fl_node *vpn = p_cast ? c : p;
    bool space = strstr(vpn->op, "Space") != NULL;
    if (!real_number_type(new_in) && (new_in != FL_DT_BOOL || space)) {
        return FL_OK;
    }
    const char *pn =
        opt_name2(a, p->name, "ReorderCastLikeAndValuePreserving", fl__dtype_name(dst));
    const char *cn =
        opt_name2(a, c->name, "ReorderCastLikeAndValuePreserving", fl__dtype_name(src));
    if (!pn || !cn) {
        return ao_oom(a);
    }
    if (exists(a, pn) || exists(a, cn)) {
        return FL_OK;
    }
    fl_node *np = ao_copy(a, cn, c);
    if (!np) {
        return ao_oom(a);
    }
    ao_set_input(a, np, 0, p->inputs[0]);
    fl_node *nc = ao_copy(a, pn, p);
    if (!nc) {
        return ao_oom(a);
    }
    ao_set_input(a, nc, 0, (fl_input){np, 0});
    fl_node *vp = p_cast ? np : nc;
    if (set_type(a, vp, "T", new_in) != FL_OK) {
        return ao_oom(a);
    }
    fl__ledger_note(a->pc, "reorder_cast_like_and_value_preserving", c, "%s(%s(x)) -> %s(%s(x))",
                    c->op, p->op, p->op, c->op);
    *fired = true;
    ao_forward(a, c, (fl_input){nc, 0});
    return FL_OK;
}

/* SqrtDivToRsqrtMul (21). */
static fl_status sqrt_div_to_rsqrt_mul(ao *a, fl_node *n, bool *fired) {
    bool div = n->kind == FL_OP_DIV || n->kind == FL_OP_REAL_DIV || n->kind == FL_OP_TRUNCATE_DIV ||
               is_op(n, "Xdivy");
    if (!div || n->n_inputs != 2) {
        return FL_OK;
    }
    fl_node *y = n->inputs[1].node;
    if (y->kind != FL_OP_SQRT || fl__preserved(y) || n_uses(a, y) != 1) {
        return FL_OK;
    }
    fl__ledger_note(a->pc, "convert_sqrt_div_to_rsqrt_mul", n, "%s(x, Sqrt(y)) -> %s", n->op,
                    is_op(n, "Xdivy") ? "MulNoNan(Rsqrt(y), x)" : "Mul(x, Rsqrt(y))");
    if (is_op(n, "Xdivy")) {
        fl_input sw[2] = {n->inputs[1], n->inputs[0]};
        fl_status st = ao_set_inputs(a, n, 2, sw);
        if (st != FL_OK) {
            return st;
        }
        fl__node_become(a->g, n, "MulNoNan");
    } else {
        fl__node_become(a->g, n, "Mul");
    }
    n->src = NULL;
    fl__node_become(a->g, y, "Rsqrt");
    y->src = NULL;
    a->pc->rewritten += 2;
    *fired = true;
    return FL_OK;
}

/* Idempotent ops (Appendix A) free of side effects. */
static bool idempotent(const fl_node *n) {
    static const char *const ops[] = {"Identity", "Snapshot", "StopGradient", "PreventGradient",
                                      "DebugGradientIdentity"};
    for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++) {
        if (strcmp(n->op, ops[i]) == 0) {
            return true;
        }
    }
    return false;
}

/* RemoveStackSliceSameAxis (29): the packed input the slice takes out, or -1;
 * *expand when the slice keeps the axis. */
static int stack_slice_index(const fl_node *n, const fl_shape *ps, int axis, bool *expand) {
    int64_t b[64], e[64], s[64];
    int r = ps->rank;
    if (n->kind == FL_OP_SLICE) {
        int nb = const_ints(n->inputs[1].node, true, b, 64);
        int ns = const_ints(n->inputs[2].node, true, s, 64);
        if (nb < 0 || nb != ns || nb != r || s[axis] != 1) {
            return -1;
        }
        for (int i = 0; i < r; i++) {
            if (i != axis && (b[i] != 0 || (s[i] != -1 && !(fl_sym_is_known(ps->dims[i]) &&
                                                            s[i] == ps->dims[i].k)))) {
                return -1;
            }
        }
        *expand = true;
        return (int)b[axis];
    }
    const fl_attr *m[5];
    static const char *const mn[5] = {"begin_mask", "end_mask", "ellipsis_mask", "new_axis_mask",
                                      "shrink_axis_mask"};
    for (int i = 0; i < 5; i++) {
        m[i] = fl__node_attr(n, mn[i]);
        if (m[i] && m[i]->kind != FL_ATTR_I) {
            return -1;
        }
    }
    int64_t bm = m[0] ? m[0]->v.i : 0, em = m[1] ? m[1]->v.i : 0, el = m[2] ? m[2]->v.i : 0,
            na = m[3] ? m[3]->v.i : 0, sh = m[4] ? m[4]->v.i : 0;
    int nb = const_ints(n->inputs[1].node, true, b, 64);
    int ne = const_ints(n->inputs[2].node, true, e, 64);
    int ns = const_ints(n->inputs[3].node, true, s, 64);
    if (el || na || nb < 0 || nb != ne || nb != ns || nb > r) {
        return -1;
    }
    /* canonical begin/end per dim; `full` when the dim is taken whole */
    int begin_index = -1, end_index = -1;
    int64_t begin_value = 0, end_value = 0;
    for (int i = 0; i < r; i++) {
        bool spec = i < nb;
        if (spec && s[i] != 1) {
            return -1; /* not a simple slice */
        }
        bool shrink = spec && ((sh >> i) & 1);
        bool bmask = !spec || ((bm >> i) & 1), emask = !spec || ((em >> i) & 1);
        bool known = fl_sym_is_known(ps->dims[i]);
        int64_t dim = known ? ps->dims[i].k : -1;
        int64_t bi, ei;
        if (shrink) {
            if (!known && b[i] < 0) {
                return -1;
            }
            bi = b[i] < 0 ? b[i] + dim : b[i];
            ei = bi + 1;
            if (!known) {
                return -1;
            }
        } else if (!known) {
            if (!bmask || !emask) {
                return -1;
            }
            continue; /* the whole dim */
        } else {
            bi = bmask ? 0 : (b[i] < 0 ? b[i] + dim : b[i]);
            ei = emask ? dim : (e[i] < 0 ? e[i] + dim : e[i]);
            bi = bi < 0 ? 0 : bi > dim ? dim : bi;
            ei = ei < 0 ? 0 : ei > dim ? dim : ei;
        }
        if (bi != 0) {
            if (begin_index != -1) {
                return -1;
            }
            begin_index = i;
            begin_value = bi;
        }
        if (ei != dim) {
            if (end_index != -1) {
                return -1;
            }
            end_index = i;
            end_value = ei;
        }
    }
    if ((begin_index == -1 && end_index == -1) ||
        (begin_index != -1 && end_index != -1 && begin_index != end_index)) {
        return -1;
    }
    int slice_axis = begin_index == -1 ? end_index : begin_index;
    if (slice_axis != axis) {
        return -1;
    }
    int64_t start = begin_index == -1 ? 0 : begin_value;
    int64_t end = end_index == -1 ? ps->dims[axis].k : end_value;
    if (!fl_sym_is_known(ps->dims[axis]) || end != start + 1) {
        return -1;
    }
    if (sh == 0) {
        *expand = true;
    } else if (sh == ((int64_t)1 << slice_axis)) {
        *expand = false;
    } else {
        return -1;
    }
    return (int)start;
}

static fl_status remove_stack_slice_same_axis(ao *a, fl_node *n, bool *fired) {
    bool slice = n->kind == FL_OP_SLICE && n->n_inputs == 3;
    if ((!slice && (n->kind != FL_OP_STRIDED_SLICE || n->n_inputs != 4)) || !replaceable(n)) {
        return FL_OK;
    }
    fl_node *pack = n->inputs[0].node;
    const fl_attr *ax = fl__node_attr(pack, "axis");
    const fl_shape *ps = &fl_node_in(n, 0)->shape;
    if (pack->kind != FL_OP_PACK || !ax || ax->kind != FL_ATTR_I || ps->rank < 1 || ps->rank > 64) {
        return FL_OK;
    }
    int64_t axis = ax->v.i < 0 ? ax->v.i + ps->rank : ax->v.i;
    if (axis < 0 || axis >= ps->rank) {
        return FL_OK;
    }
    bool expand = false;
    int idx = stack_slice_index(n, ps, (int)axis, &expand);
    int dt = n->outputs[0].dtype;
    if (idx < 0 || idx >= pack->n_inputs || dt == FL_DT_INVALID) {
        return FL_OK;
    }
    fl_input src = pack->inputs[idx];
    const char *on = opt_name(a, n->name, "RemoveStackStridedSliceSameAxis");
    if (!on) {
        return ao_oom(a);
    }
    fl_node *out;
    if (!expand) {
        out = ao_add(a, on, "Identity", n->device, 1, &src);
        if (!out || set_type(a, out, "T", dt) != FL_OK) {
            return ao_oom(a);
        }
    } else {
        const char *axn = opt_name2(a, n->name, "RemoveStackStridedSliceSameAxis", "Axis");
        fl_node *axc = axn ? ao_add_i32(a, axn, n->device, 0, &axis, 1) : NULL;
        if (!axc || ao_add_ctrl(a, axc, src.node) != FL_OK) {
            return ao_oom(a);
        }
        fl_input ein[2] = {src, {axc, 0}};
        out = ao_add(a, on, "ExpandDims", n->device, 2, ein);
        if (!out || set_type(a, out, "T", dt) != FL_OK ||
            set_type(a, out, "Tdim", FL_DT_INT32) != FL_OK) {
            return ao_oom(a);
        }
    }
    if (ao_forward_ctrl(a, out, pack) != FL_OK) {
        return ao_oom(a);
    }
    fl__ledger_note(a->pc, "remove_stack_slice_same_axis", n, "%s of Pack '%s' -> %s(input %d)",
                    n->op, pack->name, expand ? "ExpandDims" : "Identity", idx);
    *fired = true;
    return replace_by(a, n, out);
}

static bool sparse_segment_reduction(const fl_node *n) {
    static const char *const ops[] = {"SparseSegmentSum",   "SparseSegmentSumWithNumSegments",
                                      "SparseSegmentMean",  "SparseSegmentMeanWithNumSegments",
                                      "SparseSegmentSqrtN", "SparseSegmentSqrtNWithNumSegments"};
    for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++) {
        if (strcmp(n->op, ops[i]) == 0) {
            return true;
        }
    }
    return false;
}

/* A scalar (one element) int32/int64 Const equal to 0. */
static bool axis0(const fl_node *c) {
    int64_t v[1];
    return const_ints(c, true, v, 1) == 1 && v[0] == 0;
}

/* SimplifyEmbeddingLookup (30). */
static fl_status simplify_embedding_lookup(ao *a, fl_node *r, bool *fired) {
    if (!sparse_segment_reduction(r) || fl__preserved(r) || r->n_inputs < 3) {
        return FL_OK;
    }
    fl_node *g = r->inputs[0].node;
    if ((g->kind != FL_OP_GATHER && g->kind != FL_OP_GATHER_V2) || fl__preserved(g) ||
        !same_device(g, r) || g->n_inputs < 2 ||
        (g->kind == FL_OP_GATHER_V2 && (g->n_inputs < 3 || !axis0(g->inputs[2].node)))) {
        return FL_OK;
    }
    fl_node *u = g->inputs[1].node;
    bool v2 = is_op(u, "UniqueV2");
    int t = attr_type(u, "T");
    if ((!is_op(u, "Unique") && !v2) || fl__preserved(u) || !same_device(u, g) || u->n_inputs < 1 ||
        g->inputs[1].port != 0 || t == FL_DT_INVALID ||
        (v2 && (u->n_inputs < 2 || !axis0(u->inputs[1].node)))) {
        return FL_OK;
    }
    if (r->inputs[1].node != u || r->inputs[1].port != 1) {
        return FL_OK;
    }
    fl__ledger_note(a->pc, "simplify_embedding_lookup", r, "%s reads '%s' and '%s' directly", r->op,
                    g->inputs[0].node->name, u->inputs[0].node->name);
    ao_set_input(a, r, 0, g->inputs[0]);
    ao_set_input(a, r, 1, u->inputs[0]);
    a->pc->rewritten++;
    *fired = true;
    return set_type(a, r, "Tidx", t);
}

/* RemoveCastIntoSegmentReduction (31). */
static fl_status remove_cast_into_segment_reduction(ao *a, fl_node *r, bool *fired) {
    if (!sparse_segment_reduction(r) || fl__preserved(r) || r->n_inputs < 3) {
        return FL_OK;
    }
    static const char *const attrs[3] = {NULL, "Tidx", "Tsegmentids"};
    for (int k = 1; k <= 2; k++) {
        fl_node *c = r->inputs[k].node;
        int src = attr_type(c, "SrcT");
        if (c->kind != FL_OP_CAST || c->n_inputs < 1 ||
            (src != FL_DT_INT32 && src != FL_DT_INT64)) {
            continue;
        }
        if (!*fired) {
            fl__ledger_note(a->pc, "remove_cast_into_segment_reduction", r,
                            "Cast '%s' into %s removed", c->name, r->op);
            a->pc->rewritten++;
        }
        ao_set_input(a, r, k, c->inputs[0]);
        fl_status st = set_type(a, r, attrs[k], src);
        if (st != FL_OK) {
            return st;
        }
        *fired = true;
    }
    return FL_OK;
}

/* FoldConjugateIntoTranspose (2). */
static fl_status fold_conjugate_into_transpose(ao *a, fl_node *n, bool *fired) {
    bool conj = n->kind == FL_OP_CONJ;
    if ((!conj && n->kind != FL_OP_TRANSPOSE && n->kind != FL_OP_CONJUGATE_TRANSPOSE) ||
        n->n_inputs < 1 || !replaceable(n)) {
        return FL_OK;
    }
    const char *nm = opt_name(a, n->name, "FoldConjugateIntoTranspose");
    if (!nm) {
        return ao_oom(a);
    }
    if (exists(a, nm)) {
        return FL_OK;
    }
    fl_node *in = n->inputs[0].node;
    fl_node *t = conj ? in : n, *c = conj ? n : in;
    if ((t->kind != FL_OP_TRANSPOSE && t->kind != FL_OP_CONJUGATE_TRANSPOSE) || t->n_inputs != 2 ||
        c->kind != FL_OP_CONJ || c->n_inputs != 1 || in->n_inputs < 1) {
        return FL_OK;
    }
    const char *op = t->kind == FL_OP_TRANSPOSE ? "ConjugateTranspose" : "Transpose";
    fl_node *nt = ao_copy(a, nm, t);
    if (!nt) {
        return ao_oom(a);
    }
    fl__node_become(a->g, nt, op);
    ao_set_input(a, nt, 0, in->inputs[0]);
    if (ao_forward_ctrl(a, nt, in) != FL_OK) {
        return ao_oom(a);
    }
    fl__ledger_note(a->pc, "fold_conjugate_into_transpose", n, "%s(%s(x)) -> %s(x)", n->op, in->op,
                    op);
    *fired = true;
    return replace_by(a, n, nt);
}

/* MinimizeBroadcasts (6), in the reverse sweep after AddOpsRewrite. */
#define MIN_BCAST_TAG "_grappler_ArithmeticOptimizer_MinimizeBroadcasts"

static bool min_bcast_tagged(const fl_node *n) {
    return fl__node_attr(n, MIN_BCAST_TAG) || fl__node_attr(n, ADD_OPS_TAG);
}

static bool min_bcast_op(const fl_node *n) {
    return (n->kind == FL_OP_MUL || is_add(n)) && n->n_inputs == 2 && n->n_outputs == 1;
}

static bool min_bcast_absorbable(const ao *a, const fl_node *root, const fl_node *n) {
    return strcmp(n->op, root->op) == 0 && min_bcast_op(n) && !fl__preserved(n) &&
           !(n->flags & FL_NODE_REMOVED) && !min_bcast_tagged(n) && n->n_ctrl == 0 &&
           a->ctrl_uses[n->id] == 0 && same_device(root, n) && a->uses[n->id] == 1 &&
           fl__shape_is_determined(&n->outputs[0].shape) && inputs_bcast_to(n);
}

static fl_status min_bcast_absorb(ao *a, const fl_node *root, fl_input in, add_group *gr,
                                  int depth) {
    fl_node *m = in.node;
    if (depth < 10000 && min_bcast_absorbable(a, root, m)) {
        fl_status st = group_push(a, (void **)&gr->members, &gr->n_members, &gr->cap_members,
                                  sizeof(fl_node *), &m);
        for (int k = 0; k < m->n_inputs && st == FL_OK; k++) {
            st = min_bcast_absorb(a, root, m->inputs[k], gr, depth + 1);
        }
        return st;
    }
    return group_push(a, (void **)&gr->inputs, &gr->n_inputs, &gr->cap_inputs, sizeof(fl_input),
                      &in);
}

typedef struct bcast_item {
    fl_input in;
    const fl_shape *shape; /* a rebuilt node counts as a scalar, as in Grappler */
} bcast_item;

static const fl_shape scalar_shape = {0, NULL};

static void bcast_update(ao *a, fl_node *n, fl_input x, fl_input y) {
    if (n->inputs[0].node != x.node || n->inputs[0].port != x.port || n->inputs[1].node != y.node ||
        n->inputs[1].port != y.port) {
        ao_set_input(a, n, 0, x);
        ao_set_input(a, n, 1, y);
        a->pc->rewritten++;
    }
}

static fl_status minimize_broadcasts(ao *a, fl_node *root, bool *claimed) {
    if (!min_bcast_op(root) || min_bcast_tagged(root) || (root->flags & FL_NODE_REMOVED) ||
        !fl__shape_is_determined(&root->outputs[0].shape) || !inputs_bcast_to(root)) {
        return FL_OK;
    }
    add_group *gr = group_reset(a);
    fl_status st = FL_OK;
    for (int k = 0; k < root->n_inputs && st == FL_OK; k++) {
        st = min_bcast_absorb(a, root, root->inputs[k], gr, 0);
    }
    if (st != FL_OK || gr->n_members == 0) {
        return st;
    }
    st = ao_set_attr(a, root, fl__attr_make_bool(a->g, MIN_BCAST_TAG, true));
    for (size_t i = 0; i < gr->n_members && st == FL_OK; i++) {
        st = ao_set_attr(a, gr->members[i], fl__attr_make_bool(a->g, MIN_BCAST_TAG, true));
    }
    if (st != FL_OK) {
        return st;
    }
    *claimed = true;
    size_t ni = gr->n_inputs;
    bool distinct = false;
    for (size_t i = 1; i < ni; i++) {
        distinct = distinct || !same_sig(&gr->inputs[i].node->outputs[gr->inputs[i].port].shape,
                                         &gr->inputs[0].node->outputs[gr->inputs[0].port].shape);
    }
    if (!distinct || ni != gr->n_members + 2) {
        return FL_OK;
    }
    /* a deque of 3 * ni slots, starting in the middle */
    bcast_item *dq = fl__arena_calloc(a->pc->c->a, 3 * ni + 4, sizeof(bcast_item));
    if (!dq) {
        return ao_oom(a);
    }
    size_t head = ni + 2, tail = head;
    for (size_t i = 0; i < ni; i++) {
        bcast_item it = {gr->inputs[i], &gr->inputs[i].node->outputs[gr->inputs[i].port].shape};
        size_t p = tail++;
        while (p > head && smaller(it.shape, dq[p - 1].shape)) { /* stable insertion sort */
            dq[p] = dq[p - 1];
            p--;
        }
        dq[p] = it;
    }
    bcast_item leftover = {{NULL, 0}, NULL};
    if ((tail - head) % 2) {
        leftover = dq[--tail];
    }
    size_t next_member = gr->n_members;
    fl__ledger_note(a->pc, "minimize_broadcasts", root, "%s tree of %zu nodes reordered", root->op,
                    gr->n_members + 1);
    do {
        bcast_item l = dq[head++], r = dq[head++];
        fl_node *node = next_member > 0 ? gr->members[--next_member] : root;
        bcast_update(a, node, l.in, r.in);
        bcast_item up = {{node, 0}, &scalar_shape};
        if (tail - head >= 2 && smaller(dq[head].shape, dq[head + 1].shape)) {
            dq[--head] = up;
        } else {
            dq[tail++] = up;
        }
    } while (tail - head > 1);
    if (leftover.in.node) {
        bcast_update(a, root, dq[head].in, leftover.in);
    }
    return FL_OK;
}

/* ------------------------------------------------------------------------- */
/* HoistCWiseUnaryChains (20)                                                 */
/* ------------------------------------------------------------------------- */

/* One link of a chain: a node and the Concat input / Split output port the
 * chain starts at. Kept sorted by port, then name (Grappler's ChainLinkSet),
 * so the first link, whose chain names the hoisted nodes, is deterministic. */
typedef struct hlink {
    fl_node *node;
    int port;
} hlink;

#define HOIST_MAX 512

static int hlink_cmp(const void *x, const void *y) {
    const hlink *p = x, *q = y;
    if (p->port != q->port) {
        return p->port < q->port ? -1 : 1;
    }
    return strcmp(p->node->name, q->node->name);
}

/* Resolves every live node's inputs through the forwarding map, so scans of
 * consumers and fl__graph_replace_uses see the graph as rewritten so far. */
static void resolve_all(ao *a) {
    for (size_t i = 0; i < a->g->n_nodes; i++) {
        if (!(a->g->nodes[i]->flags & FL_NODE_REMOVED)) {
            ao_resolve_inputs(a, a->g->nodes[i]);
        }
    }
}

/* The distinct live nodes reading n (data or control), at most `max` of them
 * stored; returns how many there are. */
static size_t consumers(ao *a, const fl_node *n, fl_node **out, size_t max) {
    size_t c = 0;
    for (size_t i = 0; i < a->g->n_nodes; i++) {
        fl_node *m = a->g->nodes[i];
        if (m->flags & FL_NODE_REMOVED) {
            continue;
        }
        bool reads = false;
        for (int k = 0; k < m->n_inputs && !reads; k++) {
            reads = m->inputs[k].node == n;
        }
        for (int k = 0; k < m->n_ctrl && !reads; k++) {
            reads = m->ctrl[k] == n;
        }
        if (reads) {
            if (c < max) {
                out[c] = m;
            }
            c++;
        }
    }
    return c;
}

/* Distinct consumer nodes of n (GetOutputs(n).size()); the use counts give
 * the answer without a scan when there is at most one edge. */
static size_t n_consumer_nodes(ao *a, const fl_node *n) {
    if (a->uses[n->id] + a->ctrl_uses[n->id] <= 1) {
        return a->uses[n->id] + a->ctrl_uses[n->id];
    }
    fl_node *dummy[1];
    return consumers(a, n, dummy, 0);
}

static bool is_concat(const fl_node *n) {
    return is_op(n, "Concat") || is_op(n, "ConcatV2");
}

static bool is_split(const fl_node *n) {
    return is_op(n, "Split") || is_op(n, "SplitV");
}

/* OpsAreSafeToHoist: one more level of the chains can move. Beyond Grappler:
 * an op whose output dtype differs from its input's (IsNan, IsInf,
 * IsFinite, ComplexAbs) is not hoisted, as the Concat/Split's T would have
 * to change (Grappler's TODO; it would leave T wrong). */
static bool hoist_safe(ao *a, const fl_node *root, const hlink *l, int n) {
    if (n == 0) {
        return true;
    }
    const fl_node *op0 = l[0].node;
    if (modifies_frame(op0) || !unary_elementwise(op0)) {
        return false;
    }
    for (int i = 0; i < n; i++) {
        const fl_node *op = l[i].node;
        if (!same_device(op, root) || strcmp(op->op, op0->op) != 0 || fl__preserved(op) ||
            op->n_inputs < 1 || op->n_outputs != 1) {
            return false;
        }
        if (op->outputs[0].dtype != fl_node_in(op, 0)->dtype) {
            return false;
        }
        if (n_consumer_nodes(a, op) > 1) {
            return false;
        }
        /* Relu / Relu6 the remapper can fuse into its producer stay */
        if (is_op(op, "Relu") || is_op(op, "Relu6")) {
            const fl_node *in = op->inputs[0].node;
            if (is_op(in, "BiasAdd") || strncmp(in->op, "FusedBatchNorm", 14) == 0) {
                return false;
            }
        }
    }
    return true;
}

/* Adds the control inputs of the links' nodes to ctrl (a set). */
static int gather_ctrl(const hlink *l, int n, fl_node **ctrl, int n_ctrl) {
    for (int i = 0; i < n; i++) {
        for (int k = 0; k < l[i].node->n_ctrl; k++) {
            fl_node *c = l[i].node->ctrl[k];
            bool have = false;
            for (int j = 0; j < n_ctrl && !have; j++) {
                have = ctrl[j] == c;
            }
            if (!have && n_ctrl < HOIST_MAX) {
                ctrl[n_ctrl++] = c;
            }
        }
    }
    return n_ctrl;
}

/* AdvanceTails: the next level of every chain (toward the inputs for a
 * Concat, toward the consumers for a Split). Returns the new count, or -1
 * to stop (the current level is the last one hoisted). */
static int advance(ao *a, bool concat, const hlink *tails, int n, hlink *next) {
    int w = 0;
    for (int i = 0; i < n; i++) {
        fl_node *t = tails[i].node;
        if (concat) {
            if (t->n_inputs == 0) {
                return -1;
            }
            next[w++] = (hlink){t->inputs[0].node, tails[i].port};
            continue;
        }
        fl_node *cons[HOIST_MAX];
        size_t nc = consumers(a, t, cons, HOIST_MAX);
        if (nc > HOIST_MAX) {
            return -1;
        }
        for (size_t j = 0; j < nc; j++) {
            fl_node *m = cons[j];
            if (m->n_inputs == 0) {
                if (m->n_ctrl > 0 && m->ctrl[0] == t) {
                    continue; /* a control output: skipped */
                }
                return -1;
            }
            if (m->inputs[0].node != t) {
                return -1;
            }
            if (w >= HOIST_MAX) {
                return -1;
            }
            next[w++] = (hlink){m, tails[i].port};
        }
    }
    qsort(next, (size_t)w, sizeof(hlink), hlink_cmp);
    return w;
}

/* Whether `from` is reachable from `to` by data or control edges (to
 * depends on from). */
static bool depends_on(ao *a, fl_node *to, const fl_node *from) {
    size_t cap = a->g->n_nodes;
    bool *seen = fl__arena_calloc(a->pc->c->a, cap + 1, sizeof(bool));
    fl_node **stack = fl__arena_calloc(a->pc->c->a, cap + 1, sizeof(fl_node *));
    if (!seen || !stack) {
        return true; /* (OOM: the caller does not hoist) */
    }
    size_t sp = 0;
    stack[sp++] = to;
    seen[to->id] = true;
    while (sp > 0) {
        fl_node *m = stack[--sp];
        if (m == from) {
            return true;
        }
        for (int k = 0; k < m->n_inputs + m->n_ctrl; k++) {
            fl_node *p =
                k < m->n_inputs ? fl__resolve(a->fwd, m->inputs[k]).node : m->ctrl[k - m->n_inputs];
            if (p->id < cap && !seen[p->id] && sp <= cap) {
                seen[p->id] = true;
                stack[sp++] = p;
            }
        }
    }
    return false;
}

/* Removes the old chain ending at `n` (walking inputs, `len` nodes) while
 * its nodes are left unread. */
static void drop_chain(ao *a, fl_node *n, int len) {
    for (int i = 0; i < len && n; i++) {
        if ((n->flags & FL_NODE_REMOVED) || fl__preserved(n) || a->uses[n->id] ||
            a->ctrl_uses[n->id] || n->n_inputs < 1) {
            return;
        }
        fl_node *next = n->inputs[0].node;
        ao_remove(a, n);
        n = next;
    }
}

/* Concat([f(g(x)), f(g(y))]) -> f(g(Concat([x, y]))): the first input's
 * chain is reused after the Concat, the others are removed. */
static fl_status hoist_concat(ao *a, fl_node *c, const hlink *tails, int n, int prefix,
                              fl_node **ctrl, int n_ctrl) {
    int first = is_op(c, "Concat") ? 1 : 0;
    fl_node *heads[HOIST_MAX];
    for (int i = 0; i < n; i++) {
        heads[i] = c->inputs[tails[i].port].node;
    }
    for (int j = 0; j < n_ctrl; j++) {
        fl_status st = ao_add_ctrl(a, c, ctrl[j]);
        if (st != FL_OK) {
            return st;
        }
    }
    resolve_all(a);
    for (int i = 0; i < n; i++) {
        fl_node *t = tails[i].node;
        int port = tails[i].port;
        fl_input head_in = c->inputs[port];
        ao_set_input(a, c, port, t->inputs[0]);
        if (port == first) {
            /* the Concat's consumers read the end of the first chain */
            size_t k = fl__graph_replace_uses(a->g, c, 0, head_in.node, head_in.port);
            a->uses[c->id] -= (uint32_t)k;
            a->uses[head_in.node->id] += (uint32_t)k;
            ao_set_input(a, t, 0, (fl_input){c, 0});
            a->pc->rewritten++;
        }
    }
    for (int i = 0; i < n; i++) {
        if (tails[i].port != first) {
            drop_chain(a, heads[i], prefix);
        }
    }
    a->pc->rewritten++;
    fl__ledger_note(a->pc, "hoist_cwise_unary_chains", c, "%d unary op(s) on %d inputs -> after %s",
                    prefix, n, c->op);
    return FL_OK;
}

/* [f(g(y)) for y in Split(x)] -> Split(f(g(x))): a copy of the first
 * output's chain, "<scope>/ArithmeticOptimizer/_<node>_<split>", runs
 * before the Split; the old chains are removed. */
static fl_status hoist_split(ao *a, fl_node *s, const hlink *tails, int n, int prefix,
                             fl_node **ctrl, int n_ctrl) {
    fl_node *tmpl[HOIST_MAX]; /* the first chain, last op first */
    int len = 0;
    for (fl_node *t = tails[0].node; t != s && len < HOIST_MAX; t = t->inputs[0].node) {
        if (t->n_inputs < 1) {
            return FL_OK;
        }
        tmpl[len++] = t;
    }
    const char *names[HOIST_MAX];
    for (int i = 0; i < len; i++) {
        names[i] = opt_name2(a, s->name, "", tmpl[i]->name);
        if (!names[i]) {
            return ao_oom(a);
        }
        if (exists(a, names[i])) {
            return FL_OK;
        }
    }
    int slot = is_op(s, "SplitV") ? 0 : 1;
    fl_input in = s->inputs[slot];
    fl_node *prev = NULL;
    for (int i = len; i-- > 0;) {
        fl_input src = prev ? (fl_input){prev, 0} : in;
        fl_node *cp = ao_add(a, names[i], tmpl[i]->op, s->device, 1, &src);
        if (!cp) {
            return ao_oom(a);
        }
        cp->device = tmpl[i]->device;
        if (tmpl[i]->n_attrs) {
            fl_attr *at = fl__arena_calloc(a->g->arena, (size_t)tmpl[i]->n_attrs, sizeof(fl_attr));
            if (!at) {
                return ao_oom(a);
            }
            memcpy(at, tmpl[i]->attrs, (size_t)tmpl[i]->n_attrs * sizeof(fl_attr));
            cp->attrs = at;
            cp->n_attrs = tmpl[i]->n_attrs;
        }
        if (!prev) {
            for (int j = 0; j < n_ctrl; j++) {
                fl_status st = ao_add_ctrl(a, cp, ctrl[j]);
                if (st != FL_OK) {
                    return st;
                }
            }
        }
        prev = cp;
    }
    ao_set_input(a, s, slot, (fl_input){prev, 0});
    resolve_all(a);
    for (int i = 0; i < n; i++) {
        fl_node *t = tails[i].node;
        size_t k = fl__graph_replace_uses(a->g, t, 0, s, tails[i].port);
        a->uses[t->id] -= (uint32_t)k;
        a->uses[s->id] += (uint32_t)k;
    }
    for (int i = 0; i < n; i++) {
        drop_chain(a, tails[i].node, prefix);
    }
    a->pc->rewritten++;
    fl__ledger_note(a->pc, "hoist_cwise_unary_chains", s,
                    "%d unary op(s) on %d outputs -> before %s", prefix, n, s->op);
    return FL_OK;
}

/* HoistCWiseUnaryChains (20), on a Concat/ConcatV2 or a Split/SplitV. */
static fl_status hoist_cwise_unary_chains(ao *a, fl_node *r) {
    bool concat = is_concat(r);
    if ((r->flags & FL_NODE_REMOVED) || (!concat && !is_split(r)) || fl__preserved(r)) {
        return FL_OK;
    }
    ao_resolve_inputs(a, r);
    hlink cur[HOIST_MAX], tails[HOIST_MAX];
    int n_cur = 0;
    if (concat) {
        int64_t nn;
        const fl_attr *at = fl__node_attr(r, "N");
        if (!at || at->kind != FL_ATTR_I || (nn = at->v.i) <= 1 || nn > HOIST_MAX) {
            return FL_OK;
        }
        int start = is_op(r, "Concat") ? 1 : 0;
        if (start + nn > r->n_inputs) {
            return FL_OK;
        }
        for (int i = start; i < start + (int)nn; i++) {
            for (int j = start; j < i; j++) {
                if (r->inputs[i].node == r->inputs[j].node &&
                    r->inputs[i].port == r->inputs[j].port) {
                    return FL_OK; /* FirstNInputsAreUnique */
                }
            }
            cur[n_cur++] = (hlink){r->inputs[i].node, i};
        }
    } else {
        const fl_attr *at = fl__node_attr(r, "num_split");
        if (!at || at->kind != FL_ATTR_I || at->v.i <= 1 || a->uses[r->id] > at->v.i ||
            a->ctrl_uses[r->id] > 0 || a->uses[r->id] < 2) {
            return FL_OK;
        }
        resolve_all(a);
        fl_node *cons[HOIST_MAX];
        size_t nc = consumers(a, r, cons, HOIST_MAX);
        if (nc > HOIST_MAX) {
            return FL_OK;
        }
        for (size_t j = 0; j < nc; j++) {
            if (cons[j]->n_inputs == 0) {
                continue;
            }
            if (cons[j]->inputs[0].node != r) {
                return FL_OK; /* a consumer whose first input is not the Split */
            }
            cur[n_cur++] = (hlink){cons[j], cons[j]->inputs[0].port};
        }
    }
    qsort(cur, (size_t)n_cur, sizeof(hlink), hlink_cmp);
    if (n_cur < 2) {
        return FL_OK;
    }
    fl_node *ctrl[HOIST_MAX];
    int n_ctrl = 0, n_tails = 0, prefix = 0;
    while (n_cur > 0 && hoist_safe(a, r, cur, n_cur)) {
        prefix++;
        memcpy(tails, cur, (size_t)n_cur * sizeof(hlink));
        n_tails = n_cur;
        n_ctrl = gather_ctrl(tails, n_tails, ctrl, n_ctrl);
        n_cur = advance(a, concat, tails, n_tails, cur);
        if (n_cur < 0) {
            break;
        }
    }
    if (prefix == 0 || n_tails == 0) {
        return FL_OK;
    }
    if (!concat) {
        /* a control input reached from the Split would close a cycle */
        for (int j = 0; j < n_ctrl; j++) {
            if (depends_on(a, ctrl[j], r)) {
                return FL_OK;
            }
        }
        return hoist_split(a, r, tails, n_tails, prefix, ctrl, n_ctrl);
    }
    return hoist_concat(a, r, tails, n_tails, prefix, ctrl, n_ctrl);
}

/* UnaryOpsComposition (28): the ops _UnaryOpsComposition supports for dt. */
static bool composable(const fl_node *n, int dt) {
    static const char *const all[] = {"Abs",   "Ceil",    "Cos",   "Expm1", "Exp",        "Floor",
                                      "Inv",   "Log",     "Log1p", "Neg",   "Reciprocal", "Round",
                                      "Rsqrt", "Sigmoid", "Sin",   "Sqrt",  "Square",     "Tanh",
                                      "Elu",   "Relu",    "Relu6", "Selu"};
    static const char *const no_half[] = {"Acos",  "Acosh", "Asin", "Asinh", "Atan",
                                          "Atanh", "Cosh",  "Rint", "Sinh",  "Tan"};
    if (dt != FL_DT_FLOAT && dt != FL_DT_DOUBLE && dt != FL_DT_HALF) {
        return false;
    }
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) {
        if (strcmp(n->op, all[i]) == 0) {
            return true;
        }
    }
    for (size_t i = 0; i < sizeof no_half / sizeof no_half[0]; i++) {
        if (strcmp(n->op, no_half[i]) == 0) {
            return dt != FL_DT_HALF;
        }
    }
    return false;
}

static bool compose_ok(const ao *a, const fl_node *n, const bool *fused) {
    return n->n_inputs == 1 && n->n_outputs == 1 && composable(n, attr_type(n, "T")) &&
           !fl__preserved(n) && on_cpu(a, n) && !fused[n->id] && n->n_ctrl == 0 &&
           a->ctrl_uses[n->id] == 0;
}

static fl_status unary_ops_composition(ao *a, fl_node *root, bool *fused) {
    if ((root->flags & FL_NODE_REMOVED) || !compose_ok(a, root, fused)) {
        return FL_OK;
    }
    int dt = attr_type(root, "T");
    fl_node *chain[256];
    int n = 0;
    chain[n++] = root;
    fl_node *last = root;
    while (n < 256) {
        fl_node *in = last->inputs[0].node;
        if (attr_type(in, "T") != dt || a->uses[in->id] != 1 || !compose_ok(a, in, fused)) {
            break;
        }
        chain[n++] = in;
        last = in;
    }
    if (n < 2) {
        return FL_OK;
    }
    /* (named only now: most roots have no chain, and the name is memory) */
    const char *nm = fl__arena_printf(a->g->arena, "%s/unary_ops_composition", root->name);
    if (!nm) {
        return ao_oom(a);
    }
    if (exists(a, nm)) {
        return FL_OK;
    }
    const char **names = fl__arena_calloc(a->g->arena, (size_t)n, sizeof(char *));
    if (!names) {
        return ao_oom(a);
    }
    for (int i = 0; i < n; i++) {
        fused[chain[i]->id] = true;
        names[i] = chain[n - 1 - i]->op;
    }
    fl_node *c = ao_add(a, nm, "_UnaryOpsComposition", root->device, 1, &last->inputs[0]);
    fl_attr on = fl__attr_make_strs(a->g, "op_names", (size_t)n, names);
    if (!c || set_type(a, c, "T", dt) != FL_OK || !on.name || ao_set_attr(a, c, on) != FL_OK) {
        return ao_oom(a);
    }
    fl__ledger_note(a->pc, "unary_ops_composition", root, "%d unary ops -> _UnaryOpsComposition",
                    n);
    ao_forward(a, root, (fl_input){c, 0});
    return FL_OK;
}

/* The forwarding stages of one group (0: 7-10, 1: 14, 2: 19, 3: 22): returns
 * the tensor n's consumers should read, with *rule set, or an input with
 * node NULL. */
static fl_input forward_target(const ao *a, const fl_node *n, int group, const char **rule) {
    fl_input none = {NULL, 0};
    if (!can_forward(a, n) || n->n_inputs < 1) {
        return none;
    }
    if (group == 3) {
        const fl_node *in = n->inputs[0].node;
        if (n->n_inputs == 1 && idempotent(n) && strcmp(in->op, n->op) == 0 && same_device(in, n)) {
            *rule = "remove_idempotent";
            return n->inputs[0];
        }
        return none;
    }
    const fl_tensor *x = fl_node_in(n, 0);
    const fl_tensor *out = &n->outputs[0];
    const fl_node *in = n->inputs[0].node;
    if (group == 0 && n->kind == FL_OP_TRANSPOSE && in->kind == FL_OP_TRANSPOSE &&
        n->n_inputs == 2 && in->n_inputs == 2 && perms_cancel(n, in)) {
        *rule = "remove_identity_transpose";
        return in->inputs[0];
    }
    if (group == 0 && involution(n->kind, n->op) && n->n_inputs == 1 &&
        strcmp(in->op, n->op) == 0 && in->n_inputs == 1 && n->inputs[0].port == 0) {
        *rule = "remove_involution";
        return in->inputs[0];
    }
    if (group == 0 && is_op(n, "Bitcast") && n->n_inputs == 1 &&
        attr_type(n, "T") != FL_DT_INVALID && attr_type(n, "T") == attr_type(n, "type")) {
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
static fl_status rewrite(ao *a, fl_node *n, bool *fired) {
    if (fl__preserved(n) || n->n_outputs != 1 || n->n_inputs < 1) {
        return FL_OK;
    }
    int dt = fl_node_in(n, 0)->dtype;
    const fl_node *in0 = n->inputs[0].node;
    if (n->kind == FL_OP_MUL && n->n_inputs == 2 && n->inputs[0].node == n->inputs[1].node &&
        n->inputs[0].port == n->inputs[1].port && !is_complex(dt)) {
        fl__ledger_note(a->pc, "replace_mul_with_square", n, "Mul(x, x) -> Square(x)");
        fl_input x = n->inputs[0];
        *fired = true;
        return become(a, n, "Square", 1, &x);
    }
    if ((n->kind == FL_OP_ADD || n->kind == FL_OP_ADD_V2 || n->kind == FL_OP_SUB) &&
        n->n_inputs == 2 && n->inputs[1].node->kind == FL_OP_NEG &&
        n->inputs[1].node->n_inputs == 1 && (int)fl_node_in(n, 1)->dtype == dt &&
        dt != FL_DT_STRING) {
        const char *op = n->kind == FL_OP_SUB ? "AddV2" : "Sub";
        fl_input in[2] = {n->inputs[0], n->inputs[1].node->inputs[0]};
        fl__ledger_note(a->pc, "remove_negation", n, "%s(x, Neg(y)) -> %s(x, y)", n->op, op);
        *fired = true;
        return become(a, n, op, 2, in);
    }
    if (n->kind == FL_OP_SQUARE && in0->kind == FL_OP_SUB && in0->n_inputs == 2 &&
        absorbable(a, in0) && !is_complex(dt)) {
        fl_input in[2] = {in0->inputs[0], in0->inputs[1]};
        fl__ledger_note(a->pc, "fuse_squared_diff", n,
                        "Square(Sub(a, b)) -> SquaredDifference(a, b)");
        *fired = true;
        return become(a, n, "SquaredDifference", 2, in);
    }
    if (n->kind == FL_OP_LOG && in0->kind == FL_OP_SOFTMAX && in0->n_inputs == 1 &&
        absorbable(a, in0)) {
        fl_input x = in0->inputs[0];
        fl__ledger_note(a->pc, "convert_log_softmax", n, "Log(Softmax(x)) -> LogSoftmax(x)");
        *fired = true;
        return become(a, n, "LogSoftmax", 1, &x);
    }
    const char *inv = n->kind == FL_OP_LOGICAL_NOT ? inverse_cmp(in0->kind) : NULL;
    if (inv && in0->n_inputs == 2 && absorbable(a, in0)) {
        fl_input in[2] = {in0->inputs[0], in0->inputs[1]};
        int t = fl_node_in(in0, 0)->dtype;
        fl__ledger_note(a->pc, "remove_logical_not", n, "LogicalNot(%s) -> %s", in0->op, inv);
        *fired = true;
        fl_status st = become(a, n, inv, 2, in);
        return st == FL_OK ? ao_set_attr(a, n, fl__attr_make_type(a->g, "T", t)) : st;
    }
    return FL_OK;
}

static fl_status forward_group(ao *a, fl_node *m, bool *fired, int group) {
    const char *rule = NULL;
    fl_input to = forward_target(a, m, group, &rule);
    if (to.node) {
        fl__ledger_note(a->pc, rule, m, "%s removed; consumers read '%s'", m->op, to.node->name);
        ao_forward(a, m, to);
        *fired = true;
    }
    return FL_OK;
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

typedef fl_status (*stage_fn)(ao *a, fl_node *n, bool *fired);

/* One node through the stages, in Grappler's order; the first that fires
 * wins. */
static fl_status visit(ao *a, fl_node *m) {
    static const stage_fn stages[] = {fold_conjugate_into_transpose,
                                      fold_multiply_into_conv,
                                      fold_transpose_into_matmul,
                                      fwd_early,
                                      bitcast_of_bitcast,
                                      replace_mul_with_tile,
                                      reduce_upsampling_dims,
                                      fwd_reshape,
                                      reshape_of_reshape,
                                      rewrite,
                                      reorder_cast_like,
                                      fwd_addn,
                                      aggregation_of_copies,
                                      sqrt_div_to_rsqrt_mul,
                                      fwd_idempotent,
                                      convert_pow,
                                      convert_log1p,
                                      max_or_min_of_monotonic,
                                      convert_expm1,
                                      remove_stack_slice_same_axis,
                                      simplify_embedding_lookup,
                                      remove_cast_into_segment_reduction};
    bool fired = false;
    for (size_t s = 0; s < sizeof stages / sizeof stages[0]; s++) {
        fl_status st = stages[s](a, m, &fired);
        if (st != FL_OK || fired) {
            return st;
        }
    }
    return FL_OK;
}

fl_status fl__pass_arithmetic_optimizer(fl_pass_ctx *pc) {
    fl_graph *g = pc->c->g;
    size_t n = g->n_nodes;
    bool *snap = fl__consumed_snapshot(pc);
    if (!snap) {
        return fl__diag_oom(pc->c->d);
    }
    ao a;
    fl_status st = ao_init(&a, pc);
    if (st != FL_OK) {
        return st;
    }
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
        st = add_ops_rewrite(&a, m, &fired);
        if (st == FL_OK && !fired) {
            st = minimize_broadcasts(&a, m, &claimed[m->id]);
        }
        if (st == FL_OK && !fired) {
            st = replace_pack_with_tile_reshape(&a, m, &fired);
        }
        if (st == FL_OK && !fired && is_concat(m)) {
            st = hoist_cwise_unary_chains(&a, m);
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
        ao_resolve_inputs(&a, m);
        st = claimed[m->id] ? FL_OK : visit(&a, m);
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
        ao_resolve_inputs(&a, m);
        st = is_split(m) ? hoist_cwise_unary_chains(&a, m) : unary_ops_composition(&a, m, fused);
        if (st != FL_OK) {
            return st;
        }
    }
    for (size_t i = 0; i < g->n_nodes; i++) {
        ao_resolve_inputs(&a, g->nodes[i]);
    }
    g->order = NULL;
    return fl__remove_dead(pc, snap, n, "remove_dead");
}
